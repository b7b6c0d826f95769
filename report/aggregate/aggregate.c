// SPDX-License-Identifier: MIT
/*
 * report/aggregate/aggregate.c - counting samples per (thread comm, tgid, stack id).
 *
 * A recording may hold millions of samples but only thousands of distinct
 * stacks, so samples are streamed from format/ and folded into a hash table
 * at once: nothing is allocated per sample, and memory follows the number of
 * distinct keys. The thread name of a sample is looked up in the comm rows
 * (sorted once by tid and time), because a thread renames itself on exec or
 * prctl(PR_SET_NAME) and a sample must carry the name it had at that time.
 *
 * The cgroup of a sample is looked up the same way, in the recording's
 * change log of each thread's cgroup (read only when a view asks for it).
 *
 * The report's filters (pid, tid, comm, cpu or node, time window) act here,
 * before anything is symbolized, and the optional key fields (tid, cpu,
 * time slot) are filled only when a view asks for them, so a plain --fold
 * keeps one entry per (comm, process, stack).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/aggregate/aggregate.h"
#include "util/bsearch.h"
#include "util/log.h"
#include "util/vec.h"

void stack_agg__init(struct stack_agg *agg)
{
	memset(agg, 0, sizeof(*agg));
	strtab__init(&agg->comms);
	strtab__init(&agg->cgroups);
}

void stack_agg__release(struct stack_agg *agg)
{
	if (!agg)
		return;
	free(agg->entries);
	hashmap__release(&agg->index);
	free(agg->rows);
	strtab__release(&agg->comms);
	free(agg->cg_rows);
	strtab__release(&agg->cgroups);
	stack_agg__init(agg);
}

void stack_agg__compact(struct stack_agg *agg)
{
	struct agg_entry *e;

	hashmap__release(&agg->index);
	free(agg->rows);
	agg->rows = NULL;
	agg->nr_rows = agg->alloc_rows = 0;
	if (agg->nr && agg->nr < agg->alloc) {
		e = reallocarray(agg->entries, agg->nr, sizeof(*e));
		if (e) {
			agg->entries = e;
			agg->alloc = agg->nr;
		}
	}
}

int stack_agg__intern_comm(struct stack_agg *agg, const char *comm, uint32_t *id)
{
	return strtab__intern(&agg->comms, comm, id);
}

/* --- comm rows ------------------------------------------------------------ */

/* Appends (time, tid, id) to a comm or cgroup row array. 0 or -ENOMEM. */
static int push_row(struct agg_comm_row **rows, size_t *nr, size_t *alloc, uint64_t time_ns,
		    uint32_t tid, uint32_t id)
{
	struct agg_comm_row *row;

	if (vec__grow(rows, alloc, *nr + 1, sizeof(**rows)))
		return -ENOMEM;
	row = &(*rows)[(*nr)++];
	row->time_ns = time_ns;
	row->tid = tid;
	row->comm_id = id;
	return 0;
}

int stack_agg__add_comm(struct stack_agg *agg, const struct rec_comm *c)
{
	uint32_t id;
	int err;

	err = strtab__intern_len(&agg->comms, c->comm, strnlen(c->comm, REC_COMM_LEN), &id);
	if (err)
		return err;
	return push_row(&agg->rows, &agg->nr_rows, &agg->alloc_rows, c->time_ns, c->tid, id);
}

static int cmp_comm_row(const void *a, const void *b)
{
	const struct agg_comm_row *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	/* equal times: keep a total order so the result does not depend on qsort */
	return x->comm_id < y->comm_id ? -1 : x->comm_id > y->comm_id;
}

void stack_agg__sort_comms(struct stack_agg *agg)
{
	if (agg->nr_rows)
		qsort(agg->rows, agg->nr_rows, sizeof(*agg->rows), cmp_comm_row);
}

static bool row_at_or_below(const void *elem, const void *key)
{
	const struct agg_comm_row *r = elem, *k = key;

	return r->tid < k->tid || (r->tid == k->tid && r->time_ns <= k->time_ns);
}

