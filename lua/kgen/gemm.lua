-- kgen/gemm.lua - the launch parameters of the GEMM-shaped templates
-- (templates/gemm.hip for matmul, conv2d's implicit GEMM): the tile a
-- target's data and the model's overrides give for a dtype, the one chosen
-- for the grid at the GEMM's most rows, its fragment struct, the splits of
-- K, and the holes. Needs: kgen/state.lua, kgen/types.lua, kgen/helpers.lua.
-- Gives: kg.gemm_params, kg.KSPLIT.
local S = require "kgen.state"
local kg = S.kg

-- Split K of the small-M GEMM (ops/matmul.lua's add_gemm, gemm_splits
-- below): at most `max` splits on any target (the parts are planned once
-- for every arch of a table), parts of at most `floats` floats (an LM
-- head's N has tiles enough), counts for tiles of at least `tile` x `tile`.
kg.KSPLIT = { max = 8, floats = 1 << 23, tile = 16 }
local KSPLIT_MAX, KSPLIT_TILE = kg.KSPLIT.max, kg.KSPLIT.tile

--- The GEMM tile for a dtype on a target: the target's gemm[dtype] with the
--- model's overrides (matmul's `tile` attribute) on top. A target whose GEMM
--- tiles take the warpgroup kind (wgmma) has warp-level ones too (gemm_warp):
--- conv2d takes those (its A tile is gathered element by element into rows
--- the warpgroup kind does not lay out), and so does an override that does
--- not name its `mma` and leaves no warpgroup tile (see wg_fits).
local function wg_fits(t, size)
  local wtm, wtn = t.bm // t.waves_m, t.bn // t.waves_n
  return t.bk * size == 128 and t.bm % t.waves_m == 0 and t.bn % t.waves_n == 0 and wtm == 64
    and (wtn == 128 or wtn == 256)
end
local function gemm_tile(op, target, dtype, override, where)
  local base = target.gemm and target.gemm[dtype]
  if not base then
    error(("%s%s: target %s has no GEMM tile for %s"):format(where, op, target.name, dtype), 0)
  end
  local function merged(b)
    local t = {}
    for key, v in pairs(b) do t[key] = v end
    for key, v in pairs(override or {}) do t[key] = v end
    return t
  end
  local t = merged(base)
  local warp = target.gemm_warp and target.gemm_warp[dtype]
  if t.mma == "wgmma" and warp and (op == "conv2d"
      or not (override and override.mma) and not wg_fits(t, kg.dtypes[dtype].size)) then
    t = merged(warp)
  end
  return t
end

--- The tile of a matmul's GEMM chosen for its grid: the target's
--- gemm[dtype], or one of its gemm_grid[dtype] alternatives (overrides on
--- top of it, each with `cost`, its time per tile as a fraction of the
--- base tile's), whichever takes the least time at info.m rows, the largest
--- M the GEMM serves (a model's max_tokens: its prefill chunk): waves of
--- workgroups over target.cus, times the cost per tile. 128 x 256 tiles
--- give N = 4096 at M = 512 only 64 workgroups for 132 SMs; 128 x 128 give
--- 128, each in 0.6-0.7 of the time (bench/results/h100_llama.md; the Q4_0
--- GEMM gains more, its decode latency-bound). A model's `tile` and a
--- gate/up pair whose halved tile the target has no instruction for keep
--- the base tile.
local function grid_tile(target, t, info, size)
  local alts = target.gemm_grid and target.gemm_grid[info.dtype]
  if not alts or info.tile or not info.m or t.mma ~= target.gemm[info.dtype].mma then
    return t -- (the last: conv2d's warp-level tile on a wgmma target)
  end
  local function time(c, cost)
    local tiles = (info.m + c.bm - 1) // c.bm * ((info.n + c.bn - 1) // c.bn) * info.batch
    return (tiles + target.cus - 1) // target.cus * cost
  end
  local best, best_time = t, time(t, 1.0)
  for _, alt in ipairs(alts) do
    local c = {}
    for key, v in pairs(t) do c[key] = v end
    for key, v in pairs(alt) do
      if key ~= "cost" then c[key] = v end
    end
    local half = { bm = c.bm, bn = info.pair and c.bn // 2 or c.bn, bk = c.bk,
      waves_m = c.waves_m, waves_n = c.waves_n }
    local fits = c.mma ~= "wgmma" or wg_fits(half, size)
    local ct = time(c, alt.cost)
    if fits and ct < best_time then best, best_time = c, ct end
  end
  return best
end

--- The fragment struct of a tile (templates/lib_mma.hip) and its M, N, K.
local function fragment(op, target, t, ctype, ld, where)
  if t.mma == "fma" then
    return ("kg_mma_fma<%s, %d, %d>"):format(ctype, ld, target.wave), target.wave // 2, 32, 1
  end
  for _, m in ipairs(target.mma or {}) do
    if m.op == t.mma and m.m == t.shape[1] and m.n == t.shape[2] and m.k == t.shape[3] then
      return ("kg_mma_%s_%dx%dx%d<%s, %d>"):format(t.mma, m.m, m.n, m.k, ctype, ld), m.m, m.n, m.k
    end
  end
  error(("%s%s: target %s has no %s %s instruction"):format(where, op, target.name, t.mma,
    table.concat(t.shape or {}, "x")), 0)
end

--- The splits of K for the small-M GEMM (info.split_k, add_gemm) where its
--- kernel takes the parts and counts (info.scratch: the matmul alone, with
--- an epilogue chain, or leading regions) and the target has gemm_split: as
--- many workgroups as wg_per_cu per compute unit hold at info.m rows, no
--- more (a split that only adds a wave adds the parts' traffic), as the
--- largest count up to that (and KSPLIT_MAX) that divides the K tiles and
--- leaves each split at least min_tiles of them (and at most
--- info.split_max, a middle range's, whose rows the parts must hold); else
--- 1 (no split). Regions (info.parts_n: the leader's columns, for which
--- the parts and counts were planned) split only as far as those hold
--- their info.n columns.
local function gemm_splits(target, t, info, tiles_n)
  local ks = target.gemm_split
  if not (ks and info.split_k and info.scratch) or info.pair
      or t.bm < KSPLIT_TILE or t.bn < KSPLIT_TILE then
    return 1
  end
  local tiles = (info.m + t.bm - 1) // t.bm * tiles_n
  local kt = (info.k + t.bk - 1) // t.bk
  local want = ks.wg_per_cu * target.cus // tiles
  local most = info.split_max or KSPLIT_MAX
  if info.parts_n then
    -- the parts: splits x rows x info.n floats within most x rows x parts_n;
    -- the counts: one a tile, within those of KSPLIT_TILE squares
    most = most * info.parts_n // info.n
    local cdiv = function(a, b) return (a + b - 1) // b end
    if tiles > cdiv(info.m, KSPLIT_TILE) * cdiv(info.parts_n, KSPLIT_TILE) then return 1 end
  end
  for s = math.min(want, most), 2, -1 do
    if kt % s == 0 and kt // s >= ks.min_tiles then return s end
  end
  return 1
end

--- The launch parameters of a GEMM-shaped template (gemm, conv2d) on a
--- target: the tile (the target's gemm_small for the small-M GEMM where its
--- kernel can split K, else grid_tile's), its fragment struct and checks,
--- the grid (per_block = the tile's rows; repeat = column tiles x
--- info.batch) and the holes. info:
--- dtype, k and n (the product's K and columns), kn (w [K, N]), batch, tile
--- (overrides), pair (two weights), quant (w in a block format: bk a
--- multiple of 32, a decoder group; a target's smaller bk is rounded up),
--- where ("model.lua:LINE: " for errors).
function kg.gemm_params(op, target, info)
  local dt = kg.dtypes[info.dtype]
  local t = gemm_tile(op, target, info.dtype, info.tile, info.where)
  local small = target.gemm_small and target.gemm_small[info.dtype]
  local s
  if small and info.split_k and info.scratch and not info.tile and not info.pair
      and t.mma == target.gemm[info.dtype].mma then
    s = {}
    for key, v in pairs(t) do s[key] = v end
    for key, v in pairs(small) do s[key] = v end
    -- regions take it only where they split (else grid_tile's many narrow
    -- tiles: Q, K and V at 64 rows, 48 tiles of 64 x 128)
    if info.parts_n and gemm_splits(target, s, info, (info.n + s.bn - 1) // s.bn) < 2 then
      s = nil
    end
  end
  t = s or grid_tile(target, t, info, dt.size)
  if info.quant and t.bk % 32 ~= 0 then
    if info.tile and info.tile.bk then
      error(("%s%s: GEMM tile bk = %d: a quantized w needs a multiple of 32 (a decoder group)")
        :format(info.where, op, t.bk), 0)
    end
    t.bk = (t.bk + 31) // 32 * 32
  end
  -- the warpgroup kind (wgmma): one 64 x N fragment per 4 waves, N the
  -- group's whole part of the tile, rows of exactly 128 bytes (swizzled, no
  -- pad); a gate/up pair halves bn and the fragment with it
  local wg = t.mma == "wgmma"
  if wg then
    if info.pair then t.bn = t.bn // 2 end
    t.shape = { 64, t.bn // t.waves_n, 16 }
  end
  local ld = wg and t.bk or t.bk + 16 // dt.size -- else a 16-byte pad per LDS row
  local frag, fm, fn, fk = fragment(op, target, t, dt.ctype, ld, info.where)
  if info.pair and not wg then
    -- a gate/up pair keeps two accumulators and B tiles: half the columns
    -- (or rows) per workgroup keeps registers and LDS as for one
    if (t.bn // 2 // t.waves_n) % fn == 0 then
      t.bn = t.bn // 2
    elseif (t.bm // 2 // t.waves_m) % fm == 0 then
      t.bm = t.bm // 2
    end
  end
  local wtm, wtn = t.bm // t.waves_m, t.bn // t.waves_n
  local function bad(why)
    error(("%s%s: GEMM tile %dx%dx%d, %dx%d waves on %s: %s"):format(info.where, op, t.bm,
      t.bn, t.bk, t.waves_m, t.waves_n, target.name, why), 0)
  end
  if t.bm % t.waves_m ~= 0 or t.bn % t.waves_n ~= 0 or wtm % fm ~= 0 or wtn % fn ~= 0 then
    bad(("a wave's part is not whole %dx%d fragments"):format(fm, fn))
  end
  if t.bk % fk ~= 0 then bad(("bk is not a multiple of the fragment's k (%d)"):format(fk)) end
  if t.stages < (wg and 3 or 2) then bad(("stages must be at least %d"):format(wg and 3 or 2)) end
  if wg and (t.bk * dt.size ~= 128 or wtm ~= fm or wtn ~= fn) then
    bad("a wgmma tile has rows of 128 bytes of k (bk * element size) and one 64 x N fragment per 4 waves")
  end
  -- quantized w whose k tile is whole blocks, a multiple of 4 bytes per row
  -- (Q8_0, Q4_0 with K a multiple of bk): its raw bytes are copied
  -- asynchronously into a ring of their own (QS bytes a stage, rows QROW
  -- apart, a spare word for the decoder's reads) and decoded into the B
  -- tile while the tile before it is multiplied: two B stages (QRAW)
  local qrow = info.quant and info.qdeq and t.bk // 32 * info.bb
  -- (a gate/up pair: BN rows of w, then BN of w1, QBN in all)
  local qbn = t.bn * (info.pair and 2 or 1)
  local qraw = qrow and info.k % t.bk == 0 and qrow % 4 == 0 and info.rb % 4 == 0
  local qs = qraw and (qbn * qrow + 4 + 15) // 16 * 16 or 0
  local bstages = qraw and 2 or t.stages
  -- the ring is one KG_SHARED_BUFFER: static LDS on AMD, dynamic shared
  -- memory on CUDA (where a kernel may opt in past the static 48 KiB)
  -- (wgmma tiles start 1024-byte aligned: room to align the buffer)
  local lds = (t.stages * t.bm + bstages * t.bn * (info.pair and 2 or 1)) * ld * dt.size
    + t.stages * qs + (wg and 1024 - 16 or 0)
  -- beside the ring: a split norm's row scales (RSCALE, BM floats of
  -- static LDS; only where taken, but the tile must allow them)
  local lds_max = target.shared_optin_bytes or target.lds_bytes
  if lds + t.bm * 4 > lds_max then
    bad(("needs %d bytes of LDS, the target has %d"):format(lds + t.bm * 4, lds_max))
  end
  local vec = kg.vector_width(dt, info.kn and { info.k, t.bk, info.n, t.bn } or { info.k, t.bk })
  local tiles_n = (info.n + t.bn - 1) // t.bn
  local ksplit = gemm_splits(target, t, info, tiles_n)
  return {
    BLOCK = t.waves_m * t.waves_n * target.wave * (wg and 4 or 1), VEC = vec,
    per_block = t.bm, ["repeat"] = tiles_n * info.batch * ksplit, shared_bytes = lds,
    scratch = ksplit > 1, -- the parts and counts: only a kernel that splits takes them
    -- (regions: the parts' node.moved counts the leader's columns of info.n)
    moved_times = { 1, ksplit > 1 and (ksplit * info.n + (info.parts_n or info.n) - 1)
      // (info.parts_n or info.n) or 0 },
    holes = {
      KSPLIT = ksplit > 1 and ksplit or "",
      SHARED_BYTES = lds,
      FRAG = frag, BM = t.bm, BN = t.bn, BK = t.bk, LD = ld, STAGES = t.stages,
      BSTAGES = bstages, QRAW = qraw and "1" or "",
      QSYNC = info.quant and not qraw and "1" or "",
      QS = qs, QROW = qrow or 0, QBN = qbn, QDEQ = qraw and info.qdeq or "", BB = info.bb or 0,
      QB0 = info.qb and info.qb[1] or "0.0f", QB1 = info.qb and info.qb[2] or "0.0f",
      WM = t.waves_m, WN = t.waves_n, FM = wtm // fm, FN = wtn // fn,
      TILES_N = tiles_n, REPEAT = tiles_n * info.batch * ksplit,
      WG = wg and "1" or "", SYNC = wg and "" or "1",
    },
  }
end
