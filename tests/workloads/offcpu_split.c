// SPDX-License-Identifier: MIT
/*
 * offcpu_split: a thread whose wall time splits in a known way between
 * running, sleeping and waiting, for record --off-cpu (issue 12).
 *
 * usage: offcpu_split split SPIN_MS SLEEP_MS WAIT_MS
 *   main spins SPIN_MS of its CPU time in spin_phase, sleeps SLEEP_MS in
 *   nanosleep (sleep_phase), then blocks in read() on a pipe (wait_phase)
 *   that a helper thread answers WAIT_MS after main asked.
 * usage: offcpu_split mutex ROUNDS HOLD_MS
 *   a holder thread takes a mutex and sleeps HOLD_MS with it held, ROUNDS
 *   times; each round a waiter thread asks for the mutex while it is held
 *   (it is told over a pipe), so it blocks in the futex for about HOLD_MS.
 *
 * usage: offcpu_split wakeup ROUNDS SLEEP_MS HOG_MS
 *   two threads on one CPU: a sleeper blocks in read() on a pipe
 *   (wakeup_wait) while a realtime (SCHED_FIFO) waker sleeps SLEEP_MS; the
 *   waker then writes, which wakes the sleeper, and spins HOG_MS of wall
 *   time before it sleeps again, so the woken sleeper waits that long for
 *   the CPU. Exits 3 when the waker cannot be made realtime. The sleeper's
 *   blocked and runnable time, as the workload measured them (from its
 *   read to the write, from the write to its read's return), go to stderr
 *   ("sleeper tid TID", "phase blocked NS", "phase runnable NS").
 *
 * Sleeps are wall time, so the split of a loaded machine shifts only by
 * wake-up delays, and spinning is by CPU time. The phases' wall times, as
 * the workload measured them, go to stderr ("phase NAME NS"): tests judge
 * the profile against them rather than against the arguments.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_time.h"

volatile uint64_t sink;
static int ask[2], answer[2];
static uint64_t wait_ms;

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void put(int fd)
{
	char c = 'x';

	if (write(fd, &c, 1) != 1)
		exit(2);
}

static void get(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(2);
}

__attribute__((noinline)) void spin_phase(uint64_t ms)
{
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };
	uint64_t end = cpu_time_ns() + ms * 1000000ull;

	while (cpu_time_ns() < end)
		for (int i = 0; i < 20000; i++)
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull;
	sink += acc[0];
}

__attribute__((noinline)) void sleep_phase(uint64_t ms)
{
	sleep_ms(ms);
	sink++;
}

__attribute__((noinline)) void wait_phase(void)
{
	put(ask[1]);
	get(answer[0]);
	sink++;
}

static void *answerer(void *arg)
{
	(void)arg;
	get(ask[0]);
	sleep_ms(wait_ms);
	put(answer[1]);
	return NULL;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int held[2], done[2];
static uint64_t rounds, hold_ms;

__attribute__((noinline)) void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	put(held[1]);
	sleep_ms(hold_ms);
	pthread_mutex_unlock(&lock);
	get(done[0]);
	sink++;
}

__attribute__((noinline)) void contend(void)
{
	get(held[0]);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	put(done[1]);
	sink++;
}

static void *holder(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < rounds; i++)
		hold_lock();
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < rounds; i++)
		contend();
	return NULL;
}

static int wake_pipe[2];
static uint64_t wake_sleep_ms, hog_ms;

/* The sleeper's wait: the waker's write (its time in the bytes) ends it. */
__attribute__((noinline)) uint64_t wakeup_wait(void)
{
	uint64_t t;

	if (read(wake_pipe[0], &t, sizeof(t)) != (ssize_t)sizeof(t))
		exit(2);
	sink++;
	return t;
}

static void *waker(void *arg)
{
	for (uint64_t i = 0; i < rounds; i++) {
		uint64_t t;

		sleep_ms(wake_sleep_ms);
		t = now_ns();
		if (write(wake_pipe[1], &t, sizeof(t)) != (ssize_t)sizeof(t))
			exit(2);
		while (now_ns() < t + hog_ms * 1000000ull)	/* realtime: the sleeper waits */
			sink++;
	}
	return arg;
}

/* The sleeper (the calling thread) and a realtime waker, both on the caller's first CPU. */
static int wakeup(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	uint64_t blocked = 0, runnable = 0, t0, t1, tw;
	pthread_attr_t at;
	pthread_t w;
	cpu_set_t cpus;
	int c;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return 2;
	for (c = 0; c < CPU_SETSIZE && !CPU_ISSET(c, &cpus); c++)
		;
	if (c == CPU_SETSIZE)
		return 2;
	CPU_ZERO(&cpus);
	CPU_SET(c, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || pipe(wake_pipe) || pthread_attr_init(&at) ||
	    pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED) ||
	    pthread_attr_setschedpolicy(&at, SCHED_FIFO) || pthread_attr_setschedparam(&at, &sp)) {
		perror("offcpu_split: wakeup setup");
		return 2;
	}
	if (pthread_create(&w, &at, waker, NULL)) {
		fprintf(stderr, "offcpu_split: cannot start a realtime (SCHED_FIFO) thread\n");
		return 3;
	}
	fprintf(stderr, "sleeper tid %d\n", (int)gettid());
	for (uint64_t i = 0; i < rounds; i++) {
		t0 = now_ns();
		tw = wakeup_wait();
		t1 = now_ns();
		if (tw < t0)
			continue;	/* written before the read (the sleeper was late): no wait */
		blocked += tw - t0;
		runnable += t1 - tw;
	}
	pthread_join(w, NULL);
	fprintf(stderr, "phase blocked %llu\nphase runnable %llu\n", (unsigned long long)blocked,
		(unsigned long long)runnable);
	return 0;
}

static uint64_t arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end || !*s) {
		fprintf(stderr, "offcpu_split: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	uint64_t t0, t1, t2, t3;

	if (argc == 5 && !strcmp(argv[1], "split")) {
		wait_ms = arg(argv[4]);
		if (pipe(ask) || pipe(answer) || pthread_create(&a, NULL, answerer, NULL))
			return 2;
		fprintf(stderr, "main tid %d\n", (int)gettid());
		t0 = now_ns();
		spin_phase(arg(argv[2]));
		t1 = now_ns();
		sleep_phase(arg(argv[3]));
		t2 = now_ns();
		wait_phase();
		t3 = now_ns();
		pthread_join(a, NULL);
		fprintf(stderr, "phase spin %llu\nphase sleep %llu\nphase wait %llu\n",
			(unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1),
			(unsigned long long)(t3 - t2));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "mutex")) {
		rounds = arg(argv[2]);
		hold_ms = arg(argv[3]);
		if (pipe(held) || pipe(done))
			return 2;
		t0 = now_ns();
		if (pthread_create(&a, NULL, holder, NULL) || pthread_create(&b, NULL, waiter, NULL))
			return 2;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		fprintf(stderr, "phase total %llu\n", (unsigned long long)(now_ns() - t0));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "wakeup")) {
		rounds = arg(argv[2]);
		wake_sleep_ms = arg(argv[3]);
		hog_ms = arg(argv[4]);
		return wakeup();
	}
	fprintf(stderr, "usage: offcpu_split split SPIN_MS SLEEP_MS WAIT_MS | mutex ROUNDS HOLD_MS | "
		"wakeup ROUNDS SLEEP_MS HOG_MS\n");
	return 2;
}
