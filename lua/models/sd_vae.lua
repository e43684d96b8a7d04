-- models/sd_vae.lua: the VAE decoder of Stable Diffusion (diffusers'
-- AutoencoderKL: post_quant_conv, then Decoder), latents [1, C, h, w] to an
-- image [1, 3, 8h, 8w] (SD 1.x and 2.x, whose VAEs share this layout): a
-- 3x3 conv in; a mid block of a ResNet block, a one-head attention over the
-- h w positions and another ResNet block; up blocks of layers + 1 ResNet
-- blocks, each but the last ending in a nearest 2x upsample and a 3x3 conv;
-- GroupNorm, SiLU and a 3x3 conv out. A ResNet block is GroupNorm, SiLU,
-- 3x3 conv, GroupNorm, SiLU, 3x3 conv, plus x (through a 1x1 conv where the
-- channels change).
--
--   local vae = require "models.sd_vae"
--   vae { dtype = f16, height = 64, width = 64 }      -- 512 x 512 pixels
--
-- Input: latent [1, latent_channels, height, width] (scaled = true: the
-- diffusion's latents, divided by scaling_factor here, as pipelines do
-- before decode). Output: image [1, 3, 2^(blocks - 1) height, ...], about
-- -1 .. 1 (a product maps it to pixels). One image a run. Weights are named
-- as a diffusers pipeline's vae/diffusion_pytorch_model.safetensors names
-- them, with '_' for '.' (decoder_up_blocks_0_resnets_0_norm1_weight,
-- decoder_mid_block_attentions_0_to_q_weight, post_quant_conv_bias, ...).
-- The attention's one head is as wide as the channels (512 in SD's VAE,
-- past the attention op's head dims): its scores are a matmul, a softmax
-- and a matmul over the positions.
local M = {}

local K = require("models.config")("models.sd_vae")
local fail, int_key = K.fail, K.int

--- The config with its defaults (SD 1.5's VAE at 512 x 512), checked.
function M.config(cfg)
  K.table(cfg, { "latent_channels", "blocks", "layers", "groups", "eps", "height", "width",
    "scaled", "scaling_factor", "dtype", "out_channels" })
  local c = {
    latent_channels = int_key(cfg, "latent_channels", 4),
    out_channels = int_key(cfg, "out_channels", 3),
    layers = int_key(cfg, "layers", 2),
    groups = int_key(cfg, "groups", 32),
    height = int_key(cfg, "height", 64),
    width = int_key(cfg, "width", 64),
    eps = K.positive(cfg, "eps", 1e-6),
    scaled = cfg.scaled == nil and true or cfg.scaled,
    scaling_factor = K.positive(cfg, "scaling_factor", 0.18215),
    dtype = cfg.dtype or f16,
    blocks = cfg.blocks or { 128, 256, 512, 512 },
  }
  if type(c.blocks) ~= "table" or #c.blocks == 0 then
    fail("config blocks must be a non-empty list of channel counts, got %s",
      type(c.blocks) == "table" and "an empty list" or tostring(c.blocks))
  end
  for i, ch in ipairs(c.blocks) do
    if math.type(ch) ~= "integer" or ch < 1 or ch % c.groups ~= 0 then
      fail("config blocks[%d] = %s must be a positive multiple of groups %d", i, tostring(ch),
        c.groups)
    end
  end
  if type(c.scaled) ~= "boolean" then
    fail("config scaled must be true or false, got %s", tostring(c.scaled))
  end
  return c
end

local function w(c, name, shape)
  return weight(name, c.dtype, shape)
end

-- A conv with bias, k x k (padding k // 2: the size kept).
local function conv(c, x, name, cin, cout, k)
  return conv2d(x, w(c, name .. "_weight", { cout, cin, k, k }), w(c, name .. "_bias", { cout }),
    { padding = k // 2 })
end

local function norm(c, x, name, ch)
  return groupnorm(x, w(c, name .. "_weight", { ch }), w(c, name .. "_bias", { ch }),
    { groups = c.groups, eps = c.eps })
end

local function resnet(c, x, name, cin, cout)
  local h = conv(c, silu(norm(c, x, name .. "_norm1", cin)), name .. "_conv1", cin, cout, 3)
  h = conv(c, silu(norm(c, h, name .. "_norm2", cout)), name .. "_conv2", cout, cout, 3)
  if cin ~= cout then x = conv(c, x, name .. "_conv_shortcut", cin, cout, 1) end
  return x + h
end

-- One head over the hh x ww positions, as wide as the ch channels.
local function attention_block(c, x, name, ch, hh, ww)
  local n = hh * ww
  local t = transpose(reshape(norm(c, x, name .. "_group_norm", ch), { ch, n })) -- [n, ch]
  local function linear(kind, y)
    return matmul(y, w(c, name .. "_" .. kind .. "_weight", { ch, ch }))
      + w(c, name .. "_" .. kind .. "_bias", { ch })
  end
  local q, k, v = linear("to_q", t), linear("to_k", t), linear("to_v", t)
  local p = softmax(matmul(q, k), { scale = 1 / math.sqrt(ch) }) -- [n, n]
  local o = linear("to_out_0", matmul(p, v, { w_layout = "kn" })) -- [n, ch]
  return x + reshape(transpose(o), { 1, ch, hh, ww })
end

--- Declares the decoder (input, weights, output) from a config.
function M.build(cfg)
  local c = M.config(cfg)
  local lc, top = c.latent_channels, c.blocks[#c.blocks]
  local hh, ww = c.height, c.width
  local z = input("latent", c.dtype, { 1, lc, hh, ww })
  if c.scaled then z = scale(z, 1 / c.scaling_factor) end
  z = conv(c, z, "post_quant_conv", lc, lc, 1)
  local x = conv(c, z, "decoder_conv_in", lc, top, 3)
  x = resnet(c, x, "decoder_mid_block_resnets_0", top, top)
  x = attention_block(c, x, "decoder_mid_block_attentions_0", top, hh, ww)
  x = resnet(c, x, "decoder_mid_block_resnets_1", top, top)
  local cin = top
  for i = 0, #c.blocks - 1 do
    local ch = c.blocks[#c.blocks - i]
    local p = string.format("decoder_up_blocks_%d_", i)
    for j = 0, c.layers do
      x = resnet(c, x, p .. "resnets_" .. j, cin, ch)
      cin = ch
    end
    if i < #c.blocks - 1 then
      x = conv(c, upsample(x), p .. "upsamplers_0_conv", ch, ch, 3)
    end
  end
  local bottom = c.blocks[1]
  x = conv(c, silu(norm(c, x, "decoder_conv_norm_out", bottom)), "decoder_conv_out", bottom,
    c.out_channels, 3)
  output("image", x)
  return c
end

return setmetatable(M, { __call = function(_, cfg) return M.build(cfg) end })
