#!/bin/bash
# SPDX-License-Identifier: MIT
# t0112: on a terminal, record rewrites a status line (elapsed time, samples,
# lost, file size) about once a second and clears it before the summary
# line; with stderr in a file, or with -q on a terminal, there is none.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd script

# script(1) runs the command on a pseudo-terminal and copies what it writes.
on_tty() { script -qec "$1" /dev/null; }

rec="'$EPROF' record -F 99 -o '$TMP/t.eprof' -- '$WORKLOADS/known_split' 2500"
on_tty "$rec" >"$TMP/tty.out" || { cat -A "$TMP/tty.out"; fail "record on a terminal failed"; }
cat -A "$TMP/tty.out"
# the status lines are separated by \r; the last one is cleared (\r ESC[K)
tr '\r' '\n' <"$TMP/tty.out" >"$TMP/tty.lines"
n=$(grep -Ec '^eprof: recording [0-9]+ s, [0-9]+ samples, [0-9]+ lost, [0-9.]+ (B|KiB|MiB)' "$TMP/tty.lines")
say "$n status lines on the terminal"
# 2.5 s of CPU time takes at least 2.5 s: at least two redraws
[ "$n" -ge 2 ] || fail "expected at least 2 status lines, got $n"
grep -q $'\r\e\\[Keprof: recorded [0-9]* samples' "$TMP/tty.out" ||
	fail "the status line is not cleared before the summary line"

"$EPROF" record -F 99 -o "$TMP/f.eprof" -- "$WORKLOADS/known_split" 2500 2>"$TMP/file.err" ||
	{ cat "$TMP/file.err"; fail "record failed"; }
cat "$TMP/file.err"
grep -q $'\r' "$TMP/file.err" && fail "a status line went to a file"
grep -q 'recording [0-9]* s' "$TMP/file.err" && fail "a status line went to a file"
[ "$(wc -l <"$TMP/file.err")" -eq 1 ] && grep -q '^eprof: recorded ' "$TMP/file.err" ||
	fail "stderr in a file is not exactly the summary line"

on_tty "'$EPROF' record -q -F 99 -o '$TMP/q.eprof' -- '$WORKLOADS/known_split' 1500" >"$TMP/q.out" ||
	{ cat -A "$TMP/q.out"; fail "record -q on a terminal failed"; }
[ -s "$TMP/q.out" ] && { cat -A "$TMP/q.out"; fail "record -q wrote on the terminal"; }
exit 0
