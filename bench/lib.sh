# SPDX-License-Identifier: MIT
# bench/lib.sh - sourced by the stand-alone bench scripts (fork-maps.sh,
# forkstorm.sh, saturated.sh): a scratch folder and the background
# processes a script starts, both gone when it exits.

# bench_scratch NAME: out= a new /tmp/eprof-NAME.XXXXXX, pids=() for the
# script to fill. On exit the pids are killed and waited for, bench_keep
# runs if the script defines it (to save something from $out), and $out
# is removed; SIGINT and SIGTERM exit 1 through the same path.
bench_scratch() {
	out=$(mktemp -d "/tmp/eprof-$1.XXXXXX")
	pids=()
	trap bench_cleanup EXIT
	trap 'exit 1' INT TERM
}

bench_cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	declare -F bench_keep >/dev/null && bench_keep
	rm -rf "$out"
}
