/* kgrt_fiber.h - user-space context switching for the sim engine (internal).
 * A fiber is a saved context on a stack the caller owns. On x86-64 ELF the
 * switch is a few instructions of assembly (callee-saved registers, MXCSR and
 * the x87 control word); elsewhere, or with -DKGRT_FIBER_UCONTEXT, it is
 * ucontext (getcontext/makecontext/swapcontext), which is slower because it
 * saves the signal mask with a system call.
 *
 * Needs nothing but libc. Gives kgrt_fiber_init and kgrt_fiber_switch; both
 * act on the calling host thread only: a fiber must be resumed on the thread
 * that created it. */
#ifndef KGRT_FIBER_H
#define KGRT_FIBER_H

#include <stddef.h>

#if defined(__x86_64__) && defined(__ELF__) && !defined(KGRT_FIBER_UCONTEXT)
#define KGRT_FIBER_ASM 1
#else
#define KGRT_FIBER_ASM 0
#include <ucontext.h>
#endif

#if defined(__GNUC__)
#define KGRT_FIBER_INTERNAL __attribute__((visibility("hidden")))
#else
#define KGRT_FIBER_INTERNAL
#endif

typedef struct kgrt_fiber {
#if KGRT_FIBER_ASM
  void *sp; /* the saved frame; first member: the assembly stores it */
#else
  ucontext_t uc;
#endif
} kgrt_fiber_t;

/* Prepares `fiber` to run fn() on [stack, stack + size) when it is first
 * switched to. fn must never return: it ends by switching away for good. */
KGRT_FIBER_INTERNAL void kgrt_fiber_init(kgrt_fiber_t *fiber, void *stack, size_t size,
                                         void (*fn)(void));

/* Saves the running context in `from` and resumes `to`; returns when some
 * fiber switches back to `from`. A context that is never resumed is simply
 * dropped (nothing to unwind). */
KGRT_FIBER_INTERNAL void kgrt_fiber_switch(kgrt_fiber_t *from, kgrt_fiber_t *to);

#endif /* KGRT_FIBER_H */
