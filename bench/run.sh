#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/run.sh - eprof against perf, bpftrace and BCC on the same workloads,
# in the same run, as ratios (issue 6). Run as root on an otherwise idle
# machine:
#
#     bench/run.sh            # full run, ~20 minutes
#     bench/run.sh --quick    # smoke run, ~3 minutes (1 repetition, fewer cells)
#
# Prints the summary table and writes it to bench/results/latest.md, with
# every raw measurement in bench/results/latest.csv. bench/README.md says
# what each figure means and how it is measured.
#
# Environment: BENCH_REPS (repetitions of the matrix), BENCH_WORK (scratch
# directory, default a fresh /tmp/eprof-bench.XXXXXX, removed unless
# BENCH_KEEP=1), BENCH_BUILD (eprof build directory, default build-bench).
set -u
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
QUICK=0
for a in "$@"; do
	case $a in
	--quick) QUICK=1 ;;
	-h | --help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument '$a' (try --quick)" >&2; exit 2 ;;
	esac
done

[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (perf, BPF, mount)" >&2; exit 1; }

say() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }

# --- setup: packages, kernel headers for BCC, BPF stats, the build --------

setup_packages() {
	local need=()
	command -v perf >/dev/null || need+=(linux-perf)
	command -v bpftrace >/dev/null || need+=(bpftrace)
	command -v profile-bpfcc >/dev/null || need+=(bpfcc-tools)
	command -v stress-ng >/dev/null || need+=(stress-ng)
	[ -x /usr/bin/time ] || need+=(time)
	command -v sqlite3 >/dev/null || need+=(sqlite3)
	command -v bpftool >/dev/null || need+=(bpftool)
	command -v python3 >/dev/null || need+=(python3)
	ls -d /usr/src/linux-headers-*-common >/dev/null 2>&1 || need+=(linux-headers-amd64)
	if [ ${#need[@]} -gt 0 ]; then
		say "installing ${need[*]}"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null ||
			{ echo "run.sh: apt-get install ${need[*]} failed" >&2; exit 1; }
	fi
}

# BCC compiles its programs against /lib/modules/$(uname -r)/{build,source};
# kernels without their own headers can borrow Debian's newest ones (the
# programs BCC's profile tool uses only need stable definitions).
setup_kernel_headers() {
	local k=/lib/modules/$(uname -r) arch common
	[ -e "$k/build/include/linux/kconfig.h" ] || [ -e "$k/source/include/linux/kconfig.h" ] && return 0
	arch=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
	common=$(ls -d /usr/src/linux-headers-*-common 2>/dev/null | sort -V | tail -1)
	[ -n "$arch" ] && [ -n "$common" ] || { say "no kernel headers under /usr/src: BCC will be skipped"; return 0; }
	mkdir -p "$k"
	[ -e "$k/build" ] || ln -s "$arch" "$k/build"
	[ -e "$k/source" ] || ln -s "$common" "$k/source"
	say "linked $k/build -> $arch, $k/source -> $common (for BCC)"
}

BUILD=${BENCH_BUILD:-$SRC/build-bench}
build_eprof() {
	say "building eprof (RelWithDebInfo) in $BUILD"
	{ cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
		make -C "$BUILD" -j"$(nproc)" eprof bench_load; } >"$WORK/build.log" 2>&1 ||
		{ tail -20 "$WORK/build.log" >&2; echo "run.sh: build failed" >&2; exit 1; }
	gcc -O2 -g -I"$SRC" -o "$WORK/gen_recording" "$HERE/gen_recording.c" \
		"$BUILD/format/libeprof_format.a" "$BUILD/util/libeprof_util.a" -lsqlite3 -lzstd ||
		{ echo "run.sh: building bench/gen_recording.c failed" >&2; exit 1; }
}

WORK=${BENCH_WORK:-$(mktemp -d /tmp/eprof-bench.XXXXXX)}
mkdir -p "$WORK"
RESULTS="$HERE/results"
mkdir -p "$RESULTS"
CSV="$WORK/raw.csv"
echo "section,rep,workload,rate,tool,key,value" >"$CSV"
BG_PIDS=()
old_stats=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sysctl -qw kernel.bpf_stats_enabled="$old_stats" 2>/dev/null
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

setup_packages
setup_kernel_headers
build_eprof
sysctl -qw kernel.bpf_stats_enabled=1

EPROF="$BUILD/eprof"
LOAD="$BUILD/tests/workloads/bench_load"
NCPU=$(nproc)
HAVE_BCC=1
[ -e "/lib/modules/$(uname -r)/source/include/linux/kconfig.h" ] || HAVE_BCC=0

BIG_S=6		# the busy-machine run, quick or not
if [ $QUICK = 1 ]; then
	REPS=${BENCH_REPS:-1}
	CPU_UNITS=25000		# ~0.5 s here
	MATRIX="cpu:99 cpu:999 cpu:9999 threads:999 procs:999 deep:999"
	COMPACT_S=8
	GEN_SIZES="100000 1000000"
else
	REPS=${BENCH_REPS:-3}
	CPU_UNITS=50000		# ~1 s here
	MATRIX="cpu:99 cpu:999 cpu:9999 threads:99 threads:999 threads:9999 procs:99 procs:999 procs:9999 deep:99 deep:999 deep:9999"
	COMPACT_S=30
	GEN_SIZES="100000 1000000 10000000"
fi

workload_args() {
	case $1 in
	cpu) echo "cpu $CPU_UNITS" ;;
	threads) echo "threads 64 $((CPU_UNITS * NCPU))" ;;
	procs) echo "procs $((CPU_UNITS / 100)) 40" ;;
	deep) echo "deep 80 $CPU_UNITS" ;;
	esac
}

