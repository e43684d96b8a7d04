-- a tail call into the library
local foo = require "ops.foo"
return foo.check(-1)
