-- ops/matmul.lua - y = x . w^T for weights stored [N, K] (as GGUF files and
-- HF linear layers store them): x [..., K] (the leading dims flatten to M
-- rows, a sym allowed), w [N, K] with constant dims, y [..., N] in x's dtype;
-- f32, f16 and bf16 (x and w the same), accumulated in f32.
-- Only the GEMV path is built: at most MMAX = 8 rows of x (M's max, known at
-- kgen time). Each launch streams every weight once: one workgroup per NB
-- output columns, each wave owning CPW of them; a lane reads VEC elements of
-- w[n, :] per 128-bit load, UNROLL vectors per step, multiplies them with all
-- M rows of x and the wave reduces each of the CPW x M sums
-- (templates/gemv.hip).
local kg = require "kgen"
local fail = kg.fail

-- The most rows of x the GEMV kernel serves (float acc[CPW][MMAX] in registers).
local MMAX = 8

--- Waves per workgroup and columns per wave: NB = waves * cpw columns per
--- workgroup, NB dividing N (the rows grid counts whole rows of w; the kernel
--- still guards n < N). N = 14336 gives 1792 workgroups of 4 waves.
local function split_columns(n)
  if n % 8 == 0 then return 4, 2 end
  if n % 4 == 0 then return 2, 2 end
  if n % 2 == 0 then return 1, 2 end
  return 1, 1
end

kg.template {
  name = "gemv",
  params = function(target, info)
    -- VEC divides K, so every row of x and w starts aligned to a vector
    -- (K = 4097 reads scalars); UNROLL vectors per lane are in flight at once
    -- for each of the wave's CPW columns.
    local vec = kg.vector_width(kg.dtypes[info.dtype], { info.k })
    return { BLOCK = info.waves * target.wave, VEC = vec, UNROLL = 4 }
  end,
}

kg.op {
  name = "matmul",
  doc = "y = x . w^T: x [..., K] (leading dims: M rows, at most 8 for now), w [N, K] constant -> [..., N]; f32 accumulation",
  inputs = { "x", "w" },
  build = function(node, ins)
    local x, w = ins[1], ins[2]
    kg.check_float("matmul", x, "x")
    kg.check_float("matmul", w, "w")
    if x.dtype ~= w.dtype then
      fail("matmul: dtype mismatch: x is %s, w is %s", x.dtype.name, w.dtype.name)
    end
    if #w.shape ~= 2 or math.type(w.shape[1]) ~= "integer" or math.type(w.shape[2]) ~= "integer" then
      fail("matmul: w must be [N, K] with constant dims, got %s", kg.shape_str(w.shape))
    end
    local k = kg.const_cols("matmul", x)
    local n = w.shape[1]
    if w.shape[2] ~= k then
      fail("matmul: K mismatch: x %s has K = %d, w %s has K = %d", kg.shape_str(x.shape), k,
        kg.shape_str(w.shape), w.shape[2])
    end
    -- M: the leading dims of x; its largest value is known now
    local rows, mmax = {}, 1
    for i = 1, #x.shape - 1 do
      local d = x.shape[i]
      rows[#rows + 1] = d
      mmax = mmax * (kg.is_sym(d) and d.max or d)
    end
    if mmax > MMAX then
      fail("matmul: x %s has up to %d rows; only the GEMV path (at most %d rows) is built, the GEMM path is not built yet",
        kg.shape_str(x.shape), mmax, MMAX)
    end
    local waves, cpw = split_columns(n)
    local shape = {}
    for i = 1, #x.shape - 1 do shape[i] = x.shape[i] end
    shape[#shape + 1] = n
    node.template = "gemv"
    node.grid = "rows"
    node.grid_of = w
    node.cols = k * waves * cpw -- one workgroup per NB rows of w
    node.dim_args = { #rows > 0 and rows or 1 } -- M
    node.holes = {
      T = x.dtype.ctype, K = tostring(k), N = tostring(n), MMAX = tostring(mmax),
      CPW = tostring(cpw), NB = tostring(waves * cpw),
    }
    node.params_info = { dtype = x.dtype.name, k = k, waves = waves }
    node.out_dtype, node.out_shape = x.dtype, shape
  end,
}
