/* kgrt_device_sim.c - the sim device: runs an arch table's sim image (the
 * kernels compiled for the host) on the CPU through the sim engine.
 *
 * Needs kgrt_sim.h (image loading, kgrt_sim_run) and the caller's allocator.
 * Gives kgrt_device_sim_create. Device memory is host memory from the
 * allocator, aligned to 256 bytes and zeroed; a device address is the host
 * address. Every call completes before it returns. Options: wave=N forces the
 * wave size (default: the arch's), workers=N the number of host threads
 * (default 0: one per CPU), memory=BYTES caps the bytes of the buffers live
 * at once (a device of that size: past it, OUT_OF_MEMORY), graphs=0 turns
 * graph replay off. A graph is the launches and copies recorded while
 * capturing, run again in order by graph_launch (replay = run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt_device.h"
#include "kgrt_hash.h"
#include "kgrt_comm.h"
#include "kgrt_sim.h"

#define KGRT_SIM_ALIGN 256

typedef struct kgrt_sim_device {
  kgrt_device_t base;
  char arch[32];    /* "": the model's first arch with a sim image */
  unsigned wave;    /* 0: the arch's wave size */
  unsigned workers; /* 0: one per CPU */
  uint64_t memory;  /* the cap on live buffer bytes; 0: none */
  uint64_t used;    /* live buffer bytes */
} kgrt_sim_device_t;

/* One recorded launch (kernarg != NULL), collective (is_collective) or
 * device copy. */
typedef struct kgrt_sim_record {
  kgrt_device_launch_t launch; /* its kernarg and arg_bytes are the record's own */
  uint64_t copy_dst, copy_src;
  size_t copy_bytes;
  int is_collective;
  kgrt_device_collective_t collective;
} kgrt_sim_record_t;

struct kgrt_device_graph {
  kgrt_sim_record_t *records;
  size_t count, capacity;
  int failed; /* a record could not be kept: graph_end fails */
};

struct kgrt_device_program {
  kgrt_sim_image_t *image;
  kgrt_sim_entry_t *entries; /* per kernel of the arch table */
  unsigned wave_size;
  double timer_start_us;          /* kgrt_sim_timer */
  kgrt_device_graph_t *capturing; /* NULL: launches run */
  kgrt_comm_t *comm;              /* kgrt_model_join's, else NULL */
  uint32_t rank;
};

static kgrt_sim_device_t *kgrt_sim_cast(kgrt_device_t *device) {
  return (kgrt_sim_device_t *)device;
}

static void kgrt_sim_destroy(kgrt_device_t *device) {
  kgrt_allocator_t alloc = device->alloc;
  kgrt_free(&alloc, device);
}

static kgrt_status_t kgrt_sim_arch_select(kgrt_device_t *device,
                                          const kgrt_model_table_t *table,
                                          const kgrt_arch_table_t **out_arch,
                                          kgrt_error_t *err) {
  kgrt_sim_device_t *sim = kgrt_sim_cast(device);
  const char *name = table->name != NULL ? table->name : "?";
  if (sim->arch[0] != '\0') {
    const kgrt_arch_table_t *arch = kgrt_table_find_arch(table, sim->arch);
    if (arch == NULL)
      return kgrt_error_no_matching_arch(err, table, sim->arch);
    if (arch->sim_image == NULL || arch->sim_image_size == 0)
      return kgrt_error_set(err, KGRT_STATUS_NO_MATCHING_ARCH,
                            "model %s: built for %s without a sim image", name,
                            sim->arch);
    *out_arch = arch;
    return KGRT_STATUS_OK;
  }
  for (uint32_t i = 0; i < table->num_arches; ++i) {
    if (table->arches[i]->sim_image != NULL && table->arches[i]->sim_image_size > 0) {
      *out_arch = table->arches[i];
      return KGRT_STATUS_OK;
    }
  }
  return kgrt_error_no_matching_arch(err, table, "sim (no arch has a sim image)");
}

static void kgrt_sim_graph_destroy(kgrt_device_t *device, kgrt_device_graph_t *graph) {
  if (graph == NULL)
    return;
  for (size_t i = 0; i < graph->count; ++i)
    kgrt_free(&device->alloc, (void *)graph->records[i].launch.kernarg);
  kgrt_free(&device->alloc, graph->records);
  kgrt_free(&device->alloc, graph);
}

