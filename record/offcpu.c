// SPDX-License-Identifier: MIT
/*
 * record/offcpu.c - record --off-cpu, the user-space half.
 *
 * on_switch sends three things: stack records (each distinct stack once,
 * named by a 64-bit hash of its frames and process), intervals at least
 * --off-cpu-thresh long (with their times), and sums of the shorter ones
 * in the offcpu_sums map, which only ever grows. Stacks go into the same
 * stack table as samples, so a stack both sampled and slept in is stored
 * once; the hash only maps to that table's id. Sums are read at every
 * commit and what grew since the previous read becomes offcpu_sum rows,
 * against a shadow copy kept here (the map is never cleared under the BPF
 * program's feet, so no increment can be lost between a read and a
 * delete).
 *
 * The default threshold, 1 ms: an interval shorter than that is a tenth
 * of the default sampling period (-F 99: 10 ms) and invisible in any view
 * drawn in time, while the intervals that matter there (sleeps, I/O,
 * locks held long) are kept with their times. A thread can end at most
 * 1000 such intervals per second, which bounds the event rate; switch
 * storms (a pipe ping-pong at 100k switches/s) stay in the in-kernel sums.
 *
 * With --switch-output, all off-CPU data is read into exactly one file:
 * an interval belongs to the file it ends in (its event, or the sum it
 * joins, is read there), kept whole even when it began before that file
 * did (the file's meta offcpu_since_ns says so, and the report counts the
 * part before a file's start at its start); the sums are flushed into the
 * closing file at the switch, and what they gain after goes to the next.
 * Nothing is cut, so nothing is counted twice or lost; an interval still
 * open at the very end is closed there, as without switching. on_switch
 * sends each stack once per run, but stack ids start again in each file:
 * the frames are kept here, to be stored again in the files after a
 * switch that use them (and the session names their threads again).
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "format/recording.h"
#include "record/offcpu.h"
#include "record/stats.h"
#include "util/hashmap.h"
#include "util/log.h"
#include "util/vec.h"

_Static_assert(sizeof(struct ev_offcpu_stack) == sizeof(struct ev_sample) &&
	       __builtin_offsetof(struct ev_offcpu_stack, frames) ==
	       __builtin_offsetof(struct ev_sample, frames),
	       "ev_offcpu_stack must keep ev_sample's frames offset (shared scratch and walker)");
_Static_assert(sizeof(struct ev_offcpu) == 48, "ev_offcpu changed: bump EV_ABI_VERSION");
_Static_assert(sizeof(struct offcpu_key) == 24 && sizeof(struct offcpu_sum) == 16 &&
	       sizeof(struct offcpu_start) == 40, "offcpu maps changed");

#define BATCH	1024	/* map entries read per syscall */

/* A sum as last read, to tell what grew. */
struct shadow {
	struct offcpu_key key;
	struct offcpu_sum val;
};

/* A stack as on_switch sent it, kept for the files after a switch. */
struct kept_stack {
	size_t off;			/* into offcpu.frames */
	uint32_t nr_kernel, nr_user;
	uint32_t tgid;
};

struct offcpu {
	struct offcpu_config cfg;
	int start_fd, sums_fd;
	int nr_cpus;
	struct u64map stack_ids;	/* stack hash -> stack id */
	uint32_t empty_id;		/* the empty stack: for a hash whose stack never came */
	struct shadow *shadow;		/* every sum seen, in the order first seen */
	size_t nr, alloc;
	struct hashmap shadow_index;	/* key -> index into shadow */
	uint64_t *prev;			/* per CPU: the loss counters at the last flush */
	struct offcpu_key *keys;	/* batch buffers */
	struct offcpu_sum *vals;
	uint64_t kept, lost;
	bool final;			/* the hook is gone: the sums are still */
	/* --switch-output: what a later file needs again (cfg.keep_for_switch) */
	struct u64map kept_index;	/* stack hash -> index into kept_stacks */
	struct kept_stack *kept_stacks;
	size_t nr_kept, alloc_kept;
	uint64_t *frames;
	size_t nr_frames, alloc_frames;
	struct rec_offcpu_sum *rows;	/* one flush's rows, merged before they are written */
	size_t nr_rows, alloc_rows;
	uint64_t file_rows;		/* interval and sum rows in the current file */
	uint64_t file_start;		/* its start_ns after a switch; 0: the first file */
	uint64_t file_since;		/* the earliest interval start written in it */
};

