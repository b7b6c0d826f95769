#!/bin/bash
# SPDX-License-Identifier: MIT
# t0404: with -p the side-band follows the target processes alone (an
# inherited event on each of their threads), so a neighbour cannot
# overflow it. Two processes mapping and unmapping executable pages
# (mmap_storm) run beside `record -p` of dlopener, which maps libhotlib.so
# in the middle of the recording; with a side-band listening to every
# process this lost thousands of records (the buffers here are 4 pages a
# CPU, so that it surely would). Now none is lost, and no frame of
# dlopener is in no mapping: hotlib_spin is named.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$WORKLOADS/mmap_storm" 20000 & ST=$!
"$WORKLOADS/dlopener" 1500 & DL=$!
trap 'kill $ST $DL 2>/dev/null; rm -rf "$TMP"' EXIT
EPROF_SIDEBAND_PAGES=4 "$EPROF" record -F 999 -d 15 -p "$DL" -o "$TMP/r.eprof" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "record -p failed"; }
kill $ST 2>/dev/null; wait $ST 2>/dev/null

line=$(grep '^eprof: recorded [0-9]* samples' "$TMP/err")
lost=$(echo "$line" | sed -n 's/.* stacks not captured, \([0-9]*\) side-band records lost.*/\1/p')
"$EPROF" report -i "$TMP/r.eprof" --comm dlopener --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
all=$(samples "$TMP/fold" "")
lib=$(samples "$TMP/fold" ';hotlib_spin( |$)')
unk=$(samples "$TMP/fold" '\[unknown')
say "beside mmap_storm, -p: $all dlopener samples, $lib in hotlib_spin, $unk with [unknown] frames, $lost side-band records lost"
[ "$lost" = 0 ] || { echo "$line"; fail "'$lost' side-band records lost with -p"; }
[ "$lib" -ge 50 ] || fail "only $lib samples in hotlib_spin"
[ "$unk" = 0 ] || { grep '\[unknown' "$TMP/fold" | head -3; fail "$unk dlopener samples have [unknown] frames"; }
exit 0
