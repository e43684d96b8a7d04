/* kgrt_comm.h - the communicator between the ranks of a split model
 * (internal): what kgrt_join.c and the devices share of kgrt_comm_t.
 *
 * A communicator is created for N ranks; each rank's model joins it from its
 * own thread (kgrt_model_join). Its rendezvous (a barrier that a failing rank
 * breaks, so that no rank waits forever) serves joining on every device and
 * the sim device's in-process exchange; the NCCL-style library (libnccl on
 * cuda, librccl on hip: the same C API) is loaded once per communicator and
 * its unique id made by the first rank to join.
 *
 * Needs kgrt.h, kgrt_base.h. Gives the communicator's internals and the
 * NCCL API table. */
#ifndef KGRT_COMM_H
#define KGRT_COMM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"
#include "kgrt_base.h"
#include "kgrt_device.h"

/* ---- the NCCL C API (NCCL 2.x; RCCL has the same) ------------------------ */
typedef struct kgrt_nccl_id {
  char internal[128]; /* NCCL_UNIQUE_ID_BYTES */
} kgrt_nccl_id_t;
typedef struct kgrt_nccl_comm *kgrt_nccl_comm_t;
typedef struct kgrt_nccl_window *kgrt_nccl_window_t;
typedef int kgrt_nccl_result_t; /* 0: ncclSuccess */
enum {
  KGRT_NCCL_SUM = 0,
  KGRT_NCCL_INT32 = 2,
  KGRT_NCCL_FLOAT16 = 6,
  KGRT_NCCL_FLOAT32 = 7,
  KGRT_NCCL_BFLOAT16 = 9,
  KGRT_NCCL_WIN_COLL_SYMMETRIC = 1, /* ncclCommWindowRegister's winFlags */
  KGRT_NCCL_MAX_CTAS = 64, /* NCCL 2.28's MAXCHANNELS: the most CTAs a collective takes */
};
/* The first fields of ncclConfig_t, as NCCL 2.17 defined them. The library
 * copies `size` bytes of it, takes every field its `version` has, and its
 * own defaults for the rest; NCCL_CONFIG_INITIALIZER's magic and "unset"
 * values (INT_MIN, NULL) are written by kgrt_comm_nccl_join. RCCL follows
 * NCCL's header (not run here: no AMD GPU). */
typedef struct kgrt_nccl_config {
  size_t size;
  unsigned magic;   /* 0xcafebeef */
  unsigned version; /* NCCL_VERSION(2, 17, 0) */
  int blocking;
  int cga_cluster_size;
  int min_ctas; /* the fewest CTAs (workgroups) a collective runs on */
  int max_ctas;
  const char *net_name;
} kgrt_nccl_config_t;

typedef struct kgrt_nccl_api {
  kgrt_nccl_result_t (*ncclGetUniqueId)(kgrt_nccl_id_t *id);
  kgrt_nccl_result_t (*ncclCommInitRank)(kgrt_nccl_comm_t *comm, int nranks,
                                         kgrt_nccl_id_t id, int rank);
  kgrt_nccl_result_t (*ncclCommDestroy)(kgrt_nccl_comm_t comm);
  kgrt_nccl_result_t (*ncclAllReduce)(const void *send, void *recv, size_t count,
                                      int dtype, int op, kgrt_nccl_comm_t comm,
                                      void *stream);
  kgrt_nccl_result_t (*ncclBroadcast)(const void *send, void *recv, size_t count,
                                      int dtype, int root, kgrt_nccl_comm_t comm,
                                      void *stream);
  kgrt_nccl_result_t (*ncclAllGather)(const void *send, void *recv, size_t count,
                                      int dtype, kgrt_nccl_comm_t comm, void *stream);
  const char *(*ncclGetErrorString)(kgrt_nccl_result_t result);
  /* optional (NCCL 2.27 and later): memory every rank maps (cuMem), and its
   * registration as a symmetric window, which the collectives' symmetric
   * kernels read and write straight across NVLink */
  kgrt_nccl_result_t (*ncclMemAlloc)(void **ptr, size_t size);
  kgrt_nccl_result_t (*ncclMemFree)(void *ptr);
  kgrt_nccl_result_t (*ncclCommWindowRegister)(kgrt_nccl_comm_t comm, void *buff,
                                               size_t size, kgrt_nccl_window_t *win,
                                               int flags);
  kgrt_nccl_result_t (*ncclCommWindowDeregister)(kgrt_nccl_comm_t comm,
                                                 kgrt_nccl_window_t win);
  /* optional (NCCL 2.14 and later) */
  kgrt_nccl_result_t (*ncclCommInitRankConfig)(kgrt_nccl_comm_t *comm, int nranks,
                                               kgrt_nccl_id_t id, int rank,
                                               kgrt_nccl_config_t *config);
} kgrt_nccl_api_t;

/* What one rank brings to a sim exchange. */
typedef struct kgrt_comm_slot {
  uint64_t src, dst; /* host addresses (sim buffers) */
  uint64_t count;    /* elements of src */
  kgrt_collective_t op;
  kgrt_dtype_t dtype;
  uint32_t root; /* a broadcast's */
} kgrt_comm_slot_t;

