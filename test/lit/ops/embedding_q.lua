-- embedding over a table in a GGUF block format: each id's row decoded group
-- by group of 32 straight from global memory (lib_quant.hip's _gl32
-- decoders, RB bytes a row) into the dtype asked for, in 16-byte stores; no
-- scratch. Numerics: test/numerics/quant_embedding_test.c.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: embedding_q_embedding_{{[0-9a-f]+}}(KG_GLOBAL(const unsigned short) table, KG_GLOBAL(const int) ids, KG_GLOBAL(kg_bf16) y, long vocab, long base)
-- CHECK: for (int g = (int)threadIdx.x; g < 4096 / 32; g += 128) {
-- CHECK: kg_q4_0_gl32(table, id * 2304L, g, q, sc, &mn);
-- CHECK: kg_stv<V>(y, row * 4096L + g * 32 + s * V, v);
-- CHECK-LABEL: embedding_q_embedding_{{[0-9a-f]+}}(KG_GLOBAL(const unsigned short) table, KG_GLOBAL(const int) ids, KG_GLOBAL(float) y, long vocab, long base)
-- CHECK: kg_q6k_gl32(table, id * 3360L, g, q, sc, &mn);
-- META: .name: embedding_q_embedding_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 64)
local ids = input("ids", i32, { T })
output("h", embedding(weight("tok", q4_0, { 32000, 4096 }), ids, { dtype = bf16 }))
output("f", embedding(weight("tok6", q6_k, { 1000, 4096 }), ids))
