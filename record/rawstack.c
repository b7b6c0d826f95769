// SPDX-License-Identifier: MIT
/*
 * record/rawstack.c - held samples of the raw-stack fallback (rawstack.h).
 *
 * A held sample is a copy of its ring-buffer record. At each try (at most
 * every RETRY_NS, from the record loop's commit check) it is walked again
 * from its ev_raw's registers over its stack copy and mappings, with the
 * rows of unwinder__row(): the tables the BPF walker follows. A walk that
 * met a table still being built, or a file the unwinder does not know yet
 * (it is asked for, as a walker miss would), is dropped and tried later;
 * one that did not becomes the sample's user frames from ev_raw.frame on,
 * and the stack copy is freed. A sample waits at most RAWSTACK_HOLD_NS.
 * The recorder's commit waits while a held sample waits, but comes at
 * least every other second; such a commit keeps the samples from the
 * earliest held one on for the next (rawstack__held_since), so a finished
 * sample is still written in time order.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "format/recording.h"
#include "record/budget.h"
#include "record/rawstack.h"
#include "record/unwind.h"
#include "record/uwalk.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/vec.h"

#define RETRY_NS	20000000ull		/* between two tries of the held samples */
#define END_WAIT_NS	1000000000ull		/* at the end: tables being built, at most
						   (the end of a -d recording keeps its time) */
#define HELD_MAX_BYTES	(64ull << 20)		/* copies held at once, at most; beyond: not held */

/*
 * 4 MiB a second per CPU, at least 32 MiB (one thread sampled at 999 Hz
 * whose every tick meets a window not in yet: ~27 KiB a copy; 16 MiB
 * refused 246 of clang's 1,616 copies in t0713 on a quiet machine), at
 * most 64 MiB.
 */
uint64_t rawstack_budget_default(uint32_t nr_cpus)
{
	uint64_t b = (4ull << 20) * nr_cpus;

	return b < (32ull << 20) ? 32ull << 20 : b > (64ull << 20) ? 64ull << 20 : b;
}

struct held {
	struct ev_sample *e;	/* the record (malloc'ed, room for 127 user frames and its
				   Python frames): its user frames are rewritten once
				   finished */
	size_t size;
	uint64_t since;		/* when it arrived */
	bool wait;		/* it may wait for tables: its copy is charged to the memory budget */
	bool bare;		/* its copy is gone: as the walker left it (not waiting) */
	bool done;		/* finished: e's user frames are the second walk's */
	uint8_t walk_stop;	/* the walker's stop reason */
	uint8_t walk_fb;	/* the walker's first frame-pointer step, UNW_FB_MAX: none */
	uint8_t stop, fb;	/* the second walk's (done only) */
};

struct rawstack {
	struct unwinder *u;
	rawstack_vma_fn find_vma;	/* mappings the walker did not attach */
	void *find_ctx;
	struct held *v;
	size_t nr, alloc;
	uint64_t bytes;		/* held copies */
	uint64_t last_try;
	struct rawstack_totals t;
	/* per stop reason: walker's -> second walk's, to adjust the totals */
	uint64_t moved[UNW_STOP_MAX][UNW_STOP_MAX];
	/*
	 * Finished stacks whose first frame-pointer step was "no table yet",
	 * by the second walk's first one (UNW_FB_MAX: none)
	 */
	uint64_t fb_after[UNW_FB_MAX + 1];
};

/* The lookup of a try: rows from the unwinder; a table not in yet spoils the try. */
struct try_ctx {
	struct unwinder *u;
	const struct rawstack *r;
	uint32_t tgid;
	uint64_t time_ns;
	const struct uwalk_vma *vmas;
	size_t nr_vmas;
	struct uwalk_vma more[EV_RAW_VMAS];	/* found in the side-band's mappings */
	size_t nr_more;
	bool pending;
};

/* uwalk's more_vma: a mapping from the side-band, at most EV_RAW_VMAS a walk. */
static const struct uwalk_vma *try_more_vma(void *ctx, uint64_t pc)
{
	struct try_ctx *c = ctx;
	struct uwalk_vma *v;
	size_t i;

	for (i = 0; i < c->nr_more; i++)
		if (pc >= c->more[i].start && pc < c->more[i].end)
			return &c->more[i];
	if (!c->r->find_vma || c->nr_more == EV_RAW_VMAS)
		return NULL;
	v = &c->more[c->nr_more];
	if (!c->r->find_vma(c->r->find_ctx, c->tgid, pc, c->time_ns, v) || pc < v->start ||
	    pc >= v->end)
		return NULL;
	c->nr_more++;
	return v;
}

