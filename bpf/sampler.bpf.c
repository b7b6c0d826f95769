// SPDX-License-Identifier: MIT
/*
 * bpf/sampler.bpf.c - the sampling side of `eprof record`.
 *
 * on_cpu_clock runs on every tick of the software CPU clock that record/
 * opens on each CPU. It keeps the tick only for target processes (or all of
 * them with -a; never the -- CMD child before its exec), copies the kernel
 * and user stacks with bpf_get_stack() into a per-CPU scratch record and
 * hands exactly the used bytes to the ring buffer. Stacks travel with every sample and are deduplicated in user
 * space, so a sample can never be attributed to another stack (DESIGN.md,
 * "Stack identity"). on_fork adds the children of targets to the target set
 * at fork time, before they run a single instruction.
 *
 * on_switch (record --off-cpu only) runs at every context switch: a target
 * thread leaving the CPU has its stack taken and its start noted; when it
 * runs again the interval is either sent as an event (long ones, with
 * their times) or added to a sum per (thread, stack, state) in a hash map
 * that record/ reads, so that totals stay exact at any switch rate.
 *
 * Every sample or interval that cannot be delivered and every stack that
 * cannot be read or may be cut short is counted per CPU in `stats`.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "events.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";	/* bpf_get_stack() is GPL-only */

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
#define STACK_BYTES	(EV_MAX_FRAMES * sizeof(__u64))
#define USTACK_BYTES	(EV_MAX_UFRAMES * sizeof(__u64))	/* the walker's */
#define FRAMES_BYTES	(STACK_BYTES + USTACK_BYTES)

/* Set by record/ between open and load. */
const volatile bool filter_tgids;	/* false with -a: every task, idle included */
const volatile bool follow_forks;	/* -- CMD: children and grandchildren too */
const volatile __u64 wakeup_bytes = 1;	/* wake user space once this much is queued */
const volatile bool unwind_tables;	/* --call-graph dwarf: walk user stacks with tables */
const volatile __u64 offcpu_thresh_ns = 1000000;	/* --off-cpu-thresh: longer ones are events */
const volatile __u64 raw_budget_bytes;	/* raw-stack fallback: bytes a second, 0: off */
const volatile __u32 gate_parent;	/* -- CMD: the recorder's tgid (its child waits at a gate) */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* resized by record/ before load */
} events SEC(".maps");

/*
 * Process ids (tgids) to sample when filter_tgids is set; filled by record/
 * and on_fork. LRU, so a long `make` that forks more processes than the map
 * holds evicts the longest-idle entries (dead processes) instead of failing
 * to follow new children; every sample and every fork refreshes its entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EV_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Every tick that ran this program, target or not, and those kept, as one
 * word (TICK_FIRED, TICK_KEPT): record/ compares it with what the clock
 * should have fired to tell throttled and missed ticks apart from samples
 * of other processes. Kept apart from `stats` on purpose.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ticks SEC(".maps");

/* Side-band perf events (mmap, comm, task), one per CPU; record/ fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} sideband SEC(".maps");

/* An ev_sample with room for both stacks (bytes: the flexible array ends it). */
#define SAMPLE_BYTES	(sizeof(struct ev_sample) + FRAMES_BYTES)
struct scratch {
	__u8 raw[SAMPLE_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/*
 * A sample with a stack copy (events.h, ev_raw) is put together here, one
 * per CPU (key: the CPU; record/ sizes it), too big for a per-CPU value:
 * the sample from the scratch, then at an offset masked to 4 KiB the
 * ev_raw and the copy (unw_raw_attach; + 4096: a page copied at any masked
 * offset fits).
 */
struct raw_scratch {
	__u8 raw[4096 + sizeof(struct ev_raw) + EV_RAW_STACK_MAX + 4096];
};
_Static_assert(SAMPLE_BYTES <= 4096, "unw_raw_attach masks the offset with 4095");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the possible CPUs, set by record/ */
	__type(key, __u32);
	__type(value, struct raw_scratch);
} raw_scratch SEC(".maps");

/* --off-cpu: target threads off the CPU now, by tid (see ev_offcpu_stack). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct offcpu_start);
} offcpu_start SEC(".maps");

/* --off-cpu: short intervals summed; record/ reads what grew since it last looked. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_sum);
} offcpu_sums SEC(".maps");

/*
 * --off-cpu: stack hashes whose frames record/ already has. LRU: a stack
 * evicted here is sent again when next seen, and record/ dedups it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} offcpu_known SEC(".maps");

/*
 * The cgroup last sent for each tid (note_cgroup). LRU: a thread evicted
 * here has its cgroup sent again with its next sample, and record/ keeps
 * a row only when the cgroup differs from the one it has. So it holds the
 * threads sampled lately (dead ones go first), not every thread: each
 * preallocated entry costs start-up time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} thread_cgroup SEC(".maps");

/* Python interpreters of targets (record/python.c fills it): tgid -> where to walk. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct py_proc);
} py_procs SEC(".maps");

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += 1;	/* per-CPU slot, and a perf_event program does not nest */
}

