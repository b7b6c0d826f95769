#!/bin/bash
# SPDX-License-Identifier: MIT
# t1412: Python frames when the command is a wrapper that execs the
# interpreter under its own name, as pyenv's `python3` shim does (a bash
# script that runs for a while, then execs the real python3): the name
# does not change at that exec, so the look for an interpreter must follow
# the exec itself. The wrapper spins well past the looks made while a
# process is young, then execs py_split.py (60/30/10) on Debian's
# python3.11 through a link named python3. Before the fix: no Python
# frame, every sample in _PyEval_EvalFrameDefault.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"

mkdir -p "$TMP/real" "$TMP/wrap"
ln -s "$PY" "$TMP/real/python3"
cat >"$TMP/wrap/python3" <<WRAP
#!/bin/bash
# a fixed amount of work before the exec (some 0.5-1 s here), as a shim does
i=0; while [ \$i -lt 150000 ]; do i=\$((i + 1)); done
exec "$TMP/real/python3" "\$@"
WRAP
chmod +x "$TMP/wrap/python3"

"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$TMP/wrap/python3" "$E2E_DIR/../workloads/py_split.py" 60 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/r.fold" 2>/dev/null || fail "report failed"
awk '{ print $NF, $0 }' "$TMP/r.fold" | sort -nr | head -3 | cut -d' ' -f2- | cut -c1-300
pre=$(samples "$TMP/r.fold" '^python3;.*bash|^python3;[^ ]*(execute_command|eval_arith|expr)')
a=$(samples "$TMP/r.fold" ';alpha \(py_split\.py:[0-9]+\)_\[py\]')
b=$(samples "$TMP/r.fold" ';beta \(py_split\.py:[0-9]+\)_\[py\]')
c=$(samples "$TMP/r.fold" ';gamma \(py_split\.py:[0-9]+\)_\[py\]')
eval_only=$(samples "$TMP/r.fold" ';_PyEval_EvalFrameDefault( |;[^[]*$)')
say "wrapper's own samples $pre; alpha $a, beta $b, gamma $c; eval-loop frames with no Python frame $eval_only"
[ "$pre" -ge 20 ] || fail "the wrapper ran only $pre samples before its exec: not past the young-process looks"
t=$((a + b + c))
[ "$t" -ge 100 ] || fail "only $t samples in py_split's functions after the wrapper's exec"
check_share "alpha" "$(share_pct "$a" "$t")" 60 10
check_share "beta" "$(share_pct "$b" "$t")" 30 10
# the first ticks after the exec come before the recorder has found the
# interpreter: 0-9 samples quiet, 13 of 195 once beside other work
[ "$eval_only" -le $((t / 10)) ] || fail "$eval_only samples end in the eval loop with no Python frame"
exit 0
