#!/bin/bash
# SPDX-License-Identifier: MIT
# t1403: every Python thread, not only the one holding the GIL. Two Python
# threads of Debian's python3.11 spin in different functions (spin_a,
# spin_b) while the main thread waits: each function's samples are on its
# own thread (the thread ids the workload prints), each thread has its own
# function's Python frames and never the other's, and both have the
# thread's chain (run -> spin_x) with the native thread entry below.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
APP="$E2E_DIR/../workloads/py_threads.py"

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$APP" 150 >"$TMP/out" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err" "$TMP/out"
ta=$(awk '$1 == "a" { print $2 }' "$TMP/out")
tb=$(awk '$1 == "b" { print $2 }' "$TMP/out")
[ -n "$ta" ] && [ -n "$tb" ] && [ "$ta" != "$tb" ] || fail "the workload did not print two thread ids"
"$EPROF" report -i "$TMP/r.eprof" --by tid --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
cat "$TMP/rep.err"
awk '{ print $NF, $0 }' "$TMP/fold" | sort -nr | head -4 | cut -d' ' -f2- | cut -c1-400

# once in CI 1 of spin_a's 745 samples was on another thread: which one, when it fails again
on_fail() {
	grep -E "spin_[ab] " "$TMP/fold" | grep -Ev "^tid ($ta|$tb);" | cut -c1-400
	grep -E "^tid $ta;.*spin_b |^tid $tb;.*spin_a " "$TMP/fold" | cut -c1-400
}

fa=';spin_a \(py_threads\.py:1[2-5]\)_\[py\]( |;|$)'
fb=';spin_b \(py_threads\.py:(19|2[0-2])\)_\[py\]( |;|$)'
for x in a b; do
	if [ $x = a ]; then tid=$ta; own=$fa; other=$fb; fn=spin_a; else tid=$tb; own=$fb; other=$fa; fn=spin_b; fi
	all=$(samples "$TMP/fold" "$own")
	mine=$(samples "$TMP/fold" "^tid $tid;.*$own")
	wrong=$(samples "$TMP/fold" "^tid $tid;.*$other")
	chained=$(samples "$TMP/fold" "^tid $tid;.*;start_thread;(.*;)?run \\(py_threads\\.py:2[78]\\)_\\[py\\]$own")
	say "$fn: $all samples, $mine on thread $tid, $wrong of the other function there, $chained with start_thread;...;run below"
	[ "$all" -ge 300 ] || fail "$fn: only $all samples"
	[ "$mine" -eq "$all" ] || fail "$fn: $((all - mine)) of its $all samples are on another thread"
	[ "$wrong" -eq 0 ] || fail "thread $tid has $wrong samples in the other thread's function"
	check_at_least "$fn: thread chain" "$chained" "$all" 90
done
exit 0
