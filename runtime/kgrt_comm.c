/* kgrt_comm.c - the communicator between the ranks of a split model: its
 * life, its rendezvous, the NCCL-style library it loads for cuda and hip
 * ranks, and the sim device's in-process exchange (see kgrt_comm.h). */
#include "kgrt_comm.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_comm_shm.h"
#include "kgrt_half.h"

kgrt_status_t kgrt_comm_create(uint32_t ranks, const kgrt_allocator_t *alloc,
                               kgrt_comm_t **out_comm, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (out_comm == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_create: out_comm is NULL");
  *out_comm = NULL;
  if (ranks < 1 || ranks > KGRT_MAX_RANKS)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_create: %u ranks (1 to %d)", ranks, KGRT_MAX_RANKS);
  kgrt_allocator_t a = alloc != NULL ? *alloc : (kgrt_allocator_t){0};
  kgrt_comm_t *c = kgrt_calloc(&a, 1, sizeof *c);
  kgrt_comm_slot_t *slots = kgrt_calloc(&a, ranks, sizeof *slots);
  if (c == NULL || slots == NULL) {
    kgrt_free(&a, c);
    kgrt_free(&a, slots);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kgrt_comm_create: out of memory");
  }
  c->alloc = a;
  c->ranks = ranks;
  c->slots = slots;
  if (pthread_mutex_init(&c->mutex, NULL) != 0) {
    kgrt_free(&a, slots);
    kgrt_free(&a, c);
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL, "kgrt_comm_create: no mutex");
  }
  if (pthread_cond_init(&c->cond, NULL) != 0) {
    pthread_mutex_destroy(&c->mutex);
    kgrt_free(&a, slots);
    kgrt_free(&a, c);
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL, "kgrt_comm_create: no condition");
  }
  *out_comm = c;
  return KGRT_STATUS_OK;
}

void kgrt_comm_destroy(kgrt_comm_t *comm) {
  if (comm == NULL)
    return;
  kgrt_comm_shm_close(comm->shm);
  if (comm->library != NULL)
    dlclose(comm->library);
  pthread_cond_destroy(&comm->cond);
  pthread_mutex_destroy(&comm->mutex);
  kgrt_allocator_t a = comm->alloc;
  kgrt_free(&a, comm->slots);
  kgrt_free(&a, comm);
}

/* ---- ids: "KGRTID1\0", the kind (8 bytes, NUL-padded), the shared memory
 * segment's name (64, NUL-padded), zeros */
static const char kgrt_comm_id_magic[8] = "KGRTID1";
enum { ID_KIND = 8, ID_NAME = 16, ID_NAME_BYTES = 64 };

kgrt_status_t kgrt_comm_id_create(const char *kind, kgrt_comm_id_t *out_id,
                                  kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (kind == NULL || out_id == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_id_create: kind or out_id is NULL");
  memset(out_id, 0, sizeof *out_id);
  if (strcmp(kind, "sim") != 0)
    return kgrt_error_set(
        err, KGRT_STATUS_UNAVAILABLE,
        "kgrt_comm_id_create: ranks of %s devices in several processes: "
        "not supported yet (sim only)",
        strcmp(kind, "cuda") == 0 || strcmp(kind, "hip") == 0 ? kind : "other");
  memcpy(out_id->bytes, kgrt_comm_id_magic, sizeof kgrt_comm_id_magic);
  memcpy(out_id->bytes + ID_KIND, "sim", 3);
  return kgrt_comm_shm_name((char *)out_id->bytes + ID_NAME, ID_NAME_BYTES, err);
}

void kgrt_comm_id_text(const kgrt_comm_id_t *id, char text[KGRT_COMM_ID_TEXT]) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < KGRT_COMM_ID_BYTES; ++i) {
    text[2 * i] = hex[id->bytes[i] >> 4];
    text[2 * i + 1] = hex[id->bytes[i] & 15];
  }
  text[2 * KGRT_COMM_ID_BYTES] = '\0';
}

