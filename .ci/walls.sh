#!/bin/bash
# SPDX-License-Identifier: MIT
# .ci/walls.sh SRC_DIR FOLDER=OBJECTS... : fails on any include or symbol
# that crosses a wall of the layout the wrong way (README.md, "Layout").
#
#   includes  every #include "X/..." in FOLDER's sources names a folder
#             FOLDER may use (a bare "name.h" resolves to FOLDER itself, or
#             to bpf/ for the shared BPF headers and generated skeletons);
#   symbols   every undefined symbol of FOLDER's library (nm) that another
#             eprof library defines comes from a folder FOLDER may use; and
#             the system libraries behind a wall are called only from
#             their side: SQLite and zstd from format/, libbpf from record/,
#             libelf, libdw and libdwfl from elf/.
#
# OBJECTS is a static library or object files (ctest passes each folder's
# library, and cli/'s object, from tests/CMakeLists.txt).
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

src=${1:?usage: walls.sh SRC_DIR FOLDER=OBJECTS...}
shift
bad=0
cross() { printf 'walls: %s\n' "$*" >&2; bad=$((bad + 1)); }
may_use() { # FOLDER OTHER
	[ "$1" = "$2" ] && return 0
	case " ${allowed[$1]} " in *" $2 "*) return 0 ;; esac
	return 1
}

# Includes.
for folder in "${!allowed[@]}"; do
	[ -d "$src/$folder" ] || continue
	while IFS=: read -r file line text; do
		inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$text")
		case $inc in
		*/*) to=${inc%%/*} ;;
		*.skel.h | vmlinux.h) to=bpf ;;
		*) if [ -e "$(dirname "$file")/$inc" ]; then to=$folder
		   elif [ -e "$src/bpf/$inc" ]; then to=bpf
		   else to=$folder; fi ;;
		esac
		[ -n "${allowed[$to]+set}" ] || [ "$to" = "$folder" ] || continue
		may_use "$folder" "$to" ||
			cross "${file#"$src"/}:$line includes \"$inc\": $folder/ may not use $to/"
	done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src/$folder" \
		--include='*.c' --include='*.h')
done

# Symbols: who defines what.
declare -A objs=()
declare -A owner=()
for arg in "$@"; do
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
echo "walls: no include or symbol crosses a wall (${!objs[*]})"
