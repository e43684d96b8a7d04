/* kgrt_comm_shm.c - a communicator's ranks in several processes of one host,
 * for sim devices: the segment, its rendezvous and the exchange through it
 * (see kgrt_comm_shm.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kgrt_comm_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SHM_MAGIC 0x314d48534d52474bull /* "KGRMSHM1" */

enum { RANK_ABSENT = 0, RANK_JOINED = 1, RANK_LEFT = 2 };

typedef struct shm_rank {
  pthread_mutex_t alive; /* robust: held by the rank from its join until it leaves */
  int32_t pid;
  uint32_t state;        /* RANK_* */
  kgrt_comm_slot_t slot; /* its collective (src and dst are its own addresses) */
} shm_rank_t;

typedef struct shm_header {
  _Atomic uint64_t magic; /* set last, once the rest is ready */
  uint32_t ranks;
  uint32_t pad;
  uint64_t capacity;     /* data bytes per rank */
  pthread_mutex_t mutex; /* robust */
  pthread_cond_t cond;
  uint32_t arrived;
  uint64_t generation;
  int broken;
  char why[256];
  shm_rank_t rank[KGRT_MAX_RANKS];
} shm_header_t;

struct kgrt_comm_shm {
  kgrt_allocator_t alloc;
  char name[64];
  int unlinked;
  uint32_t rank, ranks;
  uint32_t timeout_ms; /* the join's */
  int joined;          /* the first barrier (the join) is done */
  size_t bytes;
  shm_header_t *h;
  unsigned char *data; /* ranks x capacity */
};

static size_t shm_bytes(uint32_t ranks) {
  return (sizeof(shm_header_t) + 63) / 64 * 64 + (size_t)ranks * KGRT_COMM_SHM_CAPACITY;
}

kgrt_status_t kgrt_comm_shm_name(char *name, size_t size, kgrt_error_t *err) {
  uint64_t r = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t got = fd >= 0 ? read(fd, &r, sizeof r) : -1;
  if (fd >= 0)
    close(fd);
  if (got != (ssize_t)sizeof r)
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL,
                          "kgrt_comm_id_create: no random bytes");
  snprintf(name, size, "/kgrt-%ld-%016llx", (long)getpid(), (unsigned long long)r);
  return KGRT_STATUS_OK;
}

static void deadline_after(struct timespec *t, uint32_t ms) {
  clock_gettime(CLOCK_MONOTONIC, t);
  t->tv_sec += ms / 1000;
  t->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec++;
    t->tv_nsec -= 1000000000L;
  }
}

static int passed(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* Locks the segment's mutex; a holder that died leaves it consistent again
 * and the communicator broken (its state is not to be trusted). */
static void shm_lock(shm_header_t *h) {
  if (pthread_mutex_lock(&h->mutex) == EOWNERDEAD) {
    pthread_mutex_consistent(&h->mutex);
    if (!h->broken) {
      h->broken = 1;
      snprintf(h->why, sizeof h->why, "a rank ended inside the communicator's lock");
    }
  }
}

static void shm_break_locked(shm_header_t *h, const char *why) {
  if (!h->broken) {
    h->broken = 1;
    snprintf(h->why, sizeof h->why, "%s", why);
  }
  pthread_cond_broadcast(&h->cond);
}

/* With the lock held: breaks the communicator where a rank that joined has
 * ended or left (its liveness mutex free, or handed on by the kernel). */
static void shm_check_ranks(kgrt_comm_shm_t *s) {
  shm_header_t *h = s->h;
  for (uint32_t r = 0; r < s->ranks && !h->broken; ++r) {
    shm_rank_t *q = &h->rank[r];
    if (r == s->rank || q->state == RANK_ABSENT)
      continue;
    char why[160];
    if (q->state == RANK_LEFT) {
      snprintf(why, sizeof why, "rank %u (pid %d) left the communicator", r, (int)q->pid);
      shm_break_locked(h, why);
      continue;
    }
    const int rc = pthread_mutex_trylock(&q->alive);
    if (rc == EBUSY)
      continue;
    if (rc == EOWNERDEAD)
      pthread_mutex_consistent(&q->alive);
    if (rc == 0 || rc == EOWNERDEAD) {
      pthread_mutex_unlock(&q->alive);
      q->state = RANK_LEFT;
      snprintf(why, sizeof why, "rank %u (pid %d) ended without leaving", r, (int)q->pid);
      shm_break_locked(h, why);
    }
  }
}

static kgrt_status_t shm_broken(const kgrt_comm_shm_t *s, kgrt_error_t *err) {
  return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                        "communicator of %u ranks in several processes: broken by %s",
                        s->ranks, s->h->why);
}

