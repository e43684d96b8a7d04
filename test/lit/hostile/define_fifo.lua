-- the files --define names are read only when they are regular files: a
-- FIFO given to weights_file or json_file, or a FIFO shard in a weight
-- index, is refused at once, not waited on.
-- RUN: rm -rf %t && mkdir -p %t && mkfifo %t/fifo
-- RUN: printf '{"weight_map": {"w": "fifo"}}' > %t/index.json
-- RUN: timeout 5 %kgen --arch gfx1100 --define w=%t/fifo %s -o %t/o > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t/o && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=WEIGHTS < %t.log
-- RUN: not timeout 5 %kgen --arch gfx1100 --define w=%t/index.json %s 2>&1 | FileCheck %s --check-prefix=SHARD
-- RUN: not timeout 5 %kgen --arch gfx1100 --define w=%t/fifo --define json=1 %s 2>&1 | FileCheck %s --check-prefix=JSON
-- WEIGHTS: define_fifo.lua:[[@LINE+4]]: error: weights_file w: {{.*}}fifo: not a regular file (a FIFO)
-- SHARD: define_fifo.lua:[[@LINE+3]]: error: weights_file w: {{.*}}fifo is not a regular file
-- JSON: define_fifo.lua:[[@LINE+2]]: error: json_file w: {{.*}}fifo: not a regular file (a FIFO)
local json = define("json", "") ~= ""
local info = json and json_file("w") or weights_file("w")
output("y", exp(input("x", f32, { 4, 64 })))
