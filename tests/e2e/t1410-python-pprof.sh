#!/bin/bash
# SPDX-License-Identifier: MIT
# t1410: --pprof writes Python frames as pprof expects them, and the real
# `go tool pprof`, symbolizing as it does by default, keeps them: each
# Python function is the function "qualname_[py]" (`-top` lists exactly
# the qualnames --fold has, "<module>" included, not a C++-simplified
# " _[py]"), with the same totals as --fold; `-raw` shows its .py file,
# first line and the line sampled; `-traces` reads the chain
# function -> main -> <module> in order; `-list` shows the source lines.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd go
require_py_split

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$PY" "$APP" 120 2>/dev/null || fail "record failed"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "--fold failed"
"$EPROF" report -i "$TMP/r.eprof" --pprof "$TMP/p.pb.gz" 2>"$TMP/err" || { cat "$TMP/err"; fail "--pprof failed"; }

export HOME=${HOME:-/root} GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
pp() { go tool pprof "$@" "$TMP/p.pb.gz" 2>"$TMP/err" || { cat "$TMP/err"; fail "go tool pprof $1 failed"; }; }

# fold: each Python function once per line, "qualname (file:line)_[py]" -> "qualname_[py]"
awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); delete seen
       for (i = 2; i <= k; i++) { name = f[i]; if (name !~ /_\[py\]$/) continue
         sub(/ \([^()]*:[0-9]+\)_\[py\]$/, "_[py]", name)
         if (!(name in seen)) { seen[name] = 1; tot[name] += n } } }
     END { for (x in tot) print x, tot[x] }' "$TMP/fold" | sort >"$TMP/want"
pp -top -sample_index=samples -nodecount=1000000 -nodefraction=0 -edgefraction=0 >"$TMP/top"
sed -n '/flat%/,$p' "$TMP/top" | grep '_\[py\]' | head -12
# -top rows: flat flat% sum% cum cum% name (a name may hold spaces)
awk 'f && NF >= 6 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i
       if (name ~ /_\[py\]$/) print name, $4 }
     /flat%/ { f = 1 }' "$TMP/top" | sort >"$TMP/got"
for q in alpha beta gamma main '<module>'; do
	grep -q "^$q"'_\[py\] [0-9]' "$TMP/got" || fail "go tool pprof -top does not list ${q}_[py]"
done
if ! diff "$TMP/want" "$TMP/got" >"$TMP/diff"; then
	head -20 "$TMP/diff"
	fail "go tool pprof's Python functions or their totals differ from --fold"
fi
say "$(wc -l <"$TMP/want") Python functions agree with --fold"

# -raw locations: "N: 0x0 NAME FILE:LINE s=START()"
pp -raw >"$TMP/raw"
grep -F '_[py]' "$TMP/raw" | grep -F "$APP" | head -12
for f in alpha:9:1[12] beta:16:1[89] gamma:23:2[56] main:30:3[345] '<module>:1:38'; do
	IFS=: read -r q start lines <<<"$f"
	grep -Eq "^ +[0-9]+: 0x0 $q"'_\[py\] '"$APP:$lines s=$start\\(" "$TMP/raw" ||
		fail "go tool pprof -raw lacks ${q}_[py] in $APP at line $lines, first line $start"
done

# -traces: a Python function, then its caller main, then <module>, then the native caller
pp -traces >"$TMP/traces"
for q in alpha beta gamma; do
	awk -v q="${q}_[py]" '{ $1 = $1 } $NF == q { s = 1; next }
	     s == 1 && $NF == "main_[py]" { s = 2; next }
	     s == 2 && $NF == "<module>_[py]" { s = 3; next }
	     s == 3 && $NF == "PyEval_EvalCode" { ok = 1 } { s = 0 }
	     END { exit !ok }' "$TMP/traces" ||
		fail "go tool pprof -traces never reads ${q}_[py], main_[py], <module>_[py], PyEval_EvalCode"
done

# -list finds the .py file by its recorded path and puts samples on the loop body (from
# $TMP: pprof cuts a path at the name of the directory it runs in, where it finds one)
(cd "$TMP" && pp -list 'alpha_\[py\]') >"$TMP/list"
cat "$TMP/list"
grep -Eq '^ +[0-9.]+[mun]?s +[0-9.]+[mun]?s +12: +x \+= i \* i$' "$TMP/list" ||
	fail "go tool pprof -list shows no samples on alpha's line 12"
exit 0
