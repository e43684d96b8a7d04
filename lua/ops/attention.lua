-- ops/attention.lua - scaled dot-product attention over a KV head's keys,
-- grouped-query: y[t, h] = sum_j softmax_j(s[t, h, j]) v[j, h / G] with
-- s[t, h, j] = scale q[t, h] . k[j, h / G] (optionally soft-capped,
-- cap tanh(s / cap)), G = H / KVH query heads per KV head.
--   q [T, H, D]; k and v either tensors [S, KVH, D] (the context S is their
--   first dim, a constant or a sym) or KV caches [L, KVH, S_max, D] that
--   kv_append fills (attribute layer; the context, a sym or an integer up to
--   S_max, in attribute context); y [T, H, D] in q's dtype. f16, bf16 and
--   f32, f32 sums.
--   The query rows are the last T positions of the context: row t sits at
--   position t + S - T (prefill and decode alike). causal = true hides key
--   j from row t when j > t + S - T; window = W (with causal) also hides
--   j <= t + S - T - W (sliding-window attention, Mistral's). A row that
--   sees no key (T > S under a causal mask) gives zeros.
--
-- Kernels (templates/attention.hip: flash attention, online softmax in base
-- 2 over K/V tiles staged in LDS, both products on the target's matrix
-- fragments, lib_mma.hip; FMA where there are none, and for f32). The G
-- query heads of a KV head are packed as rows t G + g of one tile, so K and V
-- are read once per KV head and tile of rows. Two paths, which the plan
-- picks by the run-time T, as matmul picks GEMV or GEMM:
--   prefill (T > TD): a workgroup per tile of BM packed rows and KV head,
--     waves splitting the rows; key tiles wholly above the causal diagonal or
--     before the window are never read; the last row tiles (the longest under
--     a causal mask) start first.
--   decode (T <= TD = max(1, 16 / G)): the context is split over SPLITS
--     workgroups per KV head (flash-decoding), the waves of one splitting its
--     key tiles; each writes its rows' partial maximum, sum and output to an
--     f32 buffer (the node's second result) and counts itself in a persistent
--     int per KV head and row tile (the third: kept across runs, zeroed at
--     load); the last to count adds the SPLITS parts in split order (the same
--     bits whatever the schedule) into y. One kernel: no second launch. A
--     split takes at least min_tiles key tiles (the target's decode table,
--     or the model's decode attribute; default 1): at a context shorter
--     than SPLITS tiles, fewer workgroups with tiles, each running two or
--     more through its ring, and fewer parts to add.
local kg = require "kgen"
local fail = kg.fail

-- The most splits of the context, whatever the target: the partial buffer
-- is planned once for every arch of a table. PSMAX for paged attention,
-- whose buffer has a row per token of a batch of sequences.
local SMAX, PSMAX = 64, 32

--- The query rows the decode path serves at most (T <= TD).
local function decode_rows(g)
  return math.max(1, 16 // g)
end

local TILE_KEYS = { bm = true, bn = true, waves = true, stages = true }
local DECODE_KEYS = { bn = true, waves = true, stages = true, splits = true, min_tiles = true }

--- The fragment that multiplies `dtype` on a target: its name (a
--- kg_mma_<kind> of lib_mma.hip taking <T, LD>) and M, N, K.
local function fragment(target, dtype, where)
  local spec = target.attention and target.attention[dtype]
  if not spec then
    error(("%sattention: target %s has no attention data for %s"):format(where, target.name,
      dtype), 0)
  end
  if spec.mma == "fma" then
    return ("kg_mma_fma_w%d"):format(target.wave), target.wave // 2, 32, 1
  end
  for _, m in ipairs(target.mma or {}) do
    if m.op == spec.mma and m.m == spec.shape[1] and m.n == spec.shape[2] and m.k == spec.shape[3] then
      return ("kg_mma_%s_%dx%dx%d"):format(m.op, m.m, m.n, m.k), m.m, m.n, m.k
    end
  end
  error(("%sattention: target %s has no %s %s instruction"):format(where, target.name, spec.mma,
    table.concat(spec.shape or {}, "x")), 0)
end

--- The splits of the context for the decode path on a target: as many
--- workgroups as wg_per_cu per compute unit hold (one wave of them), or the
--- model's `splits`; no more than the context's key tiles or SMAX.
local function decode_splits(target, info, bm, bn)
  local d = target.attention.decode
  local row_tiles = (info.td * info.g + bm - 1) // bm
  local want = (info.decode or {}).splits or
    d.wg_per_cu * target.cus // (info.kvh * row_tiles)
  local tiles = (info.s_max + bn - 1) // bn
  return math.max(1, math.min(want, tiles, info.paged and PSMAX or SMAX))
end

--- The tile of one path on a target: rows BM (WM waves along the rows, FM
--- fragments each), keys BN per K/V tile (WK waves along them, BNW each),
--- halved until a lane's accumulators take at most 2/3 of its registers and
--- the LDS holds Q, the waves' P tiles and the K/V ring (and the wave
--- groups' partial outputs, which reuse the ring); and the holes.
local function attention_params(target, info)
  local dt = kg.dtypes[info.dtype]
  local name, fm_rows, fn, fk = fragment(target, info.dtype, info.where)
  local decode = info.mode == "decode"
  local base = decode and target.attention.decode or target.attention.prefill
  local t = {}
  for key, v in pairs(base) do t[key] = v end
  for key, v in pairs((decode and info.decode or info.tile) or {}) do t[key] = v end
  -- the AMD kinds multiply transposed (lib_mma.hip F::TR): a fragment's
  -- query rows are its N columns, and V is stored transposed, [DP][LDV]
  local tr = name:match("^kg_mma_wmma") or name:match("^kg_mma_mfma")
  -- mma.sync keeps P in registers (lib_mma.hip F::PREG): no P tiles in LDS
  local preg = name:match("^kg_mma_mma_") ~= nil
  local frows = tr and fn or fm_rows -- query rows per fragment
  local kf = tr and fm_rows or fn -- keys (S) or head-dim columns (O) per fragment
  local unit = math.max(kf, fk)
  local dp = (info.d + unit - 1) // unit * unit -- D padded to whole fragments
  local pad = 16 // dt.size
  local ldq = dp + pad
  local lds_max = target.shared_optin_bytes or target.lds_bytes
  local waves, bm, bn = t.waves, t.bm, t.bn
  local function bad(why)
    error(("%sattention: %s tile bm %s, bn %d, %d waves, %d stages on %s: %s"):format(
      info.where, info.mode, decode and "-" or tostring(bm), bn, waves, t.stages, target.name,
      why), 0)
  end
  if math.type(waves) ~= "integer" or waves < 1 or waves * target.wave > target.max_block then
    bad(("waves must be 1 to %d"):format(target.max_block // target.wave))
  end
  if math.type(t.stages) ~= "integer" or t.stages < 1 then bad("stages must be at least 1") end
  local wm, wk, fm
  local function sizes()
    if decode then
      wm, wk, fm = 1, waves, 1
      bm = frows
    else
      wm, wk = waves, 1
      fm = bm // (waves * frows)
    end
    local bnw = bn // wk
    local ldp = bnw + pad
    local ring = t.stages * (bn * ldq + (tr and dp * (bn + pad) or bn * ldq)) * dt.size
    local part = (wk > 1 or decode) and wk * bm * (dp + 4) * 4 + wk * bm * 8 or 0
    local ptiles = preg and 0 or waves * fm * frows * ldp * dt.size
    -- paged: each row's position, at the end; decode (its passes' tiles in
    -- one stream) each row's pass too, the passes' table (bm + 3 rows of 8
    -- ints) and the tile's tokens' sequences, positions and contexts (bm + 1
    -- each)
    local rows = info.paged and (decode and bm * 8 + (bm + 3) * 32 + (bm + 1) * 12 or bm * 4)
      or 0
    rows = (rows + 15) // 16 * 16
    local lds = bm * ldq * dt.size + ptiles + math.max(ring, part) + rows
    -- the floats of the accumulators a lane holds: O's and S's fragments
    local accs = fm * (dp + bnw) // kf * (fm_rows * fn // target.wave)
    return bnw, ldp, lds, accs
  end
  local explicit = (decode and info.decode or info.tile) or {}
  -- the target's tile in whole fragments: keys for each wave, rows (prefill)
  if not explicit.bn then
    local step = (decode and waves or 1) * unit
    bn = math.max(step, (bn + step - 1) // step * step)
  end
  if not decode and not explicit.bm then
    local step = waves * frows
    bm = math.max(step, (bm + step - 1) // step * step)
  end
  local bnw, ldp, lds, accs = sizes()
  -- the target's tile shrinks to fit: its accumulators in about 2/3 of the
  -- registers (fewer rows per wave, else fewer keys), then the LDS (fewer
  -- keys per wave, else fewer waves; prefill: and rows); a model's tile
  -- must fit as given
  local regs = (target.registers_per_thread or target.vgprs_per_lane) * 2 // 3
  while accs > regs do
    if not decode and not explicit.bm and fm > 1 then
      bm = bm // 2
    elseif not explicit.bn and bn // wk >= 2 * unit then
      bn = bn // 2
    else
      break
    end
    bnw, ldp, lds, accs = sizes()
  end
  while lds > lds_max do
    if not explicit.bn and bn // wk >= 2 * unit then
      bn = bn // 2
    elseif not explicit.waves and not explicit.bm and waves > 1 then
      waves = waves // 2
      if not decode then bm = bm // 2 end
    else
      break
    end
    bnw, ldp, lds, accs = sizes()
  end
  if not decode and (bm % (waves * frows) ~= 0 or fm < 1) then
    bad(("bm must be a multiple of waves x %d (the fragment's rows)"):format(frows))
  end
  if bn % wk ~= 0 or bnw % kf ~= 0 or bnw % fk ~= 0 then
    bad(("each wave's keys (bn / %d) must be whole fragments of %d"):format(wk, unit))
  end
  if lds > lds_max then
    bad(("needs %d bytes of LDS, the target has %d%s"):format(lds, lds_max,
      info.dtype == "f32" and " (f16 or bf16 take half)" or ""))
  end
  local splits = decode and decode_splits(target, info, bm, bn) or 1
  -- paged decode: the splits that take keys this run, SPLITW / (the run's
  -- row tiles), 1 to SPLITS (templates/attention.hip): the workgroups per KV
  -- head the target's decode table aims at, or the model's splits always
  local splitw = splits
  if decode and info.paged then
    splitw = (info.decode or {}).splits and splits * info.rtmax
      or math.max(1, target.attention.decode.wg_per_cu * target.cus // info.kvh)
  end
  local scale2 = info.scale * 1.4426950408889634 -- log2 e: the softmax runs in base 2
  return {
    BLOCK = waves * target.wave, VEC = 16 // dt.size, per_block = bm,
    ["repeat"] = info.kvh * splits, shared_bytes = lds,
    -- the parts (result 2) are written and read once a split; prefill never
    -- touches them
    moved_times = { 1, decode and splits or 0 },
    holes = {
      SHARED_BYTES = lds, FRAG = name, BM = bm, BN = bn, BNW = bnw, DP = dp, LDQ = ldq, LDP = ldp,
      LDV = bn + pad,
      WM = wm, WK = wk, FM = fm, STAGES = t.stages, SPLITS = splits, REPEAT = info.kvh * splits,
      SPLITW = splitw,
      MINT = decode and t.min_tiles or 1,
      SCALE2 = kg.float_literal(scale2),
      CAP_IN = kg.float_literal(info.softcap and info.scale / info.softcap or 0),
      CAP_OUT = kg.float_literal(info.softcap and info.softcap * 1.4426950408889634 or 0),
      SOFTCAP = info.softcap and "1" or "", PLAIN = info.softcap and "" or "1",
      GATHER = (decode or wk > 1) and "1" or "", DIRECT = (decode or wk > 1) and "" or "1",
      FINAL = (not decode and wk > 1) and "1" or "",
    },
  }
end

kg.template {
  name = "attention",
  holes = { "BM", "BN", "BNW", "BS", "CAP_IN", "CAP_OUT", "CAUSAL", "D", "DIRECT", "DP",
    "FINAL", "FIRST", "FM", "FRAG", "G", "GATHER", "H", "KJS", "KVS", "LSTRIDE", "LDP", "LDQ", "LDR", "LDV",
    "MAXB", "MINT", "NBLK", "OLDKV", "PAGED", "PARTIAL", "PLAIN", "PTD", "Q_T", "REPEAT", "RTMAX",
    "SCALE2", "SCRATCH", "SHARED_BYTES", "SOFTCAP", "SPLITS", "SPLITW", "STAGES", "STREAM", "TD",
    "WINDOW",
    "WK", "WM" },
  libs = { "mma" },
  params = attention_params,
}


local function check_tile(keys, what)
  return function(v)
    local why = "must be a table of " .. what
    if type(v) ~= "table" then return false, why end
    for key, x in pairs(v) do
      if not keys[key] then return false, why .. " (not " .. tostring(key) .. ")" end
      if math.type(x) ~= "integer" or x < 1 then
        return false, why .. " (" .. tostring(key) .. " a positive integer)"
      end
    end
    return true
  end
end

local function positive(v)
  return type(v) == "number" and v == v and v > 0 and v ~= math.huge, "must be finite and > 0"
end

--- The facts both nodes build on, after every check: dims, strides of k and v
--- (key j of KV head h at layer lstride + h kvs + j kjs; the layer is a
--- kernel argument, so every layer runs the same kernel), the holes and params info.
local function describe(q, k, v, a, where)
  kg.check_float("attention", q, "q")
  kg.check_float("attention", k, "k")
  kg.check_float("attention", v, "v")
  if #q.shape ~= 3 then fail("attention: q must be [T, H, D], got %s", kg.shape_str(q.shape)) end
  local tq, h, d = q.shape[1], q.shape[2], q.shape[3]
  if math.type(h) ~= "integer" or math.type(d) ~= "integer" then
    fail("attention: q's heads and head dim must be constants, got %s", kg.shape_str(q.shape))
  end
  if k.dtype ~= q.dtype or v.dtype ~= q.dtype then
    fail("attention: dtype mismatch: q is %s, k is %s, v is %s", q.dtype.name, k.dtype.name,
      v.dtype.name)
  end
  if not kg.same_shape(k.shape, v.shape) then
    fail("attention: k %s and v %s must have the same shape", kg.shape_str(k.shape),
      kg.shape_str(v.shape))
  end
  local info = { d = d, h = h, dtype = q.dtype.name, where = where }
  local kvh, s_size
  if #k.shape == 3 then
    if a.layer ~= nil or a.context ~= nil or a.appended then
      fail("attention: attribute %s is for a KV cache [L, KVH, S, D]; k is %s",
        a.layer ~= nil and "layer" or a.context ~= nil and "context" or "appended",
        kg.shape_str(k.shape))
    end
    kvh = k.shape[2]
    if math.type(kvh) ~= "integer" then
      fail("attention: k's KV heads must be a constant, got %s", kg.shape_str(k.shape))
    end
    s_size = k.shape[1]
    info.s_max = kg.is_sym(s_size) and s_size.max or s_size
    info.layer, info.lstride, info.kvs, info.kjs = 0, 0, d, kvh * d
  elseif #k.shape == 4 then
    for i = 1, 4 do
      if math.type(k.shape[i]) ~= "integer" then
        fail("attention: a KV cache's dims must be constants, got %s", kg.shape_str(k.shape))
      end
    end
    local layers, slots
    layers, kvh, slots = k.shape[1], k.shape[2], k.shape[3]
    local layer = a.layer or 0
    if layer >= layers then
      fail("attention: attribute layer must be < the cache's %d layers, got %d", layers, layer)
    end
    if a.context == nil then
      fail("attention: a KV cache needs attribute context (the run-time context length, a sym or an integer <= %d)",
        slots)
    end
    s_size = a.context
    info.s_max = kg.is_sym(s_size) and s_size.max or s_size
    if info.s_max > slots then
      fail("attention: attribute context can reach %d, past the cache's %d slots", info.s_max, slots)
    end
    info.layer, info.lstride, info.kvs, info.kjs = layer, kvh * slots * d, slots * d, d
  else
    fail("attention: k must be [S, KVH, D] or a KV cache [L, KVH, S, D], got %s",
      kg.shape_str(k.shape))
  end
  if k.shape[#k.shape] ~= d then
    fail("attention: head dim mismatch: q %s has D = %d, k %s has D = %d", kg.shape_str(q.shape),
      d, kg.shape_str(k.shape), k.shape[#k.shape])
  end
  if d % 8 ~= 0 or d > 256 then
    fail("attention: the head dim D must be a multiple of 8 up to 256, got %d", d)
  end
  if h % kvh ~= 0 then
    fail("attention: q's %d heads are not a multiple of the %d KV heads", h, kvh)
  end
  if a.window ~= nil and not a.causal then
    fail("attention: attribute window needs causal = true")
  end
  info.kvh, info.g = kvh, h // kvh
  -- the kernel keeps rows (t G + g) and positions in 32 bits
  local t_max = kg.is_sym(tq) and tq.max or tq
  if t_max * info.g >= 1 << 30 or info.s_max >= 1 << 30 then
    fail("attention: T x %d query heads per KV head and the context must stay below 2^30", info.g)
  end
  info.scale = a.scale or 1.0 / math.sqrt(d)
  info.softcap = a.softcap
  info.tile, info.decode = a.tile, a.decode
  info.td = decode_rows(info.g)
  -- the decode path's row tiles per KV head, at most (its fragments have 16
  -- rows or more)
  info.rtmax = math.max(1, (info.td * info.g + 15) // 16)
  info.t_min = kg.is_sym(tq) and 1 or tq
  info.t_max = kg.is_sym(tq) and tq.max or tq
  local holes = {
    Q_T = q.dtype.ctype, D = tostring(d), H = tostring(h),
    G = tostring(info.g), TD = tostring(info.td), RTMAX = tostring(info.rtmax),
    LDR = tostring(d + 4),
    LSTRIDE = tostring(info.lstride), KVS = tostring(info.kvs), KJS = tostring(info.kjs),
    CAUSAL = a.causal and "1" or "", WINDOW = a.window and tostring(a.window) or "",
    OLDKV = a.appended and "1" or "",
    PAGED = "", BS = "", MAXB = "", NBLK = "", PTD = tostring(info.td), FIRST = "",
  }
  return info, holes, tq, s_size
end

--- What the profile counts (node.moved): of a KV cache, the keys and values
--- one layer holds up to the context (`keys`, a size of elements; nil: k and v
--- whole); of the decode path's parts, each row's D floats, maximum and sum,
--- written and read once a split (the params rule's moved_times).
local function moved(q, k, info, keys, has_decode)
  local m = { inputs = {}, outputs = {} }
  if keys then
    keys[#keys + 1] = k.dtype.size
    m.inputs[2], m.inputs[3] = keys, keys
  end
  if has_decode then m.outputs[2] = { q.shape[1], info.h, (info.d + 2) * 4 * 2 } end
  return m
end

local function copy(t)
  local r = {}
  for key, v in pairs(t) do r[key] = v end
  return r
end

kg.op {
  name = "attention",
  doc = "softmax(scale q k^T) v per head: q [T, H, D]; k, v [S, KVH, D] or KV caches [L, KVH, S, D] (layer, context); grouped-query (H a multiple of KVH); causal, window, softcap; flash attention for prefill, split context for decode (see ops/attention.lua)",
  inputs = { "q", "k", "v" },
  attrs = {
    scale = { type = "number", check = positive },
    causal = { default = false,
      check = function(v) return type(v) == "boolean", "must be true or false" end },
    window = { check = function(v) return math.type(v) == "integer" and v >= 1, "must be an integer >= 1" end },
    softcap = { type = "number", check = positive },
    layer = { check = function(v) return math.type(v) == "integer" and v >= 0, "must be an integer >= 0" end },
    -- appended: this run writes the caches' keys from position context - T
    -- on and no others, so those before are earlier runs' (kv_append at
    -- positions context - T, ..., context - 1, as models.llama does); the
    -- kernel then copies them before the kernels ahead of it finish (early
    -- launch, sm_90: Llama-3-8B Q4_0 decode on an H200 +1.9%). A model that
    -- says so and writes other keys reads stale ones.
    appended = { default = false,
      check = function(v) return type(v) == "boolean", "must be true or false" end },
    context = { check = function(v)
      return (math.type(v) == "integer" and v >= 1) or kg.is_sym(v), "must be a sym or an integer >= 1"
    end },
    tile = { check = check_tile(TILE_KEYS, "bm, bn, waves, stages") },
    decode = { check = check_tile(DECODE_KEYS, "bn, waves, stages, splits, min_tiles") },
  },
  build = function(node, ins, a)
    local q, k, v = ins[1], ins[2], ins[3]
    -- "model.lua:LINE: " of the call, for a tile that does not suit a target
    -- (level 4: error <- pcall <- build <- kg.node <- the model)
    local where = select(2, pcall(error, "", 4))
    local info, holes, tq, s_size = describe(q, k, v, a, where)
    local has_decode = info.t_min <= info.td
    local has_prefill = info.t_max > info.td
    holes.SCRATCH = has_decode and "1" or ""
    node.variants = {}
    local function variant(mode, select)
      local hl, pi = copy(holes), copy(info)
      pi.mode = mode
      hl.PARTIAL = mode == "decode" and "1" or ""
      hl.STREAM = ""
      node.variants[#node.variants + 1] = {
        template = "attention", label = mode, grid = "tiles", tile_units = { tq, info.g },
        dim_args = { tq, s_size, info.layer }, holes = hl, params_info = pi, select = select,
      }
    end
    if has_prefill then
      variant("prefill", has_decode and { size = tq, min = info.td + 1 } or nil)
    end
    if has_decode then
      variant("decode", has_prefill and { size = tq, max = info.td } or nil)
      -- each split's rows: output (D floats), maximum and sum (base 2); and
      -- per KV head and row tile the count of finished splits, which the
      -- kernel keeps across runs
      node.extra_outputs = {
        { dtype = kg.dtypes.f32, shape = { SMAX, info.td, info.h, info.d + 4 }, hidden = true },
        { dtype = kg.dtypes.i32, shape = { info.kvh * info.rtmax }, hidden = true,
          persistent = true },
      }
    end
    node.moved = moved(q, k, info, #k.shape == 4 and { info.kvh, s_size, info.d } or nil,
      has_decode)
    node.out_dtype, node.out_shape = q.dtype, q.shape
  end,
}

-- paged_attention: attention of a flattened batch of sequences over a KV
-- cache cut into blocks (paged attention, as vLLM and llama.cpp's server
-- serve many sequences). q [T, H, D] holds this step's T tokens of up to B
-- sequences, each sequence's tokens together and the sequences in
-- ascending order (seq [T] i32: each token's sequence); pos [T] i32 is each
-- token's position in its sequence; ctx [B] i32 each sequence's context
-- after this step (its keys 0 .. ctx - 1, this step's among them);
-- blocks [B, MAXB] i32 each sequence's block table: key j of sequence s is
-- slot blocks[s, j / BS] BS + j % BS of the pools k, v [L, KVH, NB BS, D]
-- (layer `layer`; kv_append writes them at those slots). Row t sees key j
-- of its own sequence where j <= pos[t] (causal) and j > pos[t] - window.
--   One kernel's rows are T G packed rows as attention's; a tile of rows
-- that holds tokens of several sequences takes one pass per sequence over
-- that sequence's keys, the other rows hidden (their softmax state is left
-- exactly as it was: a row's result never depends on the rows beside it).
-- Key tiles start at multiples of BN. Decode (every sequence at most TD
-- tokens this step: seq_tokens <= TD, a sym the plan picks the path by)
-- splits each sequence's keys over SPLITS workgroups from its context
-- alone; prefill takes a sequence's keys up to its tile's last position.
--   decode_tokens = D (a count sym): the step's first D tokens are D
-- sequences of one token each (sequences 0 .. D - 1; kgrt_batch_bind counts
-- them). Where seq_tokens is past TD (a prefill chunk in the step), the
-- decode path takes those D tokens in a launch of its own, and the flash
-- path the tokens after them: a decoding sequence beside a prefill costs its
-- split context, not a pass of a flash tile, and its rows are the bytes it
-- gets in a step of decoding sequences alone. A D past the leading one-token
-- sequences gives wrong rows for the tokens it takes, never an access
-- outside memory (the sim checks it).
-- Out-of-range inputs stay inside memory: a sequence id outside [0, B)
-- gives its rows zeros, positions are clamped to [-1, MAXB BS] (-1: the
-- row sees nothing), contexts to [0, MAXB BS], a block outside the pool
-- reads zeros.
kg.op {
  name = "paged_attention",
  doc = "attention of a batch of sequences over paged KV pools: q [T, H, D]; k, v [L, KVH, NB x block_size, D]; pos, seq i32 [T]; ctx i32 [B]; blocks i32 [B, MAXB]; seq_tokens, decode_tokens pick the paths (see ops/attention.lua)",
  inputs = { "q", "k", "v", "pos", "seq", "ctx", "blocks" },
  attrs = {
    scale = { type = "number", check = positive },
    causal = { default = false,
      check = function(v) return type(v) == "boolean", "must be true or false" end },
    window = { check = function(v) return math.type(v) == "integer" and v >= 1, "must be an integer >= 1" end },
    softcap = { type = "number", check = positive },
    layer = { default = 0,
      check = function(v) return math.type(v) == "integer" and v >= 0, "must be an integer >= 0" end },
    block_size = { check = function(v)
      return math.type(v) == "integer" and v >= 1 and v <= 4096, "must be an integer in [1, 4096]"
    end },
    -- the most tokens any one sequence has in a step (a sym the host sets, or
    -- an integer): the plan runs the decode path where it is at most TD
    seq_tokens = { check = function(v)
      return (math.type(v) == "integer" and v >= 1) or kg.is_sym(v), "must be a sym or an integer >= 1"
    end },
    -- the step's first tokens that are sequences of one token each (a count
    -- sym the host sets, 0 up): where seq_tokens is past TD the decode path
    -- takes them in a launch of its own and the flash path the rest
    decode_tokens = { check = function(v)
      return kg.is_count(v), "must be a count sym (sym(name, max, {count = true}))"
    end },
    tile = { check = check_tile(TILE_KEYS, "bm, bn, waves, stages") },
    decode = { check = check_tile(DECODE_KEYS, "bn, waves, stages, splits, min_tiles") },
  },
  build = function(node, ins, a)
    local q, k, v, pos, seq, ctx, blocks = table.unpack(ins, 1, 7)
    local where = select(2, pcall(error, "", 4))
    if a.block_size == nil then fail("paged_attention: attribute block_size is required") end
    if #k.shape ~= 4 then
      fail("paged_attention: k must be a pool [L, KVH, blocks x block_size, D], got %s",
        kg.shape_str(k.shape))
    end
    local slots = k.shape[3]
    if math.type(slots) ~= "integer" or slots % a.block_size ~= 0 then
      fail("paged_attention: the pool's %s slots are not whole blocks of %d", tostring(slots),
        a.block_size)
    end
    local tq = q.shape[1]
    for _, x in ipairs { { pos, "pos" }, { seq, "seq" }, { ctx, "ctx" }, { blocks, "blocks" } } do
      if x[1].dtype ~= kg.dtypes.i32 then
        fail("paged_attention: %s must be i32, got %s", x[2], x[1].dtype.name)
      end
    end
    for _, x in ipairs { { pos, "pos" }, { seq, "seq" } } do
      if #x[1].shape ~= 1 or not kg.same_shape({ x[1].shape[1] }, { tq }) then
        fail("paged_attention: %s shape %s does not match q's tokens %s (want [T])", x[2],
          kg.shape_str(x[1].shape), kg.shape_str(q.shape))
      end
    end
    if #ctx.shape ~= 1 then fail("paged_attention: ctx must be [B], got %s", kg.shape_str(ctx.shape)) end
    local nb = ctx.shape[1]
    if #blocks.shape ~= 2 or not kg.same_shape({ blocks.shape[1] }, { nb })
        or math.type(blocks.shape[2]) ~= "integer" then
      fail("paged_attention: blocks must be [B, MAXB] (B as ctx's %s, MAXB a constant), got %s",
        kg.shape_str(ctx.shape), kg.shape_str(blocks.shape))
    end
    local maxb = blocks.shape[2]
    if maxb * a.block_size > slots then
      fail("paged_attention: a block table of %d blocks of %d reaches past the pool's %d slots",
        maxb, a.block_size, slots)
    end
    local info, holes = describe(q, k, v, { layer = a.layer, context = maxb * a.block_size,
      causal = a.causal, window = a.window, softcap = a.softcap, scale = a.scale, tile = a.tile,
      decode = a.decode }, where)
    info.paged = true
    local b_max = kg.is_sym(nb) and nb.max or nb
    -- the decode path's rows of parts: every token of B sequences of TD
    local tdp = math.min(info.t_max, b_max * info.td)
    info.rtmax = math.max(1, (tdp * info.g + 15) // 16)
    holes.PAGED, holes.BS, holes.MAXB = "1", tostring(a.block_size), tostring(maxb)
    holes.NBLK, holes.PTD = tostring(slots // a.block_size), tostring(tdp)
    holes.RTMAX = tostring(info.rtmax)
    local rows = a.seq_tokens or tq
    local r_min = kg.is_sym(rows) and 1 or rows
    local r_max = kg.is_sym(rows) and rows.max or rows
    local has_decode = r_min <= info.td
    local has_prefill = r_max > info.td
    -- the leading one-token sequences beside a prefill: at most one a sequence
    -- and a token (D <= T, which the host keeps: kgrt_batch_bind)
    local lead = has_prefill and a.decode_tokens or nil
    if lead and (lead.max > info.t_max or lead.max > b_max) then
      fail("paged_attention: decode_tokens can reach %d, past the %d tokens or %d sequences of a step",
        lead.max, info.t_max, b_max)
    end
    holes.SCRATCH = (has_decode or lead) and "1" or ""
    node.variants = {}
    local function variant(mode, sel, units, first)
      local hl, pi = copy(holes), copy(info)
      pi.mode = mode
      hl.PARTIAL = mode == "decode" and "1" or ""
      -- decode: the key tiles of a row tile's sequences in one stream
      hl.STREAM = hl.PARTIAL
      hl.FIRST = first and "1" or ""
      node.variants[#node.variants + 1] = {
        template = "attention", label = "paged_" .. mode, grid = "tiles",
        tile_units = { units, info.g }, dim_args = { units, nb, info.layer, first }, holes = hl,
        params_info = pi, select = sel,
      }
    end
    local wide = has_decode and { size = rows, min = info.td + 1 } or nil
    if has_prefill then
      -- with decode_tokens: the grid of all T tokens, the first D the decode
      -- launch's (below, the same kernel as the decode path's)
      variant("prefill", wide, tq, lead)
      if lead then variant("decode", wide, lead) end
    end
    if has_decode then
      variant("decode", has_prefill and { size = rows, max = info.td } or nil, tq)
    end
    if has_decode or lead then
      node.extra_outputs = {
        { dtype = kg.dtypes.f32, shape = { PSMAX, tdp, info.h, info.d + 4 }, hidden = true },
        { dtype = kg.dtypes.i32, shape = { info.kvh * info.rtmax }, hidden = true,
          persistent = true },
      }
    end
    -- of the pools, at most B sequences' whole block tables (the contexts
    -- are data: a bound, not the count)
    node.moved = moved(q, k, info, { nb, maxb * a.block_size, info.kvh, info.d },
      has_decode or lead ~= nil)
    node.out_dtype, node.out_shape = q.dtype, q.shape
  end,
}
