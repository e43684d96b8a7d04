-- escape: a result does not lead to the node that made it, so no expression
-- or hole can be spliced into the kernel source (or, through #embed, a host
-- file copied into the output).
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
local y = x * 2.0
output("y", y)
-- CHECK: producer_expr.lua:[[@LINE+1]]: error: attempt to index a nil value (field 'producer')
y.producer.expr = "0\n#embed \"/etc/passwd\"\n"
