#!/usr/bin/env bash
# setup_openai.sh DIR - the official openai npm package (version 7, pinned)
# into DIR/node_modules from the npm registry, for kgen-serve's tests (a
# build directory: nothing of it goes into the repository). Exits 77 (the
# tests show as skipped) when npm or the registry cannot be reached.
set -uo pipefail
dir=$1 version=7.60.0
if [ -f "$dir/node_modules/openai/package.json" ] &&
  grep -q "\"version\": \"$version\"" "$dir/node_modules/openai/package.json"; then
  echo "openai $version in $dir"
  exit 0
fi
if ! command -v npm > /dev/null || ! command -v node > /dev/null; then
  echo "SKIPPED: no node and npm"
  exit 77
fi
mkdir -p "$dir"
if ! (cd "$dir" && timeout 300 npm install --no-audit --no-fund --silent --no-save \
  --engine-strict=false "openai@$version" > npm.log 2>&1); then
  cat "$dir/npm.log"
  echo "SKIPPED: npm install openai@$version failed (no registry?)"
  exit 77
fi
echo "openai $version in $dir"
