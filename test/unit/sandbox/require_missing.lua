-- a module that is nowhere
local m = require("no.such")
