-- srht: signs and the output permutation from kg_hash32 keyed by the seed, the
-- Walsh-Hadamard transform in LDS (the whole 16384-point row on gfx: 64 KiB,
-- one piece); no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK: KG_INLINE unsigned kg_hash32(unsigned v)
-- CHECK-LABEL: srht_srht_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(kg_bf16) y)
-- CHECK: constexpr int PIECES = 1;
-- CHECK: constexpr int PIECE = 1024 / PIECES;
-- CHECK: const unsigned key = kg_hash32(42u);
-- CHECK: v = ((v ^ kt) * (kt | 1u)) & (1024u - 1u);
-- CHECK: v ^= v >> 6;
-- CHECK: kg_st(y, (long)blockIdx.x * 256 + k,
-- CHECK: buf[v % PIECE] * 0.0625f
-- CHECK-LABEL: srht_srht_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(float) y)
-- CHECK: constexpr int PIECES = 1;
-- CHECK: constexpr int PIECE = 16384 / PIECES;
-- CHECK-NOT: atomic
-- META: .group_segment_fixed_size: 4096
-- META: .name: srht_srht_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .group_segment_fixed_size: 65536
-- META: .name: srht_srht_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 8)
local x = input("x", bf16, { T, 1000 })
output("s", srht(x, { out = 256, seed = 42 }))
local z = input("z", f32, { T, 16384 })
output("w", srht(z, { out = 1 }))
