-- a model file name of 120 characters builds: its name (files, symbols,
-- kernels) keeps its first 47 bytes and a hash of the whole. A fused
-- kernel's name adds at most three ops (lower.c cuts it at 104 bytes) and
-- its content hash, so "<symbol>.kd" fits the 127 bytes kgrt reads.
-- RUN: rm -rf %t && %kgen --arch gfx1100 %s -o %t | FileCheck %s
-- RUN: ls %t | FileCheck %s --check-prefix=FILES
-- CHECK: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]}}{{[0-9a-f]+}}_scale_{{[0-9a-f]+}} gfx1100
-- CHECK: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}} gfx1100
-- FILES: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}.c
-- FILES: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}.h
-- FILES: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}_gfx1100.hsaco
local x = input("x", f32, { 4 })
output("y", x * 2.0)
local a = input("a", f32, { 1, 64 })
local w = input("w", f32, { 64, 64 })
output("z", silu(matmul(rmsnorm(a), w)) * 3.0 + a)
