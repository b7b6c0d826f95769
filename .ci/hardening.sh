#!/bin/bash
# SPDX-License-Identifier: MIT
# .ci/hardening.sh BINARY: the hardening of an optimized build is there:
# PIE, full RELRO (GNU_RELRO and BIND_NOW), a stack protector and
# _FORTIFY_SOURCE's checked calls.
set -u
bin=${1:?usage: hardening.sh BINARY}
bad=0
no() { printf 'hardening: %s: %s\n' "$bin" "$*" >&2; bad=1; }
readelf -h "$bin" | grep -q 'Type:.*DYN' || no "not a position-independent executable"
readelf -lW "$bin" | grep -q GNU_RELRO || no "no RELRO segment"
readelf -dW "$bin" | grep -qE 'BIND_NOW|FLAGS_1.*NOW' || no "no BIND_NOW (RELRO is partial)"
nm -D "$bin" | grep -q ' U __stack_chk_fail' || no "no stack protector"
nm -D "$bin" | grep -qE ' U __[a-z]+_chk' || no "no _FORTIFY_SOURCE checked calls"
[ $bad = 0 ] && echo "hardening: $bin is PIE, full RELRO, stack-protected and fortified"
exit $bad
