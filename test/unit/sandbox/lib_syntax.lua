-- an embedded module that does not parse
require "ops.broken"
