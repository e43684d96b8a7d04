-- json_file(NAME) reads the JSON file that --define NAME=PATH gives (a
-- Hugging Face config.json): objects as tables, arrays as sequences, whole
-- numbers as integers and the rest as floats, escapes decoded (\u pairs to
-- UTF-8), null members absent; a byte order mark is skipped.
-- RUN: rm -rf %t && mkdir -p %t
-- RUN: printf '%%s' '{"rows": 8, "cols": [16, 32], "scale": 2.5e0, "big": 1e400e, "name": "y\u00e9\ud83d\ude00", "skip": null, "flag": true, "deep": [[{"k": -0.5}]]}' | sed 's/1e400e/12345678901234567890/' > %t/c.json
-- RUN: %kgen --arch gfx1100 --no-sim --define config=%t/c.json %s -o %t/a > /dev/null
-- RUN: FileCheck %s < %t/a/json_file.c
-- RUN: printf '\357\273\277{"rows": 4, "cols": [1, 64], "scale": 2.5, "big": 1.2345678901234567e19, "name": "y\303\251\360\237\230\200", "flag": true, "deep": [[{"k": -5e-1}]]}' > %t/bom.json
-- RUN: %kgen --arch gfx1100 --no-sim --define config=%t/bom.json %s -o %t/b > /dev/null
-- RUN: FileCheck %s --check-prefix=BOM < %t/b/json_file.c
-- CHECK: {"x", KGRT_DTYPE_F32, 2, {{[{]}}{8, -1}, {32, -1}}
-- BOM: {"x", KGRT_DTYPE_F32, 2, {{[{]}}{4, -1}, {64, -1}}
local c = json_file("config")
assert(math.type(c.rows) == "integer" and #c.cols == 2)
assert(math.type(c.scale) == "float" and c.scale == 2.5)
assert(math.type(c.big) == "float" and c.big == 12345678901234567890.0) -- past int64
assert(c.name == "y\xc3\xa9\xf0\x9f\x98\x80")
assert(c.skip == nil and c.flag == true and c.deep[1][1].k == -0.5)
output("y", exp(input("x", f32, { c.rows, c.cols[2] })))
