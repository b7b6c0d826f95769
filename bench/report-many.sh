#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/report-many.sh BUILD FILE...: does `report` over many recordings stay
# within the memory one needs (issue 14)? For --top, --fold, --svg, --pprof
# and --html: the peak RSS (/usr/bin/time) of the report of each file alone,
# the largest of them, and of the report of all the files at once (several
# -i), with its wall time. With BASE=OTHER_BUILD, the same for that build.
# The files of bench/long.sh (WORK/l.eprof*) are the case it was made for.
set -u
BUILD=${1:?usage: bench/report-many.sh BUILD FILE...}
shift
[ $# -gt 0 ] || { echo "report-many.sh: name the recordings" >&2; exit 1; }
files=("$@")
args=()
for f in "${files[@]}"; do args+=(-i "$f"); done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# peak RSS in KB and wall seconds of one report
peak() {
	/usr/bin/time -o "$out/t" -f "%M %e" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; echo "0 0"; return; }
	cat "$out/t"
}

table() {
	local e=$1 v
	echo "$e: ${#files[@]} files"
	echo "| view | largest one file | all ${#files[@]} files | ratio |"
	echo "|---|---|---|---|"
	for v in top fold svg pprof html; do
		local o=() max=0 maxf="" m s f
		case $v in
		top|fold) o=(--$v -o "$out/o") ;;
		*) o=(--$v "$out/o") ;;
		esac
		for f in "${files[@]}"; do
			read -r m s < <(peak "$e" report -i "$f" "${o[@]}")
			if [ "$m" -gt "$max" ]; then max=$m; maxf=$(basename "$f"); fi
		done
		read -r m s < <(peak "$e" report "${args[@]}" "${o[@]}")
		awk -v v="--$v" -v one="$max" -v f="$maxf" -v all="$m" -v s="$s" 'BEGIN {
			printf "| %s | %.0f MB (%s) | %.0f MB, %s s | %.2f |\n", v, one / 1024, f,
				all / 1024, s, one ? all / one : 0 }'
	done
}

table "$BUILD/eprof"
[ -n "${BASE:-}" ] && table "$BASE/eprof"
exit 0
