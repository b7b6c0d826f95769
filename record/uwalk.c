// SPDX-License-Identifier: MIT
/*
 * record/uwalk.c - unw_step_frame (bpf/unwind.bpf.h) again, in C. Each
 * function here has its BPF twin named in its comment; a change to one is
 * a change to both (tests/unit/test_uwalk.c holds them to the walker's
 * rules). What the BPF side keeps only to be fast (the per-CPU row cache,
 * the row of the last frame, the block copies of the stack) has no twin:
 * it never changes which row a frame gets.
 */
#include <string.h>

#include "record/uwalk.h"

/* x86-64: struct ucontext's uc_mcontext, and in it struct sigcontext's registers. */
#define UC_MCONTEXT	40
#define SC_BP		80
#define SC_BX		88
#define SC_SP		120
#define SC_IP		128

/* unw_word: the word at addr of the stack copy; false outside it (unreadable). */
static bool word(const struct uwalk *w, uint64_t addr, uint64_t *v)
{
	uint64_t off = addr - w->mem_base;

	if (addr < w->mem_base || off > w->mem_len || w->mem_len - off < 8)
		return false;
	memcpy(v, w->mem + off, 8);
	return true;
}

/* unw_find_vma: the mapping holding pc (the walker's cache holds the same). */
static const struct uwalk_vma *find_vma(const struct uwalk *w, uint64_t pc)
{
	size_t i;

	for (i = 0; i < w->nr_vmas; i++)
		if (pc >= w->vmas[i].start && pc < w->vmas[i].end)
			return &w->vmas[i];
	return w->more_vma ? w->more_vma(w->ctx, pc) : NULL;
}

/* unw_fp_step: one frame-pointer step, for want of a row (why: enum unw_fb). */
static int fp_step(struct uwalk *w, uint8_t why)
{
	uint64_t ra, bp;
	uint8_t stop = why == UNW_FB_NO_TABLE ? UNW_STOP_NO_TABLE : UNW_STOP_NO_CFI;

	if (!w->bp && why == UNW_FB_NO_CFI && w->cur && w->cur->key.ino) {
		w->stop = UNW_STOP_ZERO;
		return 1;
	}
	if (w->fb == UWALK_FB_NONE)
		w->fb = why;
	/*
	 * rbp may equal sp, as in the walker: a frame without locals (a JIT
	 * stub: push rbp; mov rbp, rsp; call) returns to exactly its rbp.
	 */
	if (w->bp < w->sp || !word(w, w->bp, &bp) || !word(w, w->bp + 8, &ra)) {
		w->stop = stop;
		return 1;
	}
	w->fp_frames++;
	if (!ra) {
		w->stop = UNW_STOP_ZERO;
		return 1;
	}
	w->pc = ra;
	w->sp = w->bp + 16;
	w->bp = bp;
	w->bx_ok = false;
	w->exact = false;
	return 0;
}

/* unw_signal_step: a sigreturn trampoline, the ucontext at sp. */
static int signal_step(struct uwalk *w)
{
	uint64_t mc = w->sp + UC_MCONTEXT, ip, sp, bp, bx;

	if (!word(w, mc + SC_IP, &ip) || !word(w, mc + SC_SP, &sp) || !word(w, mc + SC_BP, &bp) ||
	    !word(w, mc + SC_BX, &bx)) {
		w->stop = UNW_STOP_UNREADABLE;
		return 1;
	}
	if (!ip || !sp) {
		w->stop = UNW_STOP_ZERO;
		return 1;
	}
	w->table_frames++;
	w->pc = ip;
	w->sp = sp;
	w->bp = bp;
	w->bx = bx;
	w->bx_ok = true;
	w->exact = true;
	return 0;
}

/* unw_step_frame after the pc is stored: moves w to the caller; nonzero to stop. */
static int step(struct uwalk *w)
{
	struct unw_row row;
	uint64_t lpc = w->exact ? w->pc : w->pc - 1, cfa, ra, bp, bx, off;
	enum uwalk_row r;

	if (!w->cur || lpc < w->cur->start || lpc >= w->cur->end)
		w->cur = find_vma(w, lpc);
	if (!w->cur)
		return fp_step(w, UNW_FB_NO_VMA);
	if (!w->cur->key.ino)
		return fp_step(w, UNW_FB_NO_CFI);
	off = lpc - w->cur->start + (w->cur->pgoff << 12);
	r = off > 0xffffffffull ? UWALK_ROW_NO_CFI : w->row(w->ctx, &w->cur->key, off, &row);
	if (r == UWALK_ROW_NO_TABLE || (r == UWALK_ROW_FOUND && row.cfa_type == UNW_CFA_ABSENT))
		return fp_step(w, UNW_FB_NO_TABLE);
	if (r != UWALK_ROW_FOUND)
		return fp_step(w, UNW_FB_NO_CFI);

	switch (row.cfa_type) {
	case UNW_CFA_RSP:
		cfa = w->sp + (uint64_t)(int64_t)row.cfa_off;
		break;
	case UNW_CFA_RBP:
		cfa = w->bp + (uint64_t)(int64_t)row.cfa_off;
		break;
	case UNW_CFA_PLT:
		cfa = w->sp + 8 + ((w->pc & 15) >= (uint64_t)(int64_t)row.cfa_off ? 8 : 0);
		break;
	case UNW_CFA_RBX:
		if (!w->bx_ok)
			return fp_step(w, UNW_FB_NO_CFI);
		cfa = w->bx + (uint64_t)(int64_t)row.cfa_off;
		break;
	case UNW_CFA_SIGNAL:
		return signal_step(w);
	case UNW_CFA_END:
		w->stop = UNW_STOP_END;
		return 1;
	default:
		return fp_step(w, UNW_FB_NO_CFI);
	}
	if (cfa <= w->sp) {
		w->stop = UNW_STOP_BAD_SP;
		return 1;
	}
	bp = w->bp;
	bx = w->bx;
	if (!word(w, cfa - 8, &ra) ||
	    (row.rbp_type == UNW_RBP_CFA && !word(w, cfa + (uint64_t)(int64_t)row.rbp_off, &bp)) ||
	    (row.rbx_type == UNW_RBP_CFA && !word(w, cfa + (uint64_t)(int64_t)row.rbx_off, &bx))) {
		w->stop = UNW_STOP_UNREADABLE;
		return 1;
	}
	if (row.rbp_type == UNW_RBP_UNDEF)
		bp = 0;
	if (row.rbx_type == UNW_RBP_UNDEF)
		w->bx_ok = false;
	else if (row.rbx_type == UNW_RBP_CFA)
		w->bx_ok = true;
	w->table_frames++;
	if (!ra) {
		w->stop = UNW_STOP_ZERO;
		return 1;
	}
	w->pc = ra;
	w->sp = cfa;
	w->bp = bp;
	w->bx = bx;
	w->exact = false;
	return 0;
}

uint32_t uwalk__run(struct uwalk *w, uint64_t *frames, uint32_t n, uint32_t max)
{
	w->stop = UNW_STOP_MAX;
	w->fb = UWALK_FB_NONE;
	w->table_frames = w->fp_frames = 0;
	w->cur = NULL;
	for (;;) {
		if (n >= max) {
			w->stop = UNW_STOP_DEPTH;
			break;
		}
		frames[n++] = w->pc;
		if (step(w))
			break;
	}
	return n;
}
