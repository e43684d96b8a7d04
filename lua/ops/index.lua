-- ops/index.lua - indexing: embedding lookup, gather and scatter_add.
-- Indices are i32. An index out of range never reaches memory:
--   embedding, gather   the result element (or row) is 0
--   scatter_add         the entry is skipped
-- gather and scatter_add take dim = -1 (the last dim) or 0 (the first), with
-- torch.gather / Tensor.scatter_add semantics, except that idx (and src) must
-- have x's shape in every dim but `dim` (torch allows them to be smaller).
local kg = require "kgen"
local fail = kg.fail

local function check_ids(opname, t, what)
  if t.dtype ~= kg.dtypes.i32 then fail("%s: %s must be i32, got %s", opname, what, t.dtype.name) end
end

local function dim_attr()
  return { type = "number", default = -1,
    check = function(v) return v == -1 or v == 0, "must be -1 (the last dim) or 0" end }
end

-- The product of dims from..to of shape, as a list for dim_args (may hold syms).
local function dims(shape, from, to)
  local out = {}
  for i = from, to do out[#out + 1] = shape[i] end
  return out
end

-- Every dim of shape a but dim k equals b's (same rank).
local function same_but(opname, a, b, k, what)
  local ok = #a.shape == #b.shape
  for i = 1, #a.shape do
    if i ~= k and a.shape[i] ~= b.shape[i] then ok = false end
  end
  if not ok then
    fail("%s: %s shape %s does not match x %s outside dim %d", opname, what,
      kg.shape_str(b.shape), kg.shape_str(a.shape), k - 1)
  end
end

local function const_product(opname, shape, from, to, what)
  local n = 1
  for i = from, to do
    if math.type(shape[i]) ~= "integer" then
      fail("%s: %s must be constants, got %s", opname, what, kg.shape_str(shape))
    end
    n = n * shape[i]
  end
  return n
end

---------------------------------------------------------------------------
-- embedding

kg.template {
  name = "embedding",
  holes = { "D", "T_T" },
  params = function(target, info)
    return kg.row_params(target, info.dtype, info.cols)
  end,
}

-- embedding_q: a table in a GGUF block format, each id's row decoded group
-- by group of 32 (lib_quant.hip's straight-from-global decoders, exact:
-- ggml's dequantization bit for bit) into the result's dtype.
local QUANT_ROW_DEQ = { q8_0 = "kg_q8_0_gl32", q4_0 = "kg_q4_0_gl32", q4_k = "kg_q4k_gl32",
  q6_k = "kg_q6k_gl32" }

kg.template {
  name = "embedding_q",
  holes = { "D", "DEQ", "RB", "Y_T" },
  libs = { "quant" },
  params = function(target, info)
    return { BLOCK = kg.row_block(target, info.cols // 32, 1), VEC = 1 }
  end,
}

kg.op {
  name = "embedding",
  doc = "table[ids, :] for table [V, D] and i32 ids of any shape -> ids.shape .. {D} (ids outside [0, V) give 0 rows; a weight split by rows is the rank's part, ids outside it give 0 rows, so all_reduce adds the parts); a table in a GGUF block format (q8_0, q4_0, q4_k, q6_k) is dequantized, its rows given in dtype (default f32)",
  inputs = { "table", "ids" },
  attrs = {
    dtype = { check = function(v) return kg.is_dtype(v) and v.float, "must be f32, f16 or bf16" end },
  },
  build = function(node, ins, a)
    local tab, ids = ins[1], ins[2]
    if not tab.dtype.quant then
      kg.check_float("embedding", tab, "table")
      if a.dtype ~= nil and a.dtype ~= tab.dtype then
        fail("embedding: dtype is for a quantized table; a %s table gives %s rows (cast them)",
          tab.dtype.name, tab.dtype.name)
      end
    end
    check_ids("embedding", ids, "ids")
    if #tab.shape ~= 2 then fail("embedding: table must be [V, D], got %s", kg.shape_str(tab.shape)) end
    local d = kg.const_cols("embedding", tab)
    if #ids.shape >= 8 then fail("embedding: ids rank %d leaves no room for D", #ids.shape) end
    local shape = {}
    for i, s in ipairs(ids.shape) do shape[i] = s end
    shape[#shape + 1] = d
    node.grid = "rows"
    node.cols = d -- one workgroup per id
    -- V, and the first row the table holds: a table split by rows (a split
    -- model's vocabulary) holds the rank's part, rows rank * V onwards
    local base = 0
    local split, parts = kg.split_of(tab)
    if split == 1 then
      local ranks = kg.num_ranks()
      if parts ~= ranks then
        fail("embedding: a table split by rows must have a part for each rank (%d), got %d parts",
          ranks, parts)
      end
      base = { kg.rank_size(), tab.shape[1] }
    end
    node.dim_args = { { tab.shape[1] }, base }
    -- the profile's bytes of the table: a row an id, not the whole table
    local row_bytes = tab.dtype.quant and d // tab.dtype.block_elems * tab.dtype.block_bytes
      or d * tab.dtype.size
    local rows = {}
    for i, s in ipairs(ids.shape) do rows[i] = s end
    rows[#rows + 1] = row_bytes
    node.moved = { inputs = { [1] = rows } }
    if tab.dtype.quant then
      local out = a.dtype or kg.dtypes.f32
      node.dequantizes = { [1] = true }
      node.template = "embedding_q"
      node.holes = { Y_T = out.ctype, D = tostring(d), DEQ = QUANT_ROW_DEQ[tab.dtype.name],
        RB = tostring(d // tab.dtype.block_elems * tab.dtype.block_bytes) }
      node.params_info = { cols = d }
      node.out_dtype, node.out_shape = out, shape
      return
    end
    node.template = "embedding"
    node.holes = { T_T = tab.dtype.ctype, D = tostring(d) }
    node.params_info = { dtype = tab.dtype.name, cols = d }
    node.out_dtype, node.out_shape = tab.dtype, shape
  end,
}

---------------------------------------------------------------------------
-- gather: one workgroup per row of the result (dim -1: a row of idx; dim 0:
-- idx[j] with all its trailing elements, so x is read along contiguous rows).

kg.template {
  name = "gather",
  holes = { "COLS", "SRC", "X_T" },
  params = function(target, info)
    return kg.row_params(target, "i32", info.cols)
  end,
}

kg.op {
  name = "gather",
  doc = "torch.gather(x, dim, idx) for dim -1 or 0: out[i][j] = x[i][idx[i][j]] (dim -1); out-of-range idx gives 0",
  inputs = { "x", "idx" },
  attrs = { dim = dim_attr() },
  build = function(node, ins, a)
    local x, idx = ins[1], ins[2]
    kg.check_float("gather", x, "x")
    check_ids("gather", idx, "idx")
    local rank = #x.shape
    local last = a.dim == -1 or rank == 1
    local k = last and rank or 1
    same_but("gather", x, idx, k, "idx")
    local cols, src, limit
    if last then
      cols = kg.const_cols("gather", idx)
      local xcols = kg.const_cols("gather", x)
      src = string.format("row * %dL + k", xcols)
      limit = { x.shape[rank] }
    else
      cols = const_product("gather", idx.shape, 2, rank, "the dims after the first")
      src = string.format("(long)k * %dL + col", cols)
      limit = { x.shape[1] }
    end
    node.template = "gather"
    node.grid = "rows"
    node.cols = cols
    node.dim_args = { limit }
    node.holes = { X_T = x.dtype.ctype, COLS = tostring(cols), SRC = src }
    node.params_info = { cols = cols }
    node.out_dtype, node.out_shape = x.dtype, idx.shape
  end,
}

---------------------------------------------------------------------------
-- scatter_add: deterministic, without atomics. One workgroup per line of x
-- along dim (a row for dim -1, a column for dim 0); the line's LEN sums are
-- kept in LDS in f32, TILE at a time, each slot owned by one thread (slot s by
-- thread s % BLOCK). The line's (idx, src) entries are staged through LDS a
-- BLOCK at a time and every thread walks them in order, adding those that
-- land on its slots: each sum is x + its entries in index order, rounded once.
-- Cost per workgroup: count x ceil(LEN / TILE) LDS steps per thread.

local SCATTER_TILE = 4096

kg.template {
  name = "scatter_add",
  holes = { "LEN", "S_T", "TILE", "X_T" },
  params = function(target, info)
    return { BLOCK = kg.row_block(target, info.len, 1), VEC = 1 }
  end,
}

kg.op {
  name = "scatter_add",
  doc = "x with src added at idx along dim -1 or 0 (Tensor.scatter_add); duplicates accumulate in order, out-of-range idx skipped",
  inputs = { "x", "idx", "src" },
  attrs = { dim = dim_attr() },
  build = function(node, ins, a)
    local x, idx, src = ins[1], ins[2], ins[3]
    kg.check_float("scatter_add", x, "x")
    check_ids("scatter_add", idx, "idx")
    kg.check_float("scatter_add", src, "src")
    if not kg.same_shape(idx.shape, src.shape) then
      fail("scatter_add: idx shape %s does not match src %s", kg.shape_str(idx.shape),
        kg.shape_str(src.shape))
    end
    local rank = #x.shape
    local last = a.dim == -1 or rank == 1
    local k = last and rank or 1
    same_but("scatter_add", x, idx, k, "idx")
    local len = x.shape[k]
    if math.type(len) ~= "integer" then
      fail("scatter_add: dim %d of x must be a constant, got %s", k - 1, kg.shape_str(x.shape))
    end
    node.template = "scatter_add"
    node.grid = "rows"
    node.cols = len -- one workgroup per line: rows = numel(x) / len
    -- count: entries per line; stride: elements between a line's neighbours
    node.dim_args = { { idx.shape[k] }, last and 1 or dims(x.shape, 2, rank) }
    local tile = math.min(len, SCATTER_TILE)
    node.holes = {
      X_T = x.dtype.ctype, S_T = src.dtype.ctype, LEN = tostring(len), TILE = tostring(tile),
    }
    node.params_info = { len = len }
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end,
}
