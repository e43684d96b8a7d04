-- allocating without bound hits the memory cap, quickly.
-- RUN: rm -rf %t; timeout 20 %kgen --arch gfx1100 --max-seconds=15 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local t = {}
for i = 1, 1e9 do
-- CHECK: memory_cap.lua:{{[0-9]+}}: error: memory limit of 256 MiB exceeded
  t[i] = string.rep("x", 4096) .. i
end
