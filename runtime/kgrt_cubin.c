/* kgrt_cubin.c - the NVIDIA cubin half of the code object reader: per kernel
 * its parameters, registers, stack and shared memory from the .nv.info
 * sections ptxas writes. Gives kgrt_cubin_parse (kgrt_codeobj_internal.h). */
#include "kgrt_codeobj_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- cubin ---------------------------------------------------------------- */

/* An NVIDIA cubin (EM_CUDA) as NVRTC's ptxas writes it. NVIDIA documents none
 * of this; the layout is what cuobjdump -elf prints, e_flags as LLVM's
 * BinaryFormat/ELF.h decodes them, and the figures were checked against
 * ptxas -v of CUDA 13.0 (test/lit/codegen/sm90_meta.lua) and against the
 * driver's cuFuncGetAttribute on an H100 (registers, shared and local bytes
 * equal for every kernel tried, stack frames and 4000-byte arrays included):
 *   e_flags: the SM number in bits 0-7 under CUDA ELF ABI version 7, in bits
 *     8-15 under version 8; "a" targets (sm_90a) set EF_CUDA_ACCELERATORS
 *     (0x800 under version 7, 0x8 under version 8).
 *   .nv.info.<kernel>: one per kernel, a run of attributes, each {u8 format,
 *     u8 attribute, u16 value}, where format 4 (EIFMT_SVAL) makes the u16 the
 *     size of the bytes that follow. Per kernel we read
 *       0x05 EIATTR_MAX_THREADS       {u32 x, y, z} (from __launch_bounds__)
 *       0x17 EIATTR_KPARAM_INFO       {u32 index, u16 ordinal, u16 offset,
 *                                      u32 flags: size in bytes in bits 18-31}
 *       0x19 EIATTR_CBANK_PARAM_SIZE  bytes of parameters (the u16 value)
 *   .nv.info: records for every function, keyed by symbol index:
 *       0x2f EIATTR_REGCOUNT          {u32 symbol, u32 registers per thread}
 *       0x11 EIATTR_FRAME_SIZE        {u32 symbol, u32 stack frame bytes}
 *       0x12 EIATTR_MIN_STACK_SIZE    {u32 symbol, u32 stack bytes with callees}
 *   .nv.shared.<kernel>: NOBITS, its size the kernel's static shared memory.
 *     For sm_90 ptxas starts it with the 1 KiB the driver reserves per block
 *     (CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024 on an H100)
 *     and marks such cubins with the undefined symbol .nv.reservedSmem.offset0;
 *     ptxas -v and cuFuncGetAttribute leave that 1 KiB out, and so do we
 *     (for sm_80 the section holds the kernel's own bytes alone).
 *   <kernel>: a FUNC symbol, its size the code bytes. */
enum {
  CU_EIFMT_SVAL = 4,
  CU_EIATTR_MAX_THREADS = 0x05,
  CU_EIATTR_FRAME_SIZE = 0x11,
  CU_EIATTR_MIN_STACK_SIZE = 0x12,
  CU_EIATTR_KPARAM_INFO = 0x17,
  CU_EIATTR_CBANK_PARAM_SIZE = 0x19,
  CU_EIATTR_REGCOUNT = 0x2f,
  CU_WARP = 32,
  CU_RESERVED_SHARED = 1024,
};

typedef struct cu_attr {
  uint8_t attr;
  uint16_t value;      /* the u16: a value, or an SVAL's size */
  const uint8_t *data; /* EIFMT_SVAL: `value` bytes */
  uint32_t size;       /* 0 for the other formats */
} cu_attr_t;

/* Reads the attribute at *pos of section `s` (inside the image); returns 1
 * with *a filled, 0 at the section's end, -1 when a record runs past it. */
static int cu_attr_next(const co_elf_t *e, const co_section_t *s, uint64_t *pos,
                        cu_attr_t *a, char *err, size_t err_size) {
  if (*pos >= s->size)
    return 0;
  const uint8_t *p = e->p + s->offset + *pos;
  uint64_t left = s->size - *pos;
  if (left < 4)
    return kgrt_co_fail(err, err_size,
                        "%s: attribute at offset %llu runs past its section",
                        kgrt_elf_section_name(e, s), (unsigned long long)*pos);
  a->attr = p[1];
  a->value = kgrt_co_le16(p + 2);
  a->data = p + 4;
  a->size = p[0] == CU_EIFMT_SVAL ? a->value : 0;
  if (a->size > left - 4)
    return kgrt_co_fail(err, err_size,
                        "%s: attribute 0x%02x at offset %llu runs past its section",
                        kgrt_elf_section_name(e, s), a->attr, (unsigned long long)*pos);
  *pos += 4 + (uint64_t)a->size;
  return 1;
}

