/* kgrt_comm_shm.h - a communicator's ranks in several processes of one host,
 * for sim devices (internal): a POSIX shared memory segment named by the
 * communicator's id holds the rendezvous (a process-shared robust mutex and
 * condition), each rank's collective slot and a data area per rank that its
 * sim buffers are copied through (process memory is not shared).
 *
 * Liveness: each rank holds a robust mutex of its own from its join until it
 * leaves; the kernel hands such a mutex on with EOWNERDEAD when its holder
 * ends (killed or exited, reaped or not), so that a waiting rank finds a
 * dead one within a tick (KGRT_COMM_SHM_TICK_MS) and fails instead of
 * waiting. A rank that never arrives at the join fails the others at the
 * join's timeout.
 *
 * Needs kgrt_comm.h. Gives kgrt_comm_shm_*. */
#ifndef KGRT_COMM_SHM_H
#define KGRT_COMM_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_comm.h"

#define KGRT_COMM_SHM_TICK_MS 50
/* bytes of one rank's src a collective may copy (virtual: the segment's
 * pages are only touched as far as collectives write) */
#define KGRT_COMM_SHM_CAPACITY ((uint64_t)256 << 20)

typedef struct kgrt_comm_shm kgrt_comm_shm_t;

/* A fresh segment name for an id: "/kgrt-<pid>-<16 hex digits>". */
KGRT_INTERNAL kgrt_status_t kgrt_comm_shm_name(char *name, size_t size,
                                               kgrt_error_t *err);
/* Rank `rank` of `ranks` attaches to the segment `name` (rank 0 creates it,
 * the others wait for it until the join's deadline), and holds its liveness
 * mutex. */
KGRT_INTERNAL kgrt_status_t kgrt_comm_shm_open(const char *name, uint32_t rank,
                                               uint32_t ranks, uint32_t timeout_ms,
                                               const kgrt_allocator_t *alloc,
                                               kgrt_comm_shm_t **out, kgrt_error_t *err);
/* Leaves: the rank's liveness mutex released, marked as left (ranks still
 * waiting for it fail), the segment unmapped (and unlinked by rank 0 if it
 * still has its name). NULL is ignored. */
KGRT_INTERNAL void kgrt_comm_shm_close(kgrt_comm_shm_t *shm);
/* A barrier of every rank of every process; the first one (the join) fails
 * at the join's timeout for ranks that never arrived, and every one fails
 * within a tick of a rank's end, or when the communicator is broken. */
KGRT_INTERNAL kgrt_status_t kgrt_comm_shm_barrier(kgrt_comm_shm_t *shm,
                                                  kgrt_error_t *err);
/* Breaks the communicator for every process: "rank R: why". */
KGRT_INTERNAL void kgrt_comm_shm_break(kgrt_comm_shm_t *shm, uint32_t rank,
                                       const char *why);
/* kgrt_comm_sim_exchange across processes: this rank's src copied into its
 * data area, a barrier, dst computed from every rank's area as the
 * in-process exchange computes it (kgrt_comm_sim_reduce), a barrier. */
KGRT_INTERNAL kgrt_status_t kgrt_comm_shm_exchange(kgrt_comm_shm_t *shm, uint32_t rank,
                                                   const kgrt_comm_slot_t *mine,
                                                   kgrt_error_t *err);

#endif /* KGRT_COMM_SHM_H */
