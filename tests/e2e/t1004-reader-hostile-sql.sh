#!/bin/bash
# SPDX-License-Identifier: MIT
# t1004: recordings from elsewhere, round three (issue 24). A recording is
# an untrusted SQLite database: a view over a renamed table that never
# ends (meta, sample_chunk, stack_chunk, ksym_chunk), a trigger, an extra
# table or index, a column of another type or one added are refused at
# open, by every view, with one line, in well under the 20 s each run may
# take; so are counters out of range or whose sum would wrap, a negative
# tick period and required meta rows gone. Every symbol name 1,000,000
# bytes long is cut to 4 KiB when read: --fold, --samples, info --json and
# --html stay small. Off-CPU sums of 4,180 threads spread over an hour are
# refused with one line, not made into 1.5 billion time cells; 1 M
# interval rows go through every view. An output that is an input (by
# name or by link) is refused and the input left as it was; a failing
# view leaves no output file.
# Needs no root (sqlite3 CLI, timeout).
. "$E2E_DIR/lib.sh"
require_cmd sqlite3; require_cmd timeout

base=$TMP/base.eprof
. "$E2E_DIR/damage.sh"
make_base
views+=("report --html $TMP/o.html -i @")

damages=(
	"view-meta|ALTER TABLE meta RENAME TO m0; CREATE VIEW meta AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 'k' || n AS key, 'v' AS value FROM r"
	"view-samples|ALTER TABLE sample_chunk RENAME TO s0; CREATE VIEW sample_chunk AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id, 1 AS first_time, 2 AS last_time, 1 AS nr_samples, 1 AS encoding, x'00' AS data FROM r"
	"view-stacks|ALTER TABLE stack_chunk RENAME TO s0; CREATE VIEW stack_chunk AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id, n AS first_id, n AS last_id, 1 AS nr_stacks, 1 AS encoding, x'00' AS data FROM r"
	"view-ksyms|ALTER TABLE ksym_chunk RENAME TO k0; CREATE VIEW ksym_chunk AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id, 1 AS nr_syms, 1 AS encoding, x'00' AS data FROM r"
	"trigger|CREATE TRIGGER t AFTER INSERT ON loss BEGIN DELETE FROM meta; END"
	"extra-table|CREATE TABLE extra (x)"
	"extra-index|CREATE INDEX extra ON meta (value)"
	"column-type|ALTER TABLE loss RENAME TO l0; CREATE TABLE loss (time TEXT, cpu, lost_samples, lost_ustacks, lost_kstacks, truncated_stacks, lost_sideband); INSERT INTO loss SELECT * FROM l0; DROP TABLE l0"
	"column-added|ALTER TABLE meta ADD COLUMN extra TEXT"
	"loss-negative|UPDATE loss SET lost_samples = -1"
	"loss-max|UPDATE loss SET lost_samples = 9223372036854775807"
	"loss-wraps|INSERT INTO loss SELECT time, cpu, 1152921504606846976, 0, 0, 0, 0 FROM loss"
	"ticks-period-negative|INSERT INTO ticks (time, cpu, period_ns, enabled_ns, throttled_ns, throttles, fired, kept) VALUES (2000000000, 0, -1, 1000000000, 0, 0, 30, 30)"
	"no-start-ns|DELETE FROM meta WHERE key = 'start_ns'"
	"no-end-ns|DELETE FROM meta WHERE key = 'end_ns'"
	"no-nr-cpus|DELETE FROM meta WHERE key = 'nr_cpus'"
)

damage_all
say "$runs runs of damaged files: none crashed, hung or exited 0; each said one error line"

