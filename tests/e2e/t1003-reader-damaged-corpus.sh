#!/bin/bash
# SPDX-License-Identifier: MIT
# t1003: a small valid recording (gen_hostile) damaged in many ways (a copied
# sample_chunk row, CPU 1024 of 2, a far-future sample, negative counts,
# swapped BLOBs, metadata that contradicts the samples, truncation...) and
# every view run on each: never a crash (exit >= 128), never a hang
# (timeout), never exit 0, one "eprof: error:" line that names the file.
# Issue 9: 672 of 21,901 such runs used to print the error and exit 0.
# Issue 24's damages are in t1004.
# Needs no root (sqlite3 CLI, timeout).
. "$E2E_DIR/lib.sh"
require_cmd sqlite3; require_cmd timeout

base=$TMP/base.eprof
. "$E2E_DIR/damage.sh"
make_base

# a copy, so that "-i $base -i @" names two files (the same one twice is refused)
cp "$base" "$TMP/copy.eprof"
for v in "${views[@]}"; do
	run "$v" "$TMP/copy.eprof"
	[ $rc -eq 0 ] || { cat "$TMP/err"; fail "the undamaged recording: '$v' exited $rc"; }
done
say "the undamaged recording passes all ${#views[@]} views"

damages=(
	"dup-sample-chunk|INSERT INTO sample_chunk (first_time, last_time, nr_samples, encoding, data) SELECT first_time, last_time, nr_samples, encoding, data FROM sample_chunk WHERE id = 2"
	"chunks-out-of-order|UPDATE sample_chunk SET id = 10 WHERE id = 1"
	"dup-stack-chunk|INSERT INTO stack_chunk (first_id, last_id, nr_stacks, encoding, data) SELECT first_id, last_id, nr_stacks, encoding, data FROM stack_chunk"
	"no-stacks|DELETE FROM stack_chunk"
	"one-cpu|UPDATE meta SET value = '1' WHERE key = 'nr_cpus'"
	"cpus-text|UPDATE meta SET value = 'two' WHERE key = 'nr_cpus'"
	"cpus-zero|UPDATE meta SET value = '0' WHERE key = 'nr_cpus'"
	"cpus-huge|UPDATE meta SET value = '4294967296' WHERE key = 'nr_cpus'"
	"end-early|UPDATE meta SET value = '1500000000' WHERE key = 'end_ns'"
	"start-late|UPDATE meta SET value = '1500000000' WHERE key = 'start_ns'"
	"end-before-start|UPDATE meta SET value = '999' WHERE key = 'end_ns'"
	"start-negative|UPDATE meta SET value = '-1' WHERE key = 'start_ns'"
	"start-overflow|UPDATE meta SET value = '18446744073709551616' WHERE key = 'start_ns'"
	"finished-2|UPDATE meta SET value = '2' WHERE key = 'finished'"
	"numa-garbage|UPDATE meta SET value = '0:0,x' WHERE key = 'numa_map'"
	"numa-more-cpus|UPDATE meta SET value = '0:0,1:0,7:1' WHERE key = 'numa_map'"
	"hostname-blob|UPDATE meta SET value = zeroblob(4) WHERE key = 'hostname'"
	"neg-nr-samples|UPDATE sample_chunk SET nr_samples = -1 WHERE id = 1"
	"huge-nr-samples|UPDATE sample_chunk SET nr_samples = 1000000000000 WHERE id = 1"
	"neg-nr-stacks|UPDATE stack_chunk SET nr_stacks = -1"
	"neg-nr-syms|UPDATE ksym_chunk SET nr_syms = -3"
	"neg-first-time|UPDATE sample_chunk SET first_time = -1 WHERE id = 1"
	"map-empty|INSERT INTO mapping (time, tgid, start_addr, end_addr, pgoff, path, build_id) VALUES (0, 100, 4096, 8192, 0, '/bin/v1', NULL); UPDATE mapping SET end_addr = start_addr"
	"map-negative|INSERT INTO mapping (time, tgid, start_addr, end_addr, pgoff, path, build_id) VALUES (0, 100, 4096, 8192, 0, '/bin/v1', NULL); UPDATE mapping SET end_addr = start_addr - 4096"
	"map-huge|INSERT INTO mapping (time, tgid, start_addr, end_addr, pgoff, path, build_id) VALUES (0, 100, 4096, 8192, 0, '/bin/v1', NULL); UPDATE mapping SET end_addr = start_addr + (1 << 60)"
	"map-pid|INSERT INTO mapping (time, tgid, start_addr, end_addr, pgoff, path, build_id) VALUES (0, 100, 4096, 8192, 0, '/bin/v1', NULL); UPDATE mapping SET tgid = 99999999"
	"mapfile-none|DELETE FROM mapped_file"
	"mapfile-path-blob|UPDATE mapped_file SET path = zeroblob(4)"
	"mapfile-long-id|UPDATE mapped_file SET build_id = zeroblob(21)"
	"mapchunk-count|UPDATE mapping_chunk SET nr_mappings = nr_mappings + 1"
	"mapchunk-blob-from-samples|UPDATE mapping_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 1)"
	"no-mapped-file-table|DROP TABLE mapped_file"
	"comm-tid|INSERT INTO comm (time, tgid, tid, comm) VALUES (0, 100, 100, 'v1'); UPDATE comm SET tid = -1"
	"commchunk-count|UPDATE comm_chunk SET nr_comms = nr_comms + 1"
	"commchunk-blob-from-samples|UPDATE comm_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 1)"
	"stacks-mapchunk-gone|UPDATE mapping_chunk SET id = id + 100"
	"loss-cpu|UPDATE loss SET cpu = 7"
	"swap-sample-blobs|UPDATE sample_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 2) WHERE id = 1"
	"sample-blob-from-stacks|UPDATE sample_chunk SET data = (SELECT data FROM stack_chunk) WHERE id = 1"
	"stack-blob-from-samples|UPDATE stack_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 1)"
	"binary-blob-from-ksyms|UPDATE binary_chunk SET data = (SELECT data FROM ksym_chunk)"
	"ksym-blob-from-binary|UPDATE ksym_chunk SET data = (SELECT data FROM binary_chunk)"
	"binchunk-no-file|UPDATE binary_chunk SET file = file + 1000"
	"binchunk-file-text|UPDATE binary_chunk SET file = 'x'"
	"bad-debuginfo|INSERT INTO debuginfo (build_id, path, encoding, size, data) SELECT build_id, path, 1, 100, x'28b52ffd0000' FROM mapped_file"
	"no-mapping-table|DROP TABLE mapping"
	"version-99|PRAGMA user_version = 99"
	"not-eprof|PRAGMA application_id = 0"
)

damage_all

# damages the format cannot express in SQL, and truncated files
"$WORKLOADS/gen_hostile" "$TMP/late.eprof" late=1e8 || fail "gen_hostile failed"
"$WORKLOADS/gen_hostile" "$TMP/cpu1024.eprof" cpu=1024 || fail "gen_hostile failed"
size=$(stat -c %s "$base")
for cut in 100 1024 4096 $((size / 2)) $((size - 1024)); do
	head -c "$cut" "$base" >"$TMP/cut$cut.eprof"
done
for f in late cpu1024 cut100 cut1024 cut4096 "cut$((size / 2))" "cut$((size - 1024))"; do
	every_view "$f" "$TMP/$f.eprof"
done
say "$runs runs of damaged files: none crashed, hung or exited 0; each said one error line"
exit 0