/* A name kgrt_comm_shm_name makes: /kgrt-<digits>-<16 hex digits>. */
static int kgrt_comm_id_name_ok(const char *n) {
  if (strncmp(n, "/kgrt-", 6) != 0)
    return 0;
  const char *p = n + 6, *digits = p;
  while (*p >= '0' && *p <= '9')
    p++;
  if (p == digits || p - digits > 10 || *p++ != '-')
    return 0;
  int hex = 0;
  for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
    hex++;
  return hex == 16 && *p == '\0';
}

/* An id kgrt_comm_id_create makes: the magic, the kind, a name of kgrt's and
 * zeros after it (what reaches shm_open is checked here). */
static int kgrt_comm_id_ok(const kgrt_comm_id_t *id) {
  const unsigned char *b = id->bytes;
  if (memcmp(b, kgrt_comm_id_magic, sizeof kgrt_comm_id_magic) != 0 ||
      memcmp(b + ID_KIND, "sim\0\0\0\0\0", 8) != 0 ||
      memchr(b + ID_NAME, '\0', ID_NAME_BYTES) == NULL ||
      !kgrt_comm_id_name_ok((const char *)b + ID_NAME))
    return 0;
  for (int i = ID_NAME + (int)strlen((const char *)b + ID_NAME); i < KGRT_COMM_ID_BYTES;
       ++i)
    if (b[i] != 0)
      return 0;
  return 1;
}

