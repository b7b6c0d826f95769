#!/bin/bash
# SPDX-License-Identifier: MIT
# t0403: a side-band loss is never silent. Under -a, with side-band
# buffers of one page a CPU (EPROF_SIDEBAND_PAGES=1) and two processes
# mapping and unmapping pages beside (mmap_storm), the kernel drops
# side-band records. The record summary line and report's summary line
# both state how many, the same number `info` counts, and report counts
# the samples with a user frame in no mapping from the loss on: exactly
# the samples whose folded stacks carry "[unknown: side-band lost]".
# Earlier the record line said "0 lost" and such frames read "[unknown]".
# The loss is repaired where it can be: a process whose samples fell in no
# known mapping is read again from /proc (info counts them), so a process
# still running then gets its mappings back; one already gone keeps the
# mark.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd xz
head -c 1000000 /dev/urandom | base64 >"$TMP/in"

"$WORKLOADS/mmap_storm" 8000 & ST=$!
trap 'kill $ST 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3
# xz starts while the storm runs: its own mmap records may be the lost ones
(sleep 0.5; timeout 5 xz -9 -T1 -c "$TMP/in" >/dev/null) &
EPROF_SIDEBAND_PAGES=1 "$EPROF" record -a -F 499 -d 3 -o "$TMP/r.eprof" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "record -a failed"; }
wait %2 2>/dev/null
kill $ST 2>/dev/null; wait $ST 2>/dev/null

line=$(grep '^eprof: recorded [0-9]* samples' "$TMP/err")
rlost=$(echo "$line" | sed -n 's/.* stacks not captured, \([0-9]*\) side-band records lost.*/\1/p')
ilost=$("$EPROF" info "$TMP/r.eprof" | awk '/^lost side-band events/ { print $4 }')
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
sum=$(grep '^eprof: [0-9]* samples, ' "$TMP/rep.err")
plost=$(echo "$sum" | sed -n 's/.* \([0-9]*\) side-band records lost, [0-9]* samples.*/\1/p')
ptouched=$(echo "$sum" | sed -n 's/.* side-band records lost, \([0-9]*\) samples.*/\1/p')
ftouched=$(samples "$TMP/fold" '\[unknown: side-band lost\]')
say "record: $rlost side-band records lost; info: $ilost; report: $plost lost, $ptouched samples touched; fold: $ftouched"
[ -n "$rlost" ] || { echo "$line"; fail "the record line does not state side-band records lost"; }
[ "$rlost" -gt 0 ] || fail "no side-band record lost with one page a CPU beside mmap_storm"
[ "$rlost" = "$ilost" ] || fail "record line says $rlost side-band records lost, info $ilost"
[ "$plost" = "$rlost" ] || { echo "$sum"; fail "report line says '$plost' side-band records lost, record $rlost"; }
[ "$ptouched" = "$ftouched" ] ||
	fail "report counts $ptouched samples touched, the fold $ftouched with [unknown: side-band lost]"
xz_all=$(samples "$TMP/fold" '^xz;')
xz_lost=$(samples "$TMP/fold" '^xz;.*\[unknown: side-band lost\]')
reread=$("$EPROF" info "$TMP/r.eprof" | awk '/^read again after loss/ { print $NF }')
say "xz: $xz_lost of $xz_all samples with a frame lost to the side-band; ${reread:-0} processes read again"
[ "$xz_all" -gt 0 ] || fail "no xz samples"
[ "$ftouched" = 0 ] || [ "${reread:-0}" -gt 0 ] ||
	fail "$ftouched samples fell in no mapping after the loss, and no process was read again"
exit 0