static enum uwalk_row try_row(void *ctx, const struct unw_key *key, uint64_t off,
			      struct unw_row *row)
{
	struct try_ctx *c = ctx;
	size_t i;

	switch (unwinder__row(c->u, key, off, row)) {
	case UNWINDER_ROW_FOUND:
		return UWALK_ROW_FOUND;
	case UNWINDER_ROW_NO_CFI:
		return UWALK_ROW_NO_CFI;
	case UNWINDER_ROW_NO_TABLE:
		return UWALK_ROW_NO_TABLE;
	case UNWINDER_ROW_PENDING:
		break;
	}
	if (!c->pending)
		for (i = 0; i < c->nr_vmas + c->nr_more; i++) {
			const struct uwalk_vma *v = i < c->nr_vmas ? &c->vmas[i] : &c->more[i - c->nr_vmas];

			if (!memcmp(&v->key, key, sizeof(*key)) &&
			    unwinder__request(c->u, c->tgid, v->start, v->end, key))
				pr_debug("raw stack: cannot ask for a table");
		}
	c->pending = true;
	return UWALK_ROW_NO_TABLE;
}

static uint32_t py_of(const struct ev_sample *e)
{
	return e->hdr.flags >> EV_SAMPLE_PY_SHIFT;
}

/* After the user frames and the Python frames (sampler.c checked it is in size). */
static const struct ev_raw *raw_of(const struct ev_sample *e)
{
	return (const struct ev_raw *)(e->frames + e->nr_kframes + e->nr_uframes + py_of(e));
}

/*
 * e as a sample without its copy: nu user frames, then its Python frames
 * (py, saved from before they moved) right after them.
 */
static void unraw(struct ev_sample *e, uint32_t nu, const uint64_t *py)
{
	uint32_t npy = py_of(e);

	memmove(e->frames + e->nr_kframes + nu, py, (size_t)npy * sizeof(uint64_t));
	e->nr_uframes = (__u16)nu;
	e->hdr.flags = (__u16)(npy << EV_SAMPLE_PY_SHIFT);
	e->hdr.size = (__u32)(sizeof(*e) + ((size_t)e->nr_kframes + nu + npy) * sizeof(__u64));
}

/* One try at h: finished (h->done) unless a table it needs is not in yet. */
static void try_one(struct rawstack *r, struct held *h)
{
	const struct ev_raw *raw = raw_of(h->e);
	struct uwalk_vma vmas[EV_RAW_VMAS];
	uint64_t frames[EV_MAX_UFRAMES], py[EV_PY_MAX_FRAMES];
	struct try_ctx c = { .u = r->u, .r = r, .tgid = h->e->tgid, .time_ns = h->e->time_ns,
			     .vmas = vmas };
	struct uwalk w = { 0 };
	uint32_t n;
	size_t i;

	for (i = 0; i < raw->nr_vmas && i < EV_RAW_VMAS; i++) {
		vmas[i].start = raw->vmas[i].start;
		vmas[i].end = raw->vmas[i].end;
		vmas[i].pgoff = raw->vmas[i].pgoff;
		memset(&vmas[i].key, 0, sizeof(vmas[i].key));
		vmas[i].key.dev = raw->vmas[i].dev;
		vmas[i].key.ino = raw->vmas[i].ino;
		vmas[i].key.ctime_ns = raw->vmas[i].ctime_ns;
	}
	c.nr_vmas = i;
	w.vmas = vmas;
	w.nr_vmas = i;
	w.mem_base = raw->sp - EV_RAW_BELOW_SP;
	w.mem = raw->stack;
	w.mem_len = raw->stack_len;
	w.row = try_row;
	w.more_vma = try_more_vma;
	w.ctx = &c;
	w.pc = raw->pc;
	w.sp = raw->sp;
	w.bp = raw->bp;
	w.bx = raw->bx;
	w.exact = raw->exact;
	w.bx_ok = raw->bx_ok;
	memcpy(frames, h->e->frames + h->e->nr_kframes, (size_t)raw->frame * sizeof(*frames));
	n = uwalk__run(&w, frames, raw->frame, EV_MAX_UFRAMES);
	if (c.pending)
		return;
	if (w.stop != UNW_STOP_END && w.stop != UNW_STOP_ZERO) {
		struct unw_row dr = { 0 };
		uint64_t lpc = w.exact ? w.pc : w.pc - 1;

		if (w.cur)
			unwinder__row(r->u, &w.cur->key, lpc - w.cur->start + (w.cur->pgoff << 12), &dr);
		pr_debug("raw stack of %u: stop %u after %u frames (%u from the copy), sp %#llx, "
			 "%u bytes copied, now at sp %#llx pc %#llx bp %#llx, row %u%+d (vma %#llx)",
			 h->e->tgid, w.stop, n, n - raw->frame, (unsigned long long)raw->sp,
			 raw->stack_len, (unsigned long long)w.sp, (unsigned long long)w.pc,
			 (unsigned long long)w.bp, dr.cfa_type, dr.cfa_off,
			 (unsigned long long)(w.cur ? w.cur->start : 0));
	}
	h->walk_stop = raw->walk_stop;
	h->walk_fb = raw->walk_fb <= UNW_FB_MAX ? raw->walk_fb : UNW_FB_MAX;
	h->stop = w.stop;
	h->fb = w.fb;
	/* the Python frames go after the new user frames, over the copy */
	memcpy(py, h->e->frames + h->e->nr_kframes + h->e->nr_uframes,
	       (size_t)py_of(h->e) * sizeof(*py));
	memcpy(h->e->frames + h->e->nr_kframes, frames, (size_t)n * sizeof(*frames));
	unraw(h->e, n, py);
	if (h->wait) {
		r->bytes -= h->size;
		mem_budget__give(h->size);
	}
	h->done = true;
}

