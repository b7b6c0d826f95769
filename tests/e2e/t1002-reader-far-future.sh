#!/bin/bash
# SPDX-License-Identifier: MIT
# t1002: one sample 1e8 s (and 2^62 ns) after the start of a finished
# recording, or on CPU 1024 of a 2-CPU one, is damage: every view exits
# non-zero with one line naming the file and the table, and writes nothing
# (it once wrote 1.5 GB). In an unfinished recording, which has no end to
# hold samples to, --timeline refuses more than its row limit with a
# longer interval to try, and the other views still work. Needs no root.
. "$E2E_DIR/lib.sh"
require_cmd timeout

run() {
	timeout -k 5 30 "$EPROF" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "'$*' did not finish in 30 s"
	[ $rc -lt 128 ] || { cat "$TMP/err"; fail "'$*' crashed (exit $rc)"; }
	[ "$(wc -c <"$TMP/out")" -lt 100000 ] || fail "'$*' wrote $(wc -c <"$TMP/out") bytes"
}

G=$WORKLOADS/gen_hostile
"$G" "$TMP/late.eprof" late=1e8 || fail "gen_hostile failed"
"$G" "$TMP/huge.eprof" late=4611686018 || fail "gen_hostile failed"
"$G" "$TMP/cpu.eprof" cpu=1024 || fail "gen_hostile failed"
for f in late huge cpu; do
	for view in "--timeline 1" --fold --top --per-cpu --per-node "--svg $TMP/o.svg" \
		    "--pprof $TMP/o.pb"; do
		run report -i "$TMP/$f.eprof" $view
		[ $rc -eq 1 ] || { cat "$TMP/err"; fail "$f: report $view exited $rc, not 1"; }
		one_line_error "$TMP/err"
		grep -q "'$TMP/$f.eprof' is damaged: sample_chunk" "$TMP/err" ||
			{ cat "$TMP/err"; fail "$f: report $view does not name the file and the table"; }
		[ ! -s "$TMP/out" ] || fail "$f: report $view wrote to stdout"
	done
	run info "$TMP/$f.eprof"
	[ $rc -eq 1 ] || { cat "$TMP/err"; fail "$f: info exited $rc, not 1"; }
	one_line_error "$TMP/err"
	say "$f: $(cat "$TMP/err")"
done

# unfinished: no end_ns, so 1e8 s is possible; the timeline is bounded anyway
"$G" "$TMP/open.eprof" late=1e8 unfinished || fail "gen_hostile failed"
run report -i "$TMP/open.eprof" --timeline 1
[ $rc -eq 1 ] || { cat "$TMP/err"; fail "unfinished: --timeline 1 exited $rc, not 1"; }
[ "$(grep -c '^eprof: error:' "$TMP/err")" -eq 1 ] || { cat "$TMP/err"; fail "unfinished: not one error line"; }
grep -q 'error: --timeline 1 s gives 100000001 intervals, more than 100000: choose a longer one' \
	"$TMP/err" || { cat "$TMP/err"; fail "unfinished: the timeline limit is not explained"; }
grep -q 'was not finalized' "$TMP/err" || fail "unfinished: report does not warn that it was not finished"
say "unfinished: $(grep error: "$TMP/err")"
run report -i "$TMP/open.eprof" --timeline 100000
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "unfinished: --timeline 100000 exited $rc"; }
[ "$(grep -c '^ *[0-9]' "$TMP/out")" -eq 1001 ] || fail "unfinished: --timeline 100000 is not 1001 rows"
run report -i "$TMP/open.eprof" --fold
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "unfinished: --fold exited $rc"; }
[ "$(awk '{ s += $NF } END { print s }' "$TMP/out")" -eq 61 ] || fail "unfinished: --fold lost samples"

# finished = 0 (as a recorder may leave it): report warns as info does
if command -v sqlite3 >/dev/null; then
	"$G" "$TMP/zero.eprof" || fail "gen_hostile failed"
	sqlite3 "$TMP/zero.eprof" "UPDATE meta SET value = '0' WHERE key = 'finished'" || fail "sqlite3"
	run report -i "$TMP/zero.eprof" --fold
	[ $rc -eq 0 ] || { cat "$TMP/err"; fail "finished = 0: report exited $rc"; }
	[ "$(grep -c "warning: '$TMP/zero.eprof' was not finalized" "$TMP/err")" -eq 1 ] ||
		{ cat "$TMP/err"; fail "finished = 0: report does not warn once"; }
	run info "$TMP/zero.eprof"
	grep -q '^finished  *no' "$TMP/out" || fail "finished = 0: info does not say so"
fi
exit 0
