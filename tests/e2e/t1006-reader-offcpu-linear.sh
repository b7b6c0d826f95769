#!/bin/bash
# SPDX-License-Identifier: MIT
# t1006: off-CPU rows are weighed in work linear in their number, in every
# view that weighs them, also when meta says the recording started long
# before its rows and ends far in the future (the span a view allocates for
# is its rows', not meta's). By counts, not times: `report -v` says how
# many time cells the rows were weighed in; four times the rows make at
# most 4.4 times the cells, and the time weighed is exactly the rows'.
# (bench/offcpu-rows.sh times 1 M rows.) Needs no root.
. "$E2E_DIR/lib.sh"
require_cmd timeout

G=$WORKLOADS/gen_hostile
for n in 20000 80000; do
	"$G" "$TMP/$n.eprof" offcpu=$n meta=start_ns=1 meta=end_ns=9000000000000000000 ||
		fail "gen_hostile failed"
done
# gen_hostile: n intervals of (2e9 - 1e6) / n ns, half of them blocked;
# n / 4 sums of 300 us, half blocked
blocked_us() { echo $(( ($1 / 2) * ((2000000000 - 1000000) / $1) / 1000 + ($1 / 8) * 300 )); }

cells() {
	timeout -k 5 60 "$EPROF" report -v -i "$TMP/$1.eprof" "${@:2}" >"$TMP/out" 2>"$TMP/err" </dev/null ||
		{ cat "$TMP/err"; fail "report ${*:2} of $1 rows failed"; }
	sed -nE 's/^eprof: off-CPU rows: ([0-9]+), weighed in ([0-9]+) time cells$/\1 \2/p' "$TMP/err"
}

for view in "--off-cpu --fold" "--wall --fold" "--off-cpu --timeline 0.001" "--off-cpu --per-cpu" \
	    "--off-cpu --svg $TMP/o.svg" "--off-cpu --pprof $TMP/o.pb" "--html $TMP/o.html" \
	    "--off-cpu --speedscope $TMP/o.ss"; do
	read -r r1 c1 <<<"$(cells 20000 $view)"
	read -r r4 c4 <<<"$(cells 80000 $view)"
	[ -n "$c1" ] && [ -n "$c4" ] || fail "$view: report -v does not count the time cells"
	say "$view: $r1 rows in $c1 cells, $r4 rows in $c4 cells"
	[ "$r4" -eq $((4 * r1)) ] || fail "$view: $r4 rows is not four times $r1"
	[ $((c4 * 10)) -le $((c1 * 44)) ] || fail "$view: 4x the rows took $c4 cells, over 4.4x $c1"
	[ "$(wc -c <"$TMP/out")" -lt 10000000 ] || fail "$view wrote $(wc -c <"$TMP/out") bytes"
done
for n in 20000 80000; do
	"$EPROF" report -i "$TMP/$n.eprof" --off-cpu --fold >"$TMP/fold" 2>"$TMP/err" || fail "report failed"
	got=$(awk '{ s += $NF } END { print s }' "$TMP/fold")
	want=$(blocked_us $n)
	say "$n rows: $got us blocked, $want expected"
	[ $((got - want)) -le 2 ] && [ $((want - got)) -le 2 ] || fail "$n rows: $got us blocked, not $want"
done
exit 0
