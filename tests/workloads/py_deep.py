# SPDX-License-Identifier: MIT
# A Python stack of a chosen depth: down(depth) recurses to depth Python
# frames, then spin() does a fixed amount of work there (argv[2] rounds,
# default 20). eprof's e2e test t1405 (the walk's depth limit) and
# bench/python.sh (the walk's cost at depths 10 and 60) run it.
import sys


def spin(rounds):
    x = 0
    for _ in range(rounds):
        for i in range(100000):
            x += i
    return x


def down(n, rounds):
    if n <= 2:
        return spin(rounds)
    return down(n - 1, rounds)


sys.setrecursionlimit(10000)
down(int(sys.argv[1]) if len(sys.argv) > 1 else 10,
     int(sys.argv[2]) if len(sys.argv) > 2 else 20)
