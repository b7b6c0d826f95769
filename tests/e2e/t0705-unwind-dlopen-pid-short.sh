#!/bin/bash
# SPDX-License-Identifier: MIT
# t0705: tables come for every way code arrives: a library dlopen'ed in the
# middle of the run, a process that was running before `record -p`, and
# processes that live 20 ms (tables are shared by build-id, so each new
# short process unwinds from its first sample).
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs Debian's python3 (.ci/deps.sh --tests)"

"$EPROF" record -F 999 -o "$TMP/d.eprof" -- "$WORKLOADS/dlopener" 600 2>"$TMP/d.err" ||
	{ cat "$TMP/d.err"; fail "record of dlopener failed"; }
"$EPROF" report -i "$TMP/d.eprof" --fold >"$TMP/d.fold" 2>/dev/null || fail "report failed"
lib=$(samples "$TMP/d.fold" ';hotlib_spin( |$)')
libfull=$(samples "$TMP/d.fold" '^dlopener;_start;.*;main;hotlib_spin( |$)')
[ "$lib" -ge 50 ] || fail "too few samples in hotlib_spin ($lib)"
check_at_least "dlopen'ed hotlib_spin, stacks down to _start" "$libfull" "$lib" 97

# -p: a Python loop already running (its tables are built when eprof starts).
start_python_loop 30
pid=$PY_PID
"$EPROF" record -F 999 -d 2 -p "$pid" -o "$TMP/p.eprof" 2>"$TMP/p.err" ||
	{ kill "$pid"; cat "$TMP/p.err"; fail "record -p failed"; }
kill "$pid"; wait "$pid" 2>/dev/null
"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/p.fold" 2>/dev/null || fail "report failed"
check_complete "-p on a running python3" "$TMP/p.fold" python3 97

# check_short NAME MIN_PCT: of short_lived_work's samples in $TMP/NAME.eprof,
# at least MIN_PCT% have the whole stack down to _start.
check_short() {
	local n full

	"$EPROF" report -i "$TMP/$1.eprof" --fold >"$TMP/$1.fold" 2>/dev/null || fail "report failed"
	n=$(samples "$TMP/$1.fold" ';short_lived_work( |$)')
	full=$(samples "$TMP/$1.fold" '^short_lived;_start;.*;main;short_lived_work( |$)')
	[ "$n" -ge 10 ] || fail "$1: too few samples of short_lived ($n)"
	check_at_least "$1: stacks in short_lived_work down to _start" "$full" "$n" "$2"
}

# 20 ms processes, one every 100 ms: most of their stacks are whole (the
# walker learns their code mappings as they are made, not from samples).
"$EPROF" record -F 999 -o "$TMP/forker.eprof" -- "$WORKLOADS/forker" 1500 \
	"$WORKLOADS/short_lived" >/dev/null 2>"$TMP/s.err" ||
	{ cat "$TMP/s.err"; fail "record of forker failed"; }
check_short forker 85

# A command named by a relative path (./app) gets its table before it runs,
# as one named by an absolute path does: its first samples are whole too.
(cd "$WORKLOADS" && exec "$EPROF" record -F 999 -o "$TMP/relative.eprof" -- ./short_lived 100) \
	>/dev/null 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "record of ./short_lived failed"; }
check_short relative 98
exit 0
