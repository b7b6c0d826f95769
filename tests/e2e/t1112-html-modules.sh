#!/bin/bash
# SPDX-License-Identifier: MIT
# t1112: the HTML report's module column (issue 21) when one function name
# is in two binaries: a program and the library it links each have a
# static twin_spin, the program's called for 2 parts of the time, the
# library's for 1. The function tables list twin_spin twice, once with each
# module, with the shares of the fold's twin_spin frames under each caller
# (app_work, lib_work) to 2 points, not once with the module of the first
# frame seen. Screenshot: tests/artifacts/t1112.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser
ART=$(artifacts t1112)

cat >"$TMP/twin.h" <<'C'
#include <time.h>
static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* spins for s seconds of CPU time */
static __attribute__((noinline)) unsigned long twin_spin(double s)
{
	volatile unsigned long acc = 1;
	double end = cpu_s() + s;
	do
		for (int i = 0; i < 20000; i++)
			acc = acc * 6364136223846793005ul + 1442695040888963407ul;
	while (cpu_s() < end);
	return acc;
}
C
cat >"$TMP/lib.c" <<'C'
#include "twin.h"
__attribute__((noinline)) unsigned long lib_work(double s) { return twin_spin(s) + 1; }
C
cat >"$TMP/app.c" <<'C'
#include <stdlib.h>
#include "twin.h"
unsigned long lib_work(double s);
__attribute__((noinline)) unsigned long app_work(double s) { return twin_spin(s) + 2; }
int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0.9;
	unsigned long x = 0;
	for (int i = 0; i < 30; i++)	/* interleaved: load on the machine hits both alike */
		x += app_work(s / 45) + lib_work(s / 90);
	return x == 42;
}
C
cc -O1 -g -fno-omit-frame-pointer -fPIC -shared -o "$TMP/libtwin.so" "$TMP/lib.c" &&
	cc -O1 -g -fno-omit-frame-pointer -o "$TMP/twinapp" "$TMP/app.c" -L"$TMP" -ltwin -Wl,-rpath,"$TMP" ||
	fail "cannot build the workload"
"$EPROF" record -F 499 -o "$TMP/t.eprof" -- "$TMP/twinapp" 1.2 >/dev/null 2>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/t.eprof" --html "$TMP/t.html" 2>>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/t.eprof" --fold >"$TMP/t.fold" 2>>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record or report failed"; }
# the fold's share of twin_spin under each caller (the truth), in points
share() {
	awk -v c="$1" '{ n = $NF; t += n } index($0, ";" c ";twin_spin") { s += n } END { printf "%.2f\n", t ? 100 * s / t : 0 }' "$TMP/t.fold"
}
want_app=$(share app_work)
want_lib=$(share lib_work)
say "the fold: twin_spin under app_work $want_app%, under lib_work $want_lib%"
awk -v a="$want_app" -v l="$want_lib" 'BEGIN { exit !(a > 20 && l > 10) }' || fail "the workload did not run both twins"

drive "$TMP/t.html" modules top screenshot "$ART/modules.png" >"$TMP/p" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
grep -E $'^(module|top-total)\ttwin_spin' "$TMP/p"
mods=$(awk -F'\t' '$1 == "module" && $2 == "twin_spin" { print $3 }' "$TMP/p" | sort | tr '\n' ' ')
[ "$mods" = "libtwin.so twinapp " ] || fail "twin_spin is listed with the modules '$mods', not libtwin.so and twinapp"
# each row's total share, in the table's order of the modules: the rows of top-total carry no module,
# so they are matched through the modules rows (the same table, the same order)
paste <(awk -F'\t' '$1 == "module" && $2 == "twin_spin" { print $3 }' "$TMP/p") \
	<(awk -F'\t' '$1 == "top-total" && $2 == "twin_spin" { sub(/%/, "", $3); print $3 }' "$TMP/p") >"$TMP/rows"
cat "$TMP/rows"
got_app=$(awk -F'\t' '$1 == "twinapp" { print $2 }' "$TMP/rows")
got_lib=$(awk -F'\t' '$1 == "libtwin.so" { print $2 }' "$TMP/rows")
for k in app lib; do
	eval "got=\$got_$k want=\$want_$k"
	awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(g != "" && d < 2 && d > -2) }' ||
		fail "twin_spin of the $k: ${got:-no row}% in the table, $want% in the fold"
done
say "twin_spin: two rows, twinapp $got_app% (fold $want_app%), libtwin.so $got_lib% (fold $want_lib%)"
