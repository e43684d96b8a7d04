-- exhaustion: comgr runs in process, so kgen runs it in a child process of
-- its own under the same caps as clang: past the time cap it is killed, the
-- build fails with one line, and nothing is left in $TMPDIR.
-- RUN: rm -rf %t && mkdir -p %t/tmp
-- RUN: env TMPDIR=%t/tmp timeout 30 %kgen --arch gfx90a --no-cache --no-sim --compiler=comgr --max-compile-seconds=1 %s -o %t/out > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t/out && test $(wc -l < %t.log) -eq 1 && test -z "$(ls -A %t/tmp)"
-- RUN: FileCheck %s < %t.log
-- CHECK: kgen: error: comgr {{[0-9.]+}} ran past the compile limit of 1 s (raise it with --max-compile-seconds)
local x = input("x", f32, { 4 })
for i = 1, 160 do output("y" .. i, x * (i + 0.5)) end
