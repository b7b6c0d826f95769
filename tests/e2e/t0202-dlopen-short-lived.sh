#!/bin/bash
# SPDX-License-Identifier: MIT
# t0202: a library dlopen'ed in the middle of a recording, and a process
# that lives 20 ms, are both symbolized from the recording alone (after the
# library is gone).
. "$E2E_DIR/lib.sh"
require_root; require_btf

mkdir -p "$TMP/bin"
cp "$WORKLOADS/dlopener" "$WORKLOADS/libhotlib.so" "$TMP/bin/"
"$EPROF" record -F 999 -o "$TMP/d.eprof" -- "$TMP/bin/dlopener" 500 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record of dlopener failed"; }
rm -f "$TMP/bin/libhotlib.so" "$TMP/bin/dlopener"
"$EPROF" report -i "$TMP/d.eprof" --fold >"$TMP/d.fold" 2>"$TMP/d.err" || { cat "$TMP/d.err"; fail "report failed"; }
cat "$TMP/d.err"
total=$(samples "$TMP/d.fold" '')
lib=$(samples "$TMP/d.fold" ';main;hotlib_spin( |$)')
before=$(samples "$TMP/d.fold" ';main;before_dlopen( |$)')
say "dlopener: $total samples, hotlib_spin $lib, before_dlopen $before"
check_share "hotlib_spin (dlopen'ed at ~0.5 s)" "$(share_pct "$lib" "$total")" 50 20
check_share "before_dlopen" "$(share_pct "$before" "$total")" 50 20

"$EPROF" record -F 999 -o "$TMP/s.eprof" -- "$WORKLOADS/short_lived" 20 2>"$TMP/rec2.err" ||
	{ cat "$TMP/rec2.err"; fail "record of short_lived failed"; }
"$EPROF" report -i "$TMP/s.eprof" --fold >"$TMP/s.fold" 2>/dev/null || fail "report failed"
n=$(samples "$TMP/s.fold" ';short_lived_work( |$)')
[ "$n" -ge 5 ] || { cat "$TMP/s.fold"; fail "a 20 ms process: only $n samples in short_lived_work"; }
say "20 ms process: $n samples in short_lived_work"
exit 0
