-- --define NAME=VALUE: the model reads VALUE with define(NAME) (a string;
-- define(NAME, default) where it may be absent); the last of a name given
-- twice wins; a bad NAME=VALUE is refused before the model runs.
-- RUN: rm -rf %t && mkdir -p %t
-- RUN: %kgen --arch gfx1100 --no-sim --define cols=64 --define cols=128 --define act=silu %s -o %t/a > /dev/null
-- RUN: FileCheck %s --check-prefix=DEF < %t/a/define.c
-- RUN: %kgen --arch gfx1100 --no-sim %s -o %t/b > /dev/null
-- RUN: FileCheck %s --check-prefix=DEFAULT < %t/b/define.c
-- RUN: not %kgen --arch gfx1100 --define 1x=3 %s -o %t/c 2> %t/c.err
-- RUN: FileCheck %s --check-prefix=BAD < %t/c.err
-- RUN: test ! -e %t/c
-- RUN: not %kgen --arch gfx1100 --define noequals %s 2>&1 | FileCheck %s --check-prefix=BAD
-- DEF: {"x", KGRT_DTYPE_F32, 2, {{[{]}}{8, -1}, {128, -1}}
-- DEFAULT: {"x", KGRT_DTYPE_F32, 2, {{[{]}}{8, -1}, {32, -1}}
-- BAD: kgen: error: --define: expected NAME=VALUE with NAME an identifier of at most 64 bytes
local cols = math.tointeger(tonumber(define("cols", "32")))
local x = input("x", f32, { 8, cols })
if define("act", "exp") == "silu" then output("y", silu(x)) else output("y", exp(x)) end
