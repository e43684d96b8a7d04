-- a module that requires itself (directly or round a loop) is one clean
-- line at the require that closes the loop, not a C stack overflow.
-- RUN: rm -rf %t && mkdir -p %t && printf 'return require("b")\n' > %t/a.lua
-- RUN: printf 'local a = require("a")\nreturn 1\n' > %t/b.lua
-- RUN: cp %s %t/m.lua
-- RUN: timeout 5 %kgen --arch gfx1100 %t/m.lua -o %t/o > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t/o && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: b.lua:1: error: require: module 'a' is required again while it loads (a require loop){{$}}
local ok = pcall(require, "a") -- the loop's error, caught; a is not marked loaded
local a = require("a")