kgrt_status_t kgrt_comm_id_parse(const char *text, kgrt_comm_id_t *out_id,
                                 kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (text == NULL || out_id == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_id_parse: text or out_id is NULL");
  memset(out_id, 0, sizeof *out_id);
  const size_t n = strlen(text);
  int ok = n == 2 * KGRT_COMM_ID_BYTES;
  for (size_t i = 0; ok && i < n; ++i) {
    const char c = text[i];
    const int v = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : -1;
    if (v < 0)
      ok = 0;
    else
      out_id->bytes[i / 2] = (unsigned char)(out_id->bytes[i / 2] << 4 | v);
  }
  if (!ok || !kgrt_comm_id_ok(out_id)) {
    memset(out_id, 0, sizeof *out_id);
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_id_parse: not a communicator id (%zu characters; "
                          "an id is %d hex digits from kgrt_comm_id_text)",
                          n, 2 * KGRT_COMM_ID_BYTES);
  }
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_comm_init_rank(const kgrt_comm_id_t *id, uint32_t rank, uint32_t ranks,
                                  uint32_t timeout_ms, const kgrt_allocator_t *alloc,
                                  kgrt_comm_t **out_comm, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (out_comm == NULL || id == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_init_rank: id or out_comm is NULL");
  *out_comm = NULL;
  if (!kgrt_comm_id_ok(id))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_init_rank: not a communicator id (make one with "
                          "kgrt_comm_id_create or kgrt_comm_id_parse)");
  if (rank >= ranks)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_comm_init_rank: rank %u of %u", rank, ranks);
  kgrt_comm_t *c = NULL;
  KGRT_RETURN_IF_ERROR(kgrt_comm_create(ranks, alloc, &c, err));
  kgrt_status_t st = kgrt_comm_shm_open((const char *)id->bytes + ID_NAME, rank, ranks,
                                        timeout_ms, alloc, &c->shm, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_comm_destroy(c);
    return st;
  }
  c->shm_rank = rank;
  *out_comm = c;
  return KGRT_STATUS_OK;
}

void kgrt_comm_abort(kgrt_comm_t *comm, const char *why) {
  if (comm != NULL)
    kgrt_comm_break(comm, UINT32_MAX, why != NULL ? why : "aborted");
}

uint32_t kgrt_comm_ranks(const kgrt_comm_t *comm) {
  return comm != NULL ? comm->ranks : 0;
}

/* The broken communicator's error; called with the mutex held. */
static kgrt_status_t kgrt_comm_broken(const kgrt_comm_t *comm, kgrt_error_t *err) {
  return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                        "communicator of %u ranks: broken by %s", comm->ranks, comm->why);
}

kgrt_status_t kgrt_comm_barrier(kgrt_comm_t *comm, kgrt_error_t *err) {
  if (comm->shm != NULL)
    return kgrt_comm_shm_barrier(comm->shm, err);
  pthread_mutex_lock(&comm->mutex);
  kgrt_status_t st = KGRT_STATUS_OK;
  if (comm->broken) {
    st = kgrt_comm_broken(comm, err);
  } else if (++comm->arrived == comm->ranks) {
    comm->arrived = 0;
    comm->generation++;
    pthread_cond_broadcast(&comm->cond);
  } else {
    const uint64_t gen = comm->generation;
    while (comm->generation == gen && !comm->broken)
      pthread_cond_wait(&comm->cond, &comm->mutex);
    if (comm->generation == gen)
      st = kgrt_comm_broken(comm, err);
  }
  pthread_mutex_unlock(&comm->mutex);
  return st;
}

void kgrt_comm_break(kgrt_comm_t *comm, uint32_t rank, const char *why) {
  if (comm->shm != NULL)
    kgrt_comm_shm_break(comm->shm, rank, why);
  pthread_mutex_lock(&comm->mutex);
  if (!comm->broken) {
    comm->broken = 1;
    if (rank == UINT32_MAX) /* kgrt_comm_abort */
      snprintf(comm->why, sizeof comm->why, "the host: %s", why);
    else
      snprintf(comm->why, sizeof comm->why, "rank %u: %s", rank, why);
  }
  pthread_cond_broadcast(&comm->cond);
  pthread_mutex_unlock(&comm->mutex);
}

#define KGRT_NCCL_SYMBOL(name)                                                           \
  { #name, offsetof(kgrt_nccl_api_t, name), 0 }
#define KGRT_NCCL_OPTIONAL(name)                                                         \
  { #name, offsetof(kgrt_nccl_api_t, name), 1 }
static const kgrt_dl_symbol_t kgrt_nccl_symbols[] = {
    KGRT_NCCL_SYMBOL(ncclGetUniqueId),
    KGRT_NCCL_SYMBOL(ncclCommInitRank),
    KGRT_NCCL_SYMBOL(ncclCommDestroy),
    KGRT_NCCL_SYMBOL(ncclAllReduce),
    KGRT_NCCL_SYMBOL(ncclAllGather),
    KGRT_NCCL_SYMBOL(ncclBroadcast),
    KGRT_NCCL_SYMBOL(ncclGetErrorString),
    KGRT_NCCL_OPTIONAL(ncclMemAlloc),
    KGRT_NCCL_OPTIONAL(ncclMemFree),
    KGRT_NCCL_OPTIONAL(ncclCommWindowRegister),
    KGRT_NCCL_OPTIONAL(ncclCommWindowDeregister),
    KGRT_NCCL_OPTIONAL(ncclCommInitRankConfig),
};

/* Loads the library and makes the id; called with the mutex held. */
static kgrt_status_t kgrt_comm_nccl_load(kgrt_comm_t *comm, const char *soname,
                                         kgrt_error_t *err) {
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "communicator: cannot load %s (%s)", soname, dlerror());
  const char *missing = NULL;
  if (kgrt_dl_resolve(lib, kgrt_nccl_symbols,
                      sizeof kgrt_nccl_symbols / sizeof kgrt_nccl_symbols[0], &comm->nccl,
                      &missing) != 0) {
    dlclose(lib);
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "communicator: %s has no %s",
                          soname, missing);
  }
  kgrt_nccl_result_t r = comm->nccl.ncclGetUniqueId(&comm->id);
  if (r != 0) {
    kgrt_status_t st =
        kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR, "communicator: ncclGetUniqueId: %s",
                       comm->nccl.ncclGetErrorString(r));
    dlclose(lib);
    return st;
  }
  comm->library = lib;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_comm_nccl_join(kgrt_comm_t *comm, const char *soname, uint32_t rank,
                                  const char *who, int min_ctas,
                                  kgrt_comm_nccl_rank_t *out, kgrt_error_t *err) {
  out->api = NULL;
  out->comm = NULL;
  if (comm->shm != NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "%s: a communicator of several processes (kgrt_comm_init_rank) "
                          "takes sim devices only for now",
                          who);
  pthread_mutex_lock(&comm->mutex);
  kgrt_status_t st = KGRT_STATUS_OK;
  if (comm->library == NULL)
    st = kgrt_comm_nccl_load(comm, soname, err);
  const kgrt_nccl_id_t id = comm->id;
  pthread_mutex_unlock(&comm->mutex);
  KGRT_RETURN_IF_ERROR(st);
  kgrt_nccl_result_t r;
  if (min_ctas > 0) {
    if (comm->nccl.ncclCommInitRankConfig == NULL)
      return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                            "%s: %s has no ncclCommInitRankConfig for ctas=%d (NCCL "
                            "2.14 or later; ctas=0 takes the library's own choice)",
                            who, soname, min_ctas);
    kgrt_nccl_config_t config = {
        .size = sizeof config,
        .magic = 0xcafebeefu,
        .version = 21700, /* NCCL_VERSION(2, 17, 0): the fields up to net_name */
        .blocking = 1,    /* returns once the communicator is made */
        .cga_cluster_size = INT_MIN, /* NCCL_CONFIG_UNDEF_INT: the library's default */
        .min_ctas = min_ctas,
        /* set: NCCL checks min <= max before it fills in defaults */
        .max_ctas = KGRT_NCCL_MAX_CTAS,
        .net_name = NULL, /* NCCL_CONFIG_UNDEF_PTR */
    };
    r = comm->nccl.ncclCommInitRankConfig(&out->comm, (int)comm->ranks, id, (int)rank,
                                          &config);
  } else {
    r = comm->nccl.ncclCommInitRank(&out->comm, (int)comm->ranks, id, (int)rank);
  }
  if (r != 0)
    return kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR,
                          "%s: ncclCommInitRank%s (rank %u of %u): %s", who,
                          min_ctas > 0 ? "Config" : "", rank, comm->ranks,
                          comm->nccl.ncclGetErrorString(r));
  out->api = &comm->nccl;
  return KGRT_STATUS_OK;
}

