# SPDX-License-Identifier: MIT
# damage.sh: sourced by the reader's damage tests (t1003, t1004) after
# lib.sh: every view, and the checks that a damaged file fails each one
# as it must. The caller sets base (where make_base writes an undamaged
# recording: gen_hostile's, with one loss row).

make_base() {
	"$WORKLOADS/gen_hostile" "$base" || fail "gen_hostile failed"
	sqlite3 "$base" "INSERT INTO loss (time, cpu, lost_samples, lost_ustacks, lost_kstacks,
		truncated_stacks, lost_sideband) VALUES (2000000000, 1, 1, 0, 0, 0, 0)" ||
		fail "cannot add a loss row"
}

views=(
	"report --fold -i @"
	"report --svg $TMP/o.svg -i @"
	"report --top -i @"
	"report --per-cpu -i @"
	"report --per-node -i @"
	"report --timeline 0.1 -i @"
	"report --pprof $TMP/o.pb -i @"
	"report --samples -i @"
	"report --inline --lines --by tid --fold -i @"
	"report --diff $base @ --fold"
	"report -i $base -i @ --top"
	"info @"
	"info --json @"
)

# run VIEW FILE: sets rc; out and err in $TMP
run() {
	local cmd=${1//@/$2}

	# shellcheck disable=SC2086 # the view is words
	timeout -k 5 20 "$EPROF" $cmd >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# check NAME VIEW: the last run failed as it must
check() {
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$1: '$2' hung (killed after 20 s)"
	[ $rc -lt 128 ] || { cat "$TMP/err"; fail "$1: '$2' crashed (exit $rc)"; }
	[ $rc -ne 0 ] || { cat "$TMP/err"; fail "$1: '$2' exited 0 on a damaged file"; }
	[ -z "$(ls "$TMP"/o.* 2>/dev/null)" ] || fail "$1: '$2' left an output file"
	[ "$(grep -c '^eprof: error: ' "$TMP/err")" -eq 1 ] ||
		{ cat "$TMP/err"; fail "$1: '$2' did not print exactly one error line"; }
	grep '^eprof: error: ' "$TMP/err" | grep -qF "$3" ||
		{ cat "$TMP/err"; fail "$1: '$2': the error does not name '$3'"; }
}

# every_view NAME FILE: every view fails on FILE as it must
runs=0
every_view() {
	for v in "${views[@]}"; do
		rm -f "$TMP"/o.*
		run "$v" "$2"
		check "$1" "$v" "$2"
		runs=$((runs + 1))
	done
	say "$1: $(grep '^eprof: error: ' "$TMP/err")"
}

# damage_all: each "NAME|SQL" of damages[] applied to a copy of $base, every view run on it
damage_all() {
	local d name

	for d in "${damages[@]}"; do
		name=${d%%|*}
		cp "$base" "$TMP/$name.eprof" || fail "cp"
		sqlite3 "$TMP/$name.eprof" "${d#*|}" || fail "$name: sqlite3 refused the damage"
		every_view "$name" "$TMP/$name.eprof"
	done
}
