-- rope: Llama 3.1 scaling needs its four numbers, high above low.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 2, 64 })
local pos = input("pos", i32, { 4 })
-- CHECK: rope_scaling.lua:[[@LINE+1]]: error: rope: attribute scaling needs high_freq_factor > low_freq_factor, got a table
output("y", rope(x, pos, { scaling = { factor = 8, low_freq_factor = 4, high_freq_factor = 1, original_context = 8192 } }))
