// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_elf_symbols.c - the symbols elf/ gives the recorder
 * beyond the symbol table: PLT stubs ("name@plt", in .plt, .plt.sec and
 * .plt.got) and size-0 assembly labels.
 *
 * The stub names are checked against objdump (binutils names PLT entries
 * with its own synthetic symbols, from the same relocations), on the
 * plt_loop workload built both ways (.plt, and the IBT layout with
 * .plt.sec) and on libc, whose .plt also holds IRELATIVE slots.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "tests/unit/harness.h"

#ifndef EPROF_WORKLOADS
#error "EPROF_WORKLOADS must name the built workloads directory"
#endif

static struct elf_file *open_elf(const char *path)
{
	struct elf_file *f = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "  cannot open %s\n", path);
		return NULL;
	}
	if (elf_file__open(fd, NULL, 0, &f))
		return NULL;
	return f;
}

static const struct rec_symbol *symbol_at(const struct elf_file *f, uint64_t addr)
{
	long i = elf_file__find_symbol(f, addr);

	return i < 0 ? NULL : &f->syms[i];
}

static const struct rec_symbol *symbol_named(const struct elf_file *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nr_syms; i++)
		if (!strcmp(f->syms[i].name, name))
			return &f->syms[i];
	return NULL;
}

/*
 * Compares every "ADDR <NAME@plt>:" objdump prints for the PLT sections of
 * path with f's symbol at ADDR; returns how many stubs were compared and
 * sets *header to the lowest address listed (the .plt header, if any).
 */
static size_t compare_with_objdump(const struct elf_file *f, const char *path, uint64_t *header)
{
	char cmd[4096 + 128], line[4096], name[4096];
	unsigned long long addr;
	size_t compared = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	if (!p) {
		CHECK(!"objdump runs");
		return 0;
	}
	*header = UINT64_MAX;
	while (fgets(line, sizeof(line), p)) {
		const struct rec_symbol *s;
		size_t n;

		if (sscanf(line, "%llx <%4095[^>]>:", &addr, name) != 2)
			continue;
		if (addr < *header)
			*header = addr;
		n = strlen(name);
		if (n < 4 || strcmp(name + n - 4, "@plt"))
			continue;	/* the header ("X@plt-0x10", ".plt") */
		s = symbol_at(f, addr);
		if (!s || s->addr != addr) {
			fprintf(stderr, "  %s: no stub at 0x%llx (%s)\n", path, addr, name);
			harness_failures++;
			continue;
		}
		if (strncmp(name, "*ABS*", 5))	/* an IRELATIVE slot: objdump has no name */
			CHECK_STR(s->name, name);
		else
			CHECK(strlen(s->name) > 4 && !strcmp(s->name + strlen(s->name) - 4, "@plt"));
		compared++;
	}
	CHECK(pclose(p) == 0);
	return compared;
}

static void stubs_named_as_objdump_names_them(const char *path, size_t at_least)
{
	struct elf_file *f = open_elf(path);
	uint64_t header;
	size_t n;

	CHECK(f != NULL);
	if (!f)
		return;
	n = compare_with_objdump(f, path, &header);
	if (n < at_least)
		fprintf(stderr, "  %s: %zu stubs compared, expected at least %zu\n", path, n,
			at_least);
	CHECK(n >= at_least);
	CHECK(f->nr_plt >= n);
	elf_file__close(f);
}

static void plt_stubs(void)
{
	stubs_named_as_objdump_names_them(EPROF_WORKLOADS "/plt_loop", 2);
}

static void plt_sec_stubs(void)
{
	struct elf_file *f = open_elf(EPROF_WORKLOADS "/plt_loop_ibt");
	const struct rec_symbol *s;

	stubs_named_as_objdump_names_them(EPROF_WORKLOADS "/plt_loop_ibt", 2);
	if (!f)
		return;
	/* and the lazy .plt entries (endbr64; push index) by the index they push */
	s = symbol_named(f, "labs@plt");
	CHECK(s != NULL);
	elf_file__close(f);
}

static void libc_stubs(void)
{
	stubs_named_as_objdump_names_them("/lib/x86_64-linux-gnu/libc.so.6", 10);
}

/* label_spin is a bare label: it runs to the next symbol; crt's _init stops at .init's end. */
static void labels_are_sized(void)
{
	struct elf_file *f = open_elf(EPROF_WORKLOADS "/plt_loop");
	const struct rec_symbol *l, *next;
	uint64_t header;

	if (!f)
		return;
	l = symbol_named(f, "label_spin");
	CHECK(l != NULL);
	if (l) {
		CHECK(l->size > 0);
		next = l + 1 < f->syms + f->nr_syms ? l + 1 : NULL;
		CHECK(!next || l->addr + l->size == next->addr);
	}
	compare_with_objdump(f, EPROF_WORKLOADS "/plt_loop", &header);
	CHECK(header != UINT64_MAX);
	CHECK(symbol_at(f, header) == NULL);	/* the resolver header: not _init, not a stub */
	elf_file__close(f);
}

