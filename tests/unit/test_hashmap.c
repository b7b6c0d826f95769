// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_hashmap.c - util/hashmap.c, the one hash table, and
 * util/hash.h, the one hash function: keys are found after any number of
 * growths, colliding hashes never merge two keys, a hash of 0 is a hash
 * like any other, sizes that would wrap are refused with the map intact,
 * and the u64 map on top keeps insertion order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"
#include "util/hash.h"
#include "util/hashmap.h"

/* Entries of a caller: strings in an array, the map holding their indexes. */
struct strs {
	const char *v[4096];
	size_t nr;
};

static bool str_eq(uint32_t val, const void *key, const void *ctx)
{
	const struct strs *s = ctx;

	return !strcmp(s->v[val], key);
}

static uint32_t intern(struct hashmap *m, struct strs *s, const char *str, uint64_t hash)
{
	uint32_t *slot;
	bool added;

	CHECK_OK(hashmap__upsert(m, hash, str_eq, str, s, (uint32_t)s->nr, &slot, &added));
	if (added)
		s->v[s->nr++] = str;
	return *slot;
}

static void finds_what_it_holds_after_growing(void)
{
	static char names[3000][16];
	struct hashmap m = HASHMAP_INIT;
	struct strs s = { .nr = 0 };
	size_t i;

	for (i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		CHECK_EQ_U64(intern(&m, &s, names[i], hash_str(names[i])), i);
	}
	CHECK_EQ_U64(m.nr, 3000);
	CHECK(m.cap >= 6000 && !(m.cap & (m.cap - 1)));	/* at most half full, a power of two */
	for (i = 0; i < 3000; i++) {
		uint32_t *v = hashmap__find(&m, hash_str(names[i]), str_eq, names[i], &s);

		CHECK(v && *v == i);
		CHECK_EQ_U64(intern(&m, &s, names[i], hash_str(names[i])), i);	/* not added again */
	}
	CHECK(!hashmap__find(&m, hash_str("absent"), str_eq, "absent", &s));
	CHECK_EQ_U64(s.nr, 3000);
	hashmap__release(&m);
	CHECK(!hashmap__find(&m, hash_str("f1"), str_eq, "f1", &s));	/* empty again */
	hashmap__release(&m);		/* twice is fine */
	hashmap__release(NULL);
}

static void equal_hashes_never_merge_keys(void)
{
	struct hashmap m = HASHMAP_INIT;
	struct strs s = { .nr = 0 };
	static const char *keys[] = { "a", "b", "c", "d", "e" };
	size_t i;

	/* every key hashes to 42, then every key to 0 (whose stored bits are the empty mark) */
	for (i = 0; i < 5; i++)
		CHECK_EQ_U64(intern(&m, &s, keys[i], 42), i);
	for (i = 0; i < 5; i++)
		CHECK_EQ_U64(intern(&m, &s, keys[i], 42), i);
	hashmap__release(&m);
	s.nr = 0;
	for (i = 0; i < 5; i++)
		CHECK_EQ_U64(intern(&m, &s, keys[i], 0), i);
	for (i = 0; i < 5; i++) {
		uint32_t *v = hashmap__find(&m, 0, str_eq, keys[i], &s);

		CHECK(v && *v == i);
	}
	CHECK_EQ_U64(m.nr, 5);
	hashmap__release(&m);
}

static void sets_of_words_and_iteration(void)
{
	struct hashmap m = HASHMAP_INIT;
	struct hashmap_slot *s;
	uint32_t k, *slot;
	uint64_t sum = 0, n = 0;
	bool added;

	for (k = 0; k < 1000; k++) {
		CHECK_OK(hashmap__upsert(&m, hash_u64(k), hashmap_eq_u32, &k, NULL, k, &slot, &added));
		CHECK(added);
	}
	k = 7;
	CHECK_OK(hashmap__upsert(&m, hash_u64(k), hashmap_eq_u32, &k, NULL, k, &slot, &added));
	CHECK(!added && *slot == 7);
	hashmap__for_each(&m, s) {
		sum += s->val;
		n++;
	}
	CHECK_EQ_U64(n, 1000);
	CHECK_EQ_U64(sum, 999 * 1000 / 2);
	hashmap__release(&m);
	hashmap__for_each(&m, s)	/* an empty map visits nothing */
		n++;
	CHECK_EQ_U64(n, 1000);
}

