// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_demangle.c - C++ and Rust names through eprof's wrapper
 * of libiberty's demangler (report/symbolize/demangle.c), its cache, and the
 * symbolizer that shows demangled names and keeps the mangled ones for
 * pprof's system_name.
 *
 * The expected strings are what c++filt and rustfilt print for these
 * names (Rust legacy names without their ::h<hash>, as perf shows them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/strtab.h"
#include "report/symbolize/demangle.h"
#include "report/symbolize/symbolize.h"
#include "tests/unit/harness.h"

static const struct {
	const char *mangled;
	const char *demangled;		/* NULL: not a mangled name, left alone */
} names[] = {
	/* C++, Itanium ABI */
	{ "_Z14bitmap_set_bitP11bitmap_headi", "bitmap_set_bit(bitmap_head*, int)" },
	{ "_ZN2ns6WorkerIiE4spinEi", "ns::Worker<int>::spin(int)" },
	{ "_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size() const" },
	{ "_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const" },
	{ "_ZN2ns6WorkerIiE4spinEi.constprop.0", "ns::Worker<int>::spin(int) [clone .constprop.0]" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi@plt",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)@plt" },
	{ "_ZSt4cout", "std::cout" },
	/* Rust legacy: the ::h<hash> goes, $u7b$-style escapes are decoded */
	{ "_ZN4core3fmt9Formatter3pad17h0a1b2c3d4e5f6789E", "core::fmt::Formatter::pad" },
	{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h1234567890abcdefE",
	  "std::rt::lang_start::{{closure}}" },
	{ "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure"
	  "$u7d$$u7d$$GT$17h0123456789abcdefE",
	  "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>" },
	/* Rust v0 */
	{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
	{ "_RNvNtCs1cm6n9iZ4fP_4core3fmt3pad", "core::fmt::pad" },
	{ "_RINvNtCs1234_4core3mem4swaplEB4_", "core::mem::swap::<i32>" },
	/* not mangled, or not valid: unchanged */
	{ "main", NULL },
	{ "memcpy@plt", NULL },
	{ "_start", NULL },
	{ "_Z", NULL },
	{ "_Zfoo", NULL },
	{ "_R", NULL },
	{ "", NULL },
};

static void table_demangles(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *s = demangle__name(names[i].mangled);

		if (names[i].demangled)
			CHECK_STR(s, names[i].demangled);
		else if (s)
			CHECK_STR(s, "(left alone)");
		free(s);
	}
}

/* A name past the input cap stays mangled instead of costing without bound. */
static void overlong_names_stay_mangled(void)
{
	size_t n = 64 * 1024, i;
	char *s = malloc(n + 16), *d;

	if (!s)
		return;
	strcpy(s, "_ZN");
	for (i = 3; i + 2 < n; i += 2)
		memcpy(s + i, "1a", 2);
	strcpy(s + i, "Ev");
	d = demangle__name(s);
	CHECK(d == NULL);
	free(d);
	free(s);
}

/* --short-names: libiberty without DMGL_PARAMS, with DMGL_RET_DROP. */
static void short_names_drop_params_and_return_types(void)
{
	static const struct { const char *mangled, *full, *shortn; } t[] = {
		{ "_ZN2ns3fooEi", "ns::foo(int)", "ns::foo" },
		{ "_ZN2ns3barIiEEvT_", "void ns::bar<int>(int)", "ns::bar<int>" },
		{ "_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size() const",
		  "std::vector<int, std::allocator<int> >::size" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char *f = demangle__name_opts(t[i].mangled, false);
		char *s = demangle__name_opts(t[i].mangled, true);

		CHECK(f && s);
		if (f && s) {
			CHECK_STR(f, t[i].full);
			CHECK_STR(s, t[i].shortn);
		}
		free(f);
		free(s);
	}
}

/*
 * Names come from recordings, which may be damaged or crafted: random
 * strings in the mangling alphabet must come back as NULL or a string,
 * never a crash or a leak (ASan watches), and the same way twice.
 */
static void random_names_are_safe(void)
{
	static const char alphabet[] = "_ZRNESIJLTvilmcjx0123456789abcdefhnrstuyzCDKPV$.@";
	char name[256], *a, *b;
	unsigned int seed = 11, i, j, len, took = 0;

	for (i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		len = 2 + (seed >> 16) % 200;
		name[0] = '_';
		name[1] = (seed >> 8) & 1 ? 'Z' : 'R';
		for (j = 2; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			name[j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		name[len] = '\0';
		a = demangle__name(name);
		b = demangle__name(name);
		CHECK((a == NULL) == (b == NULL));
		if (a && b) {
			CHECK(!strcmp(a, b));
			took++;
		}
		free(a);
		free(b);
	}
	printf("  %u of 20000 random names demangled\n", took);

	/* every truncation and one-byte change of the valid names above */
	took = 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i].mangled), k, c;

		if (!names[i].demangled || n >= sizeof(name))
			continue;
		for (k = 0; k < n; k++) {
			for (c = 0; c <= sizeof(alphabet) - 1; c++) {
				memcpy(name, names[i].mangled, n + 1);
				if (c == sizeof(alphabet) - 1)
					name[k] = '\0';	/* truncated */
				else
					name[k] = alphabet[c];
				a = demangle__name(name);
				took += a != NULL;
				free(a);
			}
		}
	}
	printf("  %u mutated names demangled\n", took);
}

static void cache_returns_interned_names(void)
{
	struct strtab t = STRTAB_INIT;
	struct demangler d;
	const char *a = NULL, *b = NULL, *c = NULL;

	strtab__init(&t);
	demangler__init(&d, &t);
	CHECK(demangler__get(&d, "_ZN2ns6WorkerIiE4spinEi", &a) == 1);
	CHECK_STR(a, "ns::Worker<int>::spin(int)");
	CHECK(demangler__get(&d, "_ZN2ns6WorkerIiE4spinEi", &b) == 1);
	CHECK(a == b);		/* asked twice, demangled once: the same interned string */
	CHECK(demangler__get(&d, "work_a", &c) == 0);
	CHECK_STR(c, "work_a");
	CHECK(c == strtab__dup(&t, "work_a"));
	demangler__release(&d);
	strtab__release(&t);
}

/* One mapping of a binary with two mangled symbols and a C one; a stack over the three. */
static struct symbolizer *symbolizer_with_cxx(bool no_demangle)
{
	static const struct rec_symbol syms[] = {
		{ 0x1000, 0x100, "_ZN2ns3runEm" },
		{ 0x1100, 0x100, "_ZN2ns6WorkerIlE4spinEi" },
		{ 0x1200, 0x100, "main" },
	};
	static const struct rec_segment seg = { .offset = 0, .vaddr = 0, .filesz = 0x10000 };
	static const uint64_t frames[] = { 0x401110, 0x401010, 0x401210 };
	struct rec_binary b = { .build_id = { 7 }, .build_id_len = 1, .path = "/bin/cxx",
				.source = ".symtab", .nr_segments = 1, .segments = &seg,
				.nr_symbols = ARRAY_SIZE(syms), .symbols = syms };
	struct rec_mapping m = { .tgid = 42, .start = 0x400000, .end = 0x410000, .path = "/bin/cxx",
				 .build_id = { 7 }, .build_id_len = 1 };
	struct rec_stack st = { .id = 1, .nr_user = 3, .frames = frames };
	struct sym_opts o = { .no_demangle = no_demangle };
	struct symbolizer *sym = symbolizer__new();

	if (!sym)
		return NULL;
	CHECK_OK(symbolizer__add_binary(sym, &b));
	CHECK_OK(symbolizer__add_mapping(sym, &m));
	CHECK_OK(symbolizer__add_stack(sym, &st));
	CHECK_OK(symbolizer__set_opts(sym, &o));
	return sym;
}

static void symbolizer_demangles_and_keeps_system_names(void)
{
	struct symbolizer *sym = symbolizer_with_cxx(false);
	const struct sym_stack *st = NULL;

	if (!sym)
		return;
	CHECK_OK(symbolizer__stack(sym, 42, 1, 0, &st));
	if (st && st->nr_user == 3) {
		CHECK_STR(st->frames[0].name, "ns::Worker<long>::spin(int)");
		CHECK_STR(st->frames[0].system_name, "_ZN2ns6WorkerIlE4spinEi");
		CHECK_STR(st->frames[1].name, "ns::run(unsigned long)");
		CHECK_STR(st->frames[1].system_name, "_ZN2ns3runEm");
		CHECK_STR(st->frames[2].name, "main");
		CHECK(st->frames[2].system_name == NULL);
	} else {
		CHECK(!"three user frames");
	}
	symbolizer__free(sym);
}

static void no_demangle_keeps_mangled_names(void)
{
	struct symbolizer *sym = symbolizer_with_cxx(true);
	const struct sym_stack *st = NULL;

	if (!sym)
		return;
	CHECK_OK(symbolizer__stack(sym, 42, 1, 0, &st));
	if (st && st->nr_user == 3) {
		CHECK_STR(st->frames[0].name, "_ZN2ns6WorkerIlE4spinEi");
		CHECK(st->frames[0].system_name == NULL);
		CHECK_STR(st->frames[1].name, "_ZN2ns3runEm");
	} else {
		CHECK(!"three user frames");
	}
	symbolizer__free(sym);
}

static const struct test tests[] = {
	{ "C++, Rust legacy and Rust v0 names demangle as c++filt/rustfilt show them",
	  table_demangles },
	{ "a name past the input cap stays mangled", overlong_names_stay_mangled },
	{ "random names never crash the demangler", random_names_are_safe },
	{ "--short-names drops parameter lists and return types",
	  short_names_drop_params_and_return_types },
	{ "the cache demangles once and interns", cache_returns_interned_names },
	{ "frames show demangled names and keep the mangled ones",
	  symbolizer_demangles_and_keeps_system_names },
	{ "--no-demangle keeps the names as the binary spells them",
	  no_demangle_keeps_mangled_names },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
