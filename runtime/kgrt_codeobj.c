/* kgrt_codeobj.c - reads an AMDGPU code object (hsaco) or an NVIDIA cubin.
 *
 * Needs: the image in memory and the caller's allocator. Checks the ELF64
 * header, the program and section header tables, every section, the symbol
 * table and every note record against the image's size. Then, by e_machine:
 *   EM_AMDGPU: decodes the NT_AMDGPU_METADATA note (msgpack, code object v3+)
 *     with a bounded decoder;
 *   EM_CUDA: reads the .nv.info attribute sections ptxas writes (see "cubin"
 *     below): per kernel its parameters, registers, stack and shared memory.
 * Gives: kgrt_codeobj_t (kernels sorted by name). The pieces: kgrt_elf.c,
 * kgrt_msgpack.c, kgrt_cubin.c, kgrt_codeobj_kernels.c (find, free); the YAML
 * dumper is kgen's (gen/codeobj_dump.c).
 * Malformed input returns -1 and a one-line reason; nothing here aborts. */
#include "kgrt_codeobj_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- metadata -> kgrt_codeobj_t ------------------------------------------- */

typedef struct co_u32_field {
  const char *key;
  size_t offset;
} co_u32_field_t;

static const co_u32_field_t kernel_u32_fields[] = {
    {".kernarg_segment_size", offsetof(kgrt_codeobj_kernel_t, kernarg_size)},
    {".kernarg_segment_align", offsetof(kgrt_codeobj_kernel_t, kernarg_align)},
    {".group_segment_fixed_size", offsetof(kgrt_codeobj_kernel_t, lds_bytes)},
    {".private_segment_fixed_size", offsetof(kgrt_codeobj_kernel_t, scratch_bytes)},
    {".vgpr_count", offsetof(kgrt_codeobj_kernel_t, vgprs)},
    {".sgpr_count", offsetof(kgrt_codeobj_kernel_t, sgprs)},
    {".agpr_count", offsetof(kgrt_codeobj_kernel_t, agprs)},
    {".vgpr_spill_count", offsetof(kgrt_codeobj_kernel_t, vgpr_spills)},
    {".sgpr_spill_count", offsetof(kgrt_codeobj_kernel_t, sgpr_spills)},
    {".wavefront_size", offsetof(kgrt_codeobj_kernel_t, wave_size)},
    {".max_flat_workgroup_size", offsetof(kgrt_codeobj_kernel_t, max_block_size)},
};

/* .args: [{.name, .offset, .size, .value_kind, ...}, ...] */
static int parse_args(mp_reader_t *r, const char *where, kgrt_codeobj_kernel_t *k) {
  mp_item_t args;
  if (kgrt_mp_next(r, &args))
    return -1;
  if (args.kind != MP_ARRAY)
    return kgrt_mp_fail(r, "%s.args is not an array", where);
  if (args.n > KGRT_CODEOBJ_MAX_ARGS)
    return kgrt_mp_fail(r, "%s.args has %llu entries, more than %d", where,
                        (unsigned long long)args.n, KGRT_CODEOBJ_MAX_ARGS);
  k->num_args = (uint32_t)args.n;
  for (uint32_t i = 0; i < k->num_args; i++) {
    kgrt_codeobj_arg_t *a = &k->args[i];
    char at[64];
    snprintf(at, sizeof at, "%s.args[%u]", where, i);
    mp_item_t map;
    if (kgrt_mp_next(r, &map))
      return -1;
    if (map.kind != MP_MAP)
      return kgrt_mp_fail(r, "%s is not a map", at);
    for (uint64_t j = 0; j < map.n; j++) {
      mp_item_t key;
      int rc;
      if (kgrt_mp_next(r, &key))
        return -1;
      if (kgrt_mp_is(&key, ".name"))
        rc = kgrt_mp_read_str(r, at, ".name", a->name, sizeof a->name);
      else if (kgrt_mp_is(&key, ".value_kind"))
        rc = kgrt_mp_read_str(r, at, ".value_kind", a->value_kind, sizeof a->value_kind);
      else if (kgrt_mp_is(&key, ".offset"))
        rc = kgrt_mp_read_u32(r, at, ".offset", &a->offset);
      else if (kgrt_mp_is(&key, ".size"))
        rc = kgrt_mp_read_u32(r, at, ".size", &a->size);
      else
        rc = kgrt_mp_skip(r, &key) || kgrt_mp_skip_next(r) ? -1 : 0;
      if (rc)
        return -1;
    }
  }
  return 0;
}

