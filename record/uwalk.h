/* SPDX-License-Identifier: MIT */
/*
 * record/uwalk.h - the BPF walker's step (bpf/unwind.bpf.h, unw_step_frame)
 * in C, over a copy of the user stack: record/ finishes with it the walks
 * the BPF program left at a binary whose table was not in yet (events.h,
 * ev_raw). Same rows, same rules, same stop and fallback reasons, so a
 * stack finished here is the stack the walker would have found had the
 * table been in. Knows no BPF and no recorder: the caller gives it the
 * process's mappings, the stack bytes and a row lookup.
 */
#ifndef EPROF_RECORD_UWALK_H
#define EPROF_RECORD_UWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/events.h"
#include "bpf/unwind.h"

/* A mapping: [start, end), file offset pgoff pages, its file's table key. */
struct uwalk_vma {
	uint64_t start, end, pgoff;
	struct unw_key key;
};

/* What the lookup says: a row, or why there is none (as the walker's lookup). */
enum uwalk_row {
	UWALK_ROW_FOUND,
	UWALK_ROW_NO_TABLE,	/* no table for the binary: UNW_FB_NO_TABLE */
	UWALK_ROW_NO_CFI,	/* its table has no row for the offset: UNW_FB_NO_CFI */
};

/* The row covering file offset off of the binary behind key into *row. */
typedef enum uwalk_row (*uwalk_row_fn)(void *ctx, const struct unw_key *key, uint64_t off,
				       struct unw_row *row);

struct uwalk {
	/* set by the caller */
	const struct uwalk_vma *vmas;
	size_t nr_vmas;
	uint64_t mem_base;		/* the stack copy: user address of mem[0] */
	const uint8_t *mem;
	size_t mem_len;
	uwalk_row_fn row;
	void *ctx;
	/*
	 * The mapping holding pc when vmas has none, or NULL (may be NULL):
	 * the walker attaches only the mappings it had met, so the outer
	 * frames of a process's first ticks lie in mappings it had not.
	 */
	const struct uwalk_vma *(*more_vma)(void *ctx, uint64_t pc);
	uint64_t pc, sp, bp, bx;	/* the registers to start from */
	bool exact;			/* pc is looked up as is (the interrupted pc) */
	bool bx_ok;
	/* the walk's results */
	uint8_t stop;			/* enum unw_stop */
	uint8_t fb;			/* enum unw_fb of the first frame-pointer step, or UWALK_FB_NONE */
	uint32_t table_frames, fp_frames;
	const struct uwalk_vma *cur;	/* the mapping of the last frame, NULL: none */
};

#define UWALK_FB_NONE	0xff

/*
 * Walks from w's registers, storing pcs at frames[n], frames[n + 1], ...
 * below max (EV_MAX_UFRAMES for a whole user stack: the depth limit counts
 * the frames before n too); returns the new n.
 */
uint32_t uwalk__run(struct uwalk *w, uint64_t *frames, uint32_t n, uint32_t max);

#endif
