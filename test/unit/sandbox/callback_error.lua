-- a user function called back by the library errs: its own line counts
local foo = lib_foo -- kgen's C gives models the library's functions as globals
local function cb(x)
  return x + nil
end
foo.call(cb, 1)