int offcpu__new(const struct offcpu_config *cfg, struct offcpu **out)
{
	struct offcpu *o = calloc(1, sizeof(*o));

	if (!o)
		return pr_errno(-ENOMEM, "cannot set up off-CPU recording");
	o->cfg = *cfg;
	o->start_fd = cfg->start_fd;
	o->sums_fd = cfg->sums_fd;
	o->nr_cpus = cfg->nr_possible_cpus;
	o->prev = calloc((size_t)cfg->nr_possible_cpus * EV_STAT_MAX, sizeof(*o->prev));
	o->keys = calloc(BATCH, sizeof(*o->keys));
	o->vals = calloc(BATCH, sizeof(*o->vals));
	if (!o->prev || !o->keys || !o->vals) {
		offcpu__free(o);
		return pr_errno(-ENOMEM, "cannot set up off-CPU recording");
	}
	*out = o;
	return 0;
}

void offcpu__free(struct offcpu *o)
{
	if (!o)
		return;
	u64map__release(&o->stack_ids);
	hashmap__release(&o->shadow_index);
	u64map__release(&o->kept_index);
	free(o->kept_stacks);
	free(o->frames);
	free(o->rows);
	free(o->shadow);
	free(o->prev);
	free(o->keys);
	free(o->vals);
	free(o);
}

void offcpu__totals(const struct offcpu *o, uint64_t *kept, uint64_t *lost)
{
	*kept = o ? o->kept : 0;
	*lost = o ? o->lost : 0;
}

/* --switch-output: keeps the frames of a new stack hash. */
static int keep_stack(struct offcpu *o, const struct ev_offcpu_stack *e)
{
	size_t nr = (size_t)e->nr_kframes + e->nr_uframes;
	uint64_t *slot;
	bool added;
	int err;

	err = u64map__upsert(&o->kept_index, e->hash, o->nr_kept, &slot, &added);
	if (err || !added)
		return err;	/* sent again after an eviction: the same content */
	if (vec__grow(&o->kept_stacks, &o->alloc_kept, o->nr_kept + 1, sizeof(*o->kept_stacks)) ||
	    vec__grow(&o->frames, &o->alloc_frames, o->nr_frames + nr, sizeof(*o->frames)))
		return -ENOMEM;
	memcpy(o->frames + o->nr_frames, e->frames, nr * sizeof(*o->frames));
	o->kept_stacks[o->nr_kept++] = (struct kept_stack){
		.off = o->nr_frames, .nr_kernel = e->nr_kframes, .nr_user = e->nr_uframes,
		.tgid = e->tgid,
	};
	o->nr_frames += nr;
	return 0;
}

int offcpu__on_stack(struct offcpu *o, const struct ev_offcpu_stack *e)
{
	uint64_t *slot;
	uint32_t id;
	bool added;
	int err;

	id = o->cfg.intern(o->cfg.ctx, (const uint64_t *)e->frames, e->nr_kframes,
			   e->nr_uframes, e->tgid, e->time_ns);
	if (!id)
		return -ENOMEM;
	err = u64map__upsert(&o->stack_ids, e->hash, id, &slot, &added);
	if (!err && o->cfg.keep_for_switch)
		err = keep_stack(o, e);
	if (err)
		return pr_errno(err, "cannot keep the stacks seen");
	*slot = id;	/* sent again after an eviction: the same content, the same id */
	return 0;
}

/* The id of the stack hash names; the empty stack if it never arrived. */
static uint32_t stack_of(struct offcpu *o, uint64_t hash, uint32_t tgid, uint64_t time_ns)
{
	const uint64_t *id = hash ? u64map__find(&o->stack_ids, hash) : NULL;
	const struct kept_stack *k;
	uint64_t *slot;
	uint32_t nid;
	bool added;

	if (id)
		return (uint32_t)*id;
	id = hash ? u64map__find(&o->kept_index, hash) : NULL;
	if (id) {
		/* sent before a switch: stored again in this file */
		k = &o->kept_stacks[*id];
		nid = o->cfg.intern(o->cfg.ctx, o->frames + k->off, k->nr_kernel, k->nr_user,
				    k->tgid, time_ns);
		if (nid && u64map__upsert(&o->stack_ids, hash, nid, &slot, &added)) {
			pr_errno(-ENOMEM, "cannot keep the stacks seen");
			return 0;
		}
		return nid;
	}
	if (!o->empty_id)
		o->empty_id = o->cfg.intern(o->cfg.ctx, NULL, 0, 0, tgid, time_ns);
	return o->empty_id;
}

/*
 * A row of thread tid goes into the file: after a switch, the thread gets
 * its name again (the last one the session heard for it).
 */
static int note_row(struct offcpu *o, uint64_t time_ns, uint32_t tgid, uint32_t tid)
{
	o->file_rows++;
	if (!o->cfg.keep_for_switch || !o->file_start || !o->cfg.name)
		return 0;
	return o->cfg.name(o->cfg.ctx, time_ns, tgid, tid);
}

/*
 * An interval open at the switch that began this file goes into it whole:
 * the file says from when its intervals run, in the same commit as the row.
 */
