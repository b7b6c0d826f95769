#!/bin/bash
# SPDX-License-Identifier: MIT
# t0707: a call ld.so binds lazily goes through _dl_runtime_resolve_xsavec,
# whose CFA is rbx-based (it realigns rsp and keeps its frame in rbx). With
# LD_BIND_NOT=1 every call of lazy_bind does. The walker follows rbx there,
# so the resolver's caller stays in the stack, down to _start, and the
# callers split 3:1 as their calls do; a frame-pointer step from the
# resolver would skip call_a and call_b.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/l.eprof" -- "$WORKLOADS/lazy_bind" 2>"$TMP/l.err" ||
	{ cat "$TMP/l.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/l.eprof" --fold >"$TMP/l.fold" 2>/dev/null || fail "report failed"
res=$(samples "$TMP/l.fold" ';_dl_runtime_resolve[a-z_]*( |;|$)')
[ "$res" -gt 0 ] || skip "no frame named _dl_runtime_resolve* (ld.so without symbols?)"
[ "$res" -ge 50 ] || fail "too few samples in ld.so's resolver ($res)"
a=$(samples "$TMP/l.fold" '^lazy_bind;_start;.*;main;call_a;_dl_runtime_resolve[a-z_]*( |;|$)')
b=$(samples "$TMP/l.fold" '^lazy_bind;_start;.*;main;call_b;_dl_runtime_resolve[a-z_]*( |;|$)')
check_at_least "the resolver's samples with their caller, down to _start" $((a + b)) "$res" 90
check_share "call_a's part of the resolver" "$(share_pct "$a" $((a + b)))" 75 5
exit 0
