// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_cfi.c - elf/cfi.c against binutils: the unwind table
 * built for the system libc (and for test binaries, PIE and not) must
 * agree with `readelf --debug-dump=frames-interp` on every row, in both
 * directions: each rule readelf prints is what the table says at that
 * address, and each row the table holds is what readelf says there. Then
 * the special rules (PLT, signal frame, outermost frame), the error codes,
 * and truncated or damaged copies of libc, which must never crash.
 *
 * Without readelf the comparison is skipped (the binary exits 77), never
 * passed.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf/cfi.h"
#include "elf/elf_file.h"
#include "tests/unit/harness.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"

/* ---- readelf's table --------------------------------------------------- */

/* One row of readelf's interpreted table: rules for [start, end). */
struct want {
	uint64_t start, end;		/* virtual addresses */
	char cfa[32], rbx[32], rbp[32], ra[32];	/* readelf's spellings; "" = no column */
	bool signal;			/* the CIE's augmentation has 'S' */
};

struct wants {
	struct want *v;
	size_t nr, cap;
};

static void wants__push(struct wants *w, const struct want *x)
{
	if (w->nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 4096;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		if (!w->v)
			abort();
	}
	w->v[w->nr++] = *x;
}

/* A CIE's initial rules, used by FDEs for which readelf prints no rows. */
struct cie_rules {
	unsigned long off;
	struct want rules;
};

struct parse {
	struct wants *out;
	struct cie_rules cies[256];
	size_t nr_cies;
	struct want cur;		/* rules of the row being read */
	uint64_t fde_lo, fde_hi;
	bool in_fde, fde_has_rows, cur_signal;
	int col_rbx, col_rbp, col_ra;	/* column of rbx, rbp and ra in the header; -1 */
};

/* Ends the open FDE: its last row runs to the FDE's end. */
static void parse__close_fde(struct parse *p)
{
	if (!p->in_fde)
		return;
	/* No rows printed: the CIE's rules cover the whole FDE. */
	p->cur.end = p->fde_hi;
	if (p->cur.start < p->cur.end)
		wants__push(p->out, &p->cur);
	p->in_fde = false;
}

static void parse__cie(struct parse *p, unsigned long off, const char *line)
{
	const char *aug = strchr(line, '"');
	const char *aug_end = aug ? strchr(aug + 1, '"') : NULL;

	if (p->nr_cies == ARRAY_SIZE(p->cies))
		abort();
	p->cies[p->nr_cies].off = off;
	memset(&p->cies[p->nr_cies].rules, 0, sizeof(struct want));
	p->cur_signal = aug && aug_end && memchr(aug, 'S', (size_t)(aug_end - aug));
	p->cies[p->nr_cies].rules.signal = p->cur_signal;
	p->nr_cies++;
}

static void parse__fde(struct parse *p, unsigned long cie, uint64_t lo, uint64_t hi)
{
	size_t i;

	p->in_fde = true;
	p->fde_has_rows = false;
	p->fde_lo = lo;
	p->fde_hi = hi;
	for (i = 0; i < p->nr_cies; i++) {
		if (p->cies[i].off != cie)
			continue;
		/* Rows of the CIE's rules until readelf prints the FDE's own. */
		p->cur = p->cies[i].rules;
		p->cur.start = lo;
		p->cur_signal = p->cur.signal;
		return;
	}
	p->in_fde = false;			/* unknown CIE: not compared */
}

/* A header line "   LOC   CFA   rbx   rbp ... ra": where rbx, rbp and ra are. */
static void parse__header(struct parse *p, char *line)
{
	char *tok, *save = NULL;
	int col = 0;

	p->col_rbx = p->col_rbp = p->col_ra = -1;
	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save), col++) {
		if (!strcmp(tok, "rbx"))
			p->col_rbx = col;
		else if (!strcmp(tok, "rbp"))
			p->col_rbp = col;
		else if (!strcmp(tok, "ra"))
			p->col_ra = col;
	}
}

/*
 * A row "LOC CFA reg reg ... ra", one token per header column, except
 * that a register held in another one prints as two: "r3 (rbx)".
 */
static void parse__row(struct parse *p, char *line, bool in_cie)
{
	struct want row = { 0 };
	char *tok, *save = NULL;
	uint64_t loc = 0;
	int col = -1;

	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *dst;

		if (tok[0] == '(')
			continue;		/* the name part of "r3 (rbx)" */
		col++;
		if (col == 0) {
			loc = strtoull(tok, NULL, 16);
			continue;
		}
		dst = col == 1 ? row.cfa : col == p->col_rbx ? row.rbx : col == p->col_rbp ? row.rbp :
		      col == p->col_ra ? row.ra : NULL;
		if (dst)
			snprintf(dst, sizeof(row.cfa), "%s", tok);
	}
	row.signal = p->cur_signal;
	if (in_cie) {
		row.signal = p->cies[p->nr_cies - 1].rules.signal;
		p->cies[p->nr_cies - 1].rules = row;
		return;
	}
	if (!p->in_fde)
		return;
	if (p->fde_has_rows || loc > p->fde_lo) {
		p->cur.end = loc;
		if (p->cur.start < p->cur.end)
			wants__push(p->out, &p->cur);
	}
	row.start = loc;
	p->cur = row;
	p->fde_has_rows = true;
}

