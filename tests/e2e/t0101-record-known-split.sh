#!/bin/bash
# SPDX-License-Identifier: MIT
# t0101: a 60/30/10 workload recorded with -F 999 is attributed within 3
# points, every function is reached through main -> run_workload -> dispatch,
# and record -- CMD exits with the command's status.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$WORKLOADS/known_split" 3000 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"
grep -q '^eprof: recorded [0-9]* samples' "$TMP/rec.err" || fail "no summary line from record"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
cat "$TMP/rep.err"
head -20 "$TMP/fold"

a=$(samples "$TMP/fold" '^known_split;.*;work_a( |;|$)')
b=$(samples "$TMP/fold" '^known_split;.*;work_b( |;|$)')
c=$(samples "$TMP/fold" '^known_split;.*;work_c( |;|$)')
total=$((a + b + c))
say "work_a=$a work_b=$b work_c=$c"
# 3 s of CPU time at 999 Hz is ~3000 samples however busy the machine is
# (known_split spins by CPU time); half of that is plenty to judge a split.
[ "$total" -ge 1500 ] || fail "only $total samples in the three functions (expected ~3000: 3 s of CPU time at 999 Hz)"
check_share work_a "$(share_pct "$a" "$total")" 60 3
check_share work_b "$(share_pct "$b" "$total")" 30 3
check_share work_c "$(share_pct "$c" "$total")" 10 3

# Each function's samples are reached through the whole chain, in order.
for f in work_a work_b work_c; do
	all=$(samples "$TMP/fold" ";$f( |;|\$)")
	chained=$(samples "$TMP/fold" "^known_split;(.*;)?main;run_workload;dispatch;$f( |;|\$)")
	say "$f: $chained of $all samples have main;run_workload;dispatch;$f"
	[ "$all" -gt 0 ] && [ $((chained * 100)) -ge $((all * 97)) ] ||
		fail "$f: only $chained of $all samples show the full call chain"
done

# The command's exit status comes back.
"$EPROF" record -o "$TMP/s.eprof" -- sh -c 'exit 7' 2>/dev/null
[ $? -eq 7 ] || fail "record -- CMD did not exit with the command's status"
exit 0
