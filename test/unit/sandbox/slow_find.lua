-- a pattern that backtracks for ages inside C
local s = string.rep("a", 30000)
local found = s:find(".-.-.-.-.-b")
