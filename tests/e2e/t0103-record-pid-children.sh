#!/bin/bash
# SPDX-License-Identifier: MIT
# t0103: -p attaches to a running process and follows the children it
# starts afterwards: a forked child that lives 20 ms and an exec'd program
# that lives 20 ms are both sampled and symbolized.
. "$E2E_DIR/lib.sh"
require_root; require_btf

for mode in fork exec; do
	if [ $mode = fork ]; then
		"$WORKLOADS/forker" 4000 >"$TMP/pid" &
	else
		"$WORKLOADS/forker" 4000 "$WORKLOADS/short_lived" >"$TMP/pid" &
	fi
	wpid=$!
	for _ in $(seq 50); do [ -s "$TMP/pid" ] && break; sleep 0.05; done
	[ "$(cat "$TMP/pid")" = "$wpid" ] || fail "forker did not start"
	sleep 0.3
	"$EPROF" record -F 999 -p "$wpid" -d 2 -o "$TMP/p.eprof" 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "record -p failed ($mode)"; }
	kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
	cat "$TMP/rec.err"
	"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report failed ($mode)"; }
	cat "$TMP/rep.err"
	sort -t' ' -k2 -nr "$TMP/fold" | head -8

	parent=$(samples "$TMP/fold" ';main;parent_work;spin_until( |;|$)')
	say "$mode: parent_work samples: $parent"
	[ "$parent" -ge 500 ] || fail "$mode: parent_work has only $parent samples"
	if [ $mode = fork ]; then
		child=$(samples "$TMP/fold" ';main;child_work;spin_until( |;|$)')
	else
		child=$(samples "$TMP/fold" '^short_lived;.*main;short_lived_work( |;|$)')
	fi
	say "$mode: short-lived child samples: $child"
	# ~20 children x 20 ms at 999 Hz is ~400 samples; ask for a quarter.
	[ "$child" -ge 100 ] || fail "$mode: the 20 ms children are not symbolized ($child samples)"
	# Nothing outside the target's family.
	others=$(awk '{ split($1, f, ";"); if (f[1] != "forker" && f[1] != "short_lived") s += $NF } END { print s + 0 }' "$TMP/fold")
	[ "$others" -eq 0 ] || fail "$mode: $others samples from processes that are not forker or its children"
done
exit 0
