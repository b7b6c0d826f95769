#!/bin/bash
# SPDX-License-Identifier: MIT
# t1101: the HTML report of a two-phase workload, driven in chromium with the
# mouse: it loads without errors or network requests; a heat-map range before
# the switch keeps phase_a and not phase_b in the top tables, one after keeps
# phase_b only; search shows the share the fold output gives; the second
# range shift-dragged after the first draws phase_b red (it grew) and ranks
# it among the two largest changes, with a significant z and the noise
# estimate of --diff --top (checked against --fold of each half); clicking phase_a
# zooms the flame graph and the top tables follow; the icicle switch flips it.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser

"$EPROF" record -F 499 -o "$TMP/p.eprof" -- "$WORKLOADS/phases" 3000 >"$TMP/out" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
switch_ns=$(awk '/^switch / { print $2 }' "$TMP/out")
start_ns=$("$EPROF" info "$TMP/p.eprof" 2>/dev/null | awk '/^start \(ns\)/ { print $NF }')
[ -n "$switch_ns" ] && [ -n "$start_ns" ] || fail "no switch time ('$switch_ns') or start time ('$start_ns')"
sw=$(awk -v s="$switch_ns" -v t="$start_ns" 'BEGIN { printf "%.3f\n", (s - t) / 1e9 }')
# 0.1 s either side, on the page's 20 ms cells (so --to/--from cut the same samples)
lo=$(awk -v s="$sw" 'BEGIN { printf "%.2f\n", int((s - 0.1) * 50) / 50 }')
hi=$(awk -v s="$sw" 'BEGIN { printf "%.2f\n", int((s + 0.1) * 50 + 1) / 50 }')
say "phase_b starts ${sw} s into the recording"
"$EPROF" report -i "$TMP/p.eprof" --html "$TMP/p.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }
"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/p.fold" 2>/dev/null || fail "report --fold failed"
grep -q 'http' "$TMP/p.html" && grep -Eo '(src|href)="https?:[^"]*' "$TMP/p.html" &&
	fail "the page links to the network"

# has ROWS TABLE FUNCTION: the function is a row of that table
has() { awk -F'\t' -v t="$2" -v f="$3" '$1 == t && $2 == f { ok = 1 } END { exit !ok }' "$1"; }

# the first half, then the second
drive "$TMP/p.html" heat 0 "$lo" top >"$TMP/first" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
drive "$TMP/p.html" heat "$hi" end top >"$TMP/second" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
head -4 "$TMP/first" "$TMP/second"
for t in top-self top-total; do
	has "$TMP/first" $t phase_a || fail "first half: no phase_a in $t"
	has "$TMP/first" $t phase_b && fail "first half: phase_b in $t"
	has "$TMP/second" $t phase_b || fail "second half: no phase_b in $t"
	has "$TMP/second" $t phase_a && fail "second half: phase_a in $t"
done

# search: the share of samples with phase_a on the stack, as the fold counts it
drive "$TMP/p.html" search phase_a matched allrows modules >"$TMP/m" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
grep -v '^module' "$TMP/m"
want=$(awk '{ n = $NF; t += n; if ($0 ~ /phase_a/) m += n } END { printf "%.9f\n", m / t }' "$TMP/p.fold")
got=$(awk -F'\t' '/^matched/ { print $2 }' "$TMP/m")
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(g != "none" && d < 1e-9 && d > -1e-9) }' ||
	fail "search phase_a: the page says $got, the fold $want"
awk -v w="$want" 'BEGIN { exit !(w > 0.2 && w < 0.8) }' || fail "phase_a has a share of $want: not two phases"

# hover: the tooltip names the frame and its samples, as many as the fold has through it
drive "$TMP/p.html" hover phase_a >"$TMP/h" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/h"
n=$(awk '{ n = $NF; if ($0 ~ /;phase_a(;| )/) m += n } END { printf "%d\n", m }' "$TMP/p.fold")
awk -F'\t' -v n="$n" '$1 == "hover" && $2 == "phase_a" { gsub(/,/, "", $3); split($3, w, " "); ok = w[1] == n }
	END { exit !ok }' "$TMP/h" || fail "hovering phase_a does not show its $n samples"

# zoom: clicking phase_a in the whole recording's flame graph leaves the top
# tables to phase_a's stacks; the switch puts the root at the top, and back
drive "$TMP/p.html" icicle click phase_a top icicle >"$TMP/z" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
[ "$(grep '^root-at' "$TMP/z" | cut -f2 | tr '\n' ' ')" = "top bottom " ] ||
	fail "the flame/icicle switch does not move the root"
