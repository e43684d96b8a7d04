/* kgrt_emu_device.c - the emu device: runs an arch table's real AMD code
 * object (gfx11 wave32, gfx9 wave64) instruction by instruction on the CPU.
 *
 * Needs kgrt_emu.h: the region (device memory), the loader, the interpreter
 * (kgrt_emu_run) or a peer process ($KGRT_EMU_PEER, kgrt_emu_peer.c). Gives
 * kgrt_device_emu_create. A device address is a host address in the region;
 * every call completes before it returns. Each launch may touch its buffer
 * arguments' bytes (as the plan bounds them, like the sim's checks), read its
 * kernarg segment and the code object; any other access is an error naming
 * the kernel, the program counter and the instruction. Options: workers=N
 * (host threads, default one per CPU), memory=BYTES (the region, default
 * 16 GiB of address space; pages are taken when written), stats=1 (destroying
 * the device prints its launches and wave-instructions to stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt_device.h"
#include "kgrt_emu.h"
#include "kgrt_emu_run.h"

typedef struct kgrt_emu_device {
  kgrt_device_t base;
  char arch[32]; /* "": the model's first gfx9 or gfx11 arch */
  unsigned workers;
  int stats; /* stats=1: print the launches and wave-instructions when destroyed */
  uint64_t memory;
  kgrt_emu_mem_t *mem;
  kgrt_emu_peer_t *peer;
  uint64_t launches, insts;
  double seconds, cpu_seconds; /* wall; the interpreter threads' CPU */
} kgrt_emu_device_t;

struct kgrt_device_program {
  kgrt_emu_image_t image;
  const kgrt_arch_table_t *arch;
  uint64_t kernarg; /* one block, as large as the largest kernarg segment */
  uint32_t kernarg_bytes;
  kgrt_emu_range_t *ranges; /* per launch: num_args + 2 */
  double timer_start_us;
};

static kgrt_emu_device_t *emu_cast(kgrt_device_t *d) {
  return (kgrt_emu_device_t *)d;
}

static int emu_arch_ok(const char *arch) {
  return strncmp(arch, "gfx9", 4) == 0 || strncmp(arch, "gfx11", 5) == 0;
}

uint32_t kgrt_emu_user_sgprs(const kgrt_emu_kernel_t *k, uint64_t kernarg,
                             uint32_t out[16]) {
  uint32_t n = 0;
  const uint16_t p = k->properties;
  memset(out, 0, 16 * sizeof out[0]);
  if (p & 1u) /* private segment buffer: unused with architected flat scratch */
    n += 4;
  if (p & 2u) /* dispatch ptr */
    n += 2;
  if (p & 4u) /* queue ptr */
    n += 2;
  if (p & 8u) { /* kernarg segment ptr */
    if (n + 2 <= 16) {
      out[n] = (uint32_t)kernarg;
      out[n + 1] = (uint32_t)(kernarg >> 32);
    }
    n += 2;
  }
  return n < k->user_sgprs ? k->user_sgprs : n;
}

static void emu_destroy(kgrt_device_t *device) {
  kgrt_emu_device_t *d = emu_cast(device);
  kgrt_allocator_t alloc = device->alloc;
  if (d->stats)
    fprintf(stderr,
            "emu: %llu launches, %llu wave-instructions in %.2f s (%.2f M/s; %.2f M/s "
            "per core of interpreter CPU time)\n",
            (unsigned long long)d->launches, (unsigned long long)d->insts, d->seconds,
            d->seconds > 0 ? (double)d->insts / d->seconds / 1e6 : 0.0,
            d->cpu_seconds > 0 ? (double)d->insts / d->cpu_seconds / 1e6 : 0.0);
  kgrt_emu_peer_close(d->peer);
  kgrt_emu_mem_destroy(d->mem);
  kgrt_free(&alloc, d);
}

static kgrt_status_t emu_arch_select(kgrt_device_t *device,
                                     const kgrt_model_table_t *table,
                                     const kgrt_arch_table_t **out_arch,
                                     kgrt_error_t *err) {
  kgrt_emu_device_t *d = emu_cast(device);
  if (d->arch[0] != '\0') {
    const kgrt_arch_table_t *arch = kgrt_table_find_arch(table, d->arch);
    if (arch == NULL)
      return kgrt_error_no_matching_arch(err, table, d->arch);
    *out_arch = arch;
    return KGRT_STATUS_OK;
  }
  for (uint32_t i = 0; i < table->num_arches; ++i)
    if (emu_arch_ok(table->arches[i]->arch)) {
      *out_arch = table->arches[i];
      return KGRT_STATUS_OK;
    }
  return kgrt_error_no_matching_arch(err, table, "emu (gfx9 or gfx11)");
}

