-- escape: the strings' metatable (whose __index is the string library kgen
-- itself uses) is locked.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: string_metatable.lua:[[@LINE+1]]: error: attempt to index a boolean value
getmetatable("").__index.match = function() return "x" end
