-- ops/sample.lua - token sampling over rows of logits: temperature, top-k,
-- top-p (nucleus) and min-p truncation, then one draw per row from a
-- counter-based generator (Philox-4x32-10), so a run is reproducible from its
-- seed. Greedy (argmax) at temperature 0. No sort of the vocabulary: the
-- truncation boundary is found by a radix cut (templates/lib_sample.hip).
-- Greedy rows are split over PARTS workgroups of GREEDY_BLOCK threads, each
-- the argmax of CHUNK logits; the last of a row to finish (a count it keeps
-- across runs) picks the best of their parts: a 128256-token row is 63
-- workgroups of f32 (32 of bf16) instead of one. Top-k up to SPLIT_TOPK is
-- split the same way: each workgroup keeps its part's top-k, and the last
-- selects the row's top-k from theirs and samples from those alone (a
-- 128256-token row: 63 parts of 2048 f32 at top-k 50). The other modes take
-- one workgroup per row.
-- sample(logits, seed, params, counter) reads the settings at run time, row
-- by row (the attributes are not taken): params f32 [rows, 4] holds each
-- row's temperature, top_k, top_p and min_p, seed i32 [rows] its Philox key
-- and counter i32 [rows] its counter (0, counter[r], 0, 0), so a row draws
-- the same wherever it sits in a batch (models.llama passes a request's seed
-- and the position of the token drawn). One workgroup per row; a
-- temperature that is not > 0 takes the argmax, a setting out of its range
-- is off (top_k outside [1, V), top_p or min_p outside (0, 1)). Where the
-- rows are known at build time (a batch-1 table's one row), PARTS
-- workgroups a row: the argmax split as the attributes' greedy is, or,
-- at a temperature > 0, the first of them samples the row alone.
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "sample",
  holes = { "CAND", "CHUNK", "COLS", "GREEDY", "INV_T", "MINP", "PARTS", "RUNTIME", "SAMPLE",
    "SEED1", "SEED2", "SPLIT", "STEPS", "TOPK", "TOPP", "X_T" },
  libs = { "sample" },
  params = function(target, info)
    -- the radix-select histograms take about 192 bytes of LDS per thread (both
    -- instantiations of kg_radix_pass); stay inside the target's static LDS
    -- (48 KiB on sm_90, 64 KiB on gfx targets)
    local function fit(block)
      while block > target.wave and 192 * block + 4096 > target.lds_bytes do
        block = block // 2
      end
      return block
    end
    if info.parts then -- greedy, split: PARTS workgroups per row (tiles of one row)
      -- at run time a part may sample the row: the radix select's LDS
      local block = info.runtime and fit(info.block) or info.block
      return { BLOCK = block, VEC = info.vec, per_block = 1, ["repeat"] = info.parts }
    end
    local vec = kg.vector_width(kg.dtypes[info.dtype], { info.cols })
    return { BLOCK = fit(kg.row_block(target, info.cols, vec)), VEC = vec }
  end,
}

-- greedy and split top-k: threads per workgroup (the last workgroup of a
-- split row sorts its top-k one a thread: SPLIT_TOPK at most), and vectors
-- per thread in a part
local GREEDY_BLOCK, GREEDY_STEPS = 256, 2
-- split top-k: the largest k, the most vectors a thread holds, and the most
-- candidates (PARTS TOPK) the last workgroup selects from (16 a thread)
local SPLIT_TOPK, SPLIT_MAX_STEPS, SPLIT_CAND = GREEDY_BLOCK, 8, 16 * GREEDY_BLOCK

-- The parts of a split top-k over `cols`: (steps, chunk, parts), or nil
-- where no chunk of at most SPLIT_MAX_STEPS vectors a thread leaves few
-- enough candidates.
local function split_plan(cols, vec, topk)
  if topk > SPLIT_TOPK then return nil end
  local steps = GREEDY_STEPS
  while steps <= SPLIT_MAX_STEPS do
    local chunk = GREEDY_BLOCK * vec * steps
    local parts = (cols + chunk - 1) // chunk
    if parts * topk <= SPLIT_CAND then return steps, chunk, parts end
    steps = steps * 2
  end
  return nil
end

