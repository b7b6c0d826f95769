#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/python.sh [EPROF] [PY]: what walking Python frames costs, on Debian's
# python3.11 running tests/workloads/py_deep.py (a recursion DEPTH deep,
# spinning at its bottom) at 999 Hz, against the same run with
# `record --no-python` (no walk) and `perf record -g -F 999`:
#  1. BPF time per sample of eprof's sampler (bpftool prog show run_time_ns
#     with kernel.bpf_stats_enabled=1, this recorder's program only, read
#     3 s apart while it records, filtered-out ticks taken off) at Python
#     depths 10 and 60;
#  2. slowdown: the workload's own CPU time (time.process_time(), which
#     counts what the samplers take in its context), median of REPS runs,
#     against no profiler;
#  3. bytes per sample of the recordings (file size / samples);
#  4. the recorder's peak memory (its own getrusage ru_maxrss, which `info`
#     shows as "peak memory") recording tests/workloads/py_codes.py: CODES
#     distinct functions (default 50,000) made with compile() and exec(),
#     called in chains 80 deep, with and without the Python walk, median of
#     REPS runs, with the code objects the recording stored;
#  5. the recorder's own CPU time (user + system, /usr/bin/time) per sample
#     for a 10 s `record -p` of py_deep.py at depth 60 already running,
#     with and without --no-python, median of REPS runs.
# SECTIONS=cost runs 1-3 only, SECTIONS=memory 4 only, SECTIONS=recorder 5 only. Run as root; figures are CPU times, so a busy machine blurs them less.
set -eu
EPROF=$(realpath "${1:-$(dirname "$0")/../build/eprof}")
PY=${2:-/usr/bin/python3.11}
APP=$(realpath "$(dirname "$0")/../tests/workloads/py_deep.py")
REPS=${REPS:-5}
SECTIONS=${SECTIONS:-cost,memory,recorder}
CODES=${CODES:-50000}
CODES_APP=$(realpath "$(dirname "$0")/../tests/workloads/py_codes.py")
ROUNDS=${ROUNDS:-800}
WORK=$(mktemp -d /tmp/eprof-pybench.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled="$old_stats"; rm -rf "$WORK"' EXIT
sysctl -q kernel.bpf_stats_enabled=1

# cpu DEPTH [PROFILER...]: the workload's CPU seconds under PROFILER
cpu() {
	local depth=$1
	shift
	"$@" "$PY" -c "import runpy, sys, time
t = time.process_time()
sys.argv = ['py_deep.py', '$depth', '$ROUNDS']
runpy.run_path('$APP', run_name='__main__')
print('%.3f' % (time.process_time() - t), file=open('$WORK/cpu', 'w'))" >/dev/null 2>&1
	cat "$WORK/cpu"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# prog_stat ID, prog_id ERRFILE: a sampler program's run time (bench/bpfstat.sh)
. "$(dirname "$0")/bpfstat.sh"

# bpf_ns DEPTH [OPTION]: BPF ns of this recorder's on_cpu_clock (its id from
# `record -v -v`) per sample of the target (its stats map's EV_STAT_SAMPLES),
# over 3 s from 1.5 s after it loaded, a filtered-out tick's cost taken off
# (sampler_cost, bench/bpfstat.sh).
bpf_ns() {
	local rec idle ip ns s c f
	sleep 60 &
	idle=$!
	"$EPROF" record -v -v -F 999 $2 -o "$WORK/b.eprof" -- "$PY" "$APP" "$1" $((ROUNDS * 4)) \
		>/dev/null 2>"$WORK/b.err" &
	rec=$!
	"$EPROF" record -v -v -F 999 $2 -p "$idle" -o "$WORK/i.eprof" 2>"$WORK/i.err" &
	ip=$!
	read -r ns s c f < <(sampler_cost "$WORK/b.err" "$WORK/i.err" 1.5)
	wait "$rec"
	kill -INT "$ip" 2>/dev/null; wait "$ip" 2>/dev/null
	kill "$idle" 2>/dev/null; wait "$idle" 2>/dev/null
	if [ "$s" -gt 0 ]; then
		printf "%s ns per target sample (%s samples; %s runs, a filtered-out tick %s ns)" \
			"$ns" "$s" "$c" "$f"
	else
		echo "?"
	fi
}

for depth in 10 60; do
	[[ $SECTIONS == *cost* ]] || break
	echo "== Python depth $depth"
	echo "BPF time, Python walk:    $(bpf_ns $depth "")"
	echo "BPF time, --no-python:    $(bpf_ns $depth --no-python)"
	base=$(for i in $(seq "$REPS"); do cpu $depth; done | median)
	py=$(for i in $(seq "$REPS"); do cpu $depth "$EPROF" record -q -F 999 -o "$WORK/p.eprof" --; done | median)
	nopy=$(for i in $(seq "$REPS"); do cpu $depth "$EPROF" record -q -F 999 --no-python -o "$WORK/n.eprof" --; done | median)
	perf=$(for i in $(seq "$REPS"); do cpu $depth perf record -q -g -F 999 -o "$WORK/perf.data" --; done | median)
	for r in "none $base" "eprof $py" "eprof --no-python $nopy" "perf record -g $perf"; do
		echo "$r" | awk -v b="$base" '{ t = $NF; $NF = ""; printf "CPU time %-20s %6.3f s  %+5.1f%%\n", $0, t, 100 * (t - b) / b }'
	done
	for f in p n; do
		s=$("$EPROF" info "$WORK/$f.eprof" | awk '/^samples / { print $2; exit }')
		echo "$f $(stat -c %s "$WORK/$f.eprof") $s"
	done | awk '{ printf "bytes/sample %-14s %d B / %d samples = %.1f\n", ($1 == "p" ? "eprof" : "--no-python"), $2, $3, $2 / $3 }'
	ps=$(perf script -i "$WORK/perf.data" -F period 2>/dev/null | wc -l)
	echo "bytes/sample perf -g       $(stat -c %s "$WORK/perf.data") B / $ps samples = $(awk -v a="$(stat -c %s "$WORK/perf.data")" -v b="$ps" 'BEGIN { printf "%.1f", a / b }')"
done

# 5. the recorder's CPU time per sample, Python walk against --no-python
for opt in "" --no-python; do
	[[ $SECTIONS == *recorder* ]] || break
	[ -n "$opt" ] || echo "== recorder CPU, 10 s of record -p, Python depth 60 (median of $REPS)"
	for i in $(seq "$REPS"); do
		"$PY" "$APP" 60 100000 >/dev/null &
		app=$!
		sleep 1
		/usr/bin/time -f "%U %S" -o "$WORK/time" "$EPROF" record -q -F 999 $opt -d 10 -p "$app" \
			-o "$WORK/r.eprof" 2>/dev/null
		kill "$app"; wait "$app" 2>/dev/null || true
		s=$("$EPROF" info "$WORK/r.eprof" | awk '/^samples / { print $2; exit }')
		awk -v s="$s" '{ printf "%.0f\n", 1e6 * ($1 + $2) / s }' "$WORK/time"
	done | median | awk -v o="${opt:-python walk}" '{ printf "recorder CPU %-12s %d us per sample\n", o, $1 }'
done

# 4. the recorder's peak memory on CODES distinct code objects
[[ $SECTIONS == *memory* ]] || exit 0
echo "== recorder memory, $CODES distinct code objects (median of $REPS)"
for opt in "" --no-python; do
	for i in $(seq "$REPS"); do
		"$EPROF" record -q -F 999 $opt -o "$WORK/m.eprof" -- "$PY" "$CODES_APP" "$CODES" >/dev/null 2>&1
		"$EPROF" info "$WORK/m.eprof" | awk '/^peak memory/ { p = $NF } /code objects stored/ { c = $NF }
			END { print p, (c == "" || c == "-" ? 0 : c) }'
	done | sort -n | awk -v o="${opt:-python walk}" '{ p[NR] = $1; c[NR] = $2 }
		END { m = int((NR + 1) / 2); printf "peak RSS %-12s %6.1f MiB (%d code objects stored)\n", o, p[m] / 1048576, c[m] }'
done
