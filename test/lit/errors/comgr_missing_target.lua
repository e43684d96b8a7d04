-- comgr asked for a target its ISA list lacks: names the comgr version and what to do.
-- RUN: rm -rf %t; timeout 5 %kgen --compiler=comgr --arch gfx942 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: kgen: error: comgr {{[0-9.]+}} ({{.*}}) cannot compile for gfx942 {{.*}}use --compiler=clang
output("y", silu(input("x", f32, { 4 })))
