-- exhaustion: each compiler kgen runs as a child has a wall-clock, CPU and
-- memory cap; past it the compiler (and what it started) is killed, and
-- nothing is left in $TMPDIR.
-- RUN: rm -rf %t && mkdir -p %t/tmp
-- RUN: env TMPDIR=%t/tmp timeout 30 %kgen --arch gfx1100 --no-cache --compiler=clang --max-compile-seconds=1 %s -o %t/out > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t/out && test $(wc -l < %t.log) -eq 1 && test -z "$(ls -A %t/tmp)"
-- RUN: FileCheck %s < %t.log
-- CHECK: kgen: error: {{.*}}clang{{.*}} ran past the compile limit of 1 s (raise it with --max-compile-seconds)
local x = input("x", f32, { 4 })
for i = 1, 120 do output("y" .. i, x * (i + 0.5)) end
