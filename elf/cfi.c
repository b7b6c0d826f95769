// SPDX-License-Identifier: MIT
/*
 * elf/cfi.c - turn a binary's call-frame information into the unwind rows
 * of bpf/unwind.h, with libdw.
 *
 * libdw answers "what are the rules at address X" (dwarf_cfi_addrframe)
 * and says for which range [start, end) that answer holds, but it has no
 * public way to list the FDEs. So the FDEs are enumerated with
 * dwarf_next_cfi over the raw section, each FDE's address range is decoded
 * (its pointer encoding is the one field read here), and the FDEs are
 * taken in address order. Each one's CFA program is run once, a row
 * emitted as the location advances (one_pass_fde). An FDE whose program
 * does anything unusual is walked row by row with dwarf_cfi_addrframe
 * instead (walk_fde), over a copy of just it and its CIE, which gives the
 * same rows at several times the cost. Each row's rules are reduced to
 * what the BPF walker follows (CFA from rsp, rbp or rbx, the return
 * address at CFA-8, rbp and rbx unchanged or saved at CFA+N, plus the
 * PLT, signal-frame and outermost-frame cases); anything else is marked
 * unsupported and counted, never guessed.
 *
 * The rows' virtual addresses become file offsets through the PT_LOAD
 * segments, equal neighbours are merged, and every gap between FDEs gets
 * a UNW_CFA_NONE row. Rows met in file order go to the table at once;
 * otherwise they are kept as spans and sorted by FDE first (build_rows).
 *
 * The file is hostile (record runs as root on binaries users control):
 * it is read with pread, not mapped, so a concurrent truncation cannot
 * raise SIGBUS; rows, FDEs and libdw's work are bounded (elf/cfi.h); and
 * libdw only runs CFA programs vetted here first (program_is_safe), from
 * a private copy of the section (copy_section). One pass vets what it
 * runs as it decodes; when it meets a program that fails, the walk starts
 * again with every program vetted first (walk_again).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/cfi.h"
#include "elf/elf_file.h"
#include "util/bsearch.h"
#include "util/vec.h"

/* x86-64 DWARF register numbers. */
#define DW_REG_RBX	3
#define DW_REG_RDI	5
#define DW_REG_RBP	6
#define DW_REG_RSP	7
#define DW_REG_RA	16

/* FDEs walked by libdw over copies of their own (real binaries: under 10). */
#define CFI_MAX_ALONE		256

/* PT_LOAD segments out of file order a binary may have (real ones: 2-5). */
#define CFI_MAX_LOOSE_SEGS	64

/* libdw's fixed cost of one lookup, in the units of CFI_MAX_WORK (bytes). */
#define LOOKUP_COST	64

/*
 * A row before sorting: the rule for file offsets [row.off, end) (20
 * bytes: a large binary has millions, each touched once).
 */
struct span {
	struct unw_row row;
	uint32_t end;
};

/*
 * One FDE's spans, spans[first .. first + count): they are in address
 * order already, so only FDEs are sorted (a tenth as many as rows).
 */
struct fde_spans {
	uint64_t start;
	size_t first, count;
};

/* An FDE that passed vetting: run in one pass, else walked with libdw. */
struct good_fde {
	uint64_t lo, hi;		/* virtual addresses */
	uint64_t program_len;		/* its CIE's and its own CFA program bytes */
	const uint8_t *cie_prog, *cie_end;	/* its CIE's initial instructions */
	const uint8_t *prog, *end;	/* its own instructions */
	uint64_t code_align;		/* the CIE's factors */
	int64_t data_align;
	uint32_t off, len;		/* the FDE's bytes in the section */
	uint32_t cie_off, cie_len;	/* its CIE's */
	uint8_t enc;			/* its pointer encoding */
	bool plain;			/* one pass may run it (see one_pass_fde) */
	bool overlaps;			/* another FDE covers some of its range */
	bool vetted;			/* its program passed program_is_safe */
};

/* libdw's reader of an image_new() copy. */
struct libdw_cfi {
	Elf *elf;
	Dwarf *dw;			/* .debug_frame only */
	Dwarf_CFI *cfi;
};

/* One pass's rules (see one_pass_fde). */
enum { RULE_UNSPEC, RULE_UNDEF, RULE_SAME, RULE_OFFSET };

struct reg_state {
	uint8_t rule;
	int64_t value;			/* RULE_OFFSET: saved at CFA + value */
};

struct cfa_state {
	bool set;			/* CFA = reg + off (libdw's cfa_offset) */
	uint64_t reg, off;
	struct reg_state ra, rbp, rbx;
};

/* A vetted FDE's start, less the lowest start, and its index in good. */
struct lo_key {
	uint64_t key;
	uint32_t idx;
};

struct builder {
	Elf *elf;			/* the binary */
	uint8_t *image;			/* a minimal ELF file holding a copy of the CFI */
	size_t image_size;
	struct libdw_cfi libdw;		/* libdw over the image, opened on demand */
	int fd;				/* the binary, -1: an image in memory */
	bool eh_frame;			/* .eh_frame format (else .debug_frame) */
	Elf_Data data;			/* the copy's bytes (vetting may poison entries) */
	uint64_t sec_addr;		/* the section's address (pc-relative pointers) */
	uint64_t libelf_bytes;		/* libelf's copy of the section, until elf_end */
	unsigned char ident[EI_NIDENT];
	struct good_fde *good;
	size_t nr_good, cap_good;
	struct lo_key *order;		/* good by start (order_fdes) */
	struct rec_segment *segs;
	size_t nr_segs;
	bool segs_sorted;		/* in file order (segs_in_file_order) */
	const struct rec_segment *seg;	/* the last one seg_of found */
	struct span *spans;
	size_t nr_spans, cap_spans;	/* nr_spans also counts direct ones */
	struct cfi_table *direct;	/* spans go straight to its rows */
	size_t cap_rows;		/* of the table's rows */
	uint32_t covered;		/* the end of the rows so far (rows__add) */
	struct fde_spans *fdes;
	size_t nr_fde_spans, cap_fde_spans;
	Dwarf_Off cie_off, cie_len;	/* the last CIE read_fde_head read, */
	Dwarf_CFI_Entry cie;		/* its entry */
	uint8_t cie_enc;		/* and its FDEs' pointer encoding */
	bool have_cie;
	bool cie_safe;			/* its program passed program_is_safe */
	struct cfa_state run_cie;	/* the state one pass ran the CIE at */
	uint32_t run_cie_off;		/* of the CIE at this offset */
	bool run_cie_ok;
	uint64_t work;			/* charged against CFI_MAX_WORK */
	uint64_t max_bytes;		/* cfi_table__build_max's bound, 0: none */
	const struct cfi_range *ranges;	/* a range build's (cfi_source__build), */
	size_t nr_ranges;		/* 0: a whole build */
	bool ranged;			/* the section is read for range builds */
	uint64_t kept_prog;		/* the kept FDEs' program bytes (a guess of their rows) */
	bool borrowed;			/* image and segs are a cfi_source's */
	uint64_t held;			/* bytes of the build's arrays and copies */
	bool per_row;			/* CFI_BUILD_PER_ROW: libdw for every FDE */
	size_t nr_advances;		/* location moves in vetted programs */
	size_t nr_per_row;		/* FDEs walked row by row with libdw */
	size_t nr_alone;		/* of them, over a copy of their own */
	size_t nr_fdes;
	size_t nr_bad;			/* entries that cannot be read */
};

/*
 * malloc for the builder's large arrays (freed with free): in 2 MiB
 * pages where the kernel has them, as the arrays are written once, end
 * to end, and a page fault per 4 KiB was most of a large build's time.
 */
#define HUGE_PAGE	(2u << 20)
static void *big_alloc(size_t bytes)
{
	void *p;

	if (bytes < HUGE_PAGE)
		return malloc(bytes);
	if (posix_memalign(&p, HUGE_PAGE, bytes))
		return NULL;
	madvise(p, bytes & ~(size_t)(HUGE_PAGE - 1), MADV_HUGEPAGE);
	return p;
}

/* Counts bytes more held by the build: -E2BIG past its bound. */
static int charge(struct builder *b, uint64_t bytes)
{
	if (b->max_bytes && (bytes > b->max_bytes || b->held > b->max_bytes - bytes))
		return -E2BIG;
	b->held += bytes;
	return 0;
}

/*
 * vec__grow() of one of the builder's arrays, charged the new size while
 * realloc may hold old and new, then what it grew by.
 */
static int grow(struct builder *b, void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t old = *cap;
	int err;

	if (need <= old)
		return 0;
	err = charge(b, (uint64_t)(old ? 2 * old : need) * elem);
	if (err)
		return err;
	b->held -= (uint64_t)(old ? 2 * old : need) * elem;
	err = vec__grow(arr, cap, need, elem);
	return err ? err : charge(b, (uint64_t)(*cap - old) * elem);
}

/* What big_alloc(bytes) may cost: whole huge pages, and one more of alignment. */
static uint64_t big_cost(uint64_t bytes)
{
	if (bytes < HUGE_PAGE)
		return bytes;
	return (bytes + 2 * (uint64_t)HUGE_PAGE - 1) & ~(uint64_t)(HUGE_PAGE - 1);
}

/* ---- the table --------------------------------------------------------- */

static int fde_cmp(const void *a, const void *c)
{
	const struct fde_spans *x = a, *y = c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;	/* stable */
}

static inline bool same_rule(const struct unw_row *a, const struct unw_row *c)
{
	return a->cfa_type == c->cfa_type && a->rbp_type == c->rbp_type &&
	       a->rbp_off == c->rbp_off && a->cfa_off == c->cfa_off &&
	       a->rbx_type == c->rbx_type && a->rbx_off == c->rbx_off;
}

static inline void table__push(struct cfi_table *t, uint64_t off, const struct unw_row *rule)
{
	struct unw_row *last = t->nr_rows ? &t->rows[t->nr_rows - 1] : NULL;

	if (last && same_rule(last, rule))
		return;
	/* A later rule at the same offset (or before it, from a crafted file
	 * whose segments run backwards): keep the first, rows must increase. */
	if (last && off <= last->off)
		return;
	t->rows[t->nr_rows] = *rule;
	t->rows[t->nr_rows].off = (uint32_t)off;
	t->nr_rows++;
}

static const struct unw_row none_row = { .cfa_type = UNW_CFA_NONE };