/* The value of tid at t from its own rows (sorted by tid, time); false when tid has none. */
static bool row_of_tid(const struct agg_comm_row *rows, size_t nr, uint32_t tid, uint64_t t,
		       uint32_t *id)
{
	const struct agg_comm_row key = { .tid = tid, .time_ns = t };
	/* first row with (tid, time) > (tid, t) */
	size_t lo = bsearch_lower_bound(&key, rows, nr, sizeof(*rows), row_at_or_below);

	if (lo > 0 && rows[lo - 1].tid == tid) {
		*id = rows[lo - 1].comm_id;
		return true;
	}
	if (lo < nr && rows[lo].tid == tid) {
		*id = rows[lo].comm_id;	/* earliest row, after t */
		return true;
	}
	return false;
}

static bool comm_of_tid(const struct stack_agg *agg, uint32_t tid, uint64_t t, uint32_t *id)
{
	return row_of_tid(agg->rows, agg->nr_rows, tid, t, id);
}

int stack_agg__comm_at(struct stack_agg *agg, uint32_t tgid, uint32_t tid, uint64_t time_ns,
		       uint32_t *comm_id)
{
	if (comm_of_tid(agg, tid, time_ns, comm_id))
		return 0;
	if (tid != tgid && comm_of_tid(agg, tgid, time_ns, comm_id))
		return 0;
	return stack_agg__intern_comm(agg, tid == 0 ? "swapper" : "[unknown]", comm_id);
}

/* --- cgroup rows ---------------------------------------------------------- */

#define AGG_UNKNOWN_CGROUP	"[unknown cgroup]"

/* The cgroup of a sample: its thread's row, else its main thread's, else unknown (id 0). */
static uint32_t cgroup_at(const struct stack_agg *agg, uint32_t tgid, uint32_t tid, uint64_t t)
{
	uint32_t id;

	if (row_of_tid(agg->cg_rows, agg->nr_cg_rows, tid, t, &id))
		return id;
	if (tid != tgid && row_of_tid(agg->cg_rows, agg->nr_cg_rows, tgid, t, &id))
		return id;
	return 0;
}

struct cgroup_ctx {
	struct stack_agg *agg;
	struct u64map names;		/* cgroup id -> id in agg->cgroups */
	char buf[32];
	int err;			/* ours (unprinted), not the reader's */
};

static int on_cgroup_name(void *ctx, const struct rec_cgroup *c)
{
	struct cgroup_ctx *cc = ctx;
	uint64_t *slot;
	uint32_t id;
	bool added;

	cc->err = strtab__intern(&cc->agg->cgroups, c->path, &id);
	if (!cc->err)
		cc->err = u64map__upsert(&cc->names, c->id, id, &slot, &added);
	return cc->err;
}

static int on_thread_cgroup(void *ctx, const struct rec_thread_cgroup *t)
{
	struct cgroup_ctx *cc = ctx;
	struct stack_agg *agg = cc->agg;
	const uint64_t *name = u64map__find(&cc->names, t->cgroup_id);
	uint32_t id;

	if (name) {
		id = (uint32_t)*name;
	} else {
		/* gone before the recorder could name it */
		snprintf(cc->buf, sizeof(cc->buf), "cgroup:%llu", (unsigned long long)t->cgroup_id);
		cc->err = strtab__intern(&agg->cgroups, cc->buf, &id);
		if (cc->err)
			return cc->err;
	}
	return cc->err = push_row(&agg->cg_rows, &agg->nr_cg_rows, &agg->alloc_cg_rows,
				  t->time_ns, t->tid, id);
}