/* Runs readelf on path into *w; -ENOENT when readelf is not installed. */
static int readelf_rows(const char *path, struct wants *w)
{
	struct parse p = { .out = w, .col_rbx = -1, .col_rbp = -1, .col_ra = -1 };
	char cmd[600], line[1024];
	bool in_cie = false;
	FILE *f;

	if (system("readelf --version >/dev/null 2>&1") != 0)
		return -ENOENT;
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long off, cie;
		uint64_t lo, hi;

		if (sscanf(line, "%lx %*x %*x FDE cie=%lx pc=%lx..%lx", &off, &cie, &lo, &hi) == 4) {
			parse__close_fde(&p);
			in_cie = false;
			parse__fde(&p, cie, lo, hi);
		} else if (sscanf(line, "%lx %*x %*x CIE", &off) == 1 && strstr(line, " CIE")) {
			parse__close_fde(&p);
			in_cie = true;
			parse__cie(&p, off, line);
		} else if (strstr(line, "   LOC ")) {
			parse__header(&p, line);
		} else if (strlen(line) > 17 && line[16] == ' ' &&
			   strspn(line, "0123456789abcdef") == 16) {
			parse__row(&p, line, in_cie);
		} else if (line[0] == '\n' && !in_cie) {
			parse__close_fde(&p);
		}
	}
	parse__close_fde(&p);
	/* readelf 2.40 exits 1 on libc with nothing on stderr: the rows decide. */
	pclose(f);
	return 0;
}

/* ---- readelf's rules in the table's terms ------------------------------ */

/* "rsp+16" -> reg "rsp", off 16; "c-16" -> "c", -16. */
static bool split_rule(const char *s, char *reg, size_t cap, long *off)
{
	size_t n = strcspn(s, "+-");
	char *end;

	if (!s[n] || n >= cap)
		return false;
	memcpy(reg, s, n);
	reg[n] = '\0';
	*off = strtol(s + n, &end, 10);
	return !*end;
}

/* readelf's rule for a callee-saved register as enum unw_rbp, the offset in *off. */
static uint8_t expected_saved(const char *rule, int16_t *off)
{
	char reg[16];
	long at;

	if (!rule[0] || !strcmp(rule, "u") || !strcmp(rule, "s"))
		return UNW_RBP_SAME;
	if (split_rule(rule, reg, sizeof(reg), &at) && !strcmp(reg, "c")) {
		*off = (int16_t)at;
		return UNW_RBP_CFA;
	}
	return UNW_RBP_UNDEF;
}

/* What the table must hold for readelf's rules; *loose: an expression readelf cannot show. */
static struct unw_row expected_row(const struct want *w, bool *loose)
{
	struct unw_row r = { .cfa_type = UNW_CFA_UNSUPPORTED };
	char reg[16];
	long off;

	*loose = false;
	if (w->signal) {
		r.cfa_type = UNW_CFA_SIGNAL;
		return r;
	}
	if (!strcmp(w->ra, "u")) {
		r.cfa_type = UNW_CFA_END;
		return r;
	}
	/* the return address held in rdi (vfork), with CFA = rsp + N */
	if (!strcmp(w->ra, "r5") && split_rule(w->cfa, reg, sizeof(reg), &off) &&
	    !strcmp(reg, "rsp")) {
		r.cfa_type = UNW_CFA_RA_RDI;
		r.cfa_off = (int32_t)off;
		return r;
	}
	if (strcmp(w->ra, "c-8"))
		return r;
	if (!strcmp(w->cfa, "exp")) {
		*loose = true;		/* PLT or UNSUPPORTED, checked by its own test */
		return r;
	}
	if (!split_rule(w->cfa, reg, sizeof(reg), &off))
		return r;
	if (!strcmp(reg, "rsp"))
		r.cfa_type = UNW_CFA_RSP;
	else if (!strcmp(reg, "rbp"))
		r.cfa_type = UNW_CFA_RBP;
	else if (!strcmp(reg, "rbx"))
		r.cfa_type = UNW_CFA_RBX;
	else
		return r;
	r.cfa_off = (int32_t)off;
	r.rbp_type = expected_saved(w->rbp, &r.rbp_off);
	r.rbx_type = expected_saved(w->rbx, &r.rbx_off);
	return r;
}

static bool rows_agree(const struct unw_row *got, const struct want *w)
{
	bool loose;
	struct unw_row want = expected_row(w, &loose);

	if (loose)
		return got->cfa_type == UNW_CFA_PLT || got->cfa_type == UNW_CFA_UNSUPPORTED;
	if (got->cfa_type != want.cfa_type)
		return false;
	if (want.cfa_type == UNW_CFA_RA_RDI)
		return got->cfa_off == want.cfa_off;
	if (want.cfa_type != UNW_CFA_RSP && want.cfa_type != UNW_CFA_RBP &&
	    want.cfa_type != UNW_CFA_RBX)
		return true;
	return got->cfa_off == want.cfa_off && got->rbp_type == want.rbp_type &&
	       got->rbp_off == want.rbp_off && got->rbx_type == want.rbx_type &&
	       got->rbx_off == want.rbx_off;
}

/* bsearch order: a readelf row "equals" the addresses it covers. */
static int want_covers(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key;
	const struct want *w = elem;

	return a < w->start ? -1 : a >= w->end;
}

/* readelf's row covering virtual address a, or NULL. */
static const struct want *wants_lookup(const struct wants *w, uint64_t a)
{
	return bsearch(&a, w->v, w->nr, sizeof(*w->v), want_covers);
}

static int want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int build_file(const char *path, struct cfi_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = cfi_table__build(fd, t);
	close(fd);
	return err;
}

static void report_mismatch(size_t *n, const char *dir, uint64_t vaddr, const struct unw_row *r,
			    const struct want *w)
{
	if (++*n > 10)
		return;
	fprintf(stderr, "  %s at 0x%" PRIx64 ": table %d/%d rbp %d/%d, readelf cfa=%s rbp=%s ra=%s%s\n",
		dir, vaddr, r ? r->cfa_type : -1, r ? r->cfa_off : 0, r ? r->rbp_type : -1,
		r ? r->rbp_off : 0, w ? w->cfa : "-", w ? w->rbp : "-", w ? w->ra : "-",
		w && w->signal ? " (signal)" : "");
}