--- A split row's grid and hidden results: a workgroup per part (tiles over
--- the rows `lead`), each part's `words` i32 results per row, and per row
--- the count of finished parts, kept across runs (back to 0 by the last).
local function parts_grid(node, lead, words)
  node.grid, node.tile_units = "tiles", lead
  local pshape = {}
  for i, d in ipairs(lead) do pshape[i] = d end
  pshape[#pshape + 1] = words
  node.extra_outputs = {
    { dtype = kg.dtypes.i32, shape = pshape, hidden = true },
    { dtype = kg.dtypes.i32, shape = lead, hidden = true, persistent = true },
  }
end

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

kg.op {
  name = "sample",
  doc = "token ids [rows] drawn from logits [.., V] with seed i32 [1] or [2] "
    .. "(temperature (0: argmax), top_k, top_p, min_p; Philox per (row, seed[1])); "
    .. "or each row's settings at run time: sample(logits, seed i32 [rows], params f32 [rows, 4], "
    .. "counter i32 [rows])",
  inputs = { "logits", "seed", "params?", "counter?" },
  attrs = {
    temperature = { type = "number", default = 1.0,
      check = function(v) return finite(v) and v >= 0, "must be finite and >= 0" end },
    top_k = { type = "number", default = 0,
      check = function(v) return math.type(v) == "integer" and v >= 0 and v < 2 ^ 31,
        "must be an integer >= 0 (0: off)" end },
    top_p = { type = "number", default = 1.0,
      check = function(v) return v > 0 and v <= 1, "must be in (0, 1] (1: off)" end },
    min_p = { type = "number", default = 0.0,
      check = function(v) return v >= 0 and v < 1, "must be in [0, 1) (0: off)" end },
  },
  build = function(node, ins, a)
    local x, seed, params, counter = ins[1], ins[2], ins[3], ins[4]
    kg.check_float("sample", x, "logits")
    local cols = kg.const_cols("sample", x)
    if cols >= 1 << 24 then fail("sample: the last dim %d is over 2^24", cols) end
    if counter and not params then fail("sample: a counter operand needs params") end
    if params then
      if not counter then fail("sample: params need a counter operand (i32 [rows])") end
      local lead = {}
      for i = 1, #x.shape - 1 do lead[i] = x.shape[i] end
      if #lead == 0 then lead[1] = 1 end
      local function rows_of(t, k, name, dt)
        local want = {}
        for i, d in ipairs(lead) do want[i] = d end
        want[#want + 1] = k
        if t.dtype ~= dt or not kg.same_shape(t.shape, want) then
          fail("sample: %s must be %s%s (logits %s), got %s%s", name, dt.name,
            kg.shape_str(want), kg.shape_str(x.shape), t.dtype.name, kg.shape_str(t.shape))
        end
      end
      rows_of(params, 4, "params", kg.dtypes.f32)
      rows_of(seed, nil, "seed (with params)", kg.dtypes.i32)
      rows_of(counter, nil, "counter", kg.dtypes.i32)
      node.template = "sample"
      -- rows known at build time (a batch-1 table's one): the argmax split
      -- over PARTS workgroups a row as the attributes' greedy is
      local fixed = true
      for _, d in ipairs(lead) do fixed = fixed and math.type(d) == "integer" end
      local vec = kg.vector_width(x.dtype, { cols })
      local chunk = GREEDY_BLOCK * vec * GREEDY_STEPS
      local parts = fixed and (cols + chunk - 1) // chunk or nil
      if parts then
        parts_grid(node, lead, 2 * parts)
      else
        node.grid = "rows"
        node.grid_of = x
        node.cols = cols
      end
      node.holes = {
        CHUNK = parts and tostring(chunk) or "", PARTS = parts and tostring(parts) or "",
        STEPS = parts and tostring(GREEDY_STEPS) or "1", SPLIT = "", CAND = "",
        X_T = x.dtype.ctype, COLS = tostring(cols), GREEDY = parts and "1" or "",
        SAMPLE = "1", RUNTIME = "1", INV_T = "", TOPK = "", TOPP = "", MINP = "",
        SEED1 = "", SEED2 = "",
      }
      node.params_info = { dtype = x.dtype.name, cols = cols, parts = parts,
        block = GREEDY_BLOCK, vec = vec, runtime = true }
      node.out_dtype, node.out_shape = kg.dtypes.i32, lead
      return
    end
    if seed.dtype ~= kg.dtypes.i32 or #seed.shape ~= 1 or
        (seed.shape[1] ~= 1 and seed.shape[1] ~= 2) then
      fail("sample: seed must be i32 [1] or [2], got %s%s", seed.dtype.name,
        kg.shape_str(seed.shape))
    end
    local greedy = a.temperature == 0
    local topk = (not greedy and a.top_k > 0 and a.top_k < cols) and a.top_k or nil
    local topp = (not greedy and a.top_p < 1) and a.top_p or nil
    local minp = (not greedy and a.min_p > 0) and a.min_p or nil
    node.template = "sample"
    local lead = {}
    for i = 1, #x.shape - 1 do lead[i] = x.shape[i] end
    if #lead == 0 then lead[1] = 1 end
    local vec = kg.vector_width(x.dtype, { cols })
    local steps, chunk, parts = GREEDY_STEPS, GREEDY_BLOCK * vec * GREEDY_STEPS, nil
    local split = false
    if greedy then
      parts = (cols + chunk - 1) // chunk
    elseif topk then
      local s, c, p = split_plan(cols, vec, topk)
      if s then steps, chunk, parts, split = s, c, p, true end
    end
    if parts then
      -- each part's result (greedy: its best (key, index); split: its top-k
      -- rank values, two words each), and per row the count of finished
      -- parts, which the kernel keeps across runs (back to 0 by the last)
      parts_grid(node, lead, 2 * parts * (split and topk or 1))
    else
      node.grid = "rows"
      node.grid_of = x
      node.cols = cols
    end
    node.holes = {
      CHUNK = parts and tostring(chunk) or "", PARTS = parts and tostring(parts) or "",
      STEPS = tostring(steps),
      SPLIT = split and "1" or "",
      CAND = split and tostring((parts * topk + GREEDY_BLOCK - 1) // GREEDY_BLOCK) or "",
      X_T = x.dtype.ctype, COLS = tostring(cols),
      GREEDY = greedy and "1" or "", SAMPLE = (greedy or split) and "" or "1",
      INV_T = greedy and "" or kg.float_literal(1 / a.temperature),
      TOPK = topk and tostring(topk) or "", RUNTIME = "",
      TOPP = topp and kg.float_literal(topp) or "",
      MINP = minp and kg.float_literal(minp) or "",
      SEED1 = seed.shape[1] == 1 and "1" or "", SEED2 = seed.shape[1] == 2 and "1" or "",
    }
    node.params_info = { dtype = x.dtype.name, cols = cols, parts = parts,
      block = GREEDY_BLOCK, vec = vec }
    node.out_dtype, node.out_shape = kg.dtypes.i32, lead
  end,
}