static void emu_program_unload(kgrt_device_t *device, kgrt_device_program_t *p) {
  if (p == NULL)
    return;
  kgrt_emu_device_t *d = emu_cast(device);
  for (uint32_t k = 0; k < p->image.num_kernels; ++k)
    if (p->image.kernels[k].code != NULL) {
      kgrt_emu_code_free(p->image.kernels[k].code, &device->alloc);
      kgrt_free(&device->alloc, p->image.kernels[k].code);
    }
  kgrt_emu_image_unload(&p->image, d->mem, &device->alloc);
  kgrt_emu_mem_free(d->mem, p->kernarg);
  kgrt_free(&device->alloc, p->ranges);
  kgrt_free(&device->alloc, p);
}

static kgrt_status_t emu_program_load(kgrt_device_t *device,
                                      const kgrt_model_table_t *table,
                                      const kgrt_arch_table_t *arch,
                                      kgrt_device_program_t **out_program,
                                      kgrt_error_t *err) {
  kgrt_emu_device_t *d = emu_cast(device);
  const char *name = table->name != NULL ? table->name : "?";
  *out_program = NULL;
  if (!emu_arch_ok(arch->arch))
    return kgrt_error_set(err, KGRT_STATUS_NO_MATCHING_ARCH,
                          "model %s: emu runs gfx9 and gfx11 code, not %s", name,
                          arch->arch);
  kgrt_device_program_t *p = kgrt_calloc(&device->alloc, 1, sizeof *p);
  const char **names = kgrt_calloc(&device->alloc, arch->num_kernels + 1, sizeof *names);
  uint32_t max_args = 1;
  for (uint32_t k = 0; k < arch->num_kernels; ++k) {
    if (arch->kernels[k].num_args > max_args)
      max_args = arch->kernels[k].num_args;
    if (arch->kernels[k].kernarg_size > (p ? p->kernarg_bytes : 0) && p != NULL)
      p->kernarg_bytes = arch->kernels[k].kernarg_size;
  }
  if (p == NULL || names == NULL ||
      (p->ranges = kgrt_calloc(&device->alloc, max_args + 2, sizeof *p->ranges)) ==
          NULL) {
    kgrt_free(&device->alloc, names);
    if (p != NULL)
      kgrt_free(&device->alloc, p->ranges);
    kgrt_free(&device->alloc, p);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "emu: out of host memory");
  }
  p->arch = arch;
  for (uint32_t k = 0; k < arch->num_kernels; ++k)
    names[k] = arch->kernels[k].name;
  char reason[256] = "";
  int rc = kgrt_emu_image_load(arch->image, arch->image_size, names, arch->num_kernels,
                               d->mem, &device->alloc, &p->image, reason, sizeof reason);
  kgrt_free(&device->alloc, names);
  if (rc != 0) {
    kgrt_free(&device->alloc, p->ranges);
    kgrt_free(&device->alloc, p);
    return kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT, "model %s: %s: %s", name,
                          arch->arch, reason);
  }
  p->kernarg = kgrt_emu_mem_alloc(d->mem, p->kernarg_bytes + 256);
  if (p->kernarg == 0) {
    emu_program_unload(device, p);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "emu: no device memory for the kernarg segment");
  }
  for (uint32_t k = 0; k < arch->num_kernels; ++k) {
    const kgrt_emu_kernel_t *ek = &p->image.kernels[k];
    if (ek->wave_size != arch->wave_size) {
      kgrt_status_t st = kgrt_error_set(
          err, KGRT_STATUS_ABI_MISMATCH,
          "model %s: %s: kernel %s: the descriptor says wave%u, the table wave%u", name,
          arch->arch, ek->name, ek->wave_size, arch->wave_size);
      emu_program_unload(device, p);
      return st;
    }
  }
  /* the interpreter decodes every kernel once, here */
  for (uint32_t k = 0; k < arch->num_kernels && getenv("KGRT_EMU_PEER") == NULL; ++k) {
    kgrt_emu_code_t *code = kgrt_calloc(&device->alloc, 1, sizeof *code);
    if (code == NULL ||
        kgrt_emu_decode_kernel(&p->image, &p->image.kernels[k], &device->alloc, code,
                               reason, sizeof reason) != 0) {
      kgrt_free(&device->alloc, code);
      kgrt_status_t st =
          kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT, "model %s: %s: %s", name,
                         arch->arch, code ? reason : "out of host memory");
      emu_program_unload(device, p);
      return st;
    }
    p->image.kernels[k].code = code;
  }
  kgrt_emu_decode_end(&p->image, &device->alloc);
  if (d->peer == NULL && getenv("KGRT_EMU_PEER") != NULL) {
    rc = kgrt_emu_peer_open(getenv("KGRT_EMU_PEER"), d->mem, arch->arch, &device->alloc,
                            &d->peer, reason, sizeof reason);
    if (rc != 0) {
      emu_program_unload(device, p);
      return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "emu: %s", reason);
    }
  }
  *out_program = p;
  return KGRT_STATUS_OK;
}

