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

#define EV_ABI_VERSION	6
#define EV_MAX_FRAMES	127	/* kernel.perf_event_max_stack default */
/*
 * User frames the table walker follows in a sample: deeper than perf's
 * 127, because a compiler's recursive descent (clang parsing C++) often is.
 * Stacks taken by bpf_get_stack() (frame pointers, off-CPU) stay at 127.
 */
#define EV_MAX_UFRAMES	255
#define EV_COMM_LEN	16	/* TASK_COMM_LEN */

enum ev_type {
	EV_SAMPLE = 1,
	EV_OFFCPU_STACK,	/* struct ev_offcpu_stack: a stack off-CPU records refer to */
	EV_OFFCPU,		/* struct ev_offcpu: one long off-CPU interval */
	EV_CGROUP,		/* struct ev_cgroup: a thread's cgroup, first seen or moved */
};

/* How a thread left the CPU (record --off-cpu). */
enum ev_offcpu_state {
	EV_OFFCPU_BLOCKED,	/* it slept: interruptible, uninterruptible, stopped */
	EV_OFFCPU_RUNNABLE,	/* it waited for a CPU: preempted, or woken from a sleep */
	EV_OFFCPU_STATES,
};

/* Why the table walker took a frame-pointer step instead of a table row. */
enum unw_fb {
	UNW_FB_NO_TABLE,	/* a file mapping whose table is not loaded (yet) */
	UNW_FB_NO_CFI,		/* no CFI for the PC: anonymous (JIT) code, a file
				   without CFI, a gap, or a rule the walker cannot follow */
	UNW_FB_NO_VMA,		/* the PC is in no mapping, or the lookup was refused */
	UNW_FB_MAX,
};

/* Why a table walk ended. */
enum unw_stop {
	UNW_STOP_END,		/* a row said "outermost frame": the stack is complete */
	UNW_STOP_ZERO,		/* a zero return address or frame pointer: the usual
				   end of a frame-pointer chain */
	UNW_STOP_DEPTH,		/* the depth limit reached: truncated */
	UNW_STOP_UNREADABLE,	/* the stack could not be read where the rule said */
	UNW_STOP_BAD_SP,	/* the stack pointer did not grow: a broken rule or chain */
	UNW_STOP_NO_TABLE,	/* a frame-pointer step (no table yet) went nowhere */
	UNW_STOP_NO_CFI,	/* a frame-pointer step (no CFI) went nowhere */
	UNW_STOP_NO_REGS,	/* no user registers to start from */
	UNW_STOP_MAX,
};

/*
 * The `ticks` map's one per-CPU word: TICK_FIRED for every tick that ran the
 * sampler, plus TICK_KEPT when it passed the filter, added in one store so
 * that a read of the word never sees a tick kept but not yet fired. Two
 * counters read one after the other split a tick between two files at a
 * --switch-output (fired in one, kept in the next). record/ takes the
 * difference of two reads: fired in the high half, kept in the low, exact
 * while fewer than 2^32 ticks fall between two reads.
 */
#define TICK_FIRED	(1ull << 32)
#define TICK_KEPT	1ull

