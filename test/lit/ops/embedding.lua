-- embedding: one workgroup per id, the row copied with 128-bit accesses; ids
-- outside [0, vocab) give zeros; vocab is a run-time size; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: embedding_embedding_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) table, KG_GLOBAL(const int) ids, KG_GLOBAL(kg_bf16) y, long vocab, long base)
-- CHECK: const long id = (long)kg_ld(ids, row) - base;
-- CHECK-NEXT: const bool in_range = id >= 0 && id < vocab;
-- CHECK: v[it] = kg_ldv<8>(table, src + c);
-- CHECK: kg_stv<8>(y, row * 4096 + c, v[it]);
-- ASM32-LABEL: embedding_embedding_{{[0-9a-f]+}}:
-- ASM32-DAG: global_load_b128
-- ASM32-DAG: global_store_b128
-- ASM64-LABEL: embedding_embedding_{{[0-9a-f]+}}:
-- ASM64-DAG: global_load_dwordx4
-- ASM64-DAG: global_store_dwordx4
-- META: .name: embedding_embedding_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local B = sym("B", 4)
local T = sym("T", 64)
local tok = weight("tok_embeddings", bf16, { 32000, 4096 })
local ids = input("ids", i32, { B, T })
output("h", embedding(tok, ids))
