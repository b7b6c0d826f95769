#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/offcpu.sh - what record --off-cpu costs on a context-switch-heavy
# workload, against offcputime-bpfcc and perf record --off-cpu in the same
# run, as figures (never assertions; issue 12):
#   1. a pipe ping-pong pinned to one CPU (tests/workloads/pingpong.c, two
#      threads, ~100k switches/s unprofiled): its slowdown, the recorder's
#      own CPU time, the BPF run time per context switch, intervals lost;
#   2. bytes per off-CPU interval in the recording;
#   3. the size of a 30 s `record -a --off-cpu` of the machine while it
#      builds eprof.
# usage: bench/offcpu.sh BUILD_DIR [OUT.md]   (as root; prints Markdown)
set -u
B=${1:?usage: bench/offcpu.sh BUILD_DIR [OUT.md]}
OUT=${2:-/dev/stdout}
B=$(cd "$B" && pwd)
E=$B/eprof
PP="$B/tests/workloads/pingpong"
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-100000}
REPS=${REPS:-3}
CPU=${CPU:-1}
T=$(mktemp -d /tmp/eprof-bench-offcpu.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
build_pid=
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	[ -n "$build_pid" ] && kill -- -"$build_pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# offcputime-bpfcc hooks finish_task_switch with a kprobe and compiles its C
# against the running kernel's headers: say why when it cannot run
BCC=$(command -v offcputime-bpfcc || true)
bcc_why=
if [ -z "$BCC" ]; then
	bcc_why="not installed (apt-get install bpfcc-tools)"
elif [ ! -d /sys/bus/event_source/devices/kprobe ]; then
	bcc_why="installed, but it attaches a kprobe to finish_task_switch and this kernel has no kprobes (no kprobe PMU)"
elif [ ! -e "/lib/modules/$(uname -r)/build" ]; then
	bcc_why="installed, but there are no headers for this kernel to compile it against"
fi
[ -n "$bcc_why" ] && BCC=
# Debian's perf is built without BPF skeletons: --off-cpu is then ignored with a warning
perf_offcpu=no
if command -v perf >/dev/null; then
	perf record --off-cpu -h >"$T/probe.err" 2>&1
	grep -q "off-cpu.*ignored" "$T/probe.err" || perf_offcpu=yes
fi

field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" "$2" | head -1; }
cpu_s() { awk '{ print $1 + $2 }' "$1"; }	# /usr/bin/time -f "%U %S"

# bpf_prog NAME: "run_time_ns run_cnt" of the loaded program NAME (0 0: none)
bpf_prog() {
	bpftool prog show 2>/dev/null | awk -v n="$1" '$0 ~ "name " n { for (i = 1; i < NF; i++) {
		if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) } }
		END { printf "%d %d\n", t, c }'
}

