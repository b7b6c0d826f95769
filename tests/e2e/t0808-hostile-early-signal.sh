#!/bin/bash
# SPDX-License-Identifier: MIT
# t0808: a SIGINT sent 10-30 ms after `record` starts is never lost. A
# background job of a script inherits SIGINT ignored, and the signal comes
# while eprof still parses options, loads BPF or scans /proc: each of 15
# tries ends the recording early (its recording, when there is one, spans
# far less than the -d 20 asked) instead of running the full duration.
# The time counts from eprof's exec: before it, the signal reaches the
# shell's child, which ignores it, and no program can see it. Every other
# try starts eprof with SIGINT and SIGTERM blocked and SIGTERM ignored (a
# parent's leftovers, kept across exec), and sends SIGTERM or SIGINT.
. "$E2E_DIR/lib.sh"
require_root; require_btf

for i in $(seq 15); do
	rm -f "$TMP/r.eprof"
	sig=INT
	if [ $((i % 2)) = 0 ]; then
		[ $((i % 4)) = 0 ] && sig=TERM
		/usr/bin/python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$EPROF" record -a -F 99 -d 20 -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
	else
		"$EPROF" record -a -F 99 -d 20 -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
	fi
	rpid=$!
	for n in $(seq 100000); do [ /proc/$rpid/exe -ef "$EPROF" ] && break; done
	sleep "0.0$((10 + i * 13 % 21))"
	kill -$sig $rpid
	wait $rpid
	rc=$?
	[ -s "$TMP/r.eprof" ] || { say "try $i: stopped before a recording existed (rc $rc)"; continue; }
	start=$("$EPROF" info "$TMP/r.eprof" 2>/dev/null | awk '/^start \(ns\)/ { print $3 }')
	end=$("$EPROF" info "$TMP/r.eprof" 2>/dev/null | awk '/^end \(ns\)/ { print $3 }')
	[ -n "$start" ] && [ -n "$end" ] || { say "try $i: rc $rc, a recording without its span"; continue; }
	span=$(( (end - start) / 1000000 ))
	[ "$span" -lt 10000 ] || { cat "$TMP/rec.err"; fail "try $i: the SIG$sig was lost: the recording spans $span ms"; }
	say "try $i: SIG$sig, rc $rc, recording spans $span ms"
done
exit 0
