-- kgen/op.lua - kg.op, with which the op families (lua/ops/*.lua) declare
-- ops, and kg.node, which records a node of the graph.
-- Needs: kgen/state.lua, kgen/types.lua, kgen/ranks.lua, kgen/tensor.lua.
-- Gives: kg.ops, kg.op_order, kg.op, kg.node.
local S = require "kgen.state"
local kg, sym_rec, tensor_rec = S.kg, S.sym_rec, S.tensor_rec
local graph, fail = S.graph, S.fail
local value_rank, everywhere, check_current = S.value_rank, S.everywhere, S.check_current

kg.ops = {}      -- name -> description, for --list-ops and the model env
kg.op_order = {} -- names in registration order

local function check_attr(opname, key, spec, v)
  if v == nil then return spec.default end
  if spec.type == "number" and type(v) ~= "number" then
    fail("%s: attribute %s must be a number, got %s", opname, key, type(v))
  end
  if spec.check then
    local ok, why = spec.check(v)
    if not ok then
      -- a table's tostring is its address: not in an error, which must not vary
      local shown = type(v) == "table" and "a table" or tostring(v)
      fail("%s: attribute %s %s, got %s", opname, key, why, shown)
    end
  end
  return v
end

--- kg.op{ name, doc, inputs = {"x", "weight?"}, attrs = {k = {default, type, check}},
---        positional = "attr" (a non-table trailing argument sets this attr),
---        build = function(node, ins, attrs) ... end }
--- build fills node.out_dtype, node.out_shape and the template facts; also,
--- where the op needs them:
---   node.extra_outputs = { {dtype =, shape =}, ... }  more results (returned after
---                        the first; the kernel writes them in this order);
---                        hidden = true: scratch the kernel needs, not returned
---                        to the model; persistent = true: state the kernel keeps
---                        across runs (zeroed at load, its memory shared with no
---                        other value)
---   node.inplace = k     the kernel updates operand k (1-based) in place; the result
---                        is that operand's memory (a KV cache, say), no new buffer
---   node.moved = { inputs = { [k] = size }, outputs = { [k] = size } }
---                        the bytes a kernel of the node reads from operand k
---                        or writes to result k (1-based), where fewer than
---                        the tensor's (a KV cache: one layer's keys of the
---                        context); what kgrt_model_profile counts for it
---   node.grid_of = t     row kernels: rows = numel(t) / node.cols (default: result)
---   node.dim_args = {..} sizes passed as i64 kernel arguments after the buffers
---                        (each an integer, a sym, a tensor (its numel) or a list)
---   node.grid = "tiles", node.tile_units = size: ceil(size / per_block) x repeat
---                        workgroups, per_block and repeat from the params rule;
---                        tiles_columns = true: size is w's columns (N), so a
---                        kernel of regions tiles all of theirs
---   node.variants = { v, ... }  several kernels for the node instead of one, each
---                        a table of the template facts above (template, grid,
---                        cols, grid_of, tile_units, dim_args, holes, params_info)
---                        and select = {size =, min =, max =}: the plan runs the
---                        one whose min <= size <= max at run time; a variant's
---                        label names its kernel (default: its template), and its
---                        fuse_key (a string) is what its params_info holds
---                        besides the holes: variants of different keys are never
---                        fused into one kernel (a pair, regions); hidden says
---                        which kernels take the node's hidden results: "all"
---                        (default), "none", or "plain" (a kernel of the node
---                        alone or with an epilogue chain; its params rule
---                        sees info.scratch = true)
--- A size is an integer, a sym, a tensor (its numel) or a list of those (product).
-- kgen's C reads sizes as lists of integers and sym records.
local function size_list(what, s)
  if kg.is_tensor(s) then s = tensor_rec[s].shape end
  if math.type(s) == "integer" or kg.is_sym(s) then s = { s } end
  if type(s) ~= "table" then error(what .. ": a size is not an integer, sym, tensor or list", 0) end
  local out, syms, n = {}, 0, 1
  for i, d in ipairs(s) do
    if kg.is_sym(d) then d = sym_rec[d] end
    if not (math.type(d) == "integer" or type(d) == "table" and sym_rec[d.handle] == d) then
      error(what .. ": a size is not a product of integers and syms", 0)
    end
    if type(d) == "table" then
      syms = syms + 1
    elseif d < 0 or d > 0 and n > math.maxinteger // d then
      error(what .. ": a size is negative or more than 2^63 - 1", 0)
    else
      n = n * d
    end
    out[i] = d
  end
  if syms > kg.max_expr_syms then
    error(string.format("%s: a size of %d symbolic dims, more than %d (a size kgrt evaluates holds at most %d syms)",
      what, syms, kg.max_expr_syms, kg.max_expr_syms), 0)
  end
  return out
end

-- A tensor handle (or record) as its record.
local function tensor_of(what, t)
  if kg.is_tensor(t) then return tensor_rec[t] end
  if type(t) == "table" and t.handle and tensor_rec[t.handle] == t then return t end
  error(what .. ": not a tensor", 0)
end

local function normalize_variant(what, v)
  if v.dim_args then
    for i, s in ipairs(v.dim_args) do v.dim_args[i] = size_list(what, s) end
  end
  if v.tile_units then v.tile_units = size_list(what, v.tile_units) end
  if v.select then v.select.size = size_list(what, v.select.size) end
  if v.grid_of then v.grid_of = tensor_of(what, v.grid_of) end
end

-- An attribute named `block` sets BLOCK, the threads of the op's workgroup:
-- checked against every target of the build (kg.targets, set by kgen's C
-- before the model runs) with the rules kgen's C applies to BLOCK.
local function check_block(opname, block)
  for _, t in ipairs(kg.targets or {}) do
    local why
    if block % t.wave ~= 0 then
      why = string.format("a multiple of %s's wave (%d)", t.name, t.wave)
    elseif block > t.max_block then
      why = string.format("at most %s's max_block (%d)", t.name, t.max_block)
    elseif block // t.wave > t.wave then
      why = string.format("at most %d (%s's wave %d squared: a workgroup's waves reduce through one wave)",
        t.wave * t.wave, t.name, t.wave)
    end
    if why then fail("%s: attribute block must be %s, got %d", opname, why, block) end
  end
end

function kg.op(desc)
  assert(type(desc.name) == "string" and type(desc.doc) == "string" and (desc.build or desc.view))
  assert(not kg.ops[desc.name], "op registered twice: " .. desc.name)
  desc.attrs = desc.attrs or {}
  desc.inputs = desc.inputs or {}
  kg.ops[desc.name] = desc
  kg.op_order[#kg.op_order + 1] = desc.name
  desc.call = function(...)
    local args = table.pack(...)
    local ins, attrs = {}, nil
    local n = args.n
    local last = args[n]
    if n > 0 and desc.positional and type(last) == "table" and rawget(last, 1) ~= nil
      and not kg.is_tensor(last) then
      attrs = { [desc.positional] = last } -- a list: reshape(x, {T, 32, 128})
      n = n - 1
    elseif n > 0 and type(last) == "table" and not kg.is_tensor(last) and not kg.is_dtype(last) then
      attrs = last
      n = n - 1
    elseif n > 0 and desc.positional and not kg.is_tensor(last) then
      attrs = { [desc.positional] = last }
      n = n - 1
    end
    attrs = attrs or {}
    -- a positional list before the attributes: split(x, {64, 64}, {dim = 1})
    local prev = args[n]
    if n > 0 and desc.positional and attrs[desc.positional] == nil and type(prev) == "table"
      and rawget(prev, 1) ~= nil and not kg.is_tensor(prev) then
      attrs[desc.positional] = prev
      n = n - 1
    end
    -- operands
    local want = #desc.inputs
    local required = 0
    for _, spec in ipairs(desc.inputs) do
      if not spec:match("%?$") then required = required + 1 end
    end
    if n < required or n > want then
      fail("%s: expected %s tensor operand%s, got %d", desc.name,
        required == want and tostring(want) or (required .. " to " .. want),
        want == 1 and "" or "s", n)
    end
    for i = 1, n do
      local v = args[i]
      local what = desc.inputs[i]:gsub("%?$", "")
      if not kg.is_tensor(v) then
        fail("%s: operand %d (%s) must be a tensor, got %s", desc.name, i, what,
          v == nil and "nil" or type(v))
      end
      ins[i] = v
    end
    -- attributes: unknown keys are errors; checked in sorted order
    local keys = {}
    for k in pairs(attrs) do
      if type(k) ~= "string" or not desc.attrs[k] then
        local known = {}
        for name in pairs(desc.attrs) do known[#known + 1] = name end
        table.sort(known)
        fail("%s: unknown attribute %s (known: %s)", desc.name, tostring(k),
          #known > 0 and table.concat(known, ", ") or "none")
      end
      keys[#keys + 1] = k
    end
    local a = {}
    local all = {}
    for name in pairs(desc.attrs) do all[#all + 1] = name end
    table.sort(all)
    for _, name in ipairs(all) do
      a[name] = check_attr(desc.name, name, desc.attrs[name], attrs[name])
    end
    if math.type(a.block) == "integer" then check_block(desc.name, a.block) end
    if desc.view then return desc.view(ins, a) end
    return kg.node(desc.name, ins, a, desc.build)
  end
  return desc.call
end

--- kg.node(op, ins, attrs, build): records a node of the graph whose kernel
--- `build` describes (kg.op's build) and returns its results but the hidden
--- ones. kg.op's call runs it once the operands and attributes are checked.
function kg.node(opname, ins, a, build)
  if #graph.nodes >= kg.max_nodes then
    fail("%s: more than %d ops in the model (the most kgen builds)", opname, kg.max_nodes)
  end
  for i, t in ipairs(ins) do check_current(opname, i, t) end
  -- operands on another rank than this op's come by broadcast (on_rank)
  if graph.placed and opname ~= "broadcast" then
    for i, t in ipairs(ins) do
      local from = value_rank(tensor_rec[t])
      if from ~= nil and from ~= graph.rank then ins[i] = everywhere(t) end
    end
  end
  local node = { op = opname, inputs = ins, attrs = a, rank = graph.rank }
  node.file, node.line = kg_where()
  build(node, ins, a)
  -- quantized operands only where the build dequantizes them; never results
  local desc = kg.ops[opname]
  for i, t in ipairs(ins) do
    if t.dtype.quant and not (node.dequantizes and node.dequantizes[i]) then
      fail("%s: operand %d (%s) is %s, a quantized (GGUF block) dtype; only matmul's w may be quantized",
        opname, i, desc and desc.inputs[i] and desc.inputs[i]:gsub("%?$", "") or "?",
        t.dtype.name)
    end
  end
  for _, r in ipairs({ { dtype = node.out_dtype }, table.unpack(node.extra_outputs or {}) }) do
    if r.dtype and r.dtype.quant then
      fail("%s: the result cannot be %s, a quantized (GGUF block) dtype (for weights only)",
        opname, r.dtype.name)
    end
  end
  assert((node.template or node.variants or node.combine) and node.out_dtype and node.out_shape,
    opname)
  local out = kg.tensor("value", node.out_dtype, node.out_shape, nil, opname .. ": the result")
  local results = { out }
  node.output = tensor_rec[out]
  node.output.producer = node
  if node.inplace then -- the result is the operand's memory, one version on
    local m = tensor_rec[ins[node.inplace]].mem
    m.version, m.updated_by = m.version + 1, opname
    node.output.mem, node.output.version = m, m.version
  end
  node.outputs = { node.output }
  for _, extra in ipairs(node.extra_outputs or {}) do
    local t = kg.tensor("value", extra.dtype, extra.shape, nil, opname .. ": a result")
    local r = tensor_rec[t]
    r.producer = node
    r.persistent = extra.persistent or nil
    node.outputs[#node.outputs + 1] = r
    if not extra.hidden then results[#results + 1] = t end
  end
  local recs = {}
  for i, t in ipairs(ins) do recs[i] = tensor_of(opname, t) end
  node.inputs = recs
  if node.moved then -- by operand and result, as sizes (kgen's C: moved_in, moved_out)
    for key, n in pairs { inputs = #recs, outputs = #node.outputs } do
      local list = {}
      for k, s in pairs(node.moved[key] or {}) do
        assert(math.type(k) == "integer" and k >= 1 and k <= n, opname)
        list[k] = size_list(opname, s)
      end
      node["moved_" .. key:sub(1, key == "inputs" and 2 or 3)] = list
    end
  end
  normalize_variant(opname, node)
  for _, v in ipairs(node.variants or {}) do normalize_variant(opname, v) end
  -- the model's line of the op, for what its params rule raises (kg_context)
  for _, v in ipairs({ node, table.unpack(node.variants or {}) }) do
    if type(v.params_info) == "table" then
      v.params_info.kg_file, v.params_info.kg_line = node.file, node.line
    end
  end
  node.index = #graph.nodes
  graph.nodes[#graph.nodes + 1] = node
  return table.unpack(results)
end
