-- a misspelt op is an error that names the op it is closest to.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
-- CHECK: unknown_op_typo.lua:[[@LINE+1]]: error: rmsnrom is not an op or a global (did you mean rmsnorm? kgen --list-ops lists the ops)
output("y", rmsnrom(x))
