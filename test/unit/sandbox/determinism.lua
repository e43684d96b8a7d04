-- pairs order, tostring, string.format, table.sort, math.random
local function order(t)
  local seen = {}
  for k, v in pairs(t) do seen[#seen + 1] = tostring(k) .. "=" .. tostring(v) end
  return table.concat(seen, " ")
end
local a, b = {}, {}
local keys = { 3, "b", 1, true, 2.5, "a", false, -7, "B", 10 }
for i = 1, #keys do a[keys[i]] = i end
for i = #keys, 1, -1 do b[keys[i]] = i end
-- b got the same keys, later values: compare keys only
local function keys_of(t) local r = {} for k in pairs(t) do r[#r + 1] = tostring(k) end return table.concat(r, " ") end
assert(keys_of(a) == "-7 1 2.5 3 10 B a b false true", keys_of(a))
assert(keys_of(a) == keys_of(b))
assert(order({ x = 1, y = 2, [1] = "one" }) == "1=one x=1 y=2")
-- __pairs is honoured
local proxy = setmetatable({}, { __pairs = function(t) return function(_, k) if not k then return 1, "p" end end, t, nil end })
assert(order(proxy) == "1=p")
-- entries removed during the loop are skipped
local c = { a = 1, b = 2, c = 3 }
local visited = {}
for k in pairs(c) do visited[#visited + 1] = k; c.b = nil end
assert(table.concat(visited, ",") == "a,c", table.concat(visited, ","))
local ok, e = pcall(pairs, { [{}] = 1 })
assert(not ok and e:find("pairs: table keys of type table have no deterministic order; use an array", 1, true), e)
ok, e = pcall(pairs, { [print] = 1 })
assert(not ok and e:find("keys of type function", 1, true), e)

assert(tostring({}) == "table" and tostring(print) == "function")
assert(tostring(setmetatable({}, { __tostring = function() return "T" end })) == "T")
assert(tostring(setmetatable({}, { __name = "Tensor" })) == "Tensor")
assert(tostring(12) == "12" and tostring(nil) == "nil" and tostring(1.5) == "1.5")
assert(string.format("%s|%5s|%d", {}, "ab", 3) == "table|   ab|3")
assert(("%s"):format(print) == "function")
ok, e = pcall(string.format, "%p", {})
assert(not ok and e:find("%p", 1, true), e)

-- table.sort is stable: equal keys keep their order
local recs = {}
for i = 1, 300 do recs[i] = { k = i % 3, i = i } end
table.sort(recs, function(x, y) return x.k < y.k end)
for i = 2, #recs do
  local p, q = recs[i - 1], recs[i]
  assert(p.k < q.k or (p.k == q.k and p.i < q.i), "sort is not stable")
end
local nums = { 5, 3, 9, 1, 1, 8 }
table.sort(nums)
assert(table.concat(nums, ",") == "1,1,3,5,8,9")
table.sort(nums, function(x, y) return x > y end)
assert(table.concat(nums, ",") == "9,8,5,3,1,1")

ok, e = pcall(math.randomseed)
assert(not ok and e:find("not deterministic", 1, true), e)
draws = {}
for i = 1, 5 do draws[i] = math.random(1000000) end
draws = table.concat(draws, ",")
math.randomseed(7)
local x = math.random()
math.randomseed(7)
assert(math.random() == x)

-- no finalizers: they would run at times that vary
ok, e = pcall(setmetatable, {}, { __gc = function() end })
assert(not ok and e:find("__gc metamethods are not allowed", 1, true), e)
assert(getmetatable(setmetatable({}, { __index = {} })).__index)
