#!/bin/bash
# SPDX-License-Identifier: MIT
# t0203: code a process generates and announces in /tmp/perf-PID.map is
# named "NAME_[j]", from the recording alone once the map is gone.
. "$E2E_DIR/lib.sh"
require_root; require_btf
[ "$(uname -m)" = x86_64 ] || skip "the JIT workload carries x86-64 machine code"

ls /tmp/perf-*.map 2>/dev/null | sort >"$TMP/maps.before"
"$EPROF" record -F 999 -o "$TMP/j.eprof" -- "$WORKLOADS/jit" 600 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
ls /tmp/perf-*.map 2>/dev/null | sort >"$TMP/maps.after"
comm -13 "$TMP/maps.before" "$TMP/maps.after" | xargs -r rm -f
"$EPROF" report -i "$TMP/j.eprof" --fold >"$TMP/j.fold" 2>"$TMP/j.err" || { cat "$TMP/j.err"; fail "report failed"; }
cat "$TMP/j.err"
total=$(samples "$TMP/j.fold" '')
jit=$(samples "$TMP/j.fold" ';jit_hot_loop_\[j\]( |$)')
say "jit: $total samples, $jit in jit_hot_loop_[j]"
check_share "jit_hot_loop_[j]" "$(share_pct "$jit" "$total")" 95 10
"$EPROF" info --json "$TMP/j.eprof" | grep -q '"path":"/tmp/perf-[0-9]*.map","symbolized":"embedded"' ||
	fail "info shows no embedded JIT map"
exit 0
