// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_minidebug.c - MiniDebugInfo (.gnu_debugdata) in
 * elf/minidebug.c and elf_file__open(): a good one gives its symbols
 * (with the .dynsym beside it, each symbol knowing its table), and every
 * damaged one (not xz, truncated, xz of something that is not ELF, an ELF
 * without .symtab, a compression bomb past ELF_MINIDEBUG_MAX) is refused
 * with its reason in debugdata_err, never a crash, the file still opened.
 *
 * The ELF files are made here in memory, the smallest that libelf reads:
 * a header, the sections' bytes, then the section headers.
 */
#include <elf.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_file.h"
#include "tests/unit/harness.h"

struct sec {
	const char *name;
	uint32_t type;
	uint64_t flags, addr;
	const void *data;
	size_t size;		/* for SHT_NOBITS: the memory size */
	uint32_t link;
	uint64_t entsize;
};

/* An ELF file of sections secs[0 .. n) (index i + 1 each), then .shstrtab. */
static void *make_elf(const struct sec *secs, size_t n, size_t *size)
{
	size_t i, off = sizeof(Elf64_Ehdr), names = 1, shoff, name_off[16];
	char shstrtab[256] = "";
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	uint8_t *img;
	size_t data_off[16];

	for (i = 0; i < n; i++) {
		name_off[i] = names;
		names += strlen(strcpy(shstrtab + names, secs[i].name)) + 1;
		data_off[i] = off;
		if (secs[i].type != SHT_NOBITS)
			off += secs[i].size;
	}
	name_off[n] = names;
	names += strlen(strcpy(shstrtab + names, ".shstrtab")) + 1;
	data_off[n] = off;
	off += names;
	shoff = (off + 7) & ~(size_t)7;
	*size = shoff + (n + 2) * sizeof(Elf64_Shdr);
	img = calloc(1, *size);
	if (!img)
		return NULL;
	eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (uint16_t)(n + 2);
	eh->e_shstrndx = (uint16_t)(n + 1);
	sh = (Elf64_Shdr *)(img + shoff);
	for (i = 0; i < n; i++) {
		if (secs[i].type != SHT_NOBITS && secs[i].size)
			memcpy(img + data_off[i], secs[i].data, secs[i].size);
		sh[i + 1] = (Elf64_Shdr){ .sh_name = (uint32_t)name_off[i], .sh_type = secs[i].type,
					  .sh_flags = secs[i].flags, .sh_addr = secs[i].addr,
					  .sh_offset = data_off[i], .sh_size = secs[i].size,
					  .sh_link = secs[i].link, .sh_addralign = 1,
					  .sh_entsize = secs[i].entsize };
	}
	memcpy(img + data_off[n], shstrtab, names);
	sh[n + 1] = (Elf64_Shdr){ .sh_name = (uint32_t)name_off[n], .sh_type = SHT_STRTAB,
				  .sh_offset = data_off[n], .sh_size = names, .sh_addralign = 1 };
	return img;
}

/* xz of data[0 .. len) (or of len zero bytes when data is NULL), into *out. */
static uint8_t *xz(const void *data, size_t len, size_t *out)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = len / 64 + 65536;
	uint8_t *buf = malloc(cap), *zeros = NULL;
	lzma_ret rc;

	if (!data)
		data = zeros = calloc(1, len);
	if (!buf || !data || lzma_easy_encoder(&strm, 0, LZMA_CHECK_CRC64) != LZMA_OK) {
		free(buf);
		free(zeros);
		return NULL;
	}
	strm.next_in = data;
	strm.avail_in = len;
	strm.next_out = buf;
	strm.avail_out = cap;
	rc = lzma_code(&strm, LZMA_FINISH);
	*out = cap - strm.avail_out;
	lzma_end(&strm);
	free(zeros);
	if (rc != LZMA_STREAM_END) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The inner file find-debuginfo makes: .text as NOBITS (the code stays in
 * the binary), .symtab with local_fn, its .strtab; with_symtab false
 * leaves the .symtab out.
 */
static void *inner_elf(bool with_symtab, size_t *size)
{
	static const char strtab[] = "\0local_fn";
	Elf64_Sym syms[2] = { { 0 }, { .st_name = 1, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC),
				       .st_shndx = 1, .st_value = 0x1040, .st_size = 0x20 } };
	struct sec secs[] = {
		{ ".text", SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, NULL, 0x100, 0, 0 },
		{ ".strtab", SHT_STRTAB, 0, 0, strtab, sizeof(strtab), 0, 0 },
		{ ".symtab", SHT_SYMTAB, 0, 0, syms, sizeof(syms), 2, sizeof(Elf64_Sym) },
	};

	return make_elf(secs, with_symtab ? 3 : 2, size);
}

/*
 * The outer binary: .text with code at 0x1000, a .dynsym naming
 * exported_fn, and .gnu_debugdata holding debugdata[0 .. len).
 */
