#!/bin/bash
# SPDX-License-Identifier: MIT
# t0205: `record --debuginfo` embeds the DWARF of the sampled binaries.
# - info says "embedded DWARF" for the workload;
# - with no file left to read (empty tmpfs over the workload's directory,
#   the build's workloads and /usr/lib/debug, in a private mount namespace)
#   `report --inline --lines` prints exactly what it prints with them, and
#   the frames of each sampled leaf address are what addr2line -f -i says;
# - the same report of a recording made without --debuginfo has no lines
#   there (so it was the embedded DWARF that named them);
# - prints what the option added to the file.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd addr2line; require_cmd unshare

mkdir -p "$TMP/bin"
cp "$WORKLOADS/inline_app" "$TMP/bin/inline_app"	# unstripped, -g: .debug_info inside
"$EPROF" record -F 999 --debuginfo -o "$TMP/r.eprof" -- "$TMP/bin/inline_app" 500 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --debuginfo failed"; }
"$EPROF" record -F 999 -o "$TMP/r0.eprof" -- "$TMP/bin/inline_app" 500 2>"$TMP/rec0.err" ||
	{ cat "$TMP/rec0.err"; fail "record failed"; }
with=$(stat -c %s "$TMP/r.eprof")
without=$(stat -c %s "$TMP/r0.eprof")
say "recording: $without bytes without --debuginfo, $with with"

"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>/dev/null || fail "info failed"
grep -Eq '/inline_app +embedded \.symtab \+ embedded DWARF$' "$TMP/info" ||
	{ cat "$TMP/info"; fail "info does not say inline_app's DWARF is embedded"; }
"$EPROF" info --json "$TMP/r.eprof" 2>/dev/null |
	grep -Eq '"path":"[^"]*/inline_app",[^}]*"embedded_dwarf":true' ||
	fail "info --json does not say inline_app's DWARF is embedded"
"$EPROF" info "$TMP/r0.eprof" 2>/dev/null | grep -q 'embedded DWARF' &&
	fail "info says embedded DWARF for a recording made without --debuginfo"
if grep -q '/libc.so.6 .*embedded DWARF' "$TMP/info"; then
	say "libc's DWARF (from its debug file) is embedded too"
fi

EPROF_ADDRESSES=1 "$EPROF" report -i "$TMP/r.eprof" --fold --inline --lines >"$TMP/before" \
	2>/dev/null || fail "report --inline --lines failed"
grep -q ';outer_work:inline_app.c:[0-9]*@0x[0-9a-f]*;inlined_mix:inline_app.c:[0-9]*@' "$TMP/before" ||
	{ head "$TMP/before"; fail "no inlined_mix frame under outer_work"; }

# No file left to read: an empty tmpfs over every place the DWARF could be.
hide="mount -t tmpfs none '$TMP/bin' && mount -t tmpfs none '$WORKLOADS'"
[ -d /usr/lib/debug ] && hide="$hide && mount -t tmpfs none /usr/lib/debug"
unshare -m --propagation private sh -c "$hide &&
	find '$TMP/bin' '$WORKLOADS' -mindepth 1 | wc -l >'$TMP/nfiles';
	EPROF_ADDRESSES=1 '$EPROF' report -i '$TMP/r.eprof' --fold --inline --lines >'$TMP/ns' 2>'$TMP/ns.err' &&
	EPROF_ADDRESSES=1 '$EPROF' report -i '$TMP/r0.eprof' --fold --inline --lines >'$TMP/ns0' 2>/dev/null" ||
	{ cat "$TMP/ns.err"; fail "report in the namespace failed"; }
[ "$(cat "$TMP/nfiles")" = 0 ] || fail "the tmpfs mounts were not empty"
cmp -s "$TMP/before" "$TMP/ns" ||
	{ diff "$TMP/before" "$TMP/ns" | head; fail "report --inline --lines differs without the files"; }
grep -q 'inline_app.c:' "$TMP/ns0" &&
	fail "without --debuginfo and without the files, lines were still found"
say "report --inline --lines identical with the files present and absent"

# each line: the frames of the leaf address (same @ADDR at the end) against addr2line
checked=0
while read -r line; do
	stack=${line% *}
	# only leaves in inline_app: with whole stacks some end in libc or the vDSO
	case ${stack##*;} in *inline_app.c:*) ;; *) continue ;; esac
	addr=$(printf '%s\n' "$stack" | grep -o '@0x[0-9a-f]*' | tail -1 | cut -c2-)
	[ -n "$addr" ] || continue
	ours=$(printf '%s\n' "$stack" | tr ';' '\n' | grep "@$addr\$" | sed "s/@$addr\$//" | tac | tr '\n' ' ')
	theirs=$(addr2line -f -i -s -e "$TMP/bin/inline_app" "$addr" |
		sed 's/ (discriminator [0-9]*)//' | paste -d: - - | tr '\n' ' ')
	[ "$ours" = "$theirs" ] || fail "at $addr: eprof says '$ours', addr2line says '$theirs'"
	checked=$((checked + 1))
done < <(grep ';main:' "$TMP/ns" | grep 'outer_work')
[ "$checked" -ge 1 ] || fail "no leaf address compared"
say "without the files: $checked leaf addresses match addr2line -f -i"
exit 0