csv() { echo "$1,$2,$3,$4,$5,$6,$7" >>"$CSV"; }

# --- BPF program run time: poll the profiler's BPF program fds -------------
#
# /proc/PID/fdinfo of a BPF program fd shows prog_type and, with
# kernel.bpf_stats_enabled=1, run_time_ns. The programs go away when the
# profiler exits, so the poller samples every 0.1 s and keeps the largest
# value per program (at most 0.1 s of run time is missed at the end).

bpf_poll_start() { # PID
	: >"$WORK/bpfpoll"
	(while kill -0 "$1" 2>/dev/null; do
		awk 'FNR == 1 { id = "" } /^prog_id:/ { id = $2 } /^run_time_ns:/ && id != "" { print id, $2 }' \
			/proc/"$1"/fdinfo/* 2>/dev/null
		sleep 0.1
	done >>"$WORK/bpfpoll") &
	BPF_POLL=$!
}
bpf_poll_stop() {
	kill "$BPF_POLL" 2>/dev/null
	wait "$BPF_POLL" 2>/dev/null
	awk '{ if ($2 > m[$1]) m[$1] = $2 } END { for (i in m) s += m[i]; print s + 0 }' "$WORK/bpfpoll"
}
# wait_bpf_attached PID SECONDS: until PID holds a perf_event BPF program.
wait_bpf_attached() {
	local end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -le $end ]; do
		grep -qs '^prog_type:[[:space:]]*7$' /proc/"$1"/fdinfo/* && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# child_of PID: the process PID started (waits up to 2 s for it).
child_of() {
	local c
	for _ in $(seq 200); do
		c=$(pgrep -P "$1" | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.01
	done
	return 1
}

now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.4f\n", e - s }'; }
# cpu_s TIMEFILE: user + system seconds from /usr/bin/time -f "%U %S %M".
# (the last line: a first one may say "Command terminated by signal 2")
cpu_s() { awk 'END { print $1 + $2 }' "$1"; }
maxrss_kb() { awk 'END { print $3 }' "$1"; }

# perf_samples STDERR DATA: perf's sample count from its summary line, or from
# the file when perf 6.1 crashed at exit (newer kernels) and printed none.
perf_samples() {
	local n
	n=$(sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples).*/\1/p' "$1")
	[ -n "$n" ] || n=$(perf report -i "$2" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	echo "$n"
}

# both_start HZ DIR: eprof -a and perf -a -g together at HZ into DIR
# (e.eprof, p.data, their stderr in e.err, p.err), pids in e_pid and p_pid,
# a second given them to attach.
both_start() {
	env --default-signal=INT "$EPROF" record -a -F "$1" -o "$2/e.eprof" 2>"$2/e.err" & e_pid=$!
	env --default-signal=INT perf record -e cpu-clock -F "$1" -g -a -o "$2/p.data" 2>"$2/p.err" & p_pid=$!
	BG_PIDS+=("$e_pid" "$p_pid")
	sleep 1
}

# both_stop DIR PID...: ends both_start's pair, then the load PIDs beside
# it; es and ps are eprof's and perf's sample counts.
both_stop() {
	local dir=$1

	shift
	kill -INT $e_pid $p_pid; wait $e_pid $p_pid
	kill "$@" 2>/dev/null; wait "$@" 2>/dev/null
	es=$(sed -n 's/^eprof: recorded \([0-9]*\) samples.*/\1/p' "$dir/e.err")
	ps=$(perf_samples "$dir/p.err" "$dir/p.data")
}

# --- one measurement ---------------------------------------------------------
#
# run_one SECTION REP WORKLOAD RATE TOOL: runs the workload under TOOL and
# appends: wl_wall_s, wl_cpu_s (the workload's own, from bench_load),
# cmd_wall_s (whole command, or attach + detach time for background tools),
# prof_cpu_s (the profiler process alone), bpf_s, samples, lost, dropped,
# file_bytes, stream_bytes.

run_one() {
	local sec=$1 rep=$2 wl=$3 rate=$4 tool=$5
	local args out="$WORK/run" f rc=0 st t0 t1 t2 t3 pid tpid wlw wlc total prof samples="" lost="" dropped="" fbytes="" sbytes=""
	args=$(workload_args "$wl")
	rm -rf "$out"; mkdir -p "$out"
	export BENCH_REPORT="$out/wl"
	f="$out/data"
	local T=(/usr/bin/time -f "%U %S %M" -o "$out/time")
	t0=$(now)
	case $tool in
	none)
		"${T[@]}" $LOAD $args 2>"$out/err" & ;;
	eprof)
		"${T[@]}" "$EPROF" record -F "$rate" -o "$f" -- $LOAD $args 2>"$out/err" & ;;
	perf | perf-nobpf | perf-dwarf)
		local cg="-g" extra=""
		[ $tool = perf-dwarf ] && cg="--call-graph dwarf"
		[ $tool = perf-nobpf ] && extra="--no-bpf-event"
		"${T[@]}" perf record -e cpu-clock -F "$rate" $cg $extra -o "$f" -- $LOAD $args 2>"$out/err" & ;;
	bpftrace)
		"${T[@]}" bpftrace -c "$LOAD $args" -e \
			"profile:hz:$rate /comm == \"bench_load\"/ { @s[ustack, kstack] = count(); @n = count(); }" \
			>"$out/bt.out" 2>"$out/err" & ;;
	# Background profilers, started with SIGINT at its default (a background
	# job of a script inherits it ignored).
	eprof-a) env --default-signal=INT "${T[@]}" "$EPROF" record -a -F "$rate" -o "$f" 2>"$out/err" & ;;
	perf-a) env --default-signal=INT "${T[@]}" perf record -e cpu-clock -F "$rate" -g -a -o "$f" 2>"$out/err" & ;;
	bcc) env --default-signal=INT "${T[@]}" env --default-signal=INT profile-bpfcc -F "$rate" -f \
			>"$out/bcc.out" 2>"$out/err" & ;;
	esac
	tpid=$!
	BG_PIDS+=("$tpid")
	pid=$(child_of "$tpid")
	bpf_poll_start "${pid:-$tpid}"
	case $tool in
	eprof-a | perf-a | bcc)
		# wait until it samples, run the workload, SIGINT; cmd_wall is
		# attach time + stop time
		if [ $tool = perf-a ]; then
			# perf -a: ready once it has written its header
			for _ in $(seq 100); do [ -s "$f" ] && break; sleep 0.02; done
			sleep 0.2
		else
			wait_bpf_attached "$pid" 120 || say "$tool: no BPF program attached within 120 s"
		fi
		t1=$(now)
		$LOAD $args 2>/dev/null || rc=$?
		t2=$(now)
		kill -INT "$pid" 2>/dev/null
		wait "$tpid"
		st=$?
		case $st in 0 | 130 | 143) ;; *) rc=$st ;; esac
		t3=$(now)
		;;
	*)
		wait "$tpid" || rc=$? ;;
	esac
	t_end=$(now)
	local bpfns
	bpfns=$(bpf_poll_stop)
	unset BENCH_REPORT
	[ $rc = 0 ] || say "$tool $wl $rate: exit $rc: $(tail -1 "$out/err" 2>/dev/null)"
	wlw=$(sed -n 's/.*wall_ns=\([0-9]*\).*/\1/p' "$out/wl" | head -1)
	wlc=$(sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' "$out/wl" | head -1)
	[ -n "$wlw" ] || { say "$tool $wl $rate: the workload did not report"; return; }
	wlw=$(awk -v n="$wlw" 'BEGIN { printf "%.4f", n / 1e9 }')
	wlc=$(awk -v n="$wlc" 'BEGIN { printf "%.4f", n / 1e9 }')
	total=$(cpu_s "$out/time")
	case $tool in
	eprof-a | perf-a | bcc)
		csv "$sec" "$rep" "$wl" "$rate" "$tool" cmd_wall_s "$(awk -v a="$(elapsed "$t0" "$t1")" -v b="$(elapsed "$t2" "$t3")" 'BEGIN { print a + b }')"
		prof=$total ;;
	*)
		csv "$sec" "$rep" "$wl" "$rate" "$tool" cmd_wall_s "$(elapsed "$t0" "$t_end")"
		# the profiler's rusage includes the workload it waited for
		prof=$(awk -v t="$total" -v w="$wlc" 'BEGIN { d = t - w; if (d < 0) d = 0; print d }') ;;
	esac
	csv "$sec" "$rep" "$wl" "$rate" "$tool" wl_wall_s "$wlw"
	csv "$sec" "$rep" "$wl" "$rate" "$tool" wl_cpu_s "$wlc"
	[ $tool = none ] && return
	csv "$sec" "$rep" "$wl" "$rate" "$tool" prof_cpu_s "$prof"
	csv "$sec" "$rep" "$wl" "$rate" "$tool" bpf_s "$(awk -v n="$bpfns" 'BEGIN { printf "%.6f", n / 1e9 }')"
	case $tool in
	eprof | eprof-a)
		# eprof: recorded N samples (L lost, D stacks not captured) in ...
		read -r samples lost dropped < <(sed -n 's/^eprof: recorded \([0-9]*\) samples (\([0-9]*\) lost, \([0-9]*\) stacks not captured).*/\1 \2 \3/p' "$out/err")
		fbytes=$(stat -c %s "$f" 2>/dev/null)
		sbytes=$(sqlite3 "$f" "select coalesce(sum(length(data)), 0) from sample_chunk" 2>/dev/null) ;;
	perf | perf-nobpf | perf-dwarf | perf-a)
		samples=$(perf_samples "$out/err" "$f")
		lost=$(perf report -i "$f" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' | head -1)
		dropped=n/a
		fbytes=$(stat -c %s "$f" 2>/dev/null) ;;
	bpftrace)
		samples=$(sed -n 's/^@n: \([0-9]*\)/\1/p' "$out/bt.out")
		lost=$(grep -o 'Lost [0-9]*' "$out/err" | awk '{ s += $2 } END { print s + 0 }')
		dropped=n/a ;;
	bcc)
		samples=$(awk '{ s += $NF } END { print s + 0 }' "$out/bcc.out")
		lost=n/a
		dropped=$(sed -n 's/.*WARNING: \([0-9]*\) stack traces.*/\1/p' "$out/err" | awk '{ s += $1 } END { print s + 0 }') ;;
	esac
	csv "$sec" "$rep" "$wl" "$rate" "$tool" samples "${samples:-}"
	csv "$sec" "$rep" "$wl" "$rate" "$tool" lost "${lost:-}"
	csv "$sec" "$rep" "$wl" "$rate" "$tool" dropped "${dropped:-}"
	[ -n "$fbytes" ] && csv "$sec" "$rep" "$wl" "$rate" "$tool" file_bytes "$fbytes"
	[ -n "$sbytes" ] && csv "$sec" "$rep" "$wl" "$rate" "$tool" stream_bytes "$sbytes"
	return 0
}

