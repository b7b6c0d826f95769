#!/bin/bash
# SPDX-License-Identifier: MIT
# t0501: a workload that runs phase_a for the first half of its work and
# phase_b for the second: --from/--to windows and --timeline put at least
# 90% of each half's samples of the workload on the right phase. phases
# spins by CPU time and prints when it switched, so the windows are placed
# around the switch however long a busy machine stretched each half.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 499 -o "$TMP/p.eprof" -- "$WORKLOADS/phases" 4000 >"$TMP/out" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
switch_ns=$(awk '/^switch / { print $2 }' "$TMP/out")
start_ns=$("$EPROF" info "$TMP/p.eprof" 2>/dev/null | awk '/^start \(ns\)/ { print $NF }')
[ -n "$switch_ns" ] && [ -n "$start_ns" ] || fail "no switch time ('$switch_ns') or start time ('$start_ns')"
# the switch in seconds from the start; the windows leave 0.1 s either side
sw=$(awk -v s="$switch_ns" -v t="$start_ns" 'BEGIN { printf "%.3f\n", (s - t) / 1e9 }')
lo=$(awk -v s="$sw" 'BEGIN { printf "%.3f\n", s - 0.1 }')
hi=$(awk -v s="$sw" 'BEGIN { printf "%.3f\n", s + 0.1 }')
say "phase_b starts ${sw} s into the recording"

# 2 s of CPU time per phase at 499 Hz is ~1000 samples; ask for a quarter
for half in first second; do
	if [ $half = first ]; then win="--to $lo"; want=phase_a; other=phase_b
	else win="--from $hi"; want=phase_b; other=phase_a; fi
	"$EPROF" report -i "$TMP/p.eprof" $win --fold >"$TMP/$half.fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report $win failed"; }
	w=$(samples "$TMP/$half.fold" "^phases;.*;$want( |;|\$)")
	o=$(samples "$TMP/$half.fold" "^phases;.*;$other( |;|\$)")
	say "$half half ($win): $want=$w $other=$o"
	[ $((w + o)) -ge 250 ] || fail "$half half: only $((w + o)) samples in the phases"
	[ $((w * 100)) -ge $(((w + o) * 90)) ] || fail "$half half: $want has only $w of $((w + o))"
done

# timeline: 0.25 s rows; rows ending before the switch are the first half,
# rows starting after it the second (the row around the switch counts in neither)
"$EPROF" report -i "$TMP/p.eprof" --timeline 0.25 --csv >"$TMP/t.csv" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --timeline failed"; }
cat "$TMP/t.csv"
"$EPROF" report -i "$TMP/p.eprof" --timeline 0.25 | head -12
awk -F, -v sw="$sw" 'NR == 1 { for (i = 4; i <= NF; i++) { if ($i == "phase_a") a = i; if ($i == "phase_b") b = i }
	  if (!a || !b) { print "no phase columns"; exit 1 }; next }
	 { pa = $3 * $a / 100; pb = $3 * $b / 100
	   if ($2 <= sw) { fa += pa; fb += pb } else if ($1 >= sw) { sa += pa; sb += pb } }
	 END { printf "first half: phase_a %.0f phase_b %.0f; second half: phase_a %.0f phase_b %.0f\n", fa, fb, sa, sb
	       if (fa < 0.9 * (fa + fb) || sb < 0.9 * (sa + sb) || fa + fb < 250 || sa + sb < 250) exit 1 }' \
	"$TMP/t.csv" || fail "--timeline does not show the phases apart"
exit 0
