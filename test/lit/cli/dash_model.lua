-- a model whose name starts with '-' is taken for options: the error names
-- the argument it was in and the way out; ./-dash.lua and -- -dash.lua work.
-- RUN: rm -rf %t && mkdir -p %t && cp %s %t/-dash.lua
-- RUN: cd %t && %kgen --arch gfx1100 -dash.lua > %t.log 2>&1; test $? -eq 1
-- RUN: test $(wc -l < %t.log) -eq 1 && FileCheck %s < %t.log
-- RUN: cd %t && %kgen --arch gfx1100 --emit=hip ./-dash.lua -o - | FileCheck %s --check-prefix=OK
-- RUN: cd %t && %kgen --arch gfx1100 --emit=hip -o - -- -dash.lua | FileCheck %s --check-prefix=OK
-- CHECK: kgen: error: unknown option -d in -dash.lua (a model whose name starts with '-': give it as ./-dash.lua or after --)
-- OK: * 2.0f
output("y", input("x", f32, { 4 }) * 2.0)
