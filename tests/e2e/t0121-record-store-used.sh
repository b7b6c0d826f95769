#!/bin/bash
# SPDX-License-Identifier: MIT
# t0121: a fork storm beside a 60/30/10 workload, recorded with -a (issue
# 14, "store what is used"). The recording keeps only the mappings samples
# fall in: every stored mapping belongs to a (process, binary) that some
# sample's user frame is in, so there are no more of them than such pairs
# (a file mapped twice in one process, before and after an exec, counts twice);
# (a few more where a library is mapped twice or a return address's call
# ends a neighbouring mapping: 5% slack; without the rule it was 10 to 20
# times more); the mappings of the storm's unsampled processes are
# forgotten, not written; and the workload is still named. The same
# holds for a recorder killed with SIGKILL: every frame of the workload's
# committed samples is named (its mappings were written in the same commit
# as the samples, or it would show "[unknown]"), every sample has its
# process's name and the user frames of all processes their binaries.
. "$E2E_DIR/lib.sh"
require_root; require_btf

pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
sh -c 'while :; do /bin/true; done' &
pids+=($!)
sh -c 'while :; do /bin/echo x >/dev/null; done' &
pids+=($!)
sleep 0.5

# pairs FILE: "WITH_BINARY ALL": distinct (pid, binary) of the samples'
# user frames with a binary, and those plus each pid with unmapped ones. A
# process that execs maps a file twice: the storm's child of sh runs in
# sh's libc until its exec and in /bin/true's after it. Such mappings are
# told apart by the 256 MiB window of the frame's address (ASLR puts the
# two far apart; a file's text is much smaller).
pairs() {
	"$EPROF" report -i "$1" --samples 2>/dev/null | awk '
	match($0, /[0-9]+\/[0-9]+ +\[/) { split(substr($0, RSTART), f, "/"); pid = f[1]; next }
	/^\t/ && !/\(\[kernel\.kallsyms\]\)$/ {
		n = split($0, w, "(")
		bin = w[n]
		addr = $1
		if (bin == "[unknown])") unk[pid] = 1
		else known[pid " " bin " " substr(addr, 1, length(addr) - 7)] = 1
	}
	END { lo = length(known); printf "%d %d\n", lo, lo + length(unk) }'
}

# named FILE: "named total" user frames of known_split ($ks)
named() {
	"$EPROF" report -i "$1" --samples --pid "$ks" 2>/dev/null | awk '
	/^\t/ && !/\(\[kernel\.kallsyms\]\)$/ { t++; if ($0 !~ /\[unknown\]/) n++ }
	END { printf "%d %d\n", n, t }'
}

# The workload does a fixed 1.5 s of CPU work while the recorder runs, so
# its sample count follows from the work, not from the machine's load.
"$EPROF" record -v -a -F 499 -d 600 -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
rec=$!
pids+=($rec)
wait_committed "$TMP/r.eprof" 1 >/dev/null
"$WORKLOADS/known_split" 1500 &
ks=$!
wait "$ks"
kill -INT "$rec"
wait "$rec" || { cat "$TMP/rec.err"; fail "record failed"; }
grep -E '^eprof: (recorded|captured)' "$TMP/rec.err"
line=$(grep -o '[0-9]* mappings stored ([0-9]* of ended processes forgotten' \
	"$TMP/rec.err") || fail "record -v does not say how many mappings it stored"
stored=${line%% *}
forgotten=$(echo "$line" | sed 's/.*(\([0-9]*\) of.*/\1/')
read -r lo hi <<<"$(pairs "$TMP/r.eprof")"
say "stored $stored mappings, forgot $forgotten; sampled (pid, binary) pairs: $lo .. $hi"
[ "$forgotten" -gt 0 ] || fail "no mapping of the storm's ended processes was forgotten"
[ $((stored * 100)) -le $((hi * 105)) ] ||
	fail "$stored mappings stored for $hi sampled (pid, binary) pairs"
[ "$stored" -gt 0 ] || fail "no mapping stored"

"$EPROF" report -i "$TMP/r.eprof" --fold --pid "$ks" >"$TMP/fold" 2>/dev/null || fail "report failed"
a=$(samples "$TMP/fold" ';work_a( |;|$)')
b=$(samples "$TMP/fold" ';work_b( |;|$)')
c=$(samples "$TMP/fold" ';work_c( |;|$)')
total=$((a + b + c))
say "work_a=$a work_b=$b work_c=$c"
# the split itself is t0101's; here the storm takes most of the CPU time
[ "$total" -ge 50 ] || fail "only $total samples of known_split's functions"
[ "$a" -gt "$c" ] && [ "$b" -gt "$c" ] || fail "work_c has more samples than work_a or work_b"
read -r n t <<<"$(named "$TMP/r.eprof")"
# known_split starts during this recording: a frame-pointer step the walker
# takes before the table of ld.so or libc is built may read a garbage
# return address, in no mapping (1 frame of 3,877 in one run of 20).
# Mappings missing from a commit would leave whole stacks unnamed.
[ "$n" = "$t" ] || "$EPROF" report -i "$TMP/r.eprof" --samples --pid "$ks" 2>/dev/null |
	grep -B4 '\[unknown\]' | head -12 >&2
check_at_least "known_split's user frames named" "$n" "$t" 99.9

# Killed: what was committed is named, and no more mappings than it needs.
"$WORKLOADS/known_split" 100000 &
ks=$!
pids+=($ks)
"$EPROF" record -a -F 499 -d 60 -o "$TMP/k.eprof" 2>/dev/null &
rec=$!
wait_committed "$TMP/k.eprof" 1500 >/dev/null
sleep 1.3
kill -KILL "$rec"
wait "$rec" 2>/dev/null
read -r n t <<<"$(named "$TMP/k.eprof")"
check_at_least "killed: known_split's user frames named" "$n" "$t" 100
"$EPROF" report -i "$TMP/k.eprof" --fold --pid "$ks" >"$TMP/kfold" 2>/dev/null ||
	fail "report of the killed recording failed"
[ "$(samples "$TMP/kfold" ';work_[abc]( |;|$)')" -gt 0 ] || fail "killed: no work_ functions"
# ... and so is everything else up to the last commit: every sample has
# its process's name (comm chunks are written with the samples that need
# them), and the user frames of the storm's short-lived processes are in
# their binaries (mappings and the stacks coded by them are in the same
# commit). A frame in no mapping at all (a frame-pointer step that read
# garbage) has no binary to name: a few, never 1%.
"$EPROF" report -i "$TMP/k.eprof" --fold --by comm >"$TMP/kcomm" 2>/dev/null ||
	fail "report --by comm of the killed recording failed"
all=$(samples "$TMP/kcomm" '.')
unnamed=$(samples "$TMP/kcomm" '^\[unknown\](;| |$)')
storm=$(samples "$TMP/kcomm" '^(sh|true|echo);')
say "killed: $all samples, $storm of the storm's processes, $unnamed without a process name"
[ "$storm" -gt 0 ] || fail "killed: no samples of the storm's processes"
# a comm event the kernel dropped (counted, and said by info) is the one excuse
lost=$("$EPROF" info "$TMP/k.eprof" 2>/dev/null | awk '/^lost side-band events/ { print $4 }')
[ "$unnamed" -eq 0 ] || [ "${lost:-0}" -gt 0 ] ||
	fail "killed: $unnamed of $all samples have no process name"
read -r n t <<<"$("$EPROF" report -i "$TMP/k.eprof" --samples 2>/dev/null | awk '
	/^\t/ && !/\(\[kernel\.kallsyms\]\)$/ { t++; if ($0 !~ /\(\[unknown\]\)$/) n++ }
	END { printf "%d %d\n", n, t }')"
check_at_least "killed: user frames in a named binary" "$n" "$t" 99
exit 0
