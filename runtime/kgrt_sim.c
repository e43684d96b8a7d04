/* kgrt_sim.c - the sim engine: loads a sim image (memfd + dlopen) and runs
 * grids of its kernels on the CPU at the launch's wave size.
 *
 * Workgroups are handed out in order to `workers` host threads (the calling
 * thread is one of them); a workgroup runs entirely on one host thread, its
 * threads as fibers with their own stacks (64 KiB under a guard page, mapped
 * once per worker and launch and reused by every workgroup the worker runs).
 * Fibers run in turn: one runs until it waits at a barrier or a shuffle, or
 * exits, then switches straight to the next runnable one (to the scheduler
 * only when none is left). A barrier releases when every thread of
 * the workgroup arrived; a shuffle when every live (not exited) lane of the
 * wave arrived, and then each lane's result is computed at once, so a lane may
 * enter the next shuffle before the others read theirs. When no fiber can run
 * and some have not exited, the threads diverged: that is reported, never
 * waited out. A bad global access (the image calls `check` before each one)
 * abandons the workgroup: its fibers are never resumed, their stacks reused.
 * The first error by workgroup index wins, so messages are deterministic;
 * workers stop picking workgroups past it.
 *
 * Needs kgrt_fiber.h (context switch), kgrt_sim_abi.h (the api table handed
 * to the image), pthreads, dlopen, memfd_create (Linux). No global mutable
 * state: the calling fiber's worker is a thread-local. Gives kgrt_sim.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "kgrt_sim.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kgrt_fiber.h"
#include "kgrt_sim_abi.h"

/* Tell valgrind where each fiber stack is, so switching is not taken for a
 * huge stack frame. The requests cost a few instructions natively. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define KGRT_SIM_VALGRIND 1
#endif
#endif
#ifndef KGRT_SIM_VALGRIND
#define KGRT_SIM_VALGRIND 0
#endif

#define KGRT_SIM_STACK_BYTES (64 * 1024)
#define KGRT_SIM_MAX_BLOCK 1024u
#define KGRT_SIM_MAX_WAVE 64u
#define KGRT_SIM_MAX_WORKERS 256u
#define KGRT_SIM_MSG_BYTES 320

#if defined(__GNUC__)
#define KGRT_SIM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define KGRT_SIM_NOINLINE __attribute__((noinline))
#else
#define KGRT_SIM_PRINTF(f, a)
#define KGRT_SIM_NOINLINE
#endif

struct kgrt_sim_image {
  kgrt_allocator_t alloc; /* the caller's, copied; all zero means malloc */
  void *handle;           /* dlopen */
  int fd;                 /* the memfd, open while loaded: see kgrt_sim_image_open */
};

enum {
  KGRT_SIM_RUNNABLE, /* in the run queue, or running */
  KGRT_SIM_AT_BARRIER,
  KGRT_SIM_AT_SHUFFLE,
  KGRT_SIM_EXITED
};

/* One thread of the workgroup. */
typedef struct kgrt_sim_thread {
  kgrt_fiber_t fiber;
  unsigned state;       /* KGRT_SIM_* */
  unsigned shfl_value;  /* what it passes to the pending shuffle */
  unsigned shfl_src;    /* the lane it reads */
  unsigned shfl_result; /* set when the shuffle completes */
  unsigned vg_stack;    /* valgrind's id for its stack */
} kgrt_sim_thread_t;

typedef struct kgrt_sim_wave {
  unsigned live;    /* lanes that have not exited */
  unsigned arrived; /* lanes waiting at the pending shuffle */
} kgrt_sim_wave_t;

/* What the workers of one launch share. */
typedef struct kgrt_sim_grid {
  const kgrt_sim_launch_t *launch;
  const char *kernel;                /* for messages, never NULL */
  _Atomic unsigned long long next;   /* the next workgroup to hand out */
  _Atomic unsigned long long failed; /* lowest failed workgroup, or ULLONG_MAX */
  pthread_mutex_t lock;              /* guards err */
  char err[KGRT_SIM_MSG_BYTES];      /* the message of workgroup `failed` */
} kgrt_sim_grid_t;

/* Fiber stacks outlive a launch. Mapping a workgroup's stacks, protecting
 * a guard page below each and faulting them in cost more than a small
 * kernel's own work (a third of the sim's time in the matmul tests), so a
 * worker takes a mapping from a pool and gives it back. A mapping has room
 * for KGRT_SIM_MAX_BLOCK stacks; its guard pages are protected as far as
 * the largest workgroup it has served (`guarded`). KGRT_SIM_POOL mappings
 * are kept; one given back beyond them is unmapped. */
