-- exhaustion: a model that keeps the Lua state at its memory cap and then
-- ends normally: kgen's C reads the graph and runs the params rules in that
-- state without aborting (an error, or a build).
-- RUN: rm -rf %t; timeout 20 %kgen --arch gfx1100 --max-memory=32 %s -o %t > %t.log 2>&1; test $? -le 1
-- RUN: test $(wc -l < %t.log) -le 2
-- RUN: FileCheck %s < %t.log
-- CHECK-NOT: outside a protected call
keep = {}
pcall(function()
  while true do keep[#keep + 1] = string.rep("x", 4096) .. #keep end
end)
for i = 1, 4 do keep[#keep] = nil end
local x = input("x", f32, { 4 })
output("y", x * 2.0)
