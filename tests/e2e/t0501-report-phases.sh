#!/bin/bash
# SPDX-License-Identifier: MIT
# t0501: a workload that runs phase_a for its first half and phase_b for its
# second: --from/--to windows and --timeline put at least 90% of each half's
# samples of the workload on the right phase.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 499 -o "$TMP/p.eprof" -- "$WORKLOADS/phases" 4000 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }

# windows: [0, 2) and [2, 4) seconds from the start
for half in first second; do
	if [ $half = first ]; then win="--to 2"; want=phase_a; other=phase_b
	else win="--from 2"; want=phase_b; other=phase_a; fi
	"$EPROF" report -i "$TMP/p.eprof" $win --fold >"$TMP/$half.fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report $win failed"; }
	w=$(samples "$TMP/$half.fold" "^phases;.*;$want( |;|\$)")
	o=$(samples "$TMP/$half.fold" "^phases;.*;$other( |;|\$)")
	say "$half half ($win): $want=$w $other=$o"
	[ $((w + o)) -ge 500 ] || fail "$half half: only $((w + o)) samples in the phases"
	[ $((w * 100)) -ge $(((w + o) * 90)) ] || fail "$half half: $want has only $w of $((w + o))"
done

# timeline: 0.5 s rows; rows ending by 2 s are the first half, rows from 2 s the second
"$EPROF" report -i "$TMP/p.eprof" --timeline 0.5 --csv >"$TMP/t.csv" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --timeline failed"; }
cat "$TMP/t.csv"
"$EPROF" report -i "$TMP/p.eprof" --timeline 0.5 | head -12
awk -F, 'NR == 1 { for (i = 4; i <= NF; i++) { if ($i == "phase_a") a = i; if ($i == "phase_b") b = i }
	  if (!a || !b) { print "no phase columns"; exit 1 }; next }
	 { pa = $3 * $a / 100; pb = $3 * $b / 100
	   if ($2 <= 2.0001) { fa += pa; fb += pb } else if ($1 >= 1.9999) { sa += pa; sb += pb } }
	 END { printf "first half: phase_a %.0f phase_b %.0f; second half: phase_a %.0f phase_b %.0f\n", fa, fb, sa, sb
	       if (fa < 0.9 * (fa + fb) || sb < 0.9 * (sa + sb) || fa + fb < 500 || sa + sb < 500) exit 1 }' \
	"$TMP/t.csv" || fail "--timeline does not show the phases apart"
exit 0
