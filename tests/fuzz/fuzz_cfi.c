// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_cfi.c - libFuzzer target: hostile binaries into
 * elf/cfi.c's table builder, which record runs as root on files any user
 * controls. Byte 0 picks how the rest becomes a file:
 *
 *   0  the bytes are the whole file (libelf's and the builder's ELF checks);
 *   1  bytes 1-4 are an address (little-endian), the rest the .eh_frame
 *      at that address in a small x86-64 ELF file built around it;
 *   2  the same with .debug_frame;
 *   3  as 1, then bytes 5-6 split the rest into .eh_frame_hdr (at the
 *      address) and .eh_frame, so libdw's binary-search table is fuzzed.
 *
 * The address lets a seed cut from a real binary keep its pc-relative
 * pointers meaningful. Wrapped files have one PT_LOAD mapping addresses
 * 1:1 to file offsets over 4 GiB, so nearly every FDE a mutation makes
 * yields rows, and most mutations land in the CFI, not in ELF headers.
 * tests/fuzz/gen_cfi_seeds.sh cuts the seeds from binaries of the build.
 *
 * Each file also goes through cfi_fdes__read (the FDE ranges that name
 * stripped functions: sorted, not overlapping, not empty) and
 * elf_file__open (symbols, PLT stubs, and the xz-packed MiniDebugInfo of
 * .gnu_debugdata, which gen_cfi_seeds.sh gives a few seeds, one damaged).
 *
 * Besides crashes, leaks, UB and timeouts it checks cfi_table__build's
 * promises: a documented error code and a zeroed table on failure; on
 * success rows strictly increasing, known types, a NONE row last, the
 * unsupported count right, the row and FDE limits kept. A violation prints
 * "fuzz: contract violation" and aborts so libFuzzer keeps the input.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/cfi.h"
#include "elf/elf_file.h"
#include <libelf.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static int memfd = -1;

/* The wrapped file: header, one PT_LOAD, .text, the CFI, names, section headers. */
#define TEXT_OFF	0x100
#define TEXT_SIZE	0x100
#define CFI_OFF		0x200
static const char shstrtab[] = "\0.text\0.eh_frame\0.debug_frame\0.shstrtab\0.eh_frame_hdr";
enum { NAME_TEXT = 1, NAME_EH = 7, NAME_DEBUG = 17, NAME_SHSTRTAB = 30, NAME_HDR = 40 };

static void violation(const char *what)
{
	fprintf(stderr, "fuzz: contract violation: %s\n", what);
	abort();
}

static void put(size_t off, const void *bytes, size_t n)
{
	if (pwrite(memfd, bytes, n, (off_t)off) != (ssize_t)n)
		abort();
}

static Elf64_Shdr section(uint32_t name, uint64_t addr, size_t off, size_t size, uint64_t flags)
{
	Elf64_Shdr sh = {
		.sh_name = name, .sh_type = SHT_PROGBITS, .sh_flags = flags,
		.sh_addr = addr, .sh_offset = off, .sh_size = size, .sh_addralign = 1,
	};

	return sh;
}

/* Writes an ELF file whose CFI sections hold cfi at addr (split at hdr_len for mode 3). */
static void write_wrapped(int mode, uint64_t addr, const uint8_t *cfi, size_t len, size_t hdr_len)
{
	static const uint8_t nops[TEXT_SIZE] = { [0 ... TEXT_SIZE - 1] = 0x90 };
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Shdr sh[5] = { { 0 } };
	size_t strtab_off = CFI_OFF + len, shoff = (strtab_off + sizeof(shstrtab) + 7) & ~(size_t)7;
	int nr = 1;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_filesz = ph.p_memsz = 1ull << 32;
	ph.p_align = 0x1000;

	sh[nr++] = section(NAME_TEXT, TEXT_OFF, TEXT_OFF, TEXT_SIZE, SHF_ALLOC | SHF_EXECINSTR);
	if (mode == 3) {
		sh[nr++] = section(NAME_HDR, addr, CFI_OFF, hdr_len, SHF_ALLOC);
		sh[nr++] = section(NAME_EH, addr + hdr_len, CFI_OFF + hdr_len, len - hdr_len, SHF_ALLOC);
	} else {
		sh[nr++] = section(mode == 1 ? NAME_EH : NAME_DEBUG, mode == 1 ? addr : 0, CFI_OFF,
				   len, mode == 1 ? SHF_ALLOC : 0);
	}
	sh[nr] = section(NAME_SHSTRTAB, 0, strtab_off, sizeof(shstrtab), 0);
	sh[nr].sh_type = SHT_STRTAB;
	eh.e_shstrndx = (uint16_t)nr++;
	eh.e_shnum = (uint16_t)nr;

	put(0, &eh, sizeof(eh));
	put(sizeof(eh), &ph, sizeof(ph));
	put(TEXT_OFF, nops, sizeof(nops));
	if (len)
		put(CFI_OFF, cfi, len);
	put(strtab_off, shstrtab, sizeof(shstrtab));
	put(shoff, sh, (size_t)nr * sizeof(sh[0]));
}