static void kgrt_sim_program_unload(kgrt_device_t *device,
                                    kgrt_device_program_t *program) {
  if (program == NULL)
    return;
  kgrt_sim_graph_destroy(device, program->capturing);
  if (program->image != NULL)
    kgrt_sim_image_unload(program->image);
  kgrt_free(&device->alloc, program);
}

static kgrt_status_t kgrt_sim_program_load(kgrt_device_t *device,
                                           const kgrt_model_table_t *table,
                                           const kgrt_arch_table_t *arch,
                                           kgrt_device_program_t **out_program,
                                           kgrt_error_t *err) {
  kgrt_sim_device_t *sim = kgrt_sim_cast(device);
  const char *name = table->name != NULL ? table->name : "?";
  *out_program = NULL;
  void *slots;
  kgrt_device_program_t *p =
      kgrt_program_calloc(&device->alloc, sizeof *p, arch->num_kernels,
                          sizeof *p->entries, &slots, "sim", err);
  if (p == NULL)
    return KGRT_STATUS_OUT_OF_MEMORY;
  p->entries = slots;
  p->wave_size = sim->wave != 0 ? sim->wave : arch->wave_size;

  /* the image is host code: its bytes must be those kgen wrote */
  const uint64_t hash = kgrt_hash64(arch->sim_image, arch->sim_image_size);
  if (hash != arch->sim_image_hash) {
    kgrt_sim_program_unload(device, p);
    return kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT,
                          "model %s: %s: the sim image's %zu bytes hash to 0x%016llx, "
                          "the table says 0x%016llx (a damaged table)",
                          name, arch->arch, arch->sim_image_size,
                          (unsigned long long)hash,
                          (unsigned long long)arch->sim_image_hash);
  }
  char reason[256];
  reason[0] = '\0';
  const int rc = kgrt_sim_image_load(arch->sim_image, arch->sim_image_size,
                                     &device->alloc, &p->image, reason, sizeof reason);
  if (rc != 0) {
    p->image = NULL;
    kgrt_sim_program_unload(device, p);
    return kgrt_error_set(err,
                          rc == KGRT_SIM_NO_MEMORY ? KGRT_STATUS_OUT_OF_MEMORY
                                                   : KGRT_STATUS_INVALID_CODE_OBJECT,
                          "model %s: %s: %s", name, arch->arch, reason);
  }
  for (uint32_t k = 0; k < arch->num_kernels; ++k) {
    p->entries[k] = kgrt_sim_image_entry(p->image, arch->kernels[k].name);
    if (p->entries[k] == NULL) {
      kgrt_status_t st = kgrt_error_set(err, KGRT_STATUS_MISSING_KERNEL,
                                        "model %s: %s sim image has no %s__sim", name,
                                        arch->arch, arch->kernels[k].name);
      kgrt_sim_program_unload(device, p);
      return st;
    }
  }
  *out_program = p;
  return KGRT_STATUS_OK;
}

/* The allocation's start and the buffer's size are kept in the 16 bytes
 * before the aligned block. */
#define KGRT_SIM_HEAD (sizeof(void *) + sizeof(size_t))

static kgrt_status_t kgrt_sim_buffer_alloc(kgrt_device_t *device, size_t bytes,
                                           uint64_t *out_addr, kgrt_error_t *err) {
  kgrt_sim_device_t *sim = kgrt_sim_cast(device);
  *out_addr = 0;
  if (sim->memory != 0 && bytes > sim->memory - sim->used)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "sim: out of device memory: %zu bytes asked, %llu of %llu in "
                          "use",
                          bytes, (unsigned long long)sim->used,
                          (unsigned long long)sim->memory);
  if (bytes > SIZE_MAX - KGRT_SIM_ALIGN - KGRT_SIM_HEAD)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "sim: %zu bytes is too large",
                          bytes);
  unsigned char *raw = kgrt_alloc(&device->alloc, bytes + KGRT_SIM_ALIGN + KGRT_SIM_HEAD);
  if (raw == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "sim: out of host memory for a %zu-byte buffer", bytes);
  uintptr_t start = (uintptr_t)(raw + KGRT_SIM_HEAD);
  unsigned char *p =
      (unsigned char *)((start + KGRT_SIM_ALIGN - 1) & ~(uintptr_t)(KGRT_SIM_ALIGN - 1));
  memcpy(p - KGRT_SIM_HEAD, &raw, sizeof raw);
  memcpy(p - sizeof(size_t), &bytes, sizeof bytes);
  memset(p, 0xff, bytes); /* poison: NaN in every float dtype, -1 in i32 */
  sim->used += bytes;
  *out_addr = (uint64_t)(uintptr_t)p;
  return KGRT_STATUS_OK;
}

