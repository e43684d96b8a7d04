-- ops/layout.lua - layout ops that move no data. reshape (and its other name,
-- view) gives a tensor of another shape over the same memory, the elements
-- in the same row-major order: no kernel runs, kernels that read the view
-- read the source's buffer. Its element count must equal the source's as an
-- expression: the same product of constant dims, the same syms.
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