# --- 1. the matrix: tools interleaved run by run ------------------------------

TOOLS="none eprof perf bpftrace eprof-a perf-a"
[ $HAVE_BCC = 1 ] && TOOLS="$TOOLS bcc"
# rotate: the k-th repetition starts with the k-th tool (A B C, B C A, ...)
rotate() {
	local k=$1; shift
	local a=("$@") n=$# i
	for ((i = 0; i < n; i++)); do echo -n "${a[$(((i + k) % n))]} "; done
}

say "machine: $(uname -r), $NCPU CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
cells=$(echo $MATRIX | wc -w)
for rep in $(seq "$REPS"); do
	c=0
	for cell in $MATRIX; do
		c=$((c + 1))
		wl=${cell%%:*}; rate=${cell##*:}
		tools=$TOOLS
		# perf without its BPF-event thread, and perf with DWARF stacks (size only),
		# on the CPU-bound workload
		[ $wl = cpu ] && tools="$tools perf-nobpf"
		[ $wl = cpu ] && [ $rate = 999 ] && tools="$tools perf-dwarf"
		say "rep $rep/$REPS cell $c/$cells: $wl at $rate Hz"
		for tool in $(rotate $((rep + c)) $tools); do
			run_one matrix "$rep" "$wl" "$rate" "$tool"
		done
	done
done

# --- 2. compactness (issue 4): $COMPACT_S s at 999 Hz, CPU-bound on every CPU --

say "compactness: eprof -a and perf -a -g together, 999 Hz, $COMPACT_S s, $NCPU busy CPUs"
cdir="$WORK/compact"; mkdir -p "$cdir"
both_start 999 "$cdir"
BENCH_REPORT=/dev/null timeout $((COMPACT_S + 30)) $LOAD threads "$NCPU" 999999999 >/dev/null 2>&1 & l_pid=$!
BG_PIDS+=("$l_pid")
sleep "$COMPACT_S"
both_stop "$cdir" $l_pid
csv compact 1 threads 999 eprof-a samples "$es"
csv compact 1 threads 999 eprof-a file_bytes "$(stat -c %s "$cdir/e.eprof")"
csv compact 1 threads 999 eprof-a stream_bytes "$(sqlite3 "$cdir/e.eprof" 'select sum(length(data)) from sample_chunk')"
csv compact 1 threads 999 eprof-a stack_bytes "$(sqlite3 "$cdir/e.eprof" 'select sum(length(data)) from stack_chunk')"
csv compact 1 threads 999 perf-a samples "$ps"
csv compact 1 threads 999 perf-a file_bytes "$(stat -c %s "$cdir/p.data")"
csv compact 1 threads 999 - seconds "$COMPACT_S"
rm -f "$cdir/p.data"

# --- 3. a busy machine at 9999 Hz: report cost, coverage ---------------------

say "busy machine: eprof -a and perf -a -g together at 9999 Hz for $BIG_S s (stress-ng, a compile loop, deep stacks)"
bdir="$WORK/big"; mkdir -p "$bdir"
both_start 9999 "$bdir"
stress-ng --cpu 1 --cpu-method all --timeout $((BIG_S + 5)) >/dev/null 2>&1 & s_pid=$!
(end=$(($(date +%s) + BIG_S + 5)); while [ "$(date +%s)" -lt $end ]; do
	gcc -O2 -I"$SRC" -c "$HERE/gen_recording.c" -o "$bdir/x.o" 2>/dev/null; done) & g_pid=$!
BENCH_REPORT=/dev/null timeout $((BIG_S + 5)) $LOAD deep 80 999999999 >/dev/null 2>&1 & d_pid=$!
BG_PIDS+=("$s_pid" "$g_pid" "$d_pid")
sleep "$BIG_S"
both_stop "$bdir" $s_pid $g_pid $d_pid
csv big 1 busy 9999 eprof-a samples "$es"
csv big 1 busy 9999 perf-a samples "$ps"
csv big 1 busy 9999 eprof-a file_bytes "$(stat -c %s "$bdir/e.eprof")"
csv big 1 busy 9999 perf-a file_bytes "$(stat -c %s "$bdir/p.data")"
csv big 1 busy 9999 eprof-a lost "$(sed -n 's/^eprof: recorded [0-9]* samples (\([0-9]*\) lost.*/\1/p' "$bdir/e.err")"
csv big 1 busy 9999 perf-a lost "$(perf report -i "$bdir/p.data" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' | head -1)"

# Folded stacks with the same conventions as eprof's (user frames outermost
# first, then kernel frames suffixed _[k]); an unresolved frame is [unknown].
cat >"$WORK/collapse.awk" <<'EOF'
# perf script (default fields) -> folded stacks, one line per sample
function flush() { if (comm != "") { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ } comm = ""; n = 0 }
/^[^ \t]/ { flush(); comm = $1; next }
/^[ \t]*$/ { flush(); next }
{ sym = $2; for (i = 3; i < NF; i++) sym = sym " " $i; sub(/\+0x[0-9a-f]+$/, "", sym)
  if ($NF ~ /kernel\.kallsyms|\[kernel/) sym = sym "_[k]"; f[++n] = sym }
END { flush(); for (s in c) print s, c[s] }
EOF
# frames resolved: share of frames (weighted by samples) that are neither
# [unknown] nor FILE+0xOFF; the comm is not a frame.
coverage() {
	awk '{ n = $NF; $NF = ""; k = split($0, a, ";"); for (i = 2; i <= k; i++) { g = a[i]; sub(/ +$/, "", g)
		t += n; if (g !~ /^\[unknown\]/ && g !~ /\+0x[0-9a-f]+$/ && g != "") r += n } }
		END { printf "%.1f\n", t ? 100 * r / t : 0 }' "$1"
}

