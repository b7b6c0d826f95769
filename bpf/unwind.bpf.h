/* SPDX-License-Identifier: MIT */
/*
 * bpf/unwind.bpf.h - the user-stack walker of `record --call-graph dwarf`,
 * included once by sampler.bpf.c (after its scratch map and stat helpers).
 *
 * It follows the unwind tables record/ builds from each binary's CFI
 * (bpf/unwind.h, elf/cfi.c), one bpf_loop() iteration per frame so that
 * the verifier sees one small body instead of 127 copies, and that body a
 * global function (unw_step_frame), checked once on its own: as a static
 * one it was checked for every state the loop reached it in, 0.2 s of a
 * `record -- CMD`'s start (issue 11 asks for 0.3 s in all):
 *   - the PC's mapping comes from a per-process cache of mappings, filled
 *     by bpf_find_vma(). In the timer interrupt a program can make only
 *     one such call that succeeds (the mmap lock is released from an
 *     irq_work that stays queued until the interrupt ends), so each sample
 *     learns at most one new mapping and the cache keeps it for the next
 *     ones (the open-coded VMA iterator that could take them all at once
 *     refuses to run with interrupts off). Executable mappings are also
 *     learned when they are made (fexit or a kretprobe on vm_mmap_pgoff,
 *     where the kernel allows either, and the executable and the dynamic
 *     loader at exec), where any number of lookups work, so a process that
 *     lives 20 ms has its code cached before its first tick. A cached mapping is checked
 *     against its vm_area_struct before use, so an unmapped or changed
 *     mapping is never trusted; the check is skipped while the mm's
 *     mmap-lock sequence count says no mapping changed since the last one.
 *     An exec (a new mm) empties the process's cache. Its file (device,
 *     inode, ctime) is the key of the binary's table, shared by every
 *     process that maps the file;
 *   - the row is found by binary search at the file offset of the PC
 *     itself for the first frame and after a signal frame, and of PC - 1
 *     for return addresses (a call may be a function's last instruction,
 *     and this gives frameless leaves and prologues the right row). Rows
 *     found are kept in a per-CPU cache (unw_row_cache): most lookups are
 *     return addresses seen many times before;
 *   - CFA from rsp, rbp or rbx; return address at CFA - 8; rbp and rbx
 *     unchanged or saved at CFA + n; the caller's rsp is the CFA. PLT stubs, signal
 *     trampolines and the outermost frame have their own row types.
 *   - the words a frame needs are read from a copy of the stack taken 512
 *     bytes at a time (unw_blk_fill): a bpf_probe_read_user() costs about
 *     80 ns on the machines measured whatever its size, mostly the call,
 *     and a copy usually serves several frames, as stacks are walked
 *     upward (bench/RESULTS.md, "The walker's cost, third pass");
 *   - the vDSO has no file; its mapping gets the key events.h describes,
 *     under which record/ loads the table of its own vDSO image.
 * Where there is no row (anonymous or JIT code, a table not built yet, a
 * gap in the CFI, a rule the walker cannot follow) it takes one
 * frame-pointer step and counts why. A file mapping without a table is
 * reported in `unw_missing` for record/ to build one.
 *
 * Tables live in `unw_tables`, a hash of per-binary arrays sized to fit
 * (BPF_F_INNER_MAP); row 0 of each holds the number of rows after it, so
 * no size is a constant the verifier must unroll against.
 */
#ifndef EPROF_BPF_UNWIND_BPF_H
#define EPROF_BPF_UNWIND_BPF_H

#include "unwind.h"

#define UNW_SEARCH_STEPS	23	/* binary search over up to 8M rows */
#define UNW_PAGE_SHIFT		12
#define UNW_FB_NONE		0xff
#define UNW_VM_EXEC		0x4	/* include/linux/mm.h VM_EXEC */
#define UNW_BLK_BYTES		512	/* user stack copied per read (a power of two) */

struct unw_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, UNW_TABLE_MAP_FLAGS);	/* tables differ in size; mappable */
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct unw_row));	/* only a pointer would reach its BTF */
};

/* File key -> its binary's table (one inner map per build-id, shared). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 16384);
	__type(key, struct unw_key);
	__array(values, struct unw_inner);
} unw_tables SEC(".maps");

/* File mappings walked without a table; record/ builds and deletes. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct unw_key);
	__type(value, struct unw_miss);
} unw_missing SEC(".maps");

/* Windows of partial tables that walks met before their rows were in. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct unw_window);
	__type(value, __u8);
} unw_absent SEC(".maps");

/* Per binary: where walks ended and where they first left the tables. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct unw_key);
	__type(value, struct unw_bin_stats);
} unw_bins SEC(".maps");

#define UNW_VMA_CACHE		16	/* mappings cached per process */
_Static_assert(UNW_VMA_CACHE == EV_RAW_VMAS, "ev_raw carries the whole cache");
#define UNW_SEQ_UNKNOWN		1	/* odd: a writer holds the lock, or no seqcount */

/* A mapping as the walker keeps it. */
struct unw_vma {
	__u64 start, end, pgoff;
	__u64 vma;			/* the vm_area_struct, to check it still holds */
	__u64 file;
	__u64 flags;			/* vm_flags */
	struct unw_key key;		/* its file (zero: anonymous) */
};

