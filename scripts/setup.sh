#!/usr/bin/env bash
# setup.sh - installs the Debian 12 packages kgen's build, tests and example
# need (libclang-rt-19-dev: libFuzzer and the sanitizers for fuzz/; pkgconf:
# the installed-package test's plain Makefile product; cargo and
# python3-numpy: the Rust and Python bindings' tests, bindings/;
# libmicrohttpd-dev and libjansson-dev: kgen-serve's HTTP and JSON, serve/,
# jansson also the sd product's tokenizer files; libpng-dev: examples/sd's
# images).
# Idempotent: installs only what is missing.
set -euo pipefail
pkgs=(build-essential cmake python3 liblua5.4-dev clang-19 lld-19 llvm-19 llvm-19-tools
      libamd-comgr-dev libamdhip64-dev valgrind libclang-rt-19-dev pkgconf libllvm19
      cargo python3-numpy libmicrohttpd-dev libjansson-dev libpng-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: all packages present"
