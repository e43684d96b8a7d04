-- models/clip.lua: the CLIP text encoder of Stable Diffusion 1.x (OpenAI's
-- ViT-L/14 text tower; SD 2.x's OpenCLIP ViT-H with act = "gelu" and
-- skip = 1), as Hugging Face's CLIPTextModel computes last_hidden_state:
-- token + position embeddings, pre-LayerNorm transformer layers with causal
-- self-attention and a two-layer MLP, then the final LayerNorm.
--
--   local clip = require "models.clip"
--   clip { dtype = f16 }                     -- SD 1.5's text encoder
--
-- Inputs: tokens i32 [T] and pos i32 [T] (position ids, 0 .. T - 1 for one
-- prompt), T a sym up to `positions`. Output: hidden [T, hidden]. The
-- weights and activations are in `dtype` (f32, f16 or bf16).
-- Weights are named as the safetensors file of a diffusers pipeline's
-- text_encoder names them, with '_' for '.' (kgrt binds file names so):
-- text_model_embeddings_token_embedding_weight [vocab, hidden],
-- text_model_embeddings_position_embedding_weight [positions, hidden],
-- text_model_encoder_layers_N_{layer_norm1,layer_norm2}_{weight,bias},
-- text_model_encoder_layers_N_self_attn_{q,k,v,out}_proj_{weight,bias},
-- text_model_encoder_layers_N_mlp_{fc1,fc2}_{weight,bias},
-- text_model_final_layer_norm_{weight,bias}.
local M = {}

local K = require("models.config")("models.clip")
local fail, int_key = K.fail, K.int

local ACTS = { quick_gelu = true, gelu = true }

--- The config with its defaults (SD 1.5's text encoder), checked.
function M.config(cfg)
  K.table(cfg, { "vocab", "hidden", "layers", "heads", "ffn", "positions", "eps", "act", "skip",
    "dtype" })
  local c = {
    vocab = int_key(cfg, "vocab", 49408),
    hidden = int_key(cfg, "hidden", 768),
    layers = int_key(cfg, "layers", 12),
    heads = int_key(cfg, "heads", 12),
    ffn = int_key(cfg, "ffn", 3072),
    positions = int_key(cfg, "positions", 77),
    eps = K.positive(cfg, "eps", 1e-5),
    act = cfg.act or "quick_gelu",
    skip = cfg.skip or 0,
    dtype = cfg.dtype or f16,
  }
  if not ACTS[c.act] then
    fail("config act must be \"quick_gelu\" or \"gelu\", got %s", tostring(c.act))
  end
  if math.type(c.skip) ~= "integer" or c.skip < 0 or c.skip >= c.layers then
    fail("config skip (final layers left out) must be an integer 0 .. layers - 1, got %s",
      tostring(c.skip))
  end
  if c.hidden % c.heads ~= 0 then
    fail("config hidden %d is not a multiple of heads %d", c.hidden, c.heads)
  end
  c.head_dim = c.hidden // c.heads
  return c
end

-- A weight of the text model, named as the file names it.
local function w(c, name, shape)
  return weight("text_model_" .. name, c.dtype, shape)
end

-- A linear layer with bias: x [T, in] . W [out, in]^T + b.
local function linear(c, x, name, n_out, n_in)
  local y = matmul(x, w(c, name .. "_weight", { n_out, n_in }))
  return y + w(c, name .. "_bias", { n_out })
end

local function norm(c, x, name)
  return layernorm(x, w(c, name .. "_weight", { c.hidden }), w(c, name .. "_bias", { c.hidden }),
    { eps = c.eps })
end

-- quick_gelu: x * sigmoid(1.702 x), CLIP's own; gelu: the exact (erf) form.
local function act(c, x)
  if c.act == "gelu" then return gelu_erf(x) end
  return x * sigmoid(scale(x, 1.702))
end

local function layer(c, l, x)
  local T = x.shape[1]
  local E, H, D = c.hidden, c.heads, c.head_dim
  local p = string.format("encoder_layers_%d_", l)
  local h = norm(c, x, p .. "layer_norm1")
  local q = reshape(linear(c, h, p .. "self_attn_q_proj", E, E), { T, H, D })
  local k = reshape(linear(c, h, p .. "self_attn_k_proj", E, E), { T, H, D })
  local v = reshape(linear(c, h, p .. "self_attn_v_proj", E, E), { T, H, D })
  local a = attention(q, k, v, { causal = true })
  x = x + linear(c, reshape(a, { T, E }), p .. "self_attn_out_proj", E, E)
  h = norm(c, x, p .. "layer_norm2")
  local f = act(c, linear(c, h, p .. "mlp_fc1", c.ffn, E))
  return x + linear(c, f, p .. "mlp_fc2", E, c.ffn)
end

--- Declares the text encoder (inputs, weights, the output) from a config.
function M.build(cfg)
  local c = M.config(cfg)
  local T = sym("T", c.positions)
  local tokens = input("tokens", i32, { T })
  local pos = input("pos", i32, { T })
  local te = embedding(w(c, "embeddings_token_embedding_weight", { c.vocab, c.hidden }), tokens)
  local pe = embedding(w(c, "embeddings_position_embedding_weight", { c.positions, c.hidden }), pos)
  local x = te + pe
  for l = 0, c.layers - 1 - c.skip do
    x = layer(c, l, x)
  end
  output("hidden", norm(c, x, "final_layer_norm"))
  return c
end

return setmetatable(M, { __call = function(_, cfg) return M.build(cfg) end })