/* Rank 0: creates and initialises the segment. */
static kgrt_status_t shm_create(kgrt_comm_shm_t *s, kgrt_error_t *err) {
  int fd = shm_open(s->name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "kgrt_comm_init_rank: shm_open %s: %s", s->name,
                          strerror(errno));
  if (ftruncate(fd, (off_t)s->bytes) != 0) {
    const int e = errno;
    close(fd);
    shm_unlink(s->name);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kgrt_comm_init_rank: %s: %zu bytes: %s", s->name, s->bytes,
                          strerror(e));
  }
  void *p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(s->name);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "kgrt_comm_init_rank: mmap: %s",
                          strerror(errno));
  }
  shm_header_t *h = p;
  h->ranks = s->ranks;
  h->capacity = KGRT_COMM_SHM_CAPACITY;
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
  int rc = pthread_mutex_init(&h->mutex, &ma);
  for (uint32_t r = 0; r < s->ranks && rc == 0; ++r)
    rc = pthread_mutex_init(&h->rank[r].alive, &ma);
  pthread_mutexattr_destroy(&ma);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  if (rc == 0)
    rc = pthread_cond_init(&h->cond, &ca);
  pthread_condattr_destroy(&ca);
  if (rc != 0) {
    munmap(p, s->bytes);
    shm_unlink(s->name);
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL,
                          "kgrt_comm_init_rank: no process-shared mutex: %s",
                          strerror(rc));
  }
  atomic_store(&h->magic, SHM_MAGIC);
  s->h = h;
  return KGRT_STATUS_OK;
}

/* The other ranks: wait (until the join's deadline) for rank 0's segment. */
static kgrt_status_t shm_attach(kgrt_comm_shm_t *s, const struct timespec *deadline,
                                kgrt_error_t *err) {
  for (;;) {
    int fd = shm_open(s->name, O_RDWR, 0);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size >= sizeof(shm_header_t)) {
      if ((uint64_t)st.st_size != s->bytes) {
        close(fd);
        return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                              "kgrt_comm_init_rank: %s is a communicator of other ranks "
                              "(%lld bytes, %zu for %u ranks)",
                              s->name, (long long)st.st_size, s->bytes, s->ranks);
      }
      void *p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      if (p == MAP_FAILED)
        return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                              "kgrt_comm_init_rank: mmap: %s", strerror(errno));
      shm_header_t *h = p;
      while (atomic_load(&h->magic) != SHM_MAGIC && !passed(deadline))
        usleep(1000);
      if (atomic_load(&h->magic) == SHM_MAGIC && h->ranks == s->ranks) {
        s->h = h;
        return KGRT_STATUS_OK;
      }
      munmap(p, s->bytes);
      if (!passed(deadline))
        return kgrt_error_set(
            err, KGRT_STATUS_INVALID_ARGUMENT,
            "kgrt_comm_init_rank: %s is a communicator of %u ranks, not %u", s->name,
            h->ranks, s->ranks);
    } else if (fd >= 0) {
      close(fd);
    }
    if (passed(deadline))
      return kgrt_error_set(
          err, KGRT_STATUS_UNAVAILABLE,
          "kgrt_comm_init_rank: rank %u: rank 0 made no communicator %s "
          "within %u ms",
          s->rank, s->name, s->timeout_ms);
    usleep(KGRT_COMM_SHM_TICK_MS * 1000);
  }
}

kgrt_status_t kgrt_comm_shm_open(const char *name, uint32_t rank, uint32_t ranks,
                                 uint32_t timeout_ms, const kgrt_allocator_t *alloc,
                                 kgrt_comm_shm_t **out, kgrt_error_t *err) {
  *out = NULL;
  kgrt_allocator_t a = alloc != NULL ? *alloc : (kgrt_allocator_t){0};
  kgrt_comm_shm_t *s = kgrt_calloc(&a, 1, sizeof *s);
  if (s == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kgrt_comm_init_rank: out of memory");
  s->alloc = a;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->rank = rank;
  s->ranks = ranks;
  s->timeout_ms = timeout_ms;
  s->bytes = shm_bytes(ranks);
  struct timespec deadline;
  deadline_after(&deadline, timeout_ms);
  kgrt_status_t st = rank == 0 ? shm_create(s, err) : shm_attach(s, &deadline, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_free(&a, s);
    return st;
  }
  s->data = (unsigned char *)s->h + (sizeof(shm_header_t) + 63) / 64 * 64;
  shm_header_t *h = s->h;
  shm_rank_t *me = &h->rank[rank];
  shm_lock(h);
  const char *why = h->broken ? h->why : me->state != RANK_ABSENT ? "is taken" : NULL;
  if (why == NULL) {
    const int rc = pthread_mutex_trylock(&me->alive);
    if (rc == EOWNERDEAD)
      pthread_mutex_consistent(&me->alive);
    if (rc == 0 || rc == EOWNERDEAD) {
      me->pid = (int32_t)getpid();
      me->state = RANK_JOINED;
    } else {
      why = "is taken";
    }
  }
  pthread_mutex_unlock(&h->mutex);
  if (why != NULL) {
    st = kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                        "kgrt_comm_init_rank: rank %u of %s: %s", rank, s->name, why);
    munmap(s->h, s->bytes);
    kgrt_free(&a, s);
    return st;
  }
  *out = s;
  return KGRT_STATUS_OK;
}