static __always_inline void stat_add(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += n;
}

/*
 * Whether the tick interrupted user mode. On x86 the low two bits of CS are
 * the privilege level; the verifier allows only 8-byte reads of the context's
 * registers (pt_regs.cs is 16 bits wide next to FRED bits), so the whole
 * slot is read. Elsewhere: unknown, say no and let bpf_get_stack() decide.
 */
static __always_inline bool user_mode_tick(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 slot = *(volatile __u64 *)((void *)&ctx->regs +
					  bpf_core_field_offset(struct pt_regs, cs));

	return slot & 3;
#else
	(void)ctx;
	return false;
#endif
}

#if defined(__TARGET_ARCH_x86)
#include "unwind.bpf.h"
#endif

/*
 * Sends the current thread's cgroup when it is not the one last sent for
 * tid: once per thread, and again when it moves. Without ring-buffer room
 * nothing is noted, so the thread's next sample tries again.
 */
static __always_inline void note_cgroup(__u32 tgid, __u32 tid, __u64 now)
{
	__u64 cg = bpf_get_current_cgroup_id(), *last;
	struct ev_cgroup *e;

	last = bpf_map_lookup_elem(&thread_cgroup, &tid);
	if (last && *last == cg)
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return;
	e->hdr.type = EV_CGROUP;
	e->hdr.flags = 0;
	e->hdr.size = sizeof(*e);
	e->time_ns = now;
	e->cgroup_id = cg;
	e->tgid = tgid;
	e->tid = tid;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	bpf_map_update_elem(&thread_cgroup, &tid, &cg, BPF_ANY);
}

/* One word of the target's memory at addr (0 when unreadable, as a NULL pointer). */
static __always_inline __u64 py_word(__u64 addr, __u32 *bad)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr)) {
		*bad = 1;
		return 0;
	}
	return v;
}

/* A Python walk in progress (bpf_loop callbacks: verified once, not per path). */
struct py_walk_ctx {
	struct ev_sample *s;
	const struct py_proc *pp;
	__u64 ts;		/* thread search: the state looked at; then the frame */
	__u32 tid;
	__u32 at;		/* frame index of the first Python frame */
	__u32 n;		/* frames written */
	__u32 bad;		/* memory could not be read */
	__u32 full;		/* no room left */
	__u32 found;
	__u32 shim;		/* no frame since the last shim (or the start) */
};

static long py_thread_cb(__u32 i, void *data)
{
	struct py_walk_ctx *c = data;

	(void)i;
	if (!c->ts)
		return 1;
	if (py_word(c->ts + c->pp->ts_native_tid, &c->bad) == c->tid) {
		c->found = 1;
		return 1;
	}
	c->ts = py_word(c->ts + c->pp->ts_next, &c->bad);
	return c->bad ? 1 : 0;
}

/* Frame word w at index at + k of the sample (false: no room). */
static __always_inline bool py_put(struct py_walk_ctx *c, __u32 k, __u64 w, bool or_in)
{
	__u64 boff = (__u64)(c->at + k) * sizeof(__u64);

	barrier_var(boff);	/* the check below on the register the store uses */
	if (boff > FRAMES_BYTES - sizeof(__u64))
		return false;
	if (or_in)
		*(__u64 *)((char *)c->s->frames + boff) |= w;
	else
		*(__u64 *)((char *)c->s->frames + boff) = w;
	return true;
}

