#!/bin/bash
# SPDX-License-Identifier: MIT
# t1409: stacks finished from stack copies carry their Python frames. A cold
# start (an empty table cache) of Debian's python3.11 loading 24 copies of a
# new library one after another through ctypes, each calling a Python
# callback 100 times: while a copy's unwind table is not in yet, a sample
# in the callback comes with a copy of the stack (events.h, ev_raw) that
# the recorder finishes later. The Python frames, read in BPF beside the
# copy, are kept: the samples with Python frames are >= 95% of those whose
# native stack (report --no-python) has the eval loop, none is counted as
# not walked for a stack copy, and the callback's stacks read
# run -> call_back (C) -> py_work in their true order.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd gcc
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"

cat >"$TMP/cb.c" <<'CC'
typedef long (*cb_fn)(long);
/* calls cb n times: the Python callback runs above this library's frame */
long call_back(cb_fn cb, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += cb(i);
	return s;
}
CC
gcc -O2 -shared -fPIC -o "$TMP/libcb.so" "$TMP/cb.c" || fail "cannot build the library"
# distinct files: each has its own table, not in when it is loaded
for i in $(seq 0 23); do cp "$TMP/libcb.so" "$TMP/libcb$i.so"; done
cat >"$TMP/cb.py" <<'PY'
import ctypes, sys
CB = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_long)


def py_work(i):
    x = 0
    for j in range(2000):
        x += j
    return x


cb = CB(py_work)


def run(lib):
    return ctypes.CDLL(lib).call_back(cb, 100)


for i in range(24):
    run("%s/libcb%d.so" % (sys.argv[1], i))
PY
mkdir "$TMP/cache"
"$EPROF" record -F 999 --table-cache "$TMP/cache" -o "$TMP/c.eprof" -- "$PY" "$TMP/cb.py" "$TMP" \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" info "$TMP/c.eprof" >"$TMP/info" || fail "info failed"
"$EPROF" report -i "$TMP/c.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "report failed"
"$EPROF" report -i "$TMP/c.eprof" --no-python --fold >"$TMP/native" 2>/dev/null ||
	fail "report --no-python failed"
grep -E '^Python|^raw stack' "$TMP/info" | sed 's/^/# /'
meta() { awk -v k="$1" 'index($0, k) == 1 { print $NF; exit }' "$TMP/info"; }
finished=$(meta "raw stacks finished")
[ "${finished:-0}" -gt 0 ] || fail "no stack was finished from a stack copy: nothing was tried"
[ "$(meta "Python: not walked, stack copy")" = 0 ] ||
	fail "samples with stack copies were not walked for Python frames"
py=$(samples "$TMP/fold" '_\[py\]')
ev=$(samples "$TMP/native" ';_PyEval_EvalFrameDefault(;|$| )')
check_at_least "samples with Python frames, of those in the eval loop ($finished finished from copies)" \
	"$py" "$ev" 95
work=$(samples "$TMP/fold" ';py_work \(cb\.py:[0-9]+\)_\[py\]')
order=$(samples "$TMP/fold" ';run \(cb\.py:[0-9]+\)_\[py\];.*;call_back;.*;py_work \(cb\.py:[0-9]+\)_\[py\]')
check_at_least "py_work samples under call_back under run" "$order" "$work" 90
exit 0