# names of 1,000,000 bytes: cut when read, so every output stays small
"$WORKLOADS/gen_hostile" "$TMP/long.eprof" names=1000000 || fail "gen_hostile names= failed"
[ "$(stat -c %s "$TMP/long.eprof")" -lt 1000000 ] || fail "the long-names file is not small"
for v in "report --fold -i @" "report --samples -i @" "report --top -i @" "info --json @" \
	"report --html $TMP/long.html -i @"; do
	run "$v" "$TMP/long.eprof"
	[ $rc -eq 0 ] || { cat "$TMP/err"; fail "long names: '$v' exited $rc"; }
	out=$TMP/out
	[ "${v#*--html}" != "$v" ] && out=$TMP/long.html
	size=$(stat -c %s "$out")
	[ "$size" -lt 1000000 ] || fail "long names: '$v' wrote $size bytes"
	# the page's names are in its deflated arrays
	names=$out
	[ "$out" = "$TMP/long.html" ] && { html_arrays "$out" >"$TMP/long.names"; names=$TMP/long.names; }
	[ "${v#info}" != "$v" ] || grep -aq 'NNNN\.\.\.\[cut\]' "$names" ||
		fail "long names: '$v' shows no cut name"
	say "long names: '$v' wrote $size bytes"
done

# off-CPU rows: the span made an hour, 4,180 threads' sums spread over it
off=$TMP/off.eprof
cp "$base" "$off"
sqlite3 "$off" "INSERT INTO meta VALUES ('off_cpu_thresh_ns', '1000000')" || fail "off meta"
cp "$off" "$TMP/hour.eprof"
sqlite3 "$TMP/hour.eprof" "UPDATE meta SET value = '3700000000000' WHERE key = 'end_ns';
	WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4180)
	INSERT INTO offcpu_sum (time, tgid, tid, state, cpu, stack_id, count, total_ns)
	SELECT 3600000000000, 100, 1000 + n, 0, 0, 1, 1, 3500000000000 FROM r" || fail "sums"
for v in "report --wall --html $TMP/h.html -i @" "report --off-cpu --timeline 0.01 -i @"; do
	rm -f "$TMP/h.html"
	run "$v" "$TMP/hour.eprof"
	check "hour of sums" "$v" "time cells"
	[ -e "$TMP/h.html" ] && fail "hour of sums: '$v' left its output"
done
run "report --off-cpu --fold -i @" "$TMP/hour.eprof"
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "hour of sums: --off-cpu --fold exited $rc"; }
say "hour of sums: the timed views refuse in one line, --fold sums them"

# 1 M interval rows of one thread, every view through (linear work)
sqlite3 "$off" "WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r WHERE n < 999999)
	INSERT INTO offcpu (time, duration, tgid, tid, cpu, state, stack_id)
	SELECT 1000000000 + n * 2000, 1000, 100, 100, n % 2, n % 2, 1 + n % 4 FROM r" ||
	fail "intervals"
for v in "info @" "report --off-cpu --fold -i @" "report --wall --top -i @" \
	"report --wall --html $TMP/m.html -i @" "report --off-cpu --timeline 0.1 -i @"; do
	run "$v" "$off"
	[ $rc -eq 0 ] || { cat "$TMP/err"; fail "1 M intervals: '$v' exited $rc"; }
done
say "1 M interval rows: info, --off-cpu, --wall --top, --html and --timeline finished"

# outputs that name an input are refused; the input stays as it was
cp "$base" "$TMP/in.eprof"
ln "$TMP/in.eprof" "$TMP/hard.eprof"
ln -s in.eprof "$TMP/soft.eprof"
sum0=$(cksum <"$TMP/in.eprof")
for v in "report -i @ --pprof @" "report -i @ --svg @" "report -i @ --fold -o @" \
	"report -i @ --html @" "report -i @ --svg $TMP/hard.eprof" "report -i @ --fold -o $TMP/soft.eprof" \
	"report --diff $base @ --fold -o @"; do
	run "$v" "$TMP/in.eprof"
	check "output is input" "$v" "this report reads"
	[ "$(cksum <"$TMP/in.eprof")" = "$sum0" ] || fail "'$v' changed the recording"
done
say "outputs naming an input: refused, the recording unchanged"
exit 0