struct unw_vma_cache {
	__u64 mm;			/* the mm they belong to: an exec makes a new one */
	__u32 next;			/* the entry to replace next */
	__u32 seq;			/* mm's mmap-lock sequence when `valid` was true */
	__u32 valid;			/* entries known to be live at seq (bits) */
	__u32 pad;
	struct unw_vma e[UNW_VMA_CACHE];
};

static struct unw_vma_cache unw_empty_cache;

/*
 * tgid -> the mappings its stacks went through lately. 4096 processes of
 * 1 KiB each (preallocated): the least recently sampled make room.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct unw_vma_cache);
} unw_vmas SEC(".maps");

/* struct inode before Linux 6.11 (ctime as a timespec64), for CO-RE. */
struct inode___v66 {
	struct timespec64 __i_ctime;
} __attribute__((preserve_access_index));

struct inode___v65 {
	struct timespec64 i_ctime;
} __attribute__((preserve_access_index));

struct unw_state {
	__u64 pc, sp, bp, bx;		/* registers of the frame being unwound */
	__u64 di;			/* the interrupted frame's rdi (UNW_CFA_RA_RDI) */
	struct unw_vma cur;		/* the current mapping */
	__u64 mm;
	struct unw_key fb_key;		/* binary of the first frame-pointer step */
	__u32 base;			/* frames[] index of the first user frame */
	__u32 n;			/* user frames stored */
	__u32 max;			/* at most this many (EV_MAX_UFRAMES at most) */
	__u32 table_frames, fp_frames;
	__u8 exact;			/* look the PC up as is, not PC - 1 */
	__u8 have_vma;
	__u8 stop;			/* enum unw_stop */
	__u8 fb;			/* enum unw_fb of the first FP step, or UNW_FB_NONE */
	__u8 find_used;			/* bpf_find_vma() was called in this sample */
	__u8 find_later;		/* a mapping was left unknown: only one call a sample */
	__u8 row_ok;			/* row holds for [row_lo, row_hi) of cur */
	__u8 have_seq;			/* seq was read in this sample */
	__u8 bx_ok;			/* bx is known (a frame-pointer step loses it) */
	__u16 checked;			/* cache entries checked in this sample (bits) */
	__u32 seq;			/* the mm's mmap-lock sequence (unw_mm_seq) */
	__u32 hit;			/* unw_find_vma's cache entry */
	struct unw_row row;		/* the last row found: recursion repeats it */
	__u64 row_lo, row_hi;
	__u64 blk_lo, blk_len;		/* user stack copied into blk: [blk_lo, + blk_len) */
	/* the registers at the first "no table yet" step (events.h, ev_raw) */
	__u64 raw_pc, raw_sp, raw_bp, raw_bx;
	__u16 raw_frame;		/* its user frame index */
	__u8 raw_have, raw_exact, raw_bx_ok;
	/* from here on not cleared per walk (blk_len says what holds) */
	__u8 blk[UNW_BLK_BYTES + 8];	/* + 8: a word read at any masked offset fits */
};

/*
 * The walk's state lives in a map, not on the stack: the verifier then
 * sees the same (unknown) values in every bpf_loop() iteration and
 * verifies the body once, instead of once per frame count.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_state);
} unw_states SEC(".maps");

/*
 * Rows found lately, per CPU: a direct-mapped cache keyed by the binary and
 * the offset looked up. A profile keeps coming back to the same return
 * addresses, and a hit costs one inlined array lookup instead of the table
 * lookup and a binary search of helper calls (an inner map's lookups are
 * not inlined). A table's rows depend only on its file (the key), so an
 * entry stays right when the table is evicted or rebuilt.
 */
#define UNW_ROW_CACHE_BITS	11

struct unw_row_hit {
	struct unw_key key;
	__u64 lo, hi;			/* the offsets the row covers */
	struct unw_row row;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1 << UNW_ROW_CACHE_BITS);
	__type(key, __u32);
	__type(value, struct unw_row_hit);
} unw_row_cache SEC(".maps");


static __always_inline __u64 unw_inode_ctime(struct inode *ino)
{
	struct inode___v66 *i66 = (void *)ino;
	struct inode___v65 *i65 = (void *)ino;
	__u64 sec, nsec;

	if (bpf_core_field_exists(ino->i_ctime_sec)) {
		sec = BPF_CORE_READ(ino, i_ctime_sec);
		/* 6.13+: bit 31 flags a queried multigrain ctime, not time */
		nsec = BPF_CORE_READ(ino, i_ctime_nsec) & 0x3fffffff;
	} else if (bpf_core_field_exists(i66->__i_ctime)) {
		sec = BPF_CORE_READ(i66, __i_ctime.tv_sec);
		nsec = BPF_CORE_READ(i66, __i_ctime.tv_nsec);
	} else {
		sec = BPF_CORE_READ(i65, i_ctime.tv_sec);
		nsec = BPF_CORE_READ(i65, i_ctime.tv_nsec);
	}
	return sec * 1000000000ull + nsec;
}

