# SPDX-License-Identifier: MIT
# tests/e2e/lib.sh - sourced by every tNNNN-*.sh end-to-end test.
# Environment from ctest: EPROF (the binary), WORKLOADS (built workloads).
# A test that the host cannot run exits 77 (ctest shows it as skipped).
# No root or no kernel BTF means no e2e test can run at all: that fails
# (exit 1) unless EPROF_ALLOW_SKIP=1 says a skipped suite is acceptable, so
# CI on a host without BPF cannot pass green without testing anything.

set -u
: "${EPROF:?EPROF must name the eprof binary}"
: "${WORKLOADS:?WORKLOADS must name the workloads directory}"

TMP=$(mktemp -d /tmp/eprof-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

say() { printf '# %s\n' "$*"; }
# a test that defines on_fail() gets it called first (what to show when it fails)
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	if declare -F on_fail >/dev/null; then on_fail >&2 || true; fi
	exit 1
}
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }

cannot_run() {
	[ "${EPROF_ALLOW_SKIP:-0}" = 1 ] && skip "$*"
	fail "$* (this host cannot run the e2e tests; EPROF_ALLOW_SKIP=1 skips them)"
}
require_root() { [ "$(id -u)" = 0 ] || cannot_run "needs root"; }
require_btf() { [ -r /sys/kernel/btf/vmlinux ] || cannot_run "kernel has no BTF"; }
require_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }

# samples FOLD PATTERN: sum of counts of folded lines whose stack matches the ERE.
samples() {
	awk -v pat="$2" '{ n = $NF; $NF = ""; if ($0 ~ pat) s += n } END { print s + 0 }' "$1"
}

# share_pct PART TOTAL: PART/TOTAL in percent, one decimal.
share_pct() { awk -v p="$1" -v t="$2" 'BEGIN { if (t == 0) print "0.0"; else printf "%.1f\n", 100 * p / t }'; }

# check_share NAME MEASURED_PCT EXPECTED_PCT TOLERANCE
check_share() {
	awk -v m="$2" -v e="$3" -v t="$4" 'BEGIN { d = m - e; if (d < 0) d = -d; exit !(d <= t) }' ||
		fail "$1: share $2% is not within $4 points of $3%"
	say "$1: $2% (expected $3% +- $4)"
}

# one_line_error FILE: stderr holds exactly one line and it starts with "eprof: error:".
one_line_error() {
	[ "$(wc -l <"$1")" -eq 1 ] || { cat "$1" >&2; fail "expected one line on stderr, got $(wc -l <"$1")"; }
	grep -q '^eprof: error: ' "$1" || { cat "$1" >&2; fail "stderr does not start with 'eprof: error:'"; }
}

# entry_counts FOLD COMM: "complete total" over the folded stacks of threads
# named COMM: complete ones have a user frame that is a program's or a
# thread's entry (_start, __libc_start_main, __libc_start_call_main,
# start_thread, clone3; ld.so's _dl_start_user, below the constructors it
# runs before main). Stacks of a process tearing down its memory (do_exit
# in the kernel part) or in the middle of its exec (bprm_execve: the old
# image is gone, the new one has not run) have no user stack to walk:
# left out. EXTRA (optional): an ERE of more entry names (a stripped
# program's ELF entry point needs none: elf/ names it _start).
entry_counts() {
	awk -v comm="$2" -v extra="${3:-^$}" '
	{
		n = $NF; $NF = ""; sub(/ +$/, "")
		nf = split($0, f, ";")
		if (f[1] != comm || $0 ~ /(^|;)(do_(group_)?exit|bprm_execve)_\[k\]/) next
		tot += n
		for (i = 2; i <= nf; i++) {
			if (f[i] ~ /_\[k\]$/) continue
			if (f[i] ~ /^(_start|_dl_start_user|__libc_start_main.*|__libc_start_call_main|start_thread|clone3?|__clone.*)$/ ||
			    f[i] ~ extra) {
				ok += n
				break
			}
		}
	}
	END { printf "%d %d\n", ok, tot }' "$1"
}

# check_complete WHAT FOLD COMM MIN_PCT [EXTRA]: at least MIN_PCT% of COMM's
# stacks are complete (EXTRA: as in entry_counts).
check_complete() {
	set -- "$1" "$2" "$3" "$4" $(entry_counts "$2" "$3" "${5:-}")
	[ "$6" -gt 0 ] || fail "$1: no samples of '$3'"
	awk -v ok="$5" -v t="$6" -v m="$4" 'BEGIN { exit !(100 * ok >= m * t) }' || {
		awk -v c="$3" '$1 ~ "^" c ";"' "$2" | sort -t' ' -k2 -rn | head -20 >&2
		fail "$1: only $5 of $6 stacks ($(share_pct "$5" "$6")%) reach the entry (want >= $4%)"
	}
	say "$1: $5 of $6 stacks ($(share_pct "$5" "$6")%) reach the entry"
}