static int note_since(struct offcpu *o, struct recording *rec, uint64_t start_ns)
{
	char buf[24];

	if (!o->file_start || start_ns >= o->file_since)
		return 0;
	o->file_since = start_ns;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)start_ns);
	return recording__set_meta(rec, REC_META_OFFCPU_SINCE, buf);
}

void offcpu__start_file(struct offcpu *o, uint64_t start_ns)
{
	if (!o)
		return;
	u64map__release(&o->stack_ids);
	o->empty_id = 0;
	o->file_rows = 0;
	o->file_start = o->file_since = start_ns;
}

uint64_t offcpu__file_rows(const struct offcpu *o)
{
	return o ? o->file_rows : 0;
}

int offcpu__on_interval(struct offcpu *o, struct recording *rec, const struct ev_offcpu *e)
{
	struct rec_offcpu r = {
		.time_ns = e->start_ns,
		.duration_ns = e->duration_ns,
		.tgid = e->tgid,
		.tid = e->tid,
		.cpu = e->cpu,
		.state = e->state,
		.stack_id = stack_of(o, e->stack_hash, e->tgid, e->start_ns),
	};

	if (!r.stack_id)
		return -ENOMEM;
	o->kept++;
	return note_row(o, e->start_ns, e->tgid, e->tid) ?: note_since(o, rec, e->start_ns) ?:
	       recording__add_offcpu(rec, &r);
}

static bool shadow_eq(uint32_t val, const void *key, const void *ctx)
{
	const struct offcpu *o = ctx;

	return !memcmp(&o->shadow[val].key, key, sizeof(struct offcpu_key));
}

/* The shadow of k (added zeroed when new); NULL on -ENOMEM. */
static struct shadow *shadow_get(struct offcpu *o, const struct offcpu_key *k)
{
	uint32_t *slot;
	bool added;

	if (vec__grow(&o->shadow, &o->alloc, o->nr + 1, sizeof(*o->shadow)))
		return NULL;
	if (hashmap__upsert(&o->shadow_index, hash_bytes(k, sizeof(*k)), shadow_eq, k, o,
			    (uint32_t)o->nr, &slot, &added))
		return NULL;
	if (added) {
		memset(&o->shadow[o->nr], 0, sizeof(o->shadow[0]));
		o->shadow[o->nr++].key = *k;
	}
	return &o->shadow[*slot];
}