static long unw_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct unw_vma *st = data;
	struct inode *ino;
	struct file *f;

	(void)task;
	st->vma = (__u64)vma;
	st->start = BPF_CORE_READ(vma, vm_start);
	st->end = BPF_CORE_READ(vma, vm_end);
	st->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	st->flags = BPF_CORE_READ(vma, vm_flags);
	__builtin_memset(&st->key, 0, sizeof(st->key));
	f = BPF_CORE_READ(vma, vm_file);
	st->file = (__u64)f;
	if (!f) {
		if (st->start == (__u64)BPF_CORE_READ(vma, vm_mm, context.vdso)) {
			st->key.ino = UNW_VDSO_INO;	/* events.h: the vDSO's key */
			st->key.ctime_ns = st->end - st->start;
		}
		return 0;
	}
	ino = BPF_CORE_READ(f, f_inode);
	if (!ino)
		return 0;
	st->key.dev = BPF_CORE_READ(ino, i_sb, s_dev);
	st->key.ino = BPF_CORE_READ(ino, i_ino);
	st->key.ctime_ns = unw_inode_ctime(ino);
	return 0;
}

/*
 * The mm's mmap-lock sequence count: odd while a writer holds the lock,
 * bumped again when it lets go (6.12+, CONFIG_PER_VMA_LOCK). While it stays
 * the same even number no mapping was changed, so a cache entry checked
 * under it needs no new check. UNW_SEQ_UNKNOWN where the kernel has none.
 */
static __always_inline __u32 unw_mm_seq(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!bpf_core_field_exists(task->mm->mm_lock_seq.sequence))
		return UNW_SEQ_UNKNOWN;
	return task->mm->mm_lock_seq.sequence;	/* a direct load (BTF pointers) */
}

/*
 * Whether the cached e still describes a live mapping (see the file
 * comment). Two reads: vm_start/vm_end and vm_pgoff/vm_file are neighbours
 * (checked with CO-RE; otherwise four reads).
 */
static __always_inline bool unw_vma_valid(const struct unw_vma *e)
{
	struct vm_area_struct *vma = (void *)e->vma;
	__u64 a[2], b[2];

	if (bpf_core_field_offset(struct vm_area_struct, vm_end) !=
		    bpf_core_field_offset(struct vm_area_struct, vm_start) + 8 ||
	    bpf_core_field_offset(struct vm_area_struct, vm_file) !=
		    bpf_core_field_offset(struct vm_area_struct, vm_pgoff) + 8)
		return BPF_CORE_READ(vma, vm_start) == e->start &&
		       BPF_CORE_READ(vma, vm_end) == e->end &&
		       BPF_CORE_READ(vma, vm_pgoff) == e->pgoff &&
		       (__u64)BPF_CORE_READ(vma, vm_file) == e->file;
	if (bpf_probe_read_kernel(a, sizeof(a), (void *)vma +
				  bpf_core_field_offset(struct vm_area_struct, vm_start)) ||
	    bpf_probe_read_kernel(b, sizeof(b), (void *)vma +
				  bpf_core_field_offset(struct vm_area_struct, vm_pgoff)))
		return false;
	return a[0] == e->start && a[1] == e->end && b[0] == e->pgoff && b[1] == e->file;
}

/* An empty cache of mappings of mm for tgid, or NULL when the map is full. */
static __always_inline struct unw_vma_cache *unw_cache_new(__u32 tgid, __u64 mm)
{
	struct unw_vma_cache *c;

	/* too big for the stack: an all-zero one from .bss */
	bpf_map_update_elem(&unw_vmas, &tgid, &unw_empty_cache, BPF_ANY);
	c = bpf_map_lookup_elem(&unw_vmas, &tgid);
	if (c)
		c->mm = mm;
	return c;
}

/* Keeps f in tgid's cache of mappings of mm, replacing the oldest entry. */
static __always_inline void unw_cache_put(__u32 tgid, __u64 mm, struct unw_vma_cache *c,
					  const struct unw_vma *f)
{
	__u32 slot;

	if (!c || c->mm != mm) {
		c = unw_cache_new(tgid, mm);
		if (!c)
			return;
	}
	slot = c->next++ % UNW_VMA_CACHE;
	c->e[slot] = *f;
	c->valid &= ~(1u << slot);	/* found under the lock, but seq may be older */
}

/*
 * Makes the mapping holding pc current: from the cache, else through
 * bpf_find_vma(). A subprogram of its own, and a loop without early exits,
 * so that the verifier sees few distinct states leave it.
 */
