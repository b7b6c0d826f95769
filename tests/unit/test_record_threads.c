// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_threads.c - record/threads.c: rows found by id
 * through removals and compactions, gone two commits after their exit
 * (not when a new thread took the tid), the table bounded through a fork
 * storm and by the memory budget, and the per-file bits of named tids.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "record/budget.h"
#include "record/threads.h"
#include "tests/unit/harness.h"

static void rows_go_two_commits_after_their_exit(void)
{
	struct threads t;
	struct thread_row *r;
	struct proc_row *p;

	threads__init(&t);
	CHECK_OK(threads__thread_add(&t, 100, 100, &r));
	memcpy(r->comm, "leader", 7);
	r->has_comm = true;
	CHECK_OK(threads__thread_add(&t, 101, 100, &r));
	CHECK_OK(threads__proc_add(&t, 100, &p));
	p->sampled = true;
	threads__thread_exit(&t, 101, 50, 7);	/* noted in commit 7 */
	threads__thread_exit(&t, 999, 50, 7);	/* no row: nothing */
	threads__sweep(&t, 8, NULL);
	CHECK(threads__thread(&t, 101) != NULL);	/* a late sample still finds it */
	threads__sweep(&t, 9, NULL);
	CHECK(threads__thread(&t, 101) == NULL);
	r = threads__thread(&t, 100);
	CHECK(r && r->has_comm && !strcmp(r->comm, "leader"));
	CHECK_EQ_U64(threads__nr_threads(&t), 1);
	CHECK_EQ_U64(t.nr_removed, 1);
	/* the tid again: a fresh row */
	CHECK_OK(threads__thread_add(&t, 101, 100, &r));
	CHECK(!r->has_comm && !r->exit_ns);
	threads__release(&t);
}

static void a_new_thread_on_the_tid_keeps_its_row(void)
{
	struct threads t;
	struct thread_row *r;

	threads__init(&t);
	CHECK_OK(threads__thread_add(&t, 7, 7, &r));
	threads__thread_exit(&t, 7, 1000, 1);
	r = threads__thread(&t, 7);
	thread_row__alive_at(r, 900);	/* a late sample of the old thread */
	CHECK_EQ_U64(r->exit_ns, 1000);
	thread_row__alive_at(r, 1001);	/* the tid's next owner named */
	CHECK_EQ_U64(r->exit_ns, 0);
	threads__sweep(&t, 10, NULL);
	CHECK(threads__thread(&t, 7) != NULL);
	threads__release(&t);
}

static void a_gone_process_takes_its_threads(void)
{
	struct u64map gone = U64MAP_INIT;
	struct threads t;
	struct thread_row *r;
	struct proc_row *p;
	uint64_t *slot;
	bool added;
	uint32_t i;

	threads__init(&t);
	for (i = 0; i < 10; i++)
		CHECK_OK(threads__thread_add(&t, 200 + i, i < 5 ? 200 : 300, &r));
	CHECK_OK(threads__proc_add(&t, 200, &p));
	CHECK_OK(threads__proc_add(&t, 300, &p));
	p->exec_ns = 42;
	CHECK_OK(u64map__upsert(&gone, 200, 0, &slot, &added));
	threads__sweep(&t, 1, &gone);
	for (i = 0; i < 10; i++)
		CHECK((threads__thread(&t, 200 + i) != NULL) == (i >= 5));
	CHECK(threads__proc(&t, 200) == NULL);
	p = threads__proc(&t, 300);
	CHECK(p && p->exec_ns == 42);
	u64map__release(&gone);
	threads__release(&t);
}

/*
 * 200,000 short threads on 32,768 tids (a fork storm), 1,000 between
 * commits, each named, exited, then looked up by a late sample before it
 * goes: every lookup finds the right row, and the table never holds more
 * than the threads of the last three commits.
 */
