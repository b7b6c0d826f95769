#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/device16.sh - issue 19's many-CPU rows, for a machine this VM
# cannot be (16 CPUs, PyTorch, no perf): a PyTorch program
# (bench/torch_prog.py), `record -a` beside 16 shell loops running
# /bin/true (the recorder itself profiled by a second eprof, its phases
# from -v -v), and `record -- sh` running /bin/true 3,000 times. Copy
# eprof and the libraries `ldd` lists (not libc) to the machine; E names
# the binary, OUT a folder for the recordings, which `eprof info` and
# `eprof report` read back here.
set -u
E=${E:-eprof}
OUT=${OUT:-/tmp/device16}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
summ() {
	"$E" info "$1" 2>/dev/null |
		grep -E "^  (complete|stopped|frame-pointer steps|tables|no table yet)|lost side|^processes|^memory|^unwind budget|^tables refused"
}
storm() {
	for _ in $(seq 16); do
		(end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do /bin/true; done) &
	done
	sleep 0.5
}
echo "== PyTorch program, -F 499"
(time "$E" record -F 499 -o "$OUT/torch.eprof" -- python3 "$here/torch_prog.py") 2>&1 | tail -5
summ "$OUT/torch.eprof"
echo "== -a -F 999 -d 4 beside 16 /bin/true loops, the recorder profiled"
storm
(time "$E" record -F 199 -o "$OUT/prof.eprof" -- "$E" record -v -v -a -F 999 -d 4 \
	-o "$OUT/storm.eprof") 2>&1 | grep -E " at [0-9.]+ s|real|user|sys|recorded" | tail -12
wait
summ "$OUT/storm.eprof"
echo "== the loops alone: forks in 4 s"
n0=$(awk '/^processes/ { print $2 }' /proc/stat)
storm
sleep 4
n1=$(awk '/^processes/ { print $2 }' /proc/stat)
wait
echo "forks in 4 s without eprof: $((n1 - n0))"
echo "== -- sh running /bin/true 3,000 times"
(time "$E" record -F 999 -o "$OUT/cmdfork.eprof" -- sh -c 'for i in $(seq 3000); do /bin/true; done') 2>&1 | tail -5
summ "$OUT/cmdfork.eprof"
