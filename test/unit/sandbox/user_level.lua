-- error(msg, 2) blames the caller, as in plain Lua
local function need_positive(x)
  if x <= 0 then error("need a positive number", 2) end
end
need_positive(1)
need_positive(-1)
