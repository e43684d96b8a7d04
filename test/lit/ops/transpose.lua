-- transpose: x [..., R, C] -> [..., C, R], a 32 x 32 tile a workgroup
-- through LDS (33 columns), the leading dims (a sym here) as the grid's
-- units and the tiles of one matrix as its repeat; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK: __launch_bounds__(256)
-- CHECK-NEXT: transpose_transpose_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: __shared__ kg_f16 tile[32][32 + 1];
-- CHECK: const long base = bid / 8 * (40L * 100L);
-- CHECK: const int r0 = t / 4 * 32, c0 = t % 4 * 32;
-- CHECK: tile[i][tx] = kg_ld(x, base + (long)(r0 + i) * 100 + c0 + tx);
-- CHECK: __syncthreads();
-- CHECK: kg_st(y, base + (long)(c0 + i) * 40 + r0 + tx, tile[tx][i]);
-- ASM-LABEL: transpose_transpose_{{[0-9a-f]+}}:
-- ASM: ds_{{write|store}}_b16
-- ASM: s_barrier
-- ASM: ds_{{read|load}}_u16
-- META: .group_segment_fixed_size: 2112
-- META: .name: transpose_transpose_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local N = sym("N", 4)
local x = input("x", f16, { N, 40, 100 })
output("y", transpose(x))