/* Reads the cgroup names and rows of rec; id 0 is "[unknown cgroup]". Prints. */
static int load_cgroups(struct stack_agg *agg, struct recording *rec)
{
	struct cgroup_ctx cc = { .agg = agg, .names = U64MAP_INIT };
	uint32_t unknown;
	int err;

	err = strtab__intern(&agg->cgroups, AGG_UNKNOWN_CGROUP, &unknown);
	if (!err)
		err = recording__for_each_cgroup(rec, on_cgroup_name, &cc);
	if (!err)
		err = recording__for_each_thread_cgroup(rec, on_thread_cgroup, &cc);
	u64map__release(&cc.names);
	if (err && cc.err)
		pr_errno(err, "cannot read the cgroups of '%s'", recording__path(rec));
	if (!err && agg->nr_cg_rows)
		qsort(agg->cg_rows, agg->nr_cg_rows, sizeof(*agg->cg_rows), cmp_comm_row);
	return err;
}

/* --- the key -> count table -------------------------------------------- */

static inline uint64_t key_hash(const struct agg_key *k)
{
	uint64_t h = hash_mix((uint64_t)k->tgid << 32 | k->stack_id, k->comm_id);

	/* the optional fields are usually 0: mix them in only when set */
	if (k->tid | k->cpu | k->slot | k->state | k->cgroup)
		h = hash_mix(hash_mix(hash_mix(h, (uint64_t)k->tid << 32 | k->cpu),
				      (uint64_t)k->state << 32 | k->slot), k->cgroup);
	return h;
}

static inline bool key_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct agg_entry *e = &((const struct stack_agg *)ctx)->entries[i];
	const struct agg_key *k = key;

	return e->stack_id == k->stack_id && e->tgid == k->tgid && e->comm_id == k->comm_id &&
	       e->tid == k->tid && e->cpu == k->cpu && e->slot == k->slot && e->state == k->state &&
	       e->cgroup == k->cgroup;
}

struct agg_entry *stack_agg__find_key(const struct stack_agg *agg, const struct agg_key *k)
{
	uint32_t *i = hashmap__find(&agg->index, key_hash(k), key_eq, k, agg);

	return i ? &agg->entries[*i] : NULL;
}

struct agg_entry *stack_agg__find(const struct stack_agg *agg, uint32_t comm_id, uint32_t tgid,
				  uint32_t stack_id)
{
	struct agg_key k = { .comm_id = comm_id, .tgid = tgid, .stack_id = stack_id };

	return stack_agg__find_key(agg, &k);
}

int stack_agg__add_key(struct stack_agg *agg, const struct agg_key *k, uint64_t time_ns,
		       uint64_t count)
{
	struct agg_entry *e;
	uint32_t *i;
	bool added;
	int err;

	/* room for a new entry first: the index must never name a missing one */
	if (agg->nr == agg->alloc &&
	    vec__grow(&agg->entries, &agg->alloc, agg->nr + 1, sizeof(*agg->entries)))
		return -ENOMEM;
	err = hashmap__upsert(&agg->index, key_hash(k), key_eq, k, agg, (uint32_t)agg->nr, &i,
			      &added);
	if (err)
		return err;
	e = &agg->entries[*i];
	if (added) {
		memset(e, 0, sizeof(*e));
		e->comm_id = k->comm_id;
		e->tgid = k->tgid;
		e->stack_id = k->stack_id;
		e->tid = k->tid;
		e->cpu = k->cpu;
		e->slot = k->slot;
		e->state = k->state;
		e->cgroup = k->cgroup;
		agg->nr++;
	}
	e->count += count;
	if (time_ns > e->last_ns)
		e->last_ns = time_ns;
	if (!agg->nr_samples || time_ns < agg->first_ns)
		agg->first_ns = time_ns;
	if (time_ns > agg->last_ns)
		agg->last_ns = time_ns;
	if (k->slot > agg->max_slot)
		agg->max_slot = k->slot;
	agg->nr_samples += count;
	return 0;
}

