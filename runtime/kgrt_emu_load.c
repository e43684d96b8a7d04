/* kgrt_emu_load.c - maps an AMDGPU code object into the emu device's memory
 * as the GPU's loader does (each PT_LOAD segment at base + p_vaddr, the bytes
 * past p_filesz zero) and reads each kernel's descriptor (<name>.kd, 64
 * bytes: LDS and scratch sizes, the entry's offset, compute_pgm_rsrc1/2/3,
 * kernel_code_properties).
 *
 * Needs the checked ELF reader (kgrt_elf.c) and kgrt_emu_mem. Gives
 * kgrt_emu_image_load/unload. */
#include <stdio.h>
#include <string.h>

#include "kgrt_codeobj_internal.h"
#include "kgrt_emu.h"

enum { EMU_PT_LOAD = 1, EMU_KD_SIZE = 64 };

/* Finds symbol `name`: its value and size. 0, or -1 when absent. */
static int emu_symbol(const co_elf_t *e, const char *name, uint64_t *value,
                      uint64_t *size) {
  if (!e->has_symtab)
    return -1;
  const uint64_t n = e->symtab.size / CO_SYM_SIZE;
  for (uint64_t i = 1; i < n; ++i) {
    const uint8_t *s = e->p + e->symtab.offset + i * CO_SYM_SIZE;
    const char *sn = kgrt_elf_string(e, &e->symstr, kgrt_co_le32(s));
    if (sn != NULL && strcmp(sn, name) == 0) {
      *value = kgrt_co_le64(s + 8);
      *size = kgrt_co_le64(s + 16);
      return 0;
    }
  }
  return -1;
}

/* The descriptor's fields into k (see the AMDGPU ABI's kernel descriptor). */
static int emu_read_descriptor(const uint8_t *kd, uint64_t kd_addr, int gfx9,
                               kgrt_emu_kernel_t *k, char *err, size_t err_size) {
  k->lds_bytes = kgrt_co_le32(kd + 0);
  k->scratch_bytes = kgrt_co_le32(kd + 4);
  k->kernarg_size = kgrt_co_le32(kd + 8);
  const int64_t entry_off = (int64_t)kgrt_co_le64(kd + 16);
  k->rsrc3 = kgrt_co_le32(kd + 44);
  k->rsrc1 = kgrt_co_le32(kd + 48);
  k->rsrc2 = kgrt_co_le32(kd + 52);
  k->properties = kgrt_co_le16(kd + 56);
  k->entry = kd_addr + (uint64_t)entry_off;
  const uint32_t vgpr_granules = (k->rsrc1 & 0x3f) + 1;
  if (gfx9) {
    k->wave_size = 64;
    k->vgprs = vgpr_granules * 8; /* the unified file: VGPRs then AGPRs */
    k->sgprs = (((k->rsrc1 >> 6) & 0xf) + 1) * 8;
    k->accum_offset = ((k->rsrc3 & 0x3f) + 1) * 4;
    if (k->accum_offset > k->vgprs)
      return kgrt_co_fail(err, err_size,
                          "kernel %s: descriptor's accum_offset %u is past its %u VGPRs",
                          k->name, k->accum_offset, k->vgprs);
    k->agprs = k->vgprs - k->accum_offset;
  } else {
    k->wave_size = (k->properties & (1u << 10)) ? 32 : 64;
    k->vgprs = vgpr_granules * (k->wave_size == 32 ? 8 : 4);
    k->sgprs = 106;
    k->accum_offset = k->vgprs;
    k->agprs = 0;
  }
  k->user_sgprs = (k->rsrc2 >> 1) & 0x1f;
  k->kernarg_ptr = (k->properties >> 3) & 1;
  for (int d = 0; d < 3; ++d)
    k->wg_id[d] = (k->rsrc2 >> (7 + d)) & 1;
  k->vgpr_ids = (k->rsrc2 >> 11) & 3;
  k->float_mode = (k->rsrc1 >> 12) & 0xff;
  k->dx10_clamp = (k->rsrc1 >> 21) & 1;
  k->ieee = (k->rsrc1 >> 23) & 1;
  if ((k->float_mode & 0xf) != 0)
    return kgrt_co_fail(
        err, err_size,
        "kernel %s: descriptor's float round mode 0x%x: the emu rounds to "
        "nearest even only",
        k->name, k->float_mode & 0xf);
  if (((k->float_mode >> 6) & 3) != 3)
    return kgrt_co_fail(
        err, err_size,
        "kernel %s: descriptor flushes f16/f64 denormals (mode %u): the emu "
        "keeps them",
        k->name, (k->float_mode >> 6) & 3);
  if (k->vgprs > (gfx9 ? 512u : 256u))
    return kgrt_co_fail(err, err_size, "kernel %s: descriptor grants %u VGPRs", k->name,
                        k->vgprs);
  return 0;
}

