#!/bin/bash
# SPDX-License-Identifier: MIT
# t0703: the hot work runs in a signal handler; its stacks pass through the
# kernel's signal frame (the sigreturn trampoline) to raise, run, main and
# _start.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/s.eprof" -- "$WORKLOADS/sighandler" 600 2>"$TMP/s.err" ||
	{ cat "$TMP/s.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/s.eprof" --fold >"$TMP/s.fold" 2>/dev/null || fail "report failed"
work=$(samples "$TMP/s.fold" ';handler_work( |;|$)')
through=$(samples "$TMP/s.fold" '^sighandler;_start;.*;main;run;(raise|.*;raise);.*;handler_work( |;|$)')
say "handler_work: $work samples, $through through the signal frame down to _start"
[ "$work" -ge 50 ] || fail "too few samples in handler_work ($work)"
awk -v t="$through" -v w="$work" 'BEGIN { exit !(100 * t >= 97 * w) }' || {
	sort -t' ' -k2 -rn "$TMP/s.fold" | head -5 >&2
	fail "only $through of $work handler stacks reach main through the signal frame"
}
exit 0
