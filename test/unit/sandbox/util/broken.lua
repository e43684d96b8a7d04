-- does not parse
local = 2
