-- countsketch: buckets from kg_hash32 keyed by the seed, summed from LDS tiles
-- in index order (no atomics); no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK: KG_INLINE unsigned kg_hash32(unsigned v)
-- CHECK-LABEL: countsketch_countsketch_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(kg_bf16) y)
-- CHECK: const unsigned key = kg_hash32(42u);
-- CHECK: hs[j] = v % 256u;
-- CHECK-NOT: atomic
-- META: .name: countsketch_countsketch_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 8)
local x = input("x", bf16, { T, 4096 })
output("s", countsketch(x, { width = 256, seed = 42 }))