void kgrt_comm_nccl_leave(kgrt_comm_nccl_rank_t *rank) {
  if (rank->window != NULL)
    rank->api->ncclCommWindowDeregister(rank->comm, rank->window);
  if (rank->window_base != NULL)
    rank->api->ncclMemFree(rank->window_base);
  rank->window = NULL;
  rank->window_base = NULL;
  if (rank->comm != NULL)
    rank->api->ncclCommDestroy(rank->comm);
  rank->comm = NULL;
}

/* Do all ranks bring the same nonzero `value`? Every rank calls it; it
 * returns once all have read every rank's value. */
static kgrt_status_t kgrt_comm_agree(kgrt_comm_t *comm, uint32_t rank, uint64_t value,
                                     int *out_same, kgrt_error_t *err) {
  pthread_mutex_lock(&comm->mutex);
  comm->slots[rank] = (kgrt_comm_slot_t){.count = value};
  pthread_mutex_unlock(&comm->mutex);
  KGRT_RETURN_IF_ERROR(kgrt_comm_barrier(comm, err));
  int same = value != 0;
  pthread_mutex_lock(&comm->mutex);
  for (uint32_t r = 0; r < comm->ranks; ++r)
    same = same && comm->slots[r].count == value;
  pthread_mutex_unlock(&comm->mutex);
  *out_same = same;
  return kgrt_comm_barrier(comm, err); /* no slot is reused before all have read */
}

