-- a model path that is a FIFO (or a device, or a folder) is refused at
-- once, not waited on: kgen reads a model only from a regular file.
-- RUN: rm -rf %t && mkdir -p %t && mkfifo %t/fifo.lua
-- RUN: timeout 5 %kgen --arch gfx1100 %t/fifo.lua -o %t/out > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t/out && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=FIFO < %t.log
-- RUN: not %kgen --arch gfx1100 %t 2>&1 | FileCheck %s --check-prefix=DIR
-- FIFO: fifo.lua: error: not a regular file (a FIFO); kgen reads a model from a file
-- DIR: error: not a regular file (a folder); kgen reads a model from a file
output("y", exp(input("x", f32, { 4 })))
