#!/bin/bash
# SPDX-License-Identifier: MIT
# t0811: a process renaming itself in a loop (hundreds of thousands of
# PR_SET_NAME) does not make a row per rename: a thread has at most a few
# name rows per commit (its latest name last), so the recording holds a
# few dozen, and its samples are still named by the names it took.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd sqlite3

"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/renamer" 2 >"$TMP/count" 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"
renames=$(cat "$TMP/count")
[ "$renames" -gt 10000 ] || fail "only $renames renames"
rows=$(sqlite3 "$TMP/r.eprof" "SELECT coalesce(sum(nr_comms), 0) FROM comm_chunk") || fail "cannot count the name rows"
say "$renames renames, $rows name rows"
[ "$rows" -le 100 ] || fail "$rows name rows for one thread's $renames renames"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "report failed"
total=$(samples "$TMP/fold" .)
check_at_least "samples named flip or flop" "$(samples "$TMP/fold" '^fl[io]p;')" "$total" 50
exit 0
