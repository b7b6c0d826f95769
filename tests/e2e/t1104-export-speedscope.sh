#!/bin/bash
# SPDX-License-Identifier: MIT
# t1104: report --speedscope (issue 21) loaded into speedscope itself (the
# npm package's page, in chromium, through its file chooser): no console
# error, speedscope imports it as its own format, one profile per thread,
# and its sandwich table puts the function that the fold output says has
# the most self samples first, with the same count. Once on a recording
# built by construction (gen_busy: app's spin and the idle task), once on
# a real one (known_split: work_a 60%). Screenshots: tests/artifacts/t1104.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_browser
ART=$(artifacts t1104)

# top_self FOLD: "NAME COUNT" of the leaf with the most samples
top_self() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (x in s) if (s[x] > best) { best = s[x]; name = x }; print name "\t" best }' "$1"
}

"$WORKLOADS/gen_busy" "$TMP/b.eprof" || fail "gen_busy failed"
"$EPROF" report -i "$TMP/b.eprof" --speedscope "$TMP/b.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "--speedscope failed"; }
speedscope "$TMP/b.json" "$ART/gen_busy.png" >"$TMP/s" 2>"$TMP/ss.err" || { cat "$TMP/s" "$TMP/ss.err"; fail "speedscope errors"; }
cat "$TMP/s"
[ "$(grep '^profile' "$TMP/s")" = "$(printf 'profile\tapp (pid 100, tid 100)\t480\nprofile\tswapper (pid 0, tid 0)\t100')" ] ||
	fail "speedscope does not list the two threads with their samples"
head -1 <(grep '^row' "$TMP/s") | grep -q '^row	480 (100%)	480 (100%)	spin$' || fail "spin does not lead app's sandwich table"

if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	"$EPROF" record -F 499 -o "$TMP/k.eprof" -- "$WORKLOADS/known_split" 1500 >/dev/null 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "record failed"; }
	"$EPROF" report -i "$TMP/k.eprof" --fold >"$TMP/k.fold" 2>/dev/null || fail "--fold failed"
	"$EPROF" report -i "$TMP/k.eprof" --speedscope "$TMP/k.json" 2>/dev/null || fail "--speedscope failed"
	speedscope "$TMP/k.json" "$ART/known_split.png" >"$TMP/k" 2>"$TMP/ss.err" || { cat "$TMP/k" "$TMP/ss.err"; fail "speedscope errors"; }
	head -8 "$TMP/k"
	want=$(top_self "$TMP/k.fold")
	[ "${want%%	*}" = work_a ] || fail "the fold's top self function is '$want', not work_a"
	got=$(grep '^row' "$TMP/k" | head -1 | awk -F'\t' '{ split($3, s, " "); print $4 "\t" s[1] }')
	[ "$got" = "$want" ] || fail "speedscope's top self function is '$got', the fold's '$want'"
else
	say "not root or no BTF: the recorded half is left out"
fi
say "speedscope loads --speedscope output with the right top function"
