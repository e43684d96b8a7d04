-- weights_file(NAME) reads the file --define NAME=PATH gives with kgrt's
-- checked reader: this Lua file is neither GGUF nor safetensors.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define weights=%s %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- RUN: rm -rf %t; not %kgen --arch gfx1100 %s -o %t 2>&1 | FileCheck %s --check-prefix=ABSENT
-- CHECK: weights_file_bad.lua:[[@LINE+2]]: error: weights_file weights: {{.+}}
-- ABSENT: weights_file_bad.lua:[[@LINE+1]]: error: weights_file weights: not given (kgen --define weights=PATH)
local info = weights_file("weights")
output("y", exp(input("x", f32, { 4, 64 })))
