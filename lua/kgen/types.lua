-- kgen/types.lua - dtypes and symbolic dims: their handles, kg.sym, and
-- shapes as text.
-- Needs: kgen/state.lua. Gives: kg.dtypes, kg.dtype_codes, kg.is_dtype,
-- kg.sym, kg.is_sym, kg.is_count, kg.shape_str, kg.same_shape; S.Sym,
-- S.dim_str.
local S = require "kgen.state"
local kg, dtype_rec, sym_rec = S.kg, S.dtype_rec, S.sym_rec
local new_handle, handle_mt, field = S.new_handle, S.handle_mt, S.field
local graph, fail, check_name = S.graph, S.fail, S.check_name

---------------------------------------------------------------------------
-- dtypes

local Dtype = handle_mt("dtype", dtype_rec, {
  name = field("name"), size = field("size"), ctype = field("ctype"), float = field("float"),
  quant = field("quant"), block_elems = field("block_elems"), block_bytes = field("block_bytes"),
})
Dtype.__tostring = function(d) return dtype_rec[d].name end

local function dtype(name, size, ctype, float)
  return new_handle(dtype_rec, { name = name, size = size, ctype = ctype, float = float }, Dtype)
end

-- A GGUF (ggml) block format: `elems` weights in `bytes` bytes per block
-- (runtime/kgrt_gguf.h, templates/lib_quant.hip). Weights only, with the last
-- dim a multiple of the block; a kernel sees the raw blocks as 16-bit units
-- (ctype unsigned short: every block and field is 2-byte aligned) and
-- dequantizes them itself: only ops that say so in their build
-- (node.dequantizes) take such operands, today matmul's w.
local function quant_dtype(name, elems, bytes)
  return new_handle(dtype_rec, { name = name, ctype = "unsigned short", float = false,
    quant = true, block_elems = elems, block_bytes = bytes }, Dtype)
end

kg.dtypes = {
  f32 = dtype("f32", 4, "float", true),
  f16 = dtype("f16", 2, "kg_f16", true),
  bf16 = dtype("bf16", 2, "kg_bf16", true),
  i32 = dtype("i32", 4, "int", false),
  q8_0 = quant_dtype("q8_0", 32, 34),
  q4_0 = quant_dtype("q4_0", 32, 18),
  q4_k = quant_dtype("q4_k", 256, 144),
  q6_k = quant_dtype("q6_k", 256, 210),
}
-- The order of the runtime's kgrt_dtype_t.
kg.dtype_codes = { f32 = 0, f16 = 1, bf16 = 2, i32 = 3, q8_0 = 4, q4_0 = 5, q4_k = 6, q6_k = 7 }

function kg.is_dtype(v) return v ~= nil and dtype_rec[v] ~= nil end

---------------------------------------------------------------------------
-- symbolic dims

local Sym = handle_mt("sym", sym_rec, { name = field("name"), max = field("max"),
  ordinal = field("ordinal") })
Sym.__tostring = function(s) return sym_rec[s].name end

function kg.is_sym(v) return v ~= nil and sym_rec[v] ~= nil end

-- A dim of a handle's shape (an integer or a sym handle) or of a record's
-- (an integer or a sym record), as text.
local function dim_str(d)
  if kg.is_sym(d) then return sym_rec[d].name end
  if type(d) == "table" and sym_rec[d.handle] == d then return d.name end
  return tostring(d)
end

function kg.shape_str(shape)
  local parts = {}
  for i, d in ipairs(shape) do parts[i] = dim_str(d) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

function kg.same_shape(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end -- syms compare by identity
  end
  return true
end

--- sym(name, max [, {count = true}]): a dimension bound at run time, at
--- most `max`. A count may also be 0 (the tokens of a step that one path of
--- a kernel takes, say): it sizes launches and kernel arguments (an op's
--- tile_units and dim_args), never a tensor's shape; a launch it makes empty
--- is skipped (KGRT_SYM_COUNT).
function kg.sym(name, max, opts)
  check_name("sym", name)
  if name == "rank" then fail("sym rank: the name is kgen's (a split model's rank)") end
  if math.type(max) ~= "integer" or max < 1 then
    fail("sym %s: max must be a positive integer (the largest value the plan reserves memory for)", name)
  end
  if max > kg.max_dim then
    fail("sym %s: max %d is more than 2^31 - 1 (kernels index within a dim with 32-bit ints)", name, max)
  end
  if opts ~= nil and type(opts) ~= "table" then
    fail("sym %s: the third argument must be a table of options ({count = true})", name)
  end
  for k, v in pairs(opts or {}) do
    if k ~= "count" then fail("sym %s: unknown option %s (count)", name, tostring(k)) end
    if type(v) ~= "boolean" then fail("sym %s: option count must be true or false", name) end
  end
  for _, s in ipairs(graph.syms) do
    if s.name == name then fail("sym %s: declared twice", name) end
  end
  if #graph.syms >= kg.max_syms then fail("sym %s: more than %d syms", name, kg.max_syms) end
  local s = { name = name, max = max, ordinal = #graph.syms, count = opts and opts.count or nil }
  graph.syms[#graph.syms + 1] = s
  return new_handle(sym_rec, s, Sym)
end

--- Whether v is a count sym (kg.sym's {count = true}).
function kg.is_count(v)
  return kg.is_sym(v) and sym_rec[v].count == true
end

S.Sym, S.dim_str = Sym, dim_str
