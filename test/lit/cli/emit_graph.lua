-- --emit=graph prints the graph the front end built, before fusion: the
-- syms, the inputs and weights (%N: a tensor), then each node (#N) with its
-- results' types, its operands, where the model called it, a map's
-- expression and each variant's template, grid and the op's holes. The same
-- model twice gives the same bytes, and nothing is compiled.
-- RUN: rm -rf %t && mkdir -p %t
-- RUN: %kgen --arch gfx1100 --emit=graph %s -o %t/a.txt
-- RUN: %kgen --arch gfx1100 --emit=graph %s -o - > %t/b.txt
-- RUN: cmp %t/a.txt %t/b.txt
-- RUN: FileCheck %s < %t/a.txt
-- RUN: %kgen --arch gfx942 --emit=graph %s -o - | FileCheck %s --check-prefix=W64
local T = sym("T", 64)
local x = input("x", f16, { T, 256 })
local up = input("up", f16, { T, 128 })
local nw = weight("norm_w", f16, { 256 })
local w = weight("w", f16, { 128, 256 })
local h = rmsnorm(x, nw, { eps = 1e-5 })
local y = matmul(h, w)
output("y", add(y, scale(silu(up), 2.0)))
output("h", h)

-- CHECK: graph emit_graph: {{[0-9]+}} tensors, {{[0-9]+}} nodes, ranks 1
-- CHECK-NEXT: sym T: max 64
-- CHECK-NEXT: %0 = input x: f16[T, 256]
-- CHECK-NEXT: %1 = input up: f16[T, 128]
-- CHECK-NEXT: %2 = weight norm_w: f16[256]
-- CHECK-NEXT: %3 = weight w: f16[128, 256]
-- CHECK-NEXT: #0 %4: f16[T, 256] (output h) = rmsnorm(%0, %2)  ; {{.*}}emit_graph.lua:17
-- CHECK-NEXT:     variant rmsnorm: rows of 256 of %4
-- CHECK:           EPS = "1e-05f"
-- CHECK:      #1 %5: f16[T, 128] = matmul(%4, %3)  ; {{.*}}emit_graph.lua:18
-- CHECK:          variant {{gemv.*}}: tiles of {{.*}}, when T in [0, {{[0-9]+}}]
-- CHECK:          variant gemm{{.*}}: tiles of T rows
-- CHECK:      = silu(
-- CHECK-NEXT:     expr "kg_silu($0)"
-- CHECK-NEXT:     variant map: elements
-- W64: graph emit_graph:
-- W64: variant rmsnorm: rows of 256
