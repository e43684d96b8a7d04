-- escape: kgen's own module (its graph, its op tables) is not available to
-- a model.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: require_kgen.lua:[[@LINE+1]]: error: require: 'kgen' is one of kgen's own modules; a model uses the DSL through its globals
local kg = require "kgen"
kg.graph.tensors[1].name = "x\"; int pwned; //"
