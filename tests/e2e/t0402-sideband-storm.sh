#!/bin/bash
# SPDX-License-Identifier: MIT
# t0402: with -- CMD the side-band follows the command alone, so a
# neighbour cannot overflow it. Two processes mapping and unmapping
# executable pages (mmap_storm, ~10^4-10^5 records/s) ran beside
# `record -- xz`: the side-band once listened to every process, lost
# 12-21 thousand records, and xz's own frames became [unknown] ("no
# mapping") while the summary said "0 lost". Now no side-band record is
# lost and no xz frame is [unknown]. Until its exec the command's process
# runs the recorder's code (it is the recorder's fork, renamed); its ticks
# then once read xz;[unknown] (2-6 a run), and are not recorded now (they
# are eprof's start-up, not xz's: t0217), so every xz sample here is the
# program's own and none may hold an [unknown] frame.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd xz
head -c 1500000 /dev/urandom | base64 >"$TMP/in"

"$WORKLOADS/mmap_storm" 90000 & ST=$!
trap 'kill $ST 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3
"$EPROF" record -F 999 -o "$TMP/r.eprof" -- xz -9 -T1 -c "$TMP/in" >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "record -- xz failed"; }
kill $ST 2>/dev/null; wait $ST 2>/dev/null

lost=$("$EPROF" info "$TMP/r.eprof" | awk '/^lost side-band events/ { print $4 }')
"$EPROF" report -i "$TMP/r.eprof" --comm xz --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
all=$(samples "$TMP/fold" "")
unk=$(samples "$TMP/fold" '\[unknown')
say "beside mmap_storm: $all xz samples, $unk with [unknown] frames, $lost side-band records lost"
[ "$all" -ge 200 ] || fail "only $all samples of xz"
[ "$lost" = 0 ] || fail "$lost side-band records lost with -- CMD"
[ "$unk" = 0 ] || { grep '\[unknown' "$TMP/fold" | head -3; fail "$unk xz samples have [unknown] frames"; }
exit 0