/* A stripped binary's debug file has no code: it gets the binary's stubs. */
static void debug_file_gets_the_stubs(void)
{
	char cmd[16384], dbg_path[4096], bin_path[4096];
	struct elf_file *f = NULL, *dbg = NULL;
	const struct rec_symbol *a, *b;

	snprintf(dbg_path, sizeof(dbg_path), "%s", path_in("plt_loop.debug"));
	snprintf(bin_path, sizeof(bin_path), "%s", path_in("plt_loop"));
	snprintf(cmd, sizeof(cmd),
		 "objcopy --only-keep-debug '%s' '%s' && "
		 "objcopy --strip-all --add-gnu-debuglink='%s' '%s' '%s'",
		 EPROF_WORKLOADS "/plt_loop", dbg_path, dbg_path, EPROF_WORKLOADS "/plt_loop",
		 bin_path);
	CHECK(system(cmd) == 0);
	f = open_elf(bin_path);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_STR(f->source, ".dynsym");
	CHECK_OK(debug_file__open(f, bin_path, &dbg));
	if (dbg) {
		CHECK_STR(dbg->source, ".symtab");
		a = symbol_named(f, "labs@plt");
		b = symbol_named(dbg, "labs@plt");
		CHECK(a && b && a->addr == b->addr && a->size == b->size);
		CHECK(symbol_named(dbg, "label_spin") != NULL);
		CHECK(symbol_named(dbg, "call_labs") != NULL);
	}
	elf_file__close(dbg);
	elf_file__close(f);
	unlink(dbg_path);
	unlink(bin_path);
}

static void offsets_and_addresses(void)
{
	static const struct rec_segment segs[] = {
		{ 0x0, 0x400000, 0x1000 },		/* ELF header, rodata */
		{ 0x1000, 0x401000, 0x2345 },		/* text */
		{ 0x4000, 0x604000, 0x100 },		/* data */
		{ UINT64_MAX - 0x10, 0x10, 0x20 },	/* nonsense that must not wrap */
	};
	uint64_t v = 0, off, left;

	CHECK_OK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), 0x0, &v));
	CHECK_EQ_U64(v, 0x400000);
	CHECK_OK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), 0x1500, &v));
	CHECK_EQ_U64(v, 0x401500);
	CHECK_OK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), 0x1000 + 0x2344, &v));
	CHECK_EQ_U64(v, 0x401000 + 0x2344);
	/* one past filesz */
	CHECK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), 0x1000 + 0x2345, &v) == -ENOENT);
	CHECK_OK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), 0x40ff, &v));
	CHECK_EQ_U64(v, 0x6040ff);
	CHECK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), 0x3fff, &v) == -ENOENT);
	CHECK_OK(elf_segments__offset_to_vaddr(segs, ARRAY_SIZE(segs), UINT64_MAX, &v));
	CHECK_EQ_U64(v, 0x20);
	CHECK(elf_segments__offset_to_vaddr(NULL, 0, 0x10, &v) == -ENOENT);
	/* and back: the inverse, with what is left of the segment */
	CHECK_OK(elf_segments__vaddr_to_offset(segs, ARRAY_SIZE(segs), 0x401500, &off, &left));
	CHECK_EQ_U64(off, 0x1500);
	CHECK_EQ_U64(left, 0x2345 - 0x500);
	CHECK(elf_segments__vaddr_to_offset(segs, ARRAY_SIZE(segs), 0x403345, &off, &left) ==
	      -ENOENT);
}

static void build_id_paths(void)
{
	static const uint8_t id[] = { 0xab, 0x01, 0x23, 0xff };
	char buf[64], tiny[30];	/* "/dd/.build-id/ab/0123ff.debug" and its NUL */

	CHECK_OK(elf_build_id__debug_path(buf, sizeof(buf), "/usr/lib/debug", id, 4));
	CHECK_STR(buf, "/usr/lib/debug/.build-id/ab/0123ff.debug");
	CHECK_OK(elf_build_id__debug_path(buf, sizeof(buf), "/d", id, 1));
	CHECK_STR(buf, "/d/.build-id/ab/.debug");
	CHECK(elf_build_id__debug_path(buf, sizeof(buf), "/d", id, 0) == -EINVAL);
	/* a path that does not fit is refused, never cut into another path */
	CHECK(elf_build_id__debug_path(tiny, sizeof(tiny), "/usr/lib/debug", id, 4) ==
	      -ENAMETOOLONG);
	CHECK_OK(elf_build_id__debug_path(tiny, sizeof(tiny), "/dd", id, 4));
	CHECK_STR(tiny, "/dd/.build-id/ab/0123ff.debug");
}