/*
 * Compares path's table with readelf's, both directions; prints the
 * unsupported share. Returns false when readelf is missing (skipped).
 */
static bool compare_with_readelf(const char *path, double max_unsupported)
{
	struct cfi_table t = { 0 };
	struct wants w = { 0 };
	struct elf_file *f = NULL;
	size_t i, bad = 0, checked = 0;
	int err, fd;

	err = readelf_rows(path, &w);
	if (err == -ENOENT) {
		test_skip("readelf is not installed (binutils; .ci/deps.sh --tests)");
		return false;
	}
	CHECK_OK(err);
	CHECK(w.nr > 0);
	qsort(w.v, w.nr, sizeof(*w.v), want_cmp);
	CHECK_OK(build_file(path, &t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_OK(elf_file__open(fd, NULL, 0, &f));
	if (!f || !t.nr_rows)
		goto out;

	/* Every rule readelf prints is the table's at that address. */
	for (i = 0; i < w.nr; i++) {
		uint64_t off, left;
		const struct unw_row *r;

		if (elf_segments__vaddr_to_offset(f->segs, f->nr_segs, w.v[i].start, &off, &left))
			continue;
		r = cfi_table__lookup(&t, off);
		checked++;
		if (!r || !rows_agree(r, &w.v[i]))
			report_mismatch(&bad, "readelf row", w.v[i].start, r, &w.v[i]);
	}
	/* Every row of the table is readelf's rule there (NONE: no rule). */
	for (i = 0; i < t.nr_rows; i++) {
		const struct unw_row *r = &t.rows[i];
		const struct want *x;
		uint64_t vaddr;

		/* The closing NONE row may sit just past its segment's file image. */
		if (elf_file__offset_to_vaddr(f, r->off, &vaddr)) {
			CHECK(r->cfa_type == UNW_CFA_NONE);
			continue;
		}
		x = wants_lookup(&w, vaddr);
		if (r->cfa_type == UNW_CFA_NONE ? x != NULL : !x || !rows_agree(r, x))
			report_mismatch(&bad, "table row", vaddr, r, x);
	}
	printf("# %s: %zu rows, %zu FDEs, %zu readelf rows checked, %zu mismatches, "
	       "%zu unsupported (%.3f%%)\n", path, t.nr_rows, t.nr_fdes, checked, bad,
	       t.nr_unsupported, 100.0 * (double)t.nr_unsupported / (double)t.nr_rows);
	CHECK_EQ_U64(bad, 0);
	CHECK(checked > 0);
	CHECK((double)t.nr_unsupported <= max_unsupported * (double)t.nr_rows);
out:
	elf_file__close(f);
	cfi_table__release(&t);
	free(w.v);
	return true;
}

/* ---- the tests --------------------------------------------------------- */

static void libc_agrees_with_readelf(void)
{
	/* glibc: 5 hand-written rows (__sigsetjmp's, setcontext's) of 28k. */
	compare_with_readelf(LIBC, 0.001);
}

/*
 * ld.so's lazy-binding resolvers (_dl_runtime_resolve_xsavec and its
 * siblings) realign rsp and keep their frame in rbx: rows with CFA = rbx + N,
 * and the caller's rbx saved at the CFA, that readelf agrees with.
 */
static void ldso_resolver_gets_the_rbx_rule(void)
{
	struct cfi_table t = { 0 };
	size_t i, rbx = 0;

	compare_with_readelf(LDSO, 0.01);
	CHECK_OK(build_file(LDSO, &t));
	for (i = 0; i < t.nr_rows; i++)
		rbx += t.rows[i].cfa_type == UNW_CFA_RBX && t.rows[i].rbx_type == UNW_RBP_CFA;
	CHECK(rbx >= 3);
	cfi_table__release(&t);
}

static void pie_workload_agrees_with_readelf(void)
{
	compare_with_readelf(EPROF_WORKLOADS "/known_split", 0);
}

static void ibt_plt_binary_agrees_with_readelf(void)
{
	compare_with_readelf(EPROF_WORKLOADS "/plt_loop_ibt", 0);
}

static void non_pie_binary_agrees_with_readelf(void)
{
	compare_with_readelf(EPROF_TEST_BIN "/cfi_exec", 0);
}

static void debug_frame_agrees_with_readelf(void)
{
	struct cfi_table t = { 0 };

	if (!compare_with_readelf(EPROF_TEST_BIN "/cfi_dbgframe", 0))
		return;
	CHECK_OK(build_file(EPROF_TEST_BIN "/cfi_dbgframe", &t));
	CHECK_STR(t.source, ".debug_frame");
	cfi_table__release(&t);
}

/* Sorted, strictly increasing, no equal neighbours, NONE last, counts right. */
static void table_is_well_formed(void)
{
	struct cfi_table t = { 0 };
	size_t i, unsupported = 0;

	CHECK_OK(build_file(LIBC, &t));
	CHECK(t.nr_rows > 1000);
	CHECK(t.nr_fdes > 100);
	CHECK_STR(t.source, ".eh_frame");
	for (i = 0; i < t.nr_rows; i++) {
		const struct unw_row *r = &t.rows[i];

		unsupported += r->cfa_type == UNW_CFA_UNSUPPORTED;
		CHECK(r->cfa_type <= UNW_CFA_RA_RDI && r->rbp_type <= UNW_RBP_UNDEF &&
		      r->rbx_type <= UNW_RBP_UNDEF);
		if (!i)
			continue;
		CHECK(r->off > r[-1].off);
		CHECK(r->cfa_type != r[-1].cfa_type || r->cfa_off != r[-1].cfa_off ||
		      r->rbp_type != r[-1].rbp_type || r->rbp_off != r[-1].rbp_off ||
		      r->rbx_type != r[-1].rbx_type || r->rbx_off != r[-1].rbx_off);
	}
	CHECK_EQ_U64(t.rows[t.nr_rows - 1].cfa_type, UNW_CFA_NONE);
	CHECK_EQ_U64(unsupported, t.nr_unsupported);
	cfi_table__release(&t);
}

/* File offset of a section's start, or 0. */
static uint64_t section_offset(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	uint64_t off = 0;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn))) {
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(elf, shstrndx, sh.sh_name);
			if (n && !strcmp(n, name))
				off = sh.sh_offset;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return off;
}

