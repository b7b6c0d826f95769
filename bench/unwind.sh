#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/unwind.sh - what --call-graph dwarf costs, as ratios against
# --call-graph fp and perf in the same run (never assertions):
#   1. BPF run time per sample of the sampler, dwarf against fp, at the same
#      depth (a frame-pointer recursion both walks follow to the end, and
#      one cut at 127), from kernel.bpf_stats_enabled, less the cost of the
#      ticks of other tasks (measured beside it);
#   2. workload slowdown at 999 Hz: eprof dwarf, eprof fp, perf -g and
#      perf --call-graph dwarf, on Debian's xz -9;
#   3. bytes per sample and completeness: eprof dwarf, eprof fp and perf
#      --call-graph dwarf (its file size and report time too);
#   4. table build time and memory for libc, python3 and cc1.
# usage: bench/unwind.sh BUILD_DIR [OUT.md]   (as root; prints Markdown)
#   5. slowdown at 999 Hz against perf record -g, REPS interleaved rounds.
# Environment: SECTIONS=15 runs sections 1 and 5 only (default: 1234); REPS=N
# repeats sections 1 and 5 N times; BASE=PATH/TO/eprof measures a second eprof (another
# build) in section 1 too, interleaved with this one, so that a change to
# the walker is compared with its base under the same load.
set -u
B=${1:?usage: bench/unwind.sh BUILD_DIR [OUT.md]}
OUT=${2:-/dev/stdout}
E=$B/eprof
SECTIONS=${SECTIONS:-1234}
REPS=${REPS:-1}
BASE=${BASE:-}
W=$B/tests/workloads
CFI=$B/tests/helper/cfi-dump
T=$(mktemp -d /tmp/eprof-bench-unwind.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; rm -rf "$T"' EXIT
# perf 6.1 aborts in record when another tool's BPF programs are loaded
# (util/build-id.c) unless it skips BPF events and build-ids.
PERF_FLAGS="--no-bpf-event --no-buildid"
have_perf=0
command -v perf >/dev/null && perf record -q -e cpu-clock $PERF_FLAGS -o "$T/probe" true 2>/dev/null &&
	have_perf=1

now() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

# prog_stat ID, prog_id ERRFILE: a sampler program's run time (bench/bpfstat.sh)
. "$(dirname "$0")/bpfstat.sh"

# bpf_cost MODE DEPTH: "ns samples tick_ns" of on_cpu_clock per sample of the
# recursion, a filtered-out tick's cost taken off (sampler_cost, bench/bpfstat.sh).
bpf_cost() {
	local mode=$1 depth=$2 E=${3:-$E} pid idle rp ip cost
	"$W/threads_deep" 30000 "$depth" 0 &
	pid=$!
	sleep 60 &
	idle=$!
	"$E" record -v -v -F 999 --call-graph "$mode" -p "$pid" -d 30 -o "$T/c.eprof" 2>"$T/c.err" &
	rp=$!
	"$E" record -v -v -F 999 --call-graph "$mode" -p "$idle" -d 30 -o "$T/i.eprof" 2>"$T/i.err" &
	ip=$!
	cost=$(sampler_cost "$T/c.err" "$T/i.err" 1)
	kill -INT "$rp" "$ip" 2>/dev/null; wait "$rp" "$ip" 2>/dev/null
	kill "$pid" "$idle" 2>/dev/null; wait "$pid" "$idle" 2>/dev/null
	echo "$cost" | awk '{ print $1, $2, $4 }'
}

# completeness FOLD COMM: percent of COMM's stacks with an entry frame.
completeness() {
	awk -v comm="$2" '{ n = $NF; nf = split($0, f, ";"); if (f[1] != comm) next; t += n
		for (i = 2; i <= nf; i++) if (f[i] ~ /^(_start|__libc_start_main.*|__libc_start_call_main|start_thread|clone3?)( [0-9]+)?$/) { ok += n; break } }
		END { if (t) printf "%.1f", 100 * ok / t; else print "-" }' "$1"
}