static long py_frame_cb(__u32 i, void *data)
{
	struct py_walk_ctx *c = data;
	__u64 fr = c->ts, code, instr, base, off, w;
	__u8 entry = 0, owner = 0;

	(void)i;
	if (!fr)
		return 1;
	code = py_word(fr + c->pp->fr_code, &c->bad);
	instr = py_word(fr + c->pp->fr_prev_instr, &c->bad);
	c->ts = py_word(fr + c->pp->fr_previous, &c->bad);
	if (bpf_probe_read_user(&owner, 1, (const void *)(fr + c->pp->fr_owner)) ||
	    (c->pp->fr_is_entry != PY_NO_OFF &&
	     bpf_probe_read_user(&entry, 1, (const void *)(fr + c->pp->fr_is_entry))))
		c->bad = 1;
	if (c->bad)
		return 1;
	if (owner == PY_OWNED_BY_CSTACK) {
		/*
		 * 3.12+: a shim, no code. The frame above it was its call's
		 * first; none (its call is entering or leaving): PY_FRAME_EMPTY.
		 */
		if (c->shim ? !py_put(c, c->n, PY_FRAME_TAG | PY_FRAME_ENTRY, false)
			    : !py_put(c, c->n - 1, PY_FRAME_ENTRY, true)) {
			c->full = 1;
			return 1;
		}
		c->n += c->shim;
		c->shim = 1;
		return 0;
	}
	c->shim = 0;
	base = code + c->pp->co_code_adaptive;
	off = instr >= base ? (instr - base) / 2 : 0;
	if (off > PY_FRAME_INSTR_MASK)
		off = PY_FRAME_INSTR_MASK;
	w = PY_FRAME_TAG | (entry ? PY_FRAME_ENTRY : 0) |
	    ((code >> 3) & PY_FRAME_CODE_MASK) << PY_FRAME_CODE_SHIFT | off;
	if (!py_put(c, c->n, w, false)) {
		c->full = 1;
		return 1;
	}
	c->n++;
	return 0;
}

/*
 * The Python frames of thread tid of a process in py_procs, innermost
 * first, into s->frames from index at (events.h, PY_FRAME_TAG): the
 * thread's state is found by its native thread id among the interpreter's
 * thread states, then its current frame's chain is followed. Returns how
 * many frames were written.
 */
static __always_inline __u32 py_walk(struct ev_sample *s, __u32 tgid, __u32 tid, __u32 at)
{
	const struct py_proc *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	struct py_walk_ctx c = {};

	if (!pp)
		return 0;
	stat_inc(EV_STAT_PY_WALKS);
	c.s = s;
	c.pp = pp;
	c.tid = tid;
	c.at = at;
	c.ts = py_word(pp->runtime + pp->rt_interp_head, &c.bad);
	c.ts = c.ts ? py_word(c.ts + pp->interp_threads_head, &c.bad) : 0;
	bpf_loop(PY_MAX_THREADS, py_thread_cb, &c, 0);
	if (!c.found) {
		stat_inc(c.bad ? EV_STAT_PY_UNREADABLE : EV_STAT_PY_NO_THREAD);
		return 0;
	}
	c.shim = 1;
	c.ts = py_word(c.ts + pp->ts_cframe, &c.bad);
	if (pp->cf_current_frame != PY_NO_OFF)
		c.ts = c.ts ? py_word(c.ts + pp->cf_current_frame, &c.bad) : 0;
	bpf_loop(EV_PY_MAX_FRAMES, py_frame_cb, &c, 0);
	if (c.bad)
		stat_inc(EV_STAT_PY_UNREADABLE);
	else if (c.ts || c.full)
		stat_inc(EV_STAT_PY_DEPTH);
	if (c.n)
		stat_inc(EV_STAT_PY_SAMPLES);
	return c.n;
}

