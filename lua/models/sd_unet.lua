-- models/sd_unet.lua: the UNet of Stable Diffusion (diffusers'
-- UNet2DConditionModel as SD 1.x and 2.x configure it): one noise
-- prediction of latents [1, C, h, w] at a timestep, conditioned on the text
-- encoder's states [tokens, context].
--
--   local unet = require "models.sd_unet"
--   unet { dtype = f16 }                          -- SD 1.5 at 512 x 512
--   unet { dtype = f16, head_dim = 64, context = 1024, linear_proj = true }
--                                                 -- SD 2.x's options
--
-- Inputs: latent [1, latent_channels, height, width]; temb [1, blocks[1]],
-- the timestep's sinusoidal embedding as diffusers' get_timestep_embedding
-- makes it (flip_sin_to_cos, shift 0: cos(t f_i) then sin(t f_i), f_i =
-- 10000^(-i / half)), which the sampler's loop computes per step; text
-- [tokens, context]. Output: noise [1, latent_channels, height, width].
-- The layout: conv_in; down blocks (per level: `layers` ResNet blocks, each
-- followed by a transformer where the level has attention, and a stride-2
-- conv but at the last level), the mid block (ResNet, transformer, ResNet),
-- up blocks (per level: layers + 1 ResNet blocks over the feature map and a
-- skip from the down path joined along the channels, transformers where the
-- level has attention, a nearest 2x upsample and a conv but at the last),
-- GroupNorm, SiLU and conv_out. A ResNet block adds the projected time
-- embedding to its first conv's bias; a transformer is GroupNorm, a 1x1
-- conv (or a linear layer, linear_proj) into tokens, self-attention,
-- cross-attention to the text and a GEGLU feed-forward, each after a
-- LayerNorm and added back, and the projection out, added to its input.
-- Weights are named as a diffusers unet/diffusion_pytorch_model.safetensors
-- file names them, with '_' for '.'.
local M = {}

local K = require("models.config")("models.sd_unet")
local fail, int_key = K.fail, K.int

local function list_key(cfg, key, default, check, what)
  local v = cfg[key]
  if v == nil then return default end
  if type(v) ~= "table" or #v == 0 then
    fail("config %s must be a non-empty list of %s", key, what)
  end
  for i, x in ipairs(v) do
    if not check(x) then fail("config %s[%d] must be %s, got %s", key, i, what, tostring(x)) end
  end
  return v
end