/*
 * The copies held at once: half the memory budget, at most
 * HELD_MAX_BYTES; each is taken from the budget too. Copies wait only
 * until their tables or windows are in, and under a tight --mem-limit a
 * big binary's windows come last: an eighth (8 MiB at 128M) gave up one
 * clang stack in six.
 */
static uint64_t held_max(void)
{
	uint64_t b = mem_budget__size() / 2;

	return b < HELD_MAX_BYTES ? b : HELD_MAX_BYTES;
}

struct rawstack *rawstack__new(struct unwinder *u, rawstack_vma_fn find_vma, void *ctx)
{
	struct rawstack *r = calloc(1, sizeof(*r));

	if (r) {
		r->u = u;
		r->find_vma = find_vma;
		r->find_ctx = ctx;
	}
	return r;
}

void rawstack__free(struct rawstack *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr; i++) {
		if (r->v[i].wait && !r->v[i].done)
			mem_budget__give(r->v[i].size);
		free(r->v[i].e);
	}
	free(r->v);
	free(r);
}

/*
 * Whether taking more bytes would leave big binaries' windows short of the
 * memory they wait for: the copies wait for those windows, so the windows
 * come first (give_way).
 */
static bool windows_short(const struct rawstack *r, uint64_t more)
{
	uint64_t want = unwinder__mem_wanted(r->u), free = mem_budget__free();

	return want && (free < more || free - more < want);
}

/*
 * Under a tight --mem-limit the copies can fill the memory budget while
 * they wait for windows that wait for that memory: the newest copies give
 * way, as the walker left them, until the windows' need is free. Only
 * when what they hold can free it: otherwise (symbols hold the budget)
 * they would go for nothing.
 */
static void give_way(struct rawstack *r)
{
	uint64_t want = unwinder__mem_wanted(r->u), free = mem_budget__free();
	size_t i;

	if (!want || free >= want || free + r->bytes < want)
		return;
	for (i = r->nr; i-- > 0 && free < want;) {
		struct held *h = &r->v[i];

		if (h->done || !h->wait)
			continue;
		unraw(h->e, h->e->nr_uframes, (const uint64_t *)h->e->frames + h->e->nr_kframes +
						   h->e->nr_uframes);
		h->bare = true;
		h->wait = false;	/* given up at this flush */
		r->bytes -= h->size;
		mem_budget__give(h->size);
		free += h->size;
		r->t.gave_way++;
	}
}

int rawstack__hold(struct rawstack *r, const struct ev_sample *e, size_t size,
		   struct ev_sample **held)
{
	size_t full = sizeof(*e) + ((size_t)e->nr_kframes + EV_MAX_UFRAMES + py_of(e)) *
		      sizeof(__u64);
	struct ev_sample *small;
	struct held *h;
	bool over_share, for_windows;