#if defined(__TARGET_ARCH_x86)
/*
 * Sends the sample in sc (size bytes) with the rbytes of ev_raw and stack
 * copy unw_raw_attach() put after it in raw_scratch. False when there is no
 * room: the sample then goes as the walker left it.
 */
static __always_inline bool output_raw(struct scratch *sc, __u64 size, __u64 rbytes, __u64 flags)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct raw_scratch *rs = bpf_map_lookup_elem(&raw_scratch, &cpu);
	struct ev_sample *s;

	if (!rs || size > SAMPLE_BYTES || rbytes > sizeof(struct ev_raw) + EV_RAW_STACK_MAX)
		return false;
	s = (struct ev_sample *)rs->raw;
	if (bpf_probe_read_kernel(rs->raw, size, sc))
		return false;
	s->hdr.flags |= EV_SAMPLE_F_RAW;	/* the Python frames' count kept */
	s->hdr.size = size + rbytes;
	size += rbytes;
	barrier_var(size);
	if (size > sizeof(*rs))
		return false;
	if (!bpf_ringbuf_output(&events, rs, size, flags))
		return true;
	/* no room for the stack copy: counted as not sent */
	stat_add(EV_STAT_RAW_SAMPLES, (__u64)-1);
	stat_add(EV_STAT_RAW_BYTES, sizeof(struct ev_raw) - rbytes);
	stat_inc(EV_STAT_RAW_OVER);
	return false;
}
#endif

#if defined(__TARGET_ARCH_x86)
static long any_vma(struct task_struct *t __attribute__((unused)),
		    struct vm_area_struct *v __attribute__((unused)),
		    void *data __attribute__((unused)))
{
	return 0;
}

/*
 * A tick inside execve past its point of no return: the task has its new
 * memory map, but its user registers are still the old image's, in no
 * mapping of the new one. Its user stack no longer exists. When the
 * lookup cannot be made (-EBUSY: the exec holds the new map's lock while
 * it maps the program), the old stack pointer that reads nowhere says the
 * same; before the switch the old stack is there to read and walk.
 */
static __always_inline bool exec_replaced_mm(bool user_tick)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs *regs;
	__u64 word;
	long r;

	if (user_tick || !bpf_core_field_exists(t->in_execve) || !BPF_CORE_READ_BITFIELD(t, in_execve))
		return false;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs)
		return false;
	r = bpf_find_vma(t, BPF_CORE_READ(regs, ip), any_vma, NULL, 0);
	if (r != -16)	/* -EBUSY */
		return r == -2;	/* -ENOENT: no VMA covers it */
	return bpf_probe_read_user(&word, sizeof(word), (void *)BPF_CORE_READ(regs, sp)) != 0;
}
#else
static __always_inline bool exec_replaced_mm(bool user_tick __attribute__((unused)))
{
	return false;
}
#endif

/* The sample's fixed part: header, time, thread, CPU, comm; no stack yet. */
static __always_inline void sample_head(struct ev_sample *s, __u64 id)
{
	s->hdr.type = EV_SAMPLE;
	s->hdr.flags = 0;
	s->time_ns = bpf_ktime_get_ns();
	s->tgid = id >> 32;
	s->tid = (__u32)id;
	s->cpu = bpf_get_smp_processor_id();
	s->kstack_err = 0;
	s->ustack_err = 0;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
}

/*
 * bpf_get_stack() into buf with flags (BPF_F_USER_STACK: the user half):
 * its bytes, at most STACK_BYTES; a failure's -errno into *err (when err),
 * failures and full buffers counted.
 */
static __always_inline __u64 take_stack(void *ctx, void *buf, __u64 flags, __s32 *err)
{
	bool user = flags & BPF_F_USER_STACK;
	long ret = bpf_get_stack(ctx, buf, STACK_BYTES, flags);
	__u64 bytes = 0;

	if (ret < 0) {
		if (err)
			*err = ret;
		stat_inc(user ? EV_STAT_USTACK_FAIL : EV_STAT_KSTACK_FAIL);
	} else {
		bytes = ret;
	}
	if (bytes > STACK_BYTES)	/* bounds for the verifier */
		bytes = STACK_BYTES;
	if (bytes == STACK_BYTES)
		stat_inc(user ? EV_STAT_USTACK_TRUNC : EV_STAT_KSTACK_TRUNC);
	return bytes;
}

