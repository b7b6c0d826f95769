#!/bin/bash
# SPDX-License-Identifier: MIT
# t0204: a stripped binary whose DWARF lives in a separate debug file.
# - without the debug file its frames stay unresolved, and both report's
#   stderr and `eprof info` count them for that binary, and several -i
#   give one stderr line with the counts summed;
# - a debug file with another build-id is skipped, and report says so;
# - with --debug-dir the frames resolve, and with --inline --lines the
#   frames of each sampled leaf address are what addr2line -f -i says;
# - a debug file next to the binary (.gnu_debuglink) is used at record time
#   (info says "embedded debuglink .symtab"),
#   so the recording alone names the frames.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd addr2line

DBG="$WORKLOADS/debug/inline_app.debug"
mkdir -p "$TMP/bin" "$TMP/wrong"
cp "$WORKLOADS/stripped/inline_app" "$TMP/bin/inline_app"
"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$TMP/bin/inline_app" 800 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }

# 1. no debug file: unresolved, counted per binary
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/plain" 2>"$TMP/plain.err" || fail "report failed"
cat "$TMP/plain.err"
grep -q 'outer_work' "$TMP/plain" && fail "outer_work resolved without its debug file"
grep -Eq '^eprof: frames named by:.* unresolved [1-9]' "$TMP/plain.err" ||
	fail "report does not count the stripped binary's frames as unresolved"
grep -Eq '^eprof: unresolved frames:.* inline_app [0-9]+ \(' "$TMP/plain.err" ||
	fail "report's stderr does not count inline_app's unresolved frames"
# several -i (a copy: the same file twice is refused): one line for all, the counts summed
one=$(grep -Eo ' inline_app [0-9]+ \(' "$TMP/plain.err" | grep -Eo '[0-9]+')
cp "$TMP/r.eprof" "$TMP/copy.eprof"
"$EPROF" report -i "$TMP/r.eprof" -i "$TMP/copy.eprof" --top >/dev/null 2>"$TMP/two.err" ||
	fail "report of two -i failed"
[ "$(grep -c 'unresolved frames' "$TMP/two.err")" = 1 ] ||
	{ cat "$TMP/two.err"; fail "two -i give other than one unresolved-frames line"; }
grep -Eq "^eprof: unresolved frames in 2 recordings:.* inline_app $((one * 2)) \\(" "$TMP/two.err" ||
	{ cat "$TMP/two.err"; fail "two -i do not sum inline_app's $one unresolved frames"; }
"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>/dev/null || fail "info failed"
awk '$4 ~ /\/inline_app$/ && $3 > 0 { found = 1 } END { exit !found }' "$TMP/info" ||
	{ cat "$TMP/info"; fail "info has no row with unresolved frames for inline_app"; }
"$EPROF" info --json "$TMP/r.eprof" 2>/dev/null | grep -Eq '"path":"[^"]*/inline_app","symbolized":"[a-z+]*","embedded":[^,]*,"local":[^,]*,"frames":[0-9]+,"unresolved":[1-9]' ||
	fail "info --json has no unresolved count for inline_app"

# 2. a debug file with another build-id is never used, and report says why
cp "$WORKLOADS/known_split" "$TMP/wrong/inline_app.debug"
"$EPROF" report -i "$TMP/r.eprof" --fold --debug-dir "$TMP/wrong" >"$TMP/wrong.fold" 2>"$TMP/wrong.err" ||
	fail "report failed"
grep -q 'work_a\|outer_work' "$TMP/wrong.fold" && fail "a debug file with another build-id was used"
[ "$(grep -c "wrong/inline_app.debug' has another build-id" "$TMP/wrong.err")" = 1 ] ||
	{ cat "$TMP/wrong.err"; fail "no single line saying the wrong debug file was skipped"; }

# 3. --debug-dir resolves; --inline --lines match addr2line
"$EPROF" report -i "$TMP/r.eprof" --fold --debug-dir "$TMP/wrong" --debug-dir "$WORKLOADS/debug" \
	>"$TMP/dd" 2>"$TMP/dd.err" || fail "report --debug-dir failed"
grep -Eq '^eprof: frames named by:.* debug file [1-9]' "$TMP/dd.err" ||
	{ cat "$TMP/dd.err"; fail "report does not count the frames the --debug-dir file named"; }
# outer_work and what it calls (clock_gettime: more of it on a busy machine)
total=$(samples "$TMP/dd" '')
outer=$(samples "$TMP/dd" ';main;outer_work( |;|$)')
check_share "outer_work with --debug-dir" "$(share_pct "$outer" "$total")" 97 5
EPROF_ADDRESSES=1 "$EPROF" report -i "$TMP/r.eprof" --fold --inline --lines \
	--debug-dir "$WORKLOADS/debug" >"$TMP/il" 2>/dev/null || fail "report --inline --lines failed"
grep -q ';outer_work:inline_app.c:[0-9]*@0x[0-9a-f]*;inlined_mix:inline_app.c:[0-9]*@' "$TMP/il" ||
	{ head "$TMP/il"; fail "no inlined_mix frame under outer_work"; }
checked=0
# each line: the frames of the leaf address (same @ADDR at the end) against addr2line
while read -r line; do
	stack=${line% *}
	# only leaves in inline_app: with whole stacks some end in libc or the vDSO
	case ${stack##*;} in *inline_app.c:*) ;; *) continue ;; esac
	addr=$(printf '%s\n' "$stack" | grep -o '@0x[0-9a-f]*' | tail -1 | cut -c2-)
	[ -n "$addr" ] || continue
	ours=$(printf '%s\n' "$stack" | tr ';' '\n' | grep "@$addr\$" | sed "s/@$addr\$//" | tac | tr '\n' ' ')
	theirs=$(addr2line -f -i -s -e "$DBG" "$addr" | sed 's/ (discriminator [0-9]*)//' |
		paste -d: - - | tr '\n' ' ')
	[ "$ours" = "$theirs" ] || fail "at $addr: eprof says '$ours', addr2line says '$theirs'"
	checked=$((checked + 1))
done < <(grep ';main:' "$TMP/il" | grep 'outer_work')
[ "$checked" -ge 1 ] || fail "no leaf address compared"
say "--inline --lines: $checked leaf addresses match addr2line -f -i"

# 4. record time: the debug file next to the binary (.gnu_debuglink)
mkdir -p "$TMP/bin2"
cp "$WORKLOADS/stripped/inline_app" "$TMP/bin2/inline_app"
cp "$DBG" "$TMP/bin2/inline_app.debug"
"$EPROF" record -F 999 -o "$TMP/r2.eprof" -- "$TMP/bin2/inline_app" 300 2>"$TMP/rec2.err" ||
	{ cat "$TMP/rec2.err"; fail "record failed"; }
rm -rf "$TMP/bin2"
"$EPROF" report -i "$TMP/r2.eprof" --fold >"$TMP/r2.fold" 2>"$TMP/r2.err" || fail "report failed"
grep -Eq '^eprof: frames named by:.* debuglink [1-9]' "$TMP/r2.err" ||
	{ cat "$TMP/r2.err"; fail "report does not count the frames the debuglink file named"; }
grep -q ';main;outer_work ' "$TMP/r2.fold" || { cat "$TMP/r2.fold"; fail "the debug file was not used at record time"; }
"$EPROF" info "$TMP/r2.eprof" 2>/dev/null | grep -q 'inline_app *embedded debuglink .symtab' ||
	fail "info does not say the symbols came from the debug file"
exit 0