say "report cost on the real recordings ($es eprof, $ps perf samples)"
timed() { # timed KEY TOOL SAMPLES CMD...: wall and peak RSS of one command
	local key=$1 tool=$2 n=$3; shift 3
	local t0 t1
	t0=$(now)
	/usr/bin/time -f "%U %S %M" -o "$bdir/t" "$@" || say "$key $tool: exit $?"
	t1=$(now)
	csv report 1 "$key" "$n" "$tool" wall_s "$(elapsed "$t0" "$t1")"
	csv report 1 "$key" "$n" "$tool" maxrss_kb "$(maxrss_kb "$bdir/t")"
}
timed real eprof-fold "$es" sh -c "'$EPROF' report -i '$bdir/e.eprof' --fold >'$bdir/e.fold' 2>'$bdir/e.rep'"
timed real perf-script "$ps" sh -c "perf script -i '$bdir/p.data' >'$bdir/p.script' 2>/dev/null"
timed real awk-collapse "$ps" sh -c "awk -f '$WORK/collapse.awk' '$bdir/p.script' >'$bdir/p.fold'"
timed real perf-report "$ps" sh -c "perf report -i '$bdir/p.data' --stdio >/dev/null 2>&1"
csv coverage 1 busy 9999 eprof-a frames_resolved_pct "$(coverage "$bdir/e.fold")"
csv coverage 1 busy 9999 perf-a frames_resolved_pct "$(coverage "$bdir/p.fold")"
csv coverage 1 busy 9999 eprof-a eprof_says_pct "$(sed -n 's/.* \([0-9.]*\)% of frames resolved.*/\1/p' "$bdir/e.rep")"
rm -f "$bdir/p.script"

