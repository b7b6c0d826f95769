#!/bin/bash
# SPDX-License-Identifier: MIT
# t1301: `eprof info` takes the recording as perf users and `eprof report`
# spell it, `-i FILE` or `--input FILE`, as well as a bare FILE, and prints
# the same; an option missing its value says so in one line (before,
# `info --debug-dir` said "unknown option '--debug-dir'" and `info -i FILE`
# was refused).
. "$E2E_DIR/lib.sh"

fx="$E2E_DIR/../fixtures/v1/known_split.eprof"
"$EPROF" info "$fx" >"$TMP/bare" 2>"$TMP/bare.err" || { cat "$TMP/bare.err"; fail "info FILE failed"; }
for form in "-i $fx" "--input $fx" "--input=$fx"; do
	# shellcheck disable=SC2086
	"$EPROF" info $form >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "info $form failed"; }
	cmp -s "$TMP/bare" "$TMP/out" || fail "info $form prints other than info FILE"
done
grep -q '^samples' "$TMP/out" || fail "info printed no samples row"

check_usage() { # EXPECTED-TEXT ARGS...: exit 2 and one error line holding the text
	local want=$1
	shift
	"$EPROF" info "$@" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "info $*: exit $rc, not 2"
	one_line_error "$TMP/err"
	grep -qF -- "$want" "$TMP/err" || { cat "$TMP/err"; fail "info $*: no '$want'"; }
}
check_usage "option '--debug-dir' needs a value" --debug-dir
check_usage "option '-i' needs a value" -i
check_usage "info reads one recording" -i "$fx" -i "$fx"
check_usage "unexpected argument" -i "$fx" "$fx"
say "info -i, --input and missing values: as expected"
exit 0
