#!/bin/bash
# SPDX-License-Identifier: MIT
# t1304: the usage texts agree with the option tables. Every output that
# `eprof report` accepts (the list its "choose one output" error gives)
# is in `eprof --help` and in `eprof report --help`; every option that
# `eprof record|report|info --help` prints is in the man page (docs/eprof.1,
# what `cmake --install` installs). `eprof --help` once lacked --html and
# --samples.
. "$E2E_DIR/lib.sh"

man="$E2E_DIR/../../docs/eprof.1"
[ -r "$man" ] || fail "no man page at $man"
fx="$E2E_DIR/../fixtures/v1/known_split.eprof"

"$EPROF" --help >"$TMP/main" || fail "eprof --help failed"
"$EPROF" report -i "$fx" --fold --top >/dev/null 2>"$TMP/both"
grep -q 'choose one output of' "$TMP/both" || { cat "$TMP/both"; fail "no 'choose one output' error"; }
views=$(sed 's/.*choose one output of //' "$TMP/both" | grep -oE -- '--[a-z][a-z-]*')
[ "$(echo "$views" | wc -l)" -ge 9 ] || fail "only $(echo "$views" | wc -w) outputs listed: $views"
grep '^   eprof report \[' "$TMP/main" >"$TMP/report-line" || fail "eprof --help has no report line"
"$EPROF" report --help >"$TMP/report" || fail "eprof report --help failed"
for v in $views; do
	grep -qE -- "$v( |\)|\$)" "$TMP/report-line" || { cat "$TMP/main"; fail "eprof --help lacks $v"; }
	grep -qE -- "^   $v( |\$)" "$TMP/report" || fail "eprof report --help lacks $v"
done
say "outputs in eprof --help and report --help: $(echo $views)"

# The man page's options, its troff escapes (\- and \fB...) taken out.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man" >"$TMP/man"
n=0
for cmd in record report info; do
	"$EPROF" $cmd --help >"$TMP/$cmd.help" || fail "eprof $cmd --help failed"
	for opt in $(grep -oE -- '(^| |\[|\(|\|)--?[A-Za-z][a-z-]*' "$TMP/$cmd.help" | sed 's/^[ [(|]//' | sort -u); do
		[ "$opt" = -h ] || [ "$opt" = --help ] && continue
		grep -qE -- "(^|[ ,(\"\[])$opt([ ,:)\"=\[]|\$)" "$TMP/man" || fail "docs/eprof.1 lacks $cmd's $opt"
		n=$((n + 1))
	done
done
[ $n -ge 40 ] || fail "only $n options found in the --help texts"
say "the man page has all $n options of the three --help texts"
exit 0
