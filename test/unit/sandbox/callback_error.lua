-- a user function called back by the library errs: its own line counts
local foo = require "ops.foo"
local function cb(x)
  return x + nil
end
foo.call(cb, 1)