int kgrt_emu_image_load(const void *image, size_t size, const char *const *names,
                        uint32_t num_names, kgrt_emu_mem_t *mem,
                        const kgrt_allocator_t *alloc, kgrt_emu_image_t *out, char *err,
                        size_t err_size) {
  memset(out, 0, sizeof *out);
  co_elf_t e;
  if (kgrt_elf_open(&e, image, size, err, err_size) != 0)
    return -1;
  if (e.machine != CO_EM_AMDGPU)
    return kgrt_co_fail(err, err_size, "not an AMDGPU code object");
  const char *arch = kgrt_codeobj_mach_name(e.flags);
  if (arch == NULL)
    return kgrt_co_fail(err, err_size, "unknown AMDGPU mach 0x%x", e.flags & 0xff);
  snprintf(out->arch, sizeof out->arch, "%s", arch);
  out->gfx9 = strncmp(arch, "gfx9", 4) == 0;
  if (!out->gfx9 && strncmp(arch, "gfx11", 5) != 0)
    return kgrt_co_fail(err, err_size, "emu runs gfx9 and gfx11 code, not %s", arch);

  /* the segments' span */
  const uint8_t *p = image;
  const uint64_t phoff = kgrt_co_le64(p + 32);
  const uint32_t phnum = kgrt_co_le16(p + 56);
  if (!kgrt_co_in_image(size, phoff, (uint64_t)phnum * CO_PHDR_SIZE))
    return kgrt_co_fail(err, err_size, "program headers past the end of the file");
  uint64_t span = 0;
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint8_t *ph = p + phoff + (uint64_t)i * CO_PHDR_SIZE;
    if (kgrt_co_le32(ph) != EMU_PT_LOAD)
      continue;
    const uint64_t off = kgrt_co_le64(ph + 8), vaddr = kgrt_co_le64(ph + 16);
    const uint64_t filesz = kgrt_co_le64(ph + 32), memsz = kgrt_co_le64(ph + 40);
    if (!kgrt_co_in_image(size, off, filesz) || filesz > memsz ||
        vaddr > ((uint64_t)1 << 32) || memsz > ((uint64_t)1 << 32))
      return kgrt_co_fail(err, err_size, "segment %u does not fit the file", i);
    if (vaddr + memsz > span)
      span = vaddr + memsz;
  }
  if (span == 0)
    return kgrt_co_fail(err, err_size, "no loadable segment");
  out->alloc_addr = kgrt_emu_mem_alloc(mem, span);
  if (out->alloc_addr == 0)
    return kgrt_co_fail(err, err_size, "no device memory for %llu bytes of code",
                        (unsigned long long)span);
  out->base = (unsigned char *)(uintptr_t)out->alloc_addr;
  out->span = span;
  memset(out->base, 0, span);
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint8_t *ph = p + phoff + (uint64_t)i * CO_PHDR_SIZE;
    if (kgrt_co_le32(ph) != EMU_PT_LOAD)
      continue;
    memcpy(out->base + kgrt_co_le64(ph + 16), p + kgrt_co_le64(ph + 8),
           kgrt_co_le64(ph + 32));
  }

  out->kernels = kgrt_calloc(alloc, num_names ? num_names : 1, sizeof *out->kernels);
  if (out->kernels == NULL) {
    kgrt_emu_image_unload(out, mem, alloc);
    return kgrt_co_fail(err, err_size, "out of host memory");
  }
  out->num_kernels = num_names;
  for (uint32_t k = 0; k < num_names; ++k) {
    kgrt_emu_kernel_t *kern = &out->kernels[k];
    snprintf(kern->name, sizeof kern->name, "%s", names[k]);
    char kd_name[160];
    snprintf(kd_name, sizeof kd_name, "%s.kd", names[k]);
    uint64_t kd_vaddr = 0, kd_size = 0, fn_vaddr = 0, fn_size = 0;
    int rc = -1;
    if (emu_symbol(&e, kd_name, &kd_vaddr, &kd_size) != 0)
      kgrt_co_fail(err, err_size, "no kernel descriptor %s", kd_name);
    else if (kd_vaddr > span || span - kd_vaddr < EMU_KD_SIZE)
      kgrt_co_fail(err, err_size, "kernel descriptor %s lies outside the segments",
                   kd_name);
    else if (emu_read_descriptor(out->base + kd_vaddr, out->alloc_addr + kd_vaddr,
                                 out->gfx9, kern, err, err_size) != 0)
      ;
    else if (kern->entry < out->alloc_addr || kern->entry >= out->alloc_addr + span)
      kgrt_co_fail(err, err_size, "kernel %s: entry lies outside the segments", names[k]);
    else
      rc = 0;
    if (rc == 0) {
      kern->code_end = out->alloc_addr + span;
      if (emu_symbol(&e, names[k], &fn_vaddr, &fn_size) == 0 && fn_size > 0 &&
          fn_vaddr + fn_size <= span)
        kern->code_end = out->alloc_addr + fn_vaddr + fn_size;
    }
    if (rc != 0) {
      kgrt_emu_image_unload(out, mem, alloc);
      return -1;
    }
  }
  return 0;
}

void kgrt_emu_image_unload(kgrt_emu_image_t *img, kgrt_emu_mem_t *mem,
                           const kgrt_allocator_t *alloc) {
  kgrt_emu_decode_end(img, alloc);
  if (img->alloc_addr != 0)
    kgrt_emu_mem_free(mem, img->alloc_addr);
  kgrt_free(alloc, img->kernels);
  memset(img, 0, sizeof *img);
}
