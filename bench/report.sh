#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/report.sh - what `eprof report` costs per view, for comparing two
# builds (before and after a change to report/): CPU time (user + sys, which
# other work on the machine disturbs far less than wall time) and peak RSS of
# --fold, --top, --svg, --pprof and --fold --by tid, each the median of
# BENCH_REPS runs (default 5), on a real -a recording and on a 1M-sample
# recording made from it by bench/gen_recording.
#
#     bench/report.sh [BUILD_DIR ...]     (default: build)
#
# Every build given reads the same recordings, one build after the other for
# each view, so a change in load hits them alike. BENCH_SRC=FILE uses that
# recording instead of making one (10 s of `record -a -F 999`, as root);
# BENCH_SIZE=N changes the generated size.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
[ $# -gt 0 ] || set -- "$SRC/build"
REPS=${BENCH_REPS:-5}
SIZE=${BENCH_SIZE:-1000000}
WORK=$(mktemp -d /tmp/eprof-report-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

FIRST=$(cd "$1" && pwd)
gcc -O2 -I"$SRC" -o "$WORK/gen_recording" "$HERE/gen_recording.c" \
	"$FIRST/format/libeprof_format.a" "$FIRST/util/libeprof_util.a" -lsqlite3 -lzstd
if [ -n "${BENCH_SRC:-}" ]; then
	cp "$BENCH_SRC" "$WORK/real.eprof"
else
	"$FIRST/eprof" record -a -F 999 -d 10 -q -o "$WORK/real.eprof"
fi
"$WORK/gen_recording" "$WORK/real.eprof" "$WORK/big.eprof" "$SIZE"

# one VIEW RECORDING BUILD: "cpu_s maxrss_kb" of the median run (by CPU time)
one() {
	local i
	for i in $(seq "$REPS"); do
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S %M' -o "$WORK/t" "$3/eprof" report -i "$2" $1 \
			>"$WORK/out" 2>/dev/null || { echo "report $1 failed" >&2; exit 1; }
		awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$WORK/t"
	done | sort -n | awk -v m=$(((REPS + 1) / 2)) 'NR == m'
}

printf '| recording | view | build | CPU s (median of %s) | peak RSS MB |\n' "$REPS"
printf '|---|---|---|---:|---:|\n'
for rec in real big; do
	for view in "--fold" "--top" "--svg $WORK/o.svg" "--pprof $WORK/o.pb.gz" "--fold --by tid"; do
		for build in "$@"; do
			read -r cpu rss < <(one "$view" "$WORK/$rec.eprof" "$build")
			printf '| %s | %s | %s | %s | %.1f |\n' "$rec" "${view%% $WORK*}" \
				"$(basename "$(dirname "$build")")/$(basename "$build")" "$cpu" \
				"$(echo "$rss / 1024" | bc -l)"
		done
	done
done
