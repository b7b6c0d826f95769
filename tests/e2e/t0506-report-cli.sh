#!/bin/bash
# SPDX-License-Identifier: MIT
# t0506: bad combinations of report options get one line on stderr and exit
# 2; every output writes to stdout or its file; several -i merge.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/known_split" 500 2>/dev/null || fail "record failed"
bad() {
	"$EPROF" report "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || { cat "$TMP/err"; fail "'$*' exited $rc, not 2"; }
	one_line_error "$TMP/err"
	say "'$*': $(cat "$TMP/err")"
}
R="-i $TMP/r.eprof"
bad $R --fold --top
bad $R --samples --top
bad $R --samples --by pid
bad $R --csv --fold
bad $R --icicle --top
bad $R --kernel-only --user-only --fold
bad $R --by host --fold
bad $R --by pid --per-cpu
bad $R --from 3 --to 1 --fold
bad $R --timeline 0
bad $R --timeline abc
bad $R --pid x --fold
bad $R --svg "$TMP/a.svg" -o "$TMP/b.svg"
bad --diff "$TMP/r.eprof" --fold
bad --diff "$TMP/r.eprof" "$TMP/r.eprof" --per-cpu
bad --diff "$TMP/r.eprof" "$TMP/r.eprof" -i "$TMP/r.eprof" --fold
bad $R --top 0

for o in "" --fold --top "--top 3" --samples --per-cpu --per-node "--timeline 0.25" "--timeline 0.25 --csv"; do
	"$EPROF" report $R $o >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "$o failed"; }
	[ -s "$TMP/out" ] || fail "$o wrote nothing to stdout"
done
"$EPROF" report $R --top 3 -o "$TMP/top.txt" 2>/dev/null && [ -s "$TMP/top.txt" ] || fail "-o failed"
[ "$(grep -c '^ *[0-9]' "$TMP/top.txt")" -eq 6 ] || fail "--top 3 does not give 3 rows per table"

# two -i: counts add up (a copy stands for a second recording)
cp "$TMP/r.eprof" "$TMP/copy.eprof"
"$EPROF" report $R --fold >"$TMP/one" 2>/dev/null
"$EPROF" report $R -i "$TMP/copy.eprof" --fold >"$TMP/two" 2>/dev/null || fail "two -i failed"
a=$(awk '{ s += $NF } END { print s }' "$TMP/one"); b=$(awk '{ s += $NF } END { print s }' "$TMP/two")
[ "$b" -eq $((2 * a)) ] || fail "-i of a file and its copy give $b samples, not $((2 * a))"
# the same file twice (by another path too) would count twice: one error line
"$EPROF" report $R -i "$TMP/./r.eprof" --fold >"$TMP/out" 2>"$TMP/err" && fail "the same file twice was merged"
one_line_error "$TMP/err"
[ -s "$TMP/out" ] && fail "the same file twice printed a report"
exit 0