int stack_agg__add(struct stack_agg *agg, uint32_t comm_id, uint32_t tgid, uint32_t stack_id,
		   uint64_t time_ns, uint64_t count)
{
	struct agg_key k = { .comm_id = comm_id, .tgid = tgid, .stack_id = stack_id };

	return stack_agg__add_key(agg, &k, time_ns, count);
}

/* --- from a recording ----------------------------------------------------- */

/*
 * Callback failures are ours (out of memory) and unprinted; failures of the
 * reader itself come printed by format/. The context tells them apart.
 */
struct load_ctx {
	struct stack_agg *agg;
	const struct agg_config *cfg;	/* NULL: everything */
	uint64_t start_ns;		/* cfg's origin, or the first sample's time */
	bool have_start;
	uint32_t comm_id;		/* of cfg->comm */
	uint32_t xcomm_id;		/* of cfg->xcomm */
	uint64_t pieces;		/* off-CPU pieces added so far (add_span) */
	const char *path;		/* the recording, for add_span's error */
	int err;
};

static int on_comm(void *ctx, const struct rec_comm *c)
{
	struct load_ctx *lc = ctx;

	lc->err = stack_agg__add_comm(lc->agg, c);
	return lc->err;
}

static bool u32_below(const void *elem, const void *key)
{
	return *(const uint32_t *)elem < *(const uint32_t *)key;
}

static bool in_list(const uint32_t *v, size_t nr, uint32_t x)
{
	size_t lo = bsearch_lower_bound(&x, v, nr, sizeof(*v), u32_below);

	return lo < nr && v[lo] == x;
}

static int on_sample(void *ctx, const struct rec_sample *s)
{
	struct load_ctx *lc = ctx;
	struct agg_key k = { .tgid = s->tgid, .stack_id = s->stack_id };

	lc->err = stack_agg__comm_at(lc->agg, s->tgid, s->tid, s->time_ns, &k.comm_id);
	if (!lc->err)
		lc->err = stack_agg__add_key(lc->agg, &k, s->time_ns, 1);
	return lc->err;
}

/*
 * The filters of cfg on one sample, and its key: 1 when the sample is kept
 * (k filled), 0 when a filter leaves it out, or -ENOMEM.
 */
static int filter_sample(struct load_ctx *lc, const struct rec_sample *s, struct agg_key *k)
{
	const struct agg_config *cfg = lc->cfg;
	uint64_t rel;
	int err;

	*k = (struct agg_key){ .tgid = s->tgid, .stack_id = s->stack_id };
	if (!lc->have_start) {
		lc->start_ns = s->time_ns;
		lc->have_start = true;
	}
	rel = s->time_ns > lc->start_ns ? s->time_ns - lc->start_ns : 0;
	if ((cfg->pids && !in_list(cfg->pids, cfg->nr_pids, s->tgid)) ||
	    (cfg->xpids && in_list(cfg->xpids, cfg->nr_xpids, s->tgid)) ||
	    (cfg->tids && !in_list(cfg->tids, cfg->nr_tids, s->tid)) ||
	    (cfg->cpu_ok && (s->cpu >= cfg->nr_cpu_ok || !cfg->cpu_ok[s->cpu])) ||
	    rel < cfg->from_ns || (cfg->to_ns && rel >= cfg->to_ns))
		return 0;
	err = stack_agg__comm_at(lc->agg, s->tgid, s->tid, s->time_ns, &k->comm_id);
	if (err)
		return err;
	if ((cfg->comm && k->comm_id != lc->comm_id) || (cfg->xcomm && k->comm_id == lc->xcomm_id))
		return 0;
	if (cfg->key_tid)
		k->tid = s->tid;
	if (cfg->key_cpu)
		k->cpu = s->cpu;
	if (cfg->key_cgroup)
		k->cgroup = cgroup_at(lc->agg, s->tgid, s->tid, s->time_ns);
	if (cfg->slot_ns) {
		uint64_t slot = rel / cfg->slot_ns;

		k->slot = slot > UINT32_MAX ? UINT32_MAX : (uint32_t)slot;
	}
	return 1;
}

