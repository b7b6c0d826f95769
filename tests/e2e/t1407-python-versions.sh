#!/bin/bash
# SPDX-License-Identifier: MIT
# t1407: the 3.12 and 3.13 rows of the offset table (3.13's read from the
# _Py_DebugOffsets its _PyRuntime publishes), on python.org builds where
# there are some (pyenv's, shared libpython with its symbols): Python -> C ->
# Python reads <module>;main;caller, then the C sort (builtin_sorted ...
# list_sort_impl;PyObject_CallOneArg), then py_key, in at least 95% of
# py_key's samples; no eval-loop frame stays under a Python frame. Skipped
# (77) where neither version is installed.
. "$E2E_DIR/lib.sh"
require_root; require_btf
APP="$E2E_DIR/../workloads/py_sorted.py"

tried=0
for v in 3.12 3.13; do
	PY=$(ls /root/.pyenv/versions/$v.*/bin/python$v /usr/bin/python$v 2>/dev/null | head -1)
	[ -n "$PY" ] || { say "no Python $v here"; continue; }
	tried=$((tried + 1))
	"$EPROF" record -F 999 -o "$TMP/$v.eprof" -- "$PY" "$APP" 40 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "record of $PY failed"; }
	! grep -q 'cannot read' "$TMP/rec.err" || { cat "$TMP/rec.err"; fail "$v: its frames were not read"; }
	"$EPROF" report -i "$TMP/$v.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" || fail "report failed"
	grep '^eprof: Python' "$TMP/rep.err"
	awk '{ print $NF, $0 }' "$TMP/fold" | sort -nr | head -1 | cut -d' ' -f2- | cut -c1-600
	key=$(samples "$TMP/fold" ';py_key \(py_sorted\.py:1[0-3]\)_\[py\]( |;|$)')
	chain='<module> \(py_sorted\.py:26\)_\[py\];main \(py_sorted\.py:2[23]\)_\[py\];caller \(py_sorted\.py:1[78]\)_\[py\]'
	ordered=$(samples "$TMP/fold" "$chain;([^;]+;)*builtin_sorted;([^;]+;)*list_sort_impl;PyObject_CallOneArg;py_key \\(py_sorted\\.py:1[0-3]\\)_\\[py\\]( |;|\$)")
	[ "$key" -ge 150 ] || fail "$v: only $key samples in py_key"
	check_at_least "$v: py_key above the C sort above caller" "$ordered" "$key" 95
	ev=$(samples "$TMP/fold" '_PyEval_EvalFrameDefault;.*py_sorted\.py')
	[ "$ev" -eq 0 ] || fail "$v: $ev samples keep _PyEval_EvalFrameDefault under Python frames"
done
[ "$tried" -gt 0 ] || skip "neither Python 3.12 nor 3.13 is installed"
exit 0
