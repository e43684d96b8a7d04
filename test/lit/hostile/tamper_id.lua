-- tamper: a tensor's id (an index C used for heap writes) cannot be set.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local z = input("z", f32, { 4 })
-- CHECK: tamper_id.lua:[[@LINE+1]]: error: tensor: field id cannot be changed (kgen's handles are read-only)
z.id = 100000
output("y", z * 2.0)
