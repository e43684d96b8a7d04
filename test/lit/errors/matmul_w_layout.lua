-- matmul: w_layout is "nk" (w [N, K], the default) or "kn".
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 16, 64 })
local w = weight("w", f16, { 64, 32 })
-- CHECK: matmul_w_layout.lua:[[@LINE+1]]: error: matmul: attribute w_layout must be "nk" or "kn", got nt
output("y", matmul(x, w, { w_layout = "nt" }))