# run TOOL REP: one measured run of the ping-pong; appends "tool key value" rows
run() {
	local tool=$1 rep=$2 out="$T/$1.$2" pid bpf
	case $tool in
	none)
		taskset -c "$CPU" "$PP" "$ROUNDS" >"$out.wl"
		;;
	eprof|eprof-fp|eprof-nooff)
		local args=(--off-cpu)
		[ "$tool" = eprof-fp ] && args+=(--call-graph fp)
		[ "$tool" = eprof-nooff ] && args=()
		/usr/bin/time -f "%U %S" -o "$out.time" "$E" record "${args[@]}" -o "$out.eprof" \
			-- taskset -c "$CPU" "$PP" "$ROUNDS" >"$out.wl" 2>"$out.err" &
		pid=$!
		# the BPF run time while the workload runs (the program dies with the recorder)
		( while kill -0 $pid 2>/dev/null; do bpf_prog on_switch >"$out.bpf.tmp" &&
			mv "$out.bpf.tmp" "$out.bpf"; sleep 0.2; done ) &
		wait $pid
		wait
		;;
	bcc)
		# whole system (it has no -- CMD): started first, stopped with SIGINT after
		"$BCC" -f -d >"$out.fold" 2>"$out.err" &
		pid=$!
		sleep 5	# compiles its C with clang first
		taskset -c "$CPU" "$PP" "$ROUNDS" >"$out.wl"
		bpf_prog oncpu >"$out.bpf"
		kill -INT $pid; wait $pid
		;;
	esac
	echo "$tool $rep wall_s $(awk '{ print $5 / 1e9 }' "$out.wl")"
	echo "$tool $rep wl_cpu_s $(awk '{ print $7 / 1e9 }' "$out.wl")"
	echo "$tool $rep switches $(awk '{ print $9 }' "$out.wl")"
	if [ -s "$out.time" ] && [ "$tool" != bcc ]; then
		echo "$tool $rep rec_cpu_s $(awk -v w="$(awk '{ print $7 / 1e9 }' "$out.wl")" '{ print $1 + $2 - w }' "$out.time")"
	fi
	if [ -s "$out.bpf" ]; then
		read -r bt bc <"$out.bpf"
		[ "${bc:-0}" -gt 0 ] && echo "$tool $rep bpf_ns_per_run $((bt / bc))"
	fi
	if [ -f "$out.eprof" ]; then
		echo "$tool $rep file_bytes $(stat -c %s "$out.eprof")"
		n=$(sed -n 's/^eprof: recorded \([0-9]*\) off-CPU intervals (\([0-9]*\) lost).*/\1 \2/p' "$out.err")
		[ -n "$n" ] && { set -- $n; echo "$tool $rep intervals $1"; echo "$tool $rep lost $2"; }
	fi
	if [ "$tool" = bcc ]; then
		echo "$tool $rep fold_bytes $(stat -c %s "$out.fold")"
		echo "$tool $rep lost $(grep -c -i 'missed\|lost' "$out.fold" "$out.err" | awk -F: '{ s += $NF } END { print s }')"
	fi
}

tools="none eprof eprof-fp eprof-nooff"
[ -n "$BCC" ] && tools="$tools bcc"
sysctl -qw kernel.bpf_stats_enabled=1
for rep in $(seq 1 "$REPS"); do
	for tool in $tools; do
		run "$tool" "$rep"
	done
done >"$T/rows"

# bcc: its own CPU time from /proc before it exits is racy; measure it by a separate run with time(1)
if [ -n "$BCC" ]; then
	/usr/bin/time -f "%U %S" -o "$T/bcc.time" "$BCC" -f -d 12 >"$T/bcc.fold" 2>/dev/null &
	bp=$!
	sleep 5
	taskset -c "$CPU" "$PP" "$ROUNDS" >"$T/bcc.wl"
	wait $bp
	echo "bcc 0 rec_cpu_s $(cpu_s "$T/bcc.time")" >>"$T/rows"
fi

# 3. a 30 s -a --off-cpu recording of the machine building eprof
setsid bash -c "cmake -S '$SRC' -B '$T/bb' -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null 2>&1 &&
	cmake --build '$T/bb' -j2 >/dev/null 2>&1" &
build_pid=$!
sleep 3
"$E" record -a --off-cpu -d 30 -o "$T/a.eprof" 2>"$T/a.err" >/dev/null
kill -- -"$build_pid" 2>/dev/null; wait "$build_pid" 2>/dev/null; build_pid=
"$E" record -a -d 30 -o "$T/a0.eprof" 2>"$T/a0.err" >/dev/null &	# without --off-cpu, for scale
a0=$!
setsid bash -c "cmake --build '$T/bb' --target clean >/dev/null 2>&1; cmake --build '$T/bb' -j2 >/dev/null 2>&1" &
build_pid=$!
wait $a0
kill -- -"$build_pid" 2>/dev/null; wait "$build_pid" 2>/dev/null; build_pid=

med() { awk -v t="$1" -v k="$2" '$1 == t && $3 == k { print $4 }' "$T/rows" | sort -g |
	awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }
