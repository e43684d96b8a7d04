-- a tail call into the library
local foo = lib_foo -- kgen's C gives models the library's functions as globals
return foo.check(-1)
