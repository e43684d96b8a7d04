-- exhaustion: the memory cap covers the process, not just the bytes Lua
-- asks for. A model of many small strings (32 heap bytes for each 4 Lua
-- counts) peaked at 324 MiB resident under the default cap of 256 MiB;
-- now every block is charged what malloc made of it and the Lua heap gets
-- the cap less what kgen holds, so the process stays under 256 MiB. The
-- wall-clock cap is raised: under ASan on a loaded machine this model
-- reached the default 4 s before the memory cap.
-- RUN: rm -rf %t; timeout 60 %peak_rss 256 %kgen --arch gfx1100 --max-seconds=30 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: memory_small_blocks.lua:[[@LINE+3]]: error: memory limit of 256 MiB exceeded
keep = {}
local i = 0
while true do i = i + 1; keep[i] = tostring(i) end
