-- a model file name of 120 characters builds: its name (files, symbols,
-- kernels) keeps its first 47 bytes and a hash of the whole.
-- RUN: rm -rf %t && %kgen --arch gfx1100 %s -o %t | FileCheck %s
-- RUN: ls %t | FileCheck %s --check-prefix=FILES
-- CHECK: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]}}{{[0-9a-f]+}}_scale_{{[0-9a-f]+}} gfx1100
-- FILES: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}.c
-- FILES: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}.h
-- FILES: long_name_is_hashed_past_64_bytes_so_that_kerne_{{[0-9a-f]+}}_gfx1100.hsaco
local x = input("x", f32, { 4 })
output("y", x * 2.0)