/*
 * The user stack after the kbytes of kernel frames: walked by the table
 * unwinder (*walked set) or by bpf_get_stack(); its bytes, errors counted.
 */
static __always_inline __u64 sample_ustack(struct bpf_perf_event_data *ctx, struct ev_sample *s,
					   __u32 tgid, bool user_tick, __u64 kbytes, bool *walked)
{
	struct task_struct *task;
	__u64 ubytes = 0;

	(void)walked;	/* set by the table unwinder, on x86 only */
	/*
	 * Kernel threads (and the idle task) have no user stack to read, and
	 * neither has a process past exit_mm() (exit_group tearing its memory
	 * down): its registers point into memory that is gone, as perf judges.
	 * The same for a tick in execve once the old memory map is replaced.
	 */
	task = (struct task_struct *)bpf_get_current_task();
	if ((BPF_CORE_READ(task, flags) & PF_KTHREAD) || !tgid || !BPF_CORE_READ(task, mm) ||
	    exec_replaced_mm(user_tick)) {
		/* no user stack */
#if defined(__TARGET_ARCH_x86)
	} else if (unwind_tables) {
		ubytes = unw_walk(ctx, user_tick, kbytes / sizeof(__u64), EV_MAX_UFRAMES) *
			 sizeof(__u64);
		if (ubytes > USTACK_BYTES)
			ubytes = USTACK_BYTES;
		*walked = true;
#endif
	} else {
		ubytes = take_stack(ctx, (void *)s->frames + kbytes, BPF_F_USER_STACK,
				    &s->ustack_err);
	}
	return ubytes;
}

/*
 * -- CMD: until its exec, the command is the recorder's child waiting at
 * its gate or on its way to the exec (record/target.c): eprof's start-up,
 * not the program's ticks or waits. A fork starts with its parent's exec
 * id (parent_exec_id), and its exec moves its own past it. The command's
 * threads share its parent and exec ids, so they pass once it has exec'd.
 */
static __always_inline bool before_exec(struct task_struct *t)
{
	return gate_parent && (__u32)BPF_CORE_READ(t, real_parent, tgid) == gate_parent &&
	       BPF_CORE_READ(t, self_exec_id) == BPF_CORE_READ(t, parent_exec_id);
}

SEC("perf_event")
int on_cpu_clock(struct bpf_perf_event_data *ctx)
{
	struct ev_sample *s;
	struct scratch *sc;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0;
	__u64 kbytes, ubytes, rbytes = 0, size, flags;
	__u32 npy;
	bool user_tick = user_mode_tick(ctx), walked = false;
	__u64 *ticks_word;

	/* per-CPU slot; perf_event programs do not nest: one plain store */
	ticks_word = bpf_map_lookup_elem(&ticks, &zero);
	if ((filter_tgids && !bpf_map_lookup_elem(&targets, &tgid)) ||
	    before_exec((struct task_struct *)bpf_get_current_task())) {
		if (ticks_word)
			*ticks_word += TICK_FIRED;
		return 0;
	}
	if (ticks_word)
		*ticks_word += TICK_FIRED | TICK_KEPT;
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	s = (struct ev_sample *)sc->raw;
	stat_inc(EV_STAT_SAMPLES);

	sample_head(s, id);
	/* An interrupted user-mode tick has no kernel frames: bpf_get_stack() would return 0. */
	kbytes = user_tick ? 0 : take_stack(ctx, s->frames, 0, &s->kstack_err);
	ubytes = sample_ustack(ctx, s, tgid, user_tick, kbytes, &walked);
	s->nr_kframes = kbytes / sizeof(__u64);
	s->nr_uframes = ubytes / sizeof(__u64);

	size = sizeof(*s) + kbytes + ubytes;
	/*
	 * The Python frames follow the user frames, whether or not a stack
	 * copy follows them: record/ finishes the native frames from the copy
	 * and keeps the Python frames (they name the interpreter's memory now,
	 * which no copy of the stack holds).
	 */
	if (s->nr_uframes) {
		npy = py_walk(s, tgid, s->tid, s->nr_kframes + s->nr_uframes);
		if (npy > EV_PY_MAX_FRAMES)
			npy = EV_PY_MAX_FRAMES;
		s->hdr.flags = npy << EV_SAMPLE_PY_SHIFT;
		size += npy * sizeof(__u64);
	}
#if defined(__TARGET_ARCH_x86)
	if (walked && raw_budget_bytes && size <= SAMPLE_BYTES)
		rbytes = unw_raw_attach(size);
	if (rbytes > sizeof(struct ev_raw) + EV_RAW_STACK_MAX)
		rbytes = 0;
#endif
	barrier_var(size);	/* keep the bound check on the register that is passed */
	if (size > sizeof(*sc))
		return 0;
	s->hdr.size = size;
	note_cgroup(tgid, s->tid, s->time_ns);

	flags = BPF_RB_NO_WAKEUP;	/* user space polls every 100 ms anyway */
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	if (rbytes && output_raw(sc, size, rbytes, flags))
		return 0;
	if (!bpf_ringbuf_output(&events, sc, size, flags))
		return 0;
	stat_inc(EV_STAT_RINGBUF_FULL);
	return 0;
}