fmt() { [ -n "$1" ] && printf "$2" "$1" || printf -- "-"; }
{
echo "## record --off-cpu (bench/offcpu.sh, $(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "Workload: \`taskset -c $CPU pingpong $ROUNDS\` (two threads, one byte over two pipes; $(med none switches) context switches). Medians of $REPS runs, tools interleaved run by run. Wall time moves with the machine's load; the workload's own CPU time (CPU x: against the unprofiled run) carries the hook's cost, which runs in the switching threads' context."
echo "eprof = \`eprof record --off-cpu -- CMD\` (user stacks by unwind tables), eprof-fp adds \`--call-graph fp\`, eprof-nooff is \`eprof record -- CMD\` (CPU samples only); bcc = \`offcputime-bpfcc -f -d\` (whole system, in-kernel stack ids, no file)."
echo "offcputime-bpfcc: $([ -n "$bcc_why" ] && echo "$bcc_why: no figures" || echo "measured")."
echo "perf record --off-cpu: $([ $perf_offcpu = yes ] && echo "supported" || echo "not supported by this perf ($(perf --version 2>/dev/null): built without BPF skeletons, the option is ignored with a warning)")."
echo
echo "| tool | workload wall (s) | slowdown | switches/s | workload CPU (s) | CPU x | recorder CPU (s) | BPF ns per switch hook run | intervals | lost | file bytes | bytes/interval |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
base=$(med none wall_s)
base_cpu=$(med none wl_cpu_s)
for tool in $tools; do
	w=$(med "$tool" wall_s); s=$(med "$tool" switches)
	fb=$(med "$tool" file_bytes); iv=$(med "$tool" intervals)
	[ "$tool" = bcc ] && fb=$(med bcc fold_bytes)
	rc=$(med "$tool" rec_cpu_s); [ "$tool" = bcc ] && rc=$(awk '$1 == "bcc" && $3 == "rec_cpu_s" { print $4 }' "$T/rows")
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$tool" "$(fmt "$w" %.3f)" \
		"$(awk -v a="$w" -v b="$base" 'BEGIN { if (b > 0 && a != "") printf "%.2fx", a / b; else print "-" }')" \
		"$(awk -v s="$s" -v w="$w" 'BEGIN { if (w > 0) printf "%.0f", s / w; else print "-" }')" \
		"$(fmt "$(med "$tool" wl_cpu_s)" %.3f)" \
		"$(awk -v a="$(med "$tool" wl_cpu_s)" -v b="$base_cpu" 'BEGIN { if (b > 0 && a != "") printf "%.2fx", a / b; else print "-" }')" \
		"$(fmt "$rc" %.3f)" \
		"$(fmt "$(med "$tool" bpf_ns_per_run)" %s)" "$(fmt "$iv" %s)" "$(fmt "$(med "$tool" lost)" %s)" \
		"$(fmt "$fb" %s)$([ "$tool" = bcc ] && echo ' (folded text)')" \
		"$(awk -v f="$fb" -v n="$iv" 'BEGIN { if (n > 0) printf "%.2f", f / n; else print "-" }')"
done
echo
echo "bytes/interval of eprof against eprof-nooff (what --off-cpu adds to the file, per interval): $(awk -v a="$(med eprof file_bytes)" -v b="$(med eprof-nooff file_bytes)" -v n="$(med eprof intervals)" 'BEGIN { if (n > 0) printf "%.2f", (a - b) / n; else print "-" }')"
echo
echo "### 30 s of \`eprof record -a --off-cpu\` while the machine builds eprof (cmake --build -j2)"
echo
echo "| recording | file bytes | intervals | lost | summary |"
echo "|---|---|---|---|---|"
ai=$(sed -n 's/^eprof: recorded \([0-9]*\) off-CPU intervals (\([0-9]*\) lost).*/\1 \2/p' "$T/a.err")
set -- $ai
echo "| -a --off-cpu -d 30 | $(stat -c %s "$T/a.eprof" 2>/dev/null) | ${1:--} | ${2:--} | $(grep '^eprof: recorded [0-9]* samples' "$T/a.err" | cut -c1-120) |"
echo "| -a -d 30 (no --off-cpu) | $(stat -c %s "$T/a0.eprof" 2>/dev/null) | - | - | $(grep '^eprof: recorded [0-9]* samples' "$T/a0.err" | cut -c1-120) |"
} >"$OUT"
[ "$OUT" = /dev/stdout ] || cat "$OUT"
cp "$T/rows" "${OFFCPU_ROWS:-/dev/null}" 2>/dev/null
exit 0
