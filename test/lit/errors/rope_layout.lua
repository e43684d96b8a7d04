-- rope: an unknown layout is refused.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f16, { T, 4, 64 })
local p = input("p", i32, { T })
-- CHECK: rope_layout.lua:[[@LINE+1]]: error: rope: attribute layout must be "half" or "interleaved", got neox
output("y", rope(x, p, { layout = "neox" }))