/* The table's rows, room for n (grown in rows__add if libdw's rows pass it). */
static int rows__begin(struct builder *b, struct cfi_table *t, size_t n)
{
	if (charge(b, big_cost(n * sizeof(*t->rows))))
		return -E2BIG;
	t->rows = big_alloc(n * sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	b->cap_rows = n;
	b->covered = 0;
	return 0;
}

/*
 * The span [start, end) with rule row, after every span that starts
 * before it: a NONE row wherever no span covers the offsets before it,
 * merged neighbours, and overlapping spans (duplicate FDEs) resolved in
 * favour of the one that starts first.
 */
static inline int rows__add(struct builder *b, struct cfi_table *t, uint32_t start, uint32_t end,
		     const struct unw_row *row)
{
	if (t->nr_rows + 2 > b->cap_rows) {
		int err = grow(b, &t->rows, &b->cap_rows, t->nr_rows + 2, sizeof(*t->rows));

		if (err)
			return err;
	}
	if (t->nr_rows && start > b->covered)
		table__push(t, b->covered, &none_row);
	table__push(t, start, row);
	if (end > b->covered)
		b->covered = end;
	return 0;
}

/* The last NONE row; the table shrunk to its rows, its unsupported ones counted. */
static int rows__end(struct builder *b, struct cfi_table *t)
{
	size_t i;

	if (t->nr_rows) {
		int err = rows__add(b, t, b->covered, b->covered, &none_row);

		if (err)
			return err;
	}
	if (t->nr_rows > CFI_MAX_ROWS)
		return -E2BIG;
	/* Give back the room merging saved (the table may live long). */
	if (t->nr_rows) {
		struct unw_row *shrunk = realloc(t->rows, t->nr_rows * sizeof(*t->rows));

		if (shrunk)
			t->rows = shrunk;
	}
	for (i = 0; i < t->nr_rows; i++)
		t->nr_unsupported += t->rows[i].cfa_type == UNW_CFA_UNSUPPORTED;
	return 0;
}

/* Spans to rows, FDE by FDE in the order of their first spans. */
static int build_rows(struct builder *b, struct cfi_table *t)
{
	size_t i, k;
	int err;

	/* FDEs met in address order need no sorting (the usual case). */
	for (i = 1; i < b->nr_fde_spans && fde_cmp(&b->fdes[i - 1], &b->fdes[i]) < 0; i++)
		;
	if (i < b->nr_fde_spans)
		qsort(b->fdes, b->nr_fde_spans, sizeof(*b->fdes), fde_cmp);
	/* At most one gap row before each span, and one at the end. */
	err = rows__begin(b, t, 2 * b->nr_spans + 1);
	for (i = 0; !err && i < b->nr_fde_spans; i++) {
		for (k = 0; !err && k < b->fdes[i].count; k++) {
			const struct span *s = &b->spans[b->fdes[i].first + k];

			err = rows__add(b, t, s->row.off, s->end, &s->row);
		}
	}
	return err ? err : rows__end(b, t);
}

/* ---- spans ------------------------------------------------------------ */

/* Adds a span; written straight to the table in b->direct (see walk_fdes). */
static inline int spans__push(struct builder *b, uint32_t start, uint32_t end, const struct unw_row *row)
{
	struct span *s;
	int err;

	if (b->nr_spans >= CFI_MAX_ROWS)
		return -E2BIG;
	if (b->direct) {
		b->nr_spans++;
		return rows__add(b, b->direct, start, end, row);
	}
	if (b->nr_spans >= b->cap_spans) {
		err = grow(b, &b->spans, &b->cap_spans, b->nr_spans + 1, sizeof(*b->spans));
		if (err)
			return err;
	}
	s = &b->spans[b->nr_spans++];
	s->row = *row;
	s->row.off = start;
	s->end = end;
	return 0;
}

/*
 * Whether the segments' file images come in the order of their addresses,
 * neither overlapping: then address order is file order.
 */
static bool segs_in_file_order(const struct rec_segment *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i].vaddr < v[i - 1].vaddr || v[i].vaddr - v[i - 1].vaddr < v[i - 1].filesz ||
		    v[i].offset < v[i - 1].offset || v[i].offset - v[i - 1].offset < v[i - 1].filesz)
			return false;
	return true;
}

static bool seg_starts_at_or_below(const void *elem, const void *key)
{
	return ((const struct rec_segment *)elem)->vaddr <= *(const uint64_t *)key;
}

/*
 * The segment whose file image holds vaddr, or NULL. Segments in file
 * order are searched (and the last one found tried first: FDEs come in
 * address order); others one by one, as elf_segments__vaddr_to_offset
 * does (build() bounds how many there are then).
 */
static const struct rec_segment *seg_of(struct builder *b, uint64_t vaddr)
{
	const struct rec_segment *s = b->seg;
	size_t i;

	if (s && vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
		return s;
	if (!b->segs_sorted) {
		for (i = 0; i < b->nr_segs; i++)
			if (vaddr >= b->segs[i].vaddr && vaddr - b->segs[i].vaddr < b->segs[i].filesz)
				return &b->segs[i];
		return NULL;
	}
	i = bsearch_lower_bound(&vaddr, b->segs, b->nr_segs, sizeof(*b->segs),
				seg_starts_at_or_below);
	s = i ? &b->segs[i - 1] : NULL;
	if (!s || vaddr - s->vaddr >= s->filesz)
		return NULL;
	b->seg = s;
	return s;
}

/*
 * Adds the rule for virtual addresses [lo, hi), translated to file
 * offsets. A range outside every segment's file image cannot be executed
 * from this file and is dropped; one running past its segment is cut there.
 */
static inline int add_range(struct builder *b, uint64_t lo, uint64_t hi, const struct unw_row *row)
{
	const struct rec_segment *s;
	uint64_t off, left;

	if (hi <= lo || !(s = seg_of(b, lo)))
		return 0;
	off = lo - s->vaddr + s->offset;
	left = s->filesz - (lo - s->vaddr);
	if (hi - lo > left)
		hi = lo + left;
	if (off >= UINT32_MAX)
		return 0;
	return spans__push(b, (uint32_t)off,
			   off + (hi - lo) > UINT32_MAX ? UINT32_MAX : (uint32_t)(off + (hi - lo)), row);
}

/*
 * The file offsets [*off, *end) where the FDE over virtual addresses
 * [lo, hi) may put rows (add_range, for each row); false when nowhere.
 * One that leaves its segment (a damaged section: its rows are added row
 * by row, each in its own segment) may put them anywhere.
 */
static bool fde_file_range(struct builder *b, uint64_t lo, uint64_t hi, uint32_t *off,
			   uint32_t *end)
{
	const struct rec_segment *s;
	uint64_t o;
	size_t i;

	if (hi <= lo)
		return false;
	s = seg_of(b, lo);
	if (s && hi - lo <= s->filesz - (lo - s->vaddr)) {
		o = lo - s->vaddr + s->offset;
		if (o >= UINT32_MAX)
			return false;
		*off = (uint32_t)o;
		o += hi - lo;
		*end = o > UINT32_MAX ? UINT32_MAX : (uint32_t)o;
		return true;
	}
	for (i = 0; i < b->nr_segs; i++) {
		const struct rec_segment *g = &b->segs[i];

		if (g->filesz && g->vaddr < hi && (lo < g->vaddr || lo - g->vaddr < g->filesz))
			break;
	}
	*off = 0;
	*end = UINT32_MAX;
	return i < b->nr_segs || s;
}

/* ---- reading one FDE's address range ---------------------------------- */

static bool read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *val)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end) {
		uint8_t byte = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80)) {
			*val = v;
			return true;
		}
		if (shift >= 70)		/* 10 bytes, libdw's limit too */
			return false;
	}
	return false;
}

static bool read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *val)
{
	const uint8_t *start = *p;
	unsigned int bits;

	if (!read_uleb(p, end, val))
		return false;
	bits = 7 * (unsigned int)(*p - start);
	if (bits < 64 && ((*p)[-1] & 0x40))
		*val |= ~0ull << bits;
	return true;
}

static bool read_fixed(const uint8_t **p, const uint8_t *end, size_t size, bool is_signed,
		       uint64_t *val)
{
	uint64_t v = 0;
	size_t i;

	if ((size_t)(end - *p) < size)
		return false;
	for (i = 0; i < size; i++)		/* little-endian: checked in check_ident */
		v |= (uint64_t)(*p)[i] << (8 * i);
	if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	*p += size;
	*val = v;
	return true;
}

/*
 * Reads a pointer in DW_EH_PE encoding enc at *p. Only the absolute and
 * pc-relative forms are accepted: x86-64 toolchains use no other for FDE
 * ranges, and a value relative to a base we do not know is not guessed.
 */
static bool read_encoded(const struct builder *b, const uint8_t **p, const uint8_t *end,
			 uint8_t enc, bool value_only, uint64_t *val)
{
	uint64_t here = b->sec_addr + (uint64_t)(*p - (const uint8_t *)b->data.d_buf);
	bool ok;

	/* Fixed sizes by format; 0 marks the LEB128 forms and invalid ones. */
	static const uint8_t size[16] = {
		[DW_EH_PE_absptr] = 8, [DW_EH_PE_udata2] = 2, [DW_EH_PE_udata4] = 4,
		[DW_EH_PE_udata8] = 8, [DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
		[DW_EH_PE_sdata8] = 8,
	};
	uint8_t format = enc & 0x0f;

	if (enc == DW_EH_PE_omit)
		return false;
	if (format == DW_EH_PE_uleb128)
		ok = read_uleb(p, end, val);
	else if (format == DW_EH_PE_sleb128)
		ok = read_sleb(p, end, val);
	else if (size[format])
		ok = read_fixed(p, end, size[format], format & DW_EH_PE_signed, val);
	else
		return false;
	if (!ok || value_only)
		return ok;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		*val += here;
		break;
	default:
		return false;
	}
	return !(enc & DW_EH_PE_indirect);
}

/* The encoding of FDE addresses that a CIE declares (its 'R' augmentation). */
static bool cie_fde_encoding(const struct builder *b, const Dwarf_CIE *cie, uint8_t *enc)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	uint64_t skip;
	uint8_t penc;

	*enc = b->eh_frame ? DW_EH_PE_absptr : DW_EH_PE_udata8;
	if (!b->eh_frame || a[0] != 'z')
		return a[0] == '\0';		/* no augmentation data: absolute */
	if (!p || end < p || end > (const uint8_t *)b->data.d_buf + b->data.d_size)
		return false;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			if (p >= end)
				return false;
			*enc = *p;
			return true;
		case 'L':
			if (p >= end)
				return false;
			p++;
			break;
		case 'P':
			if (p >= end)
				return false;
			penc = *p++;
			if (!read_encoded(b, &p, end, penc & 0x0f, true, &skip))
				return false;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return false;
		}
	}
	return true;
}

/* ---- one row's rules --------------------------------------------------- */

