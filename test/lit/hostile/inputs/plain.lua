-- the untampered model the tamper tests compare with
local x = input("x", f32, { 4 })
output("y", x * 2.0)
