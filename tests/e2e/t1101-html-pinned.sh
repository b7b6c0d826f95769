#!/bin/bash
# SPDX-License-Identifier: MIT
# t1101: the HTML report of two threads pinned to CPU 0 and CPU 1: clicking
# the strip of one CPU leaves only that CPU's function in the top tables.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
require_browser

"$EPROF" record -F 499 -o "$TMP/c.eprof" -- "$WORKLOADS/pinned" 1500 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/c.eprof" --html "$TMP/c.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }
has() { awk -F'\t' -v t="$2" -v f="$3" '$1 == t && $2 == f { ok = 1 } END { exit !ok }' "$1"; }
for c in 0 1; do
	drive "$TMP/c.html" strip "cpu $c" top >"$TMP/cpu$c" 2>"$TMP/drv.err" ||
		{ cat "$TMP/drv.err"; fail "page errors"; }
	head -3 "$TMP/cpu$c"
	for t in top-self top-total; do
		has "$TMP/cpu$c" $t on_cpu$c || fail "cpu $c: no on_cpu$c in $t"
		has "$TMP/cpu$c" $t on_cpu$((1 - c)) && fail "cpu $c: on_cpu$((1 - c)) in $t"
	done
done
# the whole recording has both
drive "$TMP/c.html" top >"$TMP/all" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
has "$TMP/all" top-self on_cpu0 && has "$TMP/all" top-self on_cpu1 || fail "the whole recording lacks a function"
exit 0