/* rsp + 8 + (((rip & 15) >= K) << 3): binutils' rule for lazy .plt entries. */
static bool plt_expression(const Dwarf_Op *ops, size_t nops, int32_t *threshold)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0 /* K */,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (nops != sizeof(shape))
		return false;
	for (i = 0; i < nops; i++) {
		if (i == 4)
			continue;
		if (ops[i].atom != shape[i])
			return false;
	}
	if (ops[0].number != 8 || ops[1].number != 0)
		return false;
	if (ops[4].atom >= DW_OP_lit0 && ops[4].atom <= DW_OP_lit31)
		*threshold = ops[4].atom - DW_OP_lit0;
	else if ((ops[4].atom == DW_OP_const1u || ops[4].atom == DW_OP_constu) &&
		 ops[4].number <= 16)
		*threshold = (int32_t)ops[4].number;
	else
		return false;
	return true;
}

/* Register rule "saved at CFA + *off": libdw spells it call_frame_cfa [plus_uconst N]. */
static bool saved_at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

/*
 * The rule of callee-saved register reg (enum unw_rbp), its offset in *off.
 * libdw gives x86-64's rbx no default rule ("undefined") where rbp gets
 * "same value"; a function that never mentions rbx keeps it (the psABI
 * makes it callee-saved), so for rbx no rule means unchanged.
 */
static uint8_t saved_rule(Dwarf_Frame *fr, int reg, int16_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	int64_t at;

	if (dwarf_frame_register(fr, reg, mem, &ops, &nops))
		return UNW_RBP_UNDEF;
	if (!nops && (!ops || reg == DW_REG_RBX))
		return UNW_RBP_SAME;
	if (nops && saved_at_cfa(ops, nops, &at) && at >= INT16_MIN && at <= INT16_MAX) {
		*off = (int16_t)at;
		return UNW_RBP_CFA;
	}
	return UNW_RBP_UNDEF;
}

/* The return address kept in rdi: glibc's vfork pops it there across its syscall. */
static bool ra_in_rdi(const Dwarf_Op *ops, size_t nops)
{
	return nops == 1 && ((ops[0].atom == DW_OP_regx && ops[0].number == DW_REG_RDI) ||
			     ops[0].atom == DW_OP_reg0 + DW_REG_RDI);
}

/* Fills row (off aside) from libdw's rules for one frame state. */
static void classify(Dwarf_Frame *fr, struct unw_row *row)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	bool signalp = false, rdi;
	int64_t off;
	int ra, reg;

	memset(row, 0, sizeof(*row));
	row->cfa_type = UNW_CFA_UNSUPPORTED;
	ra = dwarf_frame_info(fr, NULL, NULL, &signalp);
	if (ra < 0)
		return;
	if (signalp) {
		row->cfa_type = UNW_CFA_SIGNAL;
		return;
	}
	if (ra != DW_REG_RA || dwarf_frame_register(fr, ra, mem, &ops, &nops))
		return;
	if (!nops && ops) {			/* return address undefined: outermost */
		row->cfa_type = UNW_CFA_END;
		return;
	}
	rdi = ra_in_rdi(ops, nops);
	if (!rdi && (!saved_at_cfa(ops, nops, &off) || off != -8))
		return;

	if (dwarf_frame_cfa(fr, &ops, &nops))
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number <= 64 ? (int)ops[0].number : -1;
		off = (int64_t)ops[0].number2;
		if ((reg != DW_REG_RSP && reg != DW_REG_RBP && reg != DW_REG_RBX) ||
		    (rdi && reg != DW_REG_RSP) || off < INT32_MIN || off > INT32_MAX)
			return;
		row->cfa_type = rdi ? UNW_CFA_RA_RDI : reg == DW_REG_RSP ? UNW_CFA_RSP :
				reg == DW_REG_RBP ? UNW_CFA_RBP : UNW_CFA_RBX;
		row->cfa_off = (int32_t)off;
	} else if (!rdi && plt_expression(ops, nops, &row->cfa_off)) {
		row->cfa_type = UNW_CFA_PLT;
	} else {
		return;
	}

	row->rbp_type = saved_rule(fr, DW_REG_RBP, &row->rbp_off);
	row->rbx_type = saved_rule(fr, DW_REG_RBX, &row->rbx_off);
}

/* Walks the FDE covering [lo, hi) row by row. */
static int walk_fde(struct builder *b, Dwarf_CFI *cfi, uint64_t lo, uint64_t hi,
		    uint64_t program_len)
{
	uint64_t pc = lo;
	int err;

	while (pc < hi) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr start, end = hi;
		struct unw_row row;

		b->work += program_len + LOOKUP_COST;
		if (b->work > CFI_MAX_WORK)
			return -E2BIG;
		if (dwarf_cfi_addrframe(cfi, pc, &fr) ||
		    dwarf_frame_info(fr, &start, &end, NULL) < 0) {
			/* libdw cannot read this FDE: the rest of it is unsupported. */
			memset(&row, 0, sizeof(row));
			row.cfa_type = UNW_CFA_UNSUPPORTED;
			end = hi;
		} else {
			classify(fr, &row);
		}
		free(fr);
		/* libdw's end is past pc; an FDE it chose over ours may end elsewhere. */
		if (end <= pc || end > hi)
			end = hi;
		err = add_range(b, pc, end, &row);
		if (err)
			return err;
		pc = end;
	}
	return 0;
}

/* ---- vetting: what libdw may run ------------------------------------ */

/*
 * libdw grows a frame's register array to the highest register number a
 * CFA program names (up to 134M entries, 2 GiB, per lookup) and copies the
 * whole state on each DW_CFA_remember_state. So before libdw sees a
 * program it is decoded here, and an FDE whose program (or CIE's) names a
 * register above CFI_MAX_REGNO, nests remember_state deeper than
 * CFI_MAX_REMEMBER, uses an opcode libdw does not know or runs off its
 * end is poisoned (below): its range becomes one UNSUPPORTED row.
 */
#define CFI_MAX_REGNO		127	/* x86-64 DWARF numbers end at k7 = 125 */
#define CFI_MAX_REMEMBER	64

/*
 * Operands of each DW_CFA opcode below 0x40 (the three high-bit forms
 * carry a register of 6 bits): R register, U unsigned LEB128, S signed
 * LEB128, B LEB128 length and block, A address in the FDE encoding,
 * 1 2 4 8 fixed bytes, "" none. NULL: libdw does not know the opcode.
 */
static const char *const cfa_operands[0x40] = {
	[DW_CFA_nop] = "", [DW_CFA_set_loc] = "A", [DW_CFA_advance_loc1] = "1",
	[DW_CFA_advance_loc2] = "2", [DW_CFA_advance_loc4] = "4",
	[DW_CFA_offset_extended] = "RU", [DW_CFA_restore_extended] = "R",
	[DW_CFA_undefined] = "R", [DW_CFA_same_value] = "R", [DW_CFA_register] = "RR",
	[DW_CFA_remember_state] = "", [DW_CFA_restore_state] = "", [DW_CFA_def_cfa] = "RU",
	[DW_CFA_def_cfa_register] = "R", [DW_CFA_def_cfa_offset] = "U",
	[DW_CFA_def_cfa_expression] = "B", [DW_CFA_expression] = "RB",
	[DW_CFA_offset_extended_sf] = "RS", [DW_CFA_def_cfa_sf] = "RS",
	[DW_CFA_def_cfa_offset_sf] = "S", [DW_CFA_val_offset] = "RU",
	[DW_CFA_val_offset_sf] = "RS", [DW_CFA_val_expression] = "RB",
	[DW_CFA_MIPS_advance_loc8] = "8", [DW_CFA_GNU_window_save] = "",
	[DW_CFA_GNU_args_size] = "U", [DW_CFA_GNU_negative_offset_extended] = "RU",
};

/* Also counts the ops that move the location in b->nr_advances (rows to come). */
static bool program_is_safe(struct builder *b, const uint8_t *p, const uint8_t *end,
			    uint8_t enc, unsigned int depth)
{
	const char *shape;
	uint64_t v;

	while (p < end) {
		uint8_t op = *p++;

		b->nr_advances += (op & 0xc0) == DW_CFA_advance_loc ||
				  (op >= DW_CFA_set_loc && op <= DW_CFA_advance_loc4) ||
				  op == DW_CFA_MIPS_advance_loc8;
		if (op >= 0x40) {		/* advance_loc, restore: nothing more */
			if ((op & 0xc0) == DW_CFA_offset && !read_uleb(&p, end, &v))
				return false;
			continue;
		}
		shape = cfa_operands[op];
		if (!shape)
			return false;
		if (op == DW_CFA_remember_state && ++depth > CFI_MAX_REMEMBER)
			return false;
		if (op == DW_CFA_restore_state && depth)
			depth--;
		for (; *shape; shape++) {
			bool ok;

			switch (*shape) {
			case 'R':
				ok = read_uleb(&p, end, &v) && v <= CFI_MAX_REGNO;
				break;
			case 'U':
				ok = read_uleb(&p, end, &v);
				break;
			case 'S':
				ok = read_sleb(&p, end, &v);
				break;
			case 'B':
				ok = read_uleb(&p, end, &v) && v <= (uint64_t)(end - p);
				if (ok)
					p += v;
				break;
			case 'A':
				ok = read_encoded(b, &p, end, enc, true, &v);
				break;
			default:		/* '1' '2' '4' '8' */
				ok = (size_t)(end - p) >= (size_t)(*shape - '0');
				if (ok)
					p += *shape - '0';
				break;
			}
			if (!ok)
				return false;
		}
	}
	return true;
}

/*
 * Makes the entry at off unreadable to dwarf_next_cfi, so that libdw's
 * scan skips it as we do: it becomes a CIE of version 0. The entry was
 * read once, so its length field and an id and a byte after it are there.
 */
static void poison_entry(struct builder *b, Dwarf_Off off)
{
	uint8_t *p = (uint8_t *)b->data.d_buf + off;
	size_t id_size = 4;

	if (!memcmp(p, "\xff\xff\xff\xff", 4)) {
		p += 8;
		id_size = 8;
	}
	p += 4;
	memset(p, b->eh_frame ? 0 : 0xff, id_size);	/* the CIE id of the format */
	p[id_size] = 0;					/* version: invalid */
}

/*
 * Reads the head of FDE e: its CIE, the CIE's pointer encoding, its
 * address range [*lo, *hi), and in *p where its instructions start.
 * false when any of it cannot be read (*lo and *hi say the range when it
 * could be).
 */
