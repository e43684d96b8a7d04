-- errors raised inside kgen's lua/ library point at the model's line
local foo = require "ops.foo"

foo.check(-1)