/* Per-CPU counters in the `stats` map; every loss is counted, none is silent. */
enum ev_stat {
	EV_STAT_SAMPLES,	/* samples that passed the filter */
	EV_STAT_RINGBUF_FULL,	/* sample lost: no room in the ring buffer */
	EV_STAT_USTACK_FAIL,	/* user stack could not be read (sample kept) */
	EV_STAT_KSTACK_FAIL,	/* kernel stack could not be read (sample kept) */
	EV_STAT_USTACK_TRUNC,	/* user stack deeper than the limit (truncated) */
	EV_STAT_KSTACK_TRUNC,	/* kernel stack deeper than EV_MAX_FRAMES (truncated) */
	/* --call-graph dwarf: how user stacks were walked (sampler.bpf.c, unwind.bpf.h) */
	EV_STAT_UNW_STACKS,	/* user stacks walked with unwind tables */
	EV_STAT_UNW_FRAMES_TABLE,	/* frames found through a table row */
	EV_STAT_UNW_FRAMES_FP,	/* frames found by a frame-pointer step */
	EV_STAT_UNW_FB,		/* stacks with a frame-pointer step, by the first one's
				   cause: UNW_FB_MAX entries */
	EV_STAT_UNW_FB_LAST = EV_STAT_UNW_FB + UNW_FB_MAX - 1,
	EV_STAT_UNW_STOP,	/* stacks by why the walk ended: UNW_STOP_MAX entries */
	EV_STAT_UNW_STOP_LAST = EV_STAT_UNW_STOP + UNW_STOP_MAX - 1,
	/* --off-cpu (on_switch): every interval is counted, delivered or not */
	EV_STAT_OFFCPU_INTERVALS,	/* intervals that ended (ran again) */
	EV_STAT_OFFCPU_EVENTS,		/* of which delivered as events (long ones) */
	EV_STAT_OFFCPU_SUMMED,		/* of which added to offcpu_sums (short, or no room) */
	EV_STAT_OFFCPU_LOST,		/* of which lost: no ring-buffer room, sums map full */
	EV_STAT_OFFCPU_LOST_NS,		/* their nanoseconds */
	EV_STAT_OFFCPU_UNTRACKED,	/* switches out not followed: offcpu_start full */
	EV_STAT_OFFCPU_STACK_LOST,	/* stack records not delivered (the interval is
					   kept with an empty stack unless a retry succeeds) */
	/* raw-stack fallback (ev_raw): walks that met a binary without its table yet */
	EV_STAT_RAW_SAMPLES,	/* samples sent with a copy of the stack */
	EV_STAT_RAW_BYTES,	/* stack bytes copied into them */
	EV_STAT_RAW_OVER,	/* samples that wanted one but the budget was spent */
	/* Python frames (py_procs): walks of a known interpreter's frame chain */
	EV_STAT_PY_WALKS,	/* samples of a process in py_procs */
	EV_STAT_PY_SAMPLES,	/* of which with Python frames */
	EV_STAT_PY_NO_THREAD,	/* the thread has no thread state (not a Python thread) */
	EV_STAT_PY_UNREADABLE,	/* a walk stopped at memory it could not read */
	EV_STAT_PY_DEPTH,	/* a walk cut at EV_PY_MAX_FRAMES or the record's room */
	EV_STAT_PY_RAW,		/* unused since raw-stack samples carry Python frames (0) */
	EV_STAT_MAX,
};

/*
 * A mapped file as the walker sees it (its inode), so that every process
 * mapping a binary shares one table: the key of `unw_tables`, `unw_missing`
 * and `unw_bins`. dev is the kernel's encoding (major << 20 | minor); ctime
 * tells a file rewritten in place, or an inode number reused, from the one
 * the table was built for. All zero: anonymous memory.
 *
 * The vDSO has no file: the walker gives it dev 0, inode UNW_VDSO_INO (no
 * file system hands that one out) and its mapping's size as ctime_ns, and
 * record/ loads the table of its own vDSO under that key, since every
 * process on a kernel maps the same image (a compat process's vDSO, another
 * image, is told apart by its size where that differs).
 */
struct unw_key {
	__u32 dev;
	__u32 pad;
	__u64 ino;
	__u64 ctime_ns;
};

#define UNW_VDSO_INO	(~0ull)

/*
 * A window (file offset >> UNW_WINDOW_SHIFT) of a binary whose partial
 * table does not hold it yet: record/ loads its rows (the key of
 * `unw_absent`; pad zero, as a hash key).
 */
struct unw_window {
	struct unw_key key;
	__u32 window;
	__u32 pad;
};

/* A file mapping the walker found without a table: record/ builds one. */
struct unw_miss {
	__u32 tgid;
	__u32 pad;
	__u64 start;		/* the VMA, to open it through /proc/PID/map_files */
	__u64 end;
	__u64 pgoff;		/* in pages */
};

/* Per binary (unw_key): how walks that stopped in it, or left its table, went. */
struct unw_bin_stats {
	__u64 stop[UNW_STOP_MAX];	/* walks that ended at a frame in this binary */
	__u64 fallback[UNW_FB_MAX];	/* walks whose first FP step was in this binary */
};