static void sizes_that_wrap_are_refused(void)
{
	struct hashmap m = HASHMAP_INIT;
	uint32_t k = 1, *slot;
	bool added;

	CHECK_EQ_U64(hashmap__reserve(&m, SIZE_MAX / 2 + 1), -ENOMEM);	/* 2n wraps */
	CHECK_EQ_U64(hashmap__reserve(&m, ((size_t)1 << 31) + 1), -ENOMEM);	/* 32-bit values */
	CHECK(m.slots == NULL && m.cap == 0);
	CHECK_OK(hashmap__upsert(&m, hash_u64(k), hashmap_eq_u32, &k, NULL, k, &slot, &added));
	CHECK_EQ_U64(hashmap__reserve(&m, SIZE_MAX / 8), -ENOMEM);
	CHECK(hashmap__find(&m, hash_u64(k), hashmap_eq_u32, &k, NULL));	/* kept */
	CHECK_OK(hashmap__reserve(&m, 1000));
	CHECK(m.cap >= 2000);
	CHECK(hashmap__find(&m, hash_u64(k), hashmap_eq_u32, &k, NULL));
	hashmap__release(&m);
}

static void u64_map_keeps_order_and_key_zero(void)
{
	struct u64map m = U64MAP_INIT;
	uint64_t i, *slot;
	bool added;
	size_t pos, seen = 0;

	CHECK(u64map__find(&m, 0) == NULL);	/* empty, never allocated */
	for (i = 1; i <= 5000; i++) {
		CHECK_OK(u64map__upsert(&m, i * 0x100000001ull, i, &slot, &added));
		CHECK(added);
	}
	CHECK_OK(u64map__upsert(&m, 0, 99, &slot, &added));	/* key 0 is a key */
	CHECK(added);
	CHECK_OK(u64map__upsert(&m, 0, 5, &slot, &added));
	CHECK(!added && *slot == 99);
	*slot = 7;
	CHECK_EQ_U64(*u64map__find(&m, 0), 7);
	CHECK(u64map__find(&m, 3) == NULL);
	CHECK_EQ_U64(m.nr, 5001);
	u64map__for_each(&m, pos) {
		if (pos < 5000)
			CHECK_EQ_U64(m.keys[pos], (pos + 1) * 0x100000001ull);
		seen++;
	}
	CHECK_EQ_U64(seen, 5001);
	u64map__release(&m);
	CHECK(u64map__find(&m, 0) == NULL);
	u64map__release(NULL);
}

static void hashes_spread_and_differ(void)
{
	uint64_t a = hash_bytes("abcdefgh", 8), b = hash_bytes("abcdefgi", 8);
	size_t low[16] = { 0 }, i;

	CHECK(a != b);
	CHECK(hash_bytes("ab", 2) != hash_bytes("ab\0", 3));	/* the length counts */
	CHECK(hash_bytes("", 0) != hash_bytes("\0", 1));
	CHECK(hash_mix(hash_mix(0, 1), 2) != hash_mix(hash_mix(0, 2), 1));	/* order counts */
	CHECK_EQ_U64(hash_str("main"), hash_bytes("main", 4));
	/* sequential keys fill the 16 low-bit buckets evenly (a table's index) */
	for (i = 0; i < 16000; i++)
		low[hash_u64(i) & 15]++;
	for (i = 0; i < 16; i++)
		CHECK(low[i] > 800 && low[i] < 1200);
}

static const struct test tests[] = {
	{ "finds what it holds after growing, half full at most", finds_what_it_holds_after_growing },
	{ "equal hashes (0 too) never merge two keys", equal_hashes_never_merge_keys },
	{ "sets of words; for_each visits each entry once", sets_of_words_and_iteration },
	{ "sizes that would wrap are -ENOMEM, the map intact", sizes_that_wrap_are_refused },
	{ "u64 map: insertion order, key 0, find after growth", u64_map_keeps_order_and_key_zero },
	{ "hashes: length and order count, low bits spread", hashes_spread_and_differ },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
