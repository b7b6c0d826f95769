// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_stacks.c - the stack de-duplication that "a sample
 * is never attributed to a stack it did not have" rests on (record/hashmap.c):
 * equal content gives the same id, different content never does, even when
 * every stack is given the same 64-bit hash, and ids stay dense and stable
 * while the table grows. Also the u64 map beside it, and the path pool of
 * the kept mappings (record/mappings.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/budget.h"
#include "record/mappings.h"
#include "record/stacks.h"
#include "tests/unit/harness.h"

/* Interns frames and checks the call itself succeeded. */
static uint32_t intern(struct stack_table *t, const uint64_t *frames, uint32_t nk, uint32_t nu,
		       bool *added)
{
	int err = -1;
	uint32_t id = stack_table__intern(t, frames, nk, nu, added, &err);

	CHECK_OK(err);
	CHECK(id != 0);
	return id;
}

/* The stored copy of id holds exactly these frames with this split. */
static bool holds(const struct stack_table *t, uint32_t id, const uint64_t *frames, uint32_t nk,
		  uint32_t nu)
{
	const struct stack_entry *e = stack_table__get(t, id);

	return e && e->nr_kernel == nk && e->nr_user == nu &&
	       !memcmp(e->frames, frames, (size_t)(nk + nu) * sizeof(*frames));
}

static void equal_content_same_id(void)
{
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t a[] = { 0xffffffff81000010ull, 0x401000, 0x402000 };
	uint64_t copy[3];
	uint32_t id1, id2;
	bool added;

	id1 = intern(&t, a, 1, 2, &added);
	CHECK(added);
	CHECK_EQ_U64(id1, 1);
	memcpy(copy, a, sizeof(a));	/* the content counts, not the buffer */
	id2 = intern(&t, copy, 1, 2, &added);
	CHECK(!added);
	CHECK_EQ_U64(id2, id1);
	CHECK_EQ_U64(t.nr, 1);
	CHECK(holds(&t, id1, a, 1, 2));
	stack_table__release(&t);
}

static void different_content_different_ids(void)
{
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t f[] = { 0x1000, 0x2000, 0x3000 };
	uint64_t g[] = { 0x1000, 0x2000, 0x3001 };	/* one frame differs by one */
	uint64_t h[] = { 0x3000, 0x2000, 0x1000 };	/* same frames, other order */
	uint32_t ids[8];
	bool added;
	size_t i, j;

	ids[0] = intern(&t, f, 0, 3, &added);
	ids[1] = intern(&t, g, 0, 3, &added);
	ids[2] = intern(&t, h, 0, 3, &added);
	ids[3] = intern(&t, f, 1, 2, &added);	/* same frames, first one kernel */
	ids[4] = intern(&t, f, 3, 0, &added);	/* all kernel */
	ids[5] = intern(&t, f, 0, 2, &added);	/* a prefix */
	ids[6] = intern(&t, f, 0, 0, &added);	/* empty (both stacks failed) */
	ids[7] = intern(&t, f, 0, 1, &added);
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		for (j = i + 1; j < ARRAY_SIZE(ids); j++)
			CHECK(ids[i] != ids[j]);
	CHECK_EQ_U64(t.nr, ARRAY_SIZE(ids));
	CHECK(holds(&t, ids[3], f, 1, 2));
	CHECK(holds(&t, ids[6], f, 0, 0));
	CHECK_EQ_U64(intern(&t, f, 0, 0, &added), ids[6]);	/* the empty stack again */
	CHECK(!added);
	stack_table__release(&t);
}

/*
 * Every stack gets the same hash, so each lookup walks a chain of hash
 * matches whose content differs: ids must still be one per content.
 */
static void forced_collisions_keep_stacks_apart(void)
{
	enum { N = 3000 };	/* past the first growths of entries and slots */
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t frames[4];
	uint32_t id;
	bool added;
	int err;
	size_t i;

	for (i = 0; i < N; i++) {
		frames[0] = 0x400000 + i;
		frames[1] = 0x500000;
		frames[2] = i % 7;
		frames[3] = 0xffffffff81000000ull;
		id = stack_table__intern_hash(&t, 0x1234, frames, 1, 3, &added, &err);
		CHECK_OK(err);
		CHECK(added);
		CHECK_EQ_U64(id, i + 1);
	}
	for (i = 0; i < N; i++) {	/* every one found again, by content */
		frames[0] = 0x400000 + i;
		frames[1] = 0x500000;
		frames[2] = i % 7;
		frames[3] = 0xffffffff81000000ull;
		id = stack_table__intern_hash(&t, 0x1234, frames, 1, 3, &added, &err);
		CHECK(!added);
		CHECK_EQ_U64(id, i + 1);
		CHECK(holds(&t, id, frames, 1, 3));
	}
	/* the same frames with another split also collide, and still differ */
	id = stack_table__intern_hash(&t, 0x1234, frames, 2, 2, &added, &err);
	CHECK(added);
	CHECK_EQ_U64(id, N + 1);
	CHECK_EQ_U64(t.nr, N + 1);
	stack_table__release(&t);
}

/* Hashes that differ only in bits above the slot mask share slots too. */
static void same_slot_different_hash(void)
{
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t a = 0xa, b = 0xb;
	uint32_t ia, ib;
	bool added;
	int err;

	ia = stack_table__intern_hash(&t, 5, &a, 0, 1, &added, &err);
	ib = stack_table__intern_hash(&t, 5 | 1ull << 40, &b, 0, 1, &added, &err);
	CHECK(ia != ib);
	CHECK_EQ_U64(stack_table__intern_hash(&t, 5, &a, 0, 1, &added, &err), ia);
	CHECK_EQ_U64(stack_table__intern_hash(&t, 5 | 1ull << 40, &b, 0, 1, &added, &err), ib);
	stack_table__release(&t);
}

/* Many distinct stacks: dense ids in order, unchanged by growth. */
static void ids_dense_and_stable_across_growth(void)
{
	enum { N = 50000 };
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t frames[8];
	uint32_t nk, nu, id;
	bool added;
	size_t i, k;

	for (i = 0; i < N; i++) {
		nk = (uint32_t)(i % 3);
		nu = (uint32_t)(1 + i % 5);
		for (k = 0; k < nk + nu; k++)
			frames[k] = (i * 2654435761u) ^ (k << 48);
		id = intern(&t, frames, nk, nu, &added);
		CHECK(added);
		CHECK_EQ_U64(id, i + 1);
	}
	for (i = 0; i < N; i += 7) {
		nk = (uint32_t)(i % 3);
		nu = (uint32_t)(1 + i % 5);
		for (k = 0; k < nk + nu; k++)
			frames[k] = (i * 2654435761u) ^ (k << 48);
		CHECK_EQ_U64(intern(&t, frames, nk, nu, &added), i + 1);
		CHECK(!added);
		CHECK(holds(&t, (uint32_t)(i + 1), frames, nk, nu));
	}
	CHECK(stack_table__get(&t, 0) == NULL);
	CHECK(stack_table__get(&t, N + 1) == NULL);
	CHECK(stack_table__get(&t, N) != NULL);
	stack_table__release(&t);
	CHECK_EQ_U64(t.nr, 0);
	stack_table__release(&t);	/* twice: a released table is an empty one */
}

static void u64map_basics(void)
{
	struct u64map m = U64MAP_INIT;
	uint64_t *slot;
	bool added;
	size_t i, seen = 0;

	CHECK(u64map__find(&m, 0) == NULL);	/* empty, never allocated */
	for (i = 0; i < 10000; i++) {
		CHECK_OK(u64map__upsert(&m, i * 0x100000001ull, i, &slot, &added));
		CHECK(added);
	}
	CHECK_OK(u64map__upsert(&m, 0, 99, &slot, &added));	/* key 0 is a key */
	CHECK(!added);
	CHECK_EQ_U64(*slot, 0);		/* an existing value is not overwritten */
	*slot = 7;
	CHECK_EQ_U64(*u64map__find(&m, 0), 7);
	for (i = 1; i < 10000; i++) {
		slot = u64map__find(&m, i * 0x100000001ull);
		CHECK(slot && *slot == i);
	}
	CHECK(u64map__find(&m, 3) == NULL);
	CHECK_EQ_U64(m.nr, 10000);
	u64map__for_each(&m, i)
		seen++;
	CHECK_EQ_U64(seen, 10000);
	u64map__release(&m);
	CHECK(u64map__find(&m, 0) == NULL);
}

/* Mappings of the same file share one copy of its path; a repool keeps only the used ones. */
static void mapping_paths_pooled(void)
{
	struct mapping_table t = { 0 };
	struct rec_mapping m = { .start = 0x1000, .end = 0x2000 };
	char path[64];
	size_t i, kept;

	for (i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "/usr/lib/lib%zu.so", i % 3);
		m.path = path;	/* a buffer the caller reuses: the table copies */
		m.tgid = (uint32_t)i;
		CHECK_OK(mapping_table__add(&t, &m));
	}
	CHECK_EQ_U64(t.nr, 3000);
	CHECK_EQ_U64(t.paths.nr, 3);
	CHECK(t.v[0].path == t.v[3].path && t.v[1].path != t.v[0].path);
	CHECK_STR(t.v[2].path, "/usr/lib/lib2.so");
	/* forget every mapping of lib1 and lib2 but one of lib2 */
	for (i = kept = 0; i < t.nr; i++)
		if (t.v[i].tgid % 3 == 0 || t.v[i].tgid == 2999)
			t.v[kept++] = t.v[i];
	t.nr = kept;
	CHECK_OK(mapping_table__repool(&t));
	CHECK_EQ_U64(t.paths.nr, 2);
	CHECK_STR(t.v[0].path, "/usr/lib/lib0.so");
	CHECK_STR(t.v[t.nr - 1].path, "/usr/lib/lib2.so");
	m.path = "/usr/lib/lib0.so";
	CHECK_OK(mapping_table__add(&t, &m));
	CHECK(t.v[t.nr - 1].path == t.v[0].path);
	mapping_table__release(&t);
	CHECK_EQ_U64(t.nr, 0);
}

