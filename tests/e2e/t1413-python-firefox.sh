#!/bin/bash
# SPDX-License-Identifier: MIT
# t1413: report --firefox of a Python program (Debian's python3.11 running
# tests/workloads/py_split.py) in Firefox Profiler's processed format
# (tests/browser/firefox_check.js): each Python function is one function,
# "qualname_[py]" with its .py file as resource and its first line as
# lineNumber, and each line that ran is a frame of it with that line in
# frameTable.line. Counted from the profile's stacks, the samples through
# each function, and through each of its lines, are the fold's.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd node
require_py_split
CHECK="$E2E_DIR/../browser/firefox_check.js"

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$APP" 100 >/dev/null 2>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/r.eprof" --firefox "$TMP/p.json" 2>>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record or report failed"; }
node "$CHECK" "$TMP/p.json" >"$TMP/chk" 2>"$TMP/chk.err" || { cat "$TMP/chk.err"; fail "not Firefox Profiler's processed format"; }

# The profile's Python functions of py_split.py, read as the profiler reads the tables:
#   func NAME RESOURCE FIRST_LINE FRAMES   each function (FRAMES: how many frames it has)
#   total NAME SAMPLES                      samples with the function on their stack (once each)
#   line NAME LINE SAMPLES                  samples with the function's frame at LINE on their stack
node -e '
const p = require(process.argv[1]), sh = p.shared, S = sh.stringArray, ft = sh.funcTable, fr = sh.frameTable;
const st = sh.stackTable, name = (f) => S[ft.name[f]], res = (f) => S[sh.resourceTable.name[ft.resource[f]]];
const ours = new Set(), frames = new Map(), total = new Map(), line = new Map();
for (let f = 0; f < ft.length; f++) if (name(f).endsWith("_[py]") && res(f) === "py_split.py") ours.add(f);
for (let i = 0; i < fr.length; i++) if (ours.has(fr.func[i])) frames.set(fr.func[i], (frames.get(fr.func[i]) || 0) + 1);
for (const f of ours) console.log(["func", name(f), res(f), ft.lineNumber[f], frames.get(f) || 0].join("\t"));
const add = (m, k) => m.set(k, (m.get(k) || 0) + 1);
for (const t of p.threads)
	t.samples.stack.forEach((s) => {
		const fs = new Set(), ls = new Set();
		for (let i = s; i !== null; i = st.prefixOffset[i] ? i - st.prefixOffset[i] : null) {
			const f = fr.func[st.frame[i]];
			if (!ours.has(f)) continue;
			fs.add(name(f));
			ls.add(name(f) + "\t" + fr.line[st.frame[i]]);
		}
		fs.forEach((k) => add(total, k));
		ls.forEach((k) => add(line, k));
	});
total.forEach((n, k) => console.log(["total", k, n].join("\t")));
line.forEach((n, k) => console.log(["line", k, n].join("\t")));
' "$TMP/p.json" >"$TMP/got" || fail "cannot read the profile"
grep -E '^(func|total)' "$TMP/got"

# the fold's: per function and per line, samples through it (once per sample)
awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); delete fs; delete ls
       for (i = 2; i <= k; i++) if (match(f[i], / \(py_split\.py:[0-9]+\)_\[py\]$/)) {
         q = substr(f[i], 1, RSTART - 1); l = substr(f[i], RSTART + 14, RLENGTH - 20)
         fs[q "_[py]"] = 1; ls[q "_[py]\t" l] = 1 }
       for (x in fs) tot[x] += n; for (x in ls) lin[x] += n }
     END { for (x in tot) print "total\t" x "\t" tot[x]; for (x in lin) print "line\t" x "\t" lin[x] }' "$TMP/fold" |
	sort >"$TMP/want"
grep -E '^(total|line)' "$TMP/got" | sort >"$TMP/got.cmp"
if ! diff "$TMP/want" "$TMP/got.cmp" >"$TMP/diff"; then
	head -20 "$TMP/diff"
	fail "the profile's samples per Python function or line differ from the fold's"
fi
say "$(grep -c '^total' "$TMP/want") Python functions and $(grep -c '^line' "$TMP/want") lines agree with --fold"

# one function each, its first line; a frame per line that ran, at least the loop's two for alpha
for f in alpha:9 beta:16 gamma:23 main:30 '<module>:1'; do
	IFS=: read -r q first <<<"$f"
	[ "$(awk -F'\t' -v n="${q}_[py]" '$1 == "func" && $2 == n' "$TMP/got" | wc -l)" = 1 ] ||
		fail "the profile has not one function ${q}_[py] in py_split.py"
	awk -F'\t' -v n="${q}_[py]" -v l="$first" '$1 == "func" && $2 == n { exit !($4 == l) }' "$TMP/got" ||
		fail "${q}_[py]: lineNumber is not its first line $first"
	nl=$(awk -F'\t' -v n="${q}_[py]" '$1 == "line" && $2 == n' "$TMP/got" | wc -l)
	awk -F'\t' -v n="${q}_[py]" -v k="$nl" '$1 == "func" && $2 == n { exit !($5 == k) }' "$TMP/got" ||
		fail "${q}_[py]: not one frame per line that ran ($nl lines)"
done
[ "$(awk -F'\t' '$1 == "line" && $2 == "alpha_[py]"' "$TMP/got" | wc -l)" -ge 2 ] ||
	fail "alpha_[py] has fewer than its loop's two lines"
exit 0