static void a_fork_storm_stays_bounded(void)
{
	struct threads t;
	struct thread_row *r;
	uint64_t commit = 0, misses = 0, wrong = 0;
	size_t peak = 0, n;
	uint32_t i, tid;

	threads__init(&t);
	CHECK_OK(threads__thread_add(&t, 1, 1, &r));	/* a long-lived parent */
	for (i = 0; i < 200000; i++) {
		tid = 2 + i % 32767;
		CHECK_OK(threads__thread_add(&t, tid, tid, &r));
		thread_row__alive_at(r, 10ull * i + 1);
		memset(r->comm, 0, sizeof(r->comm));
		memcpy(r->comm, &i, sizeof(i));
		r->has_comm = true;
		threads__thread_exit(&t, tid, 10ull * i + 5, commit);
		if (i % 1000 == 999) {
			/* late samples of this commit's threads */
			for (n = i - 999; n <= i; n++) {
				r = threads__thread(&t, 2 + (uint32_t)n % 32767);
				if (!r)
					misses++;
				else if (memcmp(r->comm, &n, sizeof(uint32_t)))
					wrong++;
			}
			threads__sweep(&t, ++commit, NULL);
			if (threads__nr_threads(&t) > peak)
				peak = threads__nr_threads(&t);
		}
	}
	CHECK_EQ_U64(misses, 0);
	CHECK_EQ_U64(wrong, 0);
	CHECK(peak <= 2001);
	CHECK(t.thr.peak <= 3001);
	CHECK(t.thr.alloc <= 8192);	/* removed rows compacted, not piled up */
	threads__sweep(&t, commit + 2, NULL);
	threads__sweep(&t, commit + 3, NULL);
	CHECK_EQ_U64(threads__nr_threads(&t), 1);	/* the parent */
	CHECK(t.thr.alloc <= 128);			/* memory given back */
	CHECK(threads__thread(&t, 1) != NULL);
	threads__release(&t);
}

static void the_budget_bounds_the_table(void)
{
	struct threads t;
	struct thread_row *r;
	uint32_t i, kept = 0, refused = 0;
	int err;

	/* a quarter of 64 KiB: 128 rows of 64 bytes and their index, not 256 */
	mem_budget__set_ceiling(64 << 10);
	threads__init(&t);
	for (i = 1; i <= 1000; i++) {
		err = threads__thread_add(&t, i, i, &r);
		if (!err)
			kept++;
		else if (err == -ENOSPC)
			refused++;
		else
			CHECK_OK(err);
	}
	CHECK(kept >= 64 && kept < 256);
	CHECK_EQ_U64(kept + refused, 1000);
	CHECK_EQ_U64(t.nr_refused, refused);
	CHECK(t.thr.charged > 0 && t.thr.charged <= 16 << 10);
	CHECK(threads__thread(&t, 1) != NULL);
	/* what the table gives back lets others take it */
	threads__release(&t);
	CHECK(mem_budget__take(64 << 10));
	mem_budget__give(64 << 10);
	mem_budget__set_ceiling(MEM_CEILING_DEFAULT);
}

static void named_bits_per_file(void)
{
	struct threads t;
	struct thread_row *r;

	threads__init(&t);
	CHECK(!threads__named(&t, 5));
	CHECK_OK(threads__set_named(&t, 5));
	CHECK_OK(threads__set_named(&t, 4194303));	/* PID_MAX_LIMIT - 1 */
	CHECK(threads__named(&t, 5) && threads__named(&t, 4194303));
	CHECK(!threads__named(&t, 6) && !threads__named(&t, 4194302));
	CHECK(threads__named(&t, THREADS_TID_LIMIT));	/* no bit: never from the file's start */
	CHECK(t.named_words == THREADS_TID_LIMIT / 64);
	CHECK_OK(threads__thread_add(&t, 5, 5, &r));
	r->has_comm = true;
	threads__start_file(&t);
	CHECK(!threads__named(&t, 5) && !threads__named(&t, 4194303));
	CHECK(!threads__thread(&t, 5)->has_comm);
	threads__release(&t);
}

static const struct test tests[] = {
	{ "a thread's row goes two commits after its exit", rows_go_two_commits_after_their_exit },
	{ "a new thread on an exited tid keeps its row", a_new_thread_on_the_tid_keeps_its_row },
	{ "a process that is gone takes its threads' rows", a_gone_process_takes_its_threads },
	{ "a fork storm's table stays bounded, late lookups find their rows",
	  a_fork_storm_stays_bounded },
	{ "the memory budget bounds the table", the_budget_bounds_the_table },
	{ "named tids are a bit each, per file", named_bits_per_file },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