#if defined(__TARGET_ARCH_x86)
/* A target mapped something at ret: if it is code, cache it for the walker. */
static __always_inline void mmap_done(unsigned long ret)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (ret >= (unsigned long)-4095)
		return;
	if (filter_tgids && !bpf_map_lookup_elem(&targets, &tgid))
		return;
	unw_learn(ret);
}

/*
 * Two ways to see mmap return: fexit needs BPF trampolines, a kretprobe
 * needs CONFIG_KPROBES. The recorder loads the first this kernel allows.
 */
SEC("fexit/vm_mmap_pgoff")
int BPF_PROG(on_mmap_exit, struct file *file, unsigned long addr, unsigned long len,
	     unsigned long prot, unsigned long flag, unsigned long pgoff, unsigned long ret)
{
	(void)ctx;
	(void)file;
	(void)addr;
	(void)len;
	(void)prot;
	(void)flag;
	(void)pgoff;
	mmap_done(ret);
	return 0;
}

SEC("kretprobe/vm_mmap_pgoff")
int BPF_KRETPROBE(on_mmap, unsigned long ret)
{
	(void)ctx;
	mmap_done(ret);
	return 0;
}

/*
 * A target exec'd: cache its executable's text, and the dynamic loader's
 * (the new program starts there: its entry is in the user registers now).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct pt_regs *regs;

	(void)ctx;
	(void)old_pid;
	(void)bprm;
	if (filter_tgids && !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	unw_learn(BPF_CORE_READ(p, mm, start_code));
	regs = (struct pt_regs *)bpf_task_pt_regs(p);
	if (regs)
		unw_learn(BPF_CORE_READ(regs, ip));
	return 0;
}
#endif

/* --- off-CPU (record --off-cpu) ----------------------------------------- */

#define TASK_RUNNING		0x0000	/* include/linux/sched.h */
#define OFFCPU_SKIP_FRAMES	2	/* BPF_F_SKIP_FIELD_MASK: the tracing frames */
#define TASK_DEAD		0x0080	/* its last switch: it will not run again */

static __always_inline __u64 mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* The leaving task's user stack after its kbytes of kernel frames: its bytes, errors counted. */
static __always_inline __u64 offcpu_ustack(void *ctx, struct ev_offcpu_stack *st,
					   struct task_struct *prev, __u32 tgid, __u64 kbytes)
{
	__u64 ubytes = 0;

	if ((BPF_CORE_READ(prev, flags) & PF_KTHREAD) || !tgid) {
		/* no user stack */
#if defined(__TARGET_ARCH_x86)
	} else if (unwind_tables) {
		/*
		 * The leaving task is current and in the kernel: not a user
		 * tick, so the walker starts from its registers saved at kernel
		 * entry (bpf_task_pt_regs) and never reads ctx.
		 */
		ubytes = unw_walk(NULL, false, kbytes / sizeof(__u64), EV_MAX_FRAMES) *
			 sizeof(__u64);
		if (ubytes > STACK_BYTES)
			ubytes = STACK_BYTES;
#endif
	} else {
		ubytes = take_stack(ctx, (void *)st->frames + kbytes, BPF_F_USER_STACK, NULL);
	}
	return ubytes;
}