static __noinline bool unw_find_vma(struct unw_state *st, __u64 pc)
{
	struct unw_vma_cache *c;
	struct unw_vma f = {};
	struct unw_vma *e;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, ptgid, hit, i;
	long err;

	c = bpf_map_lookup_elem(&unw_vmas, &tgid);
	if (!c || c->mm != st->mm) {
		/*
		 * An exec (start over: unw_cache_put), or a new process. One
		 * that shares its parent's memory (vfork, CLONE_VM) walks with
		 * the parent's mappings: bpf_find_vma() serves one a sample.
		 */
		ptgid = BPF_CORE_READ(bpf_get_current_task_btf(), real_parent, tgid);
		c = bpf_map_lookup_elem(&unw_vmas, &ptgid);
		if (c && c->mm != st->mm)
			c = NULL;
	}
	if (c) {
		/*
		 * The match goes through st, not a register: a register would
		 * hold a different constant on each path out of the loop, and
		 * the verifier would check the rest once per value (the whole
		 * program's verification: 50 ms instead of 13).
		 */
		st->hit = UNW_VMA_CACHE;
		for (i = 0; i < UNW_VMA_CACHE; i++)
			if (pc >= c->e[i].start && pc < c->e[i].end)
				st->hit = i;
		hit = *(volatile __u32 *)&st->hit;
		if (hit < UNW_VMA_CACHE) {
			e = &c->e[hit];
			if (!st->have_seq) {
				st->seq = unw_mm_seq();
				st->have_seq = 1;
			}
			if (c->seq != st->seq || (st->seq & 1)) {
				c->seq = st->seq;	/* mappings may have changed: check again */
				c->valid = 0;
			}
			/* a walk often comes back to a mapping: check it once */
			if ((st->checked & (1u << hit)) || (c->valid & (1u << hit)) ||
			    unw_vma_valid(e)) {
				st->checked |= 1u << hit;
				c->valid |= 1u << hit;
				st->cur = *e;
				return true;
			}
			e->start = e->end = 0;
		}
	}
	if (st->find_used) {
		st->find_later = 1;
		return false;
	}
	st->find_used = 1;
	err = bpf_find_vma(bpf_get_current_task_btf(), pc, unw_vma_cb, &f, 0);
	if (err) {
		/*
		 * -ENOENT: nothing is mapped there. Anything else (-EBUSY:
		 * the mmap lock or this CPU's deferred unlock was taken, as
		 * around an exec's migration) says nothing of pc: the stack
		 * copy lets record/ finish the walk, where a frame-pointer
		 * step would guess through code built without them.
		 */
		if (err != -2)	/* -ENOENT */
			st->find_later = 1;
		return false;
	}
	st->cur = f;
	unw_cache_put(tgid, st->mm, c, &f);
	return true;
}

/* Caches the mapping at addr of the current process (process context only). */
static __always_inline void unw_learn(__u64 addr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 mm = (__u64)BPF_CORE_READ(task, mm);
	struct unw_vma f = {};

	if (!mm || bpf_find_vma(task, addr, unw_vma_cb, &f, 0) || !f.file ||
	    !(f.flags & UNW_VM_EXEC))
		return;
	unw_cache_put(tgid, mm, bpf_map_lookup_elem(&unw_vmas, &tgid), &f);
}

/*
 * The row covering file offset off in tbl, and the offsets it covers in
 * *lo_off and *hi_off; false when none applies.
 */
