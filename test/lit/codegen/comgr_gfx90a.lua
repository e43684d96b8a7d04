-- gfx90a compiles in process through Debian's comgr; auto picks it and says so.
-- RUN: %kgen -v --arch gfx90a --emit=meta %s -o - 2>%t.err | FileCheck %s
-- RUN: FileCheck %s --check-prefix=VERBOSE < %t.err
-- RUN: %kgen --compiler=comgr --arch gfx90a --emit=meta %s -o - | FileCheck %s
-- VERBOSE: gfx90a: compiled with comgr
-- CHECK: .name: comgr_gfx90a_softmax_{{[0-9a-f]+}}
-- CHECK: .wavefront_size: 64
-- CHECK: amdhsa.target: amdgcn-amd-amdhsa--gfx90a
local x = input("x", f32, { 2, 256 })
output("p", softmax(x))
