-- ops/kv.lua - the KV cache: kv_append writes this step's keys (or values)
-- into a persistent cache, in place. Call it once for K and once for V, each
-- with its own cache weight:
--   k_cache = kv_append(k_cache, k_new, positions, { layer = l })
--   v_cache = kv_append(v_cache, v_new, positions, { layer = l })
-- cache [L, KVH, S, D] (constant dims; usually a weight), new [T, KVH, D],
-- positions i32 [T]: cache[layer, h, positions[t], :] = new[t, h, :]. The
-- result is the cache itself (node.inplace: same memory, no copy), for the
-- attention that follows to read.
--   Positions outside [0, S) are skipped: that token's rows are not written.
--   Repeated positions: the last token wins (as if the tokens were written in
--   order), so the result never depends on workgroup order. Each workgroup
--   scans the positions after its own token for that, O(T) i32 loads per
--   workgroup (negligible when decoding; O(T^2 / BLOCK) per thread in a long
--   prefill).
-- new may have another float dtype than the cache; values are rounded to the
-- cache's dtype.
-- One workgroup per (token, head) row of D elements, VEC at a time.
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "kv_append",
  holes = { "C_T", "D", "KVH", "N_T", "SLOTS" },
  fuse = { cache = true },
  params = function(target, info)
    local vec = kg.vector_width(kg.dtypes[info.dtype], { info.cols })
    if info.new_dtype ~= info.dtype then vec = math.min(vec, kg.vector_width(kg.dtypes[info.new_dtype], { info.cols })) end
    return { BLOCK = kg.row_block(target, info.cols, vec), VEC = vec }
  end,
}

kg.op {
  name = "kv_append",
  doc = "cache[layer, h, positions[t], :] = new[t, h, :] in place; cache [L, KVH, S, D], new [T, KVH, D] (out-of-range positions skipped)",
  inputs = { "cache", "new", "positions" },
  attrs = {
    layer = { type = "number", default = 0,
      check = function(v) return math.type(v) == "integer" and v >= 0, "must be an integer >= 0" end },
  },
  build = function(node, ins, a)
    local cache, new, pos = ins[1], ins[2], ins[3]
    kg.check_float("kv_append", cache, "cache")
    kg.check_float("kv_append", new, "new")
    if #cache.shape ~= 4 then
      fail("kv_append: cache must be [L, KVH, S, D], got %s", kg.shape_str(cache.shape))
    end
    for i = 1, 4 do
      if math.type(cache.shape[i]) ~= "integer" then
        fail("kv_append: the cache dims must be constants, got %s", kg.shape_str(cache.shape))
      end
    end
    local layers, kvh, slots, d = table.unpack(cache.shape)
    if a.layer >= layers then
      fail("kv_append: attribute layer must be < the cache's %d layers, got %d", layers, a.layer)
    end
    if #new.shape ~= 3 or new.shape[2] ~= kvh or new.shape[3] ~= d then
      fail("kv_append: new shape %s does not match the cache %s (want [T, %d, %d])",
        kg.shape_str(new.shape), kg.shape_str(cache.shape), kvh, d)
    end
    if pos.dtype ~= kg.dtypes.i32 then
      fail("kv_append: positions must be i32, got %s", pos.dtype.name)
    end
    if #pos.shape ~= 1 or pos.shape[1] ~= new.shape[1] then
      fail("kv_append: positions shape %s does not match the tokens of new %s (want [T])",
        kg.shape_str(pos.shape), kg.shape_str(new.shape))
    end
    node.template = "kv_append"
    node.inplace = 1
    node.grid = "rows"
    node.grid_of = new -- one workgroup per (token, head)
    node.cols = d
    node.dim_args = { pos, a.layer } -- tokens, and the layer (an argument, so every
    -- layer's kv_append is the same kernel)
    node.holes = {
      C_T = cache.dtype.ctype, N_T = new.dtype.ctype, KVH = tostring(kvh),
      SLOTS = tostring(slots), D = tostring(d),
    }
    node.params_info = { dtype = cache.dtype.name, new_dtype = new.dtype.name, cols = d }
    -- the profile's bytes: the T tokens' rows it writes, not the whole cache
    node.moved = { inputs = { [1] = { new.shape[1], kvh, d, cache.dtype.size } } }
    node.out_dtype, node.out_shape = cache.dtype, cache.shape
  end,
}

-- kv_slots: the slots of a paged KV pool (paged_attention's) that a batch's
-- tokens go to: slot[t] = blocks[seq[t], pos[t] / block_size] block_size +
-- pos[t] % block_size, for kv_append's positions. pos, seq i32 [T];
-- blocks i32 [B, MAXB] (each sequence's block table); -1 (kv_append skips
-- it) where the sequence is outside [0, B), the position negative or past
-- the table, or the block negative. A thread per token.
kg.template {
  name = "kv_slots",
  holes = { "BS", "MAXB" },
  params = function(target, info)
    return { BLOCK = math.min(256, target.max_block), VEC = 1,
      per_block = math.min(256, target.max_block), ["repeat"] = 1 }
  end,
}

kg.op {
  name = "kv_slots",
  doc = "slot[t] = blocks[seq[t], pos[t] / block_size] block_size + pos[t] % block_size: a batch's slots in a paged KV pool (pos, seq i32 [T], blocks i32 [B, MAXB]; -1 out of range)",
  inputs = { "pos", "seq", "blocks" },
  attrs = {
    block_size = { check = function(v)
      return math.type(v) == "integer" and v >= 1 and v <= 4096, "must be an integer in [1, 4096]"
    end },
  },
  build = function(node, ins, a)
    local pos, seq, blocks = ins[1], ins[2], ins[3]
    if a.block_size == nil then fail("kv_slots: attribute block_size is required") end
    for _, x in ipairs { { pos, "pos" }, { seq, "seq" }, { blocks, "blocks" } } do
      if x[1].dtype ~= kg.dtypes.i32 then
        fail("kv_slots: %s must be i32, got %s", x[2], x[1].dtype.name)
      end
    end
    if #pos.shape ~= 1 or not kg.same_shape(pos.shape, seq.shape) then
      fail("kv_slots: pos %s and seq %s must both be [T]", kg.shape_str(pos.shape),
        kg.shape_str(seq.shape))
    end
    if #blocks.shape ~= 2 or math.type(blocks.shape[2]) ~= "integer" then
      fail("kv_slots: blocks must be [B, MAXB] (MAXB a constant), got %s",
        kg.shape_str(blocks.shape))
    end
    node.template = "kv_slots"
    node.grid = "tiles"
    node.tile_units = pos.shape[1]
    node.dim_args = { pos.shape[1], blocks.shape[1] }
    node.holes = { BS = tostring(a.block_size), MAXB = tostring(blocks.shape[2]) }
    node.params_info = {}
    node.out_dtype, node.out_shape = kg.dtypes.i32, pos.shape
  end,
}