/* The hash of st's frames and its process; never 0 ("no stack"). */
static __always_inline __u64 offcpu_stack_hash(const struct ev_offcpu_stack *st, __u32 tgid)
{
	__u64 hash;
	__u32 i, n;

	/*
	 * The process is part of the hash: the same addresses in two
	 * processes may be different code. A plain bounded loop over the
	 * scratch (no callback, no lookup per frame): about 0.3 us cheaper
	 * per switch than bpf_loop() here.
	 */
	n = st->nr_kframes + st->nr_uframes;
	hash = mix64((__u64)tgid << 32 | (__u64)st->nr_kframes << 16 | st->nr_uframes);
	for (i = 0; i < 2 * EV_MAX_FRAMES && i < n; i++)
		hash = mix64(hash ^ st->frames[i]) + i;
	if (!hash)
		hash = 1;	/* 0 means "no stack" */
	return hash;
}

/*
 * Takes the current (leaving) task's stacks into the scratch record, sends
 * them unless record/ has them, and returns their hash (0: none taken).
 */
static __always_inline __u64 offcpu_take_stack(void *ctx, struct task_struct *prev, __u32 tgid,
					       __u64 now)
{
	struct ev_offcpu_stack *st;
	struct scratch *sc;
	__u64 kbytes = 0, ubytes, size, hash;
	__u32 zero = 0;
	__u8 one = 1;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	st = (struct ev_offcpu_stack *)sc->raw;
	/*
	 * The innermost two frames are this program and bpf_trace_run4(): the
	 * stack starts at __schedule(), where the thread stops (t1201 checks).
	 */
	kbytes = take_stack(ctx, st->frames, OFFCPU_SKIP_FRAMES, NULL);
	ubytes = offcpu_ustack(ctx, st, prev, tgid, kbytes);
	st->nr_kframes = kbytes / sizeof(__u64);
	st->nr_uframes = ubytes / sizeof(__u64);
	hash = offcpu_stack_hash(st, tgid);
	if (bpf_map_lookup_elem(&offcpu_known, &hash))
		return hash;

	st->hdr.type = EV_OFFCPU_STACK;
	st->hdr.flags = 0;
	st->hash = hash;
	st->time_ns = now;
	st->tgid = tgid;
	st->tid = BPF_CORE_READ(prev, pid);
	st->cpu = bpf_get_smp_processor_id();
	BPF_CORE_READ_STR_INTO(&st->comm, prev, comm);
	size = sizeof(*st) + kbytes + ubytes;
	barrier_var(size);
	if (size > sizeof(*sc))
		return hash;
	st->hdr.size = size;
	if (bpf_ringbuf_output(&events, sc, size, 0))
		stat_inc(EV_STAT_OFFCPU_STACK_LOST);	/* sent again next time */
	else
		bpf_map_update_elem(&offcpu_known, &hash, &one, BPF_ANY);
	return hash;
}

