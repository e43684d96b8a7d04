-- a block the target cannot take is refused at the model's line with the
-- rule it breaks (wave32: at most 32 waves of 32, 1024 threads), on every
-- target of the build.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=W32 < %t.log
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx942,gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=W64 < %t.log
local x = input("x", f16, { 2, 4096 })
local w = weight("w", f16, { 4096 })
-- W32: rmsnorm_block_target.lua:[[@LINE+2]]: error: rmsnorm: attribute block must be at most gfx1100's max_block (1024), got 2048
-- W64: rmsnorm_block_target.lua:[[@LINE+1]]: error: rmsnorm: attribute block must be at most gfx942's max_block (1024), got 2048
output("y", rmsnorm(x, w, { block = 2048 }))