#define KGRT_SIM_POOL 16u
typedef struct kgrt_sim_stacks {
  unsigned char *base;
  unsigned guarded;
} kgrt_sim_stacks_t;

static pthread_mutex_t kgrt_sim_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static kgrt_sim_stacks_t kgrt_sim_pool[KGRT_SIM_POOL];
static kgrt_sim_stacks_t *kgrt_sim_pool_free[KGRT_SIM_POOL]; /* entries not taken */
static unsigned kgrt_sim_pool_used, kgrt_sim_pool_len;

/* One host thread and what it needs to run a workgroup. */
typedef struct kgrt_sim_worker {
  kgrt_sim_grid_t *grid;
  const kgrt_allocator_t *alloc;
  unsigned block_x, wave_size, wave_shift;
  kgrt_fiber_t sched; /* the scheduler loop, on the host thread's stack */
  kgrt_sim_thread_t *threads;
  kgrt_sim_wave_t *waves;
  unsigned *queue; /* runnable threads, a ring of block_x entries */
  unsigned queue_head, queue_len;
  kgrt_sim_stacks_t *stacks; /* block_x stacks (or more), each above a guard page */
  kgrt_sim_stacks_t own;     /* a mapping of its own when the pool is all taken */
  size_t stack_stride, guard_bytes;
  /* The running workgroup. */
  unsigned block_idx;
  unsigned current; /* the thread whose fiber runs */
  unsigned exited;
  unsigned at_barrier;
  int failed;                   /* msg holds why */
  int no_memory;                /* setup found no host memory (msg says so) */
  char msg[KGRT_SIM_MSG_BYTES]; /* this worker's error */
  pthread_t tid;
  int started;
} kgrt_sim_worker_t;

/* The worker of the calling host thread while it runs a launch. */
static _Thread_local kgrt_sim_worker_t *kgrt_sim_self;

static int kgrt_sim_fail(char *err, size_t err_size, const char *fmt, ...)
    KGRT_SIM_PRINTF(3, 4);

