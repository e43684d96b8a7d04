-- a model named kgrt_table.lua builds: kgen writes kgrt_table.h (the ABI
-- header) beside the model's, so the model's files are kgrt_table_model.*.
-- RUN: rm -rf %t && mkdir -p %t && cp %s %t/kgrt_table.lua
-- RUN: %kgen --arch gfx1100 %t/kgrt_table.lua -o %t/out > /dev/null
-- RUN: ls %t/out | FileCheck %s
-- RUN: grep -q KGRT_TABLE_ABI %t/out/kgrt_table.h
-- RUN: cc -std=c11 -Wall -Wextra -Werror -c %t/out/kgrt_table_model.c -o %t/model.o
-- CHECK: kgrt_table.h
-- CHECK-NEXT: kgrt_table_model.c
-- CHECK-NEXT: kgrt_table_model.h
local x = input("x", f32, { 4 })
output("y", x * 2.0)
