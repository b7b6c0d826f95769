#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs what eprof needs to build (and, with --tests, to run its tests)
# on Debian 12. Run as root (or with sudo available).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
# build: compilers, BPF tools, the eight libraries (zlib for pprof's gzip,
# libdebuginfod for report's DEBUGINFOD_URLS, liblzma for MiniDebugInfo), and libiberty (its C++/Rust
# demangler; g++ from build-essential also builds a test workload)
pkgs=(build-essential cmake pkg-config clang llvm bpftool
      libbpf-dev libelf-dev libdw-dev libdebuginfod-dev libsqlite3-dev libzstd-dev zlib1g-dev liblzma-dev
      libiberty-dev)
if [ "${1:-}" = --tests ]; then
	# tests: real clients of eprof's output (sqlite3, xmllint, Chromium,
	# go tool pprof, addr2line) and the tools the end-to-end scripts use
	# (libclang-rt-14-dev: libFuzzer and the sanitizers for the clang fuzz build;
	# rustc: t0213 builds a Rust workload to check demangling of Rust names;
	# Debian's own programs built without frame pointers for the unwinder tests
	# (python3, xz-utils, gzip), libc6-dbg so their entry frames have names,
	# and linux-perf to compare with perf --call-graph dwarf;
	# nodejs, npm: puppeteer-core drives chromium through the HTML report)
	# (debuginfod: t0206 serves a debug file from a local server)
	# (libllvm14: test_cfi's million-row table; hyperfine: bench/)
	pkgs+=(sqlite3 elfutils debuginfod curl binutils util-linux libxml2-utils chromium golang-go gzip
	       procps time libclang-rt-14-dev rustc python3 xz-utils libc6-dbg linux-perf nodejs
	       libllvm14 hyperfine)
	# Debian's npm conflicts with a nodejs that ships its own npm (NodeSource's):
	# ask for the package only where there is no npm at all.
	command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "${1:-}" = --tests ]; then
	# puppeteer-core at the version package-lock.json pins (t1101-html-*)
	(cd "$(dirname "$0")/../tests/browser" && npm ci --no-audit --no-fund --loglevel=error)
fi
