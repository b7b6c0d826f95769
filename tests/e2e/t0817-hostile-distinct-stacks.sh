#!/bin/bash
# SPDX-License-Identifier: MIT
# t0817: the stack table stays within the memory ceiling however many
# distinct stacks a program makes. random_paths descends 120 calls deep
# along a random path for each sample: about 50,000 stacks of 1 KB, never
# twice the same, more than a 128 MiB ceiling leaves once the recorder is
# set up (its ring buffers for 4999 Hz: about 77 MiB; before the stack
# table was charged to the budget it peaked at 140-240 MiB). Under
# `record -F 4999 --mem-limit 128M` the recorder's peak
# resident set (from /proc while it runs, and as the recording states it)
# stays under the ceiling; the table is forgotten when its share is full,
# and info and the summary line count that; every sample is in the
# report, most of them 100 calls deep or more.
. "$E2E_DIR/lib.sh"
require_root; require_btf

LIMIT_MIB=128
"$EPROF" record -F 4999 --mem-limit ${LIMIT_MIB}M -o "$TMP/r.eprof" -- \
	"$WORKLOADS/random_paths" 5000 120 2 2>"$TMP/rec.err" &
rpid=$!
hwm=$(peak_rss_kib "$rpid")
wait "$rpid" || { cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"

"$EPROF" info "$TMP/r.eprof" >"$TMP/info" || fail "info failed"
field() { awk -v k="$1" 'index($0, k) == 1 { print $NF }' "$TMP/info"; }
ceiling=$(field "memory ceiling (bytes)")
peak=$(field "peak memory (bytes)")
forgets=$(field "stack table forgotten")
forgotten=$(field "stacks forgotten")
refused=$(field "stacks refused")
recorded=$(field "samples ")
say "peak $((hwm >> 10)) MiB (/proc), $((peak >> 20)) MiB (recording), ceiling $LIMIT_MIB MiB;" \
	"$recorded samples; table forgotten $forgets times ($forgotten stacks); $refused refused"
check_under_ceiling "$LIMIT_MIB" "$ceiling" "$peak" "$hwm"
# about 5000 x 2 x 4.999 samples; throttled ticks may take some
[ "${recorded:-0}" -ge 20000 ] || fail "only '$recorded' samples"
# what the budget did is stated, with counts, in info and in the summary line
[ "${forgets:-0}" -ge 2 ] || fail "info says the stack table was forgotten '$forgets' times"
[ "${forgotten:-0}" -ge 5000 ] || fail "info says '$forgotten' stacks were forgotten"
grep -q "memory budget: stack table forgotten $forgets times ($forgotten stacks" "$TMP/rec.err" ||
	fail "the summary line does not state the forgotten stacks"
# no sample lost or left without its stack in the file; the stacks forgotten
# were stored again: the report names their paths
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
total=$(samples "$TMP/fold" .)
[ "$total" = "$recorded" ] || fail "the report has $total samples of $recorded"
frameless=$(awk '$1 !~ /;/ { n += $NF } END { print n + 0 }' "$TMP/fold")
[ "$frameless" -le "${refused:-0}" ] ||
	fail "$frameless samples without frames, $refused stacks refused"
# (mawk has no ERE intervals: the levels are counted)
deep=$(awk '{ n = $NF; if (gsub(/;path_[0-7]/, "&") >= 100) d += n } END { print d + 0 }' "$TMP/fold")
check_at_least "samples 100 calls deep in path_*" "$deep" "$total" 80
exit 0
