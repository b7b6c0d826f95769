// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_uwalk.c - record/uwalk.c, the BPF walker's step in C,
 * on constructed tables and stacks: each case is a rule of unw_step_frame
 * (bpf/unwind.bpf.h) with the frames, stop reason and first fallback the
 * walker gives it, so that a stack finished from a raw copy is the stack
 * the walker would have found.
 */
#include <string.h>

#include "record/uwalk.h"
#include "tests/unit/harness.h"

#define BASE	0x7ffd0000ull		/* user address of stack[0] */
#define TEXT	0x400000ull		/* the mapping of binary 1, file offset 0x1000 */
#define NOTAB	0x900000ull		/* the mapping of binary 2: no table yet */

static uint64_t stack[512];
static struct uwalk_vma vmas[2] = {
	{ TEXT, TEXT + 0x10000, 1, { 8, 0, 1, 11 } },
	{ NOTAB, NOTAB + 0x10000, 0, { 8, 0, 2, 22 } },
};

/* binary 1's table, by file offset (pc - TEXT + 0x1000) */
static struct unw_row rows[16];
static size_t nr_rows;
static unsigned int lookups;

static void row(uint32_t off, uint8_t cfa_type, int32_t cfa_off, uint8_t rbp_type, int16_t rbp_off)
{
	struct unw_row *r = &rows[nr_rows++];

	memset(r, 0, sizeof(*r));
	r->off = off;
	r->cfa_type = cfa_type;
	r->cfa_off = cfa_off;
	r->rbp_type = rbp_type;
	r->rbp_off = rbp_off;
}

/* unw_find_row: the last row at or before off; ino 2 has no table (yet). */
static enum uwalk_row lookup(void *ctx, const struct unw_key *k, uint64_t off, struct unw_row *out)
{
	size_t i;
	const struct unw_row *found = NULL;

	(void)ctx;
	lookups++;
	if (k->ino == 2)
		return UWALK_ROW_NO_TABLE;
	for (i = 0; i < nr_rows; i++)
		if (rows[i].off <= off)
			found = &rows[i];
	if (!found)
		return UWALK_ROW_NO_CFI;
	*out = *found;
	return UWALK_ROW_FOUND;
}

static uint64_t addr(size_t word) { return BASE + word * 8; }

static void setup(struct uwalk *w, uint64_t pc, uint64_t sp, uint64_t bp)
{
	memset(w, 0, sizeof(*w));
	w->vmas = vmas;
	w->nr_vmas = 2;
	w->mem_base = BASE;
	w->mem = (const uint8_t *)stack;
	w->mem_len = sizeof(stack);
	w->row = lookup;
	w->pc = pc;
	w->sp = sp;
	w->bp = bp;
	w->exact = true;
	w->bx_ok = true;
}

static void reset(void)
{
	memset(stack, 0, sizeof(stack));
	nr_rows = 0;
	lookups = 0;
}

/* Offsets in binary 1: f at 0x1100 (leaf, CFA rsp+8), g at 0x1200 (CFA rsp+16,
 * rbp at CFA-16), h at 0x1300 (the outermost: END). */
static void three_functions(void)
{
	row(0x1000, UNW_CFA_NONE, 0, 0, 0);
	row(0x1100, UNW_CFA_RSP, 8, UNW_RBP_SAME, 0);
	row(0x1200, UNW_CFA_RSP, 16, UNW_RBP_CFA, -16);
	row(0x1300, UNW_CFA_END, 0, 0, 0);
	row(0x1400, UNW_CFA_NONE, 0, 0, 0);
}

static void table_walk_to_the_end(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];
	uint32_t n;

	reset();
	three_functions();
	/* f at sp = word 0: ra into g at word 0; g's frame: saved rbp at word 1, ra at word 2 */
	stack[0] = TEXT + 0x210;	/* return into g */
	stack[1] = 0x1234;		/* g saved the caller's rbp */
	stack[2] = TEXT + 0x310;	/* return into h */
	setup(&w, TEXT + 0x120, addr(0), 0x999);
	n = uwalk__run(&w, f, 0, EV_MAX_FRAMES);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(f[0], TEXT + 0x120);
	CHECK_EQ_U64(f[1], TEXT + 0x210);
	CHECK_EQ_U64(f[2], TEXT + 0x310);
	CHECK_EQ_U64(w.stop, UNW_STOP_END);
	CHECK_EQ_U64(w.fb, UWALK_FB_NONE);
	CHECK_EQ_U64(w.table_frames, 2);
	CHECK_EQ_U64(w.bp, 0x1234);	/* restored from g's frame */
}