	if (vec__grow(&r->v, &r->alloc, r->nr + 1, sizeof(*r->v)))
		return pr_errno(-ENOMEM, "cannot hold a raw stack");
	h = &r->v[r->nr];
	memset(h, 0, sizeof(*h));
	h->e = malloc(size > full ? size : full);
	if (!h->e)
		return pr_errno(-ENOMEM, "cannot hold a raw stack");
	memcpy(h->e, e, size);
	*held = h->e;
	h->size = size;
	h->since = now_ns();
	over_share = r->bytes + size > held_max();
	for_windows = !over_share && windows_short(r, size);
	h->wait = !over_share && !for_windows && mem_budget__take(size);
	r->nr++;
	r->t.held++;
	if (h->wait) {
		r->bytes += size;	/* tried from the record loop (a ring-buffer callback now) */
		return 0;
	}
	/*
	 * No room to wait: one try with the tables in now, else as the
	 * walker left it; either way the copy goes at once, and only the
	 * frames wait for the commit.
	 */
	if (!r->t.not_held++)
		pr_warn("stack copies waiting for unwind tables %s (%llu MiB held): the next ones "
			"are walked at once with the tables in (`eprof info` counts them as raw "
			"stacks not held; a larger --mem-limit keeps them)",
			over_share ? "reached their share of the memory budget" :
			for_windows ? "leave the memory budget to unwind windows waiting for it" :
				      "found the memory budget full",
			(unsigned long long)(r->bytes >> 20));
	try_one(r, h);
	if (!h->done)
		unraw(h->e, h->e->nr_uframes, (const uint64_t *)h->e->frames + h->e->nr_kframes +
						   h->e->nr_uframes);
	h->bare = true;
	small = realloc(h->e, h->e->hdr.size);
	if (small)
		h->e = small;
	*held = h->e;
	return 0;
}

/* Tries every held sample not finished, at most every RETRY_NS unless forced. */
static void try_all(struct rawstack *r, bool force)
{
	uint64_t now = now_ns();
	size_t i;

	if (!force && now - r->last_try < RETRY_NS)
		return;
	r->last_try = now;
	for (i = 0; i < r->nr; i++)
		if (!r->v[i].done && r->v[i].wait)
			try_one(r, &r->v[i]);
}

bool rawstack__waiting(struct rawstack *r)
{
	uint64_t now = now_ns();
	size_t i;

	if (!r || !r->nr)
		return false;
	try_all(r, false);
	for (i = 0; i < r->nr; i++)
		if (!r->v[i].done && r->v[i].wait && now - r->v[i].since < RAWSTACK_HOLD_NS)
			return true;
	return false;
}

/* How many held samples are not finished yet. */
static size_t waiting(const struct rawstack *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr; i++)
		n += !r->v[i].done && r->v[i].wait;
	return n;
}

uint64_t rawstack__held_since(struct rawstack *r)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; r && i < r->nr; i++)
		if (r->v[i].e->time_ns < t)
			t = r->v[i].e->time_ns;
	if (r && r->nr)
		r->t.held_back++;
	return t;
}

