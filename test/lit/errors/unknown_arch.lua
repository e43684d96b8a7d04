-- an unknown --arch lists the known targets.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1200 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: kgen: error: --arch gfx1200: unknown target (known: gfx1030, gfx1100, gfx90a, gfx942, sm_80, sm_90, sm_90a)
output("y", silu(input("x", f32, { 4 })))
