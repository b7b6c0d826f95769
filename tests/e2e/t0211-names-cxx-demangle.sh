#!/bin/bash
# SPDX-License-Identifier: MIT
# t0211: C++ names are demangled in every view: a 67/33 split between
# ns::Worker<int>::spin(int) and ns::Worker<long>::spin(int), reached
# through main -> ns::run(unsigned long), shows in --fold, --top, --svg,
# --per-cpu, --timeline, --diff and --pprof (whose functions keep the mangled name as
# system_name), and inlined functions with --inline; --no-demangle shows the
# _Z names with the same counts.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$WORKLOADS/cxx_names" 2000 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
sort -t' ' -k2 -n "$TMP/fold" | tail -3

wi=$(samples "$TMP/fold" '^cxx_names;(.*;)?main;ns::run\(unsigned long\);ns::Worker<int>::spin\(int\)( |;|$)')
wl=$(samples "$TMP/fold" '^cxx_names;(.*;)?main;ns::run\(unsigned long\);ns::Worker<long>::spin\(int\)( |;|$)')
total=$((wi + wl))
say "Worker<int>=$wi Worker<long>=$wl"
[ "$total" -ge 1000 ] || fail "only $total samples in the two demangled functions (2 s of its CPU time: ~2000 expected)"
check_share 'ns::Worker<int>::spin(int)' "$(share_pct "$wi" "$total")" 67 4
check_share 'ns::Worker<long>::spin(int)' "$(share_pct "$wl" "$total")" 33 4
[ "$(samples "$TMP/fold" ';_Z')" -eq 0 ] || fail "mangled names left in --fold"

"$EPROF" report -i "$TMP/r.eprof" --top 5 >"$TMP/top" 2>/dev/null || fail "--top failed"
grep -q 'ns::Worker<int>::spin(int) ' "$TMP/top" || { cat "$TMP/top"; fail "--top is not demangled"; }
"$EPROF" report -i "$TMP/r.eprof" --per-cpu >"$TMP/percpu" 2>/dev/null || fail "--per-cpu failed"
grep -q 'ns::Worker<int>::spin(int)' "$TMP/percpu" || fail "--per-cpu is not demangled"
"$EPROF" report -i "$TMP/r.eprof" --svg "$TMP/f.svg" 2>/dev/null || fail "--svg failed"
grep -q 'ns::Worker&lt;int&gt;::spin(int)' "$TMP/f.svg" || fail "--svg is not demangled"
! grep -q '_ZN2ns' "$TMP/f.svg" || fail "--svg shows mangled names"
"$EPROF" report -i "$TMP/r.eprof" --timeline 1 >"$TMP/timeline" 2>/dev/null || fail "--timeline failed"
grep -q '^# f[0-9]* = ns::Worker<int>::spin(int) ' "$TMP/timeline" || fail "--timeline is not demangled"
"$EPROF" report --diff "$TMP/r.eprof" "$TMP/r.eprof" --fold >"$TMP/diff" 2>/dev/null || fail "--diff failed"
grep -q ';ns::Worker<long>::spin(int) [0-9]* [0-9]*$' "$TMP/diff" || fail "--diff is not demangled"

# --inline (DWARF from the local binary): the inlined template is named by
# its linkage name, demangled, like the functions around it.
"$EPROF" report -i "$TMP/r.eprof" --fold --inline >"$TMP/inl" 2>/dev/null || fail "--inline failed"
inl=$(samples "$TMP/inl" ';ns::Worker<int>::spin\(int\);void ns::detail::step<int>\(int volatile\*, int\)( |;|$)')
say "--inline: $inl samples in ns::Worker<int>::spin(int);void ns::detail::step<int>(int volatile*, int)"
[ $((inl * 2)) -ge "$wi" ] || fail "--inline: the inlined step<int> is not named in most of spin<int>'s samples"

# --no-demangle: the names as the binary spells them, the same counts.
"$EPROF" report -i "$TMP/r.eprof" --fold --no-demangle >"$TMP/raw" 2>/dev/null ||
	fail "--no-demangle failed"
rwi=$(samples "$TMP/raw" ';main;_ZN2ns3runEm;_ZN2ns6WorkerIiE4spinEi( |;|$)')
rwl=$(samples "$TMP/raw" ';main;_ZN2ns3runEm;_ZN2ns6WorkerIlE4spinEi( |;|$)')
say "--no-demangle: _ZN2ns6WorkerIiE4spinEi=$rwi _ZN2ns6WorkerIlE4spinEi=$rwl"
[ "$rwi" -eq "$wi" ] && [ "$rwl" -eq "$wl" ] || fail "--no-demangle counts differ"
[ "$(samples "$TMP/raw" 'ns::Worker')" -eq 0 ] || fail "--no-demangle still demangles"

# pprof: Function.name demangled, Function.system_name mangled (-raw prints "name ... (system_name)").
"$EPROF" report -i "$TMP/r.eprof" --pprof "$TMP/p.pb.gz" 2>/dev/null || fail "--pprof failed"
if command -v go >/dev/null 2>&1; then
	export HOME=${HOME:-/root} GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
	go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" >"$TMP/raw.pprof" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "go tool pprof cannot read it"; }
	grep -E ' ns::Worker<int>::spin\(int\) .*\(_ZN2ns6WorkerIiE4spinEi\)$' "$TMP/raw.pprof" | head -1 |
		grep -q . || { head -30 "$TMP/raw.pprof"; fail "pprof lacks name/system_name"; }
	say "pprof: name and system_name as expected"
else
	say "go not installed: pprof system_name checked by unit.test_pprof only"
fi
exit 0
