-- tamper: a tensor's name (written into the generated model.c) cannot be
-- set after input() checked it.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
output("y", x * 2.0)
-- CHECK: tamper_name.lua:[[@LINE+1]]: error: tensor: field name cannot be changed (kgen's handles are read-only)
x.name = "x\", 0}}; int pwned = 1; /*"