/*
 * A lazy .plt entry gets binutils' PLT rule: 8 more bytes of stack from
 * offset 11 of the entry on (after its push), or 9 in an IBT PLT, whose
 * entries start with endbr64.
 */
static void plt_entries_get_the_plt_rule(void)
{
	static const struct {
		const char *path;
		int32_t threshold;
	} files[] = {
		{ LIBC, 11 },
		{ EPROF_WORKLOADS "/known_split", 11 },
		{ EPROF_WORKLOADS "/plt_loop_ibt", 9 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		struct cfi_table t = { 0 };
		uint64_t plt = section_offset(files[i].path, ".plt");
		const struct unw_row *r;

		CHECK(plt != 0);
		CHECK_OK(build_file(files[i].path, &t));
		r = cfi_table__lookup(&t, plt + 16 + 5);	/* in the first entry after PLT0 */
		CHECK(r && r->cfa_type == UNW_CFA_PLT && r->cfa_off == files[i].threshold);
		r = cfi_table__lookup(&t, plt);		/* PLT0 itself: push, then jmp */
		CHECK(r && r->cfa_type == UNW_CFA_RSP && r->cfa_off == 16);
		cfi_table__release(&t);
	}
}

/* glibc's __restore_rt: mov $15,%rax; syscall (rt_sigreturn), under a signal-frame FDE. */
static void restore_rt_gets_the_signal_rule(void)
{
	static const uint8_t restore_rt[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	struct cfi_table t = { 0 };
	size_t i, signals = 0;
	int fd;

	CHECK_OK(build_file(LIBC, &t));
	fd = open(LIBC, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	for (i = 0; i < t.nr_rows; i++) {
		uint8_t code[sizeof(restore_rt)];
		uint32_t next = i + 1 < t.nr_rows ? t.rows[i + 1].off : t.rows[i].off;
		uint32_t off;
		bool found = false;

		if (t.rows[i].cfa_type != UNW_CFA_SIGNAL)
			continue;
		signals++;
		/* The FDE starts a byte early (unwinders look up pc - 1). */
		for (off = t.rows[i].off; off < next && !found; off++)
			found = pread(fd, code, sizeof(code), off) == (ssize_t)sizeof(code) &&
				!memcmp(code, restore_rt, sizeof(code));
		CHECK(found);
	}
	CHECK_EQ_U64(signals, 1);
	close(fd);
	cfi_table__release(&t);
}

/* crt1's _start says the return address is undefined: the outermost frame. */
static void start_gets_the_end_rule(void)
{
	const char *paths[] = { EPROF_WORKLOADS "/known_split", EPROF_TEST_BIN "/cfi_exec" };
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct cfi_table t = { 0 };
		struct elf_file *f = NULL;
		uint64_t off = 0, left;
		const struct unw_row *r;
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);

		CHECK(fd >= 0);
		CHECK_OK(build_file(paths[i], &t));
		CHECK_OK(elf_file__open(fd, NULL, 0, &f));
		if (!f)
			continue;
		for (k = 0; k < f->nr_syms; k++) {
			if (strcmp(f->syms[k].name, "_start"))
				continue;
			CHECK_OK(elf_segments__vaddr_to_offset(f->segs, f->nr_segs, f->syms[k].addr,
							       &off, &left));
			break;
		}
		CHECK(k < f->nr_syms);
		r = cfi_table__lookup(&t, off + 4);		/* after endbr64 */
		CHECK(r && r->cfa_type == UNW_CFA_END);
		/* main is an ordinary function. */
		for (k = 0; k < f->nr_syms; k++) {
			if (strcmp(f->syms[k].name, "main"))
				continue;
			CHECK_OK(elf_segments__vaddr_to_offset(f->segs, f->nr_segs, f->syms[k].addr,
							       &off, &left));
			r = cfi_table__lookup(&t, off);
			CHECK(r && r->cfa_type == UNW_CFA_RSP && r->cfa_off == 8);
		}
		elf_file__close(f);
		cfi_table__release(&t);
	}
}

/* The vDSO's table, from memory: at each function's entry the CFA is rsp + 8. */
static void vdso_image_builds(void)
{
	struct cfi_table t = { 0 };
	struct elf_file *f = NULL;
	const void *image;
	size_t size, i, entries = 0;

	if (vdso__image(&image, &size)) {
		test_skip("this process has no vDSO");
		return;
	}
	CHECK_OK(cfi_table__build_image(image, size, &t));
	CHECK(t.nr_rows >= 2);
	CHECK_OK(elf_file__open(-1, image, size, &f));
	for (i = 0; f && i < f->nr_syms; i++) {
		uint64_t off, left;
		const struct unw_row *r;

		if (elf_segments__vaddr_to_offset(f->segs, f->nr_segs, f->syms[i].addr, &off, &left))
			continue;
		r = cfi_table__lookup(&t, off);
		if (!r || r->cfa_type == UNW_CFA_NONE)
			continue;
		entries++;
		CHECK(r->cfa_type == UNW_CFA_RSP && r->cfa_off == 8);
	}
	printf("# vDSO: %zu rows, %zu FDEs, %zu function entries checked\n", t.nr_rows, t.nr_fdes,
	       entries);
	CHECK(entries > 0);
	elf_file__close(f);
	cfi_table__release(&t);
}

static void write_file(const char *path, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	CHECK(write(fd, bytes, len) == (ssize_t)len);
	close(fd);
}

/* A bound on bytes: libc's table under 1 MiB of memory is refused, with one it is whole. */
static void a_build_keeps_its_memory_bound(void)
{
	struct cfi_table whole = { 0 }, t = { 0 };
	int fd = open(LIBC, O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_OK(cfi_table__build(fd, &whole));
	CHECK_EQ_U64(cfi_table__build_max(fd, 64 << 10, &t), (uint64_t)-E2BIG);
	CHECK(!t.rows && !t.nr_rows);
	CHECK_OK(cfi_table__build_max(fd, 64 << 20, &t));
	CHECK_EQ_U64(t.nr_rows, whole.nr_rows);
	CHECK(t.nr_rows && !memcmp(t.rows, whole.rows, t.nr_rows * sizeof(*t.rows)));
	cfi_table__release(&t);
	cfi_table__release(&whole);
	close(fd);
}

static void errors_have_their_codes(void)
{
	struct cfi_table t = { .nr_rows = 7 };
	Elf64_Ehdr eh = { 0 };
	int fd;

	write_file(path_in("text"), "not an ELF file\n", 16);
	CHECK_EQ_U64(build_file(path_in("text"), &t), (uint64_t)-ENOEXEC);
	CHECK(!t.rows && !t.nr_rows);
	write_file(path_in("empty"), "", 0);
	CHECK_EQ_U64(build_file(path_in("empty"), &t), (uint64_t)-ENOEXEC);

	/* A real x86-64 ELF header with its sections and segments taken away: no CFI. */
	fd = open(EPROF_WORKLOADS "/known_split", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh));
	if (fd >= 0)
		close(fd);
	eh.e_phoff = eh.e_shoff = 0;
	eh.e_phnum = eh.e_shnum = eh.e_shstrndx = 0;
	write_file(path_in("bare"), &eh, sizeof(eh));
	CHECK_EQ_U64(build_file(path_in("bare"), &t), (uint64_t)-ENOENT);

	/* The same for another machine is not ours to unwind. */
	eh.e_machine = EM_AARCH64;
	write_file(path_in("arm"), &eh, sizeof(eh));
	CHECK_EQ_U64(build_file(path_in("arm"), &t), (uint64_t)-ENOEXEC);

	/* A separate debug file: .eh_frame is NOBITS there and GCC wrote no .debug_frame. */
	if (!access(EPROF_WORKLOADS "/debug/inline_app.debug", R_OK))
		CHECK_EQ_U64(build_file(EPROF_WORKLOADS "/debug/inline_app.debug", &t),
			     (uint64_t)-ENOENT);
	cfi_table__release(&t);
	cfi_table__release(NULL);
}

static uint8_t *read_whole(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc((size_t)st.st_size)) ||
	    pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		abort();
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Truncated copies: every cut gives a table or an error, never a crash. */
static void truncated_libc_never_crashes(void)
{
	uint64_t eh = section_offset(LIBC, ".eh_frame");
	size_t len, i, built = 0, failed = 0;
	uint8_t *buf = read_whole(LIBC, &len);

	for (i = 0; i <= 64; i++) {
		struct cfi_table t = { 0 };
		/* 40 cuts across the file, 24 from .eh_frame on, then the whole file. */
		size_t cut = i < 40 ? len / 40 * i : (size_t)eh + (len - (size_t)eh) / 24 * (i - 40);
		int err;

		if (cut > len || i == 64)
			cut = len;
		write_file(path_in("cut"), buf, cut);
		err = build_file(path_in("cut"), &t);
		CHECK(err == 0 || err == -ENOEXEC || err == -ENOENT || err == -EBADMSG);
		if (err)
			failed++;
		else
			built++;
		cfi_table__release(&t);
	}
	printf("# truncated libc: %zu built, %zu refused\n", built, failed);
	/* Section headers come last: only the whole file still has its .eh_frame. */
	CHECK(built >= 1 && failed > 0);
	free(buf);
}

/* Damaged .eh_frame bytes: same promise. */
/* ---- the one-pass builder against libdw's rows ------------------------ */

/*
 * Builds path's table in one pass and row by row with libdw
 * (CFI_BUILD_PER_ROW): the same result, row for row. Returns the share
 * of FDEs the one-pass build left to libdw (in FDEs), or -1.
 */
static long same_as_per_row(const char *path)
{
	struct cfi_table one = { 0 }, rows = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC), e1, e2;
	long left = -1;
	size_t i, bad = 0;

	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	e1 = cfi_table__build_flags(fd, 0, &one);
	e2 = cfi_table__build_flags(fd, CFI_BUILD_PER_ROW, &rows);
	close(fd);
	CHECK_EQ_U64(e1, e2);
	CHECK_EQ_U64(one.nr_rows, rows.nr_rows);
	CHECK_EQ_U64(one.nr_fdes, rows.nr_fdes);
	CHECK_EQ_U64(one.nr_unsupported, rows.nr_unsupported);
	for (i = 0; i < one.nr_rows && i < rows.nr_rows; i++) {
		if (!memcmp(&one.rows[i], &rows.rows[i], sizeof(one.rows[i])))
			continue;
		if (bad++ < 5)
			fprintf(stderr, "  %s: row %zu at 0x%x differs\n", path, i, one.rows[i].off);
	}
	CHECK_EQ_U64(bad, 0);
	if (!e1) {
		CHECK(rows.nr_per_row >= one.nr_per_row);
		left = (long)one.nr_per_row;
	}
	cfi_table__release(&one);
	cfi_table__release(&rows);
	return left;
}