static kgrt_status_t emu_buffer_alloc(kgrt_device_t *device, size_t bytes,
                                      uint64_t *out_addr, kgrt_error_t *err) {
  kgrt_emu_device_t *d = emu_cast(device);
  *out_addr = kgrt_emu_mem_alloc(d->mem, bytes);
  if (*out_addr == 0)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "emu: out of device memory: %zu bytes asked of a %llu-byte "
                          "region",
                          bytes, (unsigned long long)kgrt_emu_mem_size(d->mem));
  memset((void *)(uintptr_t)*out_addr, 0xff, bytes); /* poison, as the sim */
  return KGRT_STATUS_OK;
}

static void emu_buffer_free(kgrt_device_t *device, uint64_t addr) {
  kgrt_emu_mem_free(emu_cast(device)->mem, addr);
}

static kgrt_status_t emu_buffer_write(kgrt_device_t *device, kgrt_device_program_t *p,
                                      uint64_t dst, const void *src, size_t bytes,
                                      kgrt_error_t *err) {
  (void)device, (void)p, (void)err;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return KGRT_STATUS_OK;
}

static kgrt_status_t emu_buffer_read(kgrt_device_t *device, kgrt_device_program_t *p,
                                     void *dst, uint64_t src, size_t bytes,
                                     kgrt_error_t *err) {
  (void)device, (void)p, (void)err;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return KGRT_STATUS_OK;
}

static kgrt_status_t emu_buffer_copy(kgrt_device_t *device, kgrt_device_program_t *p,
                                     uint64_t dst, uint64_t src, size_t bytes,
                                     kgrt_error_t *err) {
  (void)device, (void)p, (void)err;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return KGRT_STATUS_OK;
}

static double emu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int emu_range_cmp(const void *a, const void *b) {
  const kgrt_emu_range_t *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The launch's ranges, sorted, overlapping ones merged (an argument passed
 * twice, in place). Returns their count. */
static uint32_t emu_ranges(kgrt_device_program_t *p, const kgrt_device_launch_t *launch,
                           const kgrt_kernel_t *kern) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < launch->num_args && i < kern->num_args; ++i) {
    if (launch->arg_bytes[i] == 0 || kern->args[i].kind != KGRT_ARG_BUFFER)
      continue;
    uint64_t ptr = 0;
    memcpy(&ptr, launch->kernarg + kern->args[i].offset, sizeof ptr);
    p->ranges[n++] = (kgrt_emu_range_t){ptr, ptr + launch->arg_bytes[i], 1, (int)i};
  }
  p->ranges[n++] =
      (kgrt_emu_range_t){p->kernarg, p->kernarg + launch->kernarg_size, 0, -1};
  p->ranges[n++] =
      (kgrt_emu_range_t){p->image.alloc_addr, p->image.alloc_addr + p->image.span, 0, -2};
  qsort(p->ranges, n, sizeof *p->ranges, emu_range_cmp);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (m > 0 && p->ranges[i].lo < p->ranges[m - 1].hi) {
      if (p->ranges[i].hi > p->ranges[m - 1].hi)
        p->ranges[m - 1].hi = p->ranges[i].hi;
      p->ranges[m - 1].writable |= p->ranges[i].writable;
    } else {
      p->ranges[m++] = p->ranges[i];
    }
  }
  return m;
}

