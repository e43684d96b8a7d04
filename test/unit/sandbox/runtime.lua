-- a runtime error in the model
local t = nil
return t.x