kgrt_status_t kgrt_comm_nccl_window(kgrt_comm_t *comm, uint32_t rank,
                                    kgrt_comm_nccl_rank_t *r, size_t bytes,
                                    const char *who, uint64_t *out_addr,
                                    kgrt_error_t *err) {
  const kgrt_nccl_api_t *api = r->api;
  *out_addr = 0;
  /* one library per communicator: every rank sees the same entry points */
  if (api->ncclMemAlloc == NULL || api->ncclMemFree == NULL ||
      api->ncclCommWindowRegister == NULL || api->ncclCommWindowDeregister == NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "%s: no NCCL windows", who);
  /* a rank that holds a window already asks for none, but still agrees */
  void *base = NULL;
  if (bytes == 0 || r->window_base != NULL || api->ncclMemAlloc(&base, bytes) != 0)
    base = NULL;
  int same = 0;
  kgrt_status_t st =
      kgrt_comm_agree(comm, rank, base != NULL ? (uint64_t)bytes : 0, &same, err);
  if (st != KGRT_STATUS_OK || !same) {
    if (base != NULL)
      api->ncclMemFree(base);
    return st != KGRT_STATUS_OK
               ? st
               : kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                                "%s: a rank could not allocate %zu bytes "
                                "of window, or asked for another size",
                                who, bytes);
  }
  kgrt_nccl_result_t e = api->ncclCommWindowRegister(r->comm, base, bytes, &r->window,
                                                     KGRT_NCCL_WIN_COLL_SYMMETRIC);
  if (e != 0) {
    r->window = NULL;
    api->ncclMemFree(base);
    return kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR,
                          "%s: ncclCommWindowRegister of %zu bytes: %s", who, bytes,
                          api->ncclGetErrorString(e));
  }
  r->window_base = base;
  *out_addr = (uint64_t)(uintptr_t)base;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_comm_nccl_run(const kgrt_comm_nccl_rank_t *rank,
                                 const kgrt_device_collective_t *c, void *stream,
                                 const char *who, kgrt_error_t *err) {
  const int dtype = c->dtype == KGRT_DTYPE_F16    ? KGRT_NCCL_FLOAT16
                    : c->dtype == KGRT_DTYPE_BF16 ? KGRT_NCCL_BFLOAT16
                    : c->dtype == KGRT_DTYPE_I32  ? KGRT_NCCL_INT32
                                                  : KGRT_NCCL_FLOAT32;
  const void *src = (const void *)(uintptr_t)c->src;
  void *dst = (void *)(uintptr_t)c->dst;
  const size_t n = (size_t)c->count;
  kgrt_nccl_result_t r;
  const char *call;
  switch (c->op) {
  case KGRT_COLLECTIVE_ALL_GATHER:
    call = "ncclAllGather";
    r = rank->api->ncclAllGather(src, dst, n, dtype, rank->comm, stream);
    break;
  case KGRT_COLLECTIVE_BROADCAST:
    call = "ncclBroadcast";
    r = rank->api->ncclBroadcast(src, dst, n, dtype, (int)c->root, rank->comm, stream);
    break;
  default:
    call = "ncclAllReduce";
    r = rank->api->ncclAllReduce(src, dst, n, dtype, KGRT_NCCL_SUM, rank->comm, stream);
    break;
  }
  if (r != 0)
    return kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR, "%s: %s of %llu elements: %s",
                          who, call, (unsigned long long)c->count,
                          rank->api->ncclGetErrorString(r));
  return KGRT_STATUS_OK;
}

static float kgrt_comm_load(const unsigned char *p, kgrt_dtype_t dtype, uint64_t i) {
  uint16_t h;
  float f;
  switch (dtype) {
  case KGRT_DTYPE_F16:
    memcpy(&h, p + 2 * i, 2);
    return kgrt_f16_to_f32(h);
  case KGRT_DTYPE_BF16:
    memcpy(&h, p + 2 * i, 2);
    return kgrt_bf16_to_f32(h);
  default:
    memcpy(&f, p + 4 * i, 4);
    return f;
  }
}