/* A stack of `depth` frames, distinct for each i. */
static void distinct_stack(uint64_t *f, uint32_t depth, uint64_t i)
{
	uint32_t j;

	for (j = 0; j < depth; j++)
		f[j] = 0x400000 + i * 64 + j;
}

/*
 * Under a small budget the table and its pairs stay within their floor and
 * share;
 * past it, a sample gets the empty stack (counted, its stack new in the
 * recording once), the table is full, and forgetting it gives the memory
 * back while ids go on: a stack met again is a new id, never an old one.
 */
static void budget_refuses_then_forget(void)
{
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t f[32], share, used0, i;
	struct stack_use u = { 0 }, first;
	uint32_t empty = 0, last = 0;
	size_t kept;

	mem_budget__set_ceiling(4u << 20);
	share = mem_budget__size() / STACKS_SHARE_DIV;
	used0 = mem_budget__used();
	distinct_stack(f, 32, 0);
	CHECK_OK(stack_table__use(&t, f, 2, 30, 7, 100, &first));
	CHECK(first.added && first.pair_added && !first.refused);
	CHECK_EQ_U64(first.id, 1);
	CHECK(!stack_table__forget_due(&t));
	for (i = 1; i < 100000 && !u.refused; i++) {
		distinct_stack(f, 32, i);
		CHECK_OK(stack_table__use(&t, f, 2, 30, 7, 100 + i, &u));
		CHECK(t.charged <= share && t.floor <= STACKS_FLOOR);
		CHECK_EQ_U64(mem_budget__used() - used0, t.charged);
		if (!u.refused) {
			CHECK(u.added && u.pair_added);
			CHECK_EQ_U64(u.id, last + 2);	/* dense */
			last = u.id - 1;
		}
	}
	CHECK(u.refused);
	CHECK(t.floor > STACKS_FLOOR - 4096 && t.charged > share - 4096);	/* both used */
	CHECK(t.full && stack_table__forget_due(&t));
	CHECK(u.added);	/* the empty stack, new: the recording needs it */
	CHECK(!u.pair_added);
	empty = u.id;
	CHECK(stack_table__get(&t, empty)->nr_kernel + stack_table__get(&t, empty)->nr_user == 0);
	CHECK_EQ_U64(t.file.refused, 1);
	/* the next refused one gets it again, not new */
	distinct_stack(f, 32, i + 1);
	CHECK_OK(stack_table__use(&t, f, 2, 30, 7, 1, &u));
	CHECK(u.refused && !u.added && u.id == empty);
	CHECK_EQ_U64(t.total.refused, 2);
	/* a stack kept before is still given, with a new pair only if it fits */
	distinct_stack(f, 32, 0);
	CHECK_OK(stack_table__use(&t, f, 2, 30, 7, 1, &u));
	CHECK(!u.refused && !u.added && !u.pair_added && u.id == first.id);

	kept = t.nr;
	stack_table__forget(&t);
	CHECK_EQ_U64(mem_budget__used(), used0);
	CHECK(!t.full && !stack_table__forget_due(&t));
	CHECK_EQ_U64(t.file.forgets, 1);
	CHECK_EQ_U64(t.file.forgotten, kept);
	CHECK(stack_table__get(&t, first.id) == NULL);
	CHECK(stack_table__get(&t, empty) == NULL);
	/* the same content again: a new id after every one given */
	CHECK_OK(stack_table__use(&t, f, 2, 30, 7, 1, &u));
	CHECK(u.added && u.pair_added && !u.refused);
	CHECK_EQ_U64(u.id, kept + 1);
	CHECK(holds(&t, u.id, f, 2, 30));
	/* a new file: ids from 1 again, the file's counts gone, the totals kept */
	stack_table__clear(&t);
	CHECK_EQ_U64(mem_budget__used(), used0);
	CHECK_EQ_U64(t.file.forgets, 0);
	CHECK_EQ_U64(t.total.forgets, 1);
	CHECK_OK(stack_table__use(&t, f, 2, 30, 7, 1, &u));
	CHECK_EQ_U64(u.id, 1);
	stack_table__release(&t);
	CHECK_EQ_U64(mem_budget__used(), used0);
	mem_budget__set_ceiling(MEM_CEILING_DEFAULT);
}