/usr/bin/python3 -c 'import random, sys
r = random.Random(11)
w = [bytes(r.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(5000)]
sys.stdout.buffer.write(b" ".join(r.choice(w) for _ in range(300000)))' >"$T/input"

sysctl -qw kernel.bpf_stats_enabled=1
{
echo "## --call-graph dwarf (bench/unwind.sh, $(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
case $SECTIONS in *1*)
echo "### 1. BPF run time of the sampler per tick (ns), same depth"
echo
if [ -n "$BASE" ]; then
	echo "| rep | user depth | base fp | base dwarf | base dwarf/fp | fp (ns) | dwarf (ns) | dwarf/fp | load |"
	echo "|---|---|---|---|---|---|---|---|---|"
else
	echo "| rep | user depth | fp (ns) | dwarf (ns) | dwarf/fp | samples (fp, dwarf) | filtered tick (fp, dwarf) |"
	echo "|---|---|---|---|---|---|---|"
fi
for rep in $(seq "$REPS"); do
	for depth in 20 60 200; do
		shown=$depth; [ "$depth" -gt 120 ] && shown="127 (cut)"
		if [ -n "$BASE" ]; then
			read -r bfp _ _ < <(bpf_cost fp "$depth" "$BASE")
			read -r fp _ _ < <(bpf_cost fp "$depth")
			read -r bdw _ _ < <(bpf_cost dwarf "$depth" "$BASE")
			read -r dw _ _ < <(bpf_cost dwarf "$depth")
			echo "| $rep | $shown | $bfp | $bdw | $(ratio "$bdw" "$bfp") | $fp | $dw | $(ratio "$dw" "$fp") | $(cut -d' ' -f1 /proc/loadavg) |"
			continue
		fi
		read -r fp nfp ffp < <(bpf_cost fp "$depth")
		read -r dw ndw fdw < <(bpf_cost dwarf "$depth")
		echo "| $rep | $shown | $fp | $dw | $(ratio "$dw" "$fp") | $nfp, $ndw | $ffp, $fdw |"
	done
done
echo
echo "Per sample of the recursion: the program's run time over 3 s, less what the"
echo "ticks of other tasks cost (they return at the target filter; a second"
echo "recorder of a sleeping process measures that in the same seconds)."
echo
;; esac
case $SECTIONS in *[23]*)
echo "### 2-3. xz -9 on 2.4 MB at 999 Hz: slowdown, size, completeness"
echo
echo "| recorder | wall (s) | slowdown | file bytes | bytes/sample | complete stacks | report (s) |"
echo "|---|---|---|---|---|---|---|"
t0=$(now); xz -9 -c "$T/input" >/dev/null; t1=$(now)
base=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
echo "| none | $(printf %.2f "$base") | - | - | - | - | - |"
for mode in dwarf fp; do
	t0=$(now); "$E" record -F 999 --call-graph $mode -o "$T/$mode.eprof" -- xz -9 -c "$T/input" >/dev/null 2>"$T/$mode.err"; t1=$(now)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	n=$(sed -n 's/.*recorded \([0-9]*\) samples.*/\1/p' "$T/$mode.err")
	size=$(stat -c %s "$T/$mode.eprof")
	t0=$(now); "$E" report -i "$T/$mode.eprof" --fold >"$T/$mode.fold" 2>/dev/null; t1=$(now)
	rep=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "| eprof $mode | $(printf %.2f "$wall") | $(ratio "$wall" "$base") | $size | $((size / (n ? n : 1))) | $(completeness "$T/$mode.fold" xz)% | $rep |"
done
if [ $have_perf = 1 ]; then
	for cg in fp dwarf; do
		t0=$(now); perf record -q -e cpu-clock -F 999 --call-graph $cg $PERF_FLAGS -o "$T/perf-$cg.data" -- xz -9 -c "$T/input" >/dev/null 2>&1; t1=$(now)
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
		size=$(stat -c %s "$T/perf-$cg.data" 2>/dev/null || echo 0)
		t0=$(now)
		perf script -i "$T/perf-$cg.data" -F comm,sym 2>/dev/null |
			awk 'NF == 0 { if (c != "") print c " 1"; c = ""; next } c == "" && !/^\t/ { c = $1; next } { s = $NF; sub(/\+0x.*/, "", s); c = c ";" s }' >"$T/perf-$cg.fold"
		t1=$(now)
		rep=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		n=$(wc -l <"$T/perf-$cg.fold")
		if [ "$n" -eq 0 ]; then
			echo "| perf --call-graph $cg | $(printf %.2f "$wall") | $(ratio "$wall" "$base") | $size | - | perf script failed | - |"
			continue
		fi
		echo "| perf --call-graph $cg | $(printf %.2f "$wall") | $(ratio "$wall" "$base") | $size | $((size / n)) | $(completeness "$T/perf-$cg.fold" xz)% | $rep |"
	done