/* libc, python3.11 and libLLVM-14 (a million rows), and the .debug_frame
 * and non-PIE test binaries: libdw's rows; in the three large ones libdw
 * walked fewer than 1% of the FDEs. */
static void one_pass_gives_libdws_rows(void)
{
	static const char *const paths[] = {
		LIBC, "/usr/bin/python3.11", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
		EPROF_TEST_BIN "/cfi_dbgframe", EPROF_TEST_BIN "/cfi_exec",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct cfi_table t = { 0 };
		long left = same_as_per_row(paths[i]);

		CHECK_OK(build_file(paths[i], &t));
		CHECK(left >= 0 && (i >= 3 || (size_t)left * 100 <= t.nr_fdes));
		cfi_table__release(&t);
	}
}

static void same_by_windows(const char *path, const struct cfi_table *whole);
static void windows_well_formed(const char *path, const struct cfi_table *whole);

/*
 * Makes the pad (a DW_CFA_nop) that ends the first FDE of libc's with one
 * into op; false when there is none.
 */
static bool spoil_first_pad(uint8_t *file, size_t len, uint64_t eh, uint8_t op)
{
	uint64_t off;
	uint32_t n, id;

	for (off = eh; off + 8 <= len; off += 4 + (uint64_t)n) {
		memcpy(&n, file + off, 4);
		memcpy(&id, file + off + 4, 4);
		if (!n || n == 0xffffffff || off + 4 + n > len)
			return false;
		if (id && n > 4 && file[off + 4 + n - 1] == 0) {	/* an FDE, a nop last */
			file[off + 4 + n - 1] = op;
			return true;
		}
	}
	return false;
}

