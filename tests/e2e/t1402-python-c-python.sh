#!/bin/bash
# SPDX-License-Identifier: MIT
# t1402: Python -> C -> Python. sorted(data, key=py_key) on Debian's stock
# python3.11: the interpreter's C sort calls the Python key function, so the
# folded stacks must read, outer to inner, the caller's Python frames
# (<module>;main;caller), then native frames of the C sort (no eval-loop
# frame among them: that one is caller's), then py_key as a Python frame
# with the native eval-loop frame that ran it replaced.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
APP="$E2E_DIR/../workloads/py_sorted.py"

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$APP" 60 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
cat "$TMP/rep.err"
awk '{ print $NF, $0 }' "$TMP/fold" | sort -nr | head -3 | cut -d' ' -f2- | cut -c1-600

key=$(samples "$TMP/fold" ';py_key \(py_sorted\.py:1[0-3]\)_\[py\]( |;|$)')
total=$(samples "$TMP/fold" '.')
say "py_key in $key of $total samples"
check_at_least "samples in py_key" "$key" "$total" 50
[ "$key" -ge 300 ] || fail "only $key samples in py_key"

# caller's chain, then one or more native frames (none a Python frame or
# the eval loop), then py_key
chain='<module> \(py_sorted\.py:26\)_\[py\];main \(py_sorted\.py:2[23]\)_\[py\];caller \(py_sorted\.py:1[78]\)_\[py\]'
native='(;[^;]+)+'
inner=';py_key \(py_sorted\.py:1[0-3]\)_\[py\]( |;|$)'
ordered=$(samples "$TMP/fold" "$chain$native$inner")
check_at_least "py_key above C frames above caller" "$ordered" "$key" 95
bad=$(samples "$TMP/fold" "caller \\(py_sorted\\.py:[0-9]+\\)_\\[py\\];([^;]*;)*(_PyEval_EvalFrameDefault|[^;]*_\\[py\\]);([^;]*;)*py_key \\(")
[ "$bad" -eq 0 ] || fail "$bad samples have the eval loop or another Python frame between caller and py_key"
# the C sort calls the key through the C API: PyObject_CallOneArg (exported;
# the sort's own functions are static, unnamed in Debian's stripped binary)
# among at least three native frames between caller and py_key
c_api=$(samples "$TMP/fold" "caller \\(py_sorted\\.py:[0-9]+\\)_\\[py\\];[^;]+;[^;]+;([^;]*;)*PyObject_CallOneArg;([^;]*;)*py_key \\(")
check_at_least "PyObject_CallOneArg and two more native frames between caller and py_key" "$c_api" "$ordered" 95
exit 0
