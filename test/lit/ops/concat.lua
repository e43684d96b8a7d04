-- concat: a [N, 3, 10] and b [N, 5, 10] joined along dim 2 (a UNet's skip
-- connection in NCHW); one thread an element of y, the n of them N * 80;
-- no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK: __launch_bounds__(256)
-- CHECK-NEXT: concat_concat_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) a, KG_GLOBAL(const kg_f16) b, KG_GLOBAL(kg_f16) y, long n)
-- CHECK: const long o = i / (30 + 50), j = i % (30 + 50);
-- CHECK: kg_st(y, i, j < 30 ? kg_ld(a, o * 30 + j) : kg_ld(b, o * 50 + j - 30));
-- the grid: N * 80 elements, 256 a workgroup
-- TABLE-LABEL: static const kgrt_step_t steps[1] = {
-- TABLE-NEXT: {0, {80, {0, -1, -1, -1}}, 256, 1,
-- META: .name: concat_concat_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local N = sym("N", 4)
local a = input("a", f16, { N, 3, 10 })
local b = input("b", f16, { N, 5, 10 })
output("y", concat(a, b, { dim = 2 }))