void kgrt_comm_shm_close(kgrt_comm_shm_t *s) {
  if (s == NULL)
    return;
  shm_header_t *h = s->h;
  shm_lock(h);
  h->rank[s->rank].state = RANK_LEFT;
  const int broken = h->broken;
  pthread_cond_broadcast(&h->cond);
  pthread_mutex_unlock(&h->mutex);
  pthread_mutex_unlock(&h->rank[s->rank].alive);
  if (!s->unlinked && (s->rank == 0 || broken))
    shm_unlink(s->name);
  munmap(h, s->bytes);
  kgrt_allocator_t a = s->alloc;
  kgrt_free(&a, s);
}

kgrt_status_t kgrt_comm_shm_barrier(kgrt_comm_shm_t *s, kgrt_error_t *err) {
  shm_header_t *h = s->h;
  struct timespec join_deadline;
  deadline_after(&join_deadline, s->timeout_ms);
  kgrt_status_t st = KGRT_STATUS_OK;
  shm_lock(h);
  if (h->broken) {
    st = shm_broken(s, err);
  } else if (++h->arrived == s->ranks) {
    h->arrived = 0;
    h->generation++;
    pthread_cond_broadcast(&h->cond);
  } else {
    const uint64_t gen = h->generation;
    while (h->generation == gen && !h->broken) {
      struct timespec tick;
      deadline_after(&tick, KGRT_COMM_SHM_TICK_MS);
      if (pthread_cond_timedwait(&h->cond, &h->mutex, &tick) == EOWNERDEAD) {
        pthread_mutex_consistent(&h->mutex);
        shm_break_locked(h, "a rank ended inside the communicator's lock");
      }
      shm_check_ranks(s);
      if (!s->joined && h->generation == gen && !h->broken && passed(&join_deadline)) {
        char why[160];
        int n = snprintf(why, sizeof why, "ranks absent after %u ms:", s->timeout_ms);
        for (uint32_t r = 0; r < s->ranks && n > 0 && (size_t)n < sizeof why; ++r)
          if (h->rank[r].state == RANK_ABSENT)
            n += snprintf(why + n, sizeof why - (size_t)n, " %u", r);
        shm_break_locked(h, why);
      }
    }
    if (h->generation == gen)
      st = shm_broken(s, err);
  }
  pthread_mutex_unlock(&h->mutex);
  if (st == KGRT_STATUS_OK && !s->joined)
    s->joined = 1;
  /* once every rank has the segment mapped, or the communicator is broken
   * (no rank may attach any more), its name goes: nothing is left behind
   * however the processes end (whichever rank gets there; ENOENT for the
   * others) */
  if (!s->unlinked && (s->joined || st != KGRT_STATUS_OK)) {
    shm_unlink(s->name);
    s->unlinked = 1;
  }
  return st;
}

void kgrt_comm_shm_break(kgrt_comm_shm_t *s, uint32_t rank, const char *why) {
  char text[256];
  if (rank == UINT32_MAX)
    snprintf(text, sizeof text, "the host of rank %u: %s", s->rank, why);
  else
    snprintf(text, sizeof text, "rank %u: %s", rank, why);
  shm_lock(s->h);
  shm_break_locked(s->h, text);
  pthread_mutex_unlock(&s->h->mutex);
}

kgrt_status_t kgrt_comm_shm_exchange(kgrt_comm_shm_t *s, uint32_t rank,
                                     const kgrt_comm_slot_t *mine, kgrt_error_t *err) {
  shm_header_t *h = s->h;
  const size_t elem = kgrt_comm_elem_bytes(mine->dtype);
  if (mine->count > KGRT_COMM_SHM_CAPACITY / elem) {
    char why[160];
    snprintf(why, sizeof why,
             "a collective of %llu elements: more than the %llu bytes a rank may send "
             "between processes",
             (unsigned long long)mine->count, (unsigned long long)KGRT_COMM_SHM_CAPACITY);
    kgrt_comm_shm_break(s, rank, why);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE, "rank %u: %s", rank, why);
  }
  /* the previous exchange's readers are past its last barrier: the area is free */
  unsigned char *area = s->data + (size_t)rank * KGRT_COMM_SHM_CAPACITY;
  memcpy(area, (const void *)(uintptr_t)mine->src, mine->count * elem);
  shm_lock(h);
  h->rank[rank].slot = *mine;
  pthread_mutex_unlock(&h->mutex);
  KGRT_RETURN_IF_ERROR(kgrt_comm_shm_barrier(s, err));
  const unsigned char *src[KGRT_MAX_RANKS];
  for (uint32_t r = 0; r < s->ranks; ++r) {
    char why[160];
    if (kgrt_comm_slot_mismatch(mine, &h->rank[r].slot, r, why, sizeof why)) {
      kgrt_comm_shm_break(s, rank, why);
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION, "rank %u: %s", rank,
                            why);
    }
    src[r] = s->data + (size_t)r * KGRT_COMM_SHM_CAPACITY;
  }
  kgrt_comm_sim_combine(mine, s->ranks, src);
  /* no rank may write its area (its next step) before all have read it */
  return kgrt_comm_shm_barrier(s, err);
}
