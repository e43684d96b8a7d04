-- srht on sm_90: 48 KiB of static shared memory holds 8192 floats, so a
-- 16384-point row is transformed as two pieces (32 KiB of shared memory).
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: srht_sm90_srht_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: constexpr int PIECES = 2;
-- CHECK: constexpr int PIECE = 16384 / PIECES;
-- META: .name: srht_sm90_srht_{{[0-9a-f]+}}
-- META: .shared_bytes: 32768
-- META-NEXT: .stack_bytes: 0
local T = sym("T", 8)
local x = input("x", f16, { T, 10000 })
output("s", srht(x, { out = 512, seed = 1 }))
