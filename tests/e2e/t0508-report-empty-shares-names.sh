#!/bin/bash
# SPDX-License-Identifier: MIT
# t0508: a filter that matches nothing is no error (exit 0, as perf), but it
# says so on stderr with the samples the recording has; the SELF% column of
# --top adds up to exactly 100.00% however many small rows it has (each
# share rounded alone once added up to 104%); a default symbol version
# ("__libc_start_main@@GLIBC_2.34") is not part of a name, as in perf.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -q -F 999 -o "$TMP/k.eprof" -- "$WORKLOADS/known_split" 300 >/dev/null ||
	fail "record failed"
"$EPROF" report -i "$TMP/k.eprof" --fold >"$TMP/all.fold" 2>"$TMP/all.err" || fail "report failed"
total=$(samples "$TMP/all.fold" .)
[ "$total" -gt 0 ] || fail "no samples"

empty() {
	"$EPROF" report -i "$TMP/k.eprof" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	cat "$TMP/err"
	[ $rc -eq 0 ] || fail "'$*' exited $rc: a filter that matches nothing is no error"
	[ "$(samples "$TMP/out" .)" = 0 ] || fail "'$*' printed samples"
	grep -Fqx "eprof: no samples match $want ($total samples in the recording)" "$TMP/err" ||
		fail "'$*' does not say that nothing matched (expected: no samples match $want ($total samples in the recording))"
}
want="--comm nosuch"; empty --fold --comm nosuch
want="--from=100000"; empty --fold --from=100000
want="--pid 1 --from 0.1"; empty --fold --pid 1 --from 0.1
# a filter that matches something says nothing of the kind
"$EPROF" report -i "$TMP/k.eprof" --fold --comm known_split >/dev/null 2>"$TMP/err" || fail "report --comm failed"
! grep -q "no samples match" "$TMP/err" || fail "a filter that matched says it did not"

# SELF% from counts, rounded together: many one-sample rows (-a at 4999 Hz
# over whatever runs beside) must not push the column past 100%.
"$EPROF" record -q -a -F 4999 -d 1 -o "$TMP/a.eprof" || fail "record -a failed"
for f in k a; do
	"$EPROF" report -i "$TMP/$f.eprof" --top 1000000 >"$TMP/$f.top" 2>/dev/null || fail "report --top failed"
	read -r rows n pct small < <(awk '/^# top .* by self/ { t = 1; next } /^# top/ { t = 0 }
		t && $1 ~ /^[0-9]+$/ { rows++; n += $1; if ($2 ~ /^</) small++; else { sub("%", "", $2); split($2, p, "."); c += p[1] * 100 + p[2] } }
		END { printf "%d %d %d %d\n", rows, n, c, small }' "$TMP/$f.top")
	all=$(sed -n 's/^# eprof top: \([0-9]*\) samples.*/\1/p' "$TMP/$f.top")
	say "$f: $rows functions with self samples, $n of $all samples, SELF% adds up to $pct hundredths ($small shown as <0.01%)"
	[ "$n" = "$all" ] || fail "$f: the SELF column adds up to $n, not $all"
	# a function shown as <0.01% counts 0 in the sum: the rest may fall short by as many hundredths
	[ "$pct" -le 10000 ] && [ "$pct" -ge $((10000 - small)) ] ||
		fail "$f: SELF% adds up to $pct hundredths of a percent, not 10000"
done

! grep -q '@@' "$TMP/all.fold" "$TMP/k.top" "$TMP/a.top" || fail "a name keeps its default symbol version (@@)"
libc=$(awk '/libc\.so/ { print $NF; exit }' /proc/self/maps)
if [ -n "$libc" ] && command -v readelf >/dev/null && readelf -sW "$libc" | grep -q ' __libc_start_main@@'; then
	grep -q ';__libc_start_main;' "$TMP/all.fold" || fail "__libc_start_main is not named without its version"
fi
exit 0
