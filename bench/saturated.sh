#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/saturated.sh EPROF N [SECONDS] [HZ]: wall time of `eprof record -a -d
# SECONDS -F HZ` with N CPU-bound shell loops beside it, and what it says it
# recorded and lost. The loops are killed on exit, whatever happens; eprof
# is SIGKILLed after LIMIT seconds (default 60) and the run reported as such.
set -u
eprof=${1:?usage: saturated.sh EPROF N [SECONDS] [HZ]}
n=${2:?usage: saturated.sh EPROF N [SECONDS] [HZ]}
secs=${3:-3}
hz=${4:-9999}
. "$(dirname "$0")/lib.sh"
bench_scratch sat
for _ in $(seq "$n"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
sleep 1
# No fork between the two clock reads but eprof's own (bash's EPOCHREALTIME).
t0=$EPOCHREALTIME
"$eprof" record ${EPROF_V:-} -a -F "$hz" -d "$secs" -o "$out/r.eprof" 2>"$out/err" &
rec=$!
(sleep "${LIMIT:-60}"; kill -KILL "$rec" 2>/dev/null) &
dog=$!
wait "$rec"
rc=$?
t1=$EPOCHREALTIME
kill "$dog" 2>/dev/null
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
printf 'busy=%s d=%s F=%s rc=%s wall=%.2f s\n' "$n" "$secs" "$hz" "$rc" "$(echo "$t1 - $t0" | bc)"
[ "$rc" = 137 ] && echo "killed after ${LIMIT:-60} s"
grep -E "^eprof: (recorded|debug: |warning: )" "$out/err"
"$eprof" info "$out/r.eprof" 2>/dev/null | sed -n '/^ticks:/,/^$/p'
