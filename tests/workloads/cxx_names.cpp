// SPDX-License-Identifier: MIT
/*
 * cxx_names: C++ functions whose mangled names a report must demangle,
 * with a CPU split known by construction: ns::Worker<int>::spin(int) does
 * 2 units and ns::Worker<long>::spin(int) 1 unit of identical work per
 * round (67/33), reached through main -> ns::run(unsigned long); their
 * loops inline ns::detail::step<T>(T volatile*, int).
 *
 * usage: cxx_names [ROUNDS]   (default 40000, about 2 s of CPU)
 *
 * A fixed amount of work, not of time: on a loaded machine the run takes
 * longer but the number of CPU-clock samples stays the same.
 *
 * Built with g++ for the tests only (eprof itself is C). The hot leaves
 * keep a volatile array on the stack so they set up a frame, as in
 * known_split.c.
 */
#include <cstdint>
#include <cstdlib>

#define UNIT_LOOPS 20000

volatile std::uint64_t sink;

namespace ns {

namespace detail {

/* One step of the work, always inlined: `report --inline` shows it as a frame. */
template <typename T> __attribute__((always_inline)) inline void step(volatile T *acc, int i)
{
	acc[i & 3] = (T)(acc[i & 3] * 2862933555777941757ull + 3037000493ull);
}

} // namespace detail

template <typename T> struct Worker {
	__attribute__((noipa)) T spin(int units);	/* no .isra clone: the names stay plain */
};

template <typename T> T Worker<T>::spin(int units)
{
	volatile T acc[4] = { 1, 2, 3, 4 };

	for (int u = 0; u < units; u++)
		for (int i = 0; i < UNIT_LOOPS; i++)
			detail::step<T>(acc, i);
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3];
}

__attribute__((noinline)) std::uint64_t run(unsigned long rounds)
{
	std::uint64_t total = 0;
	Worker<int> wi;
	Worker<long> wl;

	for (unsigned long r = 0; r < rounds; r++) {
		total += (std::uint64_t)wi.spin(2);
		total += (std::uint64_t)wl.spin(1);
	}
	sink += total;	/* work after the calls: no tail call */
	return total;
}

} // namespace ns

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 40000;

	ns::run(rounds);
	return (int)(sink & 0);
}
