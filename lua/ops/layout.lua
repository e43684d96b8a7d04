-- ops/layout.lua - layout ops that move no data. reshape (and its other name,
-- view) gives a tensor of another shape over the same memory, the elements
-- in the same row-major order: no kernel runs, kernels that read the view
-- read the source's buffer. Its element count must equal the source's as an
-- expression: the same product of constant dims, the same syms.
-- split cuts a tensor into parts along a dim. Where every dim before it is
-- 1, each part is a run of the source's memory: a view at an offset. Where
-- the tensor is a matmul's result and the dim its last (a fused QKV
-- projection's q, k, v), each part is the matmul of x with a run of w's
-- rows (a view of the weight), and the whole product is never computed (C
-- drops the node no one reads). Else kgen says it cannot split without a
-- copy.
local kg = require "kgen"

-- shape's element count as a constant and the sorted names of its syms.
local function count(shape)
  local n, syms = 1, {}
  for _, d in ipairs(shape) do
    if kg.is_sym(d) then syms[#syms + 1] = d.name else n = n * d end
  end
  table.sort(syms)
  return n, table.concat(syms, ",")
end

local function reshape(opname, x, shape)
  if type(shape) ~= "table" or #shape == 0 then
    kg.fail("%s: the shape must be a non-empty list of dims (one may be -1), got %s", opname,
      type(shape))
  end
  local n, syms = count(x.shape)
  local known, infer = 1, nil
  local dims, dsyms = {}, {}
  for i, d in ipairs(shape) do
    if d == -1 then
      if infer then kg.fail("%s: only one dim may be -1", opname) end
      infer = i
    elseif kg.is_sym(d) then
      dsyms[#dsyms + 1] = d.name
    elseif math.type(d) ~= "integer" or d < 1 then
      kg.fail("%s: dim %d must be a positive integer, a sym or -1, got %s", opname, i,
        tostring(d))
    else
      known = known * d
    end
    dims[i] = d
  end
  table.sort(dsyms)
  if table.concat(dsyms, ",") ~= syms then
    kg.fail("%s: %s cannot be viewed as %s: the syms differ", opname, kg.shape_str(x.shape),
      kg.shape_str(shape))
  end
  if infer then
    if n % known ~= 0 then
      kg.fail("%s: %s has %d constant elements, not a multiple of %d", opname,
        kg.shape_str(x.shape), n, known)
    end
    dims[infer] = n // known
  elseif known ~= n then
    kg.fail("%s: %s cannot be viewed as %s: %d elements vs %d (times the syms)", opname,
      kg.shape_str(x.shape), kg.shape_str(shape), n, known)
  end
  return kg.view(x, kg.check_shape(opname, dims))
end

for _, name in ipairs({ "reshape", "view" }) do
  kg.op {
    name = name,
    doc = "x with another shape over the same elements in the same (row-major) order: "
      .. "reshape(x, {T, 32, 128}); one dim may be -1 (inferred); no data moves",
    inputs = { "x" },
    positional = "shape",
    attrs = { shape = {} },
    view = function(ins, a) return reshape(name, ins[1], a.shape) end,
  }
end

-- The bytes of n elements of dtype dt (quantized: whole blocks).
local function bytes_of(dt, n)
  if dt.quant then return n // dt.block_elems * dt.block_bytes end
  return n * dt.size
end

local function constant(shape)
  for _, d in ipairs(shape) do
    if kg.is_sym(d) then return false end
  end
  return true
end

local function split(x, sizes, dim)
  local r = #x.shape
  if type(sizes) ~= "table" or #sizes < 1 then
    kg.fail("split: sizes must be a non-empty list of part sizes, got %s", type(sizes))
  end
  dim = dim or -1
  if math.type(dim) ~= "integer" or dim == 0 or dim > r or dim < -r then
    kg.fail("split: dim must be an integer in 1..%d or -%d..-1, got %s", r, r, tostring(dim))
  end
  if dim < 0 then dim = r + 1 + dim end
  local total = 0
  for i, n in ipairs(sizes) do
    if math.type(n) ~= "integer" or n < 1 then
      kg.fail("split: size %d must be a positive integer, got %s", i, tostring(n))
    end
    total = total + n
  end
  if total ~= x.shape[dim] then
    kg.fail("split: the sizes add up to %d, dim %d of %s is %s", total, dim,
      kg.shape_str(x.shape), tostring(x.shape[dim]))
  end
  local inner = 1 -- elements of one index of dim
  for i = dim + 1, r do
    if kg.is_sym(x.shape[i]) then inner = nil break end
    inner = inner * x.shape[i]
  end
  local outer = true -- every dim before dim is 1: parts are runs of memory
  for i = 1, dim - 1 do
    if x.shape[i] ~= 1 then outer = false end
  end
  local parts = {}
  if outer and inner and constant(x.shape) then
    local at = 0
    for i, n in ipairs(sizes) do
      local shape = {}
      for j, d in ipairs(x.shape) do shape[j] = d end
      shape[dim] = n
      parts[i] = kg.view(x, shape, bytes_of(x.dtype, at * inner))
      at = at + n
    end
    return table.unpack(parts)
  end
  local p = kg.producer(x) -- the node's record; its operands are records too
  local w = p and p.op == "matmul" and p.inputs[2].handle
  if dim == r and w and w.kind == "weight" and #w.shape == 2
    and p.attrs.w_layout ~= "kn" and w.shape[1] == x.shape[r] and constant(w.shape) then
    local k, at = w.shape[2], 0
    for i, n in ipairs(sizes) do
      local wpart = kg.view(w, { n, k }, bytes_of(w.dtype, at * k))
      parts[i] = kg.ops.matmul.call(p.inputs[1].handle, wpart, p.attrs)
      at = at + n
    end
    return table.unpack(parts)
  end
  kg.fail("split: cannot split dim %d of %s without a copy: split a matmul's result along its last dim, or a tensor whose dims before the split are 1",
    dim, kg.shape_str(x.shape))
end

kg.op {
  name = "split",
  doc = "parts of x along a dim (default the last): split(x, {4096, 1024, 1024}); views where "
    .. "the parts are runs of memory, or matmuls over runs of w's rows for a matmul's result; "
    .. "no copy kernel",
  inputs = { "x" },
  positional = "sizes",
  attrs = { sizes = {}, dim = { type = "number" } },
  view = function(ins, a) return split(ins[1], a.sizes, a.dim) end,
}
