#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/fork-maps.sh EPROF NMAPS [SECONDS]: the recorder's CPU per fork
# while NMAPS mappings are live (issue 19, "the side-band scales with
# forks"). A holder process maps NMAPS executable pages of one file and
# keeps them, beside two shell loops that fork
# /bin/true without pause, under `record -a -F 999 -d SECONDS` (default 5).
# Prints forks, the recorder's CPU (user + system, /usr/bin/time) and
# microseconds of recorder CPU per fork. PERF=1: `perf record -a -g -F 999`
# in its place, on the same loop (NMAPS is then only the holder's).
set -u
eprof=${1:?usage: fork-maps.sh EPROF NMAPS [SECONDS]}
nmaps=${2:?usage: fork-maps.sh EPROF NMAPS [SECONDS]}
secs=${3:-5}
. "$(dirname "$0")/lib.sh"
bench_scratch forkmaps
head -c 4096 /dev/zero >"$out/page"
python3 - "$out/page" "$nmaps" <<'PY' &
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
n = int(sys.argv[2])
maps = [mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
        for _ in range(n)]
time.sleep(3600)
PY
pids+=($!)
for l in 1 2; do
	sh -c 'n=0; trap "echo \$n >'"$out"'/forks.'"$l"'; exit" TERM; while :; do /bin/true; n=$((n + 1)); done' &
	pids+=($!)
done
sleep 1
if [ "${PERF:-0}" = 1 ]; then
	/usr/bin/time -f '%U %S' -o "$out/time" perf record -q -a -g -F 999 -o "$out/p.data" -- sleep "$secs" 2>"$out/err"
else
	/usr/bin/time -f '%U %S' -o "$out/time" "$eprof" record -q -a -F 999 -d "$secs" -o "$out/r.eprof" 2>"$out/err"
fi
rc=$?
kill -TERM "${pids[1]}" "${pids[2]}" 2>/dev/null
sleep 0.3
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
[ "$rc" = 0 ] || { cat "$out/err"; echo "record failed: $rc"; exit 1; }
forks=$(( $(cat "$out/forks.1" 2>/dev/null || echo 0) + $(cat "$out/forks.2" 2>/dev/null || echo 0) ))
cpu=$(awk '{ print $1 + $2 }' "$out/time")
# the loops ran about secs + 1.3 s; the recording secs of them
printf '%s NMAPS=%s d=%s: %s forks in the loops, recorder CPU %s s (%.0f%% of a CPU), %.1f us per fork\n' \
	"$([ "${PERF:-0}" = 1 ] && echo perf || echo eprof)" "$nmaps" "$secs" "$forks" "$cpu" \
	"$(echo "100 * $cpu / $secs" | bc -l)" \
	"$(echo "$cpu * 1000000 / ($forks * $secs / ($secs + 1.3))" | bc -l)"
