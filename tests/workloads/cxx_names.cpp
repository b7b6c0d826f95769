// SPDX-License-Identifier: MIT
/*
 * cxx_names: C++ functions whose mangled names a report must demangle,
 * with a CPU split known by construction: ns::Worker<int>::spin(int) spins
 * for 2 units and ns::Worker<long>::spin(int) for 1 unit of its thread's
 * CPU time per round (67/33), reached through main -> ns::run(unsigned
 * long); their loops inline ns::detail::step<T>(T volatile*, int).
 *
 * usage: cxx_names [MILLISECONDS]   (of CPU time, default 2000)
 *
 * Units of CPU time, not of loop iterations, as in known_split.c: the
 * 32-bit and the 64-bit loop do not run at the same speed on every CPU
 * (a count of iterations made the 67% share 74% on one machine), and on a
 * loaded machine the run takes longer but the number of CPU-clock samples
 * stays the same.
 *
 * Built with g++ for the tests only (eprof itself is C). The hot leaves
 * keep a volatile array on the stack so they set up a frame, as in
 * known_split.c.
 */
#include <cstdint>
#include <cstdlib>
#include <ctime>

/* A round is 3 units, 31 ms: a multiple of no usual sampling period (known_split.c). */
#define UNIT_NS		10333333ull
#define CHUNK_LOOPS	2000		/* between clock reads: a few microseconds */

volatile std::uint64_t sink;

/* CPU time of the calling thread, in ns (tests/workloads/cpu_time.h, for C++). */
static std::uint64_t cpu_time_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (std::uint64_t)ts.tv_sec * 1000000000ull + (std::uint64_t)ts.tv_nsec;
}

namespace ns {

namespace detail {

/*
 * One step of the work, always inlined: `report --inline` shows it as a
 * frame. It updates all four words, so that the loop around it (spin's own
 * lines) takes a small part of the samples: with one word, about 45% of
 * them fell on the loop's own instructions.
 */
template <typename T> __attribute__((always_inline)) inline void step(volatile T *acc, int i)
{
	acc[i & 3] = (T)(acc[i & 3] * 2862933555777941757ull + 3037000493ull);
	acc[(i + 1) & 3] = (T)(acc[(i + 1) & 3] * 2862933555777941757ull + 3037000493ull);
	acc[(i + 2) & 3] = (T)(acc[(i + 2) & 3] * 2862933555777941757ull + 3037000493ull);
	acc[(i + 3) & 3] = (T)(acc[(i + 3) & 3] * 2862933555777941757ull + 3037000493ull);
}

} // namespace detail

template <typename T> struct Worker {
	__attribute__((noipa)) T spin(int units);	/* no .isra clone: the names stay plain */
};

template <typename T> T Worker<T>::spin(int units)
{
	volatile T acc[4] = { 1, 2, 3, 4 };
	std::uint64_t end = cpu_time_ns() + (std::uint64_t)units * UNIT_NS;

	do {
		for (int i = 0; i < CHUNK_LOOPS; i++)
			detail::step<T>(acc, i);
	} while (cpu_time_ns() < end);
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3];
}

__attribute__((noinline)) std::uint64_t run(unsigned long ms)
{
	std::uint64_t total = 0, end = cpu_time_ns() + (std::uint64_t)ms * 1000000ull;
	Worker<int> wi;
	Worker<long> wl;

	while (cpu_time_ns() < end) {
		total += (std::uint64_t)wi.spin(2);
		total += (std::uint64_t)wl.spin(1);
	}
	sink += total;	/* work after the calls: no tail call */
	return total;
}

} // namespace ns

int main(int argc, char **argv)
{
	unsigned long ms = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;

	ns::run(ms);
	return (int)(sink & 0);
}
