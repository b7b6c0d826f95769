// SPDX-License-Identifier: MIT
/*
 * gen_bigsect: copies a 64-bit ELF program and makes the section headers
 * of its .eh_frame and .symtab claim giant sizes (issue 24), as a user
 * could hand root's `record -a`. The file grows sparse: a few KB more on
 * disk, gigabytes to whoever reads the sections whole.
 *
 *   .eh_frame  moved to a hole of EH_MB MiB of zeros after the file's end
 *   .symtab    copied after that hole, its real entries first, then zeros
 *              up to SYM_M million entries
 *
 * The program still runs as before: the loader reads segments, never
 * section headers. A test tool, not part of eprof (elf/ is eprof's only
 * reader of binaries).
 *
 * usage: gen_bigsect IN OUT [EH_MB [SYM_M]]   (default 2048 MiB, 40 M)
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long eh_mb = argc > 3 ? strtoull(argv[3], NULL, 10) : 2048;
	unsigned long long sym_m = argc > 4 ? strtoull(argv[4], NULL, 10) : 40;
	Elf64_Shdr *sh, *eh = NULL, *symtab = NULL;
	const char *names;
	Elf64_Ehdr *h;
	unsigned char *buf;
	struct stat st;
	uint64_t end, sym_off, sym_size;
	int in, out;
	size_t i;

	if (argc < 3)
		return fprintf(stderr, "usage: gen_bigsect IN OUT [EH_MB [SYM_M]]\n"), 2;
	in = open(argv[1], O_RDONLY);
	if (in < 0 || fstat(in, &st))
		return die(argv[1]);
	buf = malloc((size_t)st.st_size);
	if (!buf || read(in, buf, (size_t)st.st_size) != st.st_size)
		return die("read");
	h = (Elf64_Ehdr *)buf;
	if (memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
	    h->e_shoff + (uint64_t)h->e_shnum * sizeof(*sh) > (uint64_t)st.st_size ||
	    h->e_shstrndx >= h->e_shnum)
		return fprintf(stderr, "gen_bigsect: %s: not a 64-bit ELF file\n", argv[1]), 1;
	sh = (Elf64_Shdr *)(buf + h->e_shoff);
	names = (const char *)buf + sh[h->e_shstrndx].sh_offset;
	for (i = 0; i < h->e_shnum; i++) {
		if (!strcmp(names + sh[i].sh_name, ".eh_frame"))
			eh = &sh[i];
		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = &sh[i];
	}
	if (!eh || !symtab)
		return fprintf(stderr, "gen_bigsect: %s: no .eh_frame or .symtab\n", argv[1]), 1;
	end = ((uint64_t)st.st_size + 4095) & ~4095ull;
	sym_off = end + (eh_mb << 20);
	sym_size = sym_m * 1000000 * sizeof(Elf64_Sym);
	if (sym_size < symtab->sh_size)
		sym_size = symtab->sh_size;
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0)
		return die(argv[2]);
	/* the real entries first, where the new header points */
	if (pwrite(out, buf + symtab->sh_offset, symtab->sh_size, (off_t)sym_off) !=
	    (ssize_t)symtab->sh_size)
		return die("pwrite");
	eh->sh_offset = end;
	eh->sh_size = eh_mb << 20;
	symtab->sh_offset = sym_off;
	symtab->sh_size = sym_size;
	if (pwrite(out, buf, (size_t)st.st_size, 0) != st.st_size ||
	    ftruncate(out, (off_t)(sym_off + sym_size)) || close(out))
		return die("write");
	free(buf);
	close(in);
	return 0;
}
