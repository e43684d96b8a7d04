-- a chunk a model loads cannot claim another file's name ("@/etc/passwd")
-- or kgen's own ("=kgen:lua/..."): its errors point at the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- RUN: sed 's/^local f = load(.*/local f = load("local x = nil; return x.y", "=kgen:lua\/kgen.lua")/' %s > %t.lib.lua
-- RUN: not %kgen --arch gfx1100 %t.lib.lua 2>&1 | FileCheck %s --check-prefix=LIB
-- CHECK: load_chunkname.lua:[[@LINE+4]]: error: boom
-- CHECK-NOT: passwd
-- LIB: lib.lua:[[@LINE+2]]: error: attempt to index a nil value (local 'x')
local f = load("error('boom')", "@/etc/passwd")
f()