else
	echo "| perf | - | perf missing or cannot record here | | | | |"
fi
echo
echo "Completeness: stacks of xz with an entry frame (_start, __libc_start_main, ...)."
echo "perf's report time is \`perf script\` (its unwinding happens there)."
echo
;; esac
case $SECTIONS in *4*)
echo "### 4. Table build (elf/cfi.c) and kernel memory (rows x 16 B)"
echo
echo "| binary | rows | build (ms) | memory (KiB) |"
echo "|---|---|---|---|"
for f in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11 \
	$(ls /usr/lib/gcc/x86_64-linux-gnu/*/cc1 2>/dev/null | head -1); do
	[ -r "$f" ] || continue
	t0=$(now); rows=$("$CFI" "$f" 2>/dev/null | sed -n '1s/.* rows=\([0-9]*\).*/\1/p'); t1=$(now)
	echo "| $f | $rows | $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", 1000 * (b - a) }') | $(( (rows * 16 + 4096) / 1024 )) |"
done
echo
echo "Build time is cfi-dump's whole run (it also prints every row)."
echo
;; esac
case $SECTIONS in *5*)
echo "### 5. Slowdown at 999 Hz against perf record -g, $REPS interleaved rounds"
echo
cat "$T/input" "$T/input" "$T/input" "$T/input" >"$T/input4"
# Whole-command wall time of xz -9 on the input, bare and under each
# recorder, one after the other in every round (never two recorders at
# once), so that each round sees the same load; medians over the rounds.
# The workload's own CPU time (user + system, /usr/bin/time inside the
# recorder) is the second figure: on a shared machine it varies far less
# than wall time, and it holds what the sampler costs the workload itself.
XZ="/usr/bin/time -f %U+%S -o $T/cpu xz -9 -c $T/input4"
for rep in $(seq "$REPS"); do
	for who in none dwarf fp perf-g true; do
		echo 0+0 >"$T/cpu"
		t0=$(now)
		case $who in
		none) $XZ >/dev/null ;;
		true) "$E" record -F 999 -o "$T/s.eprof" -- true 2>"$T/s.err" ;;
		dwarf | fp) "$E" record -F 999 --call-graph $who -o "$T/s.eprof" -- $XZ >/dev/null 2>"$T/s.err" ;;
		perf-g) [ $have_perf = 1 ] && perf record -q -e cpu-clock -F 999 -g $PERF_FLAGS -o "$T/s.data" -- \
			$XZ >/dev/null 2>&1 ;;
		esac
		t1=$(now)
		echo "$who $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $(tail -1 "$T/cpu" | awk -F+ '{ print $1 + $2 }')" >>"$T/slow"
	done
done
awk -v reps="$REPS" 'function med(w, col,   n, i, j, t, a) { n = 0; for (i = 1; i <= N; i++) if (who[i] == w) a[++n] = v[i, col]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	function r(a, b) { return b > 0 ? a / b : 0 }
	{ who[++N] = $1; v[N, 1] = $2; v[N, 2] = $3 }
	END { b = med("none", 1); p = med("perf-g", 1); bc = med("none", 2); pc = med("perf-g", 2)
		print "| recorder | median wall (s) | slowdown | against perf record -g | workload CPU (s) | slowdown | against perf record -g |"
		print "|---|---|---|---|---|---|---|"
		split("none dwarf fp perf-g", order, " ")
		name["none"] = "none"; name["dwarf"] = "eprof record (dwarf, the default)"
		name["fp"] = "eprof record --call-graph fp"; name["perf-g"] = "perf record -g"
		for (k = 1; k <= 4; k++) { m = med(order[k], 1); c = med(order[k], 2)
			printf "| %s | %.3f | %.2fx | %.2fx | %.3f | %.2fx | %.2fx |\n", name[order[k]], m, r(m, b), r(m, p),
				c, r(c, bc), r(c, pc) } }' "$T/slow"
echo
echo "xz -9 on 4 x 2.4 MB, whole command. Start + finish of \`eprof record -F 999 -- true\`"
echo "(dwarf) in the same rounds, median: $(awk '$1 == "true" { print $2 }' "$T/slow" | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f s", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')."
echo "Load before and after: see the heading; $(cut -d' ' -f1-3 /proc/loadavg) at the end."
;; esac
} >"$OUT"
