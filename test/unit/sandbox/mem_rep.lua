-- one huge string (1 GiB)
local s = string.rep("x", 2^30)
