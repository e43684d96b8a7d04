-- ISA: row kernels synchronise with s_barrier, use ds_bpermute for the wave
-- reduction, and never touch scratch.
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s
-- CHECK-LABEL: isa_barrier_softmax_{{[0-9a-f]+}}:
-- CHECK: ds_bpermute_b32
-- CHECK: s_barrier
-- CHECK: s_endpgm
-- CHECK-NOT: scratch_
-- CHECK-NOT: buffer_store_dword {{.*}} offen
-- CHECK: .private_segment_fixed_size: 0
local x = input("x", bf16, { 3, 2048 })
output("p", softmax(x))
