-- -o DIR writes the table, sources and code objects, and a summary on stdout;
-- nothing temporary is left beside DIR; the .c files compile as strict C11.
-- RUN: rm -rf %t && mkdir -p %t && %kgen --arch gfx1100,gfx942 %s -o %t/out | FileCheck %s --check-prefix=SUMMARY
-- RUN: ls %t/out | FileCheck %s --check-prefix=FILES
-- RUN: ls -a %t | FileCheck %s --check-prefix=CLEAN
-- RUN: cc -std=c11 -Wall -Wextra -Werror -c %t/out/outdir.c -o %t/a.o
-- RUN: cc -std=c11 -Wall -Wextra -Werror -c %t/out/outdir_gfx1100.c -o %t/b.o
-- RUN: cc -std=c11 -Wall -Wextra -Werror -c %t/out/outdir_gfx942.c -o %t/c.o
-- SUMMARY: kernel {{.*}}arch {{.*}}wave {{.*}}vgpr {{.*}}sgpr {{.*}}lds {{.*}}scratch {{.*}}code
-- SUMMARY: outdir_rmsnorm_{{[0-9a-f]+}} gfx1100 32 {{[0-9]+ [0-9]+ [0-9]+}} 0
-- SUMMARY: outdir_rmsnorm_{{[0-9a-f]+}} gfx942 64 {{[0-9]+ [0-9]+ [0-9]+}} 0
-- FILES: kgrt_table.h
-- FILES-NEXT: outdir.c
-- FILES-NEXT: outdir.h
-- FILES-NEXT: outdir_gfx1100.c
-- FILES-NEXT: outdir_gfx1100.hip
-- FILES-NEXT: outdir_gfx1100.hsaco
-- FILES-NEXT: outdir_gfx942.c
-- FILES-NEXT: outdir_gfx942.hip
-- FILES-NEXT: outdir_gfx942.hsaco
-- CLEAN-NOT: kgen-tmp
local T = sym("T", 8)
local x = input("x", f16, { T, 512 })
output("y", rmsnorm(x))
