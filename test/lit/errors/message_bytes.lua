-- control bytes in a message (here the model's own error string) are
-- written as \xNN: kgen's one line cannot drive the terminal.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: message_bytes.lua:[[@LINE+1]]: error: bad{{\\}}x1b[2Jname{{\\}}x07 and{{\\}}x7f{{$}}
error("bad\27[2Jname\7 and\127", 0)