/*
 * A program one pass runs that fails vetting (no toolchain writes one):
 * the table is built again with every program vetted first, so it is the
 * table libdw's path gives, with that FDE's range UNSUPPORTED. The pad is
 * made DW_CFA_def_cfa_offset with no operand (one pass meets it), then an
 * opcode libdw does not know (one pass leaves it to libdw's path).
 */
static void a_bad_program_is_vetted_again(void)
{
	static const uint8_t ops[] = { 0x0e, 0x2f };
	uint64_t eh = section_offset(LIBC, ".eh_frame");
	size_t len, i;
	uint8_t *buf = read_whole(LIBC, &len), *copy = malloc(len);
	struct cfi_table clean = { 0 };

	CHECK(eh > 0 && buf && copy);
	CHECK_OK(build_file(LIBC, &clean));
	for (i = 0; eh && buf && copy && i < ARRAY_SIZE(ops); i++) {
		struct cfi_table t = { 0 };

		memcpy(copy, buf, len);
		CHECK(spoil_first_pad(copy, len, eh, ops[i]));
		write_file(path_in("badprog"), copy, len);
		CHECK_OK(build_file(path_in("badprog"), &t));
		CHECK(t.nr_unsupported > clean.nr_unsupported);
		CHECK_EQ_U64(t.nr_per_row, t.nr_fdes - 1);	/* libdw's path, but the refused FDE */
		same_as_per_row(path_in("badprog"));
		same_by_windows(path_in("badprog"), &t);
		cfi_table__release(&t);
	}
	cfi_table__release(&clean);
	free(copy);
	free(buf);
}

/*
 * cfi_fdes__read (what names a stripped function by its FDE): libc's FDE
 * ranges, sorted, not empty, not overlapping, as many as the table
 * builder counts less the nested and duplicate ones (a few).
 */
static void fde_ranges_of_libc(void)
{
	int fd = open(LIBC, O_RDONLY | O_CLOEXEC);
	struct cfi_table t = { 0 };
	struct cfi_fde *v = NULL;
	size_t nr = 0, i;
	Elf *elf;

	CHECK(fd >= 0);
	CHECK_OK(build_file(LIBC, &t));
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	CHECK(elf != NULL);
	if (elf)
		CHECK_OK(cfi_fdes__read(elf, &v, &nr));
	CHECK(nr * 100 >= t.nr_fdes * 99 && nr <= t.nr_fdes);
	for (i = 0; i < nr; i++) {
		CHECK(v[i].start < v[i].end);
		CHECK(!i || v[i].start >= v[i - 1].end);
	}
	free(v);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	cfi_table__release(&t);
}

static void damaged_libc_never_crashes(void)
{
	uint64_t eh = section_offset(LIBC, ".eh_frame");
	size_t len, i, k;
	uint8_t *buf = read_whole(LIBC, &len), *copy = malloc(len);
	unsigned int seed = 11;

	CHECK(eh > 0 && copy);
	for (i = 0; eh && copy && i < 24; i++) {
		struct cfi_table t = { 0 };
		int err;

		memcpy(copy, buf, len);
		for (k = 0; k < 64; k++) {
			size_t at = (size_t)eh + (size_t)rand_r(&seed) % (len - (size_t)eh);

			copy[at] = (uint8_t)rand_r(&seed);
		}
		write_file(path_in("damaged"), copy, len);
		err = build_file(path_in("damaged"), &t);
		CHECK(err <= 0);
		same_as_per_row(path_in("damaged"));
		if (!err)
			windows_well_formed(path_in("damaged"), &t);
		for (k = 1; k < t.nr_rows; k++)
			CHECK(t.rows[k].off > t.rows[k - 1].off);
		cfi_table__release(&t);
	}
	free(copy);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);	/* tests/fuzz/fuzz_cfi.c */

/*
 * Inputs the fuzzer found (tests/fixtures/regressions/cfi-*.bin) replayed
 * through fuzz_cfi.c, which aborts on a broken promise; each must also be
 * quick: the first was a CFA program naming register 2^27, which made
 * libdw allocate 2 GiB per lookup before elf/cfi.c vetted programs.
 */
