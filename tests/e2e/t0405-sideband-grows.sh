#!/bin/bash
# SPDX-License-Identifier: MIT
# t0405: side-band buffers grow with the load. They start at one page a CPU
# (EPROF_SIDEBAND_PAGES=1), far too small for two processes mapping and
# unmapping pages (mmap_storm), so records are lost; each loss replaces the
# buffers by larger ones: under -a new whole-CPU events on before the old
# ones go off, the records both got handled once; with -- CMD the command's
# own events redirected into the new buffers. xz starts after the storm:
# its own frames are named (no [unknown] frame in at least 95% of its
# samples), and every loss is stated, the same count on the record line
# and in info, with the size the buffers reached.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd xz
head -c 800000 /dev/urandom | base64 >"$TMP/in"
trap 'kill $ST 2>/dev/null; rm -rf "$TMP"' EXIT

# check NAME: the recording $TMP/NAME.eprof, its stderr $TMP/NAME.err
check() {
	local r="$TMP/$1.eprof" line rlost ilost kib grown all unk
	line=$(grep '^eprof: recorded [0-9]* samples' "$TMP/$1.err")
	rlost=$(echo "$line" | sed -n 's/.* stacks not captured, \([0-9]*\) side-band records lost.*/\1/p')
	ilost=$("$EPROF" info "$r" | awk '/^lost side-band events/ { print $4 }')
	kib=$("$EPROF" info "$r" | awk '/^side-band buffer per CPU/ { print $NF }')
	grown=$("$EPROF" info "$r" | awk '/^side-band buffer grown/ { print $NF }')
	"$EPROF" report -i "$r" --comm xz --fold >"$TMP/$1.fold" 2>"$TMP/$1.rep" ||
		{ cat "$TMP/$1.rep"; fail "$1: report failed"; }
	all=$(samples "$TMP/$1.fold" "")
	unk=$(samples "$TMP/$1.fold" '\[unknown')
	say "$1: $rlost side-band records lost (info: $ilost), buffers grew $grown times to $kib KiB a CPU; xz: $unk of $all samples with [unknown] frames"
	[ -n "$rlost" ] || { echo "$line"; fail "$1: the record line does not state side-band losses"; }
	[ "$rlost" = "$ilost" ] || fail "$1: record line says $rlost side-band records lost, info $ilost"
	[ "${grown:-0}" -ge 1 ] || fail "$1: the buffers never grew ($rlost records lost)"
	[ "$kib" -gt 4 ] || fail "$1: the buffers are $kib KiB a CPU after growing"
	[ "$rlost" -gt 0 ] || fail "$1: nothing lost, so nothing made them grow"
	[ "$all" -ge 50 ] || fail "$1: only $all samples of xz"
	[ $((unk * 100)) -le $((all * 5)) ] ||
		{ grep '\[unknown' "$TMP/$1.fold" | head -3; fail "$1: $unk of $all xz samples have [unknown] frames"; }
}

# -a: every process's records, the storm's included
"$WORKLOADS/mmap_storm" 6000 & ST=$!
sleep 0.3
(sleep 1; timeout 5 xz -9 -T1 -c "$TMP/in" >/dev/null) &
EPROF_SIDEBAND_PAGES=1 "$EPROF" record -a -F 499 -d 4 -o "$TMP/all.eprof" 2>"$TMP/all.err" ||
	{ cat "$TMP/all.err"; fail "record -a failed"; }
wait %2 2>/dev/null
kill $ST 2>/dev/null; wait $ST 2>/dev/null
check all

# -- CMD: the command itself storms, then runs xz beside the storm
EPROF_SIDEBAND_PAGES=1 "$EPROF" record -F 499 -o "$TMP/cmd.eprof" -- sh -c \
	"'$WORKLOADS/mmap_storm' 4000 & sleep 1; timeout 5 xz -9 -T1 -c '$TMP/in' >/dev/null; wait" \
	2>"$TMP/cmd.err" || { cat "$TMP/cmd.err"; fail "record -- CMD failed"; }
check cmd
exit 0
