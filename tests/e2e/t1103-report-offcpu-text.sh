#!/bin/bash
# SPDX-License-Identifier: MIT
# t1103: report's stderr for time-weighed views (issue 21): "frames named
# by" counts frames of samples and off-CPU intervals, never nanoseconds (the
# sum stays below frames x events, far below the ns of the blocked time);
# --off-cpu --top does not say the recording has no samples while it prints
# blocked time; ticks that did not fire are never counted as lost samples;
# time that --kernel-only leaves out is said in seconds, not as samples.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record --off-cpu -F 199 -o "$TMP/o.eprof" -- "$WORKLOADS/offcpu_split" split 200 600 300 \
	>/dev/null 2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
for w in --off-cpu --wall; do
	"$EPROF" report -i "$TMP/o.eprof" $w --top 50 >"$TMP/top" 2>"$TMP/err" || { cat "$TMP/err"; fail "report $w failed"; }
	cat "$TMP/err"
	grep -q 'no samples' "$TMP/err" && fail "report $w says there are no samples"
	grep -q 'sleep_phase' "$TMP/top" || fail "report $w --top does not show sleep_phase"
	named=$(sed -n 's/^eprof: frames named by://p' "$TMP/err" | tr ',' '\n' | awk '{ s += $NF } END { print s + 0 }')
	# at most 127 + 127 frames a stack, a few hundred events: far below a second in ns
	[ "$named" -gt 0 ] && [ "$named" -lt 10000000 ] || fail "report $w: $named frames named (ns, not frames?)"
	grep -Eq 'about [0-9]+ of them this recording|missed by a late timer' "$TMP/err" &&
		fail "report $w counts ticks that did not fire as lost"
done
# the on-CPU samples of the spinning phase are user code alone: --kernel-only
# cuts them away whole, and -v says how much time left, never ns as samples
"$EPROF" report -v -i "$TMP/o.eprof" --wall --kernel-only --fold >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --wall --kernel-only failed"; }
cat "$TMP/err"
left=$(sed -n 's/^eprof: \([0-9.]*\) s of time left out by --kernel-only\/--user-only$/\1/p' "$TMP/err")
[ -n "$left" ] || fail "report --wall --kernel-only does not say the time it left out"
n=$(sed -n 's/^eprof: \([0-9]*\) samples left out by the filters$/\1/p' "$TMP/err")
[ "${n:-0}" -lt 100000 ] || fail "report --wall --kernel-only counts $n samples left out (ns, not samples?)"
say "frames counted by events; no 'no samples' for off-CPU time; time cut away said in seconds"