static void fuzz_regressions_replay(void)
{
	DIR *d = opendir(EPROF_REGRESSIONS);
	struct dirent *e;
	size_t n = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		char path[4096];
		struct timespec t0, t1;
		uint8_t *buf;
		size_t len;

		if (strncmp(e->d_name, "cfi-", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", EPROF_REGRESSIONS, e->d_name);
		buf = read_whole(path, &len);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		LLVMFuzzerTestOneInput(buf, len);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* Generous for ASan on a loaded machine; the bug took minutes. */
		CHECK(t1.tv_sec - t0.tv_sec < 5);
		free(buf);
		n++;
	}
	if (d)
		closedir(d);
	CHECK(n > 0);
}


/* ---- range builds ------------------------------------------------------ */

/* Appends row at off to v as the builder does: equal neighbours merged, offsets increasing. */
static void push_expected(struct unw_row *v, size_t *n, uint64_t off, const struct unw_row *row)
{
	struct unw_row r = *row;

	r.off = (uint32_t)off;
	if (*n && (v[*n - 1].off >= off ||
		   !memcmp((const char *)&v[*n - 1] + sizeof(r.off), (const char *)&r + sizeof(r.off),
			   sizeof(r) - sizeof(r.off))))
		return;
	v[(*n)++] = r;
}

/* whole's rows restricted to ranges, ABSENT elsewhere, into v; returns how many. */
static size_t restrict_rows(const struct cfi_table *whole, const struct cfi_range *rg, size_t nr,
			    struct unw_row *v)
{
	static const struct unw_row absent = { .cfa_type = UNW_CFA_ABSENT };
	static const struct unw_row none = { .cfa_type = UNW_CFA_NONE };
	size_t n = 0, i, k;

	if (rg[0].lo)
		push_expected(v, &n, 0, &absent);
	for (i = 0; i < nr; i++) {
		const struct unw_row *at = cfi_table__lookup(whole, rg[i].lo);

		push_expected(v, &n, rg[i].lo, at ? at : &none);
		for (k = 0; k < whole->nr_rows; k++)
			if (whole->rows[k].off > rg[i].lo && whole->rows[k].off < rg[i].hi)
				push_expected(v, &n, whole->rows[k].off, &whole->rows[k]);
		if (rg[i].hi <= UINT32_MAX)
			push_expected(v, &n, rg[i].hi, &absent);
	}
	return n;
}

/* The range build of path over rg gives whole's rows there, row for row. */
static void same_as_restricted(const char *path, int fd, const struct cfi_table *whole,
			       const struct cfi_range *rg, size_t nr)
{
	struct cfi_table t = { 0 };
	struct unw_row *want = calloc(whole->nr_rows + 2 * nr + 1, sizeof(*want));
	size_t n, i, bad = 0;

	CHECK(want != NULL);
	if (!want)
		return;
	n = restrict_rows(whole, rg, nr, want);
	CHECK_OK(cfi_table__build_ranges(fd, rg, nr, 1ull << 30, &t));
	CHECK_EQ_U64(t.nr_rows, n);
	for (i = 0; i < n && i < t.nr_rows; i++) {
		if (!memcmp(&t.rows[i], &want[i], sizeof(want[i])))
			continue;
		if (bad++ < 5)
			fprintf(stderr, "  %s: %zu ranges from 0x%llx: row %zu at 0x%x (want 0x%x) differs\n",
				path, nr, (unsigned long long)rg[0].lo, i, t.rows[i].off, want[i].off);
	}
	CHECK_EQ_U64(bad, 0);
	/* short of everything, fewer rows than the whole */
	if (rg[nr - 1].hi - rg[0].lo < (1ull << 32))
		CHECK(t.nr_rows < whole->nr_rows);
	cfi_table__release(&t);
	free(want);
}

/* Every third 64 KiB window up to whole's last row, into rg (room for max): how many. */
static size_t every_third_window(const struct cfi_table *whole, struct cfi_range *rg, size_t max)
{
	uint64_t end = whole->nr_rows ? whole->rows[whole->nr_rows - 1].off : 0;
	size_t nr, k;

	for (nr = 0, k = 0; nr < max && (k << 16) < end; k += 3, nr++)
		rg[nr] = (struct cfi_range){ k << 16, (k + 1) << 16 };
	return nr;
}

/* Every third 64 KiB window of path, built by ranges: whole's rows there. */
static void same_by_windows(const char *path, const struct cfi_table *whole)
{
	struct cfi_range rg[64];
	size_t nr = every_third_window(whole, rg, ARRAY_SIZE(rg));
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	if (fd >= 0 && nr)
		same_as_restricted(path, fd, whole, rg, nr);
	if (fd >= 0)
		close(fd);
}

/*
 * A damaged section's windows, built by ranges: rows in order, ABSENT
 * outside the windows. (Where its FDEs overlap, the whole build keeps
 * the rows of whichever it met first, so a range build's may differ.)
 */
static void windows_well_formed(const char *path, const struct cfi_table *whole)
{
	struct cfi_range rg[64];
	struct cfi_table t = { 0 };
	size_t nr = every_third_window(whole, rg, ARRAY_SIZE(rg)), k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	if (fd >= 0 && nr && !cfi_table__build_ranges(fd, rg, nr, 1ull << 30, &t)) {
		for (k = 1; k < t.nr_rows; k++) {
			uint64_t w = t.rows[k - 1].off >> 16;

			CHECK(t.rows[k].off > t.rows[k - 1].off);
			CHECK(w % 3 == 0 || t.rows[k - 1].cfa_type == UNW_CFA_ABSENT);
		}
		cfi_table__release(&t);
	}
	if (fd >= 0)
		close(fd);
}

/*
 * Range builds on libc, python3.11 and libLLVM-14 give the whole build's
 * rows in their ranges: 64 KiB windows (one in seven, as walks meet them),
 * ranges cutting through FDEs at odd offsets, one range over everything.
 */
static void ranges_give_the_whole_tables_rows(void)
{
	static const char *const paths[] = {
		LIBC, "/usr/bin/python3.11", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
	};
	struct cfi_range rg[64];
	size_t i, k, nr;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct cfi_table whole = { 0 };
		uint64_t end, x = 12345;
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 && i == 2)
			continue;		/* libLLVM: when installed */
		CHECK(fd >= 0);
		if (fd < 0)
			continue;
		CHECK_OK(cfi_table__build(fd, &whole));
		end = whole.nr_rows ? whole.rows[whole.nr_rows - 1].off : 0;
		/* windows, one in seven */
		for (nr = 0, k = 1; nr < ARRAY_SIZE(rg) && (k << 16) < end; k += 7, nr++)
			rg[nr] = (struct cfi_range){ k << 16, (k + 1) << 16 };
		if (nr)
			same_as_restricted(paths[i], fd, &whole, rg, nr);
		/* odd ranges inside FDEs: a row's offset plus a few bytes, a few hundred long */
		for (nr = 0, k = 0; nr < 40; nr++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			k += 1 + (x >> 33) % (whole.nr_rows / 41 + 1);
			if (k >= whole.nr_rows)
				break;
			rg[nr].lo = whole.rows[k].off + 1 + (x >> 20) % 7;
			if (nr && rg[nr].lo <= rg[nr - 1].hi)
				rg[nr].lo = rg[nr - 1].hi + 1;
			rg[nr].hi = rg[nr].lo + 1 + (x >> 40) % 600;
		}
		if (nr)
			same_as_restricted(paths[i], fd, &whole, rg, nr);
		rg[0] = (struct cfi_range){ 0, 1ull << 32 };
		same_as_restricted(paths[i], fd, &whole, rg, 1);
		close(fd);
		cfi_table__release(&whole);
	}
}

