// SPDX-License-Identifier: MIT
/*
 * elf/cfi.c - turn a binary's call-frame information into the unwind rows
 * of bpf/unwind.h, with libdw.
 *
 * libdw answers "what are the rules at address X" (dwarf_cfi_addrframe)
 * and says for which range [start, end) that answer holds, but it has no
 * public way to list the FDEs. So the FDEs are enumerated with
 * dwarf_next_cfi over the raw section, each FDE's address range is decoded
 * (the one piece of the format read here: its pointer encoding), and the
 * range is walked row by row with dwarf_cfi_addrframe. Each row's rules
 * are reduced to what the BPF walker follows (CFA from rsp or rbp, the
 * return address at CFA-8, rbp unchanged or saved at CFA+N, plus the PLT,
 * signal-frame and outermost-frame cases); anything else is marked
 * unsupported and counted, never guessed.
 *
 * The rows' virtual addresses become file offsets through the PT_LOAD
 * segments, then rows are sorted, equal neighbours merged, and every gap
 * between FDEs gets a UNW_CFA_NONE row.
 *
 * The file is hostile (record runs as root on binaries users control):
 * it is read with pread, not mapped, so a concurrent truncation cannot
 * raise SIGBUS, and rows, FDEs and libdw's work are bounded (elf/cfi.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cfi.h"
#include "elf/elf_file.h"

/* x86-64 DWARF register numbers. */
#define DW_REG_RBP	6
#define DW_REG_RSP	7
#define DW_REG_RA	16

/* libdw's fixed cost of one lookup, in the units of CFI_MAX_WORK (bytes). */
#define LOOKUP_COST	64

/* A row before sorting: the rule for file offsets [start, end). */
struct span {
	uint64_t start, end;
	struct unw_row row;		/* row.off is set when emitted */
};

/*
 * One FDE's spans, spans[first .. first + count): they are in address
 * order already, so only FDEs are sorted (a tenth as many as rows).
 */
struct fde_spans {
	uint64_t start;
	size_t first, count;
};

struct builder {
	Elf *elf;
	Dwarf *dw;			/* .debug_frame only */
	Dwarf_CFI *cfi;
	bool eh_frame;			/* .eh_frame format (else .debug_frame) */
	Elf_Data *data;			/* the CFI section's bytes */
	uint64_t sec_addr;		/* its address (pc-relative pointers) */
	const unsigned char *ident;
	struct rec_segment *segs;
	size_t nr_segs;
	struct span *spans;
	size_t nr_spans, cap_spans;
	struct fde_spans *fdes;
	size_t nr_fde_spans, cap_fde_spans;
	uint64_t work;			/* charged against CFI_MAX_WORK */
	size_t nr_fdes;
	size_t nr_bad;			/* entries libdw could not read */
};