/* "sm_90" (or "sm_90a") from e_flags and the CUDA ELF ABI version. */
static int cu_arch(const co_elf_t *e, kgrt_codeobj_t *co, char *err, size_t err_size) {
  uint32_t sm, accel;
  if (e->abi_version == 7) {
    sm = e->flags & 0xff;
    accel = e->flags & 0x800;
  } else if (e->abi_version == 8) {
    sm = (e->flags >> 8) & 0xff;
    accel = e->flags & 0x8;
  } else {
    return kgrt_co_fail(err, err_size, "CUDA ELF ABI version %u is not 7 or 8",
                        e->abi_version);
  }
  if (sm == 0)
    return kgrt_co_fail(err, err_size, "e_flags 0x%08x name no SM architecture",
                        (unsigned)e->flags);
  snprintf(co->arch, sizeof co->arch, "sm_%u%s", (unsigned)sm, accel ? "a" : "");
  return 0;
}

/* Section `s`'s name after `prefix`, or NULL when it does not start so. */
static const char *cu_suffix(const co_elf_t *e, const co_section_t *s,
                             const char *prefix) {
  const char *name = kgrt_elf_section_name(e, s);
  size_t n = strlen(prefix);
  return strncmp(name, prefix, n) == 0 && name[n] != '\0' ? name + n : NULL;
}

/* One kernel's .nv.info.<kernel>: its parameters and thread limit. */
static int cu_kernel_info(const co_elf_t *e, const co_section_t *s,
                          kgrt_codeobj_kernel_t *k, char *err, size_t err_size) {
  uint8_t seen[KGRT_CODEOBJ_MAX_ARGS] = {0};
  uint64_t pos = 0;
  cu_attr_t a = {0};
  int rc;
  while ((rc = cu_attr_next(e, s, &pos, &a, err, err_size)) == 1) {
    if (a.attr == CU_EIATTR_CBANK_PARAM_SIZE) {
      k->kernarg_size = a.value;
    } else if (a.attr == CU_EIATTR_MAX_THREADS && a.size >= 12) {
      uint64_t n = (uint64_t)kgrt_co_le32(a.data) * kgrt_co_le32(a.data + 4) *
                   kgrt_co_le32(a.data + 8);
      k->max_block_size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    } else if (a.attr == CU_EIATTR_KPARAM_INFO) {
      if (a.size < 12)
        return kgrt_co_fail(err, err_size, "kernel %s: EIATTR_KPARAM_INFO of %u bytes",
                            k->name, a.size);
      uint32_t ordinal = kgrt_co_le16(a.data + 4);
      if (ordinal >= KGRT_CODEOBJ_MAX_ARGS || seen[ordinal])
        return kgrt_co_fail(err, err_size,
                            "kernel %s: parameter %u is out of range or repeated",
                            k->name, ordinal);
      seen[ordinal] = 1;
      k->args[ordinal].offset = kgrt_co_le16(a.data + 6);
      k->args[ordinal].size = (kgrt_co_le32(a.data + 8) >> 18) & 0x3fff;
      if (ordinal + 1 > k->num_args)
        k->num_args = ordinal + 1;
    }
  }
  if (rc < 0)
    return -1;
  for (uint32_t i = 0; i < k->num_args; i++)
    if (!seen[i])
      return kgrt_co_fail(
          err, err_size, "kernel %s: parameter %u has no EIATTR_KPARAM_INFO", k->name, i);
  return 0;
}

/* The kernel that symbol `index` names, or NULL (another function, or no
 * such symbol). requires the kernels sorted */
static kgrt_codeobj_kernel_t *cu_kernel_of_symbol(const co_elf_t *e, kgrt_codeobj_t *co,
                                                  uint32_t index) {
  if (!e->has_symtab || index >= e->symtab.size / CO_SYM_SIZE)
    return NULL;
  const uint8_t *sym = e->p + e->symtab.offset + (uint64_t)index * CO_SYM_SIZE;
  const char *name = kgrt_elf_string(e, &e->symstr, kgrt_co_le32(sym));
  if (name == NULL || (sym[4] & 0xf) != CO_STT_FUNC)
    return NULL;
  return (kgrt_codeobj_kernel_t *)kgrt_codeobj_find(co, name);
}