static kgrt_status_t emu_launch(kgrt_device_t *device, kgrt_device_program_t *p,
                                const kgrt_device_launch_t *launch, kgrt_error_t *err) {
  kgrt_emu_device_t *d = emu_cast(device);
  const kgrt_kernel_t *kern = &p->arch->kernels[launch->kernel];
  if (launch->kernarg_size > p->kernarg_bytes)
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL, "emu: kernarg segment too large");
  memcpy((void *)(uintptr_t)p->kernarg, launch->kernarg, launch->kernarg_size);
  kgrt_emu_launch_t l = {
      .image = &p->image,
      .kernel = &p->image.kernels[launch->kernel],
      .grid_x = launch->grid_x,
      .block_x = launch->block_x,
      .kernarg = p->kernarg,
      .ranges = p->ranges,
      .num_ranges = emu_ranges(p, launch, kern),
      .workers = d->workers,
  };
  char reason[512] = "";
  uint64_t insts = 0;
  double cpu = 0;
  const double t0 = emu_now();
  int rc = d->peer != NULL
               ? kgrt_emu_peer_run(d->peer, &l, &insts, reason, sizeof reason)
               : kgrt_emu_run(&l, &device->alloc, &insts, &cpu, reason, sizeof reason);
  d->seconds += emu_now() - t0;
  d->cpu_seconds += cpu;
  d->launches++;
  d->insts += insts;
  if (rc != 0)
    return kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR, "emu: kernel %s: %s",
                          launch->kernel_name, reason);
  return KGRT_STATUS_OK;
}

static kgrt_status_t emu_timer(kgrt_device_t *device, kgrt_device_program_t *p, int stop,
                               double *out_us, kgrt_error_t *err) {
  (void)device, (void)err;
  if (!stop)
    p->timer_start_us = emu_now() * 1e6;
  else
    *out_us = emu_now() * 1e6 - p->timer_start_us;
  return KGRT_STATUS_OK;
}

static const kgrt_device_vtable_t kgrt_emu_vtable = {
    .kind = "emu",
    .destroy = emu_destroy,
    .arch_select = emu_arch_select,
    .program_load = emu_program_load,
    .program_unload = emu_program_unload,
    .buffer_alloc = emu_buffer_alloc,
    .buffer_free = emu_buffer_free,
    .buffer_write = emu_buffer_write,
    .buffer_read = emu_buffer_read,
    .launch = emu_launch,
    .timer = emu_timer,
    .buffer_copy = emu_buffer_copy,
};

kgrt_status_t kgrt_device_emu_create(const char *arch, const char *options,
                                     const kgrt_allocator_t *alloc,
                                     kgrt_device_t **out_device, kgrt_error_t *err) {
  *out_device = NULL;
  uint64_t workers = 0, memory = (uint64_t)16 << 30, stats = 0;
  if (options != NULL && *options == '\0')
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "emu: empty option list");
  for (const char *s = options; s != NULL && *s != '\0';) {
    const char *at = s;
    char key[16];
    uint64_t v = 0;
    int ok = kgrt_options_next(&s, key, sizeof key, &v) == 0;
    if (ok && strcmp(key, "workers") == 0 && v <= 4096)
      workers = v;
    else if (ok && strcmp(key, "memory") == 0 && v >= 65536 && v <= ((uint64_t)1 << 46))
      memory = v;
    else if (ok && strcmp(key, "stats") == 0 && v <= 1)
      stats = v;
    else
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "emu: bad option '%s' (expected workers=N, stats=0|1 or "
                            "memory=BYTES, 64 KiB to 64 TiB)",
                            at);
  }
  if (arch != NULL &&
      (strlen(arch) >= sizeof(((kgrt_emu_device_t *)0)->arch) || !emu_arch_ok(arch)))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "emu: '%s' is not a gfx9 or gfx11 arch", arch);
  kgrt_emu_device_t *d = kgrt_calloc(alloc, 1, sizeof *d);
  if (d == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "emu: out of host memory");
  d->base.vtable = &kgrt_emu_vtable;
  if (alloc != NULL)
    d->base.alloc = *alloc;
  char reason[256] = "";
  if (kgrt_emu_mem_create(memory, alloc, &d->mem, reason, sizeof reason) != 0) {
    kgrt_free(alloc, d);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "emu: %s", reason);
  }
  if (arch != NULL)
    strcpy(d->arch, arch);
  d->workers = (unsigned)workers;
  d->stats = (int)stats;
  d->memory = memory;
  int n = snprintf(d->base.name, sizeof d->base.name, "emu%s%s", arch ? ":" : "",
                   arch ? arch : "");
  if (workers != 0)
    snprintf(d->base.name + n, sizeof d->base.name - (size_t)n, ",workers=%u",
             (unsigned)workers);
  *out_device = &d->base;
  return KGRT_STATUS_OK;
}