static __always_inline bool unw_find_row(void *tbl, __u64 off, struct unw_row *out,
					 __u64 *lo_off, __u64 *hi_off)
{
	struct unw_row *r;
	__u32 zero = 0, lo = 1, hi, last, mid, found = 0;
	__u64 end = 0x100000000ull;
	int i;

	r = bpf_map_lookup_elem(tbl, &zero);
	if (!r || off > 0xffffffffull)
		return false;
	hi = r->off;		/* row 0: the number of rows after it */
	if (r->cfa_type == UNW_CFA_WINDOWED) {
		/* a partial table: the rows of off's window, if it is in */
		__u32 w = (__u32)(off >> UNW_WINDOW_SHIFT), slot = w + 1;
		__u64 v;

		if (w >= hi)
			return false;
		r = bpf_map_lookup_elem(tbl, &slot);
		if (!r)
			return false;
		v = *(volatile __u64 *)r;	/* the slot in one load (unwind.h) */
		*lo_off = (__u64)w << UNW_WINDOW_SHIFT;
		end = *lo_off + (1ull << UNW_WINDOW_SHIFT);
		if (!(v >> 32)) {
			__builtin_memset(out, 0, sizeof(*out));
			out->cfa_type = UNW_CFA_ABSENT;
			*hi_off = end;
			return true;
		}
		lo = (__u32)v;
		hi = lo + (__u32)(v >> 32) - 1;
	}
	last = hi;
	for (i = 0; i < UNW_SEARCH_STEPS && lo <= hi; i++) {
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(tbl, &mid);
		if (!r)
			return false;
		if (r->off <= off) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (!found)
		return false;
	r = bpf_map_lookup_elem(tbl, &found);
	if (!r)
		return false;
	*out = *r;
	*lo_off = r->off;
	found++;
	/* the next row bounds it; past the last one, the window's end (or none) */
	r = found <= last ? bpf_map_lookup_elem(tbl, &found) : NULL;
	*hi_off = r && r->off > *lo_off ? r->off : end;
	return true;
}

/*
 * The row for file offset off of the current mapping's binary, from the
 * per-CPU cache or its table; UNW_FB_NONE, or why there is none.
 */
static __always_inline __u8 unw_lookup_row(struct unw_state *st, __u64 off, struct unw_row *out)
{
	struct unw_row_hit *h;
	struct unw_miss miss;
	void *tbl;
	__u64 lo_off, hi_off;
	__u32 slot;

	slot = (__u32)(((off << 20) ^ st->cur.key.ino ^ (st->cur.key.ino >> 31)) *
		       0x9e3779b97f4a7c15ull >> (64 - UNW_ROW_CACHE_BITS));
	h = bpf_map_lookup_elem(&unw_row_cache, &slot);
	if (h && h->key.ino == st->cur.key.ino && h->key.dev == st->cur.key.dev &&
	    h->key.ctime_ns == st->cur.key.ctime_ns && off >= h->lo && off < h->hi) {
		*out = h->row;
		lo_off = h->lo;
		hi_off = h->hi;
	} else {
		tbl = bpf_map_lookup_elem(&unw_tables, &st->cur.key);
		if (!tbl) {
			miss.tgid = bpf_get_current_pid_tgid() >> 32;
			miss.pad = 0;
			miss.start = st->cur.start;
			miss.end = st->cur.end;
			miss.pgoff = st->cur.pgoff;
			bpf_map_update_elem(&unw_missing, &st->cur.key, &miss, BPF_NOEXIST);
			return UNW_FB_NO_TABLE;
		}
		if (!unw_find_row(tbl, off, out, &lo_off, &hi_off))
			return UNW_FB_NO_CFI;
		if (out->cfa_type == UNW_CFA_ABSENT) {
			/* never cached: the rows replace it once record/ loads them */
			struct unw_window w;
			__u8 one = 1;

			__builtin_memset(&w, 0, sizeof(w));
			w.key = st->cur.key;
			w.window = (__u32)(off >> UNW_WINDOW_SHIFT);
			bpf_map_update_elem(&unw_absent, &w, &one, BPF_NOEXIST);
			return UNW_FB_NO_TABLE;
		}
		if (h) {
			h->key = st->cur.key;
			h->lo = lo_off;
			h->hi = hi_off;
			h->row = *out;
		}
	}
	st->row = *out;
	st->row_lo = lo_off;
	st->row_hi = hi_off;
	st->row_ok = 1;
	return UNW_FB_NONE;
}

/*
 * Copies the user stack from addr upward into st->blk: UNW_BLK_BYTES, or up
 * to the end of addr's page where the stack ends sooner (the top of the
 * stack). One bpf_probe_read_user() costs about as much for 512 bytes as
 * for 16 here (~80 ns, mostly the call), and a block serves several frames.
 */
static __always_inline void unw_blk_fill(struct unw_state *st, __u64 addr)
{
	__u64 len = UNW_BLK_BYTES;

	st->blk_len = 0;
	if (bpf_probe_read_user(st->blk, UNW_BLK_BYTES, (void *)addr)) {
		len = 4096 - (addr & 4095);
		if (len > UNW_BLK_BYTES)
			len = UNW_BLK_BYTES;
		if (len < 8 || bpf_probe_read_user(st->blk, len, (void *)addr))
			return;
	}
	st->blk_lo = addr;
	st->blk_len = len;
}

/* The user word at addr into *v from the block; false when the block does not hold it. */
static __always_inline bool unw_blk_word(const struct unw_state *st, __u64 addr, __u64 *v)
{
	__u64 off = addr - st->blk_lo;

	if (addr < st->blk_lo || off + 8 > st->blk_len)
		return false;
	*v = *(const __u64 *)(st->blk + (off & (UNW_BLK_BYTES - 1)));
	return true;
}

/*
 * The user word at addr into *v; false when unreadable. lo: the lowest
 * address the frame being read needs, where a new block starts.
 */
static __always_inline bool unw_word(struct unw_state *st, __u64 lo, __u64 addr, __u64 *v)
{
	if (unw_blk_word(st, addr, v))
		return true;
	unw_blk_fill(st, lo);
	return unw_blk_word(st, addr, v) || !bpf_probe_read_user(v, sizeof(*v), (void *)addr);
}

static __always_inline long unw_fp_step(struct unw_state *st, __u8 why)
{
	__u64 ra, bp;
	__u8 stop = why == UNW_FB_NO_TABLE ? UNW_STOP_NO_TABLE : UNW_STOP_NO_CFI;

	/* record/ may walk from here again once the table is in (unw_raw_attach) */
	if (why == UNW_FB_NO_TABLE && !st->raw_have && raw_budget_bytes && st->n) {
		st->raw_have = 1;
		st->raw_frame = st->n - 1;	/* st->pc is stored already */
		st->raw_pc = st->pc;
		st->raw_sp = st->sp;
		st->raw_bp = st->bp;
		st->raw_bx = st->bx;
		st->raw_exact = st->exact;
		st->raw_bx_ok = st->bx_ok;
	}

	/*
	 * Code of a binary that has CFI but none here, and rbp zero: a process
	 * entry point written in assembly (ld.so's _start). The kernel starts a
	 * program with rbp zero, the psABI's mark of the outermost frame.
	 */
	if (!st->bp && why == UNW_FB_NO_CFI && st->cur.key.ino) {
		st->stop = UNW_STOP_ZERO;
		return 1;
	}
	if (st->fb == UNW_FB_NONE) {
		st->fb = why;
		st->fb_key = st->cur.key;
	}
	/*
	 * rbp may equal the stack pointer: a frame without locals (a JIT stub:
	 * push rbp; mov rbp, rsp; call) returns to exactly its rbp. The step
	 * still moves sp up by 16, so a walk cannot loop.
	 */
	if (st->bp < st->sp || !unw_word(st, st->bp, st->bp, &bp) ||
	    !unw_word(st, st->bp, st->bp + 8, &ra)) {
		st->stop = stop;
		return 1;
	}
	st->fp_frames++;
	if (!ra) {
		st->stop = UNW_STOP_ZERO;
		return 1;
	}
	st->pc = ra;
	st->sp = st->bp + 16;
	st->bp = bp;
	st->bx_ok = 0;		/* the frame skipped may have saved and changed it */
	st->exact = 0;
	return 0;
}

/* A sigreturn trampoline: rsp points at the ucontext of the signal frame. */
static __always_inline long unw_signal_step(struct unw_state *st)
{
	__u64 mc = st->sp + __builtin_offsetof(struct ucontext, uc_mcontext), ip, sp, bp, bx;

	if (bpf_probe_read_user(&ip, sizeof(ip),
				(void *)(mc + __builtin_offsetof(struct sigcontext_64, ip))) ||
	    bpf_probe_read_user(&sp, sizeof(sp),
				(void *)(mc + __builtin_offsetof(struct sigcontext_64, sp))) ||
	    bpf_probe_read_user(&bp, sizeof(bp),
				(void *)(mc + __builtin_offsetof(struct sigcontext_64, bp))) ||
	    bpf_probe_read_user(&bx, sizeof(bx),
				(void *)(mc + __builtin_offsetof(struct sigcontext_64, bx)))) {
		st->stop = UNW_STOP_UNREADABLE;
		return 1;
	}
	if (!ip || !sp) {
		st->stop = UNW_STOP_ZERO;
		return 1;
	}
	st->table_frames++;
	st->pc = ip;
	st->sp = sp;
	st->bp = bp;
	st->bx = bx;
	st->bx_ok = 1;
	st->exact = 1;		/* the interrupted PC, not a return address */
	return 0;
}

/* The file offset of pc in the current mapping. */
static __always_inline __u64 unw_off(const struct unw_state *st, __u64 pc)
{
	return pc - st->cur.start + (st->cur.pgoff << UNW_PAGE_SHIFT);
}

/*
 * Reads the return address, and the caller's rbp and rbx where the row
 * saved them, into *ra, *bp and *bx; false when the stack is unreadable.
 * Served from the block of stack copied last (unw_blk_fill) when it holds
 * them, which it usually does: frames are walked upward.
 */
static __always_inline bool unw_read_frame(struct unw_state *st, const struct unw_row *row,
					   __u64 cfa, __u64 *ra, __u64 *bp, __u64 *bx)
{
	__u64 lo = cfa - 8;

	if (row->rbp_type == UNW_RBP_CFA && cfa + row->rbp_off < lo)
		lo = cfa + row->rbp_off;
	if (row->rbx_type == UNW_RBP_CFA && cfa + row->rbx_off < lo)
		lo = cfa + row->rbx_off;
	return unw_word(st, lo, cfa - 8, ra) &&
	       (row->rbp_type != UNW_RBP_CFA || unw_word(st, lo, cfa + row->rbp_off, bp)) &&
	       (row->rbx_type != UNW_RBP_CFA || unw_word(st, lo, cfa + row->rbx_off, bx));
}

/* The table row for lpc: UNW_FB_NONE with *row, or why the frame pointers must do. */
static __always_inline __u8 unw_frame_row(struct unw_state *st, __u64 lpc, struct unw_row *row)
{
	if (!st->have_vma || lpc < st->cur.start || lpc >= st->cur.end) {
		st->have_vma = unw_find_vma(st, lpc);
		st->row_ok = 0;
		if (!st->have_vma)
			__builtin_memset(&st->cur.key, 0, sizeof(st->cur.key));
	}
	if (!st->have_vma) {
		/*
		 * Not looked up (a new process's first ticks meet several
		 * mappings): as a table not in yet, the stack copy lets
		 * record/ finish the walk with the side-band's mappings.
		 */
		if (!st->find_later)
			return UNW_FB_NO_VMA;
		st->find_later = 0;
		return UNW_FB_NO_TABLE;
	}
	if (!st->cur.key.ino)
		return UNW_FB_NO_CFI;
	if (st->row_ok && unw_off(st, lpc) >= st->row_lo && unw_off(st, lpc) < st->row_hi) {
		*row = st->row;		/* the same function again (recursion) */
		return UNW_FB_NONE;
	}
	return unw_lookup_row(st, unw_off(st, lpc), row);
}

/* From the frame whose CFA is cfa, by row, to its caller. 0, or 1: the walk ends. */
static __always_inline int unw_to_caller(struct unw_state *st, const struct unw_row *row,
					 __u64 cfa)
{
	__u64 ra, bp, bx;

	bp = st->bp;
	bx = st->bx;
	if (!unw_read_frame(st, row, cfa, &ra, &bp, &bx)) {
		st->stop = UNW_STOP_UNREADABLE;
		return 1;
	}
	if (row->rbp_type == UNW_RBP_UNDEF)
		bp = 0;
	if (row->rbx_type == UNW_RBP_UNDEF)
		st->bx_ok = 0;
	else if (row->rbx_type == UNW_RBP_CFA)
		st->bx_ok = 1;
	st->table_frames++;
	if (!ra) {
		st->stop = UNW_STOP_ZERO;
		return 1;
	}
	st->pc = ra;
	st->sp = cfa;
	st->bp = bp;
	st->bx = bx;
	st->exact = 0;
	return 0;
}

/*
 * One frame: stores st->pc and moves st to the caller's registers; nonzero
 * to stop. A global function, so that the verifier checks it once with st
 * unknown, not once per state the walk's callback arrives in.
 */
__noinline int unw_step_frame(struct unw_state *st)
{
	struct unw_row row = {};
	struct scratch *sc;
	__u64 lpc, cfa = 0;
	__u32 zero = 0, idx;
	__u8 fb;

	if (!st)
		return 1;
	if (st->n >= st->max) {
		st->stop = UNW_STOP_DEPTH;
		return 1;
	}
	sc = bpf_map_lookup_elem(&scratch, &zero);
	idx = st->base + st->n;
	if (!sc || idx >= EV_MAX_FRAMES + EV_MAX_UFRAMES)
		return 1;
	((struct ev_sample *)sc->raw)->frames[idx] = st->pc;
	st->n++;

	lpc = st->exact ? st->pc : st->pc - 1;
	fb = unw_frame_row(st, lpc, &row);
	if (fb != UNW_FB_NONE)
		return unw_fp_step(st, fb);

	switch (row.cfa_type) {
	case UNW_CFA_RSP:
		cfa = st->sp + row.cfa_off;
		break;
	case UNW_CFA_RBP:
		cfa = st->bp + row.cfa_off;
		break;
	case UNW_CFA_PLT:
		cfa = st->sp + 8 + ((st->pc & 15) >= (__u64)row.cfa_off ? 8 : 0);
		break;
	case UNW_CFA_RBX:
		if (!st->bx_ok)
			return unw_fp_step(st, UNW_FB_NO_CFI);
		cfa = st->bx + row.cfa_off;
		break;
	case UNW_CFA_SIGNAL:
		return unw_signal_step(st);
	case UNW_CFA_END:
		st->stop = UNW_STOP_END;
		return 1;
	case UNW_CFA_RA_RDI:
		/* rdi is the sampled registers' in the first frame only */
		if (st->n != 1)
			return unw_fp_step(st, UNW_FB_NO_CFI);
		st->table_frames++;
		if (!st->di) {
			st->stop = UNW_STOP_ZERO;
			return 1;
		}
		st->pc = st->di;
		st->sp += row.cfa_off;
		st->exact = 0;
		return 0;
	default:
		return unw_fp_step(st, UNW_FB_NO_CFI);
	}
	if (cfa <= st->sp) {
		st->stop = UNW_STOP_BAD_SP;
		return 1;
	}
	return unw_to_caller(st, &row, cfa);
}

static long unw_step(__u64 i, void *data)
{
	__u32 zero = 0;

	(void)i;
	(void)data;
	return unw_step_frame(bpf_map_lookup_elem(&unw_states, &zero)) ? 1 : 0;
}

static __always_inline void unw_bin_count(struct unw_key *key, bool fallback, __u32 which)
{
	struct unw_bin_stats *b, zero = {};

	b = bpf_map_lookup_elem(&unw_bins, key);
	if (!b) {
		bpf_map_update_elem(&unw_bins, key, &zero, BPF_NOEXIST);
		b = bpf_map_lookup_elem(&unw_bins, key);
		if (!b)
			return;		/* full: the per-CPU totals still count it */
	}
	if (fallback && which < UNW_FB_MAX)
		__sync_fetch_and_add(&b->fallback[which], 1);
	else if (!fallback && which < UNW_STOP_MAX)
		__sync_fetch_and_add(&b->stop[which], 1);
}

/*
 * Walks the current task's user stack into frames[base ..]; returns the
 * number of frames. user_tick: the tick interrupted user mode, so ctx holds
 * the user registers; otherwise they are the ones saved at kernel entry.
 */
static __always_inline __u32 unw_walk(struct bpf_perf_event_data *ctx, bool user_tick, __u32 base,
				      __u32 max)
{
	struct unw_state *st;
	struct pt_regs *regs;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&unw_states, &zero);
	if (!st)
		return 0;
	__builtin_memset(st, 0, __builtin_offsetof(struct unw_state, blk));
	st->base = base;
	st->max = max <= EV_MAX_UFRAMES ? max : EV_MAX_UFRAMES;
	st->fb = UNW_FB_NONE;
	st->mm = (__u64)bpf_get_current_task_btf()->mm;
	st->exact = 1;
	st->bx_ok = 1;
	if (user_tick) {
		st->pc = ctx->regs.ip;
		st->sp = ctx->regs.sp;
		st->bp = ctx->regs.bp;
		st->bx = ctx->regs.bx;
		st->di = ctx->regs.di;
	} else {
		regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		if (regs) {
			st->pc = BPF_CORE_READ(regs, ip);
			st->sp = BPF_CORE_READ(regs, sp);
			st->bp = BPF_CORE_READ(regs, bp);
			st->bx = BPF_CORE_READ(regs, bx);
			st->di = BPF_CORE_READ(regs, di);
		}
	}
	stat_inc(EV_STAT_UNW_STACKS);
	if (!st->pc || !st->sp) {
		stat_inc(EV_STAT_UNW_STOP + UNW_STOP_NO_REGS);
		return 0;
	}
	bpf_loop(EV_MAX_UFRAMES + 1, unw_step, NULL, 0);

	stat_add(EV_STAT_UNW_FRAMES_TABLE, st->table_frames);
	stat_add(EV_STAT_UNW_FRAMES_FP, st->fp_frames);
	if (st->stop < UNW_STOP_MAX)
		stat_inc(EV_STAT_UNW_STOP + st->stop);
	if (st->stop == UNW_STOP_DEPTH)
		stat_inc(EV_STAT_USTACK_TRUNC);
	unw_bin_count(&st->cur.key, false, st->stop);
	if (st->fb != UNW_FB_NONE) {
		stat_inc(EV_STAT_UNW_FB + st->fb);
		unw_bin_count(&st->fb_key, true, st->fb);
	}
	return st->n;
}

