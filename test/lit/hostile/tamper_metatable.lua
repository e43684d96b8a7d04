-- tamper: a handle's metatable is locked: getmetatable gives its kind,
-- setmetatable is refused.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
assert(getmetatable(x) == "tensor" and getmetatable(f32) == "dtype")
-- CHECK: tamper_metatable.lua:[[@LINE+1]]: error: bad argument #1 to 'setmetatable' (table expected, got tensor)
setmetatable(x, { __index = function() return 100000 end })
