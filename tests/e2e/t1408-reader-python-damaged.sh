#!/bin/bash
# SPDX-License-Identifier: MIT
# t1408: the reader refuses a recording whose Python code rows are damaged
# (python_code: a name that is a BLOB, with a NUL, over 4096 bytes; a line
# table as text or over 64 KiB; key 0 or past 44 bits; a negative tgid or
# first line; a version past 16 bits; a row duplicated under a view): every
# view exits non-zero with one "eprof: error:" line naming the file. A line
# table of garbage is no damage: the frame is named at its first line.
# gen_hostile's python option writes the code object; no root needed.
. "$E2E_DIR/lib.sh"
require_cmd sqlite3; require_cmd timeout

base=$TMP/base.eprof
. "$E2E_DIR/damage.sh"
# the views that name frames, and info (t1003 runs every view on every damage)
views=("report --fold -i @" "report --svg $TMP/o.svg -i @" "report --pprof $TMP/o.pb -i @"
	"report --diff $base @ --fold" "info @")
"$WORKLOADS/gen_hostile" "$base" python || fail "gen_hostile failed"
cp "$base" "$TMP/copy.eprof"
"$EPROF" report -i "$TMP/copy.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "the undamaged recording failed"
n=$(samples "$TMP/fold" ';Job\.py_hot \(job\.py:43\)_\[py\]( |$)')
[ "$n" -eq 20 ] || { cat "$TMP/fold"; fail "the undamaged recording has $n samples in Job.py_hot at line 43, not 20"; }
for v in "${views[@]}"; do
	run "$v" "$TMP/copy.eprof"
	[ $rc -eq 0 ] || { cat "$TMP/err"; fail "the undamaged recording: '$v' exited $rc"; }
done
say "the undamaged recording passes all ${#views[@]} views, Job.py_hot at line 43"

damages=(
	"py-name-blob|UPDATE python_code SET name = zeroblob(4)"
	"py-qualname-nul|UPDATE python_code SET qualname = CAST(x'4a6f62002e78' AS TEXT)"
	"py-filename-long|UPDATE python_code SET filename = printf('%.4097c', 'f')"
	"py-linetable-text|UPDATE python_code SET linetable = 'abc'"
	"py-linetable-huge|UPDATE python_code SET linetable = zeroblob(65537)"
	"py-key-zero|UPDATE python_code SET code_key = 0"
	"py-key-huge|UPDATE python_code SET code_key = 1 << 44"
	"py-tgid-negative|UPDATE python_code SET tgid = -1"
	"py-line-negative|UPDATE python_code SET first_line = -40"
	"py-version-huge|UPDATE python_code SET version = 65536"
	"py-addr-text|UPDATE python_code SET addr = 'x'"
	"py-view-twice|ALTER TABLE python_code RENAME TO p0; CREATE VIEW python_code AS SELECT * FROM p0 UNION ALL SELECT * FROM p0"
)
damage_all
say "$runs runs on ${#damages[@]} damaged recordings: each refused with one line"

# a hostile but well-formed line table: the frame keeps its first line
cp "$base" "$TMP/lt.eprof"
sqlite3 "$TMP/lt.eprof" "UPDATE python_code SET linetable = x'ffffffffffff7f00'" || fail "sqlite3"
"$EPROF" report -i "$TMP/lt.eprof" --fold >"$TMP/fold" 2>"$TMP/err" || { cat "$TMP/err"; fail "a garbage line table failed the report"; }
n=$(samples "$TMP/fold" ';Job\.py_hot \(job\.py:40\)_\[py\]( |$)')
[ "$n" -eq 20 ] || { cat "$TMP/fold"; fail "a garbage line table: $n samples named at the first line, not 20"; }
exit 0
