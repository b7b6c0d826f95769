#!/bin/bash
# SPDX-License-Identifier: MIT
# t0303: a recorder killed with SIGKILL leaves samples that can be named from
# the recording alone: every commit carries the symbol data its stacks need.
# The command's binary is hidden when reporting (an empty tmpfs over its
# directory, in a private mount namespace), yet work_a/b/c are named under
# main;run_workload;dispatch; and the kernel frames of a killed -a recording
# are named too, and so is JIT code whose /tmp/perf-PID.map is gone. Each
# recorder is killed once a second's worth of samples at 999 Hz is
# committed (wait_committed), however long a busy machine takes for it.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd unshare; require_cmd pgrep

unshare -m --propagation private true 2>/dev/null || skip "cannot create a mount namespace"

# kill_recorder PID: SIGKILL to eprof alone, then to the command it started.
kill_recorder() {
	local kids
	kids=$(pgrep -P "$1")
	kill -KILL "$1"
	wait "$1"
	rc=$?
	[ -n "$kids" ] && kill -KILL $kids 2>/dev/null
	[ $rc -eq 137 ] || fail "record was expected to die of SIGKILL (137), exited $rc"
}

# kernel_frames FOLD: "ALL UNKNOWN" kernel frames, weighted by samples.
kernel_frames() {
	awk '{ n = $NF; $NF = ""; sub(/ +$/, ""); k = split($0, f, ";")
	       for (i = 1; i <= k; i++) if (f[i] ~ /_\[k\]$/) { all += n; if (f[i] == "[unknown]_[k]") unk += n } }
	     END { print all + 0, unk + 0 }' "$1"
}

# --- a command, its binary hidden at report time -------------------------------
mkdir -p "$TMP/bin"
cp "$WORKLOADS/known_split" "$TMP/bin/app"
"$EPROF" record -F 999 -o "$TMP/cmd.eprof" -- "$TMP/bin/app" 5000 2>"$TMP/rec.err" &
rpid=$!
before=$(wait_committed "$TMP/cmd.eprof" 999) || { kill_recorder $rpid; exit 1; }
kill_recorder $rpid
cat "$TMP/rec.err"

unshare -m --propagation private sh -c "mount -t tmpfs none '$TMP/bin' && ls -A '$TMP/bin' | wc -l >'$TMP/nfiles' &&
	'$EPROF' report -i '$TMP/cmd.eprof' --fold >'$TMP/cmd.fold' 2>'$TMP/cmd.err'" ||
	{ cat "$TMP/cmd.err"; fail "report in the namespace failed"; }
cat "$TMP/cmd.err"
[ "$(cat "$TMP/nfiles")" = 0 ] || fail "the tmpfs was not empty"
total=$(samples "$TMP/cmd.fold" '^app;')
chain=';main;run_workload;dispatch;work_'
a=$(samples "$TMP/cmd.fold" "${chain}a(;| |$)")
b=$(samples "$TMP/cmd.fold" "${chain}b(;| |$)")
c=$(samples "$TMP/cmd.fold" "${chain}c(;| |$)")
say "killed command: $total samples of app, work_a $a, work_b $b, work_c $c under main;run_workload;dispatch"
kept=$(samples "$TMP/cmd.fold" '.')
[ "$kept" -ge "$before" ] || fail "only $kept samples survived the kill ($before were committed)"
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$c" -gt 0 ] ||
	{ head "$TMP/cmd.fold"; fail "work_a/b/c are not all named with their full chain"; }
named=$((a + b + c))
[ $((named * 100)) -ge $((total * 90)) ] ||
	{ sort -k2 -nr "$TMP/cmd.fold" | head; fail "only $named of $total samples named through main;run_workload;dispatch"; }
check_share "work_a" "$(share_pct "$a" "$named")" 60 10

# --- the whole system, kernel frames -------------------------------------------
env --default-signal=INT "$EPROF" record -a -F 999 -o "$TMP/all.eprof" 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/all.eprof" 999 >/dev/null || { kill_recorder $rpid; exit 1; }
kill_recorder $rpid
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/all.eprof" --fold >"$TMP/all.fold" 2>"$TMP/all.err" ||
	{ cat "$TMP/all.err"; fail "report of the killed -a recording failed"; }
cat "$TMP/all.err"
read -r kall kunk <<<"$(kernel_frames "$TMP/all.fold")"
say "killed -a: $kall kernel frames, $kunk of them [unknown]"
[ "$kall" -gt 0 ] || fail "no kernel frames in a killed -a recording"
[ $((kunk * 10)) -lt "$kall" ] || fail "$kunk of $kall kernel frames unnamed (want < 10%)"

# --- JIT code, its map gone at report time --------------------------------------
[ "$(uname -m)" = x86_64 ] || exit 0	# the JIT workload carries x86-64 machine code
"$EPROF" record -F 999 -o "$TMP/jit.eprof" -- "$WORKLOADS/jit" 5000 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/jit.eprof" 999 >/dev/null || { kill_recorder $rpid; exit 1; }
jpid=$(pgrep -P $rpid)
kill_recorder $rpid
[ -n "$jpid" ] && rm -f "/tmp/perf-$jpid.map"
"$EPROF" report -i "$TMP/jit.eprof" --fold >"$TMP/jit.fold" 2>"$TMP/jit.err" ||
	{ cat "$TMP/jit.err"; fail "report of the killed JIT recording failed"; }
total=$(samples "$TMP/jit.fold" '')
jit=$(samples "$TMP/jit.fold" ';jit_hot_loop_\[j\]( |$)')
say "killed JIT recording: $total samples, $jit in jit_hot_loop_[j]"
check_share "jit_hot_loop_[j]" "$(share_pct "$jit" "$total")" 95 10
exit 0
