-- rmsnorm's block attribute overrides the threads per row on both targets.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefix=W64
-- W32: __launch_bounds__(1024)
-- W32: kg_block_sum<32, 1024>(ss)
-- W64: __launch_bounds__(1024)
-- W64: kg_block_sum<64, 1024>(ss)
local x = input("x", bf16, { 8, 8192 })
output("y", rmsnorm(x, { block = 1024 }))