static bool read_fde_head(struct builder *b, const Dwarf_FDE *e, Dwarf_CFI_Entry *cie,
			  uint8_t *enc, const uint8_t **p, uint64_t *lo, uint64_t *hi)
{
	Dwarf_Off cie_next;
	uint64_t start, len, aug_len;

	*lo = *hi = 0;
	*p = e->start;
	/* FDEs come in runs of one CIE's: read it once (CIEs are never poisoned). */
	if (!b->have_cie || b->cie_off != e->CIE_pointer) {
		b->have_cie = false;
		if (dwarf_next_cfi(b->ident, &b->data, b->eh_frame, e->CIE_pointer, &cie_next,
				   &b->cie) ||
		    !dwarf_cfi_cie_p(&b->cie) || !cie_fde_encoding(b, &b->cie.cie, &b->cie_enc))
			return false;
		b->cie_off = e->CIE_pointer;
		b->cie_len = cie_next - e->CIE_pointer;
		b->cie_safe = program_is_safe(b, b->cie.cie.initial_instructions,
					      b->cie.cie.initial_instructions_end, b->cie_enc, 0);
		b->have_cie = true;
	}
	*cie = b->cie;
	*enc = b->cie_enc;
	if (!read_encoded(b, p, e->end, *enc, false, &start) ||
	    !read_encoded(b, p, e->end, *enc, true, &len) || !len || start + len < start)
		return false;
	*lo = start;
	*hi = start + len;
	if (cie->cie.augmentation[0] == 'z') {
		if (!read_uleb(p, e->end, &aug_len) || aug_len > (uint64_t)(e->end - *p))
			return false;
		*p += aug_len;
	}
	return true;
}

/*
 * Vets one FDE: on success *fde is what to walk. Otherwise the caller
 * poisons it, and *fde->lo/hi say the range to mark when it is known.
 */
static bool vet_fde(struct builder *b, const Dwarf_FDE *e, struct good_fde *fde)
{
	Dwarf_CFI_Entry cie;
	const uint8_t *p;
	uint8_t enc;

	if (!read_fde_head(b, e, &cie, &enc, &p, &fde->lo, &fde->hi))
		return false;
	fde->program_len = (uint64_t)(e->end - e->start) +
			   (uint64_t)(cie.cie.initial_instructions_end - cie.cie.initial_instructions);
	fde->cie_prog = cie.cie.initial_instructions;
	fde->cie_end = cie.cie.initial_instructions_end;
	fde->prog = p;
	fde->end = e->end;
	/* The section is at most CFI_MAX_SECTION bytes: offsets fit. */
	fde->cie_off = (uint32_t)b->cie_off;
	fde->cie_len = (uint32_t)b->cie_len;
	fde->overlaps = false;
	fde->code_align = cie.cie.code_alignment_factor;
	fde->data_align = cie.cie.data_alignment_factor;
	/* A signal frame or another return-address column: libdw's path. */
	fde->plain = cie.cie.return_address_register == DW_REG_RA &&
		     !strchr(cie.cie.augmentation, 'S');
	fde->enc = enc;
	fde->vetted = false;
	return b->cie_safe;
}

/* Vets FDE fde's own program (its CIE's was, in read_fde_head). */
static bool vet_program(struct builder *b, struct good_fde *fde)
{
	fde->vetted = program_is_safe(b, fde->prog, fde->end, fde->enc, 0);
	return fde->vetted;
}

/* Adds an FDE's spans, spans[first ..], as one group for build_rows. */
static int group_spans(struct builder *b, size_t first)
{
	int err;

	if (b->nr_spans == first)
		return 0;
	err = grow(b, &b->fdes, &b->cap_fde_spans, b->nr_fde_spans + 1, sizeof(*b->fdes));
	if (err)
		return err;
	b->fdes[b->nr_fde_spans++] = (struct fde_spans){ b->spans[first].row.off, first,
							 b->nr_spans - first };
	return 0;
}

/* An FDE that fails vetting: poisoned for libdw, its range (when known) UNSUPPORTED. */
static int refuse_fde(struct builder *b, const struct good_fde *fde)
{
	static const struct unw_row unsupported = { .cfa_type = UNW_CFA_UNSUPPORTED };
	size_t first = b->nr_spans;
	int err;

	poison_entry(b, fde->off);
	b->nr_bad++;
	err = add_range(b, fde->lo, fde->hi, &unsupported);
	return err ? err : group_spans(b, first);
}

/*
 * Vets the program of every FDE not vetted yet; those that fail are
 * refused and leave good[].
 */
static int vet_programs(struct builder *b)
{
	size_t i, kept = 0;
	int err;

	for (i = 0; i < b->nr_good; i++) {
		if (b->good[i].vetted || vet_program(b, &b->good[i])) {
			b->good[kept++] = b->good[i];
			continue;
		}
		err = refuse_fde(b, &b->good[i]);
		if (err)
			return err;
	}
	b->nr_good = kept;
	return 0;
}

/*
 * Reads every entry of the section copy: FDEs that pass vet_fde are kept
 * for walking; the others are poisoned for libdw and their range, when
 * known, becomes an UNSUPPORTED row.
 */