/* Makes room for one more element of size elem in *v (nr used of *cap). */
static int grow(void **v, size_t *cap, size_t nr, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 1024, bytes;
	void *p;

	if (nr < *cap)
		return 0;
	if (__builtin_mul_overflow(n, elem, &bytes))
		return -ENOMEM;
	p = realloc(*v, bytes);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

static int spans__push(struct builder *b, uint64_t start, uint64_t end, const struct unw_row *row)
{
	struct span *s;
	int err;

	if (b->nr_spans >= CFI_MAX_ROWS)
		return -E2BIG;
	err = grow((void **)&b->spans, &b->cap_spans, b->nr_spans, sizeof(*b->spans));
	if (err)
		return err;
	s = &b->spans[b->nr_spans++];
	s->start = start;
	s->end = end;
	s->row = *row;
	return 0;
}

/*
 * Adds the rule for virtual addresses [lo, hi), translated to file
 * offsets. A range outside every segment's file image cannot be executed
 * from this file and is dropped; one running past its segment is cut there.
 */
static int add_range(struct builder *b, uint64_t lo, uint64_t hi, const struct unw_row *row)
{
	uint64_t off, left;

	if (hi <= lo || elf_segments__vaddr_to_offset(b->segs, b->nr_segs, lo, &off, &left))
		return 0;
	if (hi - lo > left)
		hi = lo + left;
	if (off >= UINT32_MAX)
		return 0;
	return spans__push(b, off, off + (hi - lo) > UINT32_MAX ? UINT32_MAX : off + (hi - lo), row);
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
		if (shift > 70)
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
	uint64_t here = b->sec_addr + (uint64_t)(*p - (const uint8_t *)b->data->d_buf);
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
	if (!p || end < p || end > (const uint8_t *)b->data->d_buf + b->data->d_size)
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

/* Fills row (off aside) from libdw's rules for one frame state. */
static void classify(Dwarf_Frame *fr, struct unw_row *row)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	bool signalp = false;
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
	if (!saved_at_cfa(ops, nops, &off) || off != -8)
		return;

	if (dwarf_frame_cfa(fr, &ops, &nops))
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number <= 64 ? (int)ops[0].number : -1;
		off = (int64_t)ops[0].number2;
		if ((reg != DW_REG_RSP && reg != DW_REG_RBP) || off < INT32_MIN || off > INT32_MAX)
			return;
		row->cfa_type = reg == DW_REG_RSP ? UNW_CFA_RSP : UNW_CFA_RBP;
		row->cfa_off = (int32_t)off;
	} else if (plt_expression(ops, nops, &row->cfa_off)) {
		row->cfa_type = UNW_CFA_PLT;
	} else {
		return;
	}

	row->rbp_type = UNW_RBP_UNDEF;
	if (dwarf_frame_register(fr, DW_REG_RBP, mem, &ops, &nops))
		return;
	if (!nops && !ops)
		row->rbp_type = UNW_RBP_SAME;
	else if (nops && saved_at_cfa(ops, nops, &off) && off >= INT16_MIN && off <= INT16_MAX) {
		row->rbp_type = UNW_RBP_CFA;
		row->rbp_off = (int16_t)off;
	}
}

