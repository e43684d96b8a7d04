local foo = require "ops.foo"
foo.index({})