/* Pairs: one per (process, stack); a stack of another process is a new pair, not a new stack. */
static void pairs_per_process(void)
{
	struct stack_table t = STACK_TABLE_INIT;
	uint64_t f[] = { 0x401000, 0x402000 };
	struct stack_use u;

	CHECK_OK(stack_table__use(&t, f, 0, 2, 10, 5, &u));
	CHECK(u.added && u.pair_added);
	CHECK_OK(stack_table__use(&t, f, 0, 2, 10, 6, &u));
	CHECK(!u.added && !u.pair_added);
	CHECK_OK(stack_table__use(&t, f, 0, 2, 11, 7, &u));
	CHECK(!u.added && u.pair_added && u.id == 1);
	CHECK_EQ_U64(t.pairs.nr, 2);
	CHECK_EQ_U64(*u64map__find(&t.pairs, (uint64_t)10 << 32 | 1), 5);	/* the first time */
	stack_table__release(&t);
}

/*
 * Mappings past the floor draw from the budget; when it is full they are
 * not kept, and counted; what forgotten mappings took comes back.
 */
static void mappings_within_budget(void)
{
	struct mapping_table t = { 0 };
	struct rec_mapping m = { .start = 0x1000, .end = 0x2000, .path = "/usr/lib/x.so" };
	uint64_t used0;
	size_t i;

	mem_budget__set_ceiling(1u << 20);
	used0 = mem_budget__used();
	for (i = 0; i < 1000000 && !t.nr_refused; i++) {
		m.tgid = (uint32_t)i;
		CHECK_OK(mapping_table__add(&t, &m));
	}
	CHECK(t.nr_refused == 1);
	CHECK(t.nr > 1000 && t.nr < 1000000);
	CHECK(t.floor <= MAPS_FLOOR);
	CHECK_EQ_U64(mem_budget__used() - used0, t.charged);
	CHECK((uint64_t)t.alloc * sizeof(*t.v) <= MAPS_FLOOR + mem_budget__size());
	/* all but 10 forgotten: the array shrinks and the budget gets its share back */
	t.nr = 10;
	mapping_table__fit(&t);
	CHECK(t.alloc < 64);
	CHECK_EQ_U64(t.charged, 0);
	CHECK_EQ_U64(mem_budget__used(), used0);
	CHECK_OK(mapping_table__add(&t, &m));
	CHECK_EQ_U64(t.nr, 11);
	mapping_table__release(&t);
	CHECK_EQ_U64(mem_budget__used(), used0);
	mem_budget__set_ceiling(MEM_CEILING_DEFAULT);
}

