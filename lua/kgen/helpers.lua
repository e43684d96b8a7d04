-- kgen/helpers.lua - helpers the op descriptions share: float constants as
-- C source, vector widths, row kernels' launch parameters, operand checks.
-- Needs: kgen/state.lua, kgen/types.lua. Gives: kg.float_literal,
-- kg.vector_width, kg.row_block, kg.row_params, kg.check_float,
-- kg.check_same, kg.const_cols.
local S = require "kgen.state"
local kg, fail, dim_str = S.kg, S.fail, S.dim_str

--- A float constant as C source, exact enough for float32.
function kg.float_literal(v)
  if v ~= v then return "__builtin_nanf(\"\")" end
  if v == math.huge then return "__builtin_inff()" end
  if v == -math.huge then return "(-__builtin_inff())" end
  local s = string.format("%.9g", v)
  if not s:find("[%.eE]") then s = s .. ".0" end
  return s .. "f"
end

--- The largest vector width <= 16 bytes that divides every n in `ns`.
function kg.vector_width(dt, ns)
  local vec = 16 // dt.size
  while vec > 1 do
    local ok = true
    for _, n in ipairs(ns) do
      if n % vec ~= 0 then ok = false end
    end
    if ok then break end
    vec = vec // 2
  end
  return vec
end

--- Threads for a row of `cols` elements taken `vec` at a time: a power of two
--- from one wave up to `cap` (default 256; BLOCK / wave must not exceed the
--- wave).
function kg.row_block(target, cols, vec, cap)
  local want = (cols + vec - 1) // vec
  local block = target.wave
  while block < want and block < (cap or 256) do block = block * 2 end
  return block
end

--- The launch parameters of a row kernel over rows of `cols` elements of
--- dtype `dtype_name`: the widest vector that divides the row, and the threads
--- kg.row_block gives (up to `cap`).
function kg.row_params(target, dtype_name, cols, cap)
  local vec = kg.vector_width(kg.dtypes[dtype_name], { cols })
  return { BLOCK = kg.row_block(target, cols, vec, cap), VEC = vec }
end

function kg.check_float(opname, t, what)
  if not t.dtype.float then
    fail("%s: %s must be f32, f16 or bf16, got %s", opname, what or "operand", t.dtype.name)
  end
end

function kg.check_same(opname, a, b)
  if a.dtype ~= b.dtype then
    fail("%s: dtype mismatch: %s vs %s", opname, a.dtype.name, b.dtype.name)
  end
  if not kg.same_shape(a.shape, b.shape) then
    fail("%s: shape mismatch: %s vs %s", opname, kg.shape_str(a.shape), kg.shape_str(b.shape))
  end
end

--- The last dim as a constant (row kernels need it known at kgen time).
function kg.const_cols(opname, t)
  local c = t.shape[#t.shape]
  if not (math.type(c) == "integer") then
    fail("%s: the last dim must be a constant, got %s", opname, dim_str(c))
  end
  return c
end
