#!/bin/bash
# SPDX-License-Identifier: MIT
# t0103: -p attaches to a running process and follows the children it
# starts afterwards: a forked child that lives 20 ms and an exec'd program
# that lives 20 ms are both sampled and symbolized, and the recording ends
# when the process exits. forker does 30 rounds of 100 ms (parent) + 20 ms
# (child) of CPU time, so the counts below follow from its work, not from
# how busy the machine is.
. "$E2E_DIR/lib.sh"
require_root; require_btf

for mode in fork exec; do
	rm -f "$TMP/pid"	# the last round's pid, there until the new one's shell truncates it
	if [ $mode = fork ]; then
		"$WORKLOADS/forker" 3000 >"$TMP/pid" &
	else
		"$WORKLOADS/forker" 3000 "$WORKLOADS/short_lived" >"$TMP/pid" &
	fi
	wpid=$!
	for _ in $(seq 600); do [ -s "$TMP/pid" ] && break; sleep 0.05; done	# 30 s: a busy machine
	[ "$(cat "$TMP/pid")" = "$wpid" ] || fail "forker did not start"
	sleep 0.3
	"$EPROF" record -F 999 -p "$wpid" -o "$TMP/p.eprof" 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "record -p failed ($mode)"; }
	wait "$wpid" 2>/dev/null
	cat "$TMP/rec.err"
	"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report failed ($mode)"; }
	cat "$TMP/rep.err"
	sort -t' ' -k2 -nr "$TMP/fold" | head -8

	parent=$(samples "$TMP/fold" ';main;parent_work;spin_for( |;|$)')
	say "$mode: parent_work samples: $parent"
	# The rounds left after eprof attached (most of the 30) give ~100
	# samples each; ask for 5 rounds' worth.
	[ "$parent" -ge 500 ] || fail "$mode: parent_work has only $parent samples"
	if [ $mode = fork ]; then
		child=$(samples "$TMP/fold" ';main;child_work;spin_for( |;|$)')
	else
		child=$(samples "$TMP/fold" '^short_lived;.*main;short_lived_work( |;|$)')
	fi
	say "$mode: short-lived child samples: $child"
	# Each child is ~20 samples (20 ms of CPU time at 999 Hz); ask for 5 children's worth.
	[ "$child" -ge 100 ] || fail "$mode: the 20 ms children are not symbolized ($child samples)"
	# Nothing outside the target's family.
	others=$(awk '{ split($1, f, ";"); if (f[1] != "forker" && f[1] != "short_lived") s += $NF } END { print s + 0 }' "$TMP/fold")
	[ "$others" -eq 0 ] || fail "$mode: $others samples from processes that are not forker or its children"
done
exit 0
