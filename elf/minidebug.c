// SPDX-License-Identifier: MIT
/*
 * elf/minidebug.c - MiniDebugInfo: the xz-compressed ELF file that Fedora,
 * RHEL and others put in a stripped binary's .gnu_debugdata section so that
 * its local functions keep names (gdb, systemd-coredump and perf read it).
 * That inner file holds a .symtab, with the section headers its symbols
 * refer to, and nothing else worth reading here.
 *
 * The section comes from a binary any user controls and record runs as
 * root, so decompression is bounded twice: liblzma's memory limit refuses
 * a dictionary larger than real packers use, and the output stops at
 * ELF_MINIDEBUG_MAX bytes (a compression bomb is refused, not inflated).
 * liblzma does the decoding; this file only feeds it and checks the result.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_file.h"

/*
 * liblzma's memory limit for the decoder: xz -9 (a 64 MiB dictionary)
 * needs about 65 MiB; find-debuginfo uses xz's default of 8 MiB.
 */
#define MINIDEBUG_MEMLIMIT	(96ull << 20)

int elf_minidebug__inflate(void *elf, void **image, size_t *size)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	Elf_Scn *scn = elf_section__find(elf, ".gnu_debugdata");
	uint8_t *out = NULL, *p;
	size_t cap, want;
	Elf_Data *data;
	GElf_Shdr sh;
	lzma_ret rc;
	int err;

	*image = NULL;
	*size = 0;
	if (!scn)
		return -ENOENT;
	/* bounded before it is read: a sparse giant section costs nothing */
	if (!gelf_getshdr(scn, &sh))
		return -EBADMSG;
	if (sh.sh_size > ELF_MINIDEBUG_MAX)
		return -EFBIG;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return -EBADMSG;
	if (lzma_stream_decoder(&strm, MINIDEBUG_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	strm.next_in = data->d_buf;
	strm.avail_in = data->d_size;
	/* a symbol table compresses about 4:1; grow by doubling from there */
	cap = data->d_size < ELF_MINIDEBUG_MAX / 4 ? data->d_size * 4 : ELF_MINIDEBUG_MAX;
	if (cap < 4096)
		cap = 4096;
	for (;;) {
		p = realloc(out, cap);
		if (!p) {
			err = -ENOMEM;
			goto out;
		}
		out = p;
		strm.next_out = out + strm.total_out;
		strm.avail_out = cap - strm.total_out;
		rc = lzma_code(&strm, LZMA_FINISH);
		if (rc == LZMA_STREAM_END)
			break;
		if (rc == LZMA_MEMLIMIT_ERROR || rc == LZMA_MEM_ERROR) {
			err = rc == LZMA_MEM_ERROR ? -ENOMEM : -EFBIG;
			goto out;
		}
		if (rc != LZMA_OK || strm.avail_out) {
			/* corrupt, truncated (LZMA_BUF_ERROR), or not xz at all */
			err = -EBADMSG;
			goto out;
		}
		if (cap >= ELF_MINIDEBUG_MAX) {
			err = -EFBIG;
			goto out;
		}
		want = cap * 2;
		cap = want < ELF_MINIDEBUG_MAX ? want : ELF_MINIDEBUG_MAX;
	}
	if (strm.total_out < sizeof(Elf64_Ehdr) || memcmp(out, ELFMAG, SELFMAG)) {
		err = -EBADMSG;
		goto out;
	}
	*size = strm.total_out;
	*image = out;
	out = NULL;
	err = 0;
out:
	lzma_end(&strm);
	free(out);
	return err;
}