static void check_table(int err, const struct cfi_table *t)
{
	size_t i, unsupported = 0;

	if (err) {
		if (err != -ENOENT && err != -ENOEXEC && err != -EBADMSG && err != -E2BIG &&
		    err != -ENOMEM)
			violation("an error code cfi.h does not document");
		if (t->rows || t->nr_rows || t->nr_fdes || t->nr_unsupported)
			violation("a failed build left a table behind");
		return;
	}
	if (t->nr_rows < 2 || t->nr_rows > CFI_MAX_ROWS || t->nr_fdes > CFI_MAX_FDES || !t->source)
		violation("row or FDE count out of range");
	for (i = 0; i < t->nr_rows; i++) {
		const struct unw_row *r = &t->rows[i];

		if (r->cfa_type > UNW_CFA_RA_RDI || r->rbp_type > UNW_RBP_UNDEF ||
		    r->rbx_type > UNW_RBP_UNDEF)
			violation("unknown rule type");
		if (i && r->off <= r[-1].off)
			violation("rows do not strictly increase");
		if (i && !memcmp((const char *)r + 4, (const char *)&r[-1] + 4, sizeof(*r) - 4))
			violation("equal neighbours not merged");
		if (cfi_table__lookup(t, r->off) != r)
			violation("cfi_table__lookup misses a row's own offset");
		unsupported += r->cfa_type == UNW_CFA_UNSUPPORTED;
	}
	if (t->rows[t->nr_rows - 1].cfa_type != UNW_CFA_NONE)
		violation("the last row is not NONE");
	if (unsupported != t->nr_unsupported)
		violation("nr_unsupported is wrong");
	if (t->rows[0].off && cfi_table__lookup(t, t->rows[0].off - 1))
		violation("cfi_table__lookup finds a row before the first");
}

/* The FDE ranges and the symbols of the file at memfd. */
static void check_fdes_and_symbols(void)
{
	struct cfi_fde *v = NULL;
	struct elf_file *f = NULL;
	size_t nr = 0, i;
	Elf *elf;
	int fd, err;

	elf = elf_begin(memfd, ELF_C_READ, NULL);
	if (elf) {
		err = cfi_fdes__read(elf, &v, &nr);
		if (err && err != -ENOENT && err != -ENOEXEC && err != -EBADMSG && err != -E2BIG &&
		    err != -ENOMEM)
			violation("cfi_fdes__read returned an undocumented error");
		if (err && (v || nr))
			violation("cfi_fdes__read failed but left ranges");
		for (i = 0; i < nr; i++)
			if (v[i].end <= v[i].start || (i && v[i].start < v[i - 1].end))
				violation("FDE ranges empty, unsorted or overlapping");
		free(v);
		elf_end(elf);
	}
	fd = dup(memfd);
	if (fd < 0)
		abort();
	if (!elf_file__open(fd, NULL, 0, &f)) {	/* takes fd */
		for (i = 0; i < f->nr_syms; i++)
			if (!f->syms[i].size || !f->syms[i].name || f->srcs[i] > ELF_SYM_ENTRY)
				violation("a symbol without a size, a name or a source");
		if (f->debugdata_err && f->debugdata_err != -EBADMSG && f->debugdata_err != -EFBIG)
			violation("MiniDebugInfo refused with an undocumented error");
	}
	elf_file__close(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cfi_table t;
	size_t hdr_len = 0;
	uint64_t addr;
	int mode, err;

	if (memfd < 0) {
		memfd = memfd_create("fuzz_cfi", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
	}
	if (!len)
		return 0;
	mode = data[0] & 3;
	data++;
	len--;
	if (ftruncate(memfd, 0))
		abort();
	if (mode == 0) {
		if (len)
			put(0, data, len);
	} else {
		if (len < 4)
			return 0;
		addr = (uint64_t)data[0] | (uint64_t)data[1] << 8 | (uint64_t)data[2] << 16 |
		       (uint64_t)data[3] << 24;
		data += 4;
		len -= 4;
		if (mode == 3) {
			if (len < 2)
				return 0;
			hdr_len = (size_t)(data[0] | data[1] << 8);
			data += 2;
			len -= 2;
			if (hdr_len > len)
				hdr_len = len;
		}
		write_wrapped(mode, addr, data, len, hdr_len);
	}
	memset(&t, 0xa5, sizeof(t));		/* the builder must zero it */
	err = cfi_table__build(memfd, &t);
	check_table(err, &t);
	cfi_table__release(&t);
	check_fdes_and_symbols();
	return 0;
}