static struct elf_file *open_outer(const void *debugdata, size_t len, void **img)
{
	static const char dynstr[] = "\0exported_fn";
	static uint8_t text[0x100];
	Elf64_Sym dyn[2] = { { 0 }, { .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				      .st_shndx = 1, .st_value = 0x1000, .st_size = 0x40 } };
	struct sec secs[] = {
		{ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, text, sizeof(text), 0, 0 },
		{ ".dynstr", SHT_STRTAB, SHF_ALLOC, 0, dynstr, sizeof(dynstr), 0, 0 },
		{ ".dynsym", SHT_DYNSYM, SHF_ALLOC, 0, dyn, sizeof(dyn), 2, sizeof(Elf64_Sym) },
		{ ".gnu_debugdata", SHT_PROGBITS, 0, 0, debugdata, len, 0, 0 },
	};
	struct elf_file *f = NULL;
	size_t size;

	*img = make_elf(secs, debugdata ? 4 : 3, &size);
	if (!*img || elf_file__open(-1, *img, size, &f))
		return NULL;
	return f;
}

static const char *name_at(const struct elf_file *f, uint64_t addr)
{
	long i = elf_file__find_symbol(f, addr);

	return i < 0 ? "(none)" : f->syms[i].name;
}

static void good_minidebuginfo_names_local_functions(void)
{
	size_t isize, zsize;
	void *inner = inner_elf(true, &isize), *img = NULL;
	uint8_t *z = inner ? xz(inner, isize, &zsize) : NULL;
	struct elf_file *f = z ? open_outer(z, zsize, &img) : NULL;
	long i;

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64(f->debugdata_err, 0);
		CHECK_STR(f->source, ".gnu_debugdata");
		CHECK_STR(name_at(f, 0x1010), "exported_fn");
		CHECK_STR(name_at(f, 0x1050), "local_fn");
		i = elf_file__find_symbol(f, 0x1050);
		CHECK(i >= 0 && !strcmp(elf_file__symbol_source(f, (size_t)i), ".gnu_debugdata"));
		i = elf_file__find_symbol(f, 0x1010);
		CHECK(i >= 0 && !strcmp(elf_file__symbol_source(f, (size_t)i), ".dynsym"));
	}
	elf_file__close(f);
	free(img);
	free(z);
	free(inner);
}

/* Opens the outer binary with debugdata and expects it refused with err. */
static void expect_refused(const void *debugdata, size_t len, int err)
{
	void *img = NULL;
	struct elf_file *f = open_outer(debugdata, len, &img);

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64((uint64_t)(int64_t)f->debugdata_err, (uint64_t)(int64_t)err);
		CHECK_STR(f->source, ".dynsym");
		CHECK_STR(name_at(f, 0x1010), "exported_fn");
		CHECK_STR(name_at(f, 0x1050), "(none)");
	}
	elf_file__close(f);
	free(img);
}

static void damaged_minidebuginfo_is_refused(void)
{
	static const char garbage[] = "\xfd" "7zXZ not really xz at all, just bytes";
	size_t isize, zsize, cut;
	void *inner = inner_elf(true, &isize), *bare = NULL;
	uint8_t *z = inner ? xz(inner, isize, &zsize) : NULL, *nz = NULL;
	size_t nsize;

	CHECK(z != NULL);
	if (!z)
		goto out;
	expect_refused(garbage, sizeof(garbage), -EBADMSG);
	/* every truncation of a good stream */
	for (cut = 1; cut < zsize; cut += cut < 64 ? 1 : 37)
		expect_refused(z, cut, -EBADMSG);
	/* a flipped byte in the middle (xz's CRC64 catches what LZMA does not) */
	z[zsize / 2] ^= 0x55;
	expect_refused(z, zsize, -EBADMSG);
	/* good xz of something that is not ELF */
	nz = xz("hello, not an ELF file", 22, &nsize);
	CHECK(nz != NULL);
	if (nz)
		expect_refused(nz, nsize, -EBADMSG);
	free(nz);
	/* an ELF file without .symtab */
	bare = inner_elf(false, &isize);
	nz = bare ? xz(bare, isize, &nsize) : NULL;
	CHECK(nz != NULL);
	if (nz)
		expect_refused(nz, nsize, -EBADMSG);
out:
	free(nz);
	free(bare);
	free(z);
	free(inner);
}

static void compression_bomb_is_refused(void)
{
	size_t zsize;
	/* a few KiB that would inflate one byte past the limit */
	uint8_t *z = xz(NULL, ELF_MINIDEBUG_MAX + 1, &zsize);

	CHECK(z != NULL);
	if (z) {
		CHECK(zsize < (1u << 20));
		expect_refused(z, zsize, -EFBIG);
	}
	free(z);
}

static const struct test tests[] = {
	{ "a good MiniDebugInfo names local functions beside .dynsym",
	  good_minidebuginfo_names_local_functions },
	{ "a damaged MiniDebugInfo is refused, the file still read", damaged_minidebuginfo_is_refused },
	{ "a compression bomb stops at ELF_MINIDEBUG_MAX", compression_bomb_is_refused },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
