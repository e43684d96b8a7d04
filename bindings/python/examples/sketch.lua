-- sketch.lua - the random projections a training step applies to a batch
-- of B rows of C values (gradients, activations): a CountSketch to `width`
-- buckets and an SRHT to `out` coordinates, both keyed by `seed` (the rules:
-- templates/countsketch.hip, templates/srht.hip). Sizes come from kgen
-- --define (kgen.build's defines), small by default for the sim.
local C = math.tointeger(tonumber(define("cols", "1024")))
local W = math.tointeger(tonumber(define("width", "128")))
local K = math.tointeger(tonumber(define("out", "128")))
local SEED = math.tointeger(tonumber(define("seed", "7")))
local B = sym("B", math.tointeger(tonumber(define("rows", "64"))))
local x = input("x", f32, { B, C })
output("cs", countsketch(x, { width = W, seed = SEED }))
output("srht", srht(x, { out = K, seed = SEED }))
