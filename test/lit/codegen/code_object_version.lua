-- code object version 5 by default; --code-object=4 changes it.
-- RUN: %kgen --arch gfx1100 -o %t.dir %s > /dev/null
-- RUN: %readelf -h %t.dir/code_object_version_gfx1100.hsaco | FileCheck %s --check-prefix=V5
-- RUN: %kgen --arch gfx1100 --code-object=4 -o %t.dir4 %s > /dev/null
-- RUN: %readelf -h %t.dir4/code_object_version_gfx1100.hsaco | FileCheck %s --check-prefix=V4
-- V5: ABI Version: 3
-- V4: ABI Version: 2
local x = input("x", f32, { 16 })
output("y", silu(x))