struct kgrt_comm {
  kgrt_allocator_t alloc;
  uint32_t ranks;
  /* kgrt_comm_init_rank's: this process's one rank of a communicator whose
   * other ranks are other processes (kgrt_comm_shm.c; sim devices), else
   * NULL: every rank in this process */
  struct kgrt_comm_shm *shm;
  uint32_t shm_rank;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  /* the rendezvous: `arrived` of `ranks` at the barrier of this generation */
  uint32_t arrived;
  uint64_t generation;
  int broken; /* a rank failed: every wait returns an error from now on */
  char why[256];
  uint64_t joined;         /* bit per rank that has joined */
  const char *kind;        /* the device kind of the first to join ("sim", "cuda") */
  kgrt_comm_slot_t *slots; /* ranks */
  /* the library of cuda and hip ranks, and the id of their communicator */
  void *library;
  kgrt_nccl_api_t nccl;
  kgrt_nccl_id_t id;
};

/* Waits until every rank has called it (a barrier), or fails with the
 * reason when the communicator is broken (before or while waiting). */
KGRT_INTERNAL kgrt_status_t kgrt_comm_barrier(kgrt_comm_t *comm, kgrt_error_t *err);
/* Breaks the communicator for good: ranks waiting in kgrt_comm_barrier, and
 * all that come later, fail with "rank R: why". */
KGRT_INTERNAL void kgrt_comm_break(kgrt_comm_t *comm, uint32_t rank, const char *why);

/* A rank of a communicator through an NCCL-style library (cuda: libnccl,
 * hip: librccl). The device makes its context current before each call. */
typedef struct kgrt_comm_nccl_rank {
  const kgrt_nccl_api_t *api;
  kgrt_nccl_comm_t comm;
  void *window_base; /* kgrt_comm_nccl_window's memory (NULL: none) */
  kgrt_nccl_window_t window;
} kgrt_comm_nccl_rank_t;

/* Loads `soname` (the first rank to call it; it makes the unique id too)
 * and initialises this rank's NCCL communicator: returns once every rank
 * has called it. `who` names the device in messages. min_ctas > 0: the
 * communicator's collectives run on at least that many CTAs (ncclConfig_t's
 * minCTAs; an error where the library has no ncclCommInitRankConfig);
 * 0: the library's own choice. */
KGRT_INTERNAL kgrt_status_t kgrt_comm_nccl_join(kgrt_comm_t *comm, const char *soname,
                                                uint32_t rank, const char *who,
                                                int min_ctas, kgrt_comm_nccl_rank_t *out,
                                                kgrt_error_t *err);
/* Deregisters and frees the window, if any, then ends the rank. */
KGRT_INTERNAL void kgrt_comm_nccl_leave(kgrt_comm_nccl_rank_t *rank);
/* `bytes` of memory every rank of the communicator maps, registered as a
 * symmetric window: every rank calls it with its own rank, and it returns
 * once all have (a collective). The memory is the rank's until
 * kgrt_comm_nccl_leave. UNAVAILABLE, with nothing held on any rank, where
 * the library has no windows (before NCCL 2.27), a rank could not allocate
 * or asked for 0 bytes, or the ranks asked for different sizes: the caller
 * keeps ordinary memory. Other errors come from the registration itself. */
KGRT_INTERNAL kgrt_status_t kgrt_comm_nccl_window(kgrt_comm_t *comm, uint32_t rank,
                                                  kgrt_comm_nccl_rank_t *r, size_t bytes,
                                                  const char *who, uint64_t *out_addr,
                                                  kgrt_error_t *err);
/* Queues one collective step on `stream` (a CUstream or hipStream_t). */
KGRT_INTERNAL kgrt_status_t kgrt_comm_nccl_run(const kgrt_comm_nccl_rank_t *rank,
                                               const kgrt_device_collective_t *c,
                                               void *stream, const char *who,
                                               kgrt_error_t *err);

/* Bytes of one element of a collective's dtype (f16, bf16: 2; f32, i32: 4). */
KGRT_INTERNAL size_t kgrt_comm_elem_bytes(kgrt_dtype_t dtype);
/* 1 (and why) where rank r's slot is not the same collective as mine. */
KGRT_INTERNAL int kgrt_comm_slot_mismatch(const kgrt_comm_slot_t *mine,
                                          const kgrt_comm_slot_t *theirs, uint32_t r,
                                          char *why, size_t size);
/* mine->dst from every rank's source (src[r]: count elements of rank r):
 * the sum in f32 in rank order, rounded once; the ranks' sources one after
 * another; or the root's. */
KGRT_INTERNAL void kgrt_comm_sim_combine(const kgrt_comm_slot_t *mine, uint32_t ranks,
                                         const unsigned char *const *src);

/* The sim exchange of one collective step: every rank publishes its slot,
 * then each computes its own dst from all ranks' src (the sum in f32 over the
 * ranks in rank order, rounded once, so every rank's bits agree; or the
 * ranks' src one after another), then all wait until every rank is done
 * reading. Ranks that bring different ops, dtypes or counts fail. */
KGRT_INTERNAL kgrt_status_t kgrt_comm_sim_exchange(kgrt_comm_t *comm, uint32_t rank,
                                                   const kgrt_comm_slot_t *mine,
                                                   kgrt_error_t *err);

#endif /* KGRT_COMM_H */
