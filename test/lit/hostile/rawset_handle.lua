-- escape: a handle is not a table: rawset cannot put fields on it past its
-- locked metatable.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
output("y", x * 2.0)
-- CHECK: rawset_handle.lua:[[@LINE+1]]: error: bad argument #1 to 'rawset' (table expected, got tensor)
rawset(x, "id", 100000)