struct ev_hdr {
	__u16 type;		/* enum ev_type */
	__u16 flags;		/* EV_SAMPLE: EV_SAMPLE_F_RAW, Python frames (below) */
	__u32 size;		/* whole record, header included */
};

/*
 * The raw-stack fallback. When the walker meets a file mapping whose table
 * is not loaded yet (UNW_FB_NO_TABLE), it notes the registers there and the
 * sample carries, after its frames (its Python frames too), a struct ev_raw
 * and a copy of the user stack from that sp upward (at most
 * EV_RAW_STACK_MAX bytes, within a byte budget per second), and the frames
 * from ev_raw.frame on are the walker's
 * frame-pointer guess. record/ walks that part again with the same table
 * rows once the table is built (record/rawstack.c) and stores only PCs.
 */
#define EV_SAMPLE_F_RAW		1
#define EV_RAW_STACK_MAX	65536	/* a power of two */
#define EV_RAW_VMAS		16	/* = UNW_VMA_CACHE */
/*
 * The copy starts this far below sp: the red zone, where an epilogue's CFI
 * may still place a register it has popped (the walker reads it there).
 */
#define EV_RAW_BELOW_SP		128

/* A mapping of the sampled process, as the walker keys it (struct unw_key). */
struct ev_raw_vma {
	__u64 start, end, pgoff;	/* pgoff in pages */
	__u32 dev;
	__u32 pad;
	__u64 ino;
	__u64 ctime_ns;
};

struct ev_raw {
	__u16 frame;		/* user frame index (0: innermost) whose pc is `pc` */
	__u8 exact;		/* pc is looked up as is, not pc - 1 */
	__u8 bx_ok;		/* bx is known */
	__u8 nr_vmas;		/* valid entries of vmas[] */
	__u8 walk_stop;		/* enum unw_stop: how the walker's own walk ended */
	__u8 walk_fb;		/* enum unw_fb of its first frame-pointer step, UNW_FB_MAX: none */
	__u8 pad;
	__u32 stack_len;	/* bytes of stack after this struct, copied from
				   sp - EV_RAW_BELOW_SP */
	__u32 pad2;
	__u64 pc, sp, bp, bx;	/* the registers of that frame */
	struct ev_raw_vma vmas[EV_RAW_VMAS];
	__u8 stack[];
};

/*
 * Python frames (record/python.c). For a process in the `py_procs` map the
 * sampler walks the interpreter's frame chain of the sampled thread and puts
 * its frames after the user frames, innermost first; their count is
 * hdr.flags >> EV_SAMPLE_PY_SHIFT (with EV_SAMPLE_F_RAW too: the ev_raw
 * then follows the Python frames). Each is one
 * word: the top three bits set (no user address has them), PY_FRAME_ENTRY
 * when the frame is the first one a native call of the eval loop ran (so
 * record/ can split them among the native eval-loop frames), the code
 * object's address >> 3 (user addresses have 47 bits) and the index of the
 * code unit it runs, clamped to 0xffff. Recordings keep that word as a user
 * frame (report/ names it from the python_code table).
 */
#define EV_SAMPLE_PY_SHIFT	8
#define EV_PY_MAX_FRAMES	96
#define PY_FRAME_TAG		(7ull << 61)
#define PY_FRAME_ENTRY		(1ull << 60)
#define PY_FRAME_CODE_SHIFT	16
#define PY_FRAME_CODE_MASK	((1ull << 44) - 1)
#define PY_FRAME_INSTR_MASK	0xffffull
/* A native eval-loop call running no Python frame now (3.12+, entering or leaving). */
#define PY_FRAME_EMPTY		(PY_FRAME_TAG | PY_FRAME_ENTRY)
#define PY_MAX_THREADS		64	/* thread states looked through per sample */

/*
 * One interpreter process: where its runtime state is and the offsets of the
 * fields the walk reads, for its version (record/python.c's table).
 */
