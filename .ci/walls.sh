#!/bin/bash
# SPDX-License-Identifier: MIT
# .ci/walls.sh FOLDER=OBJECTS... FOLDER+I=DIR:DIR... : fails on any
# include or symbol that crosses a wall of the layout the wrong way
# (README.md, "Layout").
#
#   includes  FOLDER's include path in the build (DIR:DIR..., its library's)
#             reaches the headers of every folder FOLDER may use and of no
#             other: the compiler ($CC, else cc) refuses a forbidden
#             include, and this checks that it does;
#   symbols   every undefined symbol of FOLDER's library (nm) that another
#             eprof library defines comes from a folder FOLDER may use; and
#             the system libraries behind a wall are called only from
#             their side: SQLite and zstd from format/, libbpf from record/,
#             libelf, libdw and libdwfl from elf/.
#
# OBJECTS is a static library or object files, DIR:DIR... an include path
# (ctest passes each folder's library, cli/'s object, and their include
# paths, from tests/CMakeLists.txt).
set -uo pipefail

# Who may use whom (besides itself). bpf/ is headers only in user space:
# the BPF object's skeleton is compiled into record/; elf/cfi.h includes
# bpf/unwind.h on purpose (the unwind table's layout is the BPF program's).
declare -A allowed=(
	[util]=""
	[schema]=""
	[format]="util schema"
	[elf]="util format bpf"
	[bpf]=""
	[record]="util format elf bpf"
	[report]="util format elf"
	[cli]="util record report"
)
# System libraries behind a wall, a line each: its name, the one folder
# that may call it, the nm pattern of its symbols.
sys_libs="sqlite format ^sqlite3_
zstd format ^ZSTD_
libbpf record ^(bpf_(object|program|map|link|prog|obj|btf|tc|xdp|enable_stats|iter)|libbpf_|ring_buffer__|perf_buffer__|user_ring_buffer__|btf__)
libdw elf ^(dwarf_|dwfl_|dwelf_)
libelf elf ^(elf_|elf32_|elf64_|gelf_)"

[ $# -gt 0 ] || { echo "usage: walls.sh FOLDER=OBJECTS... FOLDER+I=DIR:DIR..." >&2; exit 2; }
bad=0
cross() { printf 'walls: %s\n' "$*" >&2; bad=$((bad + 1)); }
may_use() { # FOLDER OTHER
	[ "$1" = "$2" ] && return 0
	case " ${allowed[$1]} " in *" $2 "*) return 0 ;; esac
	return 1
}

# Includes: the build gives each folder's library the include path of the
# folders it may use and of no other (the root CMakeLists.txt's
# eprof_view); one header of each folder, preprocessed with that path,
# shows it does.
declare -A probe=(
	[util]="util/log.h" [format]="format/recording.h" [elf]="elf/elf_file.h"
	[bpf]="bpf/events.h events.h" [record]="record/record.h" [report]="report/report.h"
)
includes() { # DIR:DIR... HEADER...: whether some HEADER preprocesses with that path
	local -a flags=()
	local d h
	IFS=: read -ra dirs <<<"$1"
	shift
	for d in "${dirs[@]}"; do flags+=(-I "$d"); done
	for h in "$@"; do
		printf '#include "%s"\n' "$h" |
			(cd "$empty" && ${CC:-cc} -E -o /dev/null -x c - "${flags[@]}" 2>/dev/null) &&
			return 0
	done
	return 1
}
empty=$(mktemp -d)
trap 'rmdir "$empty"' EXIT
for arg in "$@"; do
	[[ $arg == *+I=* ]] || continue
	folder=${arg%%+I=*}
	for to in "${!probe[@]}"; do
		# shellcheck disable=SC2086
		if includes "${arg#*+I=}" ${probe[$to]}; then
			may_use "$folder" "$to" ||
				cross "$folder/ can include ${probe[$to]%% *}: $folder/ may not use $to/"
		elif may_use "$folder" "$to"; then
			cross "$folder/ cannot include ${probe[$to]%% *} (its include path lacks $to/)"
		fi
	done
done

# Symbols: who defines what.
declare -A objs=()
declare -A owner=()
for arg in "$@"; do
	[[ $arg == *+I=* ]] && continue
	folder=${arg%%=*}
	objs[$folder]="${objs[$folder]:-} ${arg#*=}"
done
for folder in "${!objs[@]}"; do
	# shellcheck disable=SC2086
	while read -r sym; do
		owner[$sym]=$folder
	done < <(nm -g --defined-only ${objs[$folder]} 2>/dev/null | awk 'NF == 3 { print $3 }')
done
for folder in "${!objs[@]}"; do
	# shellcheck disable=SC2086
	while read -r where sym; do
		obj=${where##*:}
		obj=${obj##*[/(]}
		obj=${obj%)}
		to=${owner[$sym]:-}
		if [ -n "$to" ] && ! may_use "$folder" "$to"; then
			cross "$folder/ ($obj) calls $sym, defined in $to/: $folder/ may not use $to/"
			continue
		fi
		[ -n "$to" ] && continue
		while read -r lib ok re; do
			[[ $sym =~ $re ]] && [ "$folder" != "$ok" ] &&
				cross "$folder/ ($obj) calls $sym ($lib): only $ok/ may"
		done <<<"$sys_libs"
	done < <(nm -A -g --undefined-only ${objs[$folder]} 2>/dev/null |
		awk '{ sub(/:$/, "", $1); print $1, $NF }')
done

if [ $bad -gt 0 ]; then
	echo "walls: $bad crossings (the layout is in README.md)" >&2
	exit 1
fi
echo "walls: no include path or symbol crosses a wall (${!objs[*]})"
