#!/bin/bash
# SPDX-License-Identifier: MIT
# t0212: PLT stubs are named "func@plt" and a bare assembly label (size 0
# in the symbol table) is named, from the recording alone: plt_loop calls
# libc's labs() through its PLT in a tight loop and spins in label_spin;
# plt_loop_ibt is the same program with the IBT layout (stubs in .plt.sec,
# where about a sixth of the time is spent in the stub).
. "$E2E_DIR/lib.sh"
require_root; require_btf

for w in plt_loop plt_loop_ibt; do
	# 3000 rounds: about 1.6 s of CPU, whatever the load
	# (plt_loop's lazy stub is two instructions: 3x the rounds, so that
	# it is sampled at all in nearly every run: 0 of 1,904 samples once)
	rounds=3000
	[ $w = plt_loop ] && rounds=9000
	"$EPROF" record -F 999 -o "$TMP/$w.eprof" -- "$WORKLOADS/$w" $rounds 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "$w: record failed"; }
	# the recording alone: no local file may help
	mv "$WORKLOADS/$w" "$TMP/$w.moved"
	"$EPROF" report -i "$TMP/$w.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err"
	rc=$?
	mv "$TMP/$w.moved" "$WORKLOADS/$w"
	[ $rc -eq 0 ] || { cat "$TMP/rep.err"; fail "$w: report failed"; }
	"$EPROF" report -i "$TMP/$w.eprof" --top 6 2>/dev/null | sed -n 3,9p

	total=$(samples "$TMP/fold" "^$w;")
	stub=$(samples "$TMP/fold" "^$w;(.*;)?main;(call_labs;)?labs@plt( |;|\$)")
	label=$(samples "$TMP/fold" "^$w;(.*;)?label_spin( |;|\$)")
	unnamed=$(samples "$TMP/fold" "^$w;(.*;)?$w\\+0x")
	say "$w: $total samples, labs@plt $stub, label_spin $label, unnamed in $w $unnamed"
	[ "$total" -ge 800 ] || fail "$w: only $total samples (expected ~1600, or ~4800 for plt_loop)"
	[ "$stub" -gt 0 ] || fail "$w: no frame named labs@plt"
	[ "$unnamed" -eq 0 ] || fail "$w: $unnamed samples in unnamed code of $w"
	# label_spin (a frameless leaf: its caller main is not in its stack) does
	# 4/5 of each round's loop iterations: at least a fifth of the time
	[ $((label * 100)) -ge $((total * 20)) ] || fail "$w: label_spin has $label of $total samples"
	if [ $w = plt_loop_ibt ]; then
		[ $((stub * 100)) -ge $((total * 5)) ] || fail "$w: labs@plt has $stub of $total samples"
	fi
done
exit 0
