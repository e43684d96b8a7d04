-- a row shorter than a wave gets one wave per row (BLOCK = WAVE).
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=W32
-- RUN: %kgen --arch gfx942 --emit=table %s -o - | FileCheck %s --check-prefix=W64
-- W32: {"softmax_small_softmax_{{[0-9a-f]+}}", 32,
-- W64: {"softmax_small_softmax_{{[0-9a-f]+}}", 64,
local x = input("x", f16, { 3, 24 })
output("p", softmax(x))
