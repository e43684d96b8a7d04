local foo = lib_foo -- kgen's C gives models the library's functions as globals
foo.index({})
