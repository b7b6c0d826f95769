#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/forkstorm.sh EPROF [SECONDS] [HZ]: the fork storm of issue 14. A
# CPU-bound spinner and two shell loops that fork /bin/true and /bin/echo
# without pause run beside `eprof record -a -F HZ -d SECONDS` (default 8 s
# at 999 Hz). Prints the file's size and bytes per sample, the bytes of
# each table, the processes recorded, the recorder's own share of the
# samples (those of eprof's pid, all its threads, over all of them) and its peak RSS
# (/usr/bin/time -v). Everything it starts is killed on exit.
# KEEP=FILE keeps the recording as FILE and the recorder's pid in FILE.pid;
# RECORD_ARGS adds options to eprof record (e.g. "--call-graph fp").
set -u
eprof=${1:?usage: forkstorm.sh EPROF [SECONDS] [HZ]}
secs=${2:-8}
hz=${3:-999}
. "$(dirname "$0")/lib.sh"
bench_keep() { [ -n "${KEEP:-}" ] && cp "$out/r.eprof" "$KEEP" 2>/dev/null && echo "${recpid:-}" >"$KEEP.pid"; }
bench_scratch storm
sh -c 'while :; do :; done' &
pids+=($!)
sh -c 'while :; do /bin/true; done' &
pids+=($!)
sh -c 'while :; do /bin/echo x >/dev/null; done' &
pids+=($!)
sleep 1
/usr/bin/time -v -o "$out/time" "$eprof" record -a -F "$hz" -d "$secs" ${RECORD_ARGS:-} -o "$out/r.eprof" \
	2>"$out/err" &
timer=$!
recpid=
for _ in $(seq 50); do
	recpid=$(pgrep -P "$timer" | head -1)
	[ -n "$recpid" ] && break
	sleep 0.05
done
wait "$timer"
rc=$?
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
[ "$rc" = 0 ] || { cat "$out/err"; echo "record failed: $rc"; exit 1; }
bytes=$(stat -c %s "$out/r.eprof")
"$eprof" report -i "$out/r.eprof" --fold --by pid >"$out/fold" 2>/dev/null
total=$(awk '{ s += $NF } END { print s + 0 }' "$out/fold")
procs=$(awk '{ split($0, f, ";"); p[f[1]] = 1 } END { print length(p) }' "$out/fold")
self=$("$eprof" report -i "$out/r.eprof" --fold --pid "${recpid:-0}" 2>/dev/null |
	awk '{ s += $NF } END { print s + 0 }')
rss=$(awk -F': ' '/Maximum resident/ { print $2 }' "$out/time")
cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$out/time")
grep '^eprof: recorded' "$out/err"
printf 'F=%s d=%s: %s bytes, %s samples, %.1f bytes/sample, %s sampled processes\n' \
	"$hz" "$secs" "$bytes" "$total" "$(echo "$bytes / $total" | bc -l)" "$procs"
printf 'recorder: %s samples (%.1f%%), peak RSS %s KiB, CPU %s s\n' "$self" \
	"$(echo "100 * $self / $total" | bc -l)" "$rss" "$cpu"
sqlite3 "$out/r.eprof" "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC" 2>/dev/null |
	awk -F'|' '{ printf "  %-28s %10d bytes\n", $1, $2 }'
for q in "mappings|SELECT sum(nr_mappings) FROM mapping_chunk" "files|SELECT count(*) FROM mapped_file" \
	"names|SELECT sum(nr_comms) FROM comm_chunk" "stacks|SELECT sum(nr_stacks) FROM stack_chunk"; do
	printf '  rows %-10s %s\n' "${q%%|*}" "$(sqlite3 "$out/r.eprof" "${q#*|}" 2>/dev/null)"
done