static void kgrt_sim_buffer_free(kgrt_device_t *device, uint64_t addr) {
  if (addr == 0)
    return;
  unsigned char *p = (unsigned char *)(uintptr_t)addr;
  void *raw;
  size_t bytes;
  memcpy(&raw, p - KGRT_SIM_HEAD, sizeof raw);
  memcpy(&bytes, p - sizeof(size_t), sizeof bytes);
  kgrt_sim_cast(device)->used -= bytes;
  kgrt_free(&device->alloc, raw);
}

static kgrt_status_t kgrt_sim_buffer_write(kgrt_device_t *device,
                                           kgrt_device_program_t *program, uint64_t dst,
                                           const void *src, size_t bytes,
                                           kgrt_error_t *err) {
  (void)device, (void)program, (void)err;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_sim_buffer_read(kgrt_device_t *device,
                                          kgrt_device_program_t *program, void *dst,
                                          uint64_t src, size_t bytes, kgrt_error_t *err) {
  (void)device, (void)program, (void)err;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return KGRT_STATUS_OK;
}

/* Appends a record to the graph being captured: a launch (its kernarg and
 * arg_bytes copied into one allocation) or a copy. */
static kgrt_status_t kgrt_sim_record(kgrt_device_t *device, kgrt_device_graph_t *g,
                                     const kgrt_device_launch_t *launch,
                                     const kgrt_device_collective_t *collective,
                                     uint64_t dst, uint64_t src, size_t bytes,
                                     kgrt_error_t *err) {
  if (g->count == g->capacity) {
    size_t cap = g->capacity ? 2 * g->capacity : 16;
    kgrt_sim_record_t *r = kgrt_calloc(&device->alloc, cap, sizeof *r);
    if (r == NULL) {
      g->failed = 1;
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "sim: out of host memory");
    }
    if (g->count > 0)
      memcpy(r, g->records, g->count * sizeof *r);
    kgrt_free(&device->alloc, g->records);
    g->records = r;
    g->capacity = cap;
  }
  kgrt_sim_record_t *r = &g->records[g->count];
  memset(r, 0, sizeof *r);
  if (launch != NULL) {
    const size_t head = (launch->kernarg_size + 7) / 8 * 8;
    unsigned char *copy =
        kgrt_alloc(&device->alloc, head + launch->num_args * sizeof(unsigned long long));
    if (copy == NULL) {
      g->failed = 1;
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "sim: out of host memory");
    }
    memcpy(copy, launch->kernarg, launch->kernarg_size);
    memcpy(copy + head, launch->arg_bytes, launch->num_args * sizeof(unsigned long long));
    r->launch = *launch;
    r->launch.kernarg = copy;
    r->launch.arg_bytes = (const unsigned long long *)(void *)(copy + head);
  } else if (collective != NULL) {
    r->is_collective = 1;
    r->collective = *collective;
  } else {
    r->copy_dst = dst;
    r->copy_src = src;
    r->copy_bytes = bytes;
  }
  g->count++;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_sim_launch(kgrt_device_t *device,
                                     kgrt_device_program_t *program,
                                     const kgrt_device_launch_t *launch,
                                     kgrt_error_t *err) {
  kgrt_sim_device_t *sim = kgrt_sim_cast(device);
  if (program->capturing != NULL)
    return kgrt_sim_record(device, program->capturing, launch, NULL, 0, 0, 0, err);
  kgrt_sim_launch_t l = {
      .kernel = launch->kernel_name,
      .entry = program->entries[launch->kernel],
      .kernarg = launch->kernarg,
      .arg_bytes = launch->arg_bytes,
      .grid_x = launch->grid_x,
      .block_x = launch->block_x,
      .wave_size = program->wave_size,
      .workers = sim->workers,
  };
  char reason[256];
  reason[0] = '\0';
  const int rc = kgrt_sim_run(&l, &device->alloc, reason, sizeof reason);
  if (rc != 0)
    return kgrt_error_set(err,
                          rc == KGRT_SIM_NO_MEMORY ? KGRT_STATUS_OUT_OF_MEMORY
                                                   : KGRT_STATUS_DEVICE_ERROR,
                          "sim: %s", reason);
  return KGRT_STATUS_OK;
}

