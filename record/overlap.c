// SPDX-License-Identifier: MIT
/*
 * record/overlap.c - side-band records seen twice while a buffer is
 * replaced (record/overlap.h).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "record/overlap.h"
#include "util/bsearch.h"
#include "util/hash.h"
#include "util/vec.h"

/* sample_id_all with PERF_SAMPLE_TID | PERF_SAMPLE_TIME ends every record with the time. */
#define TIME_SIZE	8
/* PERF_RECORD_FORK and EXIT: pid, ppid, tid, ptid, then their own time. */
#define TASK_TIME_AT	(sizeof(struct perf_event_header) + 16)

static uint64_t stamp(const struct perf_event_header *h)
{
	uint64_t t = 0;

	if (h->size >= sizeof(*h) + TIME_SIZE)
		memcpy(&t, (const char *)h + h->size - TIME_SIZE, sizeof(t));
	return t;
}

uint64_t overlap__key(int cpu, const struct perf_event_header *h)
{
	const char *p = (const char *)h;
	size_t at = sizeof(*h), end = at;
	uint64_t k = hash_mix(hash_u64((uint64_t)(uint32_t)cpu), ((uint64_t)h->type << 16) | h->misc);

	if (h->size >= sizeof(*h) + TIME_SIZE)
		end = (size_t)h->size - TIME_SIZE;

	if ((h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) &&
	    end >= TASK_TIME_AT + TIME_SIZE) {
		k = hash_mix(k, hash_bytes(p + at, TASK_TIME_AT - at));
		at = TASK_TIME_AT + TIME_SIZE;
	}
	return hash_mix(k, hash_bytes(p + at, end - at));
}

void overlap__begin(struct overlap *o, uint64_t from_ns, uint64_t to_ns)
{
	o->from_ns = from_ns;
	o->to_ns = to_ns;
	o->nr = 0;
	o->sealed = false;
}

static bool inside(const struct overlap *o, const struct perf_event_header *h)
{
	uint64_t t;

	if (!o->to_ns || h->type == PERF_RECORD_LOST)
		return false;
	t = stamp(h);
	return t >= o->from_ns && t <= o->to_ns;
}

int overlap__note(struct overlap *o, int cpu, const struct perf_event_header *h)
{
	if (!inside(o, h))
		return 0;
	if (vec__grow(&o->keys, &o->alloc, o->nr + 1, sizeof(*o->keys)))
		return -ENOMEM;
	o->keys[o->nr++] = overlap__key(cpu, h);
	o->sealed = false;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void overlap__seal(struct overlap *o)
{
	if (o->nr > 1)
		qsort(o->keys, o->nr, sizeof(*o->keys), cmp_u64);
	if (vec__grow(&o->taken, &o->alloc_taken, o->nr, sizeof(*o->taken))) {
		o->nr = 0;	/* without room to mark copies, match none: handled twice, not lost */
		return;
	}
	if (o->nr)
		memset(o->taken, 0, o->nr * sizeof(*o->taken));
	o->sealed = true;
}

static bool below(const void *elem, const void *key)
{
	return *(const uint64_t *)elem < *(const uint64_t *)key;
}

bool overlap__is_copy(struct overlap *o, int cpu, const struct perf_event_header *h)
{
	uint64_t k;
	size_t i;

	if (!o->sealed || !o->nr || !inside(o, h))
		return false;
	k = overlap__key(cpu, h);
	for (i = bsearch_lower_bound(&k, o->keys, o->nr, sizeof(k), below);
	     i < o->nr && o->keys[i] == k; i++) {
		if (!o->taken[i]) {
			o->taken[i] = true;
			return true;
		}
	}
	return false;
}

bool overlap__open(const struct overlap *o)
{
	return o->to_ns != 0;
}

void overlap__end(struct overlap *o)
{
	o->from_ns = o->to_ns = 0;
	o->nr = 0;
	o->sealed = false;
}

void overlap__release(struct overlap *o)
{
	free(o->keys);
	free(o->taken);
	memset(o, 0, sizeof(*o));
}