/*
 * A range build holds the section and its ranges' rows, not the whole
 * table: libLLVM-14's whole build does not fit 16 MiB, a window of it
 * does. Ranges out of order are refused.
 */
static void a_range_build_fits_where_the_whole_does_not(void)
{
	static const char *const llvm = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
	/* two windows of libLLVM's .text (it runs from 0xcd4f90 to 0x3cf650e) */
	struct cfi_range rg[2] = { { 0x1000000, 0x1010000 }, { 0x2000000, 0x2010000 } };
	struct cfi_table t = { 0 };
	uint64_t size = 0;
	int fd = open(llvm, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fd = open(LIBC, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_OK(cfi_section__size(fd, &size));
	CHECK(size > 0);
	CHECK_EQ_U64(cfi_table__build_ranges(fd, rg, 0, 1ull << 30, &t), -EINVAL);
	rg[1].lo = 0x1008000;
	CHECK_EQ_U64(cfi_table__build_ranges(fd, rg, 2, 1ull << 30, &t), -EINVAL);
	rg[1].lo = 0x2000000;
	if (size > (4u << 20)) {
		CHECK_EQ_U64(cfi_table__build_max(fd, 16u << 20, &t), -E2BIG);
		CHECK_OK(cfi_table__build_ranges(fd, rg, 2, 16u << 20, &t));
		fprintf(stderr, "# two windows of libLLVM: %zu rows of %zu FDEs\n", t.nr_rows, t.nr_fdes);
		CHECK(t.nr_rows > 100 && t.nr_rows < 20000);
		cfi_table__release(&t);
	}
	close(fd);
}

static const struct test tests[] = {
	{ "libc's table agrees with readelf, both ways", libc_agrees_with_readelf },
	{ "ld.so's lazy-binding resolver gets the rbx rule", ldso_resolver_gets_the_rbx_rule },
	{ "a PIE workload's table agrees with readelf", pie_workload_agrees_with_readelf },
	{ "an IBT-PLT binary's table agrees with readelf", ibt_plt_binary_agrees_with_readelf },
	{ "a non-PIE (ET_EXEC) binary's table agrees with readelf", non_pie_binary_agrees_with_readelf },
	{ "a .debug_frame-only binary's table agrees with readelf", debug_frame_agrees_with_readelf },
	{ "the table is sorted, merged and ends with NONE", table_is_well_formed },
	{ "lazy PLT entries get the PLT rule", plt_entries_get_the_plt_rule },
	{ "__restore_rt gets the signal rule", restore_rt_gets_the_signal_rule },
	{ "_start gets the END rule", start_gets_the_end_rule },
	{ "the vDSO's image builds from memory", vdso_image_builds },
	{ "non-ELF, foreign and CFI-less files have their codes", errors_have_their_codes },
	{ "a build keeps its memory bound", a_build_keeps_its_memory_bound },
	{ "truncated copies of libc never crash", truncated_libc_never_crashes },
	{ "one pass gives libdw's rows on libc, python3.11, libLLVM-14", one_pass_gives_libdws_rows },
	{ "a bad program one pass meets: built again, vetted first", a_bad_program_is_vetted_again },
	{ "libc's FDE ranges: sorted, whole, as many as FDEs", fde_ranges_of_libc },
	{ "damaged copies of libc never crash, either builder the same", damaged_libc_never_crashes },
	{ "saved fuzz inputs replay cleanly and quickly", fuzz_regressions_replay },
	{ "range builds give the whole table's rows in their ranges", ranges_give_the_whole_tables_rows },
	{ "a range build fits where the whole does not", a_range_build_fits_where_the_whole_does_not },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
