-- a Lua syntax error is reported at its line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
-- CHECK: syntax.lua:[[@LINE+1]]: error: {{.*}}near
local y = = silu(x)
