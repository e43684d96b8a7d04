-- exhaustion: a model that fills the Lua heap to its cap, lets a quarter go
-- and then builds: the whole build (kgen and the compilers it runs) stays
-- under the default 256 MiB, since kgen closes the Lua state and returns its
-- memory before compiling (the build peaked at 298 MiB resident before).
-- After a refusal the heap must fall an eighth below the cap before it grows
-- again, so letting a quarter go is enough, and a few blocks are not.
-- RUN: rm -rf %t; timeout 60 %peak_rss 256 %kgen --arch gfx1100 --max-seconds=30 --no-cache %s -o %t
-- RUN: ls %t | FileCheck %s
-- CHECK: memory_then_build.c
keep = {}
pcall(function()
  while true do keep[#keep + 1] = string.rep("x", 4096) .. #keep end
end)
for _ = 1, #keep // 4 do keep[#keep] = nil end
local x = input("x", f32, { 4 })
output("y", x * 2.0)