/*
 * The raw-stack fallback (events.h, ev_raw): the bytes spent in the current
 * second, shared by every CPU. A race at the turn of a second can let a few
 * more through: the stats count exactly what was sent.
 */
struct unw_raw_spend {
	__u64 sec;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_raw_spend);
} unw_raw_spent SEC(".maps");

/*
 * Copies the user stack from sp upward into dst: EV_RAW_STACK_MAX bytes,
 * or page by page up to where it stops being readable (the top of the
 * stack). Returns the bytes copied.
 */
static __always_inline __u64 unw_raw_copy(__u8 *dst, __u64 sp)
{
	__u64 got = 0, n;
	int i;

	if (!bpf_probe_read_user(dst, EV_RAW_STACK_MAX, (void *)sp))
		return EV_RAW_STACK_MAX;
	for (i = 0; i < EV_RAW_STACK_MAX / 4096 + 1; i++) {
		n = 4096 - ((sp + got) & 4095);
		if (got >= EV_RAW_STACK_MAX)
			break;
		if (n > EV_RAW_STACK_MAX - got)
			n = EV_RAW_STACK_MAX - got;
		if (n > 4096 || !n)
			break;
		if (bpf_probe_read_user(dst + (got & (EV_RAW_STACK_MAX - 1)), n, (void *)(sp + got)))
			break;
		got += n;
	}
	return got;
}

