-- exhaustion: a pathological pattern never returns to the VM; the watchdog
-- stops it within the default wall-clock cap (4 s, 0.5 s grace).
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local s = string.rep("a", 5000)
-- CHECK: pattern.lua:[[@LINE+1]]: error: wall-clock limit of 4 s exceeded (raise it with --max-seconds)
local found = s:find(".-.-.-.-.-.-.-.-.-.-b")
