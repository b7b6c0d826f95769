# SPDX-License-Identifier: MIT
# A Python workload with a CPU split known by construction: three functions
# with the same loop body run 6, 3 and 1 units of work per round (60/30/10),
# a fixed number of rounds (argv[1], default 40), so the split holds however
# busy the machine is. eprof's e2e tests (t1401) check the shares.
import sys


def alpha(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def beta(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def gamma(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def main(rounds):
    unit = 20000
    for _ in range(rounds):
        alpha(6 * unit)
        beta(3 * unit)
        gamma(unit)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
