// SPDX-License-Identifier: MIT
/*
 * record/threads.c - the recorder's one table of threads and one of
 * processes (threads.h): rows in an array by id through the one hash map,
 * removed in place and compacted when removed rows are most of the array,
 * every byte of rows and index charged to the memory budget.
 *
 * util/hashmap.h never removes an entry: a removed row stays in the index
 * as a tombstone (its eq says no), and compaction rebuilds the index from
 * the live rows, so a fork storm's rows cost time linear in their number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/budget.h"
#include "record/threads.h"
#include "util/hash.h"
#include "util/log.h"

#define MIN_ROWS	64

static inline struct row_head *row_at(const struct row_table *rt, size_t i)
{
	return (struct row_head *)(void *)(rt->rows + i * rt->size);
}

static bool row_eq(uint32_t val, const void *key, const void *ctx)
{
	const struct row_head *h = row_at(ctx, val);

	return !h->dead && h->id == *(const uint32_t *)key;
}

static void *row_find(const struct row_table *rt, uint32_t id)
{
	uint32_t *pos = hashmap__find(&rt->index, hash_u64(id), row_eq, &id, rt);

	return pos ? row_at(rt, *pos) : NULL;
}

/* The bytes rows and index hold now. */
static uint64_t row_bytes(const struct row_table *rt)
{
	return (uint64_t)rt->alloc * rt->size + (uint64_t)rt->index.cap * sizeof(*rt->index.slots);
}

/*
 * Brings the budget's charge to what rt holds. Growing: false (nothing
 * changed in the charge) when the table's share or the budget is full.
 */
static bool recharge(struct row_table *rt, uint64_t bytes)
{
	if (bytes <= rt->charged) {
		mem_budget__give(rt->charged - bytes);
		rt->charged = bytes;
		return true;
	}
	if (!mem_budget__take(bytes - rt->charged))
		return false;
	rt->charged = bytes;
	return true;
}

/* The live rows moved down over the removed ones. */
static void pack(struct row_table *rt)
{
	size_t i, kept = 0;

	for (i = 0; i < rt->nr; i++) {
		struct row_head *h = row_at(rt, i);

		if (h->dead)
			continue;
		if (i != kept)
			memcpy(row_at(rt, kept), h, rt->size);
		kept++;
	}
	rt->nr = kept;
	rt->nr_dead = 0;
}

/*
 * The index again, for the whole array. On failure the rows are dropped
 * (a thread without its row only gets one more name row): -ENOMEM.
 */
static int reindex(struct row_table *rt)
{
	size_t i;
	int err;

	hashmap__release(&rt->index);
	err = hashmap__reserve(&rt->index, rt->alloc);
	for (i = 0; i < rt->nr && !err; i++)
		err = hashmap__add(&rt->index, hash_u64(row_at(rt, i)->id), (uint32_t)i);
	if (err) {
		hashmap__release(&rt->index);
		rt->nr = rt->nr_dead = 0;
	}
	return err;
}

static int compact(struct row_table *rt)
{
	pack(rt);
	return reindex(rt);
}

/*
 * Room for one more row: removed rows compacted away first when they are
 * a quarter of the array, else the array doubled within the budget (the
 * index reserved for all of it, so that an addition never grows it).
 */
static int make_room(struct row_table *rt, uint64_t share)
{
	size_t want;
	unsigned char *rows;
	int err;

	if (rt->nr < rt->alloc)
		return 0;
	if (rt->nr_dead * 4 >= rt->nr && rt->nr_dead) {
		err = compact(rt);
		if (err)
			return err;
		if (rt->nr < rt->alloc)
			return 0;
	}
	want = rt->alloc ? rt->alloc * 2 : MIN_ROWS;
	if (want > UINT32_MAX / 2 || want < rt->alloc)
		return -ENOMEM;
	/* the index at its next size: half full at want entries */
	if ((uint64_t)want * rt->size + (uint64_t)want * 2 * sizeof(*rt->index.slots) > share ||
	    !recharge(rt, (uint64_t)want * rt->size + (uint64_t)want * 2 * sizeof(*rt->index.slots)))
		return -ENOSPC;
	rows = realloc(rt->rows, want * rt->size);
	if (!rows) {
		recharge(rt, row_bytes(rt));
		return -ENOMEM;
	}
	rt->rows = rows;
	rt->alloc = want;
	err = hashmap__reserve(&rt->index, want);
	recharge(rt, row_bytes(rt));	/* the exact size: never more than taken */
	return err;
}

/*
 * Gives memory back when live rows are under a quarter of the array
 * (after a storm): compacted into an array of half or less.
 */
static void shrink(struct row_table *rt)
{
	size_t want = rt->alloc;
	unsigned char *rows;

	while (want > MIN_ROWS && (rt->nr - rt->nr_dead) * 4 < want)
		want /= 2;
	if (want == rt->alloc)
		return;
	pack(rt);
	rows = realloc(rt->rows, want * rt->size);
	if (rows) {
		rt->rows = rows;
		rt->alloc = want;
	}
	reindex(rt);
	recharge(rt, row_bytes(rt));	/* smaller: always given back */
}

static int row_add(struct threads *t, struct row_table *rt, uint32_t id, void **out)
{
	static bool said;
	struct row_head *h;
	size_t live;
	int err;

	err = make_room(rt, mem_budget__size() / 4);
	if (err == -ENOSPC) {
		t->nr_refused++;
		if (!said) {
			said = true;
			pr_warn("the recorder's table of threads and processes fills its share of "
				"the memory budget (%zu rows): names of newer ones are written "
				"without being deduplicated (raise --mem-limit)", rt->nr - rt->nr_dead);
		}
	}
	if (err)
		return err;
	h = row_at(rt, rt->nr);
	memset(h, 0, rt->size);
	h->id = id;
	err = hashmap__add(&rt->index, hash_u64(id), (uint32_t)rt->nr);
	if (err)
		return err;
	rt->nr++;
	live = rt->nr - rt->nr_dead;
	if (live > rt->peak)
		rt->peak = live;
	*out = h;
	return 0;
}