/* Walks the FDE covering [lo, hi) row by row. */
static int walk_fde(struct builder *b, uint64_t lo, uint64_t hi, uint64_t program_len)
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
		if (dwarf_cfi_addrframe(b->cfi, pc, &fr) ||
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

/* Enumerates the FDEs of the CFI section and walks each. */
static int walk_section(struct builder *b)
{
	Dwarf_Off off = 0, next;
	int rc, err;

	while (true) {
		Dwarf_CFI_Entry entry, cie;
		Dwarf_Off cie_next;
		const uint8_t *p;
		uint64_t lo, len, program_len;
		size_t first;
		uint8_t enc;

		next = (Dwarf_Off)-1;
		rc = dwarf_next_cfi(b->ident, b->data, b->eh_frame, off, &next, &entry);
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
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		if (++b->nr_fdes > CFI_MAX_FDES)
			return -E2BIG;
		if (dwarf_next_cfi(b->ident, b->data, b->eh_frame, entry.fde.CIE_pointer,
				   &cie_next, &cie) || !dwarf_cfi_cie_p(&cie) ||
		    !cie_fde_encoding(b, &cie.cie, &enc))
			continue;
		p = entry.fde.start;
		if (!read_encoded(b, &p, entry.fde.end, enc, false, &lo) ||
		    !read_encoded(b, &p, entry.fde.end, enc, true, &len) || !len ||
		    lo + len < lo)
			continue;
		program_len = (uint64_t)(entry.fde.end - entry.fde.start) +
			      (uint64_t)(cie.cie.initial_instructions_end - cie.cie.initial_instructions);
		first = b->nr_spans;
		err = walk_fde(b, lo, lo + len, program_len);
		if (!err && b->nr_spans > first)
			err = grow((void **)&b->fdes, &b->cap_fde_spans, b->nr_fde_spans,
				   sizeof(*b->fdes));
		if (err)
			return err;
		if (b->nr_spans > first)
			b->fdes[b->nr_fde_spans++] = (struct fde_spans){
				b->spans[first].start, first, b->nr_spans - first };
	}
	return 0;
}

/* ---- the table --------------------------------------------------------- */

static int fde_cmp(const void *a, const void *c)
{
	const struct fde_spans *x = a, *y = c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;	/* stable */
}

static bool same_rule(const struct unw_row *a, const struct unw_row *c)
{
	return a->cfa_type == c->cfa_type && a->rbp_type == c->rbp_type &&
	       a->rbp_off == c->rbp_off && a->cfa_off == c->cfa_off;
}

static void table__push(struct cfi_table *t, uint64_t off, const struct unw_row *rule)
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

/*
 * Sorted spans to rows: a NONE row wherever no span covers the offsets
 * after one, merged neighbours, and overlapping spans (duplicate FDEs)
 * resolved in favour of the one that starts first.
 */
static int build_rows(struct builder *b, struct cfi_table *t)
{
	static const struct unw_row none = { .cfa_type = UNW_CFA_NONE };
	uint64_t covered = 0;
	size_t i, k;

	qsort(b->fdes, b->nr_fde_spans, sizeof(*b->fdes), fde_cmp);
	/* At most one gap row before each span, and one at the end. */
	t->rows = calloc(2 * b->nr_spans + 1, sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (i = 0; i < b->nr_fde_spans; i++) {
		for (k = 0; k < b->fdes[i].count; k++) {
			const struct span *s = &b->spans[b->fdes[i].first + k];

			if (t->nr_rows && s->start > covered)
				table__push(t, covered, &none);
			table__push(t, s->start, &s->row);
			if (s->end > covered)
				covered = s->end;
		}
	}
	if (t->nr_rows)
		table__push(t, covered, &none);
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

/* The section named name with contents, or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Opens the CFI: .eh_frame when the file has one, else .debug_frame. */
static int open_cfi(struct builder *b, struct cfi_table *t)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	scn = find_section(b->elf, ".eh_frame");
	if (scn) {
		b->eh_frame = true;
		t->source = ".eh_frame";
		b->cfi = dwarf_getcfi_elf(b->elf);
	} else {
		scn = find_section(b->elf, ".debug_frame");
		if (!scn)
			return -ENOENT;
		t->source = ".debug_frame";
		/* libdw decompresses the section in place, so read it after this. */
		b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
		if (!b->dw)
			return -EBADMSG;
		b->cfi = dwarf_getcfi(b->dw);
	}
	if (!b->cfi || !gelf_getshdr(scn, &sh))
		return -EBADMSG;
	b->data = elf_getdata(scn, NULL);
	if (!b->data || !b->data->d_buf || !b->data->d_size)
		return -EBADMSG;
	b->sec_addr = sh.sh_addr;
	return 0;
}

int cfi_table__build(int fd, struct cfi_table *out)
{
	struct cfi_table t = { 0 };
	struct builder b = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	/* ELF_C_READ: pread on demand, never mmap (see the top of the file). */
	b.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!b.elf) {
		err = -ENOEXEC;
		goto out;
	}
	err = check_ident(b.elf);
	if (err)
		goto out;
	b.ident = (const unsigned char *)elf_getident(b.elf, NULL);
	if (!b.ident) {
		err = -ENOEXEC;
		goto out;
	}
	err = elf_segments__read(b.elf, &b.segs, &b.nr_segs);
	if (err)
		goto out;
	err = open_cfi(&b, &t);
	if (err)
		goto out;
	err = walk_section(&b);
	if (err)
		goto out;
	t.nr_fdes = b.nr_fdes;
	if (!b.nr_spans) {
		err = b.nr_bad ? -EBADMSG : -ENOENT;
		goto out;
	}
	err = build_rows(&b, &t);
out:
	if (err)
		cfi_table__release(&t);
	else
		*out = t;
	free(b.spans);
	free(b.fdes);
	free(b.segs);
	if (b.eh_frame && b.cfi)
		dwarf_cfi_end(b.cfi);		/* a .debug_frame CFI belongs to b.dw */
	dwarf_end(b.dw);
	if (b.elf)
		elf_end(b.elf);
	return err;
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

const struct unw_row *cfi_table__lookup(const struct cfi_table *t, uint64_t off)
{
	struct lookup_key key = { off, t->nr_rows ? &t->rows[t->nr_rows - 1] : NULL };

	if (!t->nr_rows)
		return NULL;
	return bsearch(&key, t->rows, t->nr_rows, sizeof(*t->rows), row_covers);
}

void cfi_table__release(struct cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
