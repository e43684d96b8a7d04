-- a tensor's element count is a product of at most 4 syms (what a kgrt size
-- expression holds): a fifth is refused at the model's line, as what it is.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- RUN: sed 's/{ A, B, A, B, A }/{ A, B, A, B }/' %s > %t.four.lua
-- RUN: %kgen --arch gfx1100 --emit=hip %t.four.lua -o /dev/null
local A, B = sym("A", 2), sym("B", 3)
-- CHECK: size_syms.lua:[[@LINE+1]]: error: input x: [A, B, A, B, A] has 5 symbolic dims, more than 4 (a size kgrt evaluates holds at most 4 syms; make the others constants)
local x = input("x", f32, { A, B, A, B, A })
output("y", x * 2.0)
