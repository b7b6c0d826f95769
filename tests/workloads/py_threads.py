# SPDX-License-Identifier: MIT
# Two Python threads in different functions (spin_a, spin_b), each doing a
# fixed amount of work (argv[1] rounds, default 20) while the main thread
# waits in join(): only one holds the GIL at a time. Each thread prints its
# native thread id first ("a TID", "b TID"), so a test can tell which
# thread ran which function. eprof's e2e test t1403 checks the attribution.
import os, sys  # os.write: each thread's line in one write, never interleaved
import threading


def spin_a(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def spin_b(n):
    x = 0
    for i in range(n):
        x -= i * i
    return x


def run(tag, fn, rounds):
    os.write(1, ("%s %d\n" % (tag, threading.get_native_id())).encode())
    for _ in range(rounds):
        fn(100000)


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
ts = [threading.Thread(target=run, args=("a", spin_a, rounds)),
      threading.Thread(target=run, args=("b", spin_b, rounds))]
for t in ts:
    t.start()
for t in ts:
    t.join()
