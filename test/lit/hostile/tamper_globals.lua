-- tamper: replacing the globals kgen's library uses (math.type, string.format,
-- pairs, ipairs, setmetatable, table.insert, error, ...) changes the model's
-- own copies only: every generated file is byte for byte the untampered
-- model's.
-- RUN: rm -rf %t && mkdir -p %t/a %t/b
-- RUN: cp %S/inputs/plain.lua %t/a/m.lua && cp %s %t/b/m.lua
-- RUN: %kgen --arch gfx1100 %t/a/m.lua -o %t/a/out > /dev/null
-- RUN: %kgen --arch gfx1100 %t/b/m.lua -o %t/b/out > /dev/null
-- RUN: diff -r %t/a/out %t/b/out
math.type = function() return "float" end
math.max = function() return 1 end
string.format = function() return "x\"; int pwned; //" end
string.match = function() return "x" end
table.insert = function() end
table.concat = function() return "" end
table.unpack = function() return nil end
pairs = function() return function() end end
ipairs = function() return function() end end
setmetatable = function(t) return t end
type = function() return "table" end
tostring = function() return "#embed \"/etc/passwd\"" end
error = function() end
assert = function(v) return v end
local x = input("x", f32, { 4 })
output("y", x * 2.0)
