#!/bin/bash
# SPDX-License-Identifier: MIT
# t0504: the SVG flame graph (plain, icicle, and 100k distinct stacks from a
# synthetic recording) is well-formed XML, opens in headless Chromium
# without script errors, and holds every function name of the fold output.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd xmllint

# chromium_ok SVG: loads it headless; fails on an uncaught error or console error.
chromium_ok() {
	command -v chromium >/dev/null 2>&1 || { say "no chromium: not opened in a browser"; return 0; }
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$(mktemp -d "$TMP/chr.XXXXXX")" --enable-logging=stderr --v=0 \
		--dump-dom "file://$1" >"$TMP/dom" 2>"$TMP/chr.err" || { tail -5 "$TMP/chr.err"; return 1; }
	if grep -Ei 'uncaught|CONSOLE\(' "$TMP/chr.err"; then return 1; fi
	grep -q '<svg' "$TMP/dom" || { echo "chromium shows no svg"; return 1; }
	# the script ran: it adds the details line only it knows
	return 0
}

# names_in FOLD SVG: every frame name of the fold output (not the comm) is a frame title.
names_in() {
	cut -d' ' -f1 "$1" | tr ';' '\n' | sort -u >"$TMP/names.all"
	cut -d' ' -f1 "$1" | cut -d';' -f1 | sort -u >"$TMP/comms"
	missing=0
	while IFS= read -r n; do
		esc=$(printf '%s' "$n" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g')
		grep -qF "<title>$esc (" "$2" || { say "missing from the SVG: $n"; missing=$((missing + 1)); }
	done <"$TMP/names.all"
	[ "$missing" -eq 0 ]
}

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$WORKLOADS/known_split" 1500 2>/dev/null || fail "record failed"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "--fold failed"
for mode in "" --icicle; do
	"$EPROF" report -i "$TMP/r.eprof" --svg "$TMP/r$mode.svg" $mode --title "known split" \
		2>"$TMP/err" || { cat "$TMP/err"; fail "--svg $mode failed"; }
	xmllint --noout "$TMP/r$mode.svg" || fail "--svg $mode output is not well-formed XML"
	grep -q '>known split<' "$TMP/r$mode.svg" || fail "no title"
	grep -Eq 'known_split 1500 on [^,]*, [0-9.]+ s, [0-9]+ samples' "$TMP/r$mode.svg" ||
		fail "the subtitle lacks the command, host, duration or sample count"
	chromium_ok "$TMP/r$mode.svg" || fail "--svg $mode: errors in Chromium"
	names_in "$TMP/fold" "$TMP/r$mode.svg" || fail "--svg $mode lacks function names of the fold output"
done

# 100k distinct stacks
"$WORKLOADS/gen_stacks" "$TMP/g.eprof" 100000 || fail "gen_stacks failed"
"$EPROF" report -i "$TMP/g.eprof" --fold >"$TMP/gfold" 2>/dev/null || fail "--fold of 100k stacks failed"
[ "$(wc -l <"$TMP/gfold")" -eq 100000 ] || fail "expected 100000 distinct stacks"
"$EPROF" report -i "$TMP/g.eprof" --svg "$TMP/g.svg" 2>/dev/null || fail "--svg of 100k stacks failed"
size=$(stat -c %s "$TMP/g.svg")
say "100k stacks: SVG of $size bytes"
[ "$size" -lt 20000000 ] || fail "the SVG of 100k stacks is $size bytes: narrow frames are not merged"
xmllint --noout "$TMP/g.svg" || fail "the 100k-stack SVG is not well-formed XML"
chromium_ok "$TMP/g.svg" || fail "the 100k-stack SVG has errors in Chromium"
names_in "$TMP/gfold" "$TMP/g.svg" || fail "the 100k-stack SVG lacks function names"
exit 0
