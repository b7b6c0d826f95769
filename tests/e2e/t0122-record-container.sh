#!/bin/bash
# SPDX-License-Identifier: MIT
# t0122: a process in its own PID and mount namespace with a private root
# (unshare --fork --pid --mount-proc, chroot into a directory holding a
# copy of the 60/30/10 workload and its libraries) is recorded with -a,
# started before and during the recording, and with -p given its host PID.
# The kernel names its files as the container sees them ("/known_split"),
# which is no file on the host: they are read through the process
# (/proc/PID/map_files, else /proc/PID/root). Its functions are named, the
# build-id stored for the binary is the copy's, and --by pid shows the host
# PID (inside it is PID 1).
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd unshare; require_cmd chroot; require_cmd readelf

root=$TMP/root
mkdir -p "$root/proc" "$root/lib64" "$root/lib/x86_64-linux-gnu" || fail "mkdir"
cp "$WORKLOADS/known_split" "$root/known_split" || fail "cp"
ldd "$WORKLOADS/known_split" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
	while read -r lib; do cp -L "$lib" "$root$lib" || exit 1; done || fail "copying the libraries"
want=$(readelf -n "$root/known_split" | awk '/Build ID/ { print toupper($3) }')
[ -n "$want" ] || fail "the workload has no build-id"

pids=()
# SIGKILL: a namespace's PID 1 ignores other signals from outside it
cleanup() { [ ${#pids[@]} -gt 0 ] && kill -KILL "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

# start_container MS: the workload in its namespaces for MS ms of CPU; sets HP
# (host PID), which is killed with unshare (that does not pass SIGTERM on)
start_container() {
	local u i
	unshare --fork --pid --mount --mount-proc="$root/proc" chroot "$root" /known_split "$1" &
	u=$!
	pids+=($u)
	HP=
	for i in $(seq 100); do
		HP=$(pgrep -P "$u" | head -1)
		[ -n "$HP" ] && [ "$(readlink "/proc/$HP/exe" 2>/dev/null)" = "$root/known_split" ] &&
			{ pids+=("$HP"); break; }
		HP=
		sleep 0.05
	done
	[ -n "$HP" ] || fail "the container's process did not start"
	[ "$(awk '/^NSpid/ { print $NF }' "/proc/$HP/status")" = 1 ] ||
		fail "the workload is not PID 1 of its own namespace"
}

# check NAME FILE: the container's samples are named, under its host PID
check() {
	"$EPROF" report -i "$2" --fold --by pid --pid "$HP" >"$TMP/fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "$1: report failed"; }
	local all a b c
	all=$(samples "$TMP/fold" '.')
	[ "$all" -gt 0 ] || fail "$1: no samples of host pid $HP"
	[ "$(samples "$TMP/fold" "^pid $HP;")" = "$all" ] || fail "$1: --by pid does not show host pid $HP"
	a=$(samples "$TMP/fold" ';work_a( |;|$)')
	b=$(samples "$TMP/fold" ';work_b( |;|$)')
	c=$(samples "$TMP/fold" ';work_c( |;|$)')
	say "$1: pid $HP: $all samples, work_a=$a work_b=$b work_c=$c"
	check_at_least "$1: samples in work_a/b/c" $((a + b + c)) "$all" 90
	[ "$a" -gt "$c" ] && [ "$b" -gt "$c" ] || fail "$1: work_c has more samples than work_a or work_b"
	# other tests may run their own known_split beside it: this copy's paths only
	where="path = '/known_split' OR path = '$root/known_split'"
	sqlite3 "$2" "SELECT hex(build_id) FROM mapped_file WHERE $where" | sort -u >"$TMP/ids" ||
		fail "$1: cannot read mapped_file"
	[ -s "$TMP/ids" ] || fail "$1: no mapping of the container's binary stored"
	[ "$(cat "$TMP/ids")" = "$want" ] || fail "$1: stored build-id $(cat "$TMP/ids"), the binary's is $want"
	say "$1: build-id $want stored for $(sqlite3 "$2" "SELECT path FROM mapped_file WHERE $where")"
}

start_container 60000
"$EPROF" record -a -F 499 -d 2 -o "$TMP/a.eprof" 2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record -a failed"; }
check "-a, started before" "$TMP/a.eprof"
"$EPROF" record -p "$HP" -F 499 -d 2 -o "$TMP/p.eprof" 2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record -p failed"; }
check "-p host pid" "$TMP/p.eprof"
kill -KILL "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()

# started while recording: its mappings come from the side-band, with the container's paths
"$EPROF" record -a -F 499 -d 4 -o "$TMP/d.eprof" 2>"$TMP/rec.err" &
rec=$!
wait_committed "$TMP/d.eprof" 1 >/dev/null	# sampling: /proc was read already
start_container 60000
wait "$rec" || { cat "$TMP/rec.err"; fail "record -a (container started during it) failed"; }
check "-a, started during" "$TMP/d.eprof"
sqlite3 "$TMP/d.eprof" "SELECT path FROM mapped_file" | grep -qx /known_split ||
	fail "the side-band did not give the container's own path"
exit 0