/* The filtered path, kept apart so that the plain one stays as short as it was. */
static int on_sample_cfg(void *ctx, const struct rec_sample *s)
{
	struct load_ctx *lc = ctx;
	struct agg_key k;
	int keep;

	keep = filter_sample(lc, s, &k);
	if (keep < 0)
		return lc->err = keep;
	if (!keep) {
		lc->agg->nr_filtered++;
		return 0;
	}
	if (lc->cfg->sample_ns) {
		lc->agg->nr_weighed_samples++;
		lc->agg->oncpu_ns += lc->cfg->sample_ns;
		return lc->err = stack_agg__add_key(lc->agg, &k, s->time_ns, lc->cfg->sample_ns);
	}
	return lc->err = stack_agg__add_key(lc->agg, &k, s->time_ns, 1);
}

/* --- off-CPU time (report --off-cpu, --wall) ------------------------------- */

/*
 * Off-CPU pieces (a row cut at time-slot edges) a load may add: a fixed
 * allowance (4 M: eleven hours of 10 ms slots of a thread blocked throughout)
 * plus a few per row, so 1 M interval rows stay a few seconds of work.
 */
#define OFFCPU_PIECES_BASE	(1ull << 22)
#define OFFCPU_PIECES_PER_ROW	64ull

/*
 * Weighs w ns spread evenly over [t0, t1) of thread tid into the aggregate,
 * cut at time-slot and window edges (each piece is filtered as a sample at
 * its start would be). Exact when nothing is cut away: the rounding rest
 * goes to the last piece.
 */
static int add_span(struct load_ctx *lc, const struct rec_sample *at, uint64_t t0, uint64_t t1,
		    uint64_t w, uint32_t state)
{
	const struct agg_config *cfg = lc->cfg;
	struct rec_sample p = *at;
	uint64_t len = t1 > t0 ? t1 - t0 : 0, done = 0, a = t0, b, piece;
	struct agg_key k;
	int keep;

	if (!len) {
		t1 = t0 + 1;	/* a sum flushed at the start: one instant */
		len = 1;
	}
	while (a < t1) {
		b = t1;
		if (cfg->slot_ns || cfg->from_ns || cfg->to_ns) {
			uint64_t rel = a > lc->start_ns ? a - lc->start_ns : 0, edge = UINT64_MAX;

			if (a < lc->start_ns)
				edge = lc->start_ns - a;
			else if (rel < cfg->from_ns)
				edge = cfg->from_ns - rel;
			else if (cfg->to_ns && rel < cfg->to_ns)
				edge = cfg->to_ns - rel;
			if (cfg->slot_ns && cfg->slot_ns - rel % cfg->slot_ns < edge)
				edge = cfg->slot_ns - rel % cfg->slot_ns;
			if (edge < t1 - a)
				b = a + edge;
		}
		/*
		 * Time cells are what the view holds: a hostile file (start_ns an
		 * hour back, thousands of threads' sums spread over it) would
		 * make billions. So the work stays linear in the rows.
		 */
		if (++lc->pieces > OFFCPU_PIECES_BASE + OFFCPU_PIECES_PER_ROW * lc->agg->nr_offcpu) {
			pr_err("the off-CPU rows of '%s' cover more than %llu time cells (choose a "
			       "shorter window with --from/--to, or a view without times)",
			       lc->path, OFFCPU_PIECES_BASE + OFFCPU_PIECES_PER_ROW * lc->agg->nr_offcpu);
			return -E2BIG;
		}
		piece = b == t1 ? w - done :
			(uint64_t)((unsigned __int128)w * (b - a) / len);
		done += piece;
		p.time_ns = a;
		keep = filter_sample(lc, &p, &k);
		if (keep < 0)
			return lc->err = keep;
		if (keep && piece) {
			if (cfg->key_state)
				k.state = AGG_BLOCKED + state;
			lc->agg->offcpu_ns[state] += piece;
			keep = stack_agg__add_key(lc->agg, &k, a, piece);
			if (keep)
				return lc->err = keep;
		}
		a = b;
	}
	return 0;
}