struct py_proc {
	__u64 runtime;			/* address of _PyRuntime in the process */
	__u16 rt_interp_head;		/* _PyRuntimeState.interpreters.head */
	__u16 interp_threads_head;	/* PyInterpreterState.threads.head */
	__u16 ts_next;			/* PyThreadState.next */
	__u16 ts_native_tid;		/* PyThreadState.native_thread_id */
	__u16 ts_cframe;		/* PyThreadState.cframe (3.13: .current_frame) */
	__u16 cf_current_frame;		/* _PyCFrame.current_frame; PY_NO_OFF: none (3.13) */
	__u16 fr_code;			/* _PyInterpreterFrame.f_code (3.13: f_executable) */
	__u16 fr_previous;		/* _PyInterpreterFrame.previous */
	__u16 fr_prev_instr;		/* _PyInterpreterFrame.prev_instr (3.13: instr_ptr) */
	__u16 fr_is_entry;		/* _PyInterpreterFrame.is_entry; PY_NO_OFF: none (3.12+) */
	__u16 co_code_adaptive;		/* PyCodeObject.co_code_adaptive */
	__u16 fr_owner;			/* _PyInterpreterFrame.owner */
};

/*
 * A field the version does not have. 3.12+ has no is_entry: each native
 * call of the eval loop pushes a shim frame (owner PY_OWNED_BY_CSTACK)
 * below the first frame it runs, so that frame is the entry.
 */
#define PY_NO_OFF		0xffff
#define PY_OWNED_BY_CSTACK	3

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

/*
 * Off-CPU (record --off-cpu). A thread's stack is taken when it leaves the
 * CPU; intervals refer to it by a 64-bit content hash of its frames, and
 * the stack itself is sent once per hash before the first interval that
 * needs it. record/ checks every stack record against the hash it gives
 * and maps the hash to its own stack id. The header is as long as
 * ev_sample's, so that the same per-CPU scratch and the same user-stack
 * walker (which writes frames[] at a given index) serve both.
 */
struct ev_offcpu_stack {
	struct ev_hdr hdr;
	__u64 hash;		/* never 0 (0 means "no stack" in the records below) */
	__u64 time_ns;		/* when it was taken */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;
	__u16 nr_kframes;
	__u16 nr_uframes;
	char comm[EV_COMM_LEN];	/* thread name when it left the CPU */
	__u64 frames[];		/* kernel then user, innermost first, as in ev_sample */
};

/* One off-CPU interval at least off_cpu_thresh_ns long. */
struct ev_offcpu {
	struct ev_hdr hdr;
	__u64 start_ns;		/* bpf_ktime_get_ns() when it left the CPU */
	__u64 duration_ns;	/* until it ran again */
	__u64 stack_hash;	/* 0: no stack */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;		/* the CPU it left */
	__u32 state;		/* enum ev_offcpu_state */
};

/*
 * The cgroup (v2) a sampled or switched-out thread is in, sent before its
 * sample only when the thread's cgroup differs from the last one sent for
 * its tid (or none was): a change log, so no sample carries the id.
 */
struct ev_cgroup {
	struct ev_hdr hdr;
	__u64 time_ns;		/* of the sample or switch that saw it */
	__u64 cgroup_id;	/* bpf_get_current_cgroup_id() */
	__u32 tgid;
	__u32 tid;
};

/* offcpu_sums key: short intervals summed per (thread, stack, state, CPU left). */
struct offcpu_key {
	__u64 stack_hash;
	__u32 tgid;
	__u32 tid;
	__u32 state;
	__u32 cpu;
};

/* offcpu_sums value; only ever grows (record/ reads the difference). */
struct offcpu_sum {
	__u64 count;
	__u64 total_ns;
};

/*
 * offcpu_start value: a target thread that is off the CPU now. A blocked
 * one that sched_wakeup made runnable again has wake_ns: its interval ends
 * as two, blocked until then, runnable (waiting for a CPU) after.
 */
struct offcpu_start {
	__u64 start_ns;
	__u64 stack_hash;
	__u32 tgid;
	__u32 cpu;
	__u32 state;
	__u32 pad;
	__u64 wake_ns;		/* 0: not woken yet */
};

#endif
