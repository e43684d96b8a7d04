#!/usr/bin/env bash
# test-sanitizers.sh - builds kgen, kgrt and the compiler's unit tests with
# clang-19 -fsanitize=address,undefined (every UB report fatal, leaks
# reported) in ./build-asan (BUILD_DIR to change) and runs under them the
# unit tests of gen/ (sandbox, table, expand, tmpl, compile, half,
# gguf_extreme) and the lit tests of errors/, hostile/ and cli/: what a bad
# or hostile model or command line reaches. A bounded subset: building
# everything under the sanitizers (the numerics, examples, kernel images)
# alone takes more than 13 minutes on 2 cores, past CI's budget; the ops,
# codegen and fusion lit tests and the numerics are the main run's.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-asan}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
start=$(date +%s)
CC=clang-19 CXX=clang++-19 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
# kgen, kgrt and the unit tests of the compiler's C (the runtime's own
# unit/*_sanitized tests already run under ASan+UBSan in the main run; the
# kernel-image tests need the GPU toolchain's artifacts)
unit_tests="sandbox table expand tmpl compile half gguf_extreme"
targets="kgen kgrt"
for t in $unit_tests; do targets="$targets test_$t"; done
cmake --build "$build" -j "$(nproc)" --target $targets
units=$(echo $unit_tests | wc -w)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export KGEN_TEST_SLOW=1 # unit/sandbox: no timing checks
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" \
  -R "^unit/($(echo $unit_tests | tr ' ' '|'))\$"
# (hostile/no_internal_error, 500 kgen runs, is the main run's: each of
# the models it runs as they are has its own test here)
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -q -j "$(nproc)" \
  --param kgen_site_config="$build/test/lit/lit.site.cfg.py" \
  --filter-out 'no_internal_error' \
  test/lit/errors test/lit/hostile test/lit/cli
echo "test-sanitizers: $units unit tests and lit errors/ hostile/ cli/ passed" \
  "in $(($(date +%s) - start)) s"