say "report growth: recordings of $GEN_SIZES samples made from the real one by bench/gen_recording"
for n in $GEN_SIZES; do
	"$WORK/gen_recording" "$bdir/e.eprof" "$bdir/g.eprof" "$n" || { say "gen_recording $n failed"; continue; }
	timed gen eprof-fold "$n" sh -c "'$EPROF' report -i '$bdir/g.eprof' --fold >/dev/null 2>&1"
	rm -f "$bdir/g.eprof"
done

# --- 4. summary ----------------------------------------------------------------

MACHINE="$(hostname) | kernel $(uname -r) | $NCPU CPUs | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') | load at end $(cut -d' ' -f1-3 /proc/loadavg)"
MODE=$([ $QUICK = 1 ] && echo "quick" || echo "full")
cp "$CSV" "$RESULTS/latest.csv"
python3 "$HERE/summarize.py" "$CSV" "$MODE" "$MACHINE" "$(perf --version) | $(bpftrace --version) | bcc $(dpkg-query -W -f '${Version}' bpfcc-tools 2>/dev/null) | eprof $("$EPROF" --version 2>&1 | head -1)" \
	>"$RESULTS/latest.md" || { echo "run.sh: summarize.py failed" >&2; exit 1; }
cat "$RESULTS/latest.md"
say "written: $RESULTS/latest.md, $RESULTS/latest.csv"
