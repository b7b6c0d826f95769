#!/bin/bash
# SPDX-License-Identifier: MIT
# t1401: Debian's stock python3.11 (stripped) running three Python
# functions that spin 60/30/10 (fixed work) is recorded with no change to
# the program: the folded stacks name each Python function as
# "qualname (file.py:line)_[py]" in place of the native eval-loop frame,
# shares within 2 points, the chain reads <module> -> main -> function
# with the interpreter's native entry below, and --top lists each function
# once (qualname_[py] in its file), its total the fold's.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
APP="$E2E_DIR/../workloads/py_split.py"

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$APP" 300 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
cat "$TMP/rep.err"
awk '{ print $NF, $0 }' "$TMP/fold" | sort -nr | head -5 | cut -d' ' -f2- | cut -c1-400

a=$(samples "$TMP/fold" ';alpha \(py_split\.py:[0-9]+\)_\[py\]')
b=$(samples "$TMP/fold" ';beta \(py_split\.py:[0-9]+\)_\[py\]')
c=$(samples "$TMP/fold" ';gamma \(py_split\.py:[0-9]+\)_\[py\]')
total=$((a + b + c))
say "alpha=$a beta=$b gamma=$c"
# ~3 s of CPU time at 999 Hz; a third of that is plenty to judge a split
[ "$total" -ge 1000 ] || fail "only $total samples in the three Python functions"
check_share alpha "$(share_pct "$a" "$total")" 60 2
check_share beta "$(share_pct "$b" "$total")" 30 2
check_share gamma "$(share_pct "$c" "$total")" 10 2

# the loop's lines (for, body), the caller's call line, the chain down to the native entry
for f in alpha:1[12]:33 beta:1[89]:34 gamma:2[56]:35; do
	IFS=: read -r name body call <<<"$f"
	all=$(samples "$TMP/fold" ";$name \\(")
	py="<module> \\(py_split\\.py:38\\)_\\[py\\];main \\(py_split\\.py:$call\\)_\\[py\\];$name \\(py_split\\.py:$body\\)_\\[py\\]( |;|\$)"
	chained=$(samples "$TMP/fold" ";$py")
	native=$(samples "$TMP/fold" "^python3\\.11;(.*;)?Py_BytesMain;(.*;)?$py")
	say "$name: $chained of $all samples read <module>;main;$name at its lines, $native with Py_BytesMain below"
	[ "$all" -gt 0 ] && [ $((chained * 100)) -ge $((all * 97)) ] ||
		fail "$name: only $chained of $all samples show the Python chain with lines"
	# the native walk under a busy machine may stop short of the entry now and then
	[ $((native * 100)) -ge $((all * 90)) ] ||
		fail "$name: only $native of $all samples have the native entry below the Python frames"
done
# every native eval-loop frame that ran Python code is replaced by it
ev=$(samples "$TMP/fold" '_PyEval_EvalFrameDefault;.*py_split\.py')
[ "$ev" -eq 0 ] || fail "$ev samples keep _PyEval_EvalFrameDefault under the Python frames"

"$EPROF" report -i "$TMP/r.eprof" --top >"$TMP/top" 2>/dev/null || fail "report --top failed"
head -15 "$TMP/top"
# one row per function, whatever line ran, in its file; its total is the
# fold's samples through any of its lines
for name in alpha beta gamma; do
	row=$(awk -v f="${name}_[py]" '$5 == f && $6 == "py_split.py" { print $3; exit }' "$TMP/top")
	[ -n "$row" ] || fail "--top does not list ${name}_[py] in py_split.py"
	want=$(samples "$TMP/fold" ";$name \\(py_split\\.py:[0-9]+\\)_\\[py\\]")
	[ "$row" -eq "$want" ] || fail "--top: ${name}_[py] total $row, the fold has $want samples through it"
	[ "$(grep -c "$name (py_split" "$TMP/top")" -eq 0 ] || fail "--top lists $name by line"
done
exit 0
