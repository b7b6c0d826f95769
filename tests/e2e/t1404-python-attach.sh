#!/bin/bash
# SPDX-License-Identifier: MIT
# t1404: a Python interpreter started before eprof. Debian's python3.11
# runs the 60/30/10 workload; `record -p PID` attached after its code
# objects exist names its Python frames with the chain down to <module>,
# and `record -a` names those of another one, started before it, too.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
APP="$E2E_DIR/../workloads/py_split.py"

# Each part's interpreter starts, compiles py_split.py and sleeps until
# the recorder says "recording"; then runs a fixed amount of work (ROUNDS),
# says it is done and sleeps again, and the recorder is stopped (SIGINT).
# The recording holds that work, as many samples of it however busy the
# machine is (a fixed time would get fewer), and little else: neither the
# interpreter's start nor its end.
ROUNDS=200
PID= PID2= REC=
trap 'kill $PID $PID2 $REC 2>/dev/null; wait $PID $PID2 $REC 2>/dev/null; rm -rf "$TMP"' EXIT
# start_app NAME: an interpreter waiting for $TMP/NAME.go; its pid in APP_PID
start_app() {
	"$PY" -c 'import os, sys, time
app, go, done = sys.argv[1:4]
code = compile(open(app).read(), app, "exec")
sys.argv = [app, sys.argv[4]]
while not os.path.exists(go):
    time.sleep(0.05)
exec(code, {"__name__": "__main__"})
open(done, "w").close()
time.sleep(120)' "$APP" "$TMP/$1.go" "$TMP/$1.done" "$ROUNDS" &
	APP_PID=$!
	sleep 0.5
}
# run_app NAME DELAY: DELAY seconds after the recorder ($REC) says
# "recording", the interpreter's work starts; the recorder stops after it
run_app() {
	local i
	wait_started "$REC" "$TMP/rec.err"
	sleep "$2"
	touch "$TMP/$1.go"
	for i in $(seq 1200); do
		[ -e "$TMP/$1.done" ] && break
		sleep 0.1
	done
	[ -e "$TMP/$1.done" ] || fail "$1: the workload did not end"
	kill -INT "$REC"
	wait "$REC" || { cat "$TMP/rec.err"; fail "record failed"; }
	REC=
	grep -v '^eprof: recording ' "$TMP/rec.err"
}

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

start_app p
PID=$APP_PID
"$EPROF" record -v -F 999 -d 120 -p "$PID" -o "$TMP/p.eprof" 2>"$TMP/rec.err" &
REC=$!
run_app p 0
"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/p.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
awk '{ print $NF, $0 }' "$TMP/p.fold" | sort -nr | head -3 | cut -d' ' -f2- | cut -c1-400
check_py "$TMP/p.fold" "-p $PID" 300

# -a: an interpreter already running is looked for before sampling
# starts; judged from 0.5 s on (its work starts later), beside the other
# processes'.
start_app a
PID2=$APP_PID
"$EPROF" record -v -F 999 -d 120 -a -o "$TMP/a.eprof" 2>"$TMP/rec.err" &
REC=$!
run_app a 0.5
"$EPROF" report -i "$TMP/a.eprof" --pid "$PID2" --from 0.5 --fold >"$TMP/a.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
check_py "$TMP/a.fold" "-a" 100
exit 0
