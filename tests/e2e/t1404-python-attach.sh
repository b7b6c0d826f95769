#!/bin/bash
# SPDX-License-Identifier: MIT
# t1404: a Python interpreter started before eprof. Debian's python3.11
# runs the 60/30/10 workload; `record -p PID` attached after its code
# objects exist names its Python frames with the chain down to <module>,
# and `record -a` beside it shows the same process's Python frames too.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
APP="$E2E_DIR/../workloads/py_split.py"

"$PY" "$APP" 3000 &	# about 10 s of CPU at most; killed at the end
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5

# check_py FOLD WHAT MIN: the Python functions of PID are named, with their chain
check_py() {
	local a b c total chained
	a=$(samples "$1" ';alpha \(py_split\.py:1[12]\)_\[py\]( |;|$)')
	b=$(samples "$1" ';beta \(py_split\.py:1[89]\)_\[py\]( |;|$)')
	c=$(samples "$1" ';gamma \(py_split\.py:2[56]\)_\[py\]( |;|$)')
	total=$(samples "$1" "^python3\\.11;")
	chained=$(samples "$1" "^python3\\.11;(.*;)?<module> \\(py_split\\.py:38\\)_\\[py\\];main \\(py_split\\.py:3[345]\\)_\\[py\\];(alpha|beta|gamma) \\(")
	say "$2: alpha=$a beta=$b gamma=$c of $total python3.11 samples, $chained with <module>;main below"
	[ "$total" -ge "$3" ] || fail "$2: only $total samples of the interpreter"
	[ "$a" -gt "$b" ] && [ "$b" -gt "$c" ] && [ "$c" -gt 0 ] || fail "$2: the three functions are not all named in order"
	check_at_least "$2: Python chain" "$chained" "$total" 95
}

"$EPROF" record -F 999 -d 3 -p "$PID" -o "$TMP/p.eprof" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record -p failed"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/p.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
awk '{ print $NF, $0 }' "$TMP/p.fold" | sort -nr | head -3 | cut -d' ' -f2- | cut -c1-400
check_py "$TMP/p.fold" "-p $PID" 300

# -a: every process is found at its first sample, and a sample taken
# before the interpreter and its unwind table are (about 0.2 s here) has
# native frames only: judged from 0.5 s on, beside the other processes'
"$EPROF" record -F 999 -d 3 -a -o "$TMP/a.eprof" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record -a failed"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/a.eprof" --pid "$PID" --from 0.5 --fold >"$TMP/a.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
check_py "$TMP/a.fold" "-a" 100
exit 0
