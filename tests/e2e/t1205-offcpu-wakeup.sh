#!/bin/bash
# SPDX-License-Identifier: MIT
# t1205: wake-up latency is runnable, not blocked (issue 21). A sleeper
# blocks in read() on a pipe while a realtime waker on the same CPU sleeps;
# the waker then writes (the sleeper is woken) and spins 120 ms before it
# sleeps again, so the woken sleeper waits that long for the CPU (offcpu_split
# wakeup; a realtime waker is never preempted by the machine's other work).
# The workload measures both parts of each wait. record --off-cpu must split
# them at the wake-up: in --wall the sleeper's time in the pipe's read
# that ends in [runnable] is within 10% of the runnable part measured, the
# rest (blocked in the pipe) within 10% of the blocked part; --off-cpu
# counts the blocked part alone; and the page's lane of the sleeper draws
# both. Screenshot: tests/artifacts/t1205.
# Charged whole to the wait (the state fixed when the thread left the CPU),
# runnable would be 0 and the blocked part half as large again.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf

"$EPROF" record --off-cpu -F 99 -o "$TMP/r.eprof" -- "$WORKLOADS/offcpu_split" wakeup 5 150 120 \
	2>"$TMP/rec.err"
rc=$?
[ "$rc" -eq 3 ] && skip "no realtime thread here: $(grep offcpu_split "$TMP/rec.err")"
[ "$rc" -eq 0 ] || { cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
read -r tid blk rnb < <(awk '$1 == "sleeper" && $2 == "tid" { t = $3 } $1 == "phase" { p[$2] = $3 }
	END { print t, p["blocked"], p["runnable"] }' "$TMP/rec.err")
[ -n "$tid" ] && [ -n "$blk" ] && [ -n "$rnb" ] || { cat "$TMP/rec.err"; fail "the workload did not say its phases"; }
say "sleeper $tid: blocked $blk ns, runnable after its wake-ups $rnb ns (measured)"
# the workload forced the split: most of the runnable part is the waker's spins
awk -v r="$rnb" 'BEGIN { exit !(r > 5 * 100e6) }' || fail "the sleeper waited only $rnb ns after its wake-ups"

"$EPROF" report -i "$TMP/r.eprof" --wall --fold --tid "$tid" >"$TMP/wall" 2>"$TMP/wall.err" &&
	"$EPROF" report -i "$TMP/r.eprof" --off-cpu --fold --tid "$tid" >"$TMP/off" 2>/dev/null ||
	{ cat "$TMP/wall.err"; fail "report failed"; }
# the fold counts microseconds; the sleeper's waits are charged to the pipe's read
# (pipe_read, anon_pipe_read: the kernel half says it whatever the user half)
read -r wrnb wblk < <(awk '/pipe_read_\[k\];\[runnable\] [0-9]+$/ { r += $NF } /pipe_read_\[k\] [0-9]+$/ { b += $NF }
	END { print r + 0, b + 0 }' "$TMP/wall")
offblk=$(awk '/pipe_read_\[k\] [0-9]+$/ { b += $NF } END { print b + 0 }' "$TMP/off")
say "--wall in the pipe: [runnable] $wrnb us, blocked $wblk us; --off-cpu: $offblk us"
sed "s/^.*;read;//" "$TMP/wall" | cut -c1-200
within() { awk -v v="$1" -v w="$2" 'BEGIN { w /= 1000; exit !(v > 0.9 * w - 2000 && v < 1.1 * w + 2000) }'; }
within "$wrnb" "$rnb" || fail "runnable after the wake-ups is $wrnb us, the workload measured $((rnb / 1000)) us"
within "$wblk" "$blk" || fail "blocked in the pipe is $wblk us, the workload measured $((blk / 1000)) us"
within "$offblk" "$blk" || fail "--off-cpu counts $offblk us in the pipe, the workload measured $((blk / 1000)) us blocked"
grep -q 'pipe_read_\[k\];\[runnable\]' "$TMP/wall" ||
	fail "the runnable time is not under the wait it was woken from (pipe_read_[k];[runnable])"

# the page: the sleeper's lane has the runnable part as runnable
command -v chromium >/dev/null 2>&1 && command -v node >/dev/null 2>&1 || exit 0
require_browser
"$EPROF" report -i "$TMP/r.eprof" --html "$TMP/r.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }
drive "$TMP/r.html" lanes screenshot "$(artifacts t1205)/wall.png" >"$TMP/p" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
lane=$(awk -F'\t' -v t="$tid" '$1 == "lane" && $2 == t' "$TMP/p")
[ -n "$lane" ] || fail "no lane for the sleeper $tid"
IFS=$'\t' read -r _ _ _ _ lrnb lblk prun prnb pblk _ <<<"$lane"
say "page lane: runnable $lrnb ns, blocked $lblk ns; pixels $prun running, $prnb runnable, $pblk blocked"
awk -v v="$lrnb" -v w="$rnb" 'BEGIN { exit !(v > 0.9 * w - 2e6) }' ||
	fail "the lane's runnable time $lrnb ns is short of the $rnb ns measured after the wake-ups"
awk -v v="$lblk" -v w="$blk" 'BEGIN { exit !(v < 1.1 * w + 2e6) }' ||
	fail "the lane's blocked time $lblk ns is more than the $blk ns measured"
[ "$prnb" -gt 0 ] && [ "$pblk" -gt 0 ] || fail "the lane is not drawn both runnable and blocked"
exit 0
