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
