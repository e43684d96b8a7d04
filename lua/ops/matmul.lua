-- ops/matmul.lua - y = x . w^T for weights stored [N, K] (as GGUF files and
-- HF linear layers store them), or x . w for w [K, N] (w_layout = "kn"):
-- x [..., K] (the leading dims flatten to M rows, a sym allowed), w with
-- constant dims, y [..., N] in x's dtype; f32, f16 and bf16 (x and w the
-- same), accumulated in f32. A w [B, N, K] multiplies x [B, ..., K] batch by
-- batch. GGUF block weights (q8_0, ...; [N, K], unbatched) are dequantized
-- in the kernel, by both kernels (build_quant: templates/gemv_q.hip, and
-- gemm.hip with QUANT).
-- Two kernels, and the plan picks by the run-time M:
--   GEMV (M <= 8, unbatched w): each launch streams every weight once.
--     w [N, K] (templates/gemv.hip): one workgroup per NB output columns,
--     each wave owning CPW of them; a lane reads VEC elements of w[n, :] per
--     128-bit load, UNROLL vectors per step, multiplies them with all M rows
--     of x and the wave reduces each of the CPW x M sums. Where whole columns
--     per wave would give the target fewer than 4 workgroups per compute unit
--     (targets/<arch>.lua cus: a small N, a router or an LM head shard), the
--     waves of a workgroup split K instead and add their sums through LDS.
--     w [K, N] (templates/gemv_kn.hip): threads across n, each reading VEC
--     columns w[k, n .. n + VEC) per 128-bit load; the rows of w are split
--     over the threads of a workgroup, whose sums are added through LDS.
--     Both add the parts in a fixed order (no atomics): the same bits every run.
--   GEMM (larger M, or batched w): tiles of y on the target's matrix
--     instructions, staged through LDS (templates/gemm.hip, lib_mma.hip);
--     the tile is the target's data (targets/<arch>.lua gemm[dtype]), which
--     a model may override with matmul's `tile` attribute.
local kg = require "kgen"
local fail = kg.fail

-- The most rows of x the GEMV kernels serve (float acc[CPW][MMAX] in registers).
local MMAX = 8