/*
 * One process past MAPS_PROC_FLOOR_ROWS mappings takes no more of the
 * floor and at most a quarter of the budget: refused there, while a
 * process with few mappings still gets its own from the floor (t0818).
 */
static void crowding_process_leaves_room(void)
{
	struct mapping_table t = { 0 };
	struct rec_mapping m = { .tgid = 7, .end = 0x1000, .path = "/usr/lib/x.so" };
	uint64_t floor_at_cap = 0;
	size_t i;

	mem_budget__set_ceiling(64u << 20);
	for (i = 0; i < 2000000 && !t.nr_refused; i++) {
		m.start = (uint64_t)i << 12;
		m.end = m.start + 0x1000;
		CHECK_OK(mapping_table__add(&t, &m));
		if (i + 1 == MAPS_PROC_FLOOR_ROWS)
			floor_at_cap = t.floor;
	}
	CHECK_EQ_U64(t.nr_refused, 1);
	CHECK(t.nr > MAPS_PROC_FLOOR_ROWS);
	CHECK(t.charged <= mem_budget__size() / MAPS_BIG_SHARE_DIV);
	CHECK(t.floor <= floor_at_cap + 4096);	/* settle may hold what grew unasked */
	CHECK(mem_budget__free() >= mem_budget__size() / 2);
	/* another process: kept, from the floor */
	m.tgid = 8;
	CHECK_OK(mapping_table__add(&t, &m));
	CHECK_EQ_U64(t.nr_refused, 1);
	CHECK_EQ_U64(*u64map__find(&t.per_proc, 8), 1);
	/* process 7's mappings forgotten: counted again, its next one is kept */
	t.nr = 1;
	t.v[0].tgid = 8;
	mapping_table__fit(&t);
	CHECK(!u64map__find(&t.per_proc, 7));
	m.tgid = 7;
	CHECK_OK(mapping_table__add(&t, &m));
	CHECK_EQ_U64(t.nr_refused, 1);
	mapping_table__release(&t);
	mem_budget__set_ceiling(MEM_CEILING_DEFAULT);
}

static const struct test tests[] = {
	{ "stack table: within its budget share, refused as the empty stack, forgotten",
	  budget_refuses_then_forget },
	{ "stack pairs: one per process and stack", pairs_per_process },
	{ "mappings: past the floor from the budget, refused and counted, given back",
	  mappings_within_budget },
	{ "mappings: a crowding process leaves the floor and most of the budget",
	  crowding_process_leaves_room },
	{ "mapping paths: one copy each, repool drops the unused", mapping_paths_pooled },
	{ "equal content gives the same id", equal_content_same_id },
	{ "different content never shares an id", different_content_different_ids },
	{ "one hash for 3000 stacks: still one id each", forced_collisions_keep_stacks_apart },
	{ "one slot, two hashes: two ids", same_slot_different_hash },
	{ "ids are dense and survive growth", ids_dense_and_stable_across_growth },
	{ "u64 map: upsert, find, growth, key 0", u64map_basics },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
