-- attention on every NVIDIA target, at head dims 64 to 256, f16, bf16 and f32
-- (FMA), multi-, grouped- and multi-query (8/8, 32/8, 4/1, 8/2): the
-- target's tiles shrink until their accumulators fit two thirds of the
-- registers and their tiles the LDS, so no kernel, prefill or decode, uses
-- scratch (the decode's last workgroup adds the splits a chunk at a time).
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_80 --emit=meta %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90 --emit=meta %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90a --emit=meta %s -o - | FileCheck %s
-- CHECK-NOT: .stack_bytes: {{[1-9]}}
-- CHECK-COUNT-10: .stack_bytes: 0
-- CHECK-NOT: .stack_bytes: {{[1-9]}}
local T = sym("T", 512)
local S = sym("S", 2048)
for _, c in ipairs({ { f16, 64, 8, 8 }, { bf16, 128, 32, 8 }, { f16, 256, 4, 1 },
  { f32, 128, 8, 2 }, { bf16, 96, 8, 2 } }) do
  local dt, d, h, kvh = c[1], c[2], c[3], c[4]
  local q = input("q" .. d .. dt.name, dt, { T, h, d })
  local k = input("k" .. d .. dt.name, dt, { S, kvh, d })
  local v = input("v" .. d .. dt.name, dt, { S, kvh, d })
  output("y" .. d .. dt.name, attention(q, k, v, { causal = true }))
end
