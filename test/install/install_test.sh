#!/usr/bin/env bash
# install_test.sh - products build against an installed kgen, as users will:
# `cmake --install` to a prefix, then
#   1. examples/llm built out of tree with find_package(kgen) and
#      kgen_add_model (the installed kgen compiles its table);
#   2. the same product from a plain Makefile with `pkg-config kgrt` and a
#      table the installed kgen wrote;
# each run on the sim device on MODEL (a tiny_llama GGUF file).
#   install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR MODEL
set -euo pipefail
build=$1 src=$2 work=$3 model=$4
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/kgen"
test -f "$work/prefix/lib/pkgconfig/kgrt.pc"

cmake -S "$src/examples/llm" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DKGEN_EXAMPLE_ARCHES=gfx1100 > "$work/cmake.log"
cmake --build "$work/cmake" -j2 > "$work/cmake-build.log"
"$work/cmake/llm" --device sim:gfx1100 --prompt "Once upon a time" -n 4 "$model" \
  > "$work/cmake.out"
echo "find_package(kgen) product: $(cat "$work/cmake.out")"

"$work/prefix/bin/kgen" --arch gfx1100 "$src/examples/llm/tiny_llama.lua" -o "$work/gen" \
  > "$work/kgen.log"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" make -s -f "$src/test/install/Makefile" \
  SRC="$src/examples/llm" GEN="$work/gen" OUT="$work/llm-make"
"$work/llm-make" --device sim:gfx1100 --prompt "Once upon a time" -n 4 "$model" \
  > "$work/make.out"
echo "pkg-config product:        $(cat "$work/make.out")"
# the two products, built two ways from the same table source, agree
cmp "$work/cmake.out" "$work/make.out"
echo "install: 2 passed, 0 failed"