/* .nv.info: registers and stack, per function symbol. */
static int cu_function_info(const co_elf_t *e, const co_section_t *s, kgrt_codeobj_t *co,
                            char *err, size_t err_size) {
  uint64_t pos = 0;
  cu_attr_t a = {0};
  int rc;
  while ((rc = cu_attr_next(e, s, &pos, &a, err, err_size)) == 1) {
    if (a.size < 8 || (a.attr != CU_EIATTR_REGCOUNT && a.attr != CU_EIATTR_FRAME_SIZE &&
                       a.attr != CU_EIATTR_MIN_STACK_SIZE))
      continue;
    kgrt_codeobj_kernel_t *k = cu_kernel_of_symbol(e, co, kgrt_co_le32(a.data));
    uint32_t v = kgrt_co_le32(a.data + 4);
    if (k == NULL)
      continue;
    if (a.attr == CU_EIATTR_REGCOUNT)
      k->vgprs = v;
    else if (v > k->scratch_bytes) /* the frame, or the stack with callees */
      k->scratch_bytes = v;
  }
  return rc < 0 ? -1 : 0;
}

int kgrt_cubin_parse(const co_elf_t *e, kgrt_codeobj_t *co, const kgrt_allocator_t *alloc,
                     char *err, size_t err_size) {
  if (cu_arch(e, co, err, err_size))
    return -1;
  uint32_t count = 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = kgrt_elf_section(e, i);
    if (cu_suffix(e, &s, ".nv.info.") != NULL)
      count++;
  }
  if (count == 0)
    return 0;
  co->kernels = kgrt_calloc(alloc, count, sizeof *co->kernels);
  if (co->kernels == NULL) {
    kgrt_co_fail(err, err_size, "out of memory for %u kernels", count);
    return KGRT_CODEOBJ_NO_MEMORY;
  }
  co->num_kernels = count;
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = kgrt_elf_section(e, i);
    const char *name = cu_suffix(e, &s, ".nv.info.");
    if (name == NULL)
      continue;
    kgrt_codeobj_kernel_t *k = &co->kernels[n++];
    if (strlen(name) >= sizeof k->name)
      return kgrt_co_fail(err, err_size, "section %u: kernel name longer than %zu bytes",
                          i, sizeof k->name - 1);
    if (s.type == CO_SHT_NULL || s.type == CO_SHT_NOBITS)
      return kgrt_co_fail(err, err_size, "section %u (.nv.info.%s) holds no data", i,
                          name);
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->symbol, sizeof k->symbol, "%s", name);
    k->wave_size = CU_WARP;
    k->has_symbol = kgrt_elf_find_symbol(e, name, CO_STT_FUNC, &k->code_bytes);
    if (cu_kernel_info(e, &s, k, err, err_size))
      return -1;
  }
  if (co->num_kernels > 1)
    qsort(co->kernels, co->num_kernels, sizeof *co->kernels, kgrt_co_kernel_cmp);
  for (uint32_t i = 1; i < co->num_kernels; i++)
    if (strcmp(co->kernels[i - 1].name, co->kernels[i].name) == 0)
      return kgrt_co_fail(err, err_size, "two kernels are named %s", co->kernels[i].name);
  uint64_t reserved = kgrt_elf_find_symbol(e, ".nv.reservedSmem.offset0", -1, NULL)
                          ? CU_RESERVED_SHARED
                          : 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = kgrt_elf_section(e, i);
    const char *shared = cu_suffix(e, &s, ".nv.shared.");
    kgrt_codeobj_kernel_t *k =
        shared ? (kgrt_codeobj_kernel_t *)kgrt_codeobj_find(co, shared) : NULL;
    uint64_t bytes = s.size >= reserved ? s.size - reserved : s.size;
    if (k != NULL)
      k->lds_bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
    if (strcmp(kgrt_elf_section_name(e, &s), ".nv.info") == 0 &&
        cu_function_info(e, &s, co, err, err_size))
      return -1;
  }
  return 0;
}
