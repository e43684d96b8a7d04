-- a name past 128 bytes is refused at the model's line (kgen's C takes
-- names of at most 128 bytes).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: name_length.lua:[[@LINE+1]]: error: input xxxxxxxxxxxxxxxx...: the name is 129 bytes, more than 128
local x = input(string.rep("x", 129), f32, { 4 })
