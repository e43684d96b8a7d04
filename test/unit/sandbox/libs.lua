-- Only base, string, table, math and utf8, without the unsafe parts.
for _, name in ipairs({ "io", "os", "debug", "package", "coroutine", "dofile", "loadfile",
                        "collectgarbage" }) do
  assert(_G[name] == nil, name .. " should be nil")
end
assert(string.dump == nil and ("x").dump == nil, "string.dump should be nil")
assert(type(string.format) == "function" and type(table.concat) == "function")
assert(type(math.floor) == "function" and type(utf8.char) == "function")
assert(type(getmetatable) == "function" and type(rawget) == "function")

-- load: text works, binary is refused
local f = assert(load("return 1 + 1"))
assert(f() == 2)
local env = { x = 5 }
assert(load("return x", "chunk", "t", env)() == 5)
local g, err = load("\27Lua\84\0junk")
assert(g == nil and err:find("binary chunks are not allowed", 1, true), err)
local ok, e = pcall(load, "return 1", "c", "b")
assert(not ok and e:find("mode 'b' is not allowed", 1, true), e)
local parts = { "return ", "40 + 2" }
local i = 0
assert(load(function() i = i + 1 return parts[i] end)() == 42)
