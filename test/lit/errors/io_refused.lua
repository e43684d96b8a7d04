-- io is not reachable from a model.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: io_refused.lua:[[@LINE+1]]: error: io is not an op or a global (kgen --list-ops lists the ops)
local f = io.open("/etc/passwd")
