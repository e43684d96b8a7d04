-- an endless loop runs out of the instruction budget, quickly.
-- RUN: rm -rf %t; timeout 60 %kgen --arch gfx1100 --max-seconds=50 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local n = 0
while true do
-- CHECK: instruction_budget.lua:[[@LINE+1]]: error: instruction budget of 200000000 exhausted
  n = n + 1
end
