#!/bin/bash
# SPDX-License-Identifier: MIT
# t0704: thread stacks end in start_thread and clone3; a recursion 400
# calls deep is cut at 255 user frames (the walker's limit) and counted as
# truncated, in the recording, in info and in report's summary line; one
# 200 calls deep (past perf's 127) is whole, down to _start.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/t.eprof" -- "$WORKLOADS/threads_deep" 1500 400 2>"$TMP/t.err" ||
	{ cat "$TMP/t.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/t.eprof" --fold >"$TMP/t.fold" 2>"$TMP/r.err" || fail "report failed"
thr=$(samples "$TMP/t.fold" ';thread_main;')
thr_entry=$(samples "$TMP/t.fold" '^threads_deep;[^;]*clone3?;start_thread;thread_main;')
deep=$(samples "$TMP/t.fold" ';recurse;')
say "threads: $thr samples, $thr_entry from clone3/start_thread; recursion: $deep samples"
[ "$thr" -ge 50 ] && [ "$deep" -ge 20 ] || fail "too few samples (threads $thr, recursion $deep)"
check_at_least "thread stacks from clone3/start_thread" "$thr_entry" "$thr" 99
# A cut stack holds exactly 255 user frames (all recurse, the bottom ones lost).
long=$(awk '/;recurse;/ { n = split($0, f, ";"); u = 0; for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]/) u++; if (u >= 255) c += $NF } END { print c + 0 }' "$TMP/t.fold")
say "recursion stacks cut at 255 frames: $long"
[ "$long" -ge $((deep * 9 / 10)) ] || fail "recursion stacks were expected to hold 255 frames"
"$EPROF" info --json "$TMP/t.eprof" >"$TMP/info.json" || fail "info failed"
trunc=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["unwind"]["stopped"]["depth"])' \
	<"$TMP/info.json") || fail "info --json has no unwind counts"
say "walks cut at the depth limit: $trunc"
[ "${trunc:-0}" -ge "$long" ] || fail "info counts $trunc truncated walks, the stacks show $long"
grep -Eq "user stacks: .* [1-9][0-9]* truncated" "$TMP/r.err" ||
	{ cat "$TMP/r.err"; fail "report's summary does not count the truncated stacks"; }

# 200 calls deep: whole, from _start through main to the deepest recurse
"$EPROF" record -F 999 -o "$TMP/w.eprof" -- "$WORKLOADS/threads_deep" 800 200 0 2>"$TMP/w.err" ||
	{ cat "$TMP/w.err"; fail "record (200 deep) failed"; }
"$EPROF" report -i "$TMP/w.eprof" --fold >"$TMP/w.fold" 2>/dev/null || fail "report (200 deep) failed"
deep=$(samples "$TMP/w.fold" ';recurse;')
whole=$(awk '/^threads_deep;_start;__libc_start_main;.*;main;recurse;/ { n = split($0, f, ";"); r = 0; for (i = 2; i <= n; i++) if (f[i] ~ /^recurse/) r++; if (r >= 200) c += $NF } END { print c + 0 }' "$TMP/w.fold")
say "200 deep: $whole of $deep recursion samples whole"
[ "$deep" -ge 20 ] || fail "too few samples in the 200-deep recursion ($deep)"
check_at_least "200-deep recursion whole" "$whole" "$deep" 95
exit 0