-- Split K of the small-M GEMM (add_gemm; kgen/gemm.lua's kg.KSPLIT).
local KSPLIT_MAX, KSPLIT_FLOATS, KSPLIT_TILE = kg.KSPLIT.max, kg.KSPLIT.floats, kg.KSPLIT.tile

-- The group decoders of each block format (templates/lib_quant.hip): from
-- blocks staged in LDS (the GEMV) and straight from global memory (the GEMM).
local QUANT_DEQ = {
  -- qb: the offsets the LDS decoder leaves in the integers of each half of
  -- a group (gemv_q takes qb times the half's sum of x off); gemm: the LDS
  -- decoder of the GEMM's staged blocks (gemm_params: QRAW; the GEMM takes
  -- qb off in the same FMA), for the formats whose k tile is whole blocks
  q8_0 = { lds = "kg_q8_0_lds32", gl = "kg_q8_0_gl32", gemm = "kg_q8_0_lds32" },
  q4_0 = { lds = "kg_q4_0_lds32_off", gl = "kg_q4_0_gl32", qb = { "136.0f", "128.5f" },
    gemm = "kg_q4_0_lds32_off" },
  q4_k = { lds = "kg_q4k_lds32", gl = "kg_q4k_gl32" },
  q6_k = { lds = "kg_q6k_lds32", gl = "kg_q6k_gl32" },
}

--- A GEMM variant's fuse_key: its tile override as text (nil: none), so
--- that matmuls of different tiles are no gate/up pair or regions of one
--- kernel (which would take the first one's tile).
local function tile_key(tile)
  if not tile then return nil end
  local keys, parts = {}, {}
  for key in pairs(tile) do keys[#keys + 1] = tostring(key) end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local v = tile[key]
    parts[#parts + 1] = key .. "=" .. (type(v) == "table" and table.concat(v, "x") or tostring(v))
  end
  return table.concat(parts, ",")
end

--- matmul with w in a GGUF block format (q8_0, q4_0, q4_k, q6_k; stored [N, K]
--- as GGUF stores it: row n is K / BE consecutive blocks): x f32, f16 or
--- bf16, y in x's dtype, f32 sums; the kernels dequantize w themselves. Two
--- variants, as for float weights, picked by the run-time M:
---   GEMV (M <= 8, templates/gemv_q.hip): a resident grid of workgroups
---     takes tasks of NB rows in turn; K is walked in stages of 2048 weights
---     (a multiple of every block), copied into LDS (asynchronously where the
---     target can: the next stages in flight); VEC is the widest copy that
---     divides every stage's bytes, so every piece is aligned. x is staged
---     in LDS too where it fits (gemv_q's params). Targets whose quant_gemv
---     is "regs" take templates/gemv_qr.hip for Q8_0 and Q4_0 instead
---     (gemv_qr_params: whole units of blocks decoded from registers); Q4_0
---     with 2 to 8 rows of f16 or bf16 x takes the tensor cores where the
---     target has mma.sync m16n8k16 (templates/gemv_qm.hip, gemv_qm_params),
---     so one row of such an x has a GEMV variant of its own.
---   GEMM (larger M, templates/gemm.hip with QUANT): the float GEMM's tiles,
---     the B tile decoded from the blocks into LDS as x's dtype; Q8_0 and
---     Q4_0 whose k tile is whole 4-byte rows of blocks (sm_90a's bk 64) copy
---     the blocks asynchronously ahead like x and decode them from LDS (QRAW,
---     kg.gemm_params), the rest decode straight from global memory.
--- Appends a node's GEMM variant v (select: M from MMAX + 1 where a GEMV
--- variant serves the rows below, else all), or more where the matmul says
--- small_m: one for M up to small_m whose tile is chosen for small_m rows
--- (a batch of decoding sequences: the target's small-grid tiles give N
--- more workgroups), one for each doubling of that up to the largest M
--- (2 small_m, 4 small_m, ...: a server's steps of decode tokens and
--- prefill chunks, each tiled for its range's most rows), then v for the
--- rows above them (its tile for the largest M, a prefill chunk). A range
--- whose tile is v's compiles to v's kernel (lower.c names one text once).
--- split: the small-M GEMM may split K (w [N, K], float or quantized; see
--- KSPLIT_MAX): its kernel, where it is the matmul alone or with an
--- epilogue chain, takes the node's hidden results, the f32 parts and the
--- counts of finished splits (kg.gemm_params chooses the splits per target).
local function add_gemm(node, v, m, mmax, gemv, small_m, split)
  -- v for a range of at most `rows` rows (a copy; its params_info too)
  local function for_rows(rows)
    local r = {}
    for key, x in pairs(v) do r[key] = x end
    r.params_info = {}
    for key, x in pairs(v.params_info) do r.params_info[key] = x end
    r.params_info.m = rows
    return r
  end
  local lo = gemv and MMAX + 1 or nil
  if small_m and mmax > small_m then
    local s = for_rows(small_m)
    s.label = "gemm_small"
    s.select = { size = m, min = lo, max = small_m }
    local n = v.params_info.n
    if split and KSPLIT_MAX * small_m * n <= KSPLIT_FLOATS then
      s.params_info.split_k = true
      s.hidden = "plain"
      v.hidden = "none"
      for _, x in ipairs(node.variants) do x.hidden = "none" end
      -- each split's f32 products [split, M, N], and per tile of the
      -- smallest tile (KSPLIT_TILE square) the count of finished splits,
      -- which the kernel keeps across runs (back to 0 by the last), for the
      -- most rows a GEMM that splits serves: small_m, or a middle range's
      -- (below: those whose 2 splits the parts hold)
      local split_rows, hi = small_m, 2 * small_m
      while hi < mmax and 2 * hi <= KSPLIT_MAX * small_m do split_rows, hi = hi, 2 * hi end
      local ct = (split_rows + KSPLIT_TILE - 1) // KSPLIT_TILE
        * ((n + KSPLIT_TILE - 1) // KSPLIT_TILE)
      node.extra_outputs = {
        { dtype = kg.dtypes.f32, shape = { KSPLIT_MAX, small_m, n }, hidden = true },
        { dtype = kg.dtypes.i32, shape = { ct }, hidden = true, persistent = true },
      }
      -- the profile's bytes of the parts: each split's M x N floats written
      -- and read once (the params rule's moved_times: the splits)
      local parts = type(m) == "table" and { table.unpack(m) } or { m }
      parts[#parts + 1], parts[#parts + 2] = n, 4 * 2
      node.moved = { outputs = { [2] = parts } }
    end
    node.variants[#node.variants + 1] = s
    lo = small_m + 1
    -- the middle ranges: split K as the small-M GEMM does where the parts
    -- planned for small_m rows hold 2 splits of the range's rows
    local hi = 2 * small_m
    while hi < mmax do
      local r = for_rows(hi)
      if s.params_info.split_k and 2 * hi <= KSPLIT_MAX * small_m then
        r.params_info.split_k, r.params_info.split_max = true, KSPLIT_MAX * small_m // hi
        r.hidden = "plain"
      end
      r.select = { size = m, min = lo, max = hi }
      node.variants[#node.variants + 1] = r
      lo, hi = hi + 1, 2 * hi
    end
  end
  v.select = lo and { size = m, min = lo } or nil
  node.variants[#node.variants + 1] = v
end

local function build_quant(node, x, w, a)
  kg.check_float("matmul", x, "x")
  if a.w_layout == "kn" then
    fail("matmul: a quantized w is [N, K], as GGUF stores it; w_layout = \"kn\" is for float weights")
  end
  if #w.shape == 3 then
    fail("matmul: a quantized w cannot be batched (w %s): it must be [N, K]", kg.shape_str(w.shape))
  end
  if #w.shape ~= 2 or math.type(w.shape[1]) ~= "integer" then
    fail("matmul: a quantized w must be [N, K] with constant dims, got %s", kg.shape_str(w.shape))
  end
  local k, n = kg.const_cols("matmul", x), w.shape[1]
  if w.shape[2] ~= k then
    fail("matmul: K mismatch: x %s has K = %d, w %s has K = %d", kg.shape_str(x.shape), k,
      kg.shape_str(w.shape), w.shape[2])
  end
  local rows, mmax, mmin = {}, 1, 1
  for i = 1, #x.shape - 1 do
    local d = x.shape[i]
    rows[#rows + 1] = d
    mmax = mmax * (kg.is_sym(d) and d.max or d)
    mmin = mmin * (kg.is_sym(d) and 1 or d)
  end
  local m = #rows > 0 and rows or 1
  local dt = w.dtype
  local rb = k // dt.block_elems * dt.block_bytes -- bytes per row of w
  local shape = {}
  for i = 1, #x.shape - 1 do shape[i] = x.shape[i] end
  shape[#shape + 1] = n
  node.dequantizes = { [2] = true }
  node.out_dtype, node.out_shape = x.dtype, shape
  node.variants = {}
  local gemv = mmin <= MMAX
  if gemv then
    local se = 2048
    local ns, le = k // se, k % se
    local sb, lb = se // dt.block_elems * dt.block_bytes, le // dt.block_elems * dt.block_bytes
    local vec = 16
    while lb % vec ~= 0 or sb % vec ~= 0 do vec = vec // 2 end
    -- NB = waves * cpw columns per workgroup: about 4.5 KiB of each stage
    -- per wave (4 rows of Q4_0, 2 of Q8_0), fewer where NB would not divide
    -- N (the kernel guards n < N); cpw a power of two, so that a wave's
    -- columns never straddle a split norm's runs of 32
    local want = math.max(1, math.min(4, 4608 // (ns > 0 and sb or lb)))
    if want == 3 then want = 2 end
    local waves, cpw = 1, 1
    for _, wc in ipairs({ { 4, want }, { 4, want // 2 }, { 4, 1 }, { 2, 1 }, { 1, 1 } }) do
      if wc[2] >= 1 and n % (wc[1] * wc[2]) == 0 then
        waves, cpw = wc[1], wc[2]
        break
      end
    end
    local function gemv_variant(vmax, sel, tmpl)
      node.variants[#node.variants + 1] = {
        -- the N columns in one group: tasks of rows of w over at most as
        -- many workgroups as the target holds at once (gemv_q's params:
        -- per_block N, repeat the grid; regions: their N in all)
        template = tmpl, grid = "tiles", tile_units = n, tiles_columns = true,
        dim_args = { m },
        holes = {
          T = x.dtype.ctype, FMT = dt.name, K = tostring(k), N = tostring(n),
          MMAX = tostring(vmax), CPW = tostring(cpw), NB = tostring(waves * cpw),
          RB = tostring(rb), SE = tostring(se), SB = tostring(sb), NS = tostring(ns),
          LE = tostring(le), LB = tostring(lb), DEQ = QUANT_DEQ[dt.name].lds,
          MIN = dt.name == "q4_k" and "1" or "", -- a min per sub-block: sum x too
          QB = QUANT_DEQ[dt.name].qb and "1" or "",
          QB0 = QUANT_DEQ[dt.name].qb and QUANT_DEQ[dt.name].qb[1] or "",
          QB1 = QUANT_DEQ[dt.name].qb and QUANT_DEQ[dt.name].qb[2] or "",
        },
        params_info = { waves = waves, vec = vec, cpw = cpw, mmax = vmax,
          stage_bytes = ns > 0 and sb or lb, se = se, k = k, x_size = x.dtype.size, x_ctype = x.dtype.ctype,
          fmt = dt.name, n = n, bb = dt.block_bytes },
        select = sel,
      }
    end
    -- Q4_0 with f16 or bf16 x: one row of x takes a kernel of its own (gemv_qr
    -- where the target has it), more rows the tensor cores where the target
    -- has them (gemv_qm: a template of its own, which takes no norm, regions
    -- or region epilogue), whose products cost the same for up to 8 rows.
    -- So Q4_0 with such an x is not batch invariant between one row and
    -- more on those targets, invariant or not: one kernel for every M was
    -- far slower at Llama-3-8B shapes on an H200 (gemv_qm for one row too:
    -- 216 against 576 tok/s at batch 1; gemv_q for 8 rows: 193 against 611
    -- at batch 8, its 8 rows' sums spilling)
    local vmax = math.min(mmax, MMAX)
    local qm = dt.name == "q4_0" and x.dtype.name ~= "f32"
    if qm and mmin == 1 and vmax > 1 then
      gemv_variant(1, { size = m, max = 1 }, "gemv_q")
      gemv_variant(vmax, { size = m, min = 2, max = MMAX }, "gemv_qm")
    elseif qm and mmin > 1 then
      gemv_variant(vmax, mmax > MMAX and { size = m, max = MMAX } or nil, "gemv_qm")
    else
      gemv_variant(vmax, mmax > MMAX and { size = m, max = MMAX } or nil, "gemv_q")
    end
  end
  if mmax > MMAX then
    add_gemm(node, {
      template = "gemm", grid = "tiles", tile_units = m, fuse_key = tile_key(a.tile),
      dim_args = { m },
      holes = { T = x.dtype.ctype, W_T = dt.ctype, K = tostring(k), N = tostring(n), KN = "",
        NK = "", RB = tostring(rb), DEQ = QUANT_DEQ[dt.name].gl },
      -- where: "model.lua:LINE: " of the call, at the level the float path
      -- uses (build_quant is a tail call of build, so it takes build's level)
      params_info = { dtype = x.dtype.name, k = k, n = n, kn = false, batch = 1, tile = a.tile,
        quant = true, m = mmax, rb = rb, bb = dt.block_bytes, qdeq = QUANT_DEQ[dt.name].gemm,
        qb = QUANT_DEQ[dt.name].qb,
        where = select(2, pcall(error, "", 4)) },
    }, m, mmax, gemv, a.small_m, true)
  end
end

-- gemv_q: stages in flight per wave where copies are asynchronous (the
-- ring's slots), and the most workgroups per compute unit its grid keeps
local QSLOTS, QWG_PER_CU = 3, 4

--- The workgroups of a resident grid whose `per` takers (waves or workgroups)
--- each take the same number of the `tasks`, give or take the last ones: the
--- fewest rounds of at most `most` workgroups, then the fewest workgroups
--- for that many rounds (a taker's time is its tasks, so the grid finishes
--- when its busiest does).
local function balanced_grid(tasks, per, most)
  local rounds = (tasks + per * most - 1) // (per * most)
  return (tasks + per * rounds - 1) // (per * rounds)
end

-- gemv_qr (templates/gemv_qr.hip), gemv_q's kernel on targets whose
-- quant_gemv is "regs": the formats it decodes from registers (decoder, rows
-- per wave task, slots of each wave's ring), UB blocks per unit.
local QREGS = {
  q8_0 = { deq = "kg_q8_0_regs32", cpw = 1, slots = 2 },
  q4_0 = { deq = "kg_q4_0_regs32_off", cpw = 2, slots = 2 },
}
local QR_UB = 4
-- Q4_0 of 16-bit x as 16-bit integers (XH): the integer sums need 71
-- registers where the f32 ones take 122, so the grid holds as many
-- workgroups as the LDS allows (QR_XH_GRIDS), each wave with one slot: its
-- next step's copies fly while it computes, and the other waves cover the
-- wait. Llama-3-8B Q4_0 decode on the H100: 377 tok/s
-- with two slots and 4 workgroups a compute unit in f32, 385 in f16 halves,
-- 429 like this; on the H200 the integer products took it from 518 to 553
-- (bench/results/h100_llama.md). The kernel's launch bounds (MINB) say how
-- many workgroups a compute unit the grid takes, so that it is resident and
-- ptxas takes 80 registers (held to 72, 7 workgroups of 4 waves a compute
-- unit, the kernels were slower: H200, 545 against 565 tok/s; held to 64,
-- they spill). At 80 registers a lane a compute unit holds 25 warps; the
-- grid takes 24, as 2 workgroups of 12 waves: each workgroup stages all of
-- x, so fewer, larger ones stage it fewer times (H200, Llama-3-8B Q4_0
-- decode, tok/s: 6 workgroups of 4 waves 566; 3 of 8, 581.7; 2 of 12,
-- 587.8; 1 of 24, 577.4). Where the LDS does not hold 2 of 12 (an A100's
-- does not at K = 14336), 3 of 8, else up to 6 of 4 (at least 3 fit).
local QR_XH_SLOTS = 1
local QR_XH_GRIDS = { -- waves a workgroup, most and fewest a compute unit
  { waves = 12, most = 2, fit = 2 }, { waves = 8, most = 3, fit = 3 },
  { waves = 4, most = 6, fit = 3 } }

--- gemv_q's params where the target decodes blocks from registers and the
--- format, K (whole pairs of units, so that every row and step starts
--- 16-byte aligned) and the LDS (the rings and x, all of K of every row, at
--- most a third of it; XH: see QR_XH_GRIDS) allow; else nil. x is scaled
--- f16 for Q4_0 of bf16 x (XH), else f32 where it fits, else x's dtype; each
--- unit padded to an odd number of 16 bytes (gemv_qr.hip).
local function gemv_qr_params(target, info)
  local r = QREGS[info.fmt]
  if target.quant_gemv ~= "regs" or not r or info.k % (64 * QR_UB) ~= 0 then return nil end
  -- regions whose results are rotated or cached pair rows 2i, 2i + 1 in
  -- one task (REPI); plain regions take any rows a task
  if info.region_epilogue and r.cpw % 2 == 1 then return nil end
  local lds_max = target.shared_optin_bytes or target.lds_bytes
  local nu = info.k // (32 * QR_UB)
  -- x as: 16-bit integers (XH: a block's 64 bytes, its scale and its
  -- offset; their rounding is under an eighth of f16's at a block's largest
  -- value), f32, x's dtype (a block's values and the sums of its halves);
  -- XH in each of QR_XH_GRIDS' grids, the others in 4 waves
  local xs = { { "float", 4 * 32 + 8 }, { info.x_ctype, info.x_size * 32 + 8 } }
  if info.fmt == "q4_0" and info.x_size == 2 then
    for i, g in ipairs(QR_XH_GRIDS) do
      table.insert(xs, i, { info.x_ctype, 64 + 8, xh = true, grid = g })
    end
  end
  -- a task's columns (RCPW), and its rows of w: a gate/up pair takes each
  -- column's row of both weights, as many rows a task as one weight would
  local cpw = info.pair and math.max(1, r.cpw // 2) or r.cpw
  local rows = cpw * (info.pair and 2 or 1)
  for _, c in ipairs(xs) do
    local slots = c.xh and QR_XH_SLOTS or r.slots
    -- waves a workgroup; workgroups a compute unit at most, and how many
    -- must fit the LDS
    local g = c.grid or { waves = 4, most = QWG_PER_CU, fit = 3 }
    local waves = g.waves
    local rings = waves * slots * rows * target.wave * QR_UB * info.bb
    local xu = (QR_UB * c[2] + 15) // 16 * 16
    if (xu // 16) % 2 == 0 then xu = xu + 16 end
    -- and the waves' sums of squares for a split norm's row scale (RSCALE)
    local lds = rings + info.mmax * nu * xu + info.mmax * waves * 4
    if lds <= lds_max // g.fit then
      local tasks = (info.n + cpw - 1) // cpw
      local per_cu = math.min(g.most, lds_max // lds)
      local grid = balanced_grid(tasks, waves, target.cus * per_cu)
      return {
        source = "gemv_qr", BLOCK = waves * target.wave, VEC = 1, shared_bytes = lds,
        per_block = info.n, ["repeat"] = grid,
        holes = {
          SHARED_BYTES = lds, GRID = grid, RCPW = cpw, UB = QR_UB, BB = info.bb, SLOTS = slots,
          XT = c[1], XCVT = c[1] == "float" and "kg_to_f32" or "", XU = xu, RDEQ = r.deq,
          XH = c.xh and "1" or "",
          MINB = c.xh and per_cu or "",
        },
      }
    end
  end
  return nil
end

-- gemv_qm (templates/gemv_qm.hip), gemv_q's kernel for Q4_0 weights and f16
-- or bf16 x on targets with mma.sync m16n8k16 in x's dtype: the slots of the
-- workgroup's ring, the most 256-weight chunks of a row per step, the most
-- waves per workgroup, and each dtype's nibble magic (kg_q4_0_mma_words)
-- with the offset it leaves.
local QM_SLOTS, QM_CPS, QM_WAVES = 2, 16, 16
-- where x does not fit whole (XW: two windows of a step's blocks): 8 chunks
-- a step, 3 slots (two steps in flight), at most QM_XW_TASKS tasks a
-- workgroup (each its own accumulators)
local QM_XW_CPS, QM_XW_SLOTS, QM_XW_TASKS = 8, 3, 8
local QM_MAGIC = {
  kg_bf16 = { dtype = "bf16", bf16 = "1", magic = "0x43004300u", off = "136.0f" },
  kg_f16 = { dtype = "f16", bf16 = "0", magic = "0x64006400u", off = "1032.0f" },
}

--- gemv_q's params where the tensor cores can take a Q4_0 GEMV of up to 8
--- rows (build_quant gives one row a variant of its own): K a whole number
--- of 256-weight chunks, the target has the m16n8k16 mma in x's
--- dtype, and the ring, x and the partial sums fit the LDS (x whole, or
--- else in two windows of a step: XW); else nil.
local function gemv_qm_params(target, info)
  local mg = QM_MAGIC[info.x_ctype]
  if info.fmt ~= "q4_0" or not mg or info.mmax < 2 or info.k % 256 ~= 0 or target.wave ~= 32 then
    return nil
  end
  local has = false
  for _, m in ipairs(target.mma or {}) do
    if m.op == "mma" and m.m == 16 and m.n == 8 and m.k == 16 and m.a == mg.dtype then has = true end
  end
  if not has then return nil end
  local nb = info.k // 32
  local lds_max = target.shared_optin_bytes or target.lds_bytes
  -- the LDS: the ring, x (all of it, or XW's two windows of a step), the C
  -- starts, two buffers of the waves' partial sums
  local function layout(cps, slots, xw)
    local waves = math.min(cps, QM_WAVES)
    local rs = cps * 144 + (cps % 2 == 0 and 16 or 0)
    local xrows = xw and 2 * (cps * 8 * 64 + 64) or nb * 64 + 64
    return waves, slots * 16 * rs + info.mmax * xrows + nb * 64 + 2 * waves * 512
  end
  local cps, slots, xw = math.min(nb // 8, QM_CPS), QM_SLOTS, false
  local waves, lds = layout(cps, slots, xw)
  if lds > lds_max then
    cps, slots, xw = math.min(nb // 8, QM_XW_CPS), QM_XW_SLOTS, true
    waves, lds = layout(cps, slots, xw)
    if lds > lds_max then return nil end
  end
  -- a task: 16 rows of w, or 8 columns of a gate/up pair's two weights
  local tasks = (info.n + (info.pair and 7 or 15)) // (info.pair and 8 or 16)
  local per_cu = math.max(1, math.min(lds_max // lds, 64 // waves, QWG_PER_CU))
  local grid = balanced_grid(tasks, 1, target.cus * per_cu)
  local jtmax = (tasks + grid - 1) // grid
  if xw and jtmax > QM_XW_TASKS then return nil end
  return {
    source = "gemv_qm", BLOCK = waves * 32, VEC = 1, shared_bytes = lds,
    per_block = info.n, ["repeat"] = grid,
    holes = { SHARED_BYTES = lds, GRID = grid, SLOTS = slots, CPS = cps, BF16 = mg.bf16, QMAGIC = mg.magic,
      QOFF = mg.off, XW = xw and "1" or "", JTMAX = xw and jtmax or "" },
  }
end

-- gemv_q's generic kernel (templates/gemv_q.hip): groups of 32 staged in
-- LDS. The LDS: a ring of stage slots per wave (QSLOTS where copies are
-- asynchronous, CUDA's cp.async: the next stages are in flight while this
-- one is computed; else one), then x: all of K staged once where ring and x
-- take at most a third of the target's LDS (three workgroups fit; the waves
-- then never wait for each other), as f32 or else x's dtype; else one
-- stage's slice at a time, f32 or x's dtype; else x is read from global
-- memory. The grid: every task of NB columns, or as many workgroups as the
-- target holds at once (at most QWG_PER_CU per compute unit; LDS decides),
-- each taking tasks blockIdx.x, + GRID, ...
local function gemv_q_params(target, info)
  local slots = target.platform == "cuda" and QSLOTS or 1
  -- (a gate/up pair: two rows of w a column)
  local rows = info.cpw * (info.pair and 2 or 1)
  local ring = (info.waves * slots * rows * ((info.stage_bytes + 15) // 16 * 16)) + 16
  local lds_max = target.shared_optin_bytes or target.lds_bytes
  local xt, xk, x_bytes
  for _, c in ipairs({ { "float", 4, info.k }, { info.x_ctype, info.x_size, info.k },
    { "float", 4, info.se }, { info.x_ctype, info.x_size, info.se } }) do
    local bytes = info.mmax * (c[3] // 32) * (32 * c[2] + 16)
    if ring + bytes <= lds_max // 3 then
      xt, xk, x_bytes = c[1], c[3], bytes
      break
    end
  end
  -- and the waves' sums of squares for a split norm's row scale (RSCALE)
  local lds = ring + (x_bytes or 0) + info.mmax * info.waves * 4
  local tasks = (info.n + info.waves * info.cpw - 1) // (info.waves * info.cpw)
  local grid = balanced_grid(tasks, 1, target.cus * math.max(1, math.min(QWG_PER_CU, lds_max // lds)))
  return {
    source = "gemv_q", BLOCK = info.waves * target.wave, VEC = info.vec, shared_bytes = lds,
    per_block = info.n, ["repeat"] = grid,
    holes = {
      SHARED_BYTES = lds, SLOTS = slots, GRID = grid, XT = xt or info.x_ctype, XK = xk or info.se,
      XL = xt and "1" or "", XG = xt and "" or "1",
      XCVT = xt == "float" and "kg_to_f32" or "",
    },
  }
end

-- the holes of gemv_q.hip and gemv_qr.hip
local GEMV_Q_HOLES = { "BB", "CPW", "DEQ", "FMT", "GRID", "K", "LB", "LE", "MIN", "MINB", "MMAX",
  "N", "NB", "NS", "QB", "QB0", "QB1", "RB", "RCPW", "RDEQ", "SB", "SE", "SHARED_BYTES", "SLOTS",
  "T", "UB", "XCVT", "XG", "XH", "XK", "XL", "XT", "XU" }

-- The quantized GEMV of up to 8 rows (one row, where build_quant gives Q4_0
-- a variant of its own): gemv_qr where the target decodes blocks from
-- registers, else gemv_q.hip. It takes a gate/up pair (each column a row of
-- both weights in a task), and the Q, K and V projections as regions, and
-- RoPE and the KV write on their results, as the float GEMV does. An RMS
-- norm between two of them is split by default: the producer (O or down +
-- residual) writes z = h times the norm's weight, and the consumers stage z
-- as x, add the squares of h themselves (row_sums: each workgroup reads the
-- row, 8 KB at Llama-3-8B shapes) and scale each row by the norm's rsqrt,
-- so no norm kernel runs at decode (Llama-3-8B Q4_0 on the H200: 553 -> 558
-- tok/s with the producer writing the sums of squares, each task's added
-- per 32 columns by the run's last task; 608.5 -> 625.2 tok/s with the
-- consumers adding them instead, bench/results/h100_llama.md). (The norm
-- taken in as a prologue, as the float GEMV takes it, was 40% slower on the
-- H100 for the gate and up GEMVs at Llama-3-8B shapes: every workgroup
-- staged the norm's weight too.)
kg.template {
  name = "gemv_q",
  holes = GEMV_Q_HOLES,
  libs = { "quant", "rope" },
  sources = { "gemv_qr" },
  fuse = { epilogue = true, pair = true, regions = true, region_epilogue = true,
    norm_out = true, row_scale = true, row_sums = true, split_default = true },
  weights_before_wait = true,
  params = function(target, info)
    return gemv_qr_params(target, info) or gemv_q_params(target, info)
  end,
}

-- Q4_0 GEMVs of 2 to 8 rows of f16 or bf16 x: gemv_qm on the tensor cores
-- where the target has them, else gemv_q's kernels; epilogues and the
-- gate/up pair (a task's 16 rows are 8 columns of both weights) only, so the
-- holes of those kernels' other roles (regions, split norms) are declared off
-- here.
local GEMV_QM_HOLES = { "BF16", "CPS", "JTMAX", "QMAGIC", "QOFF", "XW" }
for _, h in ipairs(GEMV_Q_HOLES) do GEMV_QM_HOLES[#GEMV_QM_HOLES + 1] = h end
for _, h in ipairs({ "REGIONS", "R1", "R2", "REPI", "ROPE0", "ROPE1",
  "ROPE2", "KV0", "KV1", "KV2", "RE_D", "RE_PAIRS", "RE_HALF", "RE_REV", "RE_C_T", "RE_SLOTS",
  "KVSLOTS", "NOUT", "NOUT_T", "NOG_T", "RSCALE", "RS_EPS", "RS_K", "RS_T" }) do
  GEMV_QM_HOLES[h] = ""
end
kg.template {
  name = "gemv_qm",
  holes = GEMV_QM_HOLES,
  libs = { "quant" },
  sources = { "gemv_q", "gemv_qr" },
  fuse = { epilogue = true, pair = true },
  weights_before_wait = true,
  params = function(target, info)
    return gemv_qm_params(target, info) or gemv_qr_params(target, info)
      or gemv_q_params(target, info)
  end,
}

-- The GEMV grids aim at this many workgroups per compute unit (targets/<arch>.lua
-- cus) at least, of 4 waves each: fewer, and whole columns (gemv) or whole
-- rows of w (gemv_kn) per workgroup leave the machine idle.
local WG_PER_CU = 4

--- Waves per workgroup and columns per wave: NB = waves * cpw columns per
--- workgroup, NB dividing N where it can (the kernel guards n < N). N = 14336
--- gives 1792 workgroups of 4 waves.
local function split_columns(n)
  if n % 8 == 0 then return 4, 2 end
  if n % 4 == 0 then return 2, 2 end
  if n % 2 == 0 then return 1, 2 end
  return 1, 1
end

--- The waves that split K for the GEMV (KSPLIT; 1: no split). Whole columns
--- per wave while that gives WG_PER_CU workgroups per compute unit; below
--- that, each workgroup takes the CPW columns of one wave and its waves split
--- the rows of w between them: the split doubles (up to 16 waves, the
--- target's max_block) while every lane still reads a vector of each row
--- (kv: vectors per row) and the grid holds fewer than WG_PER_CU x 4 waves per
--- compute unit. N = 16 at K = 4096 (bf16, 512 vectors a row): 8 workgroups
--- of 16 waves on gfx1100, of 8 on gfx942 (512 lanes, a vector each).
local function split_k(target, n, kv, waves, cpw)
  if (n + waves * cpw - 1) // (waves * cpw) >= WG_PER_CU * target.cus then return 1 end
  local groups = (n + cpw - 1) // cpw
  local most = math.min(16, target.max_block // target.wave)
  local s = 1
  while s * 2 <= most and s * 2 * target.wave <= kv and groups * s < WG_PER_CU * 4 * target.cus do
    s = s * 2
  end
  return s
end

--- gemv's kernel on the matrix units (templates/gemv_mma.hip) for a matmul
--- whose rows must not depend on M (matmul's invariant): one kernel for
--- every M up to 8, where the target has mma.sync m16n8k16 in the dtype and
--- K is whole chunks of 32 (and 128-bit vectors); else nil. A workgroup takes
--- 16 columns; its 4 waves split K (each a run of consecutive chunks),
--- doubling up to 16 only while the grid has fewer than 6 waves per compute
--- unit. A wave keeps UNROLL chunks of its two rows in flight: 8 KiB (8
--- chunks; 4 of a gate/up pair's four rows). With 16 waves a workgroup for
--- every 16 of Llama-3-8B's 4096 columns (O, down) came to 0.69 of the
--- batch-1 roofline on an H200 against the vector GEMV's 0.81: 256
--- workgroups of 16 waves, one resident per SM (74 registers), each a short
--- burst of 2 steps; 4 waves keep them all resident and streaming.
local GEMV_MMA_BF16 = { bf16 = "1", f16 = "0" }
local function gemv_mma_params(target, info)
  local bf16 = GEMV_MMA_BF16[info.dtype]
  if not info.invariant or not bf16 or target.wave ~= 32 or info.k % 32 ~= 0 then return nil end
  local has = false
  for _, m in ipairs(target.mma or {}) do
    if m.op == "mma" and m.m == 16 and m.n == 8 and m.k == 16 and m.a == info.dtype then has = true end
  end
  if not has then return nil end
  local tasks, chunks = (info.n + 15) // 16, info.k // 32
  local unroll = info.pair and 4 or 8
  local waves = 4
  while waves < 16 and waves * 2 * unroll <= chunks and tasks * waves < 6 * target.cus do
    waves = waves * 2
  end
  return { source = "gemv_mma", BLOCK = waves * 32, VEC = 8, UNROLL = unroll, per_block = 16, ["repeat"] = 1,
    holes = { CPW = 16, NB = 16, KSPLIT = waves, SPLIT = "1", BF16 = bf16 } }
end

kg.template {
  name = "gemv",
  holes = { "BF16", "CPW", "K", "KSPLIT", "MMAX", "N", "NB", "SPLIT", "T" },
  libs = { "rope" },
  sources = { "gemv_mma" },
  fuse = { epilogue = true, pair = true, rms_prologue = true, regions = true,
    region_epilogue = true },
  params = function(target, info)
    local mma = gemv_mma_params(target, info)
    if mma then return mma end
    -- VEC divides K, so every row of x and w starts aligned to a vector
    -- (K = 4097 reads scalars); UNROLL vectors per lane are in flight at once
    -- for each of the wave's CPW columns: 4, or with split K as many as every
    -- lane of the group has (at most 4), so they are loaded in one step.
    local vec = kg.vector_width(kg.dtypes[info.dtype], { info.k })
    local waves, cpw = split_columns(info.n)
    local kv = info.k // vec
    local ksplit = split_k(target, info.n, kv, waves, cpw)
    local unroll = 4
    if ksplit > 1 then
      waves = ksplit
      unroll = math.max(1, math.min(4, kv // (ksplit * target.wave)))
    end
    local nb = waves // ksplit * cpw
    return { BLOCK = waves * target.wave, VEC = vec, UNROLL = unroll, per_block = nb, ["repeat"] = 1,
      holes = { CPW = cpw, NB = nb, KSPLIT = ksplit, SPLIT = ksplit > 1 and "1" or "", BF16 = "" } }
  end,
}

kg.template {
  name = "gemv_kn",
  holes = { "CW", "K", "KS", "MMAX", "N", "NT", "T", "XV" },
  fuse = { epilogue = true, pair = true },
  params = function(target, info)
    -- VEC divides N (w[k, n .. n + VEC) is one 128-bit load where N allows),
    -- XV divides K (x is read in vectors; at most 4 for a gate/up pair, whose
    -- two sets of sums take twice the registers); UNROLL blocks of XV rows
    -- keep at least 4 loads of w in flight per thread. NT threads across the
    -- columns: a wave's worth of vectors, halved while the grid has fewer
    -- than WG_PER_CU workgroups per compute unit, down to 128 bytes of a row.
    -- 4 waves: the MMAX x VEC sums a thread keeps leave no registers for more.
    local dt = kg.dtypes[info.dtype]
    local vec = kg.vector_width(dt, { info.n })
    local xv = math.min(kg.vector_width(dt, { info.k }), info.pair and 4 or 8)
    local nt, least = target.wave, math.max(1, math.min(target.wave, 128 // (vec * dt.size)))
    while nt > least and (info.n + nt * vec - 1) // (nt * vec) < WG_PER_CU * target.cus do
      nt = nt // 2
    end
    local block = 4 * target.wave
    return { BLOCK = block, VEC = vec, UNROLL = math.max(1, 4 // xv), per_block = nt * vec,
      ["repeat"] = 1, holes = { XV = xv, NT = nt, KS = block // nt, CW = nt * vec } }
  end,
}

-- The keys a GEMM tile has (targets/<arch>.lua gemm[dtype], matmul's `tile`).
local TILE_KEYS = { bm = true, bn = true, bk = true, waves_m = true, waves_n = true,
  stages = true, mma = true, shape = true }

local GEMM_HOLES = { "BB", "BK", "BM", "BN", "BSTAGES", "FM", "FN", "FRAG", "K", "KN", "KSPLIT",
  "LD", "N", "NK", "QB0", "QB1", "QBN", "QDEQ", "QRAW", "QROW", "QS", "QSYNC", "REPEAT",
  "SHARED_BYTES", "STAGES", "SYNC", "T", "TILES_N", "WG", "WM", "WN", "W_T",
  DEQ = "", RB = "" } -- quantized w only
kg.template {
  name = "gemm",
  holes = GEMM_HOLES,
  libs = { "mma", "quant", "rope" },
  fuse = { epilogue = true, pair = true, regions = true, region_epilogue = true,
    norm_out = true, row_scale = true },
  weights_before_wait = true,
  params = function(target, info) return kg.gemm_params("matmul", target, info) end,
}

-- The GEMM of w [K, N] (w_layout = "kn"): gemm.hip, with epilogues only (its
-- regions read w by rows), so those roles' holes are off here.
local GEMM_KN_HOLES = {}
for k, v in pairs(GEMM_HOLES) do GEMM_KN_HOLES[k] = v end
for _, h in ipairs({ "REGIONS", "R1", "R2", "REPI", "ROPE0", "ROPE1", "ROPE2", "KV0", "KV1",
  "KV2", "RE_D", "RE_PAIRS", "RE_HALF", "RE_REV", "RE_C_T", "RE_SLOTS", "KVSLOTS", "NOUT", "NOUT_T", "NOG_T",
  "RSCALE", "RS_EPS", "RS_K", "NPC" }) do
  GEMM_KN_HOLES[h] = ""
end
kg.template {
  name = "gemm_kn",
  holes = GEMM_KN_HOLES,
  file = "gemm",
  libs = { "mma", "quant" },
  fuse = { epilogue = true, pair = true },
  weights_before_wait = true,
  params = function(target, info) return kg.gemm_params("matmul", target, info) end,
}

-- A tile's sizes: whole numbers from 1 to TILE_MAX (its kind and shape
-- are checked against the target's instructions by gemm_params).
local TILE_MAX = 4096
local function check_tile(v)
  local why = "must be a table of bm, bn, bk, waves_m, waves_n, stages, mma, shape"
  if type(v) ~= "table" then return false, why end
  for key in pairs(v) do
    if not TILE_KEYS[key] then return false, why .. " (not " .. tostring(key) .. ")" end
  end
  for _, key in ipairs({ "bm", "bn", "bk", "waves_m", "waves_n", "stages" }) do
    local n = rawget(v, key)
    if n ~= nil and (math.type(n) ~= "integer" or n < 1 or n > TILE_MAX) then
      return false, ("must have %s a whole number from 1 to %d (not %s)"):format(key, TILE_MAX,
        type(n) == "number" and tostring(n) or type(n))
    end
  end
  local mma, shape = rawget(v, "mma"), rawget(v, "shape")
  if mma ~= nil and (type(mma) ~= "string" or not mma:match("^[%a_][%w_]*$")) then
    return false, "must have mma the name of an instruction kind (\"wmma\", \"mfma\", ...)"
  end
  if shape ~= nil then
    local ok = type(shape) == "table" and #shape == 3
    for i = 1, 3 do
      local n = ok and rawget(shape, i)
      ok = ok and math.type(n) == "integer" and n >= 1 and n <= TILE_MAX
    end
    if not ok then return false, "must have shape a list of 3 whole numbers (m, n, k)" end
  end
  return true
end

kg.op {
  name = "matmul",
  doc = "y = x . w^T: x [..., K] (M rows), w [N, K] (or [K, N] with w_layout = \"kn\"; [B, N, K] batched; or a GGUF q8_0/q4_0/q4_k/q6_k weight [N, K]) -> [..., N]; GEMV for M <= 8 and unbatched w (split K where N is small for the target), GEMM above (small_m = N: a GEMM of its own up to M = N, tiled for N rows; invariant = true: one GEMV kernel for every M <= 8, so a row never depends on M); f32 accumulation",
  inputs = { "x", "w" },
  attrs = {
    w_layout = { default = "nk", check = function(v) return v == "nk" or v == "kn", "must be \"nk\" or \"kn\"" end },
    tile = { check = check_tile },
    -- a GEMM of its own for M up to small_m (MMAX + 1 .. small_m), its tile
    -- chosen for small_m rows: a decode step of that many sequences
    small_m = { check = function(v)
      return math.type(v) == "integer" and v > MMAX and v <= 4096,
        ("must be an integer in [%d, 4096]"):format(MMAX + 1)
    end },
    -- the rows are independent (a batch's sequences) and a row's result must
    -- not depend on how many share the call: the GEMV takes every M up to 8
    -- in one kernel (for float weights on the matrix units where the target
    -- has them: gemv_mma), never one kernel for one row and another for more
    -- (but Q4_0 weights with f16 or bf16 x where gemv_qm takes 2 to 8 rows)
    invariant = { default = false, check = function(v) return type(v) == "boolean", "must be true or false" end },
  },
  build = function(node, ins, a)
    local x, w = ins[1], ins[2]
    if w.dtype.quant then return build_quant(node, x, w, a) end
    kg.check_float("matmul", x, "x")
    kg.check_float("matmul", w, "w")
    if x.dtype ~= w.dtype then
      fail("matmul: dtype mismatch: x is %s, w is %s", x.dtype.name, w.dtype.name)
    end
    local kn = a.w_layout == "kn"
    local wr = #w.shape
    for _, d in ipairs(w.shape) do
      if math.type(d) ~= "integer" then wr = 0 end
    end
    if wr ~= 2 and wr ~= 3 then
      fail("matmul: w must be %s or [B, %s] with constant dims, got %s", kn and "[K, N]" or "[N, K]",
        kn and "K, N" or "N, K", kg.shape_str(w.shape))
    end
    local batch = wr == 3 and w.shape[1] or 1
    local k = kg.const_cols("matmul", x)
    local n = kn and w.shape[wr] or w.shape[wr - 1]
    local wk = kn and w.shape[wr - 1] or w.shape[wr]
    if wk ~= k then
      fail("matmul: K mismatch: x %s has K = %d, w %s has K = %d", kg.shape_str(x.shape), k,
        kg.shape_str(w.shape), wk)
    end
    -- M: the dims of x between the batch dim (if any) and K; its largest value is known now
    local first = 1
    if batch > 1 or wr == 3 then
      if #x.shape < 2 or x.shape[1] ~= batch then
        fail("matmul: batched w %s needs x [%d, ..., %d], got %s", kg.shape_str(w.shape), batch, k,
          kg.shape_str(x.shape))
      end
      first = 2
    end
    local rows, mmax, mmin = {}, 1, 1
    for i = first, #x.shape - 1 do
      local d = x.shape[i]
      rows[#rows + 1] = d
      mmax = mmax * (kg.is_sym(d) and d.max or d)
      mmin = mmin * (kg.is_sym(d) and 1 or d)
    end
    local m = #rows > 0 and rows or 1
    local shape = {}
    for i = 1, #x.shape - 1 do shape[i] = x.shape[i] end
    shape[#shape + 1] = n
    node.out_dtype, node.out_shape = x.dtype, shape
    node.variants = {}
    -- GEMV: w unbatched, when M can be 8 or less; one workgroup per NB (gemv)
    -- or CW (gemv_kn) columns, which the target's params rule chooses
    local gemv = wr == 2 and mmin <= MMAX
    if gemv then
      node.variants[#node.variants + 1] = {
        template = kn and "gemv_kn" or "gemv", grid = "tiles", tile_units = n, tiles_columns = true,
        dim_args = { m },
        holes = {
          T = x.dtype.ctype, K = tostring(k), N = tostring(n), MMAX = tostring(math.min(mmax, MMAX)),
        },
        params_info = { dtype = x.dtype.name, k = k, n = n, invariant = a.invariant and not kn },
        select = mmax > MMAX and { size = m, max = MMAX } or nil,
      }
    end
    if mmax > MMAX or not gemv then
      add_gemm(node, {
        template = kn and "gemm_kn" or "gemm", label = "gemm", grid = "tiles", tile_units = m,
        fuse_key = tile_key(a.tile), dim_args = { m },
        holes = { T = x.dtype.ctype, W_T = x.dtype.ctype, K = tostring(k), N = tostring(n),
          KN = kn and "1" or "", NK = kn and "" or "1" },
        params_info = { dtype = x.dtype.name, k = k, n = n, kn = kn, batch = batch, tile = a.tile,
          m = mmax,
          -- "model.lua:LINE: " of the call (level 4: error <- pcall <- build <- kg.op
          -- <- the model), for a tile that does not suit a target
          where = select(2, pcall(error, "", 4)) },
      }, m, mmax, gemv, a.small_m, not kn and wr == 2)
    end
  end,
}