/* Among aliases at one address the lower rank wins. */
static void alias_ranks(void)
{
	/* the public name over glibc's internal spellings */
	CHECK(elf_sym__rank(STT_FUNC, STB_GLOBAL, "malloc") <
	      elf_sym__rank(STT_FUNC, STB_GLOBAL, "__libc_malloc"));
	CHECK(elf_sym__rank(STT_FUNC, STB_WEAK, "mprotect") <
	      elf_sym__rank(STT_FUNC, STB_GLOBAL, "__mprotect"));
	CHECK(elf_sym__rank(STT_FUNC, STB_GLOBAL, "clone3") <
	      elf_sym__rank(STT_FUNC, STB_LOCAL, "__GI___clone3"));
	CHECK(elf_sym__rank(STT_FUNC, STB_LOCAL, "f") >
	      elf_sym__rank(STT_FUNC, STB_WEAK, "__f"));
	CHECK(elf_sym__rank(STT_NOTYPE, STB_GLOBAL, "label") >
	      elf_sym__rank(STT_FUNC, STB_LOCAL, "__GI_f"));
	/* the vDSO's own name, not the libc wrapper's public one it aliases */
	CHECK(elf_sym__rank(STT_FUNC, STB_GLOBAL, "__vdso_clock_gettime") <
	      elf_sym__rank(STT_FUNC, STB_WEAK, "clock_gettime"));
	/* ld.so's symbols are all local: the __GI_ one still loses */
	CHECK(elf_sym__rank(STT_FUNC, STB_LOCAL, "__open64_nocancel") <
	      elf_sym__rank(STT_FUNC, STB_LOCAL, "__GI___open64_nocancel"));
	CHECK_EQ_U64(elf_sym__underscores("___x"), 3);
	CHECK_EQ_U64(elf_sym__underscores("__________y"), 8);
}

/* The entry point of path from its ELF header (0: unreadable). */
static uint64_t entry_of(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, &eh, sizeof(eh), 0);
	close(fd);
	return n == (ssize_t)sizeof(eh) ? eh.e_entry : 0;
}

/*
 * A stripped PIE (Debian's /bin/true: only .dynsym, none of whose symbols
 * covers the entry) gets "_start" at its entry, over crt1's FDE and no
 * further; libc.so.6, a library with an entry point, gets no "_start".
 */
static void entry_is_start(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	uint64_t entry = entry_of("/bin/true");
	struct elf_file *f = open_elf("/bin/true");
	const struct rec_symbol *s;
	long k;

	CHECK(entry != 0);
	if (!f)
		return;
	CHECK(f->source == NULL || strcmp(f->source, ".symtab"));	/* stripped, as shipped */
	k = elf_file__find_symbol(f, entry);
	CHECK(k >= 0);
	if (k >= 0) {
		s = &f->syms[k];
		CHECK_STR(s->name, "_start");
		CHECK_EQ_U64(s->addr, entry);
		CHECK(s->size > 0 && s->size <= 64);	/* crt1's _start, not what follows */
		CHECK((size_t)k + 1 == f->nr_syms || f->syms[k + 1].addr >= s->addr + s->size);
		CHECK_EQ_U64(f->srcs[k], ELF_SYM_ENTRY);
	}
	elf_file__close(f);
	entry = entry_of(libc);
	f = open_elf(libc);
	CHECK(entry != 0 && f != NULL);
	if (!f)
		return;
	s = symbol_at(f, entry);
	CHECK(!s || strcmp(s->name, "_start"));
	elf_file__close(f);
}

static const struct test tests[] = {
	{ "aliases: the public name wins, the vDSO's own in the vDSO", alias_ranks },
	{ ".plt stubs are named as objdump names them", plt_stubs },
	{ ".plt.sec (IBT) stubs are named as objdump names them", plt_sec_stubs },
	{ "libc's .plt and .plt.got, IRELATIVE slots included", libc_stubs },
	{ "a size-0 label runs to the next symbol, _init not past .init", labels_are_sized },
	{ "a debug file's symbols include the binary's stubs", debug_file_gets_the_stubs },
	{ "file offsets and addresses translate through segments", offsets_and_addresses },
	{ "the /usr/lib/debug/.build-id path, refused when too long", build_id_paths },
	{ "a stripped executable's entry point is _start, a library's is not", entry_is_start },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