static int kgrt_sim_fail(char *err, size_t err_size, const char *fmt, ...) {
  if (err != NULL && err_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- run queue ---- */

static void kgrt_sim_queue_push(kgrt_sim_worker_t *w, unsigned t) {
  unsigned slot = w->queue_head + w->queue_len;
  if (slot >= w->block_x)
    slot -= w->block_x;
  w->queue[slot] = t;
  w->queue_len++;
}

static unsigned kgrt_sim_queue_pop(kgrt_sim_worker_t *w) {
  unsigned t = w->queue[w->queue_head];
  if (++w->queue_head == w->block_x)
    w->queue_head = 0;
  w->queue_len--;
  return t;
}

/* ---- the api the image calls, always on a fiber of the calling worker ---- */

/* The running fiber waits: switch to the next runnable fiber, or to the
 * scheduler when none is left (all exited, or divergence). Whoever resumes
 * this fiber sets w->current back to it first. */
static void kgrt_sim_yield(kgrt_sim_worker_t *w, kgrt_sim_thread_t *me) {
  if (w->queue_len > 0) {
    const unsigned t = kgrt_sim_queue_pop(w);
    w->current = t;
    kgrt_fiber_switch(&me->fiber, &w->threads[t].fiber);
  } else {
    kgrt_fiber_switch(&me->fiber, &w->sched);
  }
}

/* Leaves the workgroup for good (w->failed is set, w->msg says why): back to
 * the scheduler, which never resumes this fiber. */
static void kgrt_sim_abandon(kgrt_sim_worker_t *w) {
  w->failed = 1;
  kgrt_fiber_switch(&w->threads[w->current].fiber, &w->sched);
}

static unsigned kgrt_sim_thread_idx(void) {
  return kgrt_sim_self->current;
}
static unsigned kgrt_sim_block_idx(void) {
  return kgrt_sim_self->block_idx;
}
static unsigned kgrt_sim_block_dim(void) {
  return kgrt_sim_self->block_x;
}
static unsigned kgrt_sim_grid_dim(void) {
  return kgrt_sim_self->grid->launch->grid_x;
}
static unsigned kgrt_sim_wave_size(void) {
  return kgrt_sim_self->wave_size;
}
static unsigned kgrt_sim_lane_id(void) {
  const kgrt_sim_worker_t *w = kgrt_sim_self;
  return w->current & (w->wave_size - 1);
}

static void kgrt_sim_barrier(void) {
  kgrt_sim_worker_t *w = kgrt_sim_self;
  kgrt_sim_thread_t *me = &w->threads[w->current];
  if (++w->at_barrier == w->block_x) {
    /* the last to arrive: everyone goes on, this fiber first */
    w->at_barrier = 0;
    for (unsigned t = 0; t < w->block_x; t++) {
      if (t != w->current) {
        w->threads[t].state = KGRT_SIM_RUNNABLE;
        kgrt_sim_queue_push(w, t);
      }
    }
    return;
  }
  me->state = KGRT_SIM_AT_BARRIER;
  kgrt_sim_yield(w, me);
}

/* Completes the pending shuffle of wave `v`, whose live lanes all arrived:
 * every arrived lane gets its result and becomes runnable (queued, except
 * the running fiber). Returns -1 with w->msg when a lane reads one that does
 * not take part. */
static int kgrt_sim_shuffle_complete(kgrt_sim_worker_t *w, unsigned v) {
  const unsigned first = v << w->wave_shift;
  const unsigned end =
      w->block_x - first < w->wave_size ? w->block_x : first + w->wave_size;
  for (unsigned t = first; t < end; t++) {
    kgrt_sim_thread_t *th = &w->threads[t];
    if (th->state != KGRT_SIM_AT_SHUFFLE)
      continue;
    const unsigned lane = th->shfl_src & (w->wave_size - 1);
    const unsigned src = first + lane;
    if (src >= w->block_x || w->threads[src].state != KGRT_SIM_AT_SHUFFLE) {
      if (src >= w->block_x)
        snprintf(w->msg, sizeof w->msg,
                 "kernel %s: workgroup %u thread %u: shuffle reads lane %u, which does "
                 "not exist (workgroup of %u threads, wave %u)",
                 w->grid->kernel, w->block_idx, t, lane, w->block_x, w->wave_size);
      else
        snprintf(w->msg, sizeof w->msg,
                 "kernel %s: workgroup %u thread %u: shuffle reads lane %u, which has "
                 "exited",
                 w->grid->kernel, w->block_idx, t, lane);
      return -1;
    }
    th->shfl_result = w->threads[src].shfl_value;
  }
  for (unsigned t = first; t < end; t++) {
    if (w->threads[t].state == KGRT_SIM_AT_SHUFFLE) {
      w->threads[t].state = KGRT_SIM_RUNNABLE;
      if (t != w->current)
        kgrt_sim_queue_push(w, t);
    }
  }
  w->waves[v].arrived = 0;
  return 0;
}

static unsigned kgrt_sim_shuffle(unsigned value, unsigned src) {
  kgrt_sim_worker_t *w = kgrt_sim_self;
  kgrt_sim_thread_t *me = &w->threads[w->current];
  const unsigned v = w->current >> w->wave_shift;
  me->shfl_value = value;
  me->shfl_src = src;
  me->state = KGRT_SIM_AT_SHUFFLE;
  if (++w->waves[v].arrived == w->waves[v].live) {
    if (kgrt_sim_shuffle_complete(w, v) != 0)
      kgrt_sim_abandon(w);
    return me->shfl_result;
  }
  kgrt_sim_yield(w, me);
  return me->shfl_result;
}

static KGRT_SIM_NOINLINE void
kgrt_sim_out_of_bounds(const void *base, unsigned long long bytes, const void *addr,
                       unsigned long long size, int is_store) {
  kgrt_sim_worker_t *w = kgrt_sim_self;
  snprintf(w->msg, sizeof w->msg,
           "kernel %s: workgroup %u thread %u: out-of-bounds %s of %llu bytes at 0x%llx "
           "(buffer 0x%llx, %llu bytes)",
           w->grid->kernel, w->block_idx, w->current, is_store ? "store" : "load", size,
           (unsigned long long)(uintptr_t)addr, (unsigned long long)(uintptr_t)base,
           bytes);
  kgrt_sim_abandon(w);
}

static void kgrt_sim_check(const void *base, unsigned long long bytes, const void *addr,
                           unsigned long long size, int is_store) {
  const uintptr_t b = (uintptr_t)base, a = (uintptr_t)addr;
  if (a >= b && a - b <= bytes && size <= bytes - (a - b))
    return;
  kgrt_sim_out_of_bounds(base, bytes, addr, size, is_store);
}

static const kg_sim_api_t kgrt_sim_api = {
    KG_SIM_ABI,        kgrt_sim_thread_idx, kgrt_sim_block_idx, kgrt_sim_block_dim,
    kgrt_sim_grid_dim, kgrt_sim_lane_id,    kgrt_sim_wave_size, kgrt_sim_barrier,
    kgrt_sim_shuffle,  kgrt_sim_check,
};

/* ---- images ---- */

/* The host's ELF machine, which a sim image must be built for. */
#if defined(__x86_64__)
#define KGRT_SIM_ELF_MACHINE 62 /* EM_X86_64 */
#elif defined(__aarch64__)
#define KGRT_SIM_ELF_MACHINE 183 /* EM_AARCH64 */
#else
#define KGRT_SIM_ELF_MACHINE 0 /* not checked */
#endif

static uint64_t kgrt_sim_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* What the loader reads of the file before it runs anything: the ELF header
 * (a 64-bit little-endian shared object for this host), the program header
 * table and the file bytes of every segment, and the section header table,
 * all inside the image's `size` bytes. Mapped, a segment past the end of the
 * file is a SIGBUS when the loader touches it. Returns 0, or -1 with err. */
static int kgrt_sim_image_check(const unsigned char *p, size_t size, char *err,
                                size_t err_size) {
  if (size < 64)
    return kgrt_sim_fail(err, err_size,
                         "sim image: truncated: %zu bytes, an ELF header needs 64", size);
  if (memcmp(p,
             "\x7f"
             "ELF",
             4) != 0)
    return kgrt_sim_fail(err, err_size, "sim image: not an ELF file (bad magic)");
  if (p[4] != 2)
    return kgrt_sim_fail(err, err_size,
                         "sim image: ELF class is not 64-bit (EI_CLASS %u)", p[4]);
  if (p[5] != 1)
    return kgrt_sim_fail(err, err_size,
                         "sim image: ELF data is not little-endian (EI_DATA %u)", p[5]);
  const unsigned type = (unsigned)kgrt_sim_le(p + 16, 2);
  const unsigned machine = (unsigned)kgrt_sim_le(p + 18, 2);
  if (type != 3)
    return kgrt_sim_fail(err, err_size,
                         "sim image: e_type %u is not a shared object (ET_DYN)", type);
  if (KGRT_SIM_ELF_MACHINE != 0 && machine != KGRT_SIM_ELF_MACHINE)
    return kgrt_sim_fail(err, err_size,
                         "sim image: e_machine %u is not this host's machine (%u)",
                         machine, KGRT_SIM_ELF_MACHINE);
  const uint64_t phoff = kgrt_sim_le(p + 32, 8), shoff = kgrt_sim_le(p + 40, 8);
  const unsigned phentsize = (unsigned)kgrt_sim_le(p + 54, 2);
  const unsigned phnum = (unsigned)kgrt_sim_le(p + 56, 2);
  const unsigned shentsize = (unsigned)kgrt_sim_le(p + 58, 2);
  const unsigned shnum = (unsigned)kgrt_sim_le(p + 60, 2);
  if (phentsize != 56 || phnum == 0 || phnum == 0xffff || phoff > size ||
      (uint64_t)phnum * 56 > size - phoff)
    return kgrt_sim_fail(err, err_size,
                         "sim image: program header table (%u entries of %u bytes at "
                         "%llu) is malformed or past the end of a %zu-byte image",
                         phnum, phentsize, (unsigned long long)phoff, size);
  if (shnum != 0 &&
      (shentsize != 64 || shoff > size || (uint64_t)shnum * 64 > size - shoff))
    return kgrt_sim_fail(err, err_size,
                         "sim image: section header table (%u entries of %u bytes at "
                         "%llu) is malformed or past the end of a %zu-byte image",
                         shnum, shentsize, (unsigned long long)shoff, size);
  unsigned loads = 0;
  for (unsigned i = 0; i < phnum; i++) {
    const unsigned char *ph = p + phoff + 56u * i;
    const unsigned pt = (unsigned)kgrt_sim_le(ph, 4);
    const uint64_t off = kgrt_sim_le(ph + 8, 8), filesz = kgrt_sim_le(ph + 32, 8);
    const uint64_t memsz = kgrt_sim_le(ph + 40, 8);
    if (off > size || filesz > size - off)
      return kgrt_sim_fail(err, err_size,
                           "sim image: segment %u (type %u): %llu bytes at %llu run past "
                           "the end of a %zu-byte image",
                           i, pt, (unsigned long long)filesz, (unsigned long long)off,
                           size);
    if (pt == 1 && filesz > memsz) /* PT_LOAD */
      return kgrt_sim_fail(
          err, err_size, "sim image: segment %u: %llu file bytes in %llu bytes of memory",
          i, (unsigned long long)filesz, (unsigned long long)memsz);
    loads += pt == 1;
  }
  if (loads == 0)
    return kgrt_sim_fail(err, err_size, "sim image: no loadable segment");
  return 0;
}

/* dlopen of /proc/self/fd/<fd>, the memfd holding an image. glibc matches
 * the name against the libraries it has loaded before it opens anything, so
 * the name must be new: the image keeps its fd open while loaded (live images
 * have distinct fd numbers), and extra slashes make another name for the same
 * fd when a library that was never unloaded (NODELETE) still holds this one.
 * Returns the handle, or NULL with err. */
static void *kgrt_sim_image_open(int fd, char *err, size_t err_size) {
  char path[96];
  for (int slashes = 1; slashes <= 16; slashes++) {
    snprintf(path, sizeof path, "/proc/self/fd%.*s%d", slashes, "////////////////", fd);
    void *old = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (old != NULL) {
      dlclose(old);
      continue;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
      const char *e = dlerror();
      kgrt_sim_fail(err, err_size, "sim image: %s", e != NULL ? e : "dlopen failed");
    }
    return handle;
  }
  kgrt_sim_fail(err, err_size, "sim image: no free name for fd %d", fd);
  return NULL;
}

int kgrt_sim_image_load(const void *image, size_t size, const kgrt_allocator_t *alloc,
                        kgrt_sim_image_t **out_image, char *err, size_t err_size) {
  if (out_image != NULL)
    *out_image = NULL;
  if (err != NULL && err_size > 0)
    err[0] = '\0';
  if (out_image == NULL || image == NULL || size == 0)
    return kgrt_sim_fail(err, err_size, "sim image: empty");
  if (kgrt_sim_image_check(image, size, err, err_size) != 0)
    return -1;

  kgrt_sim_image_t *img = kgrt_calloc(alloc, 1, sizeof *img);
  if (img == NULL) {
    kgrt_sim_fail(err, err_size, "sim image: out of memory");
    return KGRT_SIM_NO_MEMORY;
  }
  if (alloc != NULL)
    img->alloc = *alloc;
  img->fd = memfd_create("kgrt-sim-image", MFD_CLOEXEC);
  if (img->fd < 0) {
    kgrt_sim_fail(err, err_size, "sim image: memfd_create: %s", strerror(errno));
    goto fail;
  }
  for (size_t done = 0; done < size;) {
    ssize_t n = write(img->fd, (const unsigned char *)image + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      kgrt_sim_fail(err, err_size, "sim image: write: %s", strerror(n < 0 ? errno : EIO));
      goto fail;
    }
    done += (size_t)n;
  }
  img->handle = kgrt_sim_image_open(img->fd, err, err_size);
  if (img->handle == NULL)
    goto fail;

  void *sym = dlsym(img->handle, "kg_sim_bind");
  int (*bind)(const kg_sim_api_t *) = NULL;
  if (sym != NULL)
    memcpy(&bind, &sym, sizeof bind);
  if (bind == NULL) {
    kgrt_sim_fail(err, err_size, "sim image: no kg_sim_bind (not a sim image)");
    goto fail;
  }
  int abi = bind(&kgrt_sim_api);
  if (abi != KG_SIM_ABI) {
    kgrt_sim_fail(err, err_size, "sim image: ABI %d, this runtime speaks %d", abi,
                  KG_SIM_ABI);
    goto fail;
  }
  *out_image = img;
  return 0;

fail:
  kgrt_sim_image_unload(img);
  return -1;
}

kgrt_sim_entry_t kgrt_sim_image_entry(kgrt_sim_image_t *image, const char *kernel) {
  char name[512];
  if (image == NULL || kernel == NULL)
    return NULL;
  int n = snprintf(name, sizeof name, "%s__sim", kernel);
  if (n < 0 || (size_t)n >= sizeof name)
    return NULL;
  void *sym = dlsym(image->handle, name);
  kgrt_sim_entry_t entry = NULL;
  if (sym != NULL)
    memcpy(&entry, &sym, sizeof entry);
  return entry;
}

void kgrt_sim_image_unload(kgrt_sim_image_t *image) {
  if (image == NULL)
    return;
  kgrt_allocator_t alloc = image->alloc;
  if (image->handle != NULL)
    dlclose(image->handle);
  if (image->fd >= 0)
    close(image->fd);
  kgrt_free(&alloc, image);
}

/* ---- workers ---- */

/* The bytes of a mapping of KGRT_SIM_MAX_BLOCK stacks. */
static size_t kgrt_sim_stacks_bytes(const kgrt_sim_worker_t *w) {
  return w->stack_stride * KGRT_SIM_MAX_BLOCK;
}

/* Gives w's stacks back to the pool (a pooled entry whose mapping failed
 * goes back unmapped: the next taker maps it), or unmaps its own. */
static void kgrt_sim_stacks_give(kgrt_sim_worker_t *w) {
  kgrt_sim_stacks_t *st = w->stacks;
  w->stacks = NULL;
  if (st == &w->own) {
    if (st->base != NULL)
      munmap(st->base, kgrt_sim_stacks_bytes(w));
    return;
  }
  pthread_mutex_lock(&kgrt_sim_pool_lock);
  kgrt_sim_pool_free[kgrt_sim_pool_len++] = st;
  pthread_mutex_unlock(&kgrt_sim_pool_lock);
}

/* Takes stacks for w->block_x threads: a pooled mapping (or a new one), its
 * guard pages protected as far as block_x. Returns -1 with w->msg. */
static int kgrt_sim_stacks_take(kgrt_sim_worker_t *w) {
  kgrt_sim_stacks_t *st = NULL;
  pthread_mutex_lock(&kgrt_sim_pool_lock);
  if (kgrt_sim_pool_len > 0)
    st = kgrt_sim_pool_free[--kgrt_sim_pool_len];
  else if (kgrt_sim_pool_used < KGRT_SIM_POOL)
    st = &kgrt_sim_pool[kgrt_sim_pool_used++]; /* its base mapped below, once */
  pthread_mutex_unlock(&kgrt_sim_pool_lock);
  if (st == NULL) {
    st = &w->own;
    st->base = NULL;
    st->guarded = 0;
  }
  w->stacks = st;
  if (st->base == NULL) {
    void *m = mmap(NULL, kgrt_sim_stacks_bytes(w), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) {
      snprintf(w->msg, sizeof w->msg, "kernel %s: cannot map %u fiber stacks: %s",
               w->grid->kernel, KGRT_SIM_MAX_BLOCK, strerror(errno));
      return -1; /* teardown gives st back */
    }
    st->base = m;
  }
  for (; st->guarded < w->block_x; st->guarded++) {
    unsigned char *guard = st->base + (size_t)st->guarded * w->stack_stride;
    if (mprotect(guard, w->guard_bytes, PROT_NONE) != 0) {
      snprintf(w->msg, sizeof w->msg, "kernel %s: cannot protect fiber stacks: %s",
               w->grid->kernel, strerror(errno));
      return -1; /* teardown gives the mapping back, protected as far as it got */
    }
  }
  return 0;
}

static void kgrt_sim_worker_teardown(kgrt_sim_worker_t *w) {
#if KGRT_SIM_VALGRIND
  if (w->threads != NULL && w->stacks != NULL)
    for (unsigned t = 0; t < w->block_x; t++)
      VALGRIND_STACK_DEREGISTER(w->threads[t].vg_stack);
#endif
  if (w->stacks != NULL)
    kgrt_sim_stacks_give(w);
  kgrt_free(w->alloc, w->threads);
  kgrt_free(w->alloc, w->waves);
  kgrt_free(w->alloc, w->queue);
  w->stacks = NULL;
  w->threads = NULL;
  w->waves = NULL;
  w->queue = NULL;
}

/* Threads, waves, run queue and stacks for workgroups of block_x threads.
 * Returns -1 with w->msg. */
static int kgrt_sim_worker_setup(kgrt_sim_worker_t *w) {
  const unsigned block = w->block_x;
  const unsigned waves = (block + w->wave_size - 1) >> w->wave_shift;
  long page = sysconf(_SC_PAGESIZE);
  w->guard_bytes = page > 0 ? (size_t)page : 4096;
  w->stack_stride = w->guard_bytes + KGRT_SIM_STACK_BYTES;
  w->threads = kgrt_calloc(w->alloc, block, sizeof *w->threads);
  w->waves = kgrt_calloc(w->alloc, waves, sizeof *w->waves);
  w->queue = kgrt_calloc(w->alloc, block, sizeof *w->queue);
  if (w->threads == NULL || w->waves == NULL || w->queue == NULL) {
    snprintf(w->msg, sizeof w->msg, "kernel %s: out of memory", w->grid->kernel);
    w->no_memory = 1;
    kgrt_sim_worker_teardown(w);
    return -1;
  }
  if (kgrt_sim_stacks_take(w) != 0) {
    kgrt_sim_worker_teardown(w);
    return -1;
  }
#if KGRT_SIM_VALGRIND
  for (unsigned t = 0; t < block; t++) {
    unsigned char *lo = w->stacks->base + (size_t)t * w->stack_stride + w->guard_bytes;
    w->threads[t].vg_stack = VALGRIND_STACK_REGISTER(lo, lo + KGRT_SIM_STACK_BYTES);
  }
#endif
  return 0;
}

/* Every fiber starts here, on its own stack, with kgrt_sim_self->current set,
 * and ends by switching away for good. */
static void kgrt_sim_fiber_main(void) {
  kgrt_sim_worker_t *w = kgrt_sim_self;
  const kgrt_sim_launch_t *l = w->grid->launch;
  l->entry(l->kernarg, l->arg_bytes);
  const unsigned t = w->current, v = t >> w->wave_shift;
  w->threads[t].state = KGRT_SIM_EXITED;
  w->exited++;
  /* the lanes left may all wait at a shuffle now */
  if (--w->waves[v].live == w->waves[v].arrived && w->waves[v].arrived > 0 &&
      kgrt_sim_shuffle_complete(w, v) != 0)
    kgrt_sim_abandon(w);
  kgrt_sim_yield(w, &w->threads[t]);
}

/* Writes "thread 5" or "threads 0..3, 7, 9..15" (those of [first, end) in
 * `state`) into buf; long lists end in ", ...". */
static void kgrt_sim_list_threads(const kgrt_sim_worker_t *w, unsigned first,
                                  unsigned end, unsigned state, char *buf, size_t size) {
  unsigned count = 0, ranges = 0;
  size_t len = 0;
  buf[0] = '\0';
  for (unsigned t = first; t < end; t++)
    count += w->threads[t].state == state;
  len += (size_t)snprintf(buf, size, count == 1 ? "thread " : "threads ");
  for (unsigned t = first; t < end && len < size; t++) {
    if (w->threads[t].state != state)
      continue;
    unsigned last = t;
    while (last + 1 < end && w->threads[last + 1].state == state)
      last++;
    if (ranges == 6) {
      snprintf(buf + len, size - len, ", ...");
      return;
    }
    if (last == t)
      len += (size_t)snprintf(buf + len, size - len, "%s%u", ranges ? ", " : "", t);
    else
      len += (size_t)snprintf(buf + len, size - len, "%s%u..%u", ranges ? ", " : "", t,
                              last);
    ranges++;
    t = last;
  }
}

/* No fiber can run, and not all exited: says why in w->msg. */
static void kgrt_sim_diagnose(kgrt_sim_worker_t *w) {
  char list[160];
  for (unsigned v = 0; (v << w->wave_shift) < w->block_x; v++) {
    const kgrt_sim_wave_t *wave = &w->waves[v];
    if (wave->arrived == 0)
      continue;
    /* its other live lanes cannot be runnable: they wait at a barrier */
    const unsigned first = v << w->wave_shift;
    const unsigned end =
        w->block_x - first < w->wave_size ? w->block_x : first + w->wave_size;
    kgrt_sim_list_threads(w, first, end, KGRT_SIM_AT_BARRIER, list, sizeof list);
    snprintf(w->msg, sizeof w->msg,
             "kernel %s: workgroup %u: wave %u: shuffle reached by %u of %u lanes (%s "
             "wait at a barrier)",
             w->grid->kernel, w->block_idx, v, wave->arrived, wave->live, list);
    return;
  }
  kgrt_sim_list_threads(w, 0, w->block_x, KGRT_SIM_EXITED, list, sizeof list);
  snprintf(w->msg, sizeof w->msg,
           "kernel %s: workgroup %u: barrier reached by %u of %u threads (%s exited)",
           w->grid->kernel, w->block_idx, w->at_barrier, w->block_x, list);
}

/* Runs workgroup `g` to the end. Returns 0, or -1 with w->msg. */
static int kgrt_sim_group_run(kgrt_sim_worker_t *w, unsigned g) {
  const unsigned block = w->block_x;
  w->block_idx = g;
  w->exited = 0;
  w->at_barrier = 0;
  w->failed = 0;
  for (unsigned v = 0; (v << w->wave_shift) < block; v++) {
    const unsigned first = v << w->wave_shift;
    w->waves[v].live = block - first < w->wave_size ? block - first : w->wave_size;
    w->waves[v].arrived = 0;
  }
  for (unsigned t = 0; t < block; t++) {
    unsigned char *lo = w->stacks->base + (size_t)t * w->stack_stride + w->guard_bytes;
    w->threads[t].state = KGRT_SIM_RUNNABLE;
    kgrt_fiber_init(&w->threads[t].fiber, lo, KGRT_SIM_STACK_BYTES, kgrt_sim_fiber_main);
    w->queue[t] = t;
  }
  w->queue_head = 0;
  w->queue_len = block;

  /* Fibers switch to each other; back here when none can run, or on error. */
  while (w->queue_len > 0) {
    const unsigned t = kgrt_sim_queue_pop(w);
    w->current = t;
    kgrt_fiber_switch(&w->sched, &w->threads[t].fiber);
    if (w->failed)
      return -1;
  }
  if (w->exited != block) {
    kgrt_sim_diagnose(w);
    return -1;
  }
  return 0;
}

static void kgrt_sim_grid_fail(kgrt_sim_grid_t *grid, unsigned long long g,
                               const char *msg) {
  pthread_mutex_lock(&grid->lock);
  if (g < atomic_load(&grid->failed)) {
    snprintf(grid->err, sizeof grid->err, "%s", msg);
    atomic_store(&grid->failed, g);
  }
  pthread_mutex_unlock(&grid->lock);
}

static void *kgrt_sim_worker_main(void *arg) {
  kgrt_sim_worker_t *w = arg;
  kgrt_sim_grid_t *grid = w->grid;
  if (kgrt_sim_worker_setup(w) != 0)
    return NULL;
  kgrt_sim_worker_t *outer = kgrt_sim_self;
  kgrt_sim_self = w;
  for (;;) {
    unsigned long long g =
        atomic_fetch_add_explicit(&grid->next, 1, memory_order_relaxed);
    if (g >= grid->launch->grid_x ||
        g > atomic_load_explicit(&grid->failed, memory_order_relaxed))
      break;
    if (kgrt_sim_group_run(w, (unsigned)g) != 0)
      kgrt_sim_grid_fail(grid, g, w->msg);
  }
  kgrt_sim_self = outer;
  kgrt_sim_worker_teardown(w);
  return NULL;
}

int kgrt_sim_run(const kgrt_sim_launch_t *launch, const kgrt_allocator_t *alloc,
                 char *err, size_t err_size) {
  if (err != NULL && err_size > 0)
    err[0] = '\0';
  if (launch == NULL)
    return kgrt_sim_fail(err, err_size, "sim: no launch");
  const char *kernel = launch->kernel != NULL ? launch->kernel : "?";
  if (launch->entry == NULL)
    return kgrt_sim_fail(err, err_size, "kernel %s: no sim entry", kernel);
  if (launch->block_x == 0 || launch->block_x > KGRT_SIM_MAX_BLOCK)
    return kgrt_sim_fail(err, err_size,
                         "kernel %s: workgroup of %u threads (must be 1..%u)", kernel,
                         launch->block_x, KGRT_SIM_MAX_BLOCK);
  const unsigned wave = launch->wave_size;
  if (wave == 0 || wave > KGRT_SIM_MAX_WAVE || (wave & (wave - 1)) != 0)
    return kgrt_sim_fail(err, err_size,
                         "kernel %s: wave size %u (must be a power of two up to %u)",
                         kernel, wave, KGRT_SIM_MAX_WAVE);
  if (launch->grid_x == 0)
    return 0;

  unsigned workers = launch->workers;
  if (workers == 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    workers = cpus > 0 ? (unsigned)cpus : 1;
  }
  if (workers > KGRT_SIM_MAX_WORKERS)
    workers = KGRT_SIM_MAX_WORKERS;
  if (workers > launch->grid_x)
    workers = launch->grid_x;

  kgrt_sim_grid_t grid;
  memset(&grid, 0, sizeof grid);
  grid.launch = launch;
  grid.kernel = kernel;
  atomic_init(&grid.next, 0);
  atomic_init(&grid.failed, ULLONG_MAX);
  if (pthread_mutex_init(&grid.lock, NULL) != 0)
    return kgrt_sim_fail(err, err_size, "kernel %s: cannot create a mutex", kernel);
  kgrt_sim_worker_t *ws = kgrt_calloc(alloc, workers, sizeof *ws);
  if (ws == NULL) {
    pthread_mutex_destroy(&grid.lock);
    kgrt_sim_fail(err, err_size, "kernel %s: out of memory", kernel);
    return KGRT_SIM_NO_MEMORY;
  }
  unsigned shift = 0;
  while ((1u << shift) < wave)
    shift++;
  for (unsigned i = 0; i < workers; i++) {
    ws[i].grid = &grid;
    ws[i].alloc = alloc;
    ws[i].block_x = launch->block_x;
    ws[i].wave_size = wave;
    ws[i].wave_shift = shift;
  }

  /* Extra host threads help when they start; the calling thread always works. */
  for (unsigned i = 1; i < workers; i++)
    ws[i].started = pthread_create(&ws[i].tid, NULL, kgrt_sim_worker_main, &ws[i]) == 0;
  kgrt_sim_worker_main(&ws[0]);
  for (unsigned i = 1; i < workers; i++)
    if (ws[i].started)
      pthread_join(ws[i].tid, NULL);

  int rc = 0;
  if (atomic_load(&grid.failed) != ULLONG_MAX)
    rc = kgrt_sim_fail(err, err_size, "%s", grid.err);
  else if (atomic_load(&grid.next) < launch->grid_x) { /* no worker could start */
    kgrt_sim_fail(err, err_size, "%s", ws[0].msg);
    rc = ws[0].no_memory ? KGRT_SIM_NO_MEMORY : -1;
  }
  kgrt_free(alloc, ws);
  pthread_mutex_destroy(&grid.lock);
  return rc;
}
