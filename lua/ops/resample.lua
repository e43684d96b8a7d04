-- ops/resample.lua - 2x upsampling of NCHW images [N, C, H, W] -> [N, C, 2H, 2W]:
--   mode "nearest"   y[oy][ox] = x[oy / 2][ox / 2]
--   mode "bilinear"  as F.interpolate(scale_factor=2, mode="bilinear",
--                    align_corners=False): half-pixel centres, the source
--                    coordinate (o + 0.5) / 2 - 0.5 clamped at 0, neighbours
--                    clamped at the edge. For a factor of 2 the weights are
--                    always 1/4 and 3/4: y[2k] = x[k-1]/4 + 3x[k]/4,
--                    y[2k+1] = 3x[k]/4 + x[k+1]/4 per axis, indices clamped.
-- H and W must be constants (the result's 2H and 2W are); N and C are free. One workgroup per output row;
-- each thread turns VEC input columns into 2 VEC outputs (two VEC stores).
local kg = require "kgen"
local fail = kg.fail

local modes = { nearest = true, bilinear = true }

kg.template {
  name = "upsample",
  holes = { "BILINEAR", "H", "W", "X_T" },
  params = function(target, info)
    return kg.row_params(target, info.dtype, info.w)
  end,
}

kg.op {
  name = "upsample",
  doc = "2x upsampling of x [N, C, H, W] -> [N, C, 2H, 2W] (mode nearest|bilinear, align_corners=False)",
  inputs = { "x" },
  attrs = {
    mode = { default = "nearest",
      check = function(v) return modes[v] ~= nil, "must be \"nearest\" or \"bilinear\"" end },
    scale = { type = "number", default = 2,
      check = function(v) return v == 2, "must be 2 (only 2x is implemented)" end },
  },
  build = function(node, ins, a)
    local x = ins[1]
    kg.check_float("upsample", x, "x")
    if #x.shape ~= 4 then
      fail("upsample: x must be [N, C, H, W], got %s", kg.shape_str(x.shape))
    end
    local w = kg.const_cols("upsample", x)
    local h = x.shape[3]
    local oh
    if math.type(h) == "integer" then
      oh = 2 * h
    else
      fail("upsample: H must be a constant (the result's 2H has to be), got %s",
        kg.shape_str(x.shape))
    end
    node.template = "upsample"
    node.grid = "rows"
    node.cols = 2 * w -- one workgroup per output row
    node.holes = {
      X_T = x.dtype.ctype, W = tostring(w), H = tostring(h),
      BILINEAR = a.mode == "bilinear" and "1" or "",
    }
    node.params_info = { dtype = x.dtype.name, w = w }
    node.out_dtype, node.out_shape = x.dtype, { x.shape[1], x.shape[2], oh, 2 * w }
  end,
}
