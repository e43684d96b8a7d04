-- tamper: a dtype (whose C type the ops put into kernel source) is shared
-- and read-only.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: tamper_dtype.lua:[[@LINE+1]]: error: dtype: field ctype cannot be changed (kgen's handles are read-only)
f32.ctype = "float; } int pwned() { return 1"