static void kgrt_comm_store(unsigned char *p, kgrt_dtype_t dtype, uint64_t i, float f) {
  uint16_t h;
  switch (dtype) {
  case KGRT_DTYPE_F16:
    h = kgrt_f32_to_f16(f);
    memcpy(p + 2 * i, &h, 2);
    break;
  case KGRT_DTYPE_BF16:
    h = kgrt_f32_to_bf16(f);
    memcpy(p + 2 * i, &h, 2);
    break;
  default:
    memcpy(p + 4 * i, &f, 4);
    break;
  }
}

size_t kgrt_comm_elem_bytes(kgrt_dtype_t dtype) {
  return dtype == KGRT_DTYPE_F16 || dtype == KGRT_DTYPE_BF16 ? 2 : 4;
}

int kgrt_comm_slot_mismatch(const kgrt_comm_slot_t *mine, const kgrt_comm_slot_t *s,
                            uint32_t r, char *why, size_t size) {
  if (s->op == mine->op && s->dtype == mine->dtype && s->count == mine->count &&
      s->root == mine->root)
    return 0;
  snprintf(why, size,
           "collective %d of %llu elements, rank %u's %d of %llu: the ranks run "
           "different plans",
           (int)mine->op, (unsigned long long)mine->count, r, (int)s->op,
           (unsigned long long)s->count);
  return 1;
}

void kgrt_comm_sim_combine(const kgrt_comm_slot_t *mine, uint32_t ranks,
                           const unsigned char *const *src) {
  unsigned char *dst = (unsigned char *)(uintptr_t)mine->dst;
  const size_t elem = kgrt_comm_elem_bytes(mine->dtype);
  if (mine->op == KGRT_COLLECTIVE_BROADCAST) {
    /* the root's bytes as they are (its own dst too, src != dst) */
    memmove(dst, src[mine->root], mine->count * elem);
  } else if (mine->op == KGRT_COLLECTIVE_ALL_GATHER) {
    for (uint32_t r = 0; r < ranks; ++r)
      memcpy(dst + (size_t)r * mine->count * elem, src[r], mine->count * elem);
  } else {
    for (uint64_t i = 0; i < mine->count; ++i) {
      float sum = 0.0f;
      for (uint32_t r = 0; r < ranks; ++r)
        sum += kgrt_comm_load(src[r], mine->dtype, i);
      kgrt_comm_store(dst, mine->dtype, i, sum);
    }
  }
}

kgrt_status_t kgrt_comm_sim_exchange(kgrt_comm_t *comm, uint32_t rank,
                                     const kgrt_comm_slot_t *mine, kgrt_error_t *err) {
  if (comm->shm != NULL)
    return kgrt_comm_shm_exchange(comm->shm, rank, mine, err);
  pthread_mutex_lock(&comm->mutex);
  comm->slots[rank] = *mine;
  pthread_mutex_unlock(&comm->mutex);
  KGRT_RETURN_IF_ERROR(kgrt_comm_barrier(comm, err));
  const unsigned char *src[KGRT_MAX_RANKS];
  for (uint32_t r = 0; r < comm->ranks; ++r) {
    char why[160];
    if (kgrt_comm_slot_mismatch(mine, &comm->slots[r], r, why, sizeof why)) {
      kgrt_comm_break(comm, rank, why);
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION, "rank %u: %s", rank,
                            why);
    }
    src[r] = (const unsigned char *)(uintptr_t)comm->slots[r].src;
  }
  kgrt_comm_sim_combine(mine, comm->ranks, src);
  /* no rank may change its src (its next step) before all have read it */
  return kgrt_comm_barrier(comm, err);
}
