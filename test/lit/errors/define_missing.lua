-- define(NAME) with no default needs kgen --define NAME=VALUE.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: define_missing.lua:[[@LINE+1]]: error: define size: not given (kgen --define size=VALUE)
local n = define("size")
output("y", exp(input("x", f32, { 4, 64 })))
