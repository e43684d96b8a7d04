-- models/llama.lua - a decoder-only transformer of the Llama family from a
-- config table: Llama 2, 3, 3.1 and 3.2, Mistral, Qwen2/2.5, TinyLlama,
-- SmolLM. A model file is a few lines:
--
--   local llama = require "models.llama"
--   llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336,
--           vocab = 128256, rope_theta = 500000, weights = q4_0 }
--
-- This module runs as model code, with the model's own globals (the DSL's
-- public names): it has no access to kgen's internals.
--
-- One table serves prefill and decode: T (the tokens of this run, a sym) and
-- S (the context after it, a sym) are set at run time.
--   inputs   tokens [T] i32, pos [T] i32 (S - T .. S - 1), last [1] i32 (the
--            row whose logits are wanted: T - 1), seed [1] i32 and params
--            [1, 4] f32 (the sampling: temperature (0: greedy), top_k (0:
--            off), top_p (1: off), min_p (0: off); the draw is Philox of
--            the seed at the drawn token's position, as a batch table's)
--   state    k_cache, v_cache [layers, kv_heads, context, head_dim]: the KV
--            cache, kept on the device across runs (kv_append updates it)
--   outputs  logits [1, vocab] f32 (the last row's), next_token [1] i32
--            (sampled on the GPU), next_pos [1] i32 (pos[T - 1] + 1): a decode
--            loop links next_token -> tokens and next_pos -> pos.
-- Weights are named as a GGUF file names them, with `.` read as `_`
-- (blk_0_attn_q_weight); kgrt binds them from GGUF or Hugging Face names.
--
-- Config keys (defaults in brackets):
--   hidden, layers, heads, vocab, ffn     sizes (required)
--   kv_heads [heads], head_dim [hidden / heads]
--   rope_theta [10000], rope_scaling (Llama 3.1: factor, low_freq_factor,
--     high_freq_factor, original_context), rope_layout ["interleaved": the
--     layout of Q/K weights as llama.cpp's converter permutes them; "half" for
--     Hugging Face files and for GGUF files of Qwen2]
--   norm_eps [1e-5], tied_embeddings [false], qkv_bias [false] (Qwen2),
--   sliding_window [none] (Mistral)
--   split_norms ["none"]: which norms are rmsnorm's split at prefill (no
--     norm kernel: the GEMM whose epilogue result is the norm's operand also
--     writes z and its sums of squares, the consuming GEMMs scale their rows):
--     "none" (7 kernels a layer); "attn", each layer's attention norm but
--     the first layer's, around the previous layer's down GEMM (6 kernels a
--     layer; on the H200 1-3% slower at Llama-3-8B and Llama-3.2-1B
--     shapes); "all", the FFN norms too (5 kernels a layer;
--     slower still: the O GEMM's epilogue and the gate/up GEMM's row scales
--     cost more than the norm's kernel); true and false are "all" and
--     "none". Around quantized GEMVs (decode of quantized weights) the norms
--     are split whatever this says: 5 kernels a layer.
--   dtype [bf16]: activations and the KV cache (f16 or bf16; f32 for tests)
--   weights [dtype]: every weight's format (f32, f16, bf16, q8_0, q4_0,
--     q4_k, q6_k), or a table { default = ..., token_embd = ..., output = ...,
--     attn_q = ..., ffn_down = ..., ... } by GGUF tensor kind, with
--     layers = { [l] = { attn_v = q6_k, ... } } for the layers (0-based) whose
--     weights differ (a Q4_K_M file's); a quantized token_embd is decoded by
--     the embedding into dtype. A float format other than token_embd's must
--     be dtype (a matmul takes x and a float w of one dtype)
--   norms [f32]: the dtype of norm weights and biases (GGUF files store
--     them in f32, Hugging Face files in the model's dtype)
--   max_tokens [512]: T's maximum; context [2048]: the KV cache's slots
--   tp [1]: tensor parallel over tp ranks (Megatron style): this table is
--     one rank's part. Q, K, V, gate and up are split by their output rows,
--     O and down by their input columns and followed by an all_reduce (each
--     rank adds residual / tp in its matmul's epilogue, so the all_reduce
--     gives the new residual with no add kernel after it); the
--     heads, KV heads and the KV cache by head (fewer KV heads than ranks:
--     each KV head is shared by tp / kv_heads ranks); the embedding and the
--     LM head by vocab rows: each rank looks up the ids in its rows (zero
--     rows for the others) and an all_reduce adds the ranks' rows, and the
--     LM head's f32 logits are gathered with all_gather (tied embeddings:
--     the LM head is the rank's rows of the embedding; a vocab that tp does
--     not divide keeps both whole on every rank, or is refused for an
--     untied LM head). Norms are whole on every rank; each rank samples the
--     same token from the same logits.
--   batch [none]: { sequences = B, blocks = NB, block_size [16] }: a table
--     that serves up to B sequences at once (continuous batching) over a
--     KV cache of NB blocks of block_size tokens shared by all of them
--     (paged attention); `context` is then one sequence's most tokens. Its
--     run is a step of T tokens of B sequences, each sequence's tokens
--     together and the sequences in order (prefill chunks and decode tokens
--     mix in one step), with syms T, B, Q (the most tokens of any one
--     sequence this step: the attention's decode path runs where Q <= 16 /
--     (heads / kv_heads)) and the count D (the step's first D sequences
--     have one token each: beside a prefill chunk they take the decode
--     path all the same; kgrt_batch_bind sets all four) and
--       inputs  tokens, pos, seq [T] i32 (each token's id, position in its
--               sequence, and sequence 0 .. B - 1), ctx [B] i32 (each
--               sequence's context after this step), blocks [B, context /
--               block_size] i32 (each sequence's block table: its key j in
--               slot blocks[s, j / block_size] block_size + j %
--               block_size of the cache), last [B] i32 (the row of each
--               sequence's token to sample after), seed [B] i32 and params
--               [B, 4] f32 (each sequence's sampling: temperature (0:
--               greedy), top_k, top_p, min_p; its draw is Philox of its
--               seed at the drawn token's position, whatever the batch)
--       state   k_cache, v_cache [layers, kv_heads, NB block_size, head_dim]
--       outputs logits [B, vocab] f32, next_token [B] i32, next_pos [B] i32
--               (pos[last] + 1), next_ctx [B] i32 (ctx + 1): a device loop
--               of decoding sequences links next_token -> tokens, next_pos
--               -> pos and next_ctx -> ctx.
--     A sequence's logits do not depend on the others in its step on the
--     attention's side (paged_attention); the matmuls take the GEMV or the
--     GEMM by T, as a batch-1 table does. Not with tp or pp.
--   pp [1]: pipeline parallel over pp ranks: layer l runs on rank
--     l * pp // layers (contiguous stages), the embedding on rank 0, the
--     final norm and the LM head on the last rank; each stage keeps the KV
--     cache of its own layers (state k_cache_<s>, v_cache_<s>), and kgen
--     hands the residual on from stage to stage (and the logits to every
--     rank, which all sample the same token). Not with tp.
local M = {}

local function fail(fmt, ...)
  error(string.format("llama: " .. fmt, ...), 0)
end

local function int_key(cfg, key, default, min)
  local v = rawget(cfg, key)
  if v == nil then v = default end
  if math.type(v) ~= "integer" or v < (min or 1) then
    fail("config %s must be an integer >= %d, got %s", key, min or 1, tostring(v))
  end
  return v
end

local function num_key(cfg, key, default)
  local v = rawget(cfg, key)
  if v == nil then v = default end
  if type(v) ~= "number" or v ~= v or v <= 0 or v == math.huge then
    fail("config %s must be a finite number > 0, got %s", key, tostring(v))
  end
  return v
end

local function bool_key(cfg, key)
  local v = rawget(cfg, key)
  if v == nil then return false end
  if type(v) ~= "boolean" then fail("config %s must be true or false, got %s", key, tostring(v)) end
  return v
end

-- split_norms: which norms are split around the GEMMs (rmsnorm's split);
-- see the config keys above.
local split_norms_modes = { none = true, attn = true, all = true }
local function split_norms_key(cfg)
  local v = rawget(cfg, "split_norms")
  if v == nil then return "none" end
  if v == true then return "all" end
  if v == false then return "none" end
  if not split_norms_modes[v] then
    fail("config split_norms must be \"none\", \"attn\", \"all\", true or false, got %s",
      tostring(v))
  end
  return v
end

local float_dtypes = { [f32] = true, [f16] = true, [bf16] = true }
local weight_dtypes = { [f32] = true, [f16] = true, [bf16] = true,
  [q8_0] = true, [q4_0] = true, [q4_k] = true, [q6_k] = true }
local layer_kinds = { "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
  "ffn_down" }
local weight_kinds = { "token_embd", "output", "attn_q", "attn_k", "attn_v", "attn_output",
  "ffn_gate", "ffn_up", "ffn_down" }

local dtype_names = "f32, f16, bf16, q8_0, q4_0, q4_k, q6_k"

-- Per-layer formats from cfg.weights.layers: { [l] = { kind = dtype, ... } }
-- for layers l (0-based) whose layer weights differ from the kind's format
-- (a Q4_K_M file keeps some layers' attn_v and ffn_down in Q6_K).
local function layer_overrides(layers, n)
  if layers == nil then return {} end
  if type(layers) ~= "table" then fail("config weights.layers must be a table by layer") end
  local by = {}
  for l, t in pairs(layers) do
    if math.type(l) ~= "integer" or l < 0 or l >= n then
      fail("config weights.layers: %s is not a layer (0 .. %d)", tostring(l), n - 1)
    end
    if type(t) ~= "table" then fail("config weights.layers[%d] must be a table by weight kind", l) end
    by[l] = {}
    for kind, f in pairs(t) do
      local known = false
      for _, k in ipairs(layer_kinds) do known = known or kind == k end
      if not known then fail("config weights.layers[%d].%s is not a layer weight kind", l, tostring(kind)) end
      if not weight_dtypes[f] then
        fail("config weights.layers[%d].%s takes a dtype (%s)", l, kind, dtype_names)
      end
      by[l][kind] = f
    end
  end
  return by
end

-- The format of each weight kind from cfg.weights (a dtype or a table), and
-- formats.layers[l]: layer l's overrides.
local function weight_formats(cfg, dtype, layers)
  local w = rawget(cfg, "weights")
  local formats = {}
  local default = dtype
  if type(w) == "table" then
    for key in pairs(w) do
      local known = key == "default" or key == "layers"
      for _, kind in ipairs(weight_kinds) do known = known or key == kind end
      if not known then fail("config weights.%s is not a weight kind", tostring(key)) end
    end
    default = rawget(w, "default") or dtype
  elseif w ~= nil then
    default = w
  end
  for _, kind in ipairs(weight_kinds) do
    local f = default
    if type(w) == "table" and rawget(w, kind) ~= nil then f = rawget(w, kind) end
    if not weight_dtypes[f] then fail("config weights: %s takes a dtype (%s)", kind, dtype_names) end
    -- a matmul takes x and a float w of one dtype (a block format decodes
    -- into any): a file's bf16 weights under f16 activations fail here,
    -- not at the first matmul
    if kind ~= "token_embd" and not f.quant and f ~= dtype then
      fail("config weights: %s is %s but dtype is %s: float weights must be in the activations' dtype (quantized ones may differ)",
        kind, f.name, dtype.name)
    end
    formats[kind] = f
  end
  formats.layers = layer_overrides(type(w) == "table" and rawget(w, "layers") or nil, layers)
  return formats
end

local dtype_of_name = { f32 = f32, f16 = f16, bf16 = bf16, q8_0 = q8_0, q4_0 = q4_0,
  q4_k = q4_k, q6_k = q6_k }

-- A file's tensor by name (info.tensors) and its weight format, for the
-- config readers; `who` names the reader in errors.
local function file_tensor(who, tensors, name)
  local t = tensors[name]
  if t == nil then fail("%s: the file has no tensor %s", who, name) end
  local dt = dtype_of_name[t.dtype]
  if dt == nil then fail("%s: tensor %s is %s, not a weight format", who, name, tostring(t.dtype)) end
  return t, dt
end

-- The format of each layer weight kind: layer 0's, and weights.layers[l]
-- where layer l's differs (name(kind, l) is the kind's tensor in layer l).
local function layer_formats(who, tensors, layers, name, weights)
  weights.layers = {}
  for _, kind in ipairs(layer_kinds) do
    local _, dt = file_tensor(who, tensors, name(kind, 0))
    for l = 1, layers - 1 do
      local _, other = file_tensor(who, tensors, name(kind, l))
      if other ~= dt then
        weights.layers[l] = weights.layers[l] or {}
        weights.layers[l][kind] = other
      end
    end
    weights[kind] = dt
  end
  weights.default = weights.attn_q
  return weights
end

--- A config from a GGUF file's header (weights_file(...), kgen --define):
--- the sizes, RoPE base, norm epsilon, sliding window and context from the
--- metadata of its general.architecture (llama, qwen2: RoPE "half"), the
--- vocabulary from token_embd's rows, tied embeddings where the file has no
--- output.weight, the weights' formats by kind from its tensors (layer 0's,
--- and weights.layers where a layer's differ, as in Q4_K_M files), the norms' dtype from blk.0.attn_norm.weight, qkv_bias
--- where it has blk.0.attn_q.bias. `extra` (dtype, context, max_tokens,
--- tp, pp, ...) is added and wins over the file.
function M.gguf_config(info, extra)
  extra = extra or {}
  if type(info) ~= "table" or type(info.meta) ~= "table" or type(info.tensors) ~= "table" then
    fail("gguf_config: expected weights_file(...)'s table")
  end
  if info.format ~= "gguf" then
    fail("gguf_config: a %s file carries no hyperparameters: read its config.json with hf_config", tostring(info.format))
  end
  local meta, tensors = info.meta, info.tensors
  local arch = meta["general.architecture"]
  if arch ~= "llama" and arch ~= "qwen2" then
    fail("gguf_config: general.architecture is %s; llama and qwen2 are read", tostring(arch))
  end
  -- arch.k, an integer where it is one (10000.0 -> 10000), or nil
  local function opt(k)
    local v = meta[arch .. "." .. k]
    if type(v) == "number" then return math.tointeger(v) or v end
    return v
  end
  local function key(k, default)
    local v = opt(k)
    if v == nil then v = default end
    if v == nil then fail("gguf_config: the file has no %s.%s", arch, k) end
    return v
  end
  local function tensor(name) return file_tensor("gguf_config", tensors, name) end
  local cfg = {
    hidden = key("embedding_length"), layers = key("block_count"),
    heads = key("attention.head_count"), ffn = key("feed_forward_length"),
    rope_theta = key("rope.freq_base", 10000), norm_eps = key("attention.layer_norm_rms_epsilon", 1e-5),
    context = key("context_length"), sliding_window = opt("attention.sliding_window"),
    rope_layout = arch == "qwen2" and "half" or nil,
  }
  cfg.kv_heads = key("attention.head_count_kv", cfg.heads)
  -- a head's size as llama.cpp reads it: attention.key_length, else hidden
  -- / heads; values of the same size (kgen's attention takes one), all of
  -- it rotated (rope.dimension_count: RoPE over part of a head is not
  -- supported)
  local kl = opt("attention.key_length")
  cfg.head_dim = kl
  if kl == nil and math.type(cfg.hidden) == "integer" and math.type(cfg.heads) == "integer"
      and cfg.heads > 0 and cfg.hidden % cfg.heads == 0 then
    kl = cfg.hidden // cfg.heads
  end
  local vl, rd = opt("attention.value_length"), opt("rope.dimension_count")
  if kl and vl and vl ~= kl then
    fail("gguf_config: %s.attention.value_length %s is not the key size %s: kgen's attention takes one head size",
      arch, tostring(vl), tostring(kl))
  end
  if kl and rd and rd ~= kl then
    fail("gguf_config: %s.rope.dimension_count %s is not the head size %s: RoPE over part of a head is not supported",
      arch, tostring(rd), tostring(kl))
  end
  local embd, embd_dt = tensor("token_embd.weight")
  cfg.vocab = embd.shape[1]
  local weights = { token_embd = embd_dt }
  if tensors["output.weight"] == nil then
    cfg.tied_embeddings = true
  else
    local _, dt = tensor("output.weight")
    weights.output = dt
  end
  cfg.weights = layer_formats("gguf_config", tensors, cfg.layers,
    function(kind, l) return string.format("blk.%d.%s.weight", l, kind) end, weights)
  local _, norms = tensor("blk.0.attn_norm.weight")
  cfg.norms = norms
  cfg.qkv_bias = tensors["blk.0.attn_q.bias"] ~= nil or nil
  if tensors["rope_freqs.weight"] ~= nil and extra.rope_scaling == nil then
    fail("gguf_config: the file has rope_freqs.weight (Llama 3.1 frequency factors): give rope_scaling in extra")
  end
  for k, v in pairs(extra) do cfg[k] = v end
  return cfg
end

-- Hugging Face's names of a layer's weight kinds, and the activation dtypes
-- of config.json's torch_dtype.
local hf_layer = { attn_q = "self_attn.q_proj", attn_k = "self_attn.k_proj",
  attn_v = "self_attn.v_proj", attn_output = "self_attn.o_proj", ffn_gate = "mlp.gate_proj",
  ffn_up = "mlp.up_proj", ffn_down = "mlp.down_proj" }
local hf_dtypes = { float16 = f16, bfloat16 = bf16 }

--- A config from a Hugging Face model: its config.json (json_file(...)) and
--- the header of its safetensors file or index (weights_file(...)), as
--- transformers writes them for model_type llama, mistral and qwen2: the
--- sizes, RoPE base and Llama 3.1 rope_scaling, norm epsilon, context
--- (max_position_embeddings), tied embeddings, head_dim, the sliding window
--- (mistral's; qwen2's where use_sliding_window is true), qkv_bias (qwen2,
--- or attention_bias), the activations' dtype from torch_dtype (float16,
--- bfloat16), the RoPE layout "half" (HF does not permute q and k), and the
--- weights' formats by kind (weights.layers where a layer's differ) and the
--- norms' dtype from the file's tensors. `extra` (dtype, context, max_tokens, tp,
--- pp, ...) is added and wins over the files.
function M.hf_config(json, info, extra)
  extra = extra or {}
  if type(json) ~= "table" then fail("hf_config: expected json_file(...)'s table") end
  if type(info) ~= "table" or type(info.tensors) ~= "table" then
    fail("hf_config: expected weights_file(...)'s table")
  end
  if info.format ~= "safetensors" then
    fail("hf_config: the weights are a %s file; a Hugging Face model's are safetensors (a GGUF file: gguf_config)", tostring(info.format))
  end
  local mt = json.model_type
  if mt ~= "llama" and mt ~= "mistral" and mt ~= "qwen2" then
    fail("hf_config: model_type is %s; llama, mistral and qwen2 are read", tostring(mt))
  end
  if json.hidden_act ~= nil and json.hidden_act ~= "silu" then
    fail("hf_config: hidden_act is %s; the Llama family's is silu", tostring(json.hidden_act))
  end
  local function key(k, default)
    local v = json[k]
    if v == nil then v = default end
    if v == nil then fail("hf_config: config.json has no %s", k) end
    return v
  end
  local cfg = {
    hidden = key("hidden_size"), layers = key("num_hidden_layers"),
    heads = key("num_attention_heads"), ffn = key("intermediate_size"),
    vocab = key("vocab_size"), rope_theta = key("rope_theta", 10000),
    norm_eps = key("rms_norm_eps", 1e-6), context = key("max_position_embeddings"),
    head_dim = json.head_dim, rope_layout = "half",
    dtype = hf_dtypes[json.torch_dtype],
  }
  cfg.kv_heads = key("num_key_value_heads", cfg.heads)
  if mt == "mistral" or (mt == "qwen2" and json.use_sliding_window == true) then
    cfg.sliding_window = json.sliding_window
  end
  local rs = json.rope_scaling
  if rs ~= nil then
    local kind = type(rs) == "table" and (rs.rope_type or rs.type) or nil
    if kind ~= "llama3" then
      fail("hf_config: rope_scaling of type %s; llama3's is read", tostring(kind))
    end
    cfg.rope_scaling = { factor = rs.factor, low_freq_factor = rs.low_freq_factor,
      high_freq_factor = rs.high_freq_factor, original_context = rs.original_max_position_embeddings }
  end
  local tensors = info.tensors
  local function tensor(name) return file_tensor("hf_config", tensors, name) end
  local embd, embd_dt = tensor("model.embed_tokens.weight")
  if embd.shape[1] ~= cfg.vocab then
    fail("hf_config: model.embed_tokens.weight has %s rows, config.json's vocab_size is %s",
      tostring(embd.shape[1]), tostring(cfg.vocab))
  end
  local weights = { token_embd = embd_dt }
  if json.tie_word_embeddings == true then
    cfg.tied_embeddings = true
  else
    local _, dt = tensor("lm_head.weight")
    weights.output = dt
  end
  cfg.weights = layer_formats("hf_config", tensors, cfg.layers,
    function(kind, l) return string.format("model.layers.%d.%s.weight", l, hf_layer[kind]) end,
    weights)
  local _, norms = tensor("model.layers.0.input_layernorm.weight")
  cfg.norms = norms
  if mt == "qwen2" or json.attention_bias == true then
    tensor("model.layers.0.self_attn.q_proj.bias")
    cfg.qkv_bias = true
  end
  for k, v in pairs(extra) do cfg[k] = v end
  return cfg
end

--- The `extra` of gguf_config and hf_config from kgen's command line:
--- --define dtype=f16|bf16|f32, context=N and max_tokens=N (default the
--- smaller of 512 and the context: the one given, else `context`, the
--- files').
function M.extra_from_defines(context)
  local function count(name)
    local v = define(name, "")
    if v == "" then return nil end
    local n = math.tointeger(tonumber(v))
    if n == nil then fail("--define %s=%s: expected a whole number", name, v) end
    return n
  end
  local extra = { context = count("context"), max_tokens = count("max_tokens") }
  local dt = define("dtype", "")
  if dt ~= "" then
    extra.dtype = ({ f16 = f16, bf16 = bf16, f32 = f32 })[dt]
    if extra.dtype == nil then fail("--define dtype=%s: expected f16, bf16 or f32", dt) end
  end
  if extra.max_tokens == nil then
    extra.max_tokens = math.min(512, extra.context or context or 512)
  end
  return extra
end

--- The config, checked and completed.
function M.config(cfg)
  if type(cfg) ~= "table" then fail("the config must be a table") end
  local c = {}
  c.hidden = int_key(cfg, "hidden")
  c.layers = int_key(cfg, "layers")
  c.heads = int_key(cfg, "heads")
  c.kv_heads = int_key(cfg, "kv_heads", c.heads)
  c.vocab = int_key(cfg, "vocab")
  c.ffn = int_key(cfg, "ffn")
  if c.hidden % c.heads ~= 0 and rawget(cfg, "head_dim") == nil then
    fail("config hidden %d is not a multiple of heads %d: give head_dim", c.hidden, c.heads)
  end
  c.head_dim = int_key(cfg, "head_dim", c.hidden // c.heads)
  if c.heads % c.kv_heads ~= 0 then
    fail("config heads %d must be a multiple of kv_heads %d", c.heads, c.kv_heads)
  end
  c.rope_theta = num_key(cfg, "rope_theta", 10000.0)
  c.rope_scaling = rawget(cfg, "rope_scaling")
  c.rope_layout = rawget(cfg, "rope_layout") or "interleaved"
  c.norm_eps = num_key(cfg, "norm_eps", 1e-5)
  c.tied_embeddings = bool_key(cfg, "tied_embeddings")
  c.qkv_bias = bool_key(cfg, "qkv_bias")
  c.split_norms = split_norms_key(cfg)
  local win = rawget(cfg, "sliding_window")
  if win ~= nil then c.sliding_window = int_key(cfg, "sliding_window") end
  c.dtype = rawget(cfg, "dtype") or bf16
  if not float_dtypes[c.dtype] then fail("config dtype must be f32, f16 or bf16") end
  c.formats = weight_formats(cfg, c.dtype, c.layers)
  c.norms = rawget(cfg, "norms") or f32
  if not float_dtypes[c.norms] then fail("config norms must be f32, f16 or bf16") end
  c.max_tokens = int_key(cfg, "max_tokens", 512)
  c.context = int_key(cfg, "context", 2048)
  if c.max_tokens > c.context then
    fail("config max_tokens %d is more than the context %d", c.max_tokens, c.context)
  end
  if rawget(cfg, "sampling") ~= nil then
    fail("config sampling: a table samples with its params input, set at run time")
  end
  c.tp = int_key(cfg, "tp", 1)
  c.pp = int_key(cfg, "pp", 1)
  c.mm = {} -- the matmuls' attributes
  local b = rawget(cfg, "batch")
  if b ~= nil then
    if type(b) ~= "table" then fail("config batch must be a table { sequences, blocks, block_size }") end
    for key in pairs(b) do
      if key ~= "sequences" and key ~= "blocks" and key ~= "block_size" then
        fail("config batch.%s is not a key (sequences, blocks, block_size)", tostring(key))
      end
    end
    local function bkey(key, default, max)
      local v = rawget(b, key)
      if v == nil then v = default end
      if math.type(v) ~= "integer" or v < 1 or v > max then
        fail("config batch.%s must be an integer in [1, %d], got %s", key, max, tostring(v))
      end
      return v
    end
    c.batch = { sequences = bkey("sequences", nil, 1 << 16), blocks = bkey("blocks", nil, 1 << 24),
      block_size = bkey("block_size", 16, 4096) }
    if c.tp > 1 or c.pp > 1 then fail("config batch: a batched table takes neither tp nor pp") end
    if c.context % c.batch.block_size ~= 0 then
      fail("config context %d is not whole blocks of batch.block_size %d", c.context,
        c.batch.block_size)
    end
    if c.batch.blocks * c.batch.block_size < c.context then
      fail("config batch.blocks %d of %d tokens hold less than one sequence's context %d",
        c.batch.blocks, c.batch.block_size, c.context)
    end
    -- a decode step of more than 8 sequences: a GEMM of its own for up to
    -- 64 (matmul's small_m), tiled for that many rows, not for a prefill chunk
    if c.batch.sequences > 8 and c.max_tokens > 9 then
      c.mm.small_m = math.min(64, c.batch.sequences, c.max_tokens - 1)
    end
    -- batch invariance: a sequence's matmuls give the same bits whatever
    -- other sequences share the step (matmul's invariant)
    c.mm.invariant = true
    if c.batch.sequences > c.max_tokens then
      fail("config batch.sequences %d is more than max_tokens %d (a step's tokens)",
        c.batch.sequences, c.max_tokens)
    end
  end
  if c.pp > 1 and c.tp > 1 then fail("config tp %d and pp %d: one of them must be 1", c.tp, c.pp) end
  if c.pp > c.layers then fail("config pp %d is more than the layers %d", c.pp, c.layers) end
  if c.tp > 1 then
    local function divides(what, n)
      if n % c.tp ~= 0 then fail("config %s %d is not a multiple of tp %d", what, n, c.tp) end
    end
    divides("heads", c.heads)
    divides("ffn", c.ffn)
    if not c.tied_embeddings then divides("vocab", c.vocab) end
    if c.kv_heads % c.tp ~= 0 and c.tp % c.kv_heads ~= 0 then
      fail("config kv_heads %d and tp %d: one must divide the other", c.kv_heads, c.tp)
    end
  end
  return c
end

-- This rank's share of the sizes a split model cuts (the whole when tp is 1):
-- heads, KV heads (kv_parts: the parts K and V are cut into), FFN rows.
local function rank_sizes(c)
  local s = { heads = c.heads // c.tp, ffn = c.ffn // c.tp, kv_parts = math.min(c.kv_heads, c.tp) }
  s.kv_heads = c.kv_heads // s.kv_parts
  return s
end

-- A weight of layer l; `split`: { dim, parts } when a split model cuts it.
local function layer_weight(c, l, kind, dt, shape, split, parts)
  local name = string.format("blk_%d_%s_weight", l, kind)
  if c.tp == 1 or not split then return weight(name, dt, shape) end
  return weight(name, dt, shape, { split = split, parts = parts })
end

-- x + the sum over the ranks of y, a split model's partial sums: each rank
-- adds x / tp to its own part in y's epilogue (exact when tp is a power of
-- two), and the all_reduce's sum is the new residual, with no add after it.
local function combine(c, x, y)
  if c.tp == 1 then return x + y end
  return all_reduce(y + affine(x, { mul = 1 / c.tp }))
end

-- The attention of layer cl over the caches, this step's q, k and v written
-- first: at positions S - T .. S - 1 of one sequence (kv.S), or at the slots
-- of a batch of sequences in a paged pool (kv.paged). Returns a and the
-- caches.
local function attend(c, cl, q, k, v, pos, kv, kc, vc)
  if kv.paged then
    local p = kv.paged
    kc = kv_append(kc, k, p.slots, { layer = cl })
    vc = kv_append(vc, v, p.slots, { layer = cl })
    local a = paged_attention(q, kc, vc, pos, p.seq, p.ctx, p.blocks, { layer = cl,
      block_size = c.batch.block_size, causal = true, window = c.sliding_window,
      seq_tokens = p.Q, decode_tokens = p.D })
    return a, kc, vc
  end
  kc = kv_append(kc, k, pos, { layer = cl })
  vc = kv_append(vc, v, pos, { layer = cl })
  -- appended: this run's keys are at positions S - T .. S - 1 (pos), the
  -- rest are earlier runs'
  local a = attention(q, kc, vc, { layer = cl, context = kv.S, causal = true,
    window = c.sliding_window, appended = true })
  return a, kc, vc
end

-- One decoder layer: x [T, E] -> x [T, E]; returns the updated caches too
-- (cl: l's layer in them; kv: attend's).
local function layer(c, l, cl, x, pos, kv, kc, vc)
  local T = x.shape[1]
  local r = rank_sizes(c)
  local E, H, KVH, D = c.hidden, r.heads, r.kv_heads, c.head_dim
  local f = {} -- the kinds' formats, with this layer's own
  for kind, dt in pairs(c.formats) do f[kind] = dt end
  for kind, dt in pairs(c.formats.layers[l] or {}) do f[kind] = dt end
  local h = rmsnorm(x, layer_weight(c, l, "attn_norm", c.norms, { E }),
    { eps = c.norm_eps, split = c.split_norms ~= "none" })
  local function proj(kind, n, parts)
    local y = matmul(h, layer_weight(c, l, kind, f[kind], { n, E }, 1, parts), c.mm)
    if c.qkv_bias then
      local name = string.format("blk_%d_%s_bias", l, kind)
      local b = c.tp == 1 and weight(name, c.norms, { n })
        or weight(name, c.norms, { n }, { split = 1, parts = parts })
      y = y + (c.dtype == c.norms and b or cast(b, c.dtype))
    end
    return y
  end
  local rope_attrs = { theta = c.rope_theta, layout = c.rope_layout, scaling = c.rope_scaling }
  local q = rope(reshape(proj("attn_q", H * D, c.tp), { T, H, D }), pos, rope_attrs)
  local k = rope(reshape(proj("attn_k", KVH * D, r.kv_parts), { T, KVH, D }), pos, rope_attrs)
  local v = reshape(proj("attn_v", KVH * D, r.kv_parts), { T, KVH, D })
  local a
  a, kc, vc = attend(c, cl, q, k, v, pos, kv, kc, vc)
  local wo = layer_weight(c, l, "attn_output", f.attn_output, { E, H * D }, 2, c.tp)
  x = combine(c, x, matmul(reshape(a, { T, H * D }), wo, c.mm))
  local h2 = rmsnorm(x, layer_weight(c, l, "ffn_norm", c.norms, { E }),
    { eps = c.norm_eps, split = c.split_norms == "all" })
  local g = matmul(h2, layer_weight(c, l, "ffn_gate", f.ffn_gate, { r.ffn, E }, 1, c.tp), c.mm)
  local u = matmul(h2, layer_weight(c, l, "ffn_up", f.ffn_up, { r.ffn, E }, 1, c.tp), c.mm)
  local wd = layer_weight(c, l, "ffn_down", f.ffn_down, { E, r.ffn }, 2, c.tp)
  x = combine(c, x, matmul(silu(g) * u, wd, c.mm))
  return x, kc, vc
end

--- Declares the whole model (inputs, state, weights, outputs) from a config.
function M.build(cfg)
  local c = M.config(cfg)
  if c.tp > 1 then ranks(c.tp) end
  if c.pp > 1 then ranks(c.pp) end
  local last_rank = c.pp - 1
  local function stage(l) return l * c.pp // c.layers end
  -- fn's ops on pipeline rank r (a whole or tensor-parallel model: everywhere)
  local function place(r, fn)
    if c.pp == 1 then return fn() end
    return on_rank(r, fn)
  end
  local T = sym("T", c.max_tokens)
  local tokens, pos, last, seed, params, kv
  if c.batch then
    local B, Q = sym("B", c.batch.sequences), sym("Q", c.max_tokens)
    local D = sym("D", math.min(c.max_tokens, c.batch.sequences), { count = true })
    tokens = input("tokens", i32, { T })
    pos = input("pos", i32, { T })
    local seq = input("seq", i32, { T })
    local ctx = input("ctx", i32, { B })
    local blocks = input("blocks", i32, { B, c.context // c.batch.block_size })
    last = input("last", i32, { B })
    seed = input("seed", i32, { B })
    params = input("params", f32, { B, 4 })
    kv = { paged = { seq = seq, ctx = ctx, blocks = blocks, Q = Q, D = D,
      slots = kv_slots(pos, seq, blocks, { block_size = c.batch.block_size }) } }
  else
    kv = { S = sym("S", c.context) }
    tokens = input("tokens", i32, { T })
    pos = input("pos", i32, { T })
    last = input("last", i32, { 1 })
    seed = input("seed", i32, { 1 })
    params = input("params", f32, { 1, 4 })
  end
  -- the KV cache: one for the whole model, or each pipeline stage its own
  local kcs, vcs, first = {}, {}, {}
  for l = c.layers - 1, 0, -1 do first[stage(l)] = l end
  for s = 0, c.pp - 1 do
    local n = (s + 1 < c.pp and first[s + 1] or c.layers) - first[s]
    local slots = c.batch and c.batch.blocks * c.batch.block_size or c.context
    local cache = { n, rank_sizes(c).kv_heads, slots, c.head_dim }
    local suffix = c.pp > 1 and "_" .. s or ""
    kcs[s] = input("k_cache" .. suffix, c.dtype, cache)
    vcs[s] = input("v_cache" .. suffix, c.dtype, cache)
  end
  -- split by vocab rows: the rank's rows (the whole when tp is 1)
  local vocab_split = c.tp > 1 and c.vocab % c.tp == 0
  local embd = vocab_split
      and weight("token_embd_weight", c.formats.token_embd, { c.vocab // c.tp, c.hidden },
        { split = 1 })
      or weight("token_embd_weight", c.formats.token_embd, { c.vocab, c.hidden })
  local x = place(0, function()
    local e
    if c.formats.token_embd.quant then -- rows dequantized into the activations' dtype
      e = embedding(embd, tokens, { dtype = c.dtype })
    else
      e = embedding(embd, tokens)
      if c.formats.token_embd ~= c.dtype then e = cast(e, c.dtype) end
    end
    -- each id's row is on one rank, zeros on the others: the sum is exact
    if vocab_split then e = all_reduce(e) end
    return e
  end)
  for l = 0, c.layers - 1 do
    local s = stage(l)
    x, kcs[s], vcs[s] = place(s, function()
      return layer(c, l, l - first[s], x, pos, kv, kcs[s], vcs[s])
    end)
  end
  local logits = place(last_rank, function()
    local h = embedding(x, last) -- [1, E] (a batch: [B, E]): the rows whose next token is wanted
    h = rmsnorm(h, weight("output_norm_weight", c.norms, { c.hidden }), { eps = c.norm_eps })
    local head = embd
    if not c.tied_embeddings then
      head = vocab_split
          and weight("output_weight", c.formats.output, { c.vocab // c.tp, c.hidden },
            { split = 1 })
          or weight("output_weight", c.formats.output, { c.vocab, c.hidden })
    end
    local logits = cast(matmul(h, head, c.mm), f32)
    -- this rank's rows of the vocabulary: their logits gathered into [1, vocab]
    if vocab_split then logits = all_gather(logits, { dim = 2 }) end
    return logits
  end)
  output("logits", logits)
  -- i32 has no arithmetic of its own: pos + 1 through f32 (exact below 2^24)
  local rows = c.batch and last.shape[1] or 1
  local p = reshape(embedding(reshape(cast(pos, f32), { T, 1 }), last), { rows })
  local next_pos = cast(affine(p, { mul = 1, add = 1 }), i32)
  -- each sequence's draw: Philox of its seed at the drawn token's position
  output("next_token", sample(logits, seed, params, next_pos))
  if c.batch then
    output("next_ctx", cast(affine(cast(kv.paged.ctx, f32), { mul = 1, add = 1 }), i32))
  end
  output("next_pos", next_pos)
  return c
end

return setmetatable(M, { __call = function(_, cfg) return M.build(cfg) end })
