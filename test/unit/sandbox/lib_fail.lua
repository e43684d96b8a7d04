local foo = require "ops.foo"
local t = {}
foo.fail("kg.fail: bad shape")
