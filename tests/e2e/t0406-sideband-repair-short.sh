#!/bin/bash
# SPDX-License-Identifier: MIT
# t0406: a process whose mmap records a side-band loss took is read again
# from /proc while it runs, however soon it ends. The command runs
# mmap_storm, then stops the recorder (as a busy machine starves it) while
# the storm fills the side-band buffers; xz starts then, its exec and mmap
# records lost, and compresses most of its input before the recorder runs
# again. It gets the rest of its input 0.3 s later (time for the recorder
# to catch up: 70 ms on a loaded machine) and ends. The repair must not
# wait for the next commit, when xz is gone, its /proc/PID/maps empty
# (117-148 of 124-155 samples [unknown] in 3 runs of 10 so). xz's frames
# are named in at least 95% of its samples (the rest: a sample in its
# pre-exec image, whose fork record was lost too).
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd xz
head -c 150000 /dev/urandom | base64 >"$TMP/in"

# $PPID of the command's shell is the recorder
EPROF_SIDEBAND_PAGES=1 "$EPROF" record -F 999 -o "$TMP/r.eprof" -- sh -c \
	"'$WORKLOADS/mmap_storm' 2500 & sleep 1; kill -STOP \$PPID; sleep 0.25;
	 (head -c 190000 '$TMP/in'; sleep 0.3; kill -CONT \$PPID; sleep 0.3; tail -c +190001 '$TMP/in') |
	 xz -9 -T1 -c >/dev/null; wait" \
	2>"$TMP/err" || { cat "$TMP/err"; fail "record failed"; }
lost=$("$EPROF" info "$TMP/r.eprof" | awk '/^lost side-band events/ { print $4 }')
reread=$("$EPROF" info "$TMP/r.eprof" | awk '/^read again after loss/ { print $NF }')
"$EPROF" report -i "$TMP/r.eprof" --comm xz --fold >"$TMP/fold" 2>"$TMP/rep" ||
	{ cat "$TMP/rep"; fail "report failed"; }
all=$(samples "$TMP/fold" "")
unk=$(samples "$TMP/fold" '\[unknown')
say "$lost side-band records lost, ${reread:-0} processes read again; xz: $unk of $all samples with [unknown] frames"
[ "${lost:-0}" -gt 0 ] || fail "nothing lost while the recorder was stopped"
[ "$all" -ge 50 ] || fail "only $all samples of xz"
[ $((unk * 100)) -le $((all * 5)) ] ||
	{ grep '\[unknown' "$TMP/fold" | head -3; fail "$unk of $all xz samples have [unknown] frames"; }
exit 0