/* A return address is looked up at ra - 1: a call that ends g returns to h's first byte. */
static void return_address_minus_one(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	three_functions();
	stack[0] = TEXT + 0x300;	/* the first byte of h: the row at ra - 1 is g's */
	stack[1] = 0x77;
	stack[2] = 0;			/* g's return address: zero */
	setup(&w, TEXT + 0x120, addr(0), 0);
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(w.stop, UNW_STOP_ZERO);	/* g's rule read the zero: not h's END */
	CHECK_EQ_U64(w.table_frames, 2);
}

/* No table yet for binary 2: frame-pointer steps, counted as such. */
static void no_table_takes_fp_steps(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	three_functions();
	/* frame at word 4: saved rbp = word 8, ra = h; word 8: rbp 0, ra 0 */
	stack[4] = addr(8);
	stack[5] = TEXT + 0x310;
	setup(&w, NOTAB + 0x50, addr(0), addr(4));
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(f[1], TEXT + 0x310);
	CHECK_EQ_U64(w.fb, UNW_FB_NO_TABLE);
	CHECK_EQ_U64(w.fp_frames, 1);
	CHECK_EQ_U64(w.stop, UNW_STOP_END);	/* h's row, after the step */
	/*
	 * rbp equal to sp: a stub without locals (push rbp; mov rbp, rsp;
	 * call) that its callee returned to. The step is taken, as the BPF
	 * walker takes it: t0716's samples finished from copies stopped here.
	 */
	reset();
	three_functions();
	stack[4] = addr(8);
	stack[5] = TEXT + 0x310;
	setup(&w, NOTAB + 0x50, addr(4), addr(4));
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(f[1], TEXT + 0x310);
	CHECK_EQ_U64(w.sp, addr(6));
	CHECK_EQ_U64(w.stop, UNW_STOP_END);
	/* a chain that leads nowhere stops "no table" */
	reset();
	setup(&w, NOTAB + 0x50, addr(4), addr(2));	/* bp below sp */
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.stop, UNW_STOP_NO_TABLE);
}

/* A pc in no mapping: "no mapping"; in a gap of the CFI with rbp 0: the entry. */
static void no_vma_and_asm_entry(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	three_functions();
	setup(&w, 0x100, addr(0), addr(1));
	stack[1] = 0;
	stack[2] = 0;
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.fb, UNW_FB_NO_VMA);
	CHECK_EQ_U64(w.stop, UNW_STOP_ZERO);	/* the step read a zero return address */
	setup(&w, TEXT + 0x010, addr(0), 0);	/* row NONE, rbp 0, file mapping */
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.stop, UNW_STOP_ZERO);
	CHECK_EQ_U64(w.fb, UWALK_FB_NONE);
}

/* Outside the copy is unreadable; a CFA that does not grow is a bad sp. */
static void unreadable_and_bad_sp(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	row(0x1100, UNW_CFA_RSP, 4096, UNW_RBP_SAME, 0);
	setup(&w, TEXT + 0x120, addr(511), 0);
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.stop, UNW_STOP_UNREADABLE);
	reset();
	row(0x1100, UNW_CFA_RBP, 0, UNW_RBP_SAME, 0);
	setup(&w, TEXT + 0x120, addr(8), addr(4));
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.stop, UNW_STOP_BAD_SP);
}

/* A signal trampoline: the interrupted registers from the ucontext at sp. */
static void signal_frame(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];
	size_t mc = 40 / 8;		/* uc_mcontext at sp + 40 */

	reset();
	three_functions();
	row(0x1500, UNW_CFA_SIGNAL, 0, 0, 0);
	/* the trampoline's frame at word 0; interrupted at h + 0 (exact: h's END row) */
	stack[mc + 128 / 8] = TEXT + 0x300;	/* ip */
	stack[mc + 120 / 8] = addr(100);	/* sp */
	stack[mc + 80 / 8] = 5;		/* bp */
	stack[mc + 88 / 8] = 6;		/* bx */
	setup(&w, TEXT + 0x508, addr(0), 0);
	w.exact = false;		/* a return address into the trampoline */
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(f[1], TEXT + 0x300);
	CHECK_EQ_U64(w.stop, UNW_STOP_END);	/* exact: h's row, not g's at pc - 1 */
	CHECK_EQ_U64(w.bx, 6);
}

