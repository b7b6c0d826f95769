# SPDX-License-Identifier: MIT
# Python -> C -> Python: sorted() (C) calls a slow Python key function for
# each item, so most CPU time is in py_key, called from the interpreter's C
# sort, called from caller. A fixed number of rounds (argv[1], default 20).
# eprof's e2e test t1402 checks the order of the frames.
import sys


def py_key(x):
    s = 0
    for i in range(300):
        s += i ^ x
    return s % 977


def caller(n):
    data = list(range(n))
    return sorted(data, key=py_key)


def main(rounds):
    for _ in range(rounds):
        caller(2000)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
