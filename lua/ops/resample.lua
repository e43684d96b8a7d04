-- ops/resample.lua - (family being written; no ops yet)
local kg = require "kgen"
local _ = kg
