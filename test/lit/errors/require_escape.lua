-- require cannot leave kgen's lua/ and the model's folder.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: require_escape.lua:[[@LINE+1]]: error: {{.*}}module name
local m = require("../../etc/passwd")
