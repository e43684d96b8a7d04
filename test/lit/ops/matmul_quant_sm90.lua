-- matmul with q4_0 weights on sm_90 (the bench size, bf16 x of one row): the
-- weights arrive as 16-bit units, so every 128-bit load is 4 words as they
-- are (no per-byte shuffles before the shared-memory store). ptxas spills one
-- 8-byte value (the same at any register cap); nothing larger may appear.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90 --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: .entry matmul_quant_sm90_0_matmul(
-- CHECK-NOT: ld.global.nc.u8
-- CHECK-COUNT-3: ld.global.nc.v4.u32
-- CHECK-NOT: cvt.u32.u8
-- CHECK: st.shared.u32
-- CHECK: bar.sync
-- META: .name: matmul_quant_sm90_0_matmul
-- META: .shared_bytes: 9220
-- META-NEXT: .stack_bytes: {{[0-8]$}}
local x = input("x", bf16, { 1, 4096 })
local w = weight("w", q4_0, { 14336, 4096 })
output("y", matmul(x, w))
