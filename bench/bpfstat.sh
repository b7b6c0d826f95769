# SPDX-License-Identifier: MIT
# bench/bpfstat.sh: sourced by bench/unwind.sh and bench/python.sh. The run
# time of one recorder's sampler program, with kernel.bpf_stats_enabled=1.

# prog_stat ID: "run_time_ns run_cnt samples" of a sampler program now
# (samples: its stats map's EV_STAT_SAMPLES, summed over CPUs).
prog_stat() {
	local t c m x s=0
	read -r t c < <(bpftool prog show id "$1" | head -1 | awk '{ for (i = 1; i < NF; i++) {
		if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) } } END { print t + 0, c + 0 }')
	m=$(bpftool prog show id "$1" | grep -o 'map_ids.*' | tr ',' ' ')
	for x in ${m#map_ids }; do
		bpftool map show id "$x" | grep -q 'name stats ' &&
			s=$(bpftool -j map lookup id "$x" key 0 0 0 0 | python3 -c 'import json, sys
print(sum(v["value"] for v in json.load(sys.stdin)["formatted"]["values"]))')
	done
	echo "$t $c $s"
}

# prog_id ERRFILE: the sampler program id a `record -v -v` printed (the last: a load may be retried).
prog_id() { sed -n 's/.*sampler program id \([0-9]*\).*/\1/p' "$1" | tail -1; }

# sampler_cost ERRFILE IDLE_ERRFILE SETTLE: "ns samples runs tick_ns" of the
# target recorder's sampler, over 3 s once both recorders (`record -v -v`,
# their stderr in the two files) have loaded it (slow on a busy machine)
# and SETTLE s more have passed, for a steady state. Ticks of other tasks
# also run the program and return at the target filter: the idle
# recorder, of a sleeping process, measures what such a tick costs in the
# same seconds (tick_ns), and ns, per target sample, has that taken off.
# "0 0 0 0" when the target had no sample.
sampler_cost() {
	local id iid a b ia ib
	for _ in $(seq 40); do
		[ -n "$(prog_id "$1")" ] && [ -n "$(prog_id "$2")" ] && break
		sleep 0.5
	done
	sleep "$3"
	id=$(prog_id "$1")
	iid=$(prog_id "$2")
	a=$(prog_stat "${id:-0}"); ia=$(prog_stat "${iid:-0}")
	sleep 3
	b=$(prog_stat "${id:-0}"); ib=$(prog_stat "${iid:-0}")
	echo "$a $b $ia $ib" | awk '{ t = $4 - $1; c = $5 - $2; s = $6 - $3; it = $10 - $7; ic = $11 - $8
		f = ic > 0 ? it / ic : 0
		if (s > 0) printf "%.0f %d %d %.0f\n", (t - (c - s) * f) / s, s, c, f; else print "0 0 0 0" }'
}