static int vet_section(struct builder *b)
{
	Dwarf_Off off = 0, next;
	int rc, err;

	while (true) {
		Dwarf_CFI_Entry entry;
		struct good_fde fde;

		next = (Dwarf_Off)-1;
		rc = dwarf_next_cfi(b->ident, &b->data, b->eh_frame, off, &next, &entry);
		if (rc > 0)
			break;
		if (rc < 0) {
			/* Some errors say where the next entry is; others end the section. */
			b->nr_bad++;
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		if (next <= off)
			break;
		if (dwarf_cfi_cie_p(&entry)) {
			off = next;
			continue;
		}
		if (++b->nr_fdes > CFI_MAX_FDES)
			return -E2BIG;
		fde.off = (uint32_t)off;
		fde.len = (uint32_t)(next - off);
		if (vet_fde(b, &entry.fde, &fde)) {
			err = grow(b, &b->good, &b->cap_good, b->nr_good + 1, sizeof(*b->good));
			if (err)
				return err;
			b->good[b->nr_good++] = fde;
		} else {
			err = refuse_fde(b, &fde);
			if (err)
				return err;
		}
		off = next;
	}
	return 0;
}

/* ---- libdw over a copy of the CFI --------------------------------------- */

/*
 * A minimal ELF file in memory for libdw: a header, one CFI section of
 * bytes bytes at address addr, and the names (calloc'd; *data is where
 * the section's bytes go). libdw reads such a copy, not the binary, so that
 *  - vetting can poison entries in it (vet_section);
 *  - libdw finds every FDE by the same scan of the section as we do: a
 *    binary's .eh_frame_hdr could send it to bytes we never vetted;
 *  - dwarf_begin_elf reads no other debug section of a large binary.
 */
static uint8_t *image_new(const struct builder *b, uint64_t addr, size_t bytes, size_t *size,
			  uint8_t **data)
{
	static const char names[] = "\0.eh_frame\0.debug_frame\0.shstrtab";
	size_t data_off = sizeof(Elf64_Ehdr), names_off = data_off + bytes;
	size_t shoff = (names_off + sizeof(names) + 7) & ~(size_t)7;
	uint8_t *image;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;

	*size = shoff + 3 * sizeof(Elf64_Shdr);
	image = calloc(1, *size);
	if (!image)
		return NULL;
	eh = (Elf64_Ehdr *)image;
	memcpy(eh->e_ident, b->ident, EI_NIDENT);
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 3;
	eh->e_shstrndx = 2;
	memcpy(image + names_off, names, sizeof(names));
	sh = (Elf64_Shdr *)(image + shoff);
	sh[1] = (Elf64_Shdr){ .sh_name = b->eh_frame ? 1 : 11, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC, .sh_addr = addr, .sh_offset = data_off,
			      .sh_size = bytes, .sh_addralign = 1 };
	sh[2] = (Elf64_Shdr){ .sh_name = 24, .sh_type = SHT_STRTAB, .sh_offset = names_off,
			      .sh_size = sizeof(names), .sh_addralign = 1 };
	*data = image + data_off;
	return image;
}

static int libdw_open(struct libdw_cfi *c, bool eh_frame, uint8_t *image, size_t size)
{
	c->elf = elf_memory((char *)image, size);
	if (!c->elf)
		return -ENOMEM;
	if (eh_frame) {
		c->cfi = dwarf_getcfi_elf(c->elf);
	} else {
		c->dw = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
		c->cfi = c->dw ? dwarf_getcfi(c->dw) : NULL;
	}
	return c->cfi ? 0 : -EBADMSG;
}

static void libdw_close(struct libdw_cfi *c, bool eh_frame)
{
	if (eh_frame && c->cfi)
		dwarf_cfi_end(c->cfi);		/* a .debug_frame CFI belongs to c->dw */
	dwarf_end(c->dw);
	if (c->elf)
		elf_end(c->elf);
	memset(c, 0, sizeof(*c));
}

/* Hands the vetted copy to libdw. */
static int open_cfi(struct builder *b)
{
	return libdw_open(&b->libdw, b->eh_frame, b->image, b->image_size);
}

/* ---- one pass over an FDE's program ----------------------------------- */

/*
 * walk_fde asks libdw for each row, and libdw runs the FDE's program from
 * its start every time. one_pass_fde runs the CIE's and the FDE's
 * programs once, emitting a row each time the location advances, for the
 * plain programs real compilers write: CFA = register + offset, and the
 * return address, rbp and rbx unchanged, undefined or saved at CFA + N.
 * Each rule is turned into a row exactly as classify() turns libdw's
 * answer into one, libdw's quirks included (a rule's value is a 61-bit
 * field there). Anything else (expressions, set_loc, register rules,
 * signal frames, overlapping FDEs, a state libdw would reject) sends the
 * whole FDE back to walk_fde, so the table is the same row for row
 * (tests/unit/test_cfi.c checks it on libc, python3.11 and libLLVM).
 */

/* The program needs libdw's path (not an error). */
#define ONE_PASS_NO	1
/* A program fails vetting: build again, every program vetted first (build). */
#define VET_AGAIN	2

/* A register operand: a LEB128 no larger than program_is_safe allows. */
static bool read_reg(const uint8_t **p, const uint8_t *end, uint64_t *reg)
{
	return read_uleb(p, end, reg) && *reg <= CFI_MAX_REGNO;
}

/* A register and an offset, signed (the _sf ops) or not. */
static bool read_reg_off(const uint8_t **p, const uint8_t *end, bool sf, uint64_t *reg,
			 uint64_t *v)
{
	return read_reg(p, end, reg) && (sf ? read_sleb(p, end, v) : read_uleb(p, end, v));
}

/* libdw keeps a register rule's value in a 61-bit signed bit-field. */
static int64_t rule_value(uint64_t v)
{
	return (int64_t)(v << 3) >> 3;
}

static struct reg_state *state_reg(struct cfa_state *st, uint64_t reg)
{
	switch (reg) {
	case DW_REG_RA:
		return &st->ra;
	case DW_REG_RBP:
		return &st->rbp;
	case DW_REG_RBX:
		return &st->rbx;
	default:
		return NULL;
	}
}

/* A callee-saved register's row fields, as saved_rule() gives them. */
static uint8_t state_saved(const struct reg_state *r, bool rbx, int16_t *off)
{
	switch (r->rule) {
	case RULE_UNSPEC:		/* rbp: x86-64's ABI default is same value */
	case RULE_SAME:
		return UNW_RBP_SAME;
	case RULE_UNDEF:
		return rbx ? UNW_RBP_SAME : UNW_RBP_UNDEF;
	default:
		if (r->value < INT16_MIN || r->value > INT16_MAX)
			return UNW_RBP_UNDEF;
		*off = (int16_t)r->value;
		return UNW_RBP_CFA;
	}
}

/* classify() for a one-pass state; ONE_PASS_NO where libdw must say. */
static inline int state_row(const struct cfa_state *st, struct unw_row *row)
{
	int64_t off;

	memset(row, 0, sizeof(*row));
	row->cfa_type = UNW_CFA_UNSUPPORTED;
	switch (st->ra.rule) {
	case RULE_UNSPEC:
		return ONE_PASS_NO;
	case RULE_UNDEF:
		row->cfa_type = UNW_CFA_END;
		return 0;
	case RULE_SAME:
		return 0;
	default:
		if (st->ra.value != -8)
			return 0;
		break;
	}
	if (!st->set)
		return ONE_PASS_NO;
	off = (int64_t)st->off;
	if ((st->reg != DW_REG_RSP && st->reg != DW_REG_RBP && st->reg != DW_REG_RBX) ||
	    off < INT32_MIN || off > INT32_MAX)
		return 0;
	row->cfa_type = st->reg == DW_REG_RSP ? UNW_CFA_RSP :
			st->reg == DW_REG_RBP ? UNW_CFA_RBP : UNW_CFA_RBX;
	row->cfa_off = (int32_t)off;
	row->rbp_type = state_saved(&st->rbp, false, &row->rbp_off);
	row->rbx_type = state_saved(&st->rbx, true, &row->rbx_off);
	return 0;
}

struct one_pass {
	struct builder *b;
	const struct good_fde *fde;
	const struct cfa_state *cie;	/* NULL while running the CIE's program */
	struct cfa_state stack[CFI_MAX_REMEMBER];
	unsigned int depth;
	uint64_t loc;
	bool done;			/* loc reached the FDE's end */
};

/* The location moves to next: the rules so far cover [loc, next). */
static int one_pass_advance(struct one_pass *op, const struct cfa_state *st, uint64_t delta)
{
	uint64_t next = op->loc + delta * op->fde->code_align;
	struct unw_row row;
	int err;

	if (!op->cie || next < op->loc)
		return ONE_PASS_NO;
	if (next == op->loc)
		return 0;
	if (next > op->fde->hi)
		next = op->fde->hi;
	err = state_row(st, &row);
	if (!err)
		err = add_range(op->b, op->loc, next, &row);
	op->loc = next;
	op->done = next == op->fde->hi;
	return err;
}

/*
 * The CFA rule ops (def_cfa and its variants) at *pp; code is the op. 0, or
 * ONE_PASS_NO when libdw must walk the program.
 */
static int one_pass_cfa(struct cfa_state *st, uint8_t code, int64_t daf, const uint8_t **pp,
			const uint8_t *end)
{
	uint64_t reg = 0, v = 0;

	switch (code) {
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		if (!read_reg_off(pp, end, code == DW_CFA_def_cfa_sf, &reg, &v))
			return VET_AGAIN;
		if (code == DW_CFA_def_cfa_sf)
			v *= (uint64_t)daf;
		st->set = true;
		st->reg = reg;
		st->off = v;
		break;
	case DW_CFA_def_cfa_register:
		if (!read_reg(pp, end, &reg))
			return VET_AGAIN;
		if (!st->set)
			return ONE_PASS_NO;	/* libdw: an invalid CFA */
		st->reg = reg;
		break;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		if (code == DW_CFA_def_cfa_offset) {
			if (!read_uleb(pp, end, &v))
				return VET_AGAIN;
		} else {
			if (!read_sleb(pp, end, &v))
				return VET_AGAIN;
			v *= (uint64_t)daf;
		}
		if (!st->set)
			return ONE_PASS_NO;
		st->off = v;
		break;
	}
	return 0;
}

/*
 * The register rule ops (offset_extended, undefined, same_value,
 * restore_extended and their variants; remember_state and restore_state,
 * all rules at once) at *pp. 0, or ONE_PASS_NO when libdw must walk the
 * program.
 */
static int one_pass_reg(struct one_pass *op, struct cfa_state *st, uint8_t code, int64_t daf,
			const uint8_t **pp, const uint8_t *end)
{
	uint64_t reg = 0, v = 0;
	struct reg_state *r;

	switch (code) {
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_GNU_negative_offset_extended:
		if (!read_reg_off(pp, end, code == DW_CFA_offset_extended_sf, &reg, &v))
			return VET_AGAIN;
		if (code == DW_CFA_GNU_negative_offset_extended)
			v = -v;
		r = state_reg(st, reg);
		if (r)
			*r = (struct reg_state){ RULE_OFFSET, rule_value(v * (uint64_t)daf) };
		break;
	case DW_CFA_undefined:
	case DW_CFA_same_value:
		if (!read_reg(pp, end, &reg))
			return VET_AGAIN;
		r = state_reg(st, reg);
		if (r)
			*r = (struct reg_state){ code == DW_CFA_undefined ? RULE_UNDEF :
							RULE_SAME, 0 };
		break;
	case DW_CFA_restore_extended:
		if (!read_reg(pp, end, &reg))
			return VET_AGAIN;
		if (!op->cie)
			return ONE_PASS_NO;
		r = state_reg(st, reg);
		if (r)
			*r = *state_reg((struct cfa_state *)op->cie, reg);
		break;
	case DW_CFA_remember_state:
		if (op->depth >= CFI_MAX_REMEMBER)
			return ONE_PASS_NO;
		op->stack[op->depth++] = *st;
		break;
	case DW_CFA_restore_state:
		if (!op->depth)
			return ONE_PASS_NO;	/* libdw: an error */
		*st = op->stack[--op->depth];
		break;
	}
	return 0;
}

/*
 * Runs [p, end) on st, vetting it as program_is_safe would (VET_AGAIN
 * where that would fail: the program was not vetted first, see build).
 */
static int one_pass_run(struct one_pass *op, struct cfa_state *st, const uint8_t *p,
			const uint8_t *end)
{
	int64_t daf = op->fde->data_align;
	uint64_t v = 0;
	int err;

	op->depth = 0;
	while (p < end && !op->done) {
		uint8_t code = *p++;
		struct reg_state *r;

		err = 0;
		switch (code & 0xc0) {
		case DW_CFA_advance_loc:
			err = one_pass_advance(op, st, code & 0x3f);
			if (err)
				return err;
			continue;
		case DW_CFA_offset:
			if (!read_uleb(&p, end, &v))
				return VET_AGAIN;
			r = state_reg(st, code & 0x3f);
			if (r)
				*r = (struct reg_state){ RULE_OFFSET, rule_value(v * (uint64_t)daf) };
			continue;
		case DW_CFA_restore:
			if (!op->cie)
				return ONE_PASS_NO;
			r = state_reg(st, code & 0x3f);
			if (r)
				*r = *state_reg((struct cfa_state *)op->cie, code & 0x3f);
			continue;
		default:
			break;
		}
		switch (code) {
		case DW_CFA_nop:
			break;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			if (!read_fixed(&p, end, code == DW_CFA_advance_loc1 ? 1 :
						 code == DW_CFA_advance_loc2 ? 2 : 4, false, &v))
				return VET_AGAIN;
			err = one_pass_advance(op, st, v);
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
		case DW_CFA_def_cfa_register:
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
			err = one_pass_cfa(st, code, daf, &p, end);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_GNU_negative_offset_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
		case DW_CFA_restore_extended:
		case DW_CFA_remember_state:
		case DW_CFA_restore_state:
			err = one_pass_reg(op, st, code, daf, &p, end);
			break;
		case DW_CFA_GNU_args_size:
			if (!read_uleb(&p, end, &v))
				return VET_AGAIN;
			break;
		default:	/* set_loc, expressions, val_offset, register, ... */
			return ONE_PASS_NO;
		}
		if (err)
			return err;
	}
	/* What follows the FDE's end is vetted still (libdw would read it). */
	if (p < end && !program_is_safe(op->b, p, end, op->fde->enc, op->depth))
		return VET_AGAIN;
	return 0;
}

/*
 * Runs FDE fde in one pass: 0 when its rows are added, ONE_PASS_NO when
 * libdw must walk it, or an error.
 */
static int one_pass_fde(struct builder *b, const struct good_fde *fde)
{
	struct one_pass pass, *op = &pass;
	struct cfa_state cie = { .rbp.rule = RULE_SAME }, st;
	struct unw_row row;
	int err;

	if (!fde->plain)
		return ONE_PASS_NO;
	b->work += fde->program_len + LOOKUP_COST;
	if (b->work > CFI_MAX_WORK)
		return -E2BIG;
	op->b = b;
	op->fde = fde;
	op->cie = NULL;
	op->loc = fde->lo;
	op->done = false;
	/* A CIE's program gives the same state to each of its FDEs. */
	if (b->run_cie_ok && b->run_cie_off == fde->cie_off) {
		cie = b->run_cie;
	} else {
		err = one_pass_run(op, &cie, fde->cie_prog, fde->cie_end);
		if (err)
			return err;
		b->run_cie = cie;
		b->run_cie_off = fde->cie_off;
		b->run_cie_ok = true;
	}
	op->cie = &cie;
	st = cie;
	err = one_pass_run(op, &st, fde->prog, fde->end);
	if (err || op->done)
		return err;
	/* The end of the program: its last rules hold to the FDE's end. */
	err = state_row(&st, &row);
	return err ? err : add_range(b, op->loc, fde->hi, &row);
}

/*
 * Walks FDE fde with libdw over a copy of just its CIE and itself, placed
 * at their addresses (pc-relative pointers read the same), so that libdw
 * does not scan and index every entry before it: one FDE left to libdw
 * cost a fifth of libLLVM's build. Not for an FDE another one overlaps
 * (libdw picks between them over the whole section) nor in a section
 * with unreadable entries (libdw then answers every row, see build()).
 */
static int walk_fde_alone(struct builder *b, const struct good_fde *fde)
{
	const uint8_t *sec = b->data.d_buf;
	struct libdw_cfi c = { 0 };
	size_t size, id_at = fde->cie_len + 4, id_size = 4;
	uint8_t *image, *data;
	uint64_t id;
	int err;

	image = image_new(b, b->sec_addr + fde->off - fde->cie_len, fde->cie_len + fde->len,
			  &size, &data);
	if (!image)
		return -ENOMEM;
	memcpy(data, sec + fde->cie_off, fde->cie_len);
	memcpy(data + fde->cie_len, sec + fde->off, fde->len);
	/* The FDE's CIE pointer, now to offset 0: relative in .eh_frame. */
	if (!memcmp(data + fde->cie_len, "\xff\xff\xff\xff", 4)) {
		id_at += 8;
		id_size = 8;
	}
	id = b->eh_frame ? id_at : 0;
	memcpy(data + id_at, &id, id_size);		/* little-endian: check_ident */
	err = libdw_open(&c, b->eh_frame, image, size);
	if (!err)
		err = walk_fde(b, c.cfi, fde->lo, fde->hi, fde->program_len);
	libdw_close(&c, b->eh_frame);
	free(image);
	return err;
}

/* Adds FDE fde's spans: in one pass, else row by row with libdw. */
static int run_fde(struct builder *b, struct good_fde *fde)
{
	size_t first = b->nr_spans, rows = b->direct ? b->direct->nr_rows : 0;
	uint32_t covered = b->covered;
	int err = b->per_row ? ONE_PASS_NO : one_pass_fde(b, fde);

	if (err != ONE_PASS_NO)
		return err;
	/* What one pass added before it gave up (table__push only appends). */
	b->nr_spans = first;
	if (b->direct)
		b->direct->nr_rows = rows;
	b->covered = covered;
	b->nr_per_row++;
	if (!fde->vetted && !vet_program(b, fde))
		return VET_AGAIN;		/* libdw runs only vetted programs */
	/* Each copy costs a libdw set-up: past a few, one over the whole section. */
	if (!b->per_row && !fde->overlaps && b->nr_alone < CFI_MAX_ALONE) {
		b->nr_alone++;
		return walk_fde_alone(b, fde);
	}
	if (!b->libdw.cfi) {
		err = open_cfi(b);
		if (err)
			return err;
	}
	return walk_fde(b, b->libdw.cfi, fde->lo, fde->hi, fde->program_len);
}

/*
 * b->order: the vetted FDEs by start address, equal starts in the
 * section's order, by an LSD radix sort of 11 bits a pass over the
 * starts' spread. Compilers put a function's cold part in another section
 * and its FDE beside the hot part's, so the section is far from sorted
 * (python3.11: 3,881 descents in 10,221 FDEs); qsort was a third of a build.
 */
#define RADIX_BITS	11
static int order_fdes(struct builder *b)
{
	size_t n = b->nr_good, i, sum, c, shift;
	uint64_t min = UINT64_MAX, max = 0;
	struct lo_key *a, *t, *swap;

	if (charge(b, 2 * (uint64_t)n * sizeof(*a)))
		return -E2BIG;
	a = malloc(n * sizeof(*a));
	t = malloc(n * sizeof(*t));
	if (!a || !t) {
		free(a);
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		min = b->good[i].lo < min ? b->good[i].lo : min;
		max = b->good[i].lo > max ? b->good[i].lo : max;
	}
	for (i = 0; i < n; i++)
		a[i] = (struct lo_key){ b->good[i].lo - min, (uint32_t)i };
	for (shift = 0; shift < 64 && ((max - min) >> shift); shift += RADIX_BITS) {
		size_t pos[1u << RADIX_BITS] = { 0 };

		for (i = 0; i < n; i++)
			pos[(a[i].key >> shift) & ((1u << RADIX_BITS) - 1)]++;
		for (i = 0, sum = 0; i < (1u << RADIX_BITS); i++) {
			c = pos[i];
			pos[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			t[pos[(a[i].key >> shift) & ((1u << RADIX_BITS) - 1)]++] = a[i];
		swap = a;
		a = t;
		t = swap;
	}
	free(t);
	b->held -= n * sizeof(*t);
	b->order = a;
	return 0;
}

/*
 * FDEs that overlap another go to libdw, which picks one of them for
 * each address as it pleases: the one-pass rows must not differ there.
 * libdw may run any of them for an address of one: they are vetted now
 * (VET_AGAIN when one fails).
 */
static int mark_overlaps(struct builder *b)
{
	struct good_fde *g, *last = NULL;
	uint64_t reach = 0;
	size_t i;

	for (i = 0; i < b->nr_good; i++) {
		g = &b->good[b->order[i].idx];
		if (last && g->lo < reach) {
			g->plain = last->plain = false;
			g->overlaps = last->overlaps = true;
			if ((!g->vetted && !vet_program(b, g)) ||
			    (!last->vetted && !vet_program(b, last)))
				return VET_AGAIN;
		}
		if (!last || g->hi > reach) {
			reach = g->hi;
			last = g;
		}
	}
	return 0;
}

/* Adds every vetted FDE's spans. */
static int walk_fdes(struct builder *b, struct cfi_table *t)
{
	size_t i, first, need = b->nr_spans + b->nr_advances + b->nr_good;
	int err = order_fdes(b);

	if (!err)
		err = mark_overlaps(b);
	if (err)
		return err;
	/* At most a span per advance and one per FDE: no growing, no copying. */
	if (need > CFI_MAX_ROWS)
		need = CFI_MAX_ROWS;
	/*
	 * Spans met in the order of their file offsets need no sorting: they
	 * become rows at once (no span array). So it is when FDEs run in
	 * address order, segments keep that order in the file, and no span
	 * came before (vetting adds them for unreadable entries).
	 */
	if (!b->per_row && !b->nr_spans && b->segs_sorted) {
		b->direct = t;
		/* and a NONE row between FDEs and at the end */
		err = rows__begin(b, t, need + b->nr_good + 1);
	} else if (need > b->cap_spans) {
		struct span *v;

		err = charge(b, big_cost(need * sizeof(*v)));	/* both, while copying */
		if (err)
			return err;
		v = big_alloc(need * sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (b->nr_spans)
			memcpy(v, b->spans, b->nr_spans * sizeof(*v));
		free(b->spans);
		b->held -= b->cap_spans * sizeof(*v);
		b->spans = v;
		b->cap_spans = need;
	}

	/* In address order, so that build_rows need not sort them. */
	for (i = 0; !err && i < b->nr_good; i++) {
		first = b->nr_spans;
		err = run_fde(b, &b->good[b->order[i].idx]);
		if (!err && !b->direct)
			err = group_spans(b, first);
	}
	return err;
}

static int check_ident(Elf *elf)
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64)
		return -ENOEXEC;
	return 0;
}

/* Reads size bytes at off of fd into buf: false when the file is shorter. */
static bool read_exact(int fd, uint8_t *buf, size_t size, uint64_t off)
{
	while (size) {
		ssize_t n = pread(fd, buf, size, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		size -= (size_t)n;
		off += (uint64_t)n;
	}
	return true;
}

/* The largest CFI section a build reads (elf/cfi.h). */
static uint64_t max_section(const struct builder *b)
{
	return b->ranged ? CFI_MAX_SECTION_RANGES : CFI_MAX_SECTION;
}

/*
 * Copies the CFI section scn into b->image (image_new). From a file it is
 * read straight into the copy; a compressed .debug_frame or an image in
 * memory goes through libelf.
 */
static int copy_section(struct builder *b, Elf_Scn *scn)
{
	const void *src = NULL;
	uint64_t size;
	Elf_Data *data;
	GElf_Shdr shdr;
	uint8_t *dst;

	if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
		return -EBADMSG;
	/* Bounded before a byte is read: the header says what it would cost. */
	if (shdr.sh_size > max_section(b))
		return -E2BIG;
	size = shdr.sh_size;
	if (b->fd < 0 || (shdr.sh_flags & SHF_COMPRESSED)) {
		/* libelf's copy and ours */
		if (charge(b, 2 * shdr.sh_size))
			return -E2BIG;
		/* A compressed .debug_frame (SHF_COMPRESSED) is inflated first. */
		if (shdr.sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;

			if (!gelf_getchdr(scn, &ch))
				return -EBADMSG;
			if (ch.ch_size > max_section(b) || charge(b, 2 * ch.ch_size))
				return -E2BIG;
			if (elf_compress(scn, 0, 0) < 0)
				return -EBADMSG;
		}
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !data->d_size || data->d_size > max_section(b))
			return -EBADMSG;
		src = data->d_buf;
		size = data->d_size;
		b->libelf_bytes = size;
	} else if (!size || charge(b, size)) {
		return size ? -E2BIG : -EBADMSG;
	}
	b->image = image_new(b, shdr.sh_addr, size, &b->image_size, &dst);
	if (!b->image)
		return -ENOMEM;
	if (src)
		memcpy(dst, src, size);
	else if (!read_exact(b->fd, dst, size, shdr.sh_offset))
		return -EBADMSG;
	b->data.d_buf = dst;
	b->data.d_size = size;
	b->data.d_type = ELF_T_BYTE;
	b->sec_addr = shdr.sh_addr;
	return 0;
}

/* Finds the CFI (.eh_frame when the file has one, else .debug_frame) and copies it. */
static int find_cfi(struct builder *b, struct cfi_table *t)
{
	Elf_Scn *scn = elf_section__find(b->elf, ".eh_frame");

	b->eh_frame = scn != NULL;
	if (!scn)
		scn = elf_section__find(b->elf, ".debug_frame");
	if (!scn)
		return -ENOENT;
	t->source = b->eh_frame ? ".eh_frame" : ".debug_frame";
	return copy_section(b, scn);
}



/*
 * One pass met a program that fails vetting (so the section was not
 * written by a toolchain): what the walk made is dropped, every program
 * is vetted first, those that fail refused, and libdw answers every row,
 * as for any damaged section. held and work: as before the walk.
 */
static int walk_again(struct builder *b, struct cfi_table *t, uint64_t held, uint64_t work)
{
	int err;

	free(t->rows);
	t->rows = NULL;
	t->nr_rows = 0;
	free(b->order);
	b->order = NULL;
	vec__free(&b->spans, &b->nr_spans, &b->cap_spans);
	vec__free(&b->fdes, &b->nr_fde_spans, &b->cap_fde_spans);
	libdw_close(&b->libdw, b->eh_frame);
	b->direct = NULL;
	b->nr_per_row = b->nr_alone = 0;
	b->held = held;
	b->work = work;
	err = vet_programs(b);
	b->per_row = true;
	return err ? err : walk_fdes(b, t);
}

/* Walks the FDEs vetting kept: into t's rows, or spans for build_rows. */
static int walk_vetted(struct builder *b, struct cfi_table *t)
{
	uint64_t held, work;
	int err = 0;

	/* libdw will scan the whole copy: every program is vetted first. */
	if (b->per_row || b->nr_bad)
		err = vet_programs(b);
	if (err)
		return err;
	/* A section with an entry libdw or we cannot read is not one a
	 * toolchain wrote: libdw's own scan may differ from ours past it,
	 * so libdw answers for every row (the table stays the same). */
	b->per_row |= b->nr_bad > 0;
	if (!b->nr_good)
		return 0;
	/* Else one pass vets the programs it runs, and location moves were
	 * not counted: a guess to size the rows (they grow past it). */
	if (!b->per_row)
		b->nr_advances += b->nr_ranges ? b->kept_prog / 2 : b->data.d_size / 4;
	held = b->held;
	work = b->work;
	err = walk_fdes(b, t);
	return err == VET_AGAIN ? walk_again(b, t, held, work) : err;
}

/* Vets the copy and walks its FDEs: into t's rows, or spans for build_rows. */
static int vet_and_walk(struct builder *b, struct cfi_table *t)
{
	int err = vet_section(b);

	return err ? err : walk_vetted(b, t);
}

static bool row_at_or_below(const void *elem, const void *key)
{
	return ((const struct unw_row *)elem)->off <= *(const uint64_t *)key;
}

/*
 * t cut to b's ranges (cfi_table__build_ranges): at each range's start
 * the rule in force there, its rows inside, an ABSENT row at its end and
 * before the first. t's rows are those of the FDEs that overlap a range,
 * so inside the ranges they are the whole table's.
 */
static int cut_to_ranges(struct builder *b, struct cfi_table *t)
{
	static const struct unw_row absent = { .cfa_type = UNW_CFA_ABSENT };
	size_t n = 2 * b->nr_ranges + 1 + t->nr_rows, i, k;
	struct cfi_table c = *t;

	if (charge(b, n * sizeof(*c.rows)))
		return -E2BIG;
	c.rows = malloc(n * sizeof(*c.rows));
	if (!c.rows)
		return -ENOMEM;
	c.nr_rows = c.nr_unsupported = 0;
	if (b->ranges[0].lo)
		table__push(&c, 0, &absent);
	for (i = 0; i < b->nr_ranges; i++) {
		const struct cfi_range *r = &b->ranges[i];

		k = bsearch_lower_bound(&r->lo, t->rows, t->nr_rows, sizeof(*t->rows),
					row_at_or_below);
		table__push(&c, r->lo, k ? &t->rows[k - 1] : &none_row);
		for (; k < t->nr_rows && t->rows[k].off < r->hi; k++)
			table__push(&c, t->rows[k].off, &t->rows[k]);
		if (r->hi <= UINT32_MAX)
			table__push(&c, r->hi, &absent);
	}
	for (i = 0; i < c.nr_rows; i++)
		c.nr_unsupported += c.rows[i].cfa_type == UNW_CFA_UNSUPPORTED;
	free(t->rows);
	*t = c;
	return 0;
}

/* The rows of what vet_and_walk found: t's own, or the spans' (build_rows), cut to the ranges. */
static int finish_rows(struct builder *b, struct cfi_table *t)
{
	int err = 0;

	if (b->nr_spans)
		err = b->direct ? rows__end(b, t) : build_rows(b, t);
	return !err && b->nr_ranges ? cut_to_ranges(b, t) : err;
}

/* Whether v[0 .. nr) are ranges cfi_table__build_ranges takes. */
static bool ranges_ok(const struct cfi_range *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (v[i].lo >= v[i].hi || v[i].hi > (1ull << 32) || (i && v[i].lo <= v[i - 1].hi))
			return false;
	return nr > 0;
}

/*
 * Reads the binary b->elf (ended here): its ident, its segments and a
 * copy of its CFI section.
 */
static int open_binary(struct builder *b, struct cfi_table *t)
{
	int err;

	if (!b->elf)
		return -ENOEXEC;
	err = check_ident(b->elf);
	if (err)
		return err;
	memcpy(b->ident, elf_getident(b->elf, NULL), EI_NIDENT);	/* checked: ELF */
	err = elf_segments__read(b->elf, &b->segs, &b->nr_segs);
	if (err)
		return err;
	/* Segments out of file order are looked up one by one: a few only. */
	b->segs_sorted = segs_in_file_order(b->segs, b->nr_segs);
	if (!b->segs_sorted && b->nr_segs > CFI_MAX_LOOSE_SEGS)
		return -E2BIG;
	err = find_cfi(b, t);
	if (err)
		return err;
	/* Everything needed is copied: give back the binary's section data now. */
	elf_end(b->elf);
	b->elf = NULL;
	b->held -= b->held > b->libelf_bytes ? b->libelf_bytes : b->held;
	return 0;
}

/* The table of the walk (t), or why there is none. */
static int end_build(struct builder *b, struct cfi_table *t)
{
	t->nr_fdes = b->nr_fdes;
	t->nr_per_row = b->nr_per_row;
	/* a range build may meet no FDE in its ranges: its rows are NONE there */
	if (!b->nr_spans && (!b->nr_ranges || !b->nr_fdes))
		return b->nr_bad ? -EBADMSG : -ENOENT;
	return finish_rows(b, t);
}

/* Frees what a build holds (a cfi_source's copy and segments stay its own). */
static void builder_release(struct builder *b)
{
	free(b->spans);
	free(b->fdes);
	free(b->good);
	free(b->order);
	libdw_close(&b->libdw, b->eh_frame);
	if (!b->borrowed) {
		free(b->segs);
		free(b->image);
	}
	if (b->elf)
		elf_end(b->elf);
	memset(b, 0, sizeof(*b));
}

/*
 * A build's end, err what its steps came to: t's rows finished into *out,
 * or t dropped; b released either way.
 */
static int build_end(struct builder *b, struct cfi_table *t, int err, struct cfi_table *out)
{
	if (!err)
		err = end_build(b, t);
	if (err)
		cfi_table__release(t);
	else
		*out = *t;
	builder_release(b);
	return err;
}

/* Builds the table of the ELF file elf (ended here, whatever happens). */
static int build(Elf *elf, int fd, unsigned int flags, uint64_t max_bytes,
		 struct cfi_table *out)
{
	struct cfi_table t = { 0 };
	struct builder b = { .elf = elf, .fd = fd, .per_row = flags & CFI_BUILD_PER_ROW,
			     .max_bytes = max_bytes };
	int err;

	memset(out, 0, sizeof(*out));
	err = open_binary(&b, &t);
	if (!err)
		err = vet_and_walk(&b, &t);
	return build_end(&b, &t, err, out);
}

struct lookup_key {
	uint64_t off;
	const struct unw_row *last;
};

/* bsearch order: a row "equals" the offsets from its own to the next row's. */
static int row_covers(const void *k, const void *elem)
{
	const struct lookup_key *key = k;
	const struct unw_row *r = elem;

	if (key->off < r->off)
		return -1;
	return r != key->last && key->off >= r[1].off;
}

int cfi_table__build_flags(int fd, unsigned int flags, struct cfi_table *out)
{
	elf_version(EV_CURRENT);
	/* ELF_C_READ: pread on demand, never mmap (see the top of the file). */
	return build(elf_begin(fd, ELF_C_READ, NULL), fd, flags, 0, out);
}

int cfi_table__build_max(int fd, uint64_t max_bytes, struct cfi_table *out)
{
	elf_version(EV_CURRENT);
	return build(elf_begin(fd, ELF_C_READ, NULL), fd, 0, max_bytes ? max_bytes : 1, out);
}

int cfi_section__size(int fd, uint64_t *size)
{
	Elf *elf;
	Elf_Scn *scn;
	GElf_Shdr shdr;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	err = check_ident(elf);
	scn = err ? NULL : elf_section__find(elf, ".eh_frame");
	if (!err && !scn)
		scn = elf_section__find(elf, ".debug_frame");
	if (!err && (!scn || !gelf_getshdr(scn, &shdr)))
		err = -ENOENT;
	if (!err)
		*size = shdr.sh_flags & SHF_COMPRESSED ? 4 * shdr.sh_size : shdr.sh_size;
	elf_end(elf);
	return err;
}

int cfi_table__build(int fd, struct cfi_table *out)
{
	return cfi_table__build_flags(fd, 0, out);
}

int cfi_table__build_image(const void *image, size_t size, struct cfi_table *out)
{
	elf_version(EV_CURRENT);
	/* libelf does not write to a native-endian image it only reads. */
	return build(elf_memory((char *)image, size), -1, 0, 0, out);
}

const struct unw_row *cfi_table__lookup(const struct cfi_table *t, uint64_t off)
{
	struct lookup_key key = { off, t->nr_rows ? &t->rows[t->nr_rows - 1] : NULL };

	if (!t->nr_rows)
		return NULL;
	return bsearch(&key, t->rows, t->nr_rows, sizeof(*t->rows), row_covers);
}

/* ---- range builds ------------------------------------------------------ */

/*
 * A cfi_source is a binary's CFI section copied and vetted once (heads
 * and programs: what fails is poisoned for libdw, as a whole build
 * leaves it), with an index of its FDEs by file offset. A range build
 * then decodes and runs only the FDEs of its ranges, in the section's
 * order as a whole build meets them, and cuts the rows to the ranges.
 */

/* An FDE of the index: its file offsets, the furthest any FDE up to it reaches. */
struct fde_ref {
	uint32_t off, end, reach;
	uint32_t entry;			/* its offset in the section, | REF_BAD when refused */
};
#define REF_BAD		(1u << 31)	/* the section is at most CFI_MAX_SECTION_RANGES */

struct cfi_source {
	struct builder b;		/* the copy, the segments, the counts */
	struct fde_ref *refs;		/* by off */
	size_t nr_refs, cap_refs;
	const char *name;		/* ".eh_frame" or ".debug_frame" */
	uint64_t bytes;
};

static int ref_cmp(const void *a, const void *c)
{
	const struct fde_ref *x = a, *y = c;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->entry & ~REF_BAD) < (y->entry & ~REF_BAD) ? -1 : 1;
}

/* Adds FDE e at off (next: the entry after it) to the index, vetted. */
static int index_fde(struct cfi_source *src, const Dwarf_CFI_Entry *e, Dwarf_Off off,
		     Dwarf_Off next)
{
	struct builder *b = &src->b;
	struct good_fde fde = { .off = (uint32_t)off, .len = (uint32_t)(next - off) };
	struct fde_ref r;
	bool ok = vet_fde(b, &e->fde, &fde) && vet_program(b, &fde);
	int err;

	if (!ok) {
		poison_entry(b, off);
		b->nr_bad++;
	}
	if (!fde_file_range(b, fde.lo, fde.hi, &r.off, &r.end))
		return 0;
	err = grow(b, &src->refs, &src->cap_refs, src->nr_refs + 1, sizeof(*src->refs));
	if (err)
		return err;
	r.entry = (uint32_t)off | (ok ? 0 : REF_BAD);
	src->refs[src->nr_refs++] = r;
	return 0;
}

/* Reads every entry of the copy into the index (vet_section's walk). */
static int index_section(struct cfi_source *src)
{
	struct builder *b = &src->b;
	Dwarf_Off off = 0, next;
	uint32_t reach = 0;
	size_t i;
	int rc, err;

	while (true) {
		Dwarf_CFI_Entry entry;

		next = (Dwarf_Off)-1;
		rc = dwarf_next_cfi(b->ident, &b->data, b->eh_frame, off, &next, &entry);
		b->nr_bad += rc < 0;
		if (rc > 0 || (rc < 0 && (next == (Dwarf_Off)-1 || next <= off)) || (!rc && next <= off))
			break;
		if (!rc && !dwarf_cfi_cie_p(&entry)) {
			if (++b->nr_fdes > CFI_MAX_FDES)
				return -E2BIG;
			err = index_fde(src, &entry, off, next);
			if (err)
				return err;
		}
		off = next;
	}
	if (src->nr_refs > 1)
		qsort(src->refs, src->nr_refs, sizeof(*src->refs), ref_cmp);
	for (i = 0; i < src->nr_refs; i++) {
		reach = src->refs[i].end > reach ? src->refs[i].end : reach;
		src->refs[i].reach = reach;
	}
	/* An unreadable entry or program: libdw answers every row (vet_and_walk). */
	b->per_row = b->nr_bad > 0;
	return 0;
}

int cfi_source__open(int fd, uint64_t max_bytes, struct cfi_source **out)
{
	struct cfi_source *src = calloc(1, sizeof(*src));
	struct cfi_table t = { 0 };
	int err;

	*out = NULL;
	if (!src)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	src->b.elf = elf_begin(fd, ELF_C_READ, NULL);
	src->b.fd = fd;
	src->b.ranged = true;
	src->b.max_bytes = max_bytes ? max_bytes : 1;
	err = open_binary(&src->b, &t);
	if (!err)
		err = index_section(src);
	if (err) {
		cfi_source__close(src);
		return err;
	}
	src->name = t.source;
	src->b.fd = -1;
	src->bytes = src->b.image_size + src->cap_refs * sizeof(*src->refs) +
		     src->b.nr_segs * sizeof(*src->b.segs);
	*out = src;
	return 0;
}

uint64_t cfi_source__bytes(const struct cfi_source *src)
{
	return src ? src->bytes : 0;
}

void cfi_source__close(struct cfi_source *src)
{
	if (!src)
		return;
	free(src->refs);
	builder_release(&src->b);
	free(src);
}

static bool reach_at_or_below(const void *elem, const void *key)
{
	return ((const struct fde_ref *)elem)->reach <= *(const uint64_t *)key;
}

static int entry_cmp(const void *a, const void *c)
{
	uint32_t x = ((const struct fde_ref *)a)->entry & ~REF_BAD;
	uint32_t y = ((const struct fde_ref *)c)->entry & ~REF_BAD;

	return x < y ? -1 : x > y;
}

/* The FDEs overlapping b's ranges, in section order, into *out. */
static int ranges_refs(struct builder *b, const struct cfi_source *src, struct fde_ref **out,
		       size_t *nr)
{
	size_t n = 0, cap = 0, i, k;
	struct fde_ref *v = NULL;
	int err = 0;

	for (k = 0; k < b->nr_ranges && !err; k++) {
		const struct cfi_range *r = &b->ranges[k];

		/* the first FDE that reaches past the range's start */
		i = bsearch_lower_bound(&r->lo, src->refs, src->nr_refs, sizeof(*src->refs),
					reach_at_or_below);
		/*
		 * and those it overlaps, back to one that overlaps none before it:
		 * where FDEs overlap (a damaged section), which rows a whole build
		 * keeps depends on them (rows__add). A toolchain's have none.
		 */
		while (i > 0 && i < src->nr_refs && src->refs[i].off < src->refs[i - 1].reach)
			i--;
		for (; i < src->nr_refs && src->refs[i].off < r->hi && !err; i++) {
			err = grow(b, &v, &cap, n + 1, sizeof(*v));
			if (!err)
				v[n++] = src->refs[i];
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), entry_cmp);
	/* an FDE over two ranges: once */
	for (i = 0, k = 0; i < n; i++)
		if (!k || v[i].entry != v[k - 1].entry)
			v[k++] = v[i];
	*out = v;
	*nr = k;
	return err;
}

/* Fills b's FDEs (and refused ones' spans) from the index, as vet_section would. */
static int select_fdes(struct builder *b, const struct cfi_source *src)
{
	static const struct unw_row unsupported = { .cfa_type = UNW_CFA_UNSUPPORTED };
	struct fde_ref *v = NULL;
	size_t nr, i, first;
	int err = ranges_refs(b, src, &v, &nr);

	for (i = 0; i < nr && !err; i++) {
		Dwarf_Off off = v[i].entry & ~REF_BAD, next = (Dwarf_Off)-1;
		struct good_fde fde = { .off = (uint32_t)off };
		Dwarf_CFI_Entry e;

		/* indexed once: it reads the same (only bad entries were poisoned) */
		if (!(v[i].entry & REF_BAD) &&
		    !dwarf_next_cfi(b->ident, &b->data, b->eh_frame, off, &next, &e) &&
		    !dwarf_cfi_cie_p(&e) && next > off) {
			fde.len = (uint32_t)(next - off);
			if (vet_fde(b, &e.fde, &fde)) {
				fde.vetted = true;
				err = grow(b, &b->good, &b->cap_good, b->nr_good + 1, sizeof(*b->good));
				if (!err)
					b->good[b->nr_good++] = fde;
				b->kept_prog += (uint64_t)(fde.end - fde.prog);
				continue;
			}
		}
		/* refused when indexed: its range is UNSUPPORTED, as in a whole build */
		first = b->nr_spans;
		err = spans__push(b, v[i].off, v[i].end, &unsupported);
		if (!err)
			err = group_spans(b, first);
	}
	free(v);
	return err;
}

int cfi_source__build(struct cfi_source *src, const struct cfi_range *v, size_t nr,
		      uint64_t max_bytes, struct cfi_table *out)
{
	const struct builder *s = &src->b;
	struct builder b = { .image = s->image, .image_size = s->image_size, .fd = -1,
			     .eh_frame = s->eh_frame, .data = s->data, .sec_addr = s->sec_addr,
			     .segs = s->segs, .nr_segs = s->nr_segs, .segs_sorted = s->segs_sorted,
			     .borrowed = true, .max_bytes = max_bytes ? max_bytes : 1,
			     .ranges = v, .nr_ranges = nr, .per_row = s->per_row,
			     .nr_bad = s->nr_bad, .nr_fdes = s->nr_fdes };
	struct cfi_table t = { .source = src->name };
	int err = ranges_ok(v, nr) ? 0 : -EINVAL;

	memset(out, 0, sizeof(*out));
	memcpy(b.ident, s->ident, EI_NIDENT);
	if (!err)
		err = select_fdes(&b, src);
	if (!err)
		err = walk_vetted(&b, &t);
	return build_end(&b, &t, err, out);
}

int cfi_table__build_ranges(int fd, const struct cfi_range *v, size_t nr, uint64_t max_bytes,
			    struct cfi_table *out)
{
	struct cfi_source *src;
	int err;

	memset(out, 0, sizeof(*out));
	if (!ranges_ok(v, nr))
		return -EINVAL;
	err = cfi_source__open(fd, max_bytes, &src);
	if (err)
		return err;
	max_bytes = max_bytes ? max_bytes : 1;
	err = cfi_source__build(src, v, nr, max_bytes > src->bytes ? max_bytes - src->bytes : 1,
				out);
	cfi_source__close(src);
	return err;
}

/* ---- function ranges ---------------------------------------------------- */

static int cfi_fde_cmp(const void *a, const void *c)
{
	const struct cfi_fde *x = a, *y = c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;	/* the widest first */
}

/*
 * Reads only the FDEs' heads: no CFA program runs, so nothing is vetted;
 * entries that cannot be read are skipped as vet_section skips them.
 */
int cfi_fdes__read(void *elf, struct cfi_fde **out, size_t *nr_out)
{
	struct builder b = { .elf = elf, .fd = -1 };	/* libelf reads the section */
	struct cfi_table t = { 0 };
	struct cfi_fde *v = NULL;
	size_t nr = 0, cap = 0, i, k;
	Dwarf_Off off = 0, next;
	int rc, err;

	*out = NULL;
	*nr_out = 0;
	err = check_ident(b.elf);
	if (err)
		return err;
	memcpy(b.ident, elf_getident(b.elf, NULL), EI_NIDENT);	/* checked: ELF */
	err = find_cfi(&b, &t);
	while (!err) {
		Dwarf_CFI_Entry entry, cie;
		const uint8_t *p;
		uint64_t lo, hi;
		uint8_t enc;

		next = (Dwarf_Off)-1;
		rc = dwarf_next_cfi(b.ident, &b.data, b.eh_frame, off, &next, &entry);
		if (rc > 0 || (rc < 0 && (next == (Dwarf_Off)-1 || next <= off)) || (!rc && next <= off))
			break;
		off = next;
		if (rc < 0 || dwarf_cfi_cie_p(&entry))
			continue;
		if (nr >= CFI_MAX_FDES) {
			err = -E2BIG;
			break;
		}
		if (!read_fde_head(&b, &entry.fde, &cie, &enc, &p, &lo, &hi))
			continue;
		err = vec__grow(&v, &cap, nr + 1, sizeof(*v));
		if (!err)
			v[nr++] = (struct cfi_fde){ lo, hi };
	}
	free(b.image);
	if (err) {
		free(v);
		return err;
	}
	if (nr > 1)
		qsort(v, nr, sizeof(*v), cfi_fde_cmp);
	/* duplicate or nested FDEs: the first (widest) one that starts lower wins */
	for (i = 0, k = 0; i < nr; i++)
		if (!k || v[i].start >= v[k - 1].end)
			v[k++] = v[i];
	*out = v;
	*nr_out = k;
	return 0;
}

static bool fde_starts_at_or_below(const void *elem, const void *key)
{
	return ((const struct cfi_fde *)elem)->start <= *(const uint64_t *)key;
}

long cfi_fdes__find(const struct cfi_fde *v, size_t nr, uint64_t vaddr)
{
	size_t lo = bsearch_lower_bound(&vaddr, v, nr, sizeof(*v), fde_starts_at_or_below);

	return lo && vaddr < v[lo - 1].end ? (long)(lo - 1) : -1;
}

void cfi_table__release(struct cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