/* One entry of amdhsa.kernels. */
static int parse_kernel(mp_reader_t *r, uint32_t index, kgrt_codeobj_kernel_t *k) {
  char where[32];
  snprintf(where, sizeof where, "amdhsa.kernels[%u]", index);
  mp_item_t map;
  if (kgrt_mp_next(r, &map))
    return -1;
  if (map.kind != MP_MAP)
    return kgrt_mp_fail(r, "%s is not a map", where);
  for (uint64_t j = 0; j < map.n; j++) {
    mp_item_t key;
    int rc = 1; /* 1: not a key we read */
    if (kgrt_mp_next(r, &key))
      return -1;
    if (kgrt_mp_is(&key, ".name"))
      rc = kgrt_mp_read_str(r, where, ".name", k->name, sizeof k->name);
    else if (kgrt_mp_is(&key, ".symbol"))
      rc = kgrt_mp_read_str(r, where, ".symbol", k->symbol, sizeof k->symbol);
    else if (kgrt_mp_is(&key, ".args"))
      rc = parse_args(r, where, k);
    for (size_t f = 0;
         rc == 1 && f < sizeof kernel_u32_fields / sizeof kernel_u32_fields[0]; f++) {
      const co_u32_field_t *field = &kernel_u32_fields[f];
      if (kgrt_mp_is(&key, field->key))
        rc = kgrt_mp_read_u32(r, where, field->key,
                              (uint32_t *)((char *)k + field->offset));
    }
    if (rc == 1)
      rc = kgrt_mp_skip(r, &key) || kgrt_mp_skip_next(r) ? -1 : 0;
    if (rc)
      return -1;
  }
  if (k->name[0] == '\0')
    return kgrt_mp_fail(r, "%s has no .name", where);
  if (k->symbol[0] == '\0')
    return kgrt_mp_fail(r, "%s (%s) has no .symbol", where, k->name);
  return 0;
}

static int parse_kernels(mp_reader_t *r, kgrt_codeobj_t *co,
                         const kgrt_allocator_t *alloc) {
  mp_item_t list;
  if (co->kernels != NULL)
    return kgrt_mp_fail(r, "amdhsa.kernels appears twice");
  if (kgrt_mp_next(r, &list))
    return -1;
  if (list.kind != MP_ARRAY)
    return kgrt_mp_fail(r, "amdhsa.kernels is not an array");
  /* walk it once first, so a corrupt count cannot make us allocate */
  mp_reader_t probe = *r;
  if (kgrt_mp_skip(&probe, &list))
    return -1;
  if (list.n == 0)
    return 0;
  co->kernels = kgrt_calloc(alloc, list.n, sizeof *co->kernels);
  if (co->kernels == NULL) {
    kgrt_mp_fail(r, "out of memory for %llu kernels", (unsigned long long)list.n);
    return KGRT_CODEOBJ_NO_MEMORY;
  }
  co->num_kernels = (uint32_t)list.n;
  for (uint32_t i = 0; i < co->num_kernels; i++)
    if (parse_kernel(r, i, &co->kernels[i]))
      return -1;
  return 0;
}

