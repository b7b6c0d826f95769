/* SPDX-License-Identifier: MIT */
/*
 * bpf/events.h - the ABI between the BPF programs and record/.
 *
 * The only header both sides see. Included by *.bpf.c after vmlinux.h and by
 * record/ after <linux/types.h>; it includes nothing itself. Any layout
 * change bumps EV_ABI_VERSION (record/ pins sizes with _Static_assert).
 */
#ifndef EPROF_BPF_EVENTS_H
#define EPROF_BPF_EVENTS_H

#define EV_ABI_VERSION	1
#define EV_MAX_FRAMES	127	/* kernel.perf_event_max_stack default */
#define EV_COMM_LEN	16	/* TASK_COMM_LEN */

enum ev_type {
	EV_SAMPLE = 1,
};

/* Per-CPU counters in the `stats` map; every loss is counted, none is silent. */
enum ev_stat {
	EV_STAT_SAMPLES,	/* samples that passed the filter */
	EV_STAT_RINGBUF_FULL,	/* sample lost: no room in the ring buffer */
	EV_STAT_USTACK_FAIL,	/* user stack could not be read (sample kept) */
	EV_STAT_KSTACK_FAIL,	/* kernel stack could not be read (sample kept) */
	EV_STAT_USTACK_TRUNC,	/* user stack deeper than EV_MAX_FRAMES (truncated) */
	EV_STAT_KSTACK_TRUNC,	/* kernel stack deeper than EV_MAX_FRAMES (truncated) */
	EV_STAT_MAX,
};

struct ev_hdr {
	__u16 type;		/* enum ev_type */
	__u16 flags;
	__u32 size;		/* whole record, header included */
};

/*
 * One sample. frames[0 .. nr_kframes) is the kernel stack, innermost first;
 * frames[nr_kframes .. nr_kframes + nr_uframes) the user stack, innermost
 * first. User space deduplicates stacks (DESIGN.md, "Stack identity").
 */
struct ev_sample {
	struct ev_hdr hdr;
	__u64 time_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;
	__u16 nr_kframes;
	__u16 nr_uframes;
	__s32 kstack_err;	/* 0 or -errno from bpf_get_stack() */
	__s32 ustack_err;
	char comm[EV_COMM_LEN];	/* thread name at the time of the sample */
	__u64 frames[];
};

#endif
