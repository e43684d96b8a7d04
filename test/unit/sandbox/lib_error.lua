-- errors raised inside kgen's lua/ library point at the model's line
local foo = lib_foo -- kgen's C gives models the library's functions as globals

foo.check(-1)
