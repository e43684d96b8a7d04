-- returns nothing
local x = 1
