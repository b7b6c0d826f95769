#!/bin/bash
# SPDX-License-Identifier: MIT
# t1406: report --no-python shows the interpreter's native frames instead
# of the Python frames, from the same recording (the native frames are kept
# in it). Python -> C -> Python (py_sorted.py on Debian's python3.11): the
# --no-python stacks are exactly the default ones with each run of Python
# frames put back as the one native _PyEval_EvalFrameDefault frame that ran
# them, sample for sample; --top ranks the eval loop, no Python frame.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$E2E_DIR/../workloads/py_sorted.py" 30 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/py.fold" 2>/dev/null || fail "report failed"
"$EPROF" report -i "$TMP/r.eprof" --no-python --fold >"$TMP/native.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --no-python failed"; }
cat "$TMP/rep.err"
awk '{ print $NF, $0 }' "$TMP/native.fold" | sort -nr | head -2 | cut -d' ' -f2- | cut -c1-400

key=$(samples "$TMP/py.fold" ';py_key \(py_sorted\.py:[0-9]+\)_\[py\]')
[ "$key" -ge 150 ] || fail "only $key samples in py_key"
n=$(samples "$TMP/native.fold" '_\[py\]')
[ "$n" -eq 0 ] || fail "$n samples keep Python frames under --no-python"
# two eval loops, the sort's C frames between them: caller's and py_key's
two=$(samples "$TMP/native.fold" ';_PyEval_EvalFrameDefault;([^;]+;)*PyObject_CallOneArg;([^;]+;)*_PyEval_EvalFrameDefault( |;|$)')
check_at_least "--no-python: two eval loops with PyObject_CallOneArg between, of py_key's samples" "$two" "$key" 95

# each run of Python frames back to the native eval-loop frame: the same stacks
awk '{
	n = $NF; $NF = ""; sub(/ +$/, ""); k = split($0, f, ";"); out = ""; inpy = 0
	for (i = 1; i <= k; i++) {
		if (f[i] ~ /_\[py\]$/) { if (!inpy) out = out ";_PyEval_EvalFrameDefault"; inpy = 1; continue }
		inpy = 0; out = out ";" f[i]
	}
	s[substr(out, 2)] += n
} END { for (x in s) print x, s[x] }' "$TMP/py.fold" | sort >"$TMP/want"
awk '{ n = $NF; $NF = ""; sub(/ +$/, ""); s[$0] += n } END { for (x in s) print x, s[x] }' \
	"$TMP/native.fold" | sort >"$TMP/got"
total=$(samples "$TMP/native.fold" '.')
same=$(comm -12 "$TMP/want" "$TMP/got" | awk '{ s += $NF } END { print s + 0 }')
say "$same of $total samples have the same stack with Python frames put back as the eval loop"
[ "$total" -eq "$(samples "$TMP/py.fold" '.')" ] || fail "--no-python changed the sample count"
[ "$same" -eq "$total" ] || { diff "$TMP/want" "$TMP/got" | head -5 | cut -c1-300; fail "the stacks differ"; }

"$EPROF" report -i "$TMP/r.eprof" --no-python --top 5 >"$TMP/top" 2>/dev/null || fail "--top failed"
grep -q '_PyEval_EvalFrameDefault' "$TMP/top" || fail "--no-python --top does not list the eval loop"
! grep -q '_\[py\]' "$TMP/top" || fail "--no-python --top lists Python frames"
exit 0
