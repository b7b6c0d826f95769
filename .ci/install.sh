#!/bin/bash
# SPDX-License-Identifier: MIT
# .ci/install.sh BUILD_DIR SRC_DIR: `cmake --install` into a DESTDIR puts
# the eprof binary and its man page (docs/eprof.1) where GNUInstallDirs
# says, and the installed binary runs.
set -euo pipefail
build=${1:?usage: install.sh BUILD_DIR SRC_DIR}
src=${2:?usage: install.sh BUILD_DIR SRC_DIR}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest cmake --install "$build" --prefix /usr >/dev/null
bin=$dest/usr/bin/eprof
man=$dest/usr/share/man/man1/eprof.1
[ -x "$bin" ] || { echo "install: no executable $bin" >&2; exit 1; }
[ -f "$man" ] || { echo "install: no man page $man" >&2; exit 1; }
cmp -s "$man" "$src/docs/eprof.1" || { echo "install: $man is not docs/eprof.1" >&2; exit 1; }
"$bin" --version | grep -q '^eprof ' || { echo "install: $bin --version failed" >&2; exit 1; }
n=$(find "$dest" -type f | wc -l)
[ "$n" = 2 ] || { echo "install: $n files installed, expected 2" >&2; find "$dest" -type f >&2; exit 1; }
echo "install: $bin and $man"
