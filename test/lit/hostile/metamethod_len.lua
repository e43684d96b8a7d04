-- tamper: a metamethod on a table the model got from kgen (here a shape
-- whose __len raises) never runs in kgen's C: the shape a model sees is a
-- copy, and C reads kgen's own with raw accesses, in a protected call. The
-- build is byte for byte the untampered model's.
-- RUN: rm -rf %t && mkdir -p %t/a %t/b
-- RUN: cp %S/inputs/plain.lua %t/a/m.lua && cp %s %t/b/m.lua
-- RUN: %kgen --arch gfx1100 %t/a/m.lua -o %t/a/out > /dev/null
-- RUN: %kgen --arch gfx1100 %t/b/m.lua -o %t/b/out > /dev/null
-- RUN: diff -r %t/a/out %t/b/out
local x = input("x", f32, { 4 })
setmetatable(x.shape, { __len = function() error("boom") end })
output("y", x * 2.0)
