#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/table-cache.sh [EPROF]: what the on-disk unwind table cache saves.
#  1. `record -- /bin/true`, start to finish: a warm cache, no cache, and
#     `perf record -g` on the same command (hyperfine, same run);
#  2. a gcc -O2 compile (cc1: 479k rows) recorded cold then warm: the
#     table build time and the stack copies taken while tables were out.
# Run as root on an otherwise idle machine; the figures are wall times.
set -eu
EPROF=${1:-$(dirname "$0")/../build/eprof}
WORK=$(mktemp -d /tmp/eprof-tcbench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -m 700 "$WORK/cache"

"$EPROF" record -q --table-cache "$WORK/cache" -o "$WORK/w.eprof" -- /bin/true
hyperfine -N -w 3 -r 20 \
	-n "eprof, warm cache" "$EPROF record -q --table-cache $WORK/cache -o $WORK/w.eprof -- /bin/true" \
	-n "eprof, no cache" "$EPROF record -q --table-cache none -o $WORK/n.eprof -- /bin/true" \
	-n "perf record -g" "perf record -q -g -o $WORK/p.data -- /bin/true"

awk 'BEGIN { for (i = 0; i < 150; i++)
	printf "int f%d(int *a, int n) { int s = %d; for (int j = 0; j < n; j++) { if (a[j] > %d) s += a[j] * %d; else s ^= a[(j + %d) %% n]; } return s; }\n", i, i, i, i + 1, i }' \
	>"$WORK/gen.c"
rm -rf "$WORK/cache2" && mkdir -m 700 "$WORK/cache2"
for run in cold warm; do
	"$EPROF" record -q -F 999 --table-cache "$WORK/cache2" -o "$WORK/$run.eprof" -- \
		gcc -O2 -c "$WORK/gen.c" -o "$WORK/gen.o"
	"$EPROF" info "$WORK/$run.eprof" | awk -v r="$run" '
		/^  tables / { t = $0 } /^raw stack samples/ { c = $NF }
		/^tables from the cache/ { h = $NF } /^tables stored in it/ { s = $NF }
		END { printf "gcc %s: %s stack copies, %s tables from the cache, %s stored;%s\n", r, c, h, s, t }'
done
