#!/bin/bash
# SPDX-License-Identifier: MIT
# t1405: the Python walks are accounted for, the same in info and on
# report's stderr line. A 150-deep Python recursion spinning at its bottom
# stops the walk at its depth limit (96 Python frames, the innermost kept);
# an interpreter of a version without offsets (pyenv's 3.10, where there is
# one) records native frames only, says so once on stderr, and info and
# report name its version and count its samples.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
APP="$E2E_DIR/../workloads/py_deep.py"

# info_num FILE LABEL: the number info gives for LABEL
info_num() { sed -n "s/^$2  *\\([0-9][0-9]*\\)\$/\\1/p" "$1"; }

"$EPROF" record -F 999 -o "$TMP/d.eprof" -- "$PY" "$APP" 150 300 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" info "$TMP/d.eprof" >"$TMP/info" || fail "info failed"
"$EPROF" report -i "$TMP/d.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" || fail "report failed"
grep '^Python' "$TMP/info"
cat "$TMP/rep.err"
with=$(info_num "$TMP/info" "Python: samples with Python frames")
depth=$(info_num "$TMP/info" "Python: walks stopped, depth limit")
unread=$(info_num "$TMP/info" "Python: walks stopped, frame unreadable")
[ -n "$with" ] && [ -n "$depth" ] && [ -n "$unread" ] || fail "info does not account for the Python walks"
grep -q "^eprof: Python: $with samples with Python frames of [0-9]* in interpreters; [0-9]* walks stopped early ($unread frame unreadable, $depth depth limit, [0-9]* stack copy, 0 unknown version)\$" "$TMP/rep.err" ||
	fail "report's Python line does not say what info says"
deep=$(samples "$TMP/fold" ';spin \(py_deep\.py:1[0-4]\)_\[py\]')
check_at_least "walks stopped at the depth limit, of the samples in spin" "$depth" "$deep" 90
# the innermost 96 kept: spin and 95 down frames, no <module>
n96=$(awk '{
	n = $NF; $NF = ""; sub(/ +$/, ""); k = split($0, f, ";"); py = 0; down = 0; last = ""
	for (i = 1; i <= k; i++)
		if (f[i] ~ /_\[py\]$/) { py++; last = f[i]; if (f[i] ~ /^down \(py_deep\.py:(19|20)\)_/) down++ }
	if (py == 96 && down == 95 && last ~ /^spin \(/) s += n
} END { print s + 0 }' "$TMP/fold")
check_at_least "samples in spin with 96 Python frames, 95 of them down" "$n96" "$deep" 90
more=$(awk '{ $NF = ""; if (gsub(/_\[py\]/, "&") > 96) print }' "$TMP/fold" | wc -l)
[ "$more" -eq 0 ] || fail "$more stacks have more than 96 Python frames"

PY10=$(ls /root/.pyenv/versions/3.10.*/bin/python3.10 /usr/bin/python3.10 2>/dev/null | head -1)
if [ -z "$PY10" ]; then
	say "no Python 3.10 here: the unknown version is not tried"
	exit 0
fi
"$EPROF" record -F 999 -o "$TMP/u.eprof" -- "$PY10" "$E2E_DIR/../workloads/py_split.py" 100 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record of $PY10 failed"; }
cat "$TMP/rec.err"
[ "$(grep -c 'runs Python 3\.10, whose frames eprof cannot read' "$TMP/rec.err")" -eq 1 ] ||
	fail "record does not say once that 3.10's frames cannot be read"
"$EPROF" info "$TMP/u.eprof" >"$TMP/info" || fail "info failed"
"$EPROF" report -i "$TMP/u.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" || fail "report failed"
grep '^Python' "$TMP/info"
cat "$TMP/rep.err"
grep -q '^Python: unknown version (native frames only)  *3\.10 (process [0-9]*)$' "$TMP/info" ||
	fail "info does not name the unknown version"
unk=$(info_num "$TMP/info" "Python: not walked, unknown version")
total=$(samples "$TMP/fold" '^python3\.10;')
# the first ones, while ld.so still maps libpython, are no interpreter's yet
check_at_least "samples of 3.10 counted as of an unknown version" "$unk" "$total" 95
grep -q "^eprof: Python: 0 samples with Python frames of $unk in interpreters; $unk walks stopped early (0 frame unreadable, 0 depth limit, 0 stack copy, $unk unknown version: Python 3\\.10 (process [0-9]*))\$" "$TMP/rep.err" ||
	fail "report's Python line does not count the unknown version"
py=$(samples "$TMP/fold" '_\[py\]')
ev=$(samples "$TMP/fold" ';_PyEval_EvalFrameDefault(;|$| )')
[ "$py" -eq 0 ] || fail "$py samples of 3.10 have Python frames"
check_at_least "3.10 samples in its native eval loop" "$ev" "$total" 80
exit 0