static int on_offcpu(void *ctx, const struct rec_offcpu *o)
{
	struct load_ctx *lc = ctx;
	struct rec_sample at = { .tgid = o->tgid, .tid = o->tid, .cpu = o->cpu,
				 .stack_id = o->stack_id };

	if (!(lc->cfg->offcpu_states & (1u << o->state)))
		return 0;
	lc->agg->nr_offcpu++;
	return add_span(lc, &at, o->time_ns, o->time_ns + o->duration_ns, o->duration_ns,
			o->state);
}

/* Sums have no times of their own: spread over the time since the previous flush. */
struct sum_ctx {
	struct load_ctx *lc;
	uint64_t flush, prev_flush;
};

static int on_offcpu_sum(void *ctx, const struct rec_offcpu_sum *o)
{
	struct sum_ctx *sc = ctx;
	struct load_ctx *lc = sc->lc;
	struct rec_sample at = { .tgid = o->tgid, .tid = o->tid, .cpu = o->cpu,
				 .stack_id = o->stack_id };

	if (o->time_ns != sc->flush) {
		sc->prev_flush = sc->flush > o->time_ns ? 0 : sc->flush;
		sc->flush = o->time_ns;
	}
	if (!(lc->cfg->offcpu_states & (1u << o->state)))
		return 0;
	lc->agg->nr_offcpu++;
	return add_span(lc, &at, sc->prev_flush > lc->start_ns ? sc->prev_flush : lc->start_ns,
			o->time_ns, o->total_ns, o->state);
}

static int load_offcpu(struct load_ctx *lc, struct recording *rec)
{
	struct sum_ctx sc = { .lc = lc };
	int err;

	err = recording__for_each_offcpu(rec, on_offcpu, lc);
	if (err)
		return err;
	return recording__for_each_offcpu_sum(rec, on_offcpu_sum, &sc);
}

/*
 * Starts a pass over the samples with lc->cfg, once the agg holds its comm
 * rows: the time origin, and the id of the comm filter's name.
 */
static int load_ctx__start(struct load_ctx *lc)
{
	const struct agg_config *cfg = lc->cfg;
	int err = 0;

	if (!cfg)
		return 0;
	lc->start_ns = cfg->start_ns;
	lc->have_start = cfg->start_ns != 0;
	/* interning finds the id of a name the comm rows have */
	if (cfg->comm)
		lc->err = err = stack_agg__intern_comm(lc->agg, cfg->comm, &lc->comm_id);
	if (!err && cfg->xcomm)
		lc->err = err = stack_agg__intern_comm(lc->agg, cfg->xcomm, &lc->xcomm_id);
	return err;
}

int stack_agg__load_cfg(struct stack_agg *agg, struct recording *rec,
			const struct agg_config *cfg)
{
	struct load_ctx lc = { .agg = agg, .cfg = cfg, .path = recording__path(rec) };
	int err;

	if (cfg) {
		agg->ns_samples = cfg->sample_ns != 0;
		agg->ns_offcpu = cfg->offcpu_states != 0;
		agg->states_apart = cfg->key_state;
	}
	err = recording__for_each_comm(rec, on_comm, &lc);
	if (!err) {
		stack_agg__sort_comms(agg);
		err = load_ctx__start(&lc);
	}
	if (!err && cfg && cfg->key_cgroup)
		err = load_cgroups(agg, rec);
	if (!err && !(cfg && cfg->no_samples))
		err = recording__for_each_sample(rec, cfg ? on_sample_cfg : on_sample, &lc);
	if (!err && cfg && cfg->offcpu_states) {
		err = load_offcpu(&lc, rec);
		/* the work, in counts (t1006 checks that it grows as the rows do) */
		if (!err)
			pr_info("off-CPU rows: %llu, weighed in %llu time cells",
				(unsigned long long)agg->nr_offcpu,
				(unsigned long long)lc.pieces);
	}
	if (err && lc.err)
		pr_errno(err, "cannot aggregate the samples of '%s'", recording__path(rec));
	return err;
}

