/* SPDX-License-Identifier: MIT */
/*
 * util/hash.h - the one hash function of eprof: splitmix64's finalizer,
 * applied to a 64-bit word, to a sequence of words (hash_mix) or to bytes
 * read eight at a time (hash_bytes). Every input bit reaches every output
 * bit, so a table may take its index from the low bits alone.
 *
 * These hashes pick slots; they never decide equality. util/hashmap.h
 * compares the entries themselves on every hash match, so two different
 * keys with one hash still get two entries.
 */
#ifndef EPROF_UTIL_HASH_H
#define EPROF_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A bijection on 64-bit words: different words never share a hash. */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Adds the word v to the running hash h (of a key made of several words). */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
	return hash_u64(h ^ (v + 0x9e3779b97f4a7c15ull));
}

/* The hash of len bytes: eight at a time, then the tail with its length. */
static inline uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = hash_u64(len ^ 0x9e3779b97f4a7c15ull), w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = hash_u64(h ^ w);
		p += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = hash_u64(h ^ w ^ 0xff);
	}
	return h;
}

static inline uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

#endif