/*
 * After a walk that noted raw registers: writes an ev_raw and the stack
 * copy at byte off of raw_scratch (off: the sample's size so far,
 * at most SAMPLE_BYTES) and returns their bytes; 0 when the walk took no
 * "no table yet" step, the budget of the second is spent, or nothing
 * could be read. A global function: the verifier checks it once, not once
 * per size of the sample before it.
 */
__noinline int unw_raw_attach(__u32 off)
{
	struct unw_raw_spend *b;
	struct unw_vma_cache *c;
	struct unw_state *st;
	struct raw_scratch *sc;
	struct unw_vma *e;
	struct ev_raw *r;
	__u32 zero = 0, tgid = bpf_get_current_pid_tgid() >> 32, i, nv = 0;
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 sec, got;

	st = bpf_map_lookup_elem(&unw_states, &zero);
	b = bpf_map_lookup_elem(&unw_raw_spent, &zero);
	sc = bpf_map_lookup_elem(&raw_scratch, &cpu);
	if (!st || !st->raw_have || !b || !sc || off > SAMPLE_BYTES)
		return 0;
	barrier_var(off);	/* the compiler knows the bound; the verifier must see it */
	r = (struct ev_raw *)(sc->raw + (off & 4095));
	sec = bpf_ktime_get_ns() / 1000000000ull;
	if (b->sec != sec) {
		b->sec = sec;
		b->bytes = 0;
	}
	if (b->bytes + EV_RAW_STACK_MAX > raw_budget_bytes) {
		stat_inc(EV_STAT_RAW_OVER);
		return 0;
	}
	got = unw_raw_copy(r->stack, st->raw_sp - EV_RAW_BELOW_SP);
	if (!got)
		return 0;
	__sync_fetch_and_add(&b->bytes, got);
	stat_inc(EV_STAT_RAW_SAMPLES);
	stat_add(EV_STAT_RAW_BYTES, got);
	r->frame = st->raw_frame;
	r->exact = st->raw_exact;
	r->bx_ok = st->raw_bx_ok;
	r->walk_stop = st->stop;
	r->walk_fb = st->fb < UNW_FB_MAX ? st->fb : UNW_FB_MAX;
	r->pad = 0;
	r->pad2 = 0;
	r->stack_len = got;
	r->pc = st->raw_pc;
	r->sp = st->raw_sp;
	r->bp = st->raw_bp;
	r->bx = st->raw_bx;
	/* the process's mappings the walker knows, those still live */
	c = bpf_map_lookup_elem(&unw_vmas, &tgid);
	if (c && c->mm == st->mm) {
		for (i = 0; i < UNW_VMA_CACHE; i++) {
			e = &c->e[i];
			if (e->end <= e->start || !unw_vma_valid(e))
				continue;
			r->vmas[nv & (EV_RAW_VMAS - 1)].start = e->start;
			r->vmas[nv & (EV_RAW_VMAS - 1)].end = e->end;
			r->vmas[nv & (EV_RAW_VMAS - 1)].pgoff = e->pgoff;
			r->vmas[nv & (EV_RAW_VMAS - 1)].dev = e->key.dev;
			r->vmas[nv & (EV_RAW_VMAS - 1)].pad = 0;
			r->vmas[nv & (EV_RAW_VMAS - 1)].ino = e->key.ino;
			r->vmas[nv & (EV_RAW_VMAS - 1)].ctime_ns = e->key.ctime_ns;
			nv++;
		}
	}
	r->nr_vmas = nv;
	return sizeof(*r) + got;
}

#endif