static void row_remove(struct row_table *rt, struct row_head *h)
{
	if (h->dead)
		return;
	h->dead = 1;
	rt->nr_dead++;
}

static void table_release(struct row_table *rt)
{
	size_t size = rt->size;

	hashmap__release(&rt->index);
	free(rt->rows);
	mem_budget__give(rt->charged);
	memset(rt, 0, sizeof(*rt));
	rt->size = size;
}

void threads__init(struct threads *t)
{
	memset(t, 0, sizeof(*t));
}

/* Zeroed tables learn their row sizes at first use. */
static void sizes(struct threads *t)
{
	t->thr.size = sizeof(struct thread_row);
	t->proc.size = sizeof(struct proc_row);
}

void threads__release(struct threads *t)
{
	if (!t)
		return;
	table_release(&t->thr);
	table_release(&t->proc);
	free(t->named);
	memset(t, 0, sizeof(*t));
}

/* The row of id in rt, added when absent. */
static int row_get(struct threads *t, struct row_table *rt, uint32_t id, void **out)
{
	void *r = rt->nr ? row_find(rt, id) : NULL;
	int err;

	if (!r) {
		sizes(t);
		err = row_add(t, rt, id, &r);
		if (err)
			return err;
	}
	*out = r;
	return 0;
}

struct thread_row *threads__thread(const struct threads *t, uint32_t tid)
{
	return t->thr.nr ? row_find(&t->thr, tid) : NULL;
}

int threads__thread_add(struct threads *t, uint32_t tid, uint32_t tgid, struct thread_row **out)
{
	void *r;
	int err = row_get(t, &t->thr, tid, &r);

	if (err)
		return err;
	*out = r;
	(*out)->tgid = tgid;
	return 0;
}

struct proc_row *threads__proc(const struct threads *t, uint32_t tgid)
{
	return t->proc.nr ? row_find(&t->proc, tgid) : NULL;
}

int threads__proc_add(struct threads *t, uint32_t tgid, struct proc_row **out)
{
	void *r;
	int err = row_get(t, &t->proc, tgid, &r);

	if (!err)
		*out = r;
	return err;
}

void threads__thread_exit(struct threads *t, uint32_t tid, uint64_t time_ns, uint64_t commit)
{
	struct thread_row *r = threads__thread(t, tid);

	if (!r || !time_ns)
		return;		/* no row: nothing to forget */
	r->exit_ns = time_ns;
	r->exit_commit = commit;
}

void threads__sweep(struct threads *t, uint64_t commit, const struct u64map *gone)
{
	size_t i;

	for (i = 0; i < t->thr.nr; i++) {
		struct thread_row *r = (struct thread_row *)row_at(&t->thr, i);

		if (r->h.dead)
			continue;
		if ((r->exit_ns && r->exit_commit + 2 <= commit) ||
		    (gone && u64map__find(gone, r->tgid))) {
			row_remove(&t->thr, &r->h);
			t->nr_removed++;
		}
	}
	for (i = 0; gone && i < gone->nr; i++) {
		struct proc_row *p = threads__proc(t, (uint32_t)gone->keys[i]);

		if (p)
			row_remove(&t->proc, &p->h);
	}
	shrink(&t->thr);
	shrink(&t->proc);
}

void threads__forget_exec(struct threads *t, const struct u64map *live)
{
	size_t i;

	for (i = 0; i < t->proc.nr; i++) {
		struct proc_row *p = (struct proc_row *)row_at(&t->proc, i);

		if (p->h.dead || u64map__find(live, p->h.id))
			continue;
		p->exec_ns = 0;
		if (!p->held && !p->sampled)
			row_remove(&t->proc, &p->h);
	}
}

bool threads__named(const struct threads *t, uint32_t tid)
{
	if (tid >= THREADS_TID_LIMIT)
		return true;
	return tid / 64 < t->named_words && (t->named[tid / 64] >> (tid % 64) & 1);
}

int threads__set_named(struct threads *t, uint32_t tid)
{
	size_t words, i;
	uint64_t *v;

	if (tid >= THREADS_TID_LIMIT)
		return 0;
	if (tid / 64 >= t->named_words) {
		/* doubled, to the word of tid at least: 512 KiB at most */
		words = t->named_words ? t->named_words * 2 : 512;
		while (words <= tid / 64)
			words *= 2;
		if (words > THREADS_TID_LIMIT / 64)
			words = THREADS_TID_LIMIT / 64;
		v = realloc(t->named, words * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (i = t->named_words; i < words; i++)
			v[i] = 0;
		t->named = v;
		t->named_words = words;
	}
	t->named[tid / 64] |= 1ull << (tid % 64);
	return 0;
}

void threads__start_file(struct threads *t)
{
	size_t i;

	if (t->named)
		memset(t->named, 0, t->named_words * sizeof(*t->named));
	for (i = 0; i < t->thr.nr; i++)
		((struct thread_row *)row_at(&t->thr, i))->has_comm = false;
	for (i = 0; i < t->proc.nr; i++)
		((struct proc_row *)row_at(&t->proc, i))->sampled = false;
}

size_t threads__nr_threads(const struct threads *t)
{
	return t->thr.nr - t->thr.nr_dead;
}

size_t threads__nr_procs(const struct threads *t)
{
	return t->proc.nr - t->proc.nr_dead;
}