static double kgrt_sim_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Launches run to completion on the host, so the host clock times them. */
static kgrt_status_t kgrt_sim_timer(kgrt_device_t *device, kgrt_device_program_t *program,
                                    int stop, double *out_us, kgrt_error_t *err) {
  (void)device;
  (void)err;
  if (!stop)
    program->timer_start_us = kgrt_sim_now_us();
  else
    *out_us = kgrt_sim_now_us() - program->timer_start_us;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_sim_buffer_copy(kgrt_device_t *device,
                                          kgrt_device_program_t *program, uint64_t dst,
                                          uint64_t src, size_t bytes, kgrt_error_t *err) {
  if (program->capturing != NULL)
    return kgrt_sim_record(device, program->capturing, NULL, NULL, dst, src, bytes, err);
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return KGRT_STATUS_OK;
}

/* Joining: the ranks meet once, so that join returns with all of them in. */
static kgrt_status_t kgrt_sim_comm_join(kgrt_device_t *device,
                                        kgrt_device_program_t *program, kgrt_comm_t *comm,
                                        uint32_t rank, kgrt_error_t *err) {
  (void)device;
  KGRT_RETURN_IF_ERROR(kgrt_comm_barrier(comm, err));
  program->comm = comm;
  program->rank = rank;
  return KGRT_STATUS_OK;
}

static void kgrt_sim_comm_leave(kgrt_device_t *device, kgrt_device_program_t *program) {
  (void)device;
  program->comm = NULL;
}

/* Runs with the other ranks (kgrt_comm_sim_exchange), or is recorded. */
static kgrt_status_t kgrt_sim_collective(kgrt_device_t *device,
                                         kgrt_device_program_t *program,
                                         const kgrt_device_collective_t *c,
                                         kgrt_error_t *err) {
  if (program->capturing != NULL)
    return kgrt_sim_record(device, program->capturing, NULL, c, 0, 0, 0, err);
  if (program->comm == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL, "sim: a collective without a comm");
  const kgrt_comm_slot_t mine = {.src = c->src,
                                 .dst = c->dst,
                                 .count = c->count,
                                 .op = c->op,
                                 .dtype = c->dtype,
                                 .root = c->root};
  return kgrt_comm_sim_exchange(program->comm, program->rank, &mine, err);
}

static kgrt_status_t kgrt_sim_graph_begin(kgrt_device_t *device,
                                          kgrt_device_program_t *program,
                                          kgrt_error_t *err) {
  kgrt_sim_graph_destroy(device, program->capturing);
  program->capturing = kgrt_calloc(&device->alloc, 1, sizeof *program->capturing);
  if (program->capturing == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "sim: out of host memory");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_sim_graph_end(kgrt_device_t *device,
                                        kgrt_device_program_t *program,
                                        kgrt_device_graph_t **out_graph,
                                        kgrt_error_t *err) {
  kgrt_device_graph_t *g = program->capturing;
  program->capturing = NULL;
  *out_graph = NULL;
  if (g == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL, "sim: graph_end without a capture");
  if (g->failed) {
    kgrt_sim_graph_destroy(device, g);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "sim: out of host memory while capturing");
  }
  *out_graph = g;
  return KGRT_STATUS_OK;
}

/* The new capture's records into graph (the old ones freed). */
static kgrt_status_t kgrt_sim_graph_update(kgrt_device_t *device,
                                           kgrt_device_program_t *program,
                                           kgrt_device_graph_t *graph,
                                           kgrt_error_t *err) {
  kgrt_device_graph_t *g = NULL;
  KGRT_RETURN_IF_ERROR(kgrt_sim_graph_end(device, program, &g, err));
  const kgrt_device_graph_t old = *graph;
  *graph = *g;
  *g = old;
  kgrt_sim_graph_destroy(device, g);
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_sim_graph_launch(kgrt_device_t *device,
                                           kgrt_device_program_t *program,
                                           kgrt_device_graph_t *graph,
                                           kgrt_error_t *err) {
  for (size_t i = 0; i < graph->count; ++i) {
    const kgrt_sim_record_t *r = &graph->records[i];
    kgrt_status_t st =
        r->launch.kernarg != NULL ? kgrt_sim_launch(device, program, &r->launch, err)
        : r->is_collective ? kgrt_sim_collective(device, program, &r->collective, err)
                           : kgrt_sim_buffer_copy(device, program, r->copy_dst,
                                                  r->copy_src, r->copy_bytes, err);
    if (st != KGRT_STATUS_OK)
      return st;
  }
  return KGRT_STATUS_OK;
}

static const kgrt_device_vtable_t kgrt_sim_vtable = {
    .kind = "sim",
    .destroy = kgrt_sim_destroy,
    .arch_select = kgrt_sim_arch_select,
    .program_load = kgrt_sim_program_load,
    .program_unload = kgrt_sim_program_unload,
    .buffer_alloc = kgrt_sim_buffer_alloc,
    .buffer_free = kgrt_sim_buffer_free,
    .buffer_write = kgrt_sim_buffer_write,
    .buffer_read = kgrt_sim_buffer_read,
    .launch = kgrt_sim_launch,
    .timer = kgrt_sim_timer,
    .buffer_copy = kgrt_sim_buffer_copy,
    .graph_begin = kgrt_sim_graph_begin,
    .graph_end = kgrt_sim_graph_end,
    .graph_launch = kgrt_sim_graph_launch,
    .graph_destroy = kgrt_sim_graph_destroy,
    .graph_update = kgrt_sim_graph_update,
    .comm_join = kgrt_sim_comm_join,
    .comm_leave = kgrt_sim_comm_leave,
    .collective = kgrt_sim_collective,
};

kgrt_status_t kgrt_device_sim_create(const char *arch, const char *options,
                                     const kgrt_allocator_t *alloc,
                                     kgrt_device_t **out_device, kgrt_error_t *err) {
  *out_device = NULL;
  uint64_t wave = 0, workers = 0, memory = 0, graphs = 1;
  if (options != NULL && *options == '\0')
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "sim: empty option list");
  for (const char *s = options; s != NULL && *s != '\0';) {
    const char *at = s;
    char key[16];
    uint64_t v = 0;
    int ok = kgrt_options_next(&s, key, sizeof key, &v) == 0;
    if (ok && strcmp(key, "wave") == 0 && v >= 1 && v <= 64 && (v & (v - 1)) == 0)
      wave = v;
    else if (ok && strcmp(key, "workers") == 0 && v <= 4096)
      workers = v;
    else if (ok && strcmp(key, "memory") == 0 && v >= 1)
      memory = v;
    else if (ok && strcmp(key, "graphs") == 0 && v <= 1)
      graphs = v;
    else
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "sim: bad option '%s' (expected wave=N, N a power of two up "
                            "to 64, workers=N, memory=BYTES or graphs=0|1)",
                            at);
  }
  if (arch != NULL && strlen(arch) >= sizeof(((kgrt_sim_device_t *)0)->arch))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "sim: arch name too long");

  kgrt_sim_device_t *sim = kgrt_calloc(alloc, 1, sizeof *sim);
  if (sim == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "sim: out of host memory");
  sim->base.vtable = &kgrt_sim_vtable;
  if (alloc != NULL)
    sim->base.alloc = *alloc;
  if (arch != NULL)
    strcpy(sim->arch, arch);
  sim->wave = (unsigned)wave;
  sim->workers = (unsigned)workers;
  sim->memory = memory;
  sim->base.replay = (int)graphs;
  /* The canonical spec: "sim[:ARCH][,wave=N][,workers=N]". */
  int n = snprintf(sim->base.name, sizeof sim->base.name, "sim%s%s", arch ? ":" : "",
                   arch ? arch : "");
  if (wave != 0)
    n += snprintf(sim->base.name + n, sizeof sim->base.name - (size_t)n, ",wave=%u",
                  (unsigned)wave);
  if (workers != 0)
    n += snprintf(sim->base.name + n, sizeof sim->base.name - (size_t)n, ",workers=%u",
                  (unsigned)workers);
  if (memory != 0)
    n += snprintf(sim->base.name + n, sizeof sim->base.name - (size_t)n, ",memory=%llu",
                  (unsigned long long)memory);
  if (!graphs)
    snprintf(sim->base.name + n, sizeof sim->base.name - (size_t)n, ",graphs=0");
  *out_device = &sim->base;
  return KGRT_STATUS_OK;
}
