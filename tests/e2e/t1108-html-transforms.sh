#!/bin/bash
# SPDX-License-Identifier: MIT
# t1108: the HTML report's other trees (issue 21) on known_split (dispatch
# calls work_a, work_b, work_c, 60/30/10 of its time): "Invert call stack"
# puts the functions that ran at the root, left to right in the order of
# their self time and with the shares of the fold's leaves (to 0.01
# points); "Left-heavy" orders every set of siblings widest first; the
# Firefox Profiler transform "Merge function" on work_a moves its self
# time to its caller dispatch (and survives a reload, in the URL); the
# Firefox Profiler transform "Focus on function" on dispatch then leaves it
# the one root; "Collapse recursion" leaves no recurse frame inside another; the function tables carry a module column (known_split, libc, the kernel).
# In an off-CPU recording's wall view, blocked frames keep their cool colour
# (and running ones their warm one) through the transforms.
# Screenshots: tests/artifacts/t1108.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser
ART=$(artifacts t1108)

# a recording, its page and its folded stacks (the truth the page is held to)
"$EPROF" record -F 499 -o "$TMP/k.eprof" -- "$WORKLOADS/known_split" 1500 >/dev/null 2>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/k.eprof" --html "$TMP/k.html" 2>>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/k.eprof" --fold >"$TMP/k.fold" 2>>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record or report failed"; }
# the fold's self shares (its leaves), largest first, to 0.01 points
awk '{ n = $NF; t += n; $NF = ""; k = split($0, f, ";"); g = f[k]; sub(/ +$/, "", g); s[g] += n }
	END { for (x in s) printf "%s\t%.2f\n", x, 100 * s[x] / t }' "$TMP/k.fold" | sort -t$'\t' -k2,2nr >"$TMP/self"
head -5 "$TMP/self"

drive "$TMP/k.html" invert roots screenshot "$ART/inverted.png" invert heavy leftheavy heavy \
	screenshot "$ART/left-heavy.png" leftheavy transform merge work_a top screenshot "$ART/merged.png" \
	reload state top transform focus dispatch roots >"$TMP/p" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
grep -v '^top-total' "$TMP/p" | cut -c1-200 | head -40

# inverted: the roots are the self functions, in order, with their shares
awk -F'\t' '$1 == "state" { exit } $1 == "root" { print $2 "\t" $3 }' "$TMP/p" >"$TMP/roots"
for f in work_a work_b work_c; do
	got=$(awk -F'\t' -v f="$f" '$1 == f { print $2 }' "$TMP/roots")
	want=$(awk -F'\t' -v f="$f" '$1 == f { print $2 }' "$TMP/self")
	[ -n "$got" ] && [ "$got" = "$want" ] || fail "inverted: $f is ${got:-absent}% at the root, its self in the fold $want%"
done
# left to right in the order of self time: each root's share is at most the one before
awk -F'\t' 'NR > 1 && $2 > prev + 0.005 { bad = 1 } { prev = $2 } END { exit bad }' "$TMP/roots" ||
	fail "the inverted roots are not in the order of their self time"
a=$(awk -F'\t' '$1 == "work_a" { print NR }' "$TMP/roots")
b=$(awk -F'\t' '$1 == "work_b" { print NR }' "$TMP/roots")
c=$(awk -F'\t' '$1 == "work_c" { print NR }' "$TMP/roots")
[ "$a" -lt "$b" ] && [ "$b" -lt "$c" ] || fail "inverted: work_a, work_b, work_c at places $a, $b, $c"
# left-heavy: every set of siblings widest first (by name before, as drawn by default)
awk -F'\t' '$1 == "heavy" { n++; if (n == 2) exit !($2 > 0 && $2 == $3) }' "$TMP/p" ||
	fail "left-heavy does not order the siblings widest first: $(grep '^heavy' "$TMP/p" | tail -1)"
# merge work_a: dispatch's self is its own and work_a's, work_a has none left
want=$(awk -F'\t' '$1 == "work_a" || $1 == "dispatch" { s += $2 } END { printf "%.2f\n", s }' "$TMP/self")
for k in 1 2; do	# before and after the reload
	got=$(awk -F'\t' -v k=$k '$1 == "top-self" && prev != "top-self" { n++ } n == k && $1 == "top-self" && $2 == "dispatch" { sub(/%/, "", $3); print $3 } { prev = $1 }' "$TMP/p")
	[ "$got" = "$want" ] || fail "merge work_a ($k): dispatch's self is ${got:-absent}%, work_a's and its own $want%"
	awk -F'\t' -v k=$k '$1 == "top-self" && prev != "top-self" { n++ } n == k && $1 == "top-self" && $2 == "work_a" { bad = 1 } { prev = $1 } END { exit bad }' "$TMP/p" ||
		fail "merge work_a ($k): work_a still has self time"
