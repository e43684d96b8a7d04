-- --compiler=clang also builds gfx90a; -v names the clang that ran.
-- RUN: %kgen -v --compiler=clang --arch gfx90a --emit=meta %s -o - 2>%t.err | FileCheck %s
-- RUN: FileCheck %s --check-prefix=VERBOSE < %t.err
-- VERBOSE: gfx90a: compiled with clang
-- CHECK: .wavefront_size: 64
local x = input("x", f16, { 64 })
output("y", silu(x))