/* The top-level map: amdhsa.version, amdhsa.target, amdhsa.kernels. */
static int parse_metadata(mp_reader_t *r, kgrt_codeobj_t *co,
                          const kgrt_allocator_t *alloc) {
  mp_item_t top;
  if (kgrt_mp_next(r, &top))
    return -1;
  if (top.kind != MP_MAP)
    return kgrt_mp_fail(r, "the note is not a msgpack map");
  for (uint64_t j = 0; j < top.n; j++) {
    mp_item_t key;
    int rc;
    if (kgrt_mp_next(r, &key))
      return -1;
    if (kgrt_mp_is(&key, "amdhsa.target")) {
      rc = kgrt_mp_read_str(r, "", "amdhsa.target", co->target, sizeof co->target);
    } else if (kgrt_mp_is(&key, "amdhsa.kernels")) {
      rc = parse_kernels(r, co, alloc);
    } else if (kgrt_mp_is(&key, "amdhsa.version")) {
      mp_item_t v;
      if (kgrt_mp_next(r, &v))
        return -1;
      if (v.kind != MP_ARRAY || v.n < 2)
        return kgrt_mp_fail(r, "amdhsa.version is not an array of two integers");
      rc = kgrt_mp_read_u32(r, "amdhsa.version", "[0]", &co->meta_version[0]) ||
                   kgrt_mp_read_u32(r, "amdhsa.version", "[1]", &co->meta_version[1])
               ? -1
               : 0;
      for (uint64_t i = 2; rc == 0 && i < v.n; i++)
        rc = kgrt_mp_skip_next(r);
    } else {
      rc = kgrt_mp_skip(r, &key) || kgrt_mp_skip_next(r) ? -1 : 0;
    }
    if (rc)
      return rc == KGRT_CODEOBJ_NO_MEMORY ? rc : -1;
  }
  return 0;
}

/* ---- public --------------------------------------------------------------- */

typedef struct co_mach {
  uint8_t mach;
  char name[16];
} co_mach_t;

/* EF_AMDGPU_MACH_AMDGCN_*: checked against the e_flags clang-19 writes for
 * each --offload-arch (gfx950 from LLVM's ELF.h; clang-19 predates it). */
static const co_mach_t co_machs[] = {
    {0x020, "gfx600"},          {0x021, "gfx601"},        {0x03a, "gfx602"},
    {0x022, "gfx700"},          {0x023, "gfx701"},        {0x024, "gfx702"},
    {0x025, "gfx703"},          {0x026, "gfx704"},        {0x03b, "gfx705"},
    {0x028, "gfx801"},          {0x029, "gfx802"},        {0x02a, "gfx803"},
    {0x03c, "gfx805"},          {0x02b, "gfx810"},        {0x02c, "gfx900"},
    {0x02d, "gfx902"},          {0x02e, "gfx904"},        {0x02f, "gfx906"},
    {0x030, "gfx908"},          {0x031, "gfx909"},        {0x03f, "gfx90a"},
    {0x032, "gfx90c"},          {0x040, "gfx940"},        {0x04b, "gfx941"},
    {0x04c, "gfx942"},          {0x04f, "gfx950"},        {0x033, "gfx1010"},
    {0x034, "gfx1011"},         {0x035, "gfx1012"},       {0x042, "gfx1013"},
    {0x036, "gfx1030"},         {0x037, "gfx1031"},       {0x038, "gfx1032"},
    {0x039, "gfx1033"},         {0x03e, "gfx1034"},       {0x03d, "gfx1035"},
    {0x045, "gfx1036"},         {0x041, "gfx1100"},       {0x046, "gfx1101"},
    {0x047, "gfx1102"},         {0x044, "gfx1103"},       {0x043, "gfx1150"},
    {0x04a, "gfx1151"},         {0x055, "gfx1152"},       {0x048, "gfx1200"},
    {0x04e, "gfx1201"},         {0x051, "gfx9-generic"},  {0x052, "gfx10-1-generic"},
    {0x053, "gfx10-3-generic"}, {0x054, "gfx11-generic"}, {0x059, "gfx12-generic"},
};

