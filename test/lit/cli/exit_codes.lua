-- errors exit with 1 exactly, print one line, and write nothing.
-- RUN: rm -rf %t; %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t
-- RUN: test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: exit_codes.lua:9: error: add: shape mismatch: [4] vs [5]
local a = input("a", f32, { 4 })
local b = input("b", f32, { 5 })
output("y", add(a, b))