/* An rbx rule needs rbx known: after a frame-pointer step it is not. */
static void rbx_rule(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	row(0x1100, UNW_CFA_RBX, 16, UNW_RBP_SAME, 0);
	setup(&w, TEXT + 0x120, addr(0), addr(4));
	stack[1] = TEXT + 0x130;	/* at CFA - 8, CFA = rbx + 16 */
	w.bx = addr(0);
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(w.table_frames, 1);
	CHECK_EQ_U64(w.fb, UWALK_FB_NONE);
	CHECK_EQ_U64(w.stop, UNW_STOP_BAD_SP);	/* rbx unchanged: the same CFA again */
	setup(&w, TEXT + 0x120, addr(0), addr(4));
	w.bx_ok = false;
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.fb, UNW_FB_NO_CFI);
	CHECK_EQ_U64(w.fp_frames, 1);
	CHECK_EQ_U64(w.stop, UNW_STOP_ZERO);	/* stack[5], the step's return address: 0 */
}

/* PLT stubs: CFA rsp + 8, + 8 more from the threshold on (pc & 15). */
static void plt_rule(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	three_functions();
	row(0x1600, UNW_CFA_PLT, 11, 0, 0);
	stack[0] = TEXT + 0x310;	/* before the push: ra at rsp */
	stack[1] = TEXT + 0x310;
	setup(&w, TEXT + 0x604, addr(0), 0);
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(w.sp, addr(1));
	stack[0] = 0x4444;		/* after the push (pc & 15 >= 11): ra at rsp + 8 */
	setup(&w, TEXT + 0x60b, addr(0), 0);
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 2);
	CHECK_EQ_U64(f[1], TEXT + 0x310);
	CHECK_EQ_U64(w.sp, addr(2));
}

/* The depth limit counts the frames before the start; frames before n stay. */
static void depth_and_start_index(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];
	size_t i;

	reset();
	row(0x1100, UNW_CFA_RSP, 8, UNW_RBP_SAME, 0);	/* endless recursion of a leaf */
	for (i = 0; i < 512; i++)
		stack[i] = TEXT + 0x120;
	f[0] = 0xaa;
	f[1] = 0xbb;
	setup(&w, TEXT + 0x120, addr(0), 0);
	CHECK_EQ_U64(uwalk__run(&w, f, 2, EV_MAX_FRAMES), EV_MAX_FRAMES);
	CHECK_EQ_U64(f[0], 0xaa);
	CHECK_EQ_U64(f[1], 0xbb);
	CHECK_EQ_U64(f[2], TEXT + 0x120);
	CHECK_EQ_U64(w.stop, UNW_STOP_DEPTH);
}

/* more_vma: binary 1's mapping, as the side-band's mappings give it. */
static unsigned int more_calls;
static const struct uwalk_vma *more_text(void *ctx, uint64_t pc)
{
	(void)ctx;
	more_calls++;
	return pc >= vmas[0].start && pc < vmas[0].end ? &vmas[0] : NULL;
}

/*
 * A mapping the walker had not met (not among vmas) comes from more_vma:
 * without it the outer frames of a process's first ticks took a
 * frame-pointer step into garbage.
 */
static void mapping_from_more_vma(void)
{
	struct uwalk w;
	uint64_t f[EV_MAX_FRAMES];

	reset();
	three_functions();
	stack[0] = TEXT + 0x210;
	stack[1] = 0x1234;
	stack[2] = TEXT + 0x310;
	setup(&w, TEXT + 0x120, addr(0), 0x999);
	w.vmas = &vmas[1];	/* only binary 2's */
	w.nr_vmas = 1;
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 1);
	CHECK_EQ_U64(w.fb, UNW_FB_NO_VMA);
	setup(&w, TEXT + 0x120, addr(0), 0x999);
	w.vmas = &vmas[1];
	w.nr_vmas = 1;
	w.more_vma = more_text;
	more_calls = 0;
	CHECK_EQ_U64(uwalk__run(&w, f, 0, EV_MAX_FRAMES), 3);
	CHECK_EQ_U64(w.stop, UNW_STOP_END);
	CHECK_EQ_U64(w.fb, UWALK_FB_NONE);
	CHECK(more_calls >= 1);
}

int main(void)
{
	static const struct test tests[] = {
		{ "table walk to the end", table_walk_to_the_end },
		{ "return address minus one", return_address_minus_one },
		{ "no table: frame-pointer steps", no_table_takes_fp_steps },
		{ "no mapping, assembly entry", no_vma_and_asm_entry },
		{ "unreadable, bad sp", unreadable_and_bad_sp },
		{ "signal frame", signal_frame },
		{ "rbx rule", rbx_rule },
		{ "PLT rule", plt_rule },
		{ "depth and start index", depth_and_start_index },
		{ "mapping from more_vma", mapping_from_more_vma },
	};

	return run_tests(tests, ARRAY_SIZE(tests));
}
