#!/bin/bash
# SPDX-License-Identifier: MIT
# t1304: the usage texts agree with the option tables. Every output that
# `eprof report` accepts (the list its "choose one output" error gives)
# is in `eprof --help` and in `eprof report --help`; every option that
# `eprof record|report|info --help` prints is in the man page (docs/eprof.1,
# what `cmake --install` installs). `eprof --help` once lacked --html and
# --samples. Each command's --help and its option table (the struct option
# array in its source) name the same long options, and the parser accepts
# every option the --help text prints.
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
# README's usage block: record's and info's synopsis as --help prints it,
# and report's line names every output
readme="$E2E_DIR/../../README.md"
for cmd in record info; do
	syn=$("$EPROF" $cmd --help | head -1 | sed 's/^usage: //')
	grep -qxF "    $syn" "$readme" || fail "README's usage block lacks '$syn'"
done
line=$(grep -m1 '^    eprof report \[-i FILE\]' "$readme") || fail "README has no report usage line"
for v in $views; do
	echo "$line" | grep -qE -- "$v( |\]|\$)" || fail "README's report usage line lacks $v"
done

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

# The option tables, read from the sources: each long option is in --help,
# and each option --help prints is one the parser knows.
src="$E2E_DIR/../.."
m=0 p=0
for pair in record:record/cmd_record.c report:report/cmd_report.c info:report/cmd_info.c; do
	cmd=${pair%%:*} file="$src/${pair#*:}"
	[ -r "$file" ] || fail "no source at $file"
	table=$(grep -oE '^[[:space:]]*\{ "[a-z][a-z-]*", (no|required|optional)_argument' "$file" |
		sed -E 's/.*"([a-z-]+)".*/--\1/' | sort -u)
	[ "$(echo "$table" | wc -l)" -ge 4 ] || fail "$file: option table not found"
	for opt in $table; do
		grep -qE -- "(^|[[ ,(|])$opt([] ,=)|:[]|\$)" "$TMP/$cmd.help" ||
			fail "eprof $cmd --help lacks $opt of its option table"
		m=$((m + 1))
	done
	# the options each line of --help starts with (prose names other commands')
	for opt in $(grep -oE -- '^ +([A-Z]+, )?(-[A-Za-z], )?--[a-z][a-z-]*' "$TMP/$cmd.help" | grep -oE -- '--[a-z-]+$' | sort -u); do
		(cd "$TMP" && timeout 5 "$EPROF" $cmd "$opt" </dev/null >/dev/null 2>"$TMP/opt.err")
		grep -q "unknown option" "$TMP/opt.err" && { cat "$TMP/opt.err"; fail "eprof $cmd rejects $opt, which its --help prints"; }
		p=$((p + 1))
	done
done
[ $m -ge 60 ] || fail "only $m long options in the three tables"
[ $p -ge 40 ] || fail "only $p options start a line of the three --help texts"
say "the three option tables' $m long options are in --help; its $p option lines all parse"
exit 0
