// SPDX-License-Identifier: MIT
/*
 * bigcfi: a shared library with much CFI (8,192 small functions, each its
 * own FDE: about 300 KiB of .eh_frame), built without frame pointers, so
 * that under a small --unwind-budget its table goes by windows and a walk
 * through big_run needs its rows: a frame-pointer step from big_inner
 * skips big_run and main. bigcfi_run dlopens it.
 */
#include <stdint.h>

#include "cpu_time.h"

/* Filler: one FDE each, never run. */
#define F(n)	__attribute__((noinline)) int fill_##n(volatile int *p) { int a[4] = { *p, 1, 2, 3 }; \
		return p[a[*p & 3]] + fill_sink(a); }
#define F4(p)	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) \
		F(p##8) F(p##9) F(p##a) F(p##b) F(p##c) F(p##d) F(p##e) F(p##f)
#define F8(p)	F4(p##0) F4(p##1) F4(p##2) F4(p##3) F4(p##4) F4(p##5) F4(p##6) F4(p##7) \
		F4(p##8) F4(p##9) F4(p##a) F4(p##b) F4(p##c) F4(p##d) F4(p##e) F4(p##f)
#define F12(p)	F8(p##0) F8(p##1) F8(p##2) F8(p##3) F8(p##4) F8(p##5) F8(p##6) F8(p##7) \
		F8(p##8) F8(p##9) F8(p##a) F8(p##b) F8(p##c) F8(p##d) F8(p##e) F8(p##f)

__attribute__((noinline)) int fill_sink(int *a)
{
	return a[1];
}

F12(x0)

/* The hot leaf: it uses the stack and keeps no frame pointer. */
__attribute__((noinline)) uint64_t big_inner(uint64_t n)
{
	volatile uint64_t acc[4] = { 7, 11, 13, 17 };

	for (uint64_t i = 0; i < n; i++)
		acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull;
	return acc[0];
}

/* Spins in big_inner for ms milliseconds of CPU time (cpu_time.h). */
__attribute__((noinline)) uint64_t big_run(uint64_t ms)
{
	volatile uint64_t sum[2] = { 0, 0 };
	uint64_t end = cpu_time_ns() + ms * 1000000ull;

	do
		sum[0] += big_inner(20000);
	while (cpu_time_ns() < end);
	return sum[0];
}

F12(x1)
