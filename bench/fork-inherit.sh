#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/fork-inherit.sh SRC BUILD [SRC2 BUILD2]: bench/fork_inherit.c built
# against each source tree and its build (before and after a change), at
# 1,000 and 10,000 kept mappings, tail and sorted, 2,000 forks each.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/eprof-forkinh.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
run() {
	local src=$1 build=$2 bin=$WORK/fi.$RANDOM
	gcc -O2 -g -I"$src" -I"$src/bpf" -I"$build" -o "$bin" "$HERE/fork_inherit.c" \
		"$build/record/libeprof_record.a" "$build/elf/libeprof_elf.a" \
		"$build/format/libeprof_format.a" "$build/util/libeprof_util.a" \
		$(pkg-config --libs libbpf libelf libdw) -lsqlite3 -lzstd -llzma -lpthread
	echo "== $src ($(git -C "$src" log --oneline -1 | cut -c1-60))"
	for n in 1000 10000; do
		for mode in tail sorted; do
			"$bin" "$n" 2000 "$mode"
		done
	done
}
run "$1" "$2"
[ $# -ge 4 ] && run "$3" "$4"
exit 0