int rawstack__flush(struct rawstack *r, bool final, rawstack_emit_fn emit, void *ctx)
{
	uint64_t now = now_ns();
	size_t i, kept = 0;
	bool more;
	int err = 0;

	if (!r || !r->nr)
		return 0;
	if (final) {
		/*
		 * the tables asked for and being built: a bounded wait, again
		 * while tries ask for more (a big binary's windows, one frame
		 * after another)
		 */
		uint64_t deadline = now + END_WAIT_NS;
		size_t left = SIZE_MAX, stuck = 0;

		try_all(r, true);
		/* until all are finished, or eight rounds finish none */
		while (!err && (i = waiting(r)) && stuck < 8 && (now = now_ns()) < deadline) {
			stuck = i < left ? 0 : stuck + 1;
			left = i;
			/* the unwinder loads a binary's windows at most so often */
			if (stuck)
				nanosleep(&(struct timespec){ .tv_nsec = 25000000 }, NULL);
			err = unwinder__work(r->u, END_WAIT_NS / 20, &more);
			err = err ?: unwinder__drain(r->u, deadline - now);
			try_all(r, true);
		}
		if (err)
			return err;
	} else {
		try_all(r, false);
		give_way(r);
	}
	for (i = 0; i < r->nr; i++) {
		struct held *h = &r->v[i];

		if (err || (!h->done && !final && h->wait && now - h->since < RAWSTACK_HOLD_NS)) {
			r->v[kept++] = *h;
			continue;
		}
		if (h->done) {
			r->t.finished++;
			if (h->stop == UNW_STOP_END || h->stop == UNW_STOP_ZERO)
				r->t.complete++;
			if (h->walk_stop < UNW_STOP_MAX && h->stop < UNW_STOP_MAX)
				r->moved[h->walk_stop][h->stop]++;
			/*
			 * The copy was taken at the walk's first "no table yet"
			 * step: when that was its first frame-pointer step, the
			 * second walk's first one (or none) takes its place;
			 * an earlier one stays the stack's first.
			 */
			if (h->walk_fb == UNW_FB_NO_TABLE)
				r->fb_after[h->fb < UNW_FB_MAX ? h->fb : UNW_FB_MAX]++;
		} else {
			r->t.given_up++;
			/* as the walker left it: its frames, not the copy */
			if (!h->bare)
				unraw(h->e, h->e->nr_uframes, (const uint64_t *)h->e->frames +
								       h->e->nr_kframes + h->e->nr_uframes);
			if (h->wait) {
				r->bytes -= h->size;
				mem_budget__give(h->size);
			}
		}
		err = emit(ctx, h->e);
		free(h->e);
	}
	r->nr = kept;
	return err;
}

void rawstack__totals(const struct rawstack *r, struct rawstack_totals *t)
{
	memset(t, 0, sizeof(*t));
	if (r)
		*t = r->t;
}

/* tot[i] -= x, never below zero (a count the walker did not make is not taken from another). */
static void take(uint64_t *tot, size_t i, uint64_t x)
{
	tot[i] = tot[i] > x ? tot[i] - x : 0;
}

void rawstack__adjust_stats(const struct rawstack *r, uint64_t *tot)
{
	size_t a, b;

	if (!r)
		return;
	for (a = 0; a < UNW_STOP_MAX; a++)
		for (b = 0; b < UNW_STOP_MAX; b++) {
			take(tot, EV_STAT_UNW_STOP + a, r->moved[a][b]);
			tot[EV_STAT_UNW_STOP + b] += r->moved[a][b];
		}
	/* the first frame-pointer step of the finished stacks (rawstack__flush) */
	for (b = 0; b < UNW_FB_MAX; b++) {
		if (b == UNW_FB_NO_TABLE)
			continue;
		take(tot, EV_STAT_UNW_FB + UNW_FB_NO_TABLE, r->fb_after[b]);
		tot[EV_STAT_UNW_FB + b] += r->fb_after[b];
	}
	take(tot, EV_STAT_UNW_FB + UNW_FB_NO_TABLE, r->fb_after[UNW_FB_MAX]);
}

static int meta_u64(struct recording *rec, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return recording__set_meta(rec, key, buf);
}

int rawstack__store(const struct rawstack *r, struct recording *rec, const uint64_t *tot,
		    uint64_t budget)
{
	struct rawstack_totals t;
	int err;

	rawstack__totals(r, &t);
	err = meta_u64(rec, REC_META_RAW_BUDGET, budget);
	err = err ?: meta_u64(rec, REC_META_RAW_SAMPLES, tot[EV_STAT_RAW_SAMPLES]);
	err = err ?: meta_u64(rec, REC_META_RAW_BYTES, tot[EV_STAT_RAW_BYTES]);
	err = err ?: meta_u64(rec, REC_META_RAW_OVER, tot[EV_STAT_RAW_OVER]);
	err = err ?: meta_u64(rec, REC_META_RAW_FINISHED, t.finished);
	err = err ?: meta_u64(rec, REC_META_RAW_COMPLETE, t.complete);
	err = err ?: meta_u64(rec, REC_META_RAW_GIVEN_UP, t.given_up);
	err = err ?: meta_u64(rec, REC_META_RAW_GAVE_WAY, t.gave_way);
	err = err ?: meta_u64(rec, REC_META_RAW_NOT_HELD, t.not_held);
	err = err ?: meta_u64(rec, REC_META_RAW_HELD_BACK, t.held_back);
	return err;
}