/* One sum as read now: a row for what grew, into o->rows. */
static int flush_one(struct offcpu *o, uint64_t time, const struct offcpu_key *k,
		     const struct offcpu_sum *v)
{
	struct rec_offcpu_sum r;
	struct shadow *sh = shadow_get(o, k);

	if (!sh)
		return pr_errno(-ENOMEM, "cannot keep the off-CPU sums");
	/*
	 * on_switch adds the count, then the time: a read in between saw one
	 * interval without its time. Its time then comes with a later row, at
	 * the latest the last one (count 0 when nothing else came since).
	 */
	if (v->count < sh->val.count || (v->count == sh->val.count &&
					  (!o->final || v->total_ns <= sh->val.total_ns)))
		return 0;
	r.time_ns = time;
	r.tgid = k->tgid;
	r.tid = k->tid;
	r.state = k->state;
	r.cpu = k->cpu;
	r.count = v->count - sh->val.count;
	r.total_ns = v->total_ns - sh->val.total_ns;
	r.stack_id = stack_of(o, k->stack_hash, k->tgid, time);
	if (!r.stack_id || k->state >= EV_OFFCPU_STATES)
		return r.stack_id ? 0 : -ENOMEM;
	sh->val = *v;
	o->kept += r.count;
	if (vec__grow(&o->rows, &o->alloc_rows, o->nr_rows + 1, sizeof(*o->rows)))
		return pr_errno(-ENOMEM, "cannot keep the off-CPU sums");
	o->rows[o->nr_rows++] = r;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct rec_offcpu_sum *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/*
 * One flush's rows, one per (thread, state, CPU, stack): two keys can
 * name one stack (stacks that never came share the empty one), and a
 * batch read of a map that changes under it can return a key twice.
 */
static int write_rows(struct offcpu *o, struct recording *rec)
{
	size_t i, j;
	int err = 0;

	qsort(o->rows, o->nr_rows, sizeof(*o->rows), cmp_row);
	for (i = 0; i < o->nr_rows && !err; i = j) {
		struct rec_offcpu_sum r = o->rows[i];

		for (j = i + 1; j < o->nr_rows && !cmp_row(&o->rows[j], &r); j++) {
			r.count += o->rows[j].count;
			r.total_ns += o->rows[j].total_ns;
		}
		err = note_row(o, r.time_ns, r.tgid, r.tid) ?: recording__add_offcpu_sum(rec, &r);
	}
	o->nr_rows = 0;
	return err;
}

static int flush_sums(struct offcpu *o, struct recording *rec, uint64_t time)
{
	struct offcpu_key in, out;
	bool first = true;
	__u32 n, i;
	int ret, err = 0;

	do {
		n = BATCH;
		ret = bpf_map_lookup_batch(o->sums_fd, first ? NULL : &in, &out, o->keys, o->vals,
					   &n, NULL);
		if (ret && errno != ENOENT)
			return pr_errno(-errno, "cannot read the off-CPU sums");
		for (i = 0; i < n && !err; i++)
			err = flush_one(o, time, &o->keys[i], &o->vals[i]);
		in = out;
		first = false;
	} while (!ret && !err);
	if (err) {
		o->nr_rows = 0;
		return err;
	}
	return write_rows(o, rec);
}

static int add_loss_rows(struct offcpu *o, struct recording *rec, uint64_t time,
			 const uint64_t *stats)
{
	struct rec_offcpu_loss l;
	int cpu, err = 0;

	for (cpu = 0; cpu < o->nr_cpus && !err; cpu++) {
		uint64_t d[EV_STAT_MAX];

		stats__delta(stats, o->prev, cpu, d);
		l = (struct rec_offcpu_loss){
			.time_ns = time,
			.cpu = (uint32_t)cpu,
			.lost = d[EV_STAT_OFFCPU_LOST],
			.lost_ns = d[EV_STAT_OFFCPU_LOST_NS],
			.untracked = d[EV_STAT_OFFCPU_UNTRACKED],
			.lost_stacks = d[EV_STAT_OFFCPU_STACK_LOST],
		};
		if (!l.lost && !l.untracked && !l.lost_stacks)
			continue;
		o->lost += l.lost + l.untracked;
		err = recording__add_offcpu_loss(rec, &l);
	}
	return err;
}

int offcpu__flush(struct offcpu *o, struct recording *rec, uint64_t time,
		  const uint64_t *stats)
{
	int err = flush_sums(o, rec, time);

	return err ? err : add_loss_rows(o, rec, time, stats);
}

/*
 * The piece [from, to) of thread tid's open interval st, closed at the end:
 * an interval if long, else it joins its sum, as on_switch would have done.
 */
static int close_piece(struct offcpu *o, struct recording *rec, __u32 tid,
		       const struct offcpu_start *st, uint64_t from, uint64_t to, uint32_t state)
{
	struct offcpu_key k;
	struct offcpu_sum v;
	struct ev_offcpu e;

	if (to - from >= o->cfg.thresh_ns) {
		memset(&e, 0, sizeof(e));
		e.start_ns = from;
		e.duration_ns = to - from;
		e.stack_hash = st->stack_hash;
		e.tgid = st->tgid;
		e.tid = tid;
		e.cpu = st->cpu;
		e.state = state;
		return offcpu__on_interval(o, rec, &e);
	}
	/*
	 * The hook is detached, so the map is ours, and the last flush (at
	 * end_ns) writes it in the same row as the rest of that sum.
	 */
	memset(&k, 0, sizeof(k));
	k.stack_hash = st->stack_hash;
	k.tgid = st->tgid;
	k.tid = tid;
	k.state = state;
	k.cpu = st->cpu;
	if (bpf_map_lookup_elem(o->sums_fd, &k, &v))
		memset(&v, 0, sizeof(v));
	v.count++;
	v.total_ns += to - from;
	if (bpf_map_update_elem(o->sums_fd, &k, &v, BPF_ANY)) {
		/* the sums map is full: counted as lost, as on_switch does */
		struct rec_offcpu_loss l = {
			.time_ns = to, .cpu = st->cpu, .lost = 1, .lost_ns = to - from,
		};

		o->lost++;
		return recording__add_offcpu_loss(rec, &l);
	}
	return 0;
}

int offcpu__close_open(struct offcpu *o, struct recording *rec, uint64_t end_ns)
{
	struct offcpu_start st;
	__u32 key, next;
	bool first = true;
	int err = 0;

	o->final = true;
	while (!err && !bpf_map_get_next_key(o->start_fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(o->start_fd, &key, &st) || st.start_ns >= end_ns ||
		    st.state >= EV_OFFCPU_STATES)
			continue;
		/* woken and not run yet: blocked until the wake-up, runnable after (as on_switch) */
		if (st.state == EV_OFFCPU_BLOCKED && st.wake_ns > st.start_ns && st.wake_ns < end_ns) {
			err = close_piece(o, rec, key, &st, st.start_ns, st.wake_ns, EV_OFFCPU_BLOCKED);
			if (!err)
				err = close_piece(o, rec, key, &st, st.wake_ns, end_ns, EV_OFFCPU_RUNNABLE);
		} else {
			err = close_piece(o, rec, key, &st, st.start_ns, end_ns, st.state);
		}
	}
	return err;
}
