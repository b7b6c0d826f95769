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
[ "$work" -ge 50 ] || fail "too few samples in handler_work ($work)"
check_at_least "handler_work, through the signal frame down to _start" "$through" "$work" 97
exit 0
