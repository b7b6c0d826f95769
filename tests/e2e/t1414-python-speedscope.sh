#!/bin/bash
# SPDX-License-Identifier: MIT
# t1414: report --speedscope of a Python program (Debian's python3.11
# running tests/workloads/py_split.py): each Python function is one shared
# frame, "qualname_[py]" with its .py file and first line, whatever line
# ran (speedscope tells frames apart by their entry: a frame per line
# listed main three times in its sandwich view). Counted from the
# profiles' samples and weights, the samples through each function are
# the fold's.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd node
require_py_split

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$APP" 100 >/dev/null 2>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/r.eprof" --speedscope "$TMP/p.json" 2>>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record or report failed"; }

# The profile's Python frames of py_split.py, as speedscope reads them:
#   frame NAME FILE LINE    each such frame
#   total NAME SAMPLES      the weight of the samples with the function on their stack (once each)
node -e '
const p = require(process.argv[1]), fr = p.shared.frames, total = new Map();
const ours = new Set();
fr.forEach((f, i) => { if (f.name.endsWith("_[py]") && f.file === "py_split.py") ours.add(i); });
ours.forEach((i) => console.log(["frame", fr[i].name, fr[i].file, fr[i].line].join("\t")));
for (const prof of p.profiles)
	prof.samples.forEach((s, k) => {
		const fs = new Set(s.filter((i) => ours.has(i)).map((i) => fr[i].name));
		fs.forEach((n) => total.set(n, (total.get(n) || 0) + prof.weights[k]));
	});
total.forEach((n, k) => console.log(["total", k, n].join("\t")));
' "$TMP/p.json" >"$TMP/got" || fail "cannot read the profile"
grep '^frame' "$TMP/got"

awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); delete fs
       for (i = 2; i <= k; i++) if (match(f[i], / \(py_split\.py:[0-9]+\)_\[py\]$/))
         fs[substr(f[i], 1, RSTART - 1) "_[py]"] = 1
       for (x in fs) tot[x] += n }
     END { for (x in tot) print "total\t" x "\t" tot[x] }' "$TMP/fold" | sort >"$TMP/want"
grep '^total' "$TMP/got" | sort >"$TMP/got.cmp"
if ! diff "$TMP/want" "$TMP/got.cmp" >"$TMP/diff"; then
	head -20 "$TMP/diff"
	fail "the profile's samples per Python function differ from the fold's"
fi
say "$(grep -c '^total' "$TMP/want") Python functions agree with --fold"

for f in alpha:9 beta:16 gamma:23 main:30 '<module>:1'; do
	IFS=: read -r q first <<<"$f"
	[ "$(awk -F'\t' -v n="${q}_[py]" '$1 == "frame" && $2 == n' "$TMP/got" | wc -l)" = 1 ] ||
		fail "the profile has not one frame ${q}_[py] in py_split.py"
	awk -F'\t' -v n="${q}_[py]" -v l="$first" '$1 == "frame" && $2 == n { exit !($4 == l) }' "$TMP/got" ||
		fail "${q}_[py]: line is not its first line $first"
done
exit 0
