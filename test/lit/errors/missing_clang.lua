-- no clang where --clang points.
-- RUN: rm -rf %t; timeout 5 %kgen --clang=/nonexistent/clang --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: kgen: error: no clang found for gfx1100 (tried /nonexistent/clang); install clang-19 and lld-19 or pass --clang=PATH
output("y", silu(input("x", f32, { 4 })))
