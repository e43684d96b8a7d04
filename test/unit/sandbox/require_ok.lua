-- require: kgen's embedded lua/ first, then the model's folder; cached.
local kg = require "kgen"
assert(kg.name == "fake kgen")
assert(rawequal(require("kgen"), kg) and fake_kgen_loads == 1)
local foo = require "ops.foo"
assert(foo.check(1) == 1)
local helper = require "util.helper"
assert(helper.twice(21) == 42)
assert(rawequal(require("util.helper"), helper) and helper_loads == 1)
assert(require("util.empty") == true)
for _, bad in ipairs({ "../x", "a/b", "a..b", ".a", "a.", "1a", "", "a-b" }) do
  local ok, e = pcall(require, bad)
  assert(not ok and e:find("is not a module name", 1, true), bad)
end
