-- the table carries the FNV-1a 64 hash of each image it embeds, which kgrt
-- checks at load: here the code object's, recomputed from the .hsaco kgen
-- wrote beside the table, and the empty sim image's (--no-sim).
-- RUN: rm -rf %t && %kgen --arch gfx942 --no-sim %s -o %t > /dev/null
-- RUN: python3 -c "import functools, sys; d = open(sys.argv[1], 'rb').read(); print('image, {}, 0x{:016x}ULL,'.format(len(d), functools.reduce(lambda h, b: ((h ^ b) * 0x100000001b3) & (2**64 - 1), d, 0xcbf29ce484222325)))" %t/table_hash_gfx942.hsaco > %t/want
-- RUN: grep -F -f %t/want %t/table_hash_gfx942.c
-- RUN: FileCheck %s < %t/table_hash_gfx942.c
-- CHECK: const kgrt_arch_table_t kgen_table_hash_gfx942 = {
-- CHECK-NEXT: "gfx942", "amdgcn-amd-amdhsa", 64,
-- CHECK-NEXT: image, {{[0-9]+}}, 0x{{[0-9a-f]+}}ULL,
-- CHECK-NEXT: NULL, 0, 0xcbf29ce484222325ULL,
local x = input("x", f32, { 64 })
output("y", x * 2.0)