/* A piece [from, to) of a target thread's time off the CPU: an event if long, else a sum. */
static __always_inline void offcpu_piece(const struct offcpu_start *start, __u32 tid, __u64 from,
					 __u64 to, __u32 state)
{
	struct offcpu_key key = {};
	struct offcpu_sum zero = {}, *sum;
	struct ev_offcpu *e;
	__u64 dur = to > from ? to - from : 0;

	stat_inc(EV_STAT_OFFCPU_INTERVALS);
	if (dur >= offcpu_thresh_ns) {
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			e->hdr.type = EV_OFFCPU;
			e->hdr.flags = 0;
			e->hdr.size = sizeof(*e);
			e->start_ns = from;
			e->duration_ns = dur;
			e->stack_hash = start->stack_hash;
			e->tgid = start->tgid;
			e->tid = tid;
			e->cpu = start->cpu;
			e->state = state;
			bpf_ringbuf_submit(e, 0);
			stat_inc(EV_STAT_OFFCPU_EVENTS);
			return;
		}
		/* no room: the sum keeps its time exact, only its place in time is lost */
	}
	key.stack_hash = start->stack_hash;
	key.tgid = start->tgid;
	key.tid = tid;
	key.state = state;
	key.cpu = start->cpu;
	sum = bpf_map_lookup_elem(&offcpu_sums, &key);
	if (!sum) {
		bpf_map_update_elem(&offcpu_sums, &key, &zero, BPF_NOEXIST);
		sum = bpf_map_lookup_elem(&offcpu_sums, &key);
	}
	if (!sum) {
		stat_inc(EV_STAT_OFFCPU_LOST);
		stat_add(EV_STAT_OFFCPU_LOST_NS, dur);
		return;
	}
	__sync_fetch_and_add(&sum->count, 1);
	__sync_fetch_and_add(&sum->total_ns, dur);
	stat_inc(EV_STAT_OFFCPU_SUMMED);
}

/*
 * A target thread ran again after start. A blocked one that was woken
 * (on_wakeup) waited for a CPU from then: two pieces, blocked until the
 * wake-up and runnable after it, so that wake-up latency reads as
 * runnable, not as more of the wait. Both keep the stack it left with.
 */
static __always_inline void offcpu_end(const struct offcpu_start *start, __u32 tid, __u64 now)
{
	__u64 wake = start->wake_ns;

	if (start->state == EV_OFFCPU_BLOCKED && wake > start->start_ns && wake < now) {
		offcpu_piece(start, tid, start->start_ns, wake, EV_OFFCPU_BLOCKED);
		offcpu_piece(start, tid, wake, now, EV_OFFCPU_RUNNABLE);
	} else {
		offcpu_piece(start, tid, start->start_ns, now, start->state);
	}
}

/*
 * Runs in the scheduler with interrupts off, on the CPU being switched, so
 * it never interleaves with on_cpu_clock there and may use its scratch.
 * current is still prev.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct offcpu_start *open, start = {};
	__u32 ptgid = prev->tgid, ptid = prev->pid, ntid = next->pid;
	__u64 now = bpf_ktime_get_ns();

	/* Only targets have starts: a miss is the common, cheap case. */
	if (ntid) {
		open = bpf_map_lookup_elem(&offcpu_start, &ntid);
		if (open) {
			start = *open;
			bpf_map_delete_elem(&offcpu_start, &ntid);
			offcpu_end(&start, ntid, now);
		}
	}
	if (!ptid || (prev_state & TASK_DEAD))
		return 0;	/* the idle task, or a thread that will not run again */
	if (filter_tgids && !bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	if (before_exec(prev))
		return 0;	/* the recorder's child at its gate */
	note_cgroup(ptgid, ptid, now);
	start.start_ns = now;
	start.tgid = ptgid;
	start.cpu = bpf_get_smp_processor_id();
	start.state = preempt || prev_state == TASK_RUNNING ? EV_OFFCPU_RUNNABLE
							    : EV_OFFCPU_BLOCKED;
	start.pad = 0;
	start.wake_ns = 0;	/* start may hold next's copy */
	start.stack_hash = offcpu_take_stack(ctx, prev, ptgid, now);
	if (bpf_map_update_elem(&offcpu_start, &ptid, &start, BPF_ANY))
		stat_inc(EV_STAT_OFFCPU_UNTRACKED);
	return 0;
}

/*
 * --off-cpu: a thread made runnable. A blocked target notes when: from
 * then on it waits for a CPU (offcpu_end). The wake-up of a thread comes
 * after its switch out has run (the waker waits for it to be off its CPU),
 * and before its switch in.
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	struct offcpu_start *open;
	__u32 tid = p->pid;

	(void)ctx;
	if (!tid)
		return 0;
	open = bpf_map_lookup_elem(&offcpu_start, &tid);
	if (open && open->state == EV_OFFCPU_BLOCKED && !open->wake_ns)
		open->wake_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	(void)ctx;
	if (!follow_forks || ptgid == ctgid)
		return 0;
	if (bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_NOEXIST);
	return 0;
}
