-- a SIGTERM while the compilers run kills them and removes kgen's temporary
-- folders (and what the compilers had put in them). 200 kernels: about 3 s
-- of compiling alone on 2 cores, so the signal comes while they run.
-- RUN: rm -rf %t && mkdir -p %t/tmp
-- RUN: env TMPDIR=%t/tmp %kgen --arch gfx1100 --no-cache --compiler=clang %s -o %t/out > /dev/null 2>&1 & pid=$!; sleep 1.5; kill -TERM $pid; wait $pid; test $? -ne 0 -o ! -e %t/out
-- RUN: sleep 0.5; test -z "$(ls -A %t/tmp)"
-- RUN: test ! -e %t/out
local x = input("x", f32, { 4 })
for i = 1, 200 do output("y" .. i, x * (i + 0.5)) end
