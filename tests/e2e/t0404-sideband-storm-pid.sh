#!/bin/bash
# SPDX-License-Identifier: MIT
# t0404: with -p the side-band follows the target processes alone (an
# inherited event on each of their threads, one per CPU), so a neighbour
# cannot overflow it. Two processes mapping and unmapping executable pages
# (mmap_storm) run beside `record -p` of dlopener, which maps libhotlib.so
# in the middle of the recording:
#  - few: dlopener alone, with buffers of 4 pages a CPU; with a side-band
#    listening to every process this lost thousands of records;
#  - threads: dlopener with 4096/CPUs + 64 sleeping threads, more than the
#    fixed 4,096 events past which the side-band used to listen to every
#    process (issue 23: 2,723 and 8,480 records lost); it now follows up
#    to half the open-file limit of events, as perf record -p does.
# Each time: no fall back to every process, none lost, and no frame of
# dlopener is in no mapping: hotlib_spin is named.
. "$E2E_DIR/lib.sh"
require_root; require_btf

ST=; DL=
trap 'kill $ST $DL 2>/dev/null; rm -rf "$TMP"' EXIT

# run NAME THREADS [VAR=VALUE...]: dlopener with THREADS more threads beside the storm
run() {
	local name=$1 threads=$2 i n line lost all lib unk
	shift 2
	"$WORKLOADS/dlopener" 1500 "$threads" & DL=$!
	"$WORKLOADS/mmap_storm" 20000 & ST=$!
	for i in $(seq 100); do		# up to 10 s for the threads to start
		n=$(ls "/proc/$DL/task" 2>/dev/null | wc -l)
		[ "$n" -gt "$threads" ] && break
		sleep 0.1
	done
	[ "$n" -gt "$threads" ] || fail "$name: dlopener started only $n threads of $((threads + 1))"
	env "$@" "$EPROF" record -F 999 -d 15 -p "$DL" -o "$TMP/$name.eprof" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "$name: record -p failed"; }
	kill $ST 2>/dev/null; wait $ST 2>/dev/null

	line=$(grep '^eprof: recorded [0-9]* samples' "$TMP/$name.err")
	lost=$(echo "$line" | sed -n 's/.* stacks not captured, \([0-9]*\) side-band records lost.*/\1/p')
	"$EPROF" report -i "$TMP/$name.eprof" --comm dlopener --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "$name: report failed"; }
	all=$(samples "$TMP/fold" "")
	lib=$(samples "$TMP/fold" ';hotlib_spin( |$)')
	unk=$(samples "$TMP/fold" '\[unknown')
	say "$name: $n threads beside mmap_storm, -p: $all dlopener samples, $lib in hotlib_spin," \
		"$unk with [unknown] frames, $lost side-band records lost"
	! grep -q 'listens to every process' "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "$name: the side-band fell back to every process"; }
	[ "$lost" = 0 ] || { echo "$line"; fail "$name: '$lost' side-band records lost with -p"; }
	[ "$lib" -ge 50 ] || fail "$name: only $lib samples in hotlib_spin"
	[ "$unk" = 0 ] ||
		{ grep '\[unknown' "$TMP/fold" | head -3; fail "$name: $unk dlopener samples have [unknown] frames"; }
}

run few 0 EPROF_SIDEBAND_PAGES=4
ncpu=$(getconf _NPROCESSORS_ONLN)
threads=$((4096 / ncpu + 64))
need=$(((threads + 1) * ncpu))
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ $((hard / 2)) -ge "$need" ]; then
	run threads "$threads"
else
	say "threads: not run, the open-file hard limit ($hard) is under twice the $need events needed"
fi
exit 0
