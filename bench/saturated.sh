#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/saturated.sh EPROF N [SECONDS] [HZ]: wall time of `eprof record -a -d
# SECONDS -F HZ` with N CPU-bound shell loops beside it, and what it says it
# recorded and lost. The loops are killed on exit, whatever happens; eprof
# is stopped after LIMIT seconds (default 60) and the run reported as such.
set -u
eprof=${1:?usage: saturated.sh EPROF N [SECONDS] [HZ]}
n=${2:?usage: saturated.sh EPROF N [SECONDS] [HZ]}
secs=${3:-3}
hz=${4:-9999}
out=$(mktemp -d /tmp/eprof-sat.XXXXXX)
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
for _ in $(seq "$n"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
sleep 1
t0=$(date +%s.%N)
timeout "${LIMIT:-60}" "$eprof" record ${EPROF_V:-} -a -F "$hz" -d "$secs" -o "$out/r.eprof" 2>"$out/err"
rc=$?
t1=$(date +%s.%N)
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
printf 'busy=%s d=%s F=%s rc=%s wall=%.2f s\n' "$n" "$secs" "$hz" "$rc" "$(echo "$t1 - $t0" | bc)"
grep -E "^eprof: (recorded|debug: )" "$out/err"
"$eprof" info "$out/r.eprof" 2>/dev/null | sed -n '/^ticks:/,/^$/p'