--- The config with its defaults (SD 1.5's UNet at 512 x 512), checked.
function M.config(cfg)
  K.table(cfg, { "latent_channels", "blocks", "attention", "layers", "groups", "eps", "heads",
    "head_dim", "context", "tokens", "linear_proj", "height", "width", "dtype", "temb_dim" })
  local c = {
    latent_channels = int_key(cfg, "latent_channels", 4),
    layers = int_key(cfg, "layers", 2),
    groups = int_key(cfg, "groups", 32),
    context = int_key(cfg, "context", 768),
    tokens = int_key(cfg, "tokens", 77),
    height = int_key(cfg, "height", 64),
    width = int_key(cfg, "width", 64),
    eps = K.positive(cfg, "eps", 1e-5),
    linear_proj = cfg.linear_proj or false,
    dtype = cfg.dtype or f16,
  }
  c.blocks = list_key(cfg, "blocks", { 320, 640, 1280, 1280 }, function(x)
    return math.type(x) == "integer" and x >= 1 and x % c.groups == 0
  end, "positive multiples of groups")
  c.attention = list_key(cfg, "attention", nil, function(x) return type(x) == "boolean" end,
    "true or false")
  if not c.attention then
    c.attention = {}
    for i = 1, #c.blocks do c.attention[i] = i < #c.blocks end
  end
  if #c.attention ~= #c.blocks then
    fail("config attention has %d entries, blocks %d", #c.attention, #c.blocks)
  end
  if cfg.heads and cfg.head_dim then fail("config gives heads and head_dim: give one") end
  c.heads, c.head_dim = cfg.heads, cfg.head_dim
  if not c.heads and not c.head_dim then c.heads = 8 end
  for i, ch in ipairs(c.blocks) do
    local h = c.heads or ch // c.head_dim
    if ch % h ~= 0 or (c.head_dim and ch % c.head_dim ~= 0) then
      fail("config blocks[%d] = %d channels do not split into %s", i, ch,
        c.heads and (c.heads .. " heads") or ("heads of " .. c.head_dim))
    end
  end
  c.temb_dim = int_key(cfg, "temb_dim", 4 * c.blocks[1])
  if type(c.linear_proj) ~= "boolean" then
    fail("config linear_proj must be true or false, got %s", tostring(c.linear_proj))
  end
  local down = 1 << (#c.blocks - 1)
  if c.height % down ~= 0 or c.width % down ~= 0 then
    fail("config height %d and width %d must be multiples of %d (the levels halve them)",
      c.height, c.width, down)
  end
  return c
end

local function w(c, name, shape)
  return weight(name, c.dtype, shape)
end

local function linear(c, x, name, n_out, n_in, bias)
  local y = matmul(x, w(c, name .. "_weight", { n_out, n_in }))
  if bias then y = y + w(c, name .. "_bias", { n_out }) end
  return y
end

-- A k x k conv (padding k // 2 at stride 1; stride 2: the size halved);
-- `bias` given: in place of the conv's own (the time embedding added).
local function conv(c, x, name, cin, cout, k, stride, bias)
  return conv2d(x, w(c, name .. "_weight", { cout, cin, k, k }),
    bias or w(c, name .. "_bias", { cout }), { padding = k // 2, stride = stride or 1 })
end

local function norm(c, x, name, ch, eps)
  return groupnorm(x, w(c, name .. "_weight", { ch }), w(c, name .. "_bias", { ch }),
    { groups = c.groups, eps = eps or c.eps })
end

-- t: silu(time embedding) [1, temb_dim].
local function resnet(c, x, t, name, cin, cout)
  local tp = linear(c, t, name .. "_time_emb_proj", cout, c.temb_dim, true) -- [1, cout]
  local b1 = w(c, name .. "_conv1_bias", { cout }) + reshape(tp, { cout })
  local h = conv(c, silu(norm(c, x, name .. "_norm1", cin)), name .. "_conv1", cin, cout, 3, 1, b1)
  h = conv(c, silu(norm(c, h, name .. "_norm2", cout)), name .. "_conv2", cout, cout, 3)
  if cin ~= cout then x = conv(c, x, name .. "_conv_shortcut", cin, cout, 1) end
  return x + h
end

local function layer_norm(c, x, name, ch)
  return layernorm(x, w(c, name .. "_weight", { ch }), w(c, name .. "_bias", { ch }))
end

-- Attention of tokens x [n, ch] over kv [s, kv_dim] (x for self-attention).
local function attend(c, x, kv, name, ch, kv_dim)
  local n, s = x.shape[1], kv.shape[1]
  local heads = c.heads or ch // c.head_dim
  local d = ch // heads
  local q = reshape(linear(c, x, name .. "_to_q", ch, ch), { n, heads, d })
  local k = reshape(linear(c, kv, name .. "_to_k", ch, kv_dim), { s, heads, d })
  local v = reshape(linear(c, kv, name .. "_to_v", ch, kv_dim), { s, heads, d })
  local a = reshape(attention(q, k, v), { n, ch })
  return linear(c, a, name .. "_to_out_0", ch, ch, true)
end

-- A Transformer2DModel of one block over x [1, ch, hh, ww].
local function transformer(c, x, text, name, ch, hh, ww)
  local n = hh * ww
  local h = norm(c, x, name .. "_norm", ch, 1e-6)
  local t
  if c.linear_proj then
    t = linear(c, transpose(reshape(h, { ch, n })), name .. "_proj_in", ch, ch, true)
  else
    t = transpose(reshape(conv(c, h, name .. "_proj_in", ch, ch, 1), { ch, n }))
  end
  local b = name .. "_transformer_blocks_0_"
  local n1 = layer_norm(c, t, b .. "norm1", ch)
  t = t + attend(c, n1, n1, b .. "attn1", ch, ch)
  t = t + attend(c, layer_norm(c, t, b .. "norm2", ch), text, b .. "attn2", ch, c.context)
  -- GEGLU: the projection's first half times GELU of its second (each half
  -- a matmul over a run of the weight's rows, and its half of the bias)
  local f = b .. "ff_net_0_proj"
  local value, gate = split(matmul(layer_norm(c, t, b .. "norm3", ch),
    w(c, f .. "_weight", { 8 * ch, ch })), { 4 * ch, 4 * ch })
  local bv, bg = split(w(c, f .. "_bias", { 8 * ch }), { 4 * ch, 4 * ch })
  t = t + linear(c, (value + bv) * gelu_erf(gate + bg), b .. "ff_net_2", ch, 4 * ch, true)
  local y
  if c.linear_proj then
    y = reshape(transpose(linear(c, t, name .. "_proj_out", ch, ch, true)), { 1, ch, hh, ww })
  else
    y = conv(c, reshape(transpose(t), { 1, ch, hh, ww }), name .. "_proj_out", ch, ch, 1)
  end
  return x + y
end

--- Declares the UNet (inputs, weights, the output) from a config.
function M.build(cfg)
  local c = M.config(cfg)
  local lc, b0, nb = c.latent_channels, c.blocks[1], #c.blocks
  local hh, ww = c.height, c.width
  local latent = input("latent", c.dtype, { 1, lc, hh, ww })
  local temb = input("temb", c.dtype, { 1, b0 })
  local text = input("text", c.dtype, { c.tokens, c.context })
  local t = linear(c, temb, "time_embedding_linear_1", c.temb_dim, b0, true)
  t = silu(linear(c, silu(t), "time_embedding_linear_2", c.temb_dim, c.temb_dim, true))
  local x = conv(c, latent, "conv_in", lc, b0, 3)
  local skips = { { x, b0 } }
  local cin = b0
  for i = 0, nb - 1 do
    local ch, p = c.blocks[i + 1], string.format("down_blocks_%d_", i)
    for j = 0, c.layers - 1 do
      x = resnet(c, x, t, p .. "resnets_" .. j, cin, ch)
      cin = ch
      if c.attention[i + 1] then x = transformer(c, x, text, p .. "attentions_" .. j, ch, hh, ww) end
      skips[#skips + 1] = { x, ch }
    end
    if i < nb - 1 then
      x = conv(c, x, p .. "downsamplers_0_conv", ch, ch, 3, 2)
      hh, ww = hh // 2, ww // 2
      skips[#skips + 1] = { x, ch }
    end
  end
  local top = c.blocks[nb]
  x = resnet(c, x, t, "mid_block_resnets_0", top, top)
  x = transformer(c, x, text, "mid_block_attentions_0", top, hh, ww)
  x = resnet(c, x, t, "mid_block_resnets_1", top, top)
  for i = 0, nb - 1 do
    local level = nb - i
    local ch, p = c.blocks[level], string.format("up_blocks_%d_", i)
    for j = 0, c.layers do
      local skip = table.remove(skips)
      x = resnet(c, concat(x, skip[1], { dim = 2 }), t, p .. "resnets_" .. j, cin + skip[2], ch)
      cin = ch
      if c.attention[level] then x = transformer(c, x, text, p .. "attentions_" .. j, ch, hh, ww) end
    end
    if i < nb - 1 then
      x = conv(c, upsample(x), p .. "upsamplers_0_conv", ch, ch, 3)
      hh, ww = hh * 2, ww * 2
    end
  end
  x = conv(c, silu(norm(c, x, "conv_norm_out", b0)), "conv_out", b0, lc, 3)
  output("noise", x)
  return c
end

return setmetatable(M, { __call = function(_, cfg) return M.build(cfg) end })