# start_python_loop SECONDS: a pure-Python loop in the background (Debian's
# python3); sets PY_PID. The caller kills it.
start_python_loop() {
	/usr/bin/python3 -c "import time
end = time.time() + $1
while time.time() < end:
    sum(i * i for i in range(10000))" &
	PY_PID=$!
	sleep 0.3
}

# check_at_least WHAT PART TOTAL MIN_PCT: PART is at least MIN_PCT% of TOTAL (> 0).
check_at_least() {
	[ "$3" -gt 0 ] || fail "$1: nothing to count"
	awk -v p="$2" -v t="$3" -v m="$4" 'BEGIN { exit !(100 * p >= m * t) }' ||
		fail "$1: only $2 of $3 ($(share_pct "$2" "$3")%, want >= $4%)"
	say "$1: $2 of $3 ($(share_pct "$2" "$3")%)"
}

# as_nobody CMD...: runs CMD as the unprivileged user nobody (the hostile
# local user of the t08NN tests), in $TMP made reachable for it.
require_nobody() {
	command -v setpriv >/dev/null 2>&1 || skip "needs setpriv (util-linux)"
	id nobody >/dev/null 2>&1 || skip "needs the user nobody"
	chmod 755 "$TMP"
}
as_nobody() {
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"
}

# peak_rss_kib PID: polls the VmHWM of process PID until it ends; prints
# the highest seen (KiB), 0 when none was read.
peak_rss_kib() {
	local hwm=0 h
	while [ -r "/proc/$1/status" ]; do
		h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
		sleep 0.1
	done
	echo "$hwm"
}

# check_under_ceiling LIMIT_MIB CEILING PEAK HWM_KIB: info states the
# ceiling --mem-limit LIMIT_MIB gave (CEILING, bytes), and the recorder's
# peak, as the recording states it (PEAK, bytes) and as /proc saw it while
# it ran (HWM_KIB, peak_rss_kib), is under it.
check_under_ceiling() {
	[ "$2" = $(($1 << 20)) ] || fail "info states the ceiling '$2'"
	[ -n "$3" ] && [ "$3" -le "$2" ] ||
		fail "the recording states a peak of '$3' bytes, over its ceiling $2"
	[ "$4" -gt 0 ] && [ $(($4 << 10)) -le "$2" ] ||
		fail "the recorder peaked at $(($4 >> 10)) MiB (/proc), over its ceiling of $1 MiB"
}

# committed_samples FILE: samples a recording in progress has committed so
# far (what `eprof info` counts), 0 while the file cannot be read yet.
committed_samples() {
	"$EPROF" info "$1" 2>/dev/null | awk '/^samples / { n = $2 } END { print n + 0 }'
}

# wait_started PID ERRFILE: waits (up to 60 s) until `record -v` (pid PID,
# its stderr in ERRFILE) says "recording": sampling is attached. Fails,
# with its stderr, when it ends before.
wait_started() {
	local i
	for i in $(seq 600); do
		grep -q '^eprof: recording ' "$2" && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^eprof: recording ' "$2" || { wait "$1"; cat "$2"; fail "record did not start"; }
}

# wait_committed FILE MIN: waits (up to 120 s) until a recording in progress
# has committed at least MIN samples, so a test that stops or kills the
# recorder judges a fixed amount of data, not what a busy machine managed
# in a fixed time. Prints the count it saw; fails on timeout.
wait_committed() {
	local n=0 i
	for i in $(seq 600); do
		n=$(committed_samples "$1")
		[ "$n" -ge "$2" ] && { echo "$n"; return 0; }
		sleep 0.2
	done
	fail "'$1' has only $n samples committed after 120 s (waited for $2)"
}

# html_arrays PAGE: the inflated bytes of a report --html page's arrays
# (the "eprof-arrays" elements: pieces of one zlib stream, each in base64),
# NULs as newlines: the frame names, one a line, among the other arrays' bytes.
html_arrays() {
	python3 -c 'import base64, re, sys, zlib
page = open(sys.argv[1], encoding="utf-8", errors="replace").read()
m = re.findall(r"<script class=\"eprof-arrays\"[^>]*>([^<]*)</script>", page)
sys.stdout.buffer.write(zlib.decompress(b"".join(base64.b64decode(p) for p in m)).replace(b"\0", b"\n") if m else b"")' "$1"
}

# mappers_setup: $TMP/one (a copy of /bin/true) and $TMP/w, where mapmany
# processes run as nobody write their pids; they and the pids in the array
# pids are killed at exit.
mappers_setup() {
	cp /bin/true "$TMP/one"
	mkdir -p "$TMP/w"
	chmod -R a+rX "$TMP"; chmod 777 "$TMP/w"
	pids=()
	trap 'kill $(cat "$TMP"/w/ready* 2>/dev/null) "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
}

# require_py_split: PY, Debian's python3.11 (the interpreter the Python
# tests know), and APP, tests/workloads/py_split.py (60/30/10)
require_py_split() {
	PY=/usr/bin/python3.11
	[ -x "$PY" ] || skip "needs Debian's $PY"
	APP="$E2E_DIR/../workloads/py_split.py"
}
