-- --emit takes one of its kinds, named in the error, and one --arch.
-- RUN: rm -rf %t; %kgen --emit=graphs --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1 && FileCheck %s < %t.log
-- CHECK: kgen: error: --emit=graphs: expected hip, llvm, asm, meta, table, graph or kernels
-- RUN: rm -rf %t; %kgen --emit=kernels --arch gfx1100,gfx942 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && FileCheck %s --check-prefix=ARCHES < %t.log
-- ARCHES: kgen: error: --emit takes one --arch, got 2
-- a model's error stops --emit=graph too, with nothing written
-- RUN: rm -rf %t; %kgen --emit=graph --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && FileCheck %s --check-prefix=MODEL < %t.log
-- MODEL: emit_kind.lua:[[@LINE+2]]: error: add: shape mismatch: [4] vs [5]
local a = input("a", f32, { 4 })
output("y", add(a, input("b", f32, { 5 })))
