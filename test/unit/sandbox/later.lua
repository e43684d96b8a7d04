-- functions that kgen's C calls after the model ran
local foo = lib_foo -- kgen's C gives models the library's functions as globals
function add(a, b) return a + b end
function broken(x)
  return x.field
end
function via_lib(eps)
  local r = foo.check(eps)
  return r
end
