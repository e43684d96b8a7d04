-- clamp takes a float tensor; bounds are finite numbers.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define bad=1 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && FileCheck %s --check-prefix=INF < %t.log
if define("bad", "") == "1" then
  -- INF: clamp_int.lua:[[@LINE+1]]: error: clamp: attribute max must be finite, got inf
  output("y", clamp(input("x", f32, { 4 }), { max = math.huge }))
else
  local i = input("i", i32, { 4, 64 })
  -- CHECK: clamp_int.lua:[[@LINE+1]]: error: clamp: x must be f32, f16 or bf16, got i32
  output("y", clamp(i, { min = 0 }))
end
