#!/bin/bash
# SPDX-License-Identifier: MIT
# t1106: the HTML report's function views (issue 21) on known_split
# (dispatch calls work_a, work_b, work_c, 60/30/10 of its time): clicking
# dispatch in the top table opens its sandwich, whose callers (run_workload)
# and callees split as the fold output does, to 0.01 points, in its
# tables and in its two graphs (callers up to the entry); a column head
# sorts the table; "Show all" lists every function. Screenshot:
# tests/artifacts/t1106.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser
ART=$(artifacts t1106)

"$EPROF" record -F 499 -o "$TMP/k.eprof" -- "$WORKLOADS/known_split" 1500 >/dev/null 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/k.eprof" --html "$TMP/k.html" 2>/dev/null || fail "report --html failed"
"$EPROF" report -i "$TMP/k.eprof" --fold >"$TMP/k.fold" 2>/dev/null || fail "report --fold failed"
drive "$TMP/k.html" sandwich dispatch screenshot "$ART/sandwich.png" sort top-self 4 allrows top \
	>"$TMP/s" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/s"
# want F: the share of dispatch's samples that go on to F, from the fold
want() { awk -v f="$1" '{ n = $NF; if ($0 ~ /;dispatch(;| )/) { t += n; if ($0 ~ ";dispatch;" f "(;| )") m += n } }
	END { printf "%.2f\n", 100 * m / t }' "$TMP/k.fold"; }
# the tables and the graphs (their first level): the callees split as the
# fold does, the only caller is run_workload; the callers' graph reaches
# past it to main and the entry
for kind in callee gcallee; do
	for f in work_a work_b work_c; do
		got=$(awk -F'\t' -v k="$kind" -v f="$f" '$1 == k && $2 == f { sub(/%/, "", $3); print $3 }' "$TMP/s")
		[ -n "$got" ] && [ "$got" = "$(want "$f")" ] || fail "sandwich of dispatch ($kind): $f is ${got:-absent}%, the fold $(want "$f")%"
	done
	awk -F'\t' -v k="${kind%callee}caller" '$1 == k { n++; ok = $2 == "run_workload" && $3 == "100.00%" } END { exit !(n == 1 && ok) }' "$TMP/s" ||
		fail "dispatch's only caller (${kind%callee}caller) is not run_workload"
done
d=$(awk -F'\t' '$1 == "gdepth" && $2 == "callers" { print $3 }' "$TMP/s")
[ "${d:-0}" -ge 3 ] || fail "the callers graph draws ${d:-no} levels above dispatch: not its whole call chain"
awk -v a="$(want work_a)" 'BEGIN { exit !(a > 45 && a < 75) }' || fail "work_a is $(want work_a)% of dispatch: not known_split"
# the function column sorted (descending), then every function listed
sorted=$(awk -F'\t' '$1 == "sorted" { $1 = ""; $2 = ""; print }' "$TMP/s" | tr -s ' ' '\n' | grep -v '^$')
[ "$sorted" = "$(printf '%s\n' "$sorted" | LC_ALL=C sort -r)" ] || fail "sorting by function does not order the names"
# (the page's distinct names: a name in two binaries, as _start in the program and in ld.so, is two rows)
n=$(awk -F'\t' '$1 == "top-total" { s[$2] = 1 } END { print length(s) }' "$TMP/s")
m=$(awk '{ $NF = ""; n = split($0, f, ";"); for (i = 2; i <= n; i++) { g = f[i]; sub(/ +$/, "", g); s[g] = 1 } } END { print length(s) }' "$TMP/k.fold")
[ "$n" -eq "$m" ] || fail "Show all lists $n functions, the fold has $m"
say "sandwich splits as the fold; sort and Show all as built"
