#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/run-short.sh [SECONDS] - a bounded fuzz run for CI: builds the
# libFuzzer targets with clang in their own build directory, then runs each
# for SECONDS (default 60) from the seed corpus (written at build time) and
# the committed fixtures, and exits non-zero when one finds a crash, a leak,
# undefined behaviour, a timeout or a broken contract. The last libFuzzer
# status line of each target (cov:, ft:, corp:) is printed.
#
# Environment:
#   EPROF_FUZZ_BUILD   build directory (default: build-fuzz at the top of
#                      the tree); configured with clang if it has no cache
#   EPROF_FUZZ_CORPUS  where the growing corpora live (default: BUILD/corpus)
#   EPROF_FUZZ_JOBS    parallel workers per target (default 1)
#   EPROF_FUZZ_TARGETS which targets, in order (default: reader tables report codec cfi)
set -u

seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${EPROF_FUZZ_BUILD:-$top/build-fuzz}
corpus=${EPROF_FUZZ_CORPUS:-$build/corpus}
jobs=${EPROF_FUZZ_JOBS:-1}
targets=${EPROF_FUZZ_TARGETS:-reader tables report codec cfi}
fixtures=$top/tests/fixtures

die() { echo "run-short.sh: $*" >&2; exit 2; }

command -v clang >/dev/null || die "clang is not installed (libFuzzer comes with it)"
if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$top" -B "$build" -DCMAKE_C_COMPILER=clang -DEPROF_FUZZ=ON \
		-DEPROF_SANITIZE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
		die "cannot configure $build"
fi
cmake --build "$build" --target fuzz_reader fuzz_tables fuzz_codec fuzz_report fuzz_cfi fuzz_seeds -j2 >/dev/null ||
	die "cannot build the fuzz targets in $build (cmake --build $build --target fuzz_reader)"

seeds=$build/tests/fuzz/seeds
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts" || die "cannot create $artifacts"
status=0
for target in $targets; do
	bin=$build/tests/fuzz/fuzz_$target
	# fuzz_report reads the same inputs as fuzz_reader
	input=$target
	[ "$target" = report ] && input=reader
	mkdir -p "$corpus/$target" || die "cannot create $corpus/$target"
	dirs=("$corpus/$target" "$seeds/$input")
	[ -d "$fixtures/fuzz-seeds/$input" ] && dirs+=("$fixtures/fuzz-seeds/$input")
	opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
	      -artifact_prefix="$artifacts/$target-" -print_final_stats=1)
	[ "$input" = reader ] && opts+=(-max_len=65536 -dict="$here/recording.dict")
	[ "$target" = tables ] && opts+=(-max_len=16384)
	[ "$target" = codec ] && opts+=(-max_len=8192)
	[ "$target" = cfi ] && opts+=(-max_len=65536)
	[ "$jobs" -gt 1 ] && opts+=(-jobs="$jobs" -workers="$jobs")
	log=$build/fuzz-$target.log
	echo "== fuzz_$target: ${seconds}s, corpus $corpus/$target"
	# corpus dirs: the first one receives new inputs, the others are read
	"$bin" "${opts[@]}" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	grep -aE '^#[0-9]+[[:space:]]+(INITED|DONE|pulse|NEW|REDUCE)' "$log" | tail -1
	grep -aE '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
	echo "corpus: $(find "$corpus/$target" -type f | wc -l) files," \
	     "$(du -sk "$corpus/$target" | cut -f1) KiB"
	if [ $rc -ne 0 ]; then
		echo "fuzz_$target FAILED (exit $rc); the input is in $artifacts/$target-*:"
		grep -aE -A30 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|contract violation|SUMMARY' "$log" | head -60
		echo "(full log: $log)"
		status=1
	fi
done
exit $status
