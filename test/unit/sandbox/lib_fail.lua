local foo = lib_foo -- kgen's C gives models the library's functions as globals
local t = {}
foo.fail("kg.fail: bad shape")
