-- require: the model's folder only (kgen's own modules are refused); cached.
local ok, e = pcall(require, "kgen")
assert(not ok and e:find("is one of kgen's own modules", 1, true) and fake_kgen_loads == nil)
assert(not pcall(require, "ops.foo"))
local helper = require "util.helper"
assert(helper.twice(21) == 42)
assert(rawequal(require("util.helper"), helper) and helper_loads == 1)
assert(require("util.empty") == true)
for _, bad in ipairs({ "../x", "a/b", "a..b", ".a", "a.", "1a", "", "a-b" }) do
  local ok, e = pcall(require, bad)
  assert(not ok and e:find("is not a module name", 1, true), bad)
end
