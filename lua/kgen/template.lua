-- kgen/template.lua - kg.template, with which the op families declare the
-- templates their ops use, and the params rules kgen's C calls.
-- Needs: kgen/state.lua. Gives: kg.templates, kg.template,
-- kg.declared_holes, kg.template_params.
local S = require "kgen.state"
local kg = S.kg

kg.templates = {} -- template name -> { params = function(target, info) }

--- kg.template{ name, params = function(target, info) return {BLOCK=, VEC=} end,
---   holes = { "A", "B", C = "" }  the holes the op's build and the params rule
---                                 give (a keyed one is optional: its default);
---                                 kgen refuses any other, and a declared hole
---                                 that the template's text never names
---   libs = { "norm" }             the templates/lib_<name>.hip it calls into
---                                 (only those are emitted)
---   file = "gemm"                 its own text, templates/<file>.hip (default:
---                                 its name; templates sharing one text declare
---                                 off the holes of roles they do not take)
---   sources = { "gemv_qm" }       the other files the params rule may pick as
---                                 `source` (they take the same holes)
---   fuse = { chain = true }       the fusion roles it accepts: chain (an
---                                 elementwise expression, EXPR over IN), or
---                                 epilogue (EPI over acc0 and EPI_IN at the
---                                 result's store) and pair (two weights, acc1)
---                                 and rms_prologue (an RMS norm of x taken in: NORM,
---                                 NG_T, NEPS); rms (the op is an RMS norm of
---                                 its operand 1 with weight 2, holes EPS,
---                                 COLS, R_T: a norm template may take it in);
---                                 regions (matmuls of one x with no epilogue
---                                 as regions of one N, its hole N: weights
---                                 w, wr1 (wr2) and results y, yr1 (yr2),
---                                 REGIONS, R1 (R2) where each starts);
---                                 region_epilogue (a regions template that
---                                 takes a rotary op and a cache op on a
---                                 region's result: REPI, ROPE<r>, KV<r>,
---                                 RE_D RE_PAIRS RE_HALF RE_REV RE_C_T
---                                 RE_SLOTS); rotary (the op rotates pairs of
---                                 its operand 1 at positions operand 2: holes
---                                 D HALF HALF_LAYOUT PASS REV); cache (the op
---                                 writes its operand 2 into the cache operand
---                                 1 in place at positions operand 3: holes
---                                 C_T SLOTS D, dim args tokens and layer);
---                                 norm_out (an epilogue template that also
---                                 writes, for an RMS norm of its result split
---                                 around it, z = the result times the norm's
---                                 weight and the result's sums of squares per
---                                 NPC columns: NOUT NOUT_T NOG_T NPC);
---                                 row_scale (a matmul that reads such a z as
---                                 x and scales each row of its product by the
---                                 norm's rsqrt from the sums: RSCALE RS_EPS
---                                 RS_K NPC); row_sums (the sums of squares
---                                 are the consumers' work: as norm_out it
---                                 writes z alone, as row_scale it takes the
---                                 norm's operand for the sums and adds its
---                                 squares itself: RS_T, the operand's type);
---                                 split_default (a norm is split around the
---                                 template's variants even where the model
---                                 does not ask)
---   weights_before_wait = true    reads its weight operands before
---                                 kg_dep_wait() (early launch: they must be
---                                 model weights) }
--- The holes C gives are not declared: KERNEL WAVE BLOCK VEC UNROLL; rows
--- grids ITERS CACHE; chain EXPR OUT_T and the list IN; epilogue EPI PAIR
--- OUT_T and the list EPI_IN; regions REGIONS R1 R2; region_epilogue REPI
--- ROPE0-2 KV0-2 and the RE_ holes; norm_out NOUT NOUT_T NOG_T NPC;
--- row_scale RSCALE RS_EPS RS_K NPC; row_sums RS_T.
function kg.template(desc)
  assert(type(desc.name) == "string" and type(desc.params) == "function", "kg.template")
  assert(not kg.templates[desc.name], "template declared twice: " .. desc.name)
  local function ident(v) return type(v) == "string" and v:match("^[%a_][%w_]*$") end
  desc.holes = desc.holes or {}
  for k, v in pairs(desc.holes) do
    assert(math.type(k) == "integer" and ident(v) or ident(k) and type(v) == "string",
      "template " .. desc.name .. ": bad hole " .. tostring(k))
  end
  assert(desc.file == nil or ident(desc.file), "template " .. desc.name .. ": bad file")
  for _, list in ipairs({ "libs", "sources" }) do
    desc[list] = desc[list] or {}
    for _, v in ipairs(desc[list]) do
      assert(ident(v), "template " .. desc.name .. ": bad " .. list .. " entry")
    end
  end
  desc.fuse = desc.fuse or {}
  kg.templates[desc.name] = desc
end

--- The holes of `holes` that template `name` declares (a params rule shared
--- with another template gives some that this one does not take).
function kg.declared_holes(name, holes)
  local t, out = kg.templates[name], {}
  for k, v in pairs(t.holes) do
    local h = math.type(k) == "integer" and v or k
    out[h] = holes[h]
  end
  return out
end

-- Called from C: the launch parameters a template takes on a target.
function kg.template_params(name, target, info)
  local t = kg.templates[name]
  if not t then error("no parameter rule for template " .. name, 0) end
  kg_context(info.kg_file, info.kg_line)
  local p = t.params(target, info)
  kg_context()
  assert(math.type(p.BLOCK) == "integer" and math.type(p.VEC) == "integer", name)
  p.UNROLL = p.UNROLL or 1
  assert(math.type(p.UNROLL) == "integer" and p.UNROLL >= 1, name)
  return p
end