done
grep -q '"hash":"#tf=merge:work_a"' "$TMP/p" || fail "the transform is not in the URL"
# then "Focus on function" dispatch: it is the one root, with every sample that ran it
n=$(awk -F'\t' '$1 == "state" { after = 1 } after && $1 == "root" { n++ } END { print n + 0 }' "$TMP/p")
[ "$n" -eq 1 ] || fail "focus on dispatch: $n roots"
last=$(awk -F'\t' '$1 == "root" { r = $2 "\t" $3 } END { print r }' "$TMP/p")
[ "$last" = "dispatch	100.00" ] || fail "focus on dispatch: the last root is '$last'"
say "inverted roots as the fold's self; left-heavy; merge moves work_a's self to dispatch"

# "Collapse recursion" on a thread that recurses 20 calls deep (threads_deep):
# recurse is drawn at 20 depths before, at one after, as wide as the thread
{ "$EPROF" record -F 499 -o "$TMP/d.eprof" -- "$WORKLOADS/threads_deep" 300 20 0 >/dev/null &&
	"$EPROF" report -i "$TMP/d.eprof" --html "$TMP/d.html"; } 2>"$TMP/err" || { cat "$TMP/err"; fail "record or report failed"; }
drive "$TMP/d.html" depths recurse state transform rec recurse depths recurse screenshot "$ART/collapsed.png" \
	>"$TMP/d" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
before=$(awk -F'\t' '$1 == "state" { exit } $1 == "depth" && $5 { n++ } END { print n + 0 }' "$TMP/d")
after=$(awk -F'\t' '$1 == "state" { on = 1 } on && $1 == "depth" { n++; m += $5 } END { print n + 0, m + 0 }' "$TMP/d")
say "recurse drawn $before times inside itself; after Collapse recursion (drawn, inside itself): $after"
[ "$before" -ge 15 ] || fail "recurse is drawn inside itself $before times only (not recursing?)"
[ "${after% *}" -ge 1 ] && [ "${after#* }" -eq 0 ] || fail "after Collapse recursion recurse (drawn, inside itself): $after"

# the module column: where each function's frames came from
drive "$TMP/k.html" modules >"$TMP/m" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
mod() { awk -F'\t' -v f="$1" '$1 == "module" && $2 == f { print $3 }' "$TMP/m"; }
[ "$(mod dispatch)" = known_split ] || fail "dispatch's module is '$(mod dispatch)', not known_split"
case "$(mod __libc_start_main)" in libc.so*) ;; *) fail "__libc_start_main's module is '$(mod __libc_start_main)'";; esac
k=$(awk -F'\t' '$1 == "module" && $2 ~ /_\[k\]$/ { print $3; exit }' "$TMP/m")
[ "$k" = "[kernel.kallsyms]" ] || fail "a kernel function's module is '$k'"
say "modules: dispatch in known_split, __libc_start_main in $(mod __libc_start_main), the kernel's in $k"

# time views keep their colours through the transforms: on an off-CPU recording of a thread that
# spins (spin_phase), sleeps (sleep_phase) and waits on a pipe (wait_phase), opened on wall time,
# sleep_phase is cool (blue above red) and spin_phase warm (red above blue) before and after
# Collapse recursion, Merge function and Focus on function
"$EPROF" record --off-cpu -F 499 -o "$TMP/o.eprof" -- "$WORKLOADS/offcpu_split" split 200 300 200 \
	>/dev/null 2>"$TMP/err" && "$EPROF" report -i "$TMP/o.eprof" --html "$TMP/o.html" 2>>"$TMP/err" ||
	{ cat "$TMP/err"; fail "record --off-cpu or report failed"; }
drive "$TMP/o.html" frame sleep_phase frame spin_phase transform rec sleep_phase frame sleep_phase frame spin_phase \
	transform merge wait_phase frame sleep_phase frame spin_phase transform focus sleep_phase frame sleep_phase \
	screenshot "$ART/offcpu-focused.png" >"$TMP/o" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/o"
[ "$(grep -c $'^frame\tsleep_phase' "$TMP/o")" -eq 4 ] && [ "$(grep -c $'^frame\tspin_phase' "$TMP/o")" -eq 3 ] ||
	fail "sleep_phase or spin_phase not drawn at every step"
awk -F'\t' '$1 == "frame" && $2 == "sleep_phase" && !($5 > $3) { bad = 1 } END { exit bad }' "$TMP/o" ||
	fail "sleep_phase (blocked) lost its cool colour after a transform"
awk -F'\t' '$1 == "frame" && $2 == "spin_phase" && !($3 > $5) { bad = 1 } END { exit bad }' "$TMP/o" ||
	fail "spin_phase (running) is not warm after a transform"
say "off-CPU: sleep_phase cool and spin_phase warm through collapse, merge and focus"
