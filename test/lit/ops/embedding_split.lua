-- An embedding table split by rows over 2 ranks (a vocabulary-parallel
-- embedding): each rank holds 8000 of the 16000 rows and looks up every id
-- less its first row, rank * 8000: the table's sym `rank` (KGRT_SYM_RANK,
-- which kgrt_model_join sets) scaled by the part's rows is the kernel's
-- `base`; ids in other ranks' rows give zeros, which the all_reduce adds.
-- RUN: rm -rf %t; %kgen --arch gfx1100 %s -o %t > /dev/null
-- RUN: FileCheck %s --check-prefix=H < %t/embedding_split.h
-- RUN: FileCheck %s --check-prefix=IO < %t/embedding_split.c
-- RUN: FileCheck %s --check-prefix=PLAN < %t/embedding_split_gfx1100.c
-- RUN: FileCheck %s --check-prefix=HIP < %t/embedding_split_gfx1100.hip
ranks(2)
local T = sym("T", 64)
-- H: /* dim T: 1 .. 64 */
-- H: /* dim rank: 0 .. 1, the model's rank (kgrt_model_join sets it) */
-- IO: {"T", 64, 0},
-- IO-NEXT: {"rank", 1, KGRT_SYM_RANK},
-- IO: {"tok", KGRT_DTYPE_BF16, 2, {{[{]}}{8000, -1}, {256, -1}}, 0, 0, 2},
local tok = weight("tok", bf16, { 8000, 256 }, { split = 1 })
local ids = input("ids", i32, { T })
-- the lookup's vocab (8000) and base (8000 x sym 1, the rank)
-- PLAN: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {8000, {-1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, "vocab"},
-- PLAN-NEXT: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {8000, {1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, "base"},
-- HIP: long vocab, long base)
-- HIP: const long id = (long)kg_ld(ids, row) - base;
output("h", all_reduce(embedding(tok, ids)))
-- a table that is not split by rows keeps base 0
-- PLAN: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {1000, {-1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, "vocab"},
-- PLAN-NEXT: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, "base"},
local small = weight("small", bf16, { 1000, 256 })
output("s", embedding(small, ids))
-- the plan's steps: the lookup, then the all_reduce of the ranks' rows
-- PLAN: static const kgrt_step_t steps[
-- PLAN: KGRT_COLLECTIVE_ALL_REDUCE, KGRT_DTYPE_BF16, -1},