has "$TMP/z" top-self phase_a || fail "zoomed on phase_a: no phase_a in top-self"
has "$TMP/z" top-self phase_b && fail "zoomed on phase_a: phase_b in top-self"

# diff: first half against the second
drive "$TMP/p.html" heat 0 "$lo" heat2 "$hi" end diff frame phase_b >"$TMP/d" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/d"
awk -F'\t' '$1 == "frame" && $2 == "phase_b" { exit !($3 >= 240 && $4 <= 160 && $5 <= 160) } END { if (NR == 0) exit 1 }' "$TMP/d" ||
	fail "phase_b is not drawn red in the diff"
# the two phases lead the changes (both near 100 points; their order is a tie)
awk -F'\t' '$1 == "diff-total" { n++; if (n <= 2) print $2 }' "$TMP/d" | sort | tr '\n' ' ' |
	grep -qx "phase_a phase_b " || fail "the phases are not the largest changes of total share"
awk -F'\t' '$1 == "diff-total" && $2 == "phase_b" { print $3 }' "$TMP/d" | grep -qx grew ||
	fail "phase_b is not shown as a significant growth"
awk -F'\t' '$1 == "diff-total" && $2 == "phase_a" { print $3 }' "$TMP/d" | grep -qx shrank ||
	fail "phase_a is not shown shrinking"
# the noise estimate is that of --diff --top, from the two halves' own samples:
# stderr = sqrt(p1(1-p1)/n1 + p2(1-p2)/n2), z = change / stderr
"$EPROF" report -i "$TMP/p.eprof" --to "$lo" --fold >"$TMP/h1.fold" 2>/dev/null || fail "report --to failed"
"$EPROF" report -i "$TMP/p.eprof" --from "$hi" --fold >"$TMP/h2.fold" 2>/dev/null || fail "report --from failed"
awk '
	{ n = $NF; k = split(substr($0, 1, length($0) - length(n) - 1), fr, ";"); delete on
	  for (i = 2; i <= k; i++) on[fr[i]] = 1
	  side = FILENAME == ARGV[1] ? 1 : 2; tot[side] += n
	  for (f in on) { c[side, f] += n; seen[f] = 1 } }
	END { n1 = tot[1]; n2 = tot[2]
	      for (f in seen) { c1 = c[1, f]; c2 = c[2, f]; p1 = c1 / n1; p2 = c2 / n2
		se = sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
		if (se == 0) { a1 = (c1 + 1) / (n1 + 2); a2 = (c2 + 1) / (n2 + 2)
			       se = sqrt(a1 * (1 - a1) / (n1 + 2) + a2 * (1 - a2) / (n2 + 2)) }
		printf "%s\t%.4f\t%.4f\n", f, (p2 - p1) * 100, (p2 - p1) / se } }' "$TMP/h1.fold" "$TMP/h2.fold" >"$TMP/want"
awk -F'\t' '$1 == "diff-total" { sub(/%/, "", $4); print $2 "\t" $4 "\t" $5 }' "$TMP/d" >"$TMP/got"
grep -E '^phase_(a|b)\b' "$TMP/got" "$TMP/want"
[ "$(wc -l <"$TMP/got")" -ge 10 ] || fail "fewer than 10 rows of changes"
# (a name in two binaries, as _start in the program and in ld.so, is two functions of the page and one
# of the fold: such names, those the page lists with two modules, are left out)
awk -F'\t' '$1 == "module" { n[$2]++ } END { for (f in n) if (n[f] > 1) print f }' "$TMP/m" >"$TMP/twins"
awk -F'\t' 'FILENAME == ARGV[1] { twin[$1] = 1; next } FILENAME == ARGV[2] { d[$1] = $2; z[$1] = $3; next }
	$1 in twin { next }
	!($1 in d) { print "not in the folds: " $1; bad = 1; next }
	{ e = $2 - d[$1]; f = $3 - z[$1]
	  if (e > 0.006 || e < -0.006 || f > 0.011 || f < -0.011) { print $0 " but " d[$1] " " z[$1]; bad = 1 } }
	END { exit bad }' "$TMP/twins" "$TMP/want" "$TMP/got" ||
	fail "the page's changes and z are not those of the two halves' samples"
exit 0