struct walk_ctx {
	struct load_ctx lc;
	agg_sample_fn fn;
	void *ctx;
};

static int on_sample_walk(void *ctx, const struct rec_sample *s)
{
	struct walk_ctx *wc = ctx;
	const struct agg_entry *e;
	struct agg_key k;
	int keep;

	keep = filter_sample(&wc->lc, s, &k);
	if (keep <= 0)
		return wc->lc.err = keep;
	e = stack_agg__find_key(wc->lc.agg, &k);
	if (!e || !e->count)
		return 0;	/* emptied since (--kernel-only, --user-only) */
	return wc->fn(wc->ctx, s, e);
}

int stack_agg__walk(struct stack_agg *agg, struct recording *rec, const struct agg_config *cfg,
		    agg_sample_fn fn, void *ctx)
{
	static const struct agg_config all;	/* no filter: the keys stack_agg__load() makes */
	struct walk_ctx wc = { .lc = { .agg = agg, .cfg = cfg ? cfg : &all }, .fn = fn,
			       .ctx = ctx };
	int err;

	err = load_ctx__start(&wc.lc);	/* the comm rows are in agg already */
	if (!err)
		err = recording__for_each_sample(rec, on_sample_walk, &wc);
	if (err && wc.lc.err)
		pr_errno(err, "cannot read the samples of '%s'", recording__path(rec));
	return err;
}

/* --- the off-CPU intervals again (report --firefox: markers) --------------- */

struct walk_offcpu_ctx {
	struct load_ctx lc;
	agg_offcpu_fn fn;
	void *ctx;
};

/*
 * An interval is filtered as add_span() filters its first piece in the
 * window: at its start, or at the window's start when it began before.
 */
static int on_offcpu_walk(void *ctx, const struct rec_offcpu *o)
{
	struct walk_offcpu_ctx *wc = ctx;
	const struct agg_config *cfg = wc->lc.cfg;
	struct rec_sample at = { .time_ns = o->time_ns, .tgid = o->tgid, .tid = o->tid,
				 .cpu = o->cpu, .stack_id = o->stack_id };
	uint64_t from = wc->lc.start_ns + cfg->from_ns, end = o->time_ns + o->duration_ns;
	const struct agg_entry *e;
	struct agg_key k;
	int keep;

	if (!(cfg->offcpu_states & (1u << o->state)))
		return 0;
	if (at.time_ns < from) {
		if (end <= from)
			return 0;
		at.time_ns = from;
	}
	keep = filter_sample(&wc->lc, &at, &k);
	if (keep <= 0)
		return wc->lc.err = keep;
	if (cfg->key_state)
		k.state = AGG_BLOCKED + o->state;
	e = stack_agg__find_key(wc->lc.agg, &k);
	if (!e || !e->count)
		return 0;
	return wc->fn(wc->ctx, o, e);
}

int stack_agg__walk_offcpu(struct stack_agg *agg, struct recording *rec,
			   const struct agg_config *cfg, agg_offcpu_fn fn, void *ctx)
{
	struct walk_offcpu_ctx wc = { .lc = { .agg = agg, .cfg = cfg }, .fn = fn, .ctx = ctx };
	int err;

	if (!cfg->offcpu_states)
		return 0;
	err = load_ctx__start(&wc.lc);
	if (!err)
		err = recording__for_each_offcpu(rec, on_offcpu_walk, &wc);
	if (err && wc.lc.err)
		pr_errno(err, "cannot read the off-CPU intervals of '%s'", recording__path(rec));
	return err;
}

int stack_agg__load(struct stack_agg *agg, struct recording *rec)
{
	return stack_agg__load_cfg(agg, rec, NULL);
}
