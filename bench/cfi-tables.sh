#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/cfi-tables.sh [BUILD] - what building an unwind table (elf/cfi.c)
# costs for a few real binaries: build time (wall and CPU, mean over
# in-process repetitions, so process start-up is not counted), the
# table's memory (rows x 12 bytes), rows, FDEs and the unsupported share.
# With hyperfine installed it also times one whole `cfi-dump -q FILE` run
# per binary (process start-up and the libdw load included).
#
# BUILD is an eprof build directory (default: build); the tool is
# BUILD/tests/helper/cfi-dump. Prints a Markdown table.
#
# bench/cfi-tables.sh --speed [BUILD] instead prints rows per second of
# CPU for the one-pass builder and for libdw's row-by-row path (cfi-dump
# -R, the builder before it) on libc, python3.11, cc1, libLLVM-14 and
# libclang-cpp 14, best of three in-process means, same run.
#
# bench/cfi-tables.sh --sweep [BUILD] instead builds the table of every
# file in /usr/bin, /usr/sbin, /usr/lib/x86_64-linux-gnu and gcc 12's
# libexec directory, and prints how many built, how many were refused and
# why, the rows and the unsupported share (the worst files first).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sweep=0 speed=0
[ "${1:-}" = --sweep ] && { sweep=1; shift; }
[ "${1:-}" = --speed ] && { speed=1; shift; }
build=${1:-$top/build}
dump=$build/tests/helper/cfi-dump
[ -x "$dump" ] || { echo "cfi-tables.sh: no $dump (cmake --build $build --target cfi-dump)" >&2; exit 2; }

if [ $sweep = 1 ]; then
	for f in /usr/bin/* /usr/sbin/* /usr/lib/x86_64-linux-gnu/*.so* /usr/lib/gcc/x86_64-linux-gnu/12/*; do
		[ -f "$f" ] || continue
		printf '%s|%s\n' "$f" "$("$dump" -q "$f" 2>&1 | sed 's/.*: //')"
	done | python3 -c '
import re, sys
rows = unsup = 0
outcomes, worst = {}, []
for line in sys.stdin:
    f, out = line.rstrip("\n").split("|", 1)
    m = re.search(r"rows=(\d+) .*unsupported=(\d+)", out)
    key = "built" if m else out
    outcomes[key] = outcomes.get(key, 0) + 1
    if m:
        r, u = int(m.group(1)), int(m.group(2))
        rows += r
        unsup += u
        worst.append((u / r, u, r, f))
for k, n in sorted(outcomes.items(), key=lambda x: -x[1]):
    print("%6d %s" % (n, k))
print("rows %d, unsupported %d (%.4f%%)" % (rows, unsup, 100.0 * unsup / max(rows, 1)))
for share, u, r, f in sorted(worst, reverse=True)[:5]:
    print("  %.3f%% %d/%d %s" % (100 * share, u, r, f))'
	exit 0
fi

files=(/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11 /usr/lib/gcc/x86_64-linux-gnu/12/cc1)

# field NAME LINE: the value of NAME=... in a cfi-dump summary line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# best_cpu FLAGS FILE REPS: the least of three mean CPU ms per build
best_cpu() {
	local best="" cpu _
	for _ in 1 2 3; do
		cpu=$(field cpu_ms "$("$dump" $1 -q -r "$3" "$2")")
		best=$(awk -v a="$cpu" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	echo "$best"
}

if [ $speed = 1 ]; then
	echo "| binary | rows | FDEs left to libdw | row by row (CPU ms, rows/s) | one pass (CPU ms, rows/s) | speed-up |"
	echo "|---|---:|---:|---:|---:|---:|"
	for f in "${files[@]}" /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 \
		 /usr/lib/x86_64-linux-gnu/libclang-cpp.so.14; do
		[ -r "$f" ] || { echo "| $f | (not installed) |||||"; continue; }
		one=$("$dump" -q -r 1 "$f")
		reps=$(awk -v ms="$(field cpu_ms "$one")" 'BEGIN { r = int(1000 / (ms + 0.001)); print r < 3 ? 3 : r }')
		old=$(best_cpu -R "$f" "$reps")
		new=$(best_cpu "" "$f" "$reps")
		awk -v f="$(basename "$f")" -v rows="$(field rows "$one")" -v left="$(field per_row "$one")" \
		    -v fdes="$(field fdes "$one")" -v old="$old" -v new="$new" 'BEGIN {
			printf "| %s | %d | %d of %d | %.1f ms, %.2f M/s | %.1f ms, %.2f M/s | %.1fx |\n",
			       f, rows, left, fdes, old, rows / old / 1e3, new, rows / new / 1e3, old / new }'
	done
	exit 0
fi

echo "| binary | size | FDEs | rows | unsupported | table | build (wall) | build (CPU) | cfi-dump run (hyperfine) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in "${files[@]}"; do
	[ -r "$f" ] || { echo "| $f | (not installed) |||||||"; continue; }
	size=$(stat -L -c %s "$f")
	# Enough repetitions for ~2 s of building, at least 3; the best of 3 such means.
	one=$("$dump" -q -r 1 "$f")
	reps=$(awk -v ms="$(field build_ms "$one")" 'BEGIN { r = int(2000 / (ms + 0.001)); print r < 3 ? 3 : r }')
	best_wall="" best_cpu=""
	for _ in 1 2 3; do
		line=$("$dump" -q -r "$reps" "$f")
		wall=$(field build_ms "$line")
		cpu=$(field cpu_ms "$line")
		best_wall=$(awk -v a="$wall" -v b="$best_wall" 'BEGIN { print (b == "" || a < b) ? a : b }')
		best_cpu=$(awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	rows=$(field rows "$line")
	fdes=$(field fdes "$line")
	unsup=$(field unsupported "$line")
	bytes=$(field bytes "$line")
	hf="-"
	if command -v hyperfine >/dev/null; then
		json=$(mktemp)
		hyperfine -N -w 3 -m 10 --export-json "$json" "$dump -q $f" >/dev/null 2>&1 &&
			hf=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f ± %.1f ms" % (r["mean"]*1e3, r["stddev"]*1e3))' "$json")
		rm -f "$json"
	fi
	awk -v f="$(basename "$f")" -v size="$size" -v fdes="$fdes" -v rows="$rows" -v u="$unsup" \
	    -v bytes="$bytes" -v wall="$best_wall" -v cpu="$best_cpu" -v hf="$hf" 'BEGIN {
		printf "| %s | %.1f MB | %d | %d | %d (%.3f%%) | %.0f KiB | %.1f ms | %.1f ms | %s |\n",
		       f, size / 1e6, fdes, rows, u, rows ? 100 * u / rows : 0, bytes / 1024, wall, cpu, hf }'
done