const char *kgrt_codeobj_mach_name(uint32_t e_flags) {
  for (size_t i = 0; i < sizeof co_machs / sizeof co_machs[0]; i++)
    if (co_machs[i].mach == (e_flags & 0xff))
      return co_machs[i].name;
  return NULL;
}

/* arch from e_flags, checked against amdhsa.target's processor; symbols;
 * kernels sorted. */
static int finish(const co_elf_t *e, kgrt_codeobj_t *co, char *err, size_t err_size) {
  char processor[sizeof co->arch] = "";
  const char *dashes = strstr(co->target, "--");
  if (dashes != NULL) {
    size_t len = strcspn(dashes + 2, ":");
    if (len >= sizeof processor)
      return kgrt_co_fail(err, err_size, "amdhsa.target '%s': processor name too long",
                          co->target);
    memcpy(processor, dashes + 2, len);
    processor[len] = '\0';
  }
  const char *mach = kgrt_codeobj_mach_name(e->flags);
  if (mach != NULL && processor[0] != '\0' && strcmp(mach, processor) != 0)
    return kgrt_co_fail(err, err_size, "e_flags say %s but amdhsa.target says %s", mach,
                        processor);
  if (mach == NULL && processor[0] == '\0')
    return kgrt_co_fail(err, err_size,
                        "unknown EF_AMDGPU_MACH 0x%02x and no amdhsa.target",
                        (unsigned)(e->flags & 0xff));
  snprintf(co->arch, sizeof co->arch, "%s", mach != NULL ? mach : processor);

  for (uint32_t i = 0; i < co->num_kernels; i++) {
    kgrt_codeobj_kernel_t *k = &co->kernels[i];
    k->has_symbol = kgrt_elf_find_symbol(e, k->symbol, -1, NULL);
    if (!kgrt_elf_find_symbol(e, k->name, CO_STT_FUNC, &k->code_bytes))
      k->code_bytes = 0;
  }
  if (co->num_kernels > 1)
    qsort(co->kernels, co->num_kernels, sizeof *co->kernels, kgrt_co_kernel_cmp);
  for (uint32_t i = 1; i < co->num_kernels; i++)
    if (strcmp(co->kernels[i - 1].name, co->kernels[i].name) == 0)
      return kgrt_co_fail(err, err_size, "two kernels are named %s", co->kernels[i].name);
  return 0;
}

int kgrt_codeobj_parse(const void *image, size_t size, const kgrt_allocator_t *alloc,
                       kgrt_codeobj_t *out, char *err, size_t err_size) {
  if (err != NULL && err_size > 0)
    err[0] = '\0';
  if (out == NULL)
    return kgrt_co_fail(err, err_size, "kgrt_codeobj_parse: out is NULL");
  memset(out, 0, sizeof *out);
  co_elf_t e;
  if (kgrt_elf_open(&e, image, size, err, err_size))
    return -1;

  kgrt_codeobj_t co;
  memset(&co, 0, sizeof co);
  co.machine = e.machine;
  co.abi_version = e.abi_version;
  if (e.machine == CO_EM_CUDA) {
    const int rc = kgrt_cubin_parse(&e, &co, alloc, err, err_size);
    if (rc) {
      kgrt_codeobj_free(&co, alloc);
      return rc == KGRT_CODEOBJ_NO_MEMORY ? rc : -1;
    }
    *out = co;
    return 0;
  }
  /* ELFABIVERSION_AMDGPU_HSA_V3..V6 are 1..4 */
  co.code_object_version =
      e.abi_version >= 1 && e.abi_version <= 4 ? e.abi_version + 2u : 0;
  mp_reader_t r = {e.meta, e.meta_size, 0, err, err_size};
  const int rc = parse_metadata(&r, &co, alloc);
  if (rc || finish(&e, &co, err, err_size)) {
    kgrt_codeobj_free(&co, alloc);
    return rc == KGRT_CODEOBJ_NO_MEMORY ? rc : -1;
  }
  *out = co;
  return 0;
}
