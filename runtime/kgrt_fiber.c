/* kgrt_fiber.c - the context switch behind kgrt_fiber.h.
 *
 * x86-64 (System V): kgrt_fiber_switch pushes rbp, rbx, r12-r15 and a 16-byte
 * slot holding the x87 control word and MXCSR (the callee-saved state of the
 * ABI), stores rsp in from->sp, loads to->sp, pops the same frame and returns
 * into the other context. A new fiber gets a forged frame whose return address
 * is kgrt_fiber_start_x64, which calls fn (kept in r12) with the stack
 * 16-byte aligned as a call expects. Signal masks are not switched: fibers of
 * one host thread share it.
 *
 * Needs a stack of at least a few KiB per fiber from the caller (the sim
 * engine maps them with guard pages). Gives kgrt_fiber_init and
 * kgrt_fiber_switch. */
#include "kgrt_fiber.h"

#include <stdint.h>
#include <string.h>

#if KGRT_FIBER_ASM

__asm__(".text\n"
        ".p2align 4\n"
        ".globl kgrt_fiber_switch\n"
        ".hidden kgrt_fiber_switch\n"
        ".type kgrt_fiber_switch, @function\n"
        "kgrt_fiber_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $16, %rsp\n"
        "  fnstcw (%rsp)\n"
        "  stmxcsr 8(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq (%rsi), %rsp\n"
        "  fldcw (%rsp)\n"
        "  ldmxcsr 8(%rsp)\n"
        "  addq $16, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size kgrt_fiber_switch, .-kgrt_fiber_switch\n"
        "\n"
        ".p2align 4\n"
        ".globl kgrt_fiber_start_x64\n"
        ".hidden kgrt_fiber_start_x64\n"
        ".type kgrt_fiber_start_x64, @function\n"
        "kgrt_fiber_start_x64:\n"
        "  .cfi_startproc\n"
        "  .cfi_undefined rip\n" /* the bottom of a fiber's stack for debuggers */
        "  callq *%r12\n"
        "  ud2\n" /* fn returned: a bug in the caller */
        "  .cfi_endproc\n"
        ".size kgrt_fiber_start_x64, .-kgrt_fiber_start_x64\n");

KGRT_FIBER_INTERNAL void kgrt_fiber_start_x64(void);

void kgrt_fiber_init(kgrt_fiber_t *fiber, void *stack, size_t size, void (*fn)(void)) {
  /* The frame kgrt_fiber_switch pops, from the lowest address: x87 control
   * word, MXCSR, r15, r14, r13, r12, rbx, rbp, return address. After `ret`,
   * rsp is the 16-aligned top, so the `call` in the start stub aligns fn. */
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *frame = (uint64_t *)(top - 9 * sizeof(uint64_t));
  uint16_t fpu_cw;
  uint32_t mxcsr;
  __asm__ volatile("fnstcw %0" : "=m"(fpu_cw));
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  memset(frame, 0, 9 * sizeof(uint64_t));
  memcpy(&frame[0], &fpu_cw, sizeof fpu_cw);
  memcpy(&frame[1], &mxcsr, sizeof mxcsr);
  frame[5] = (uint64_t)(uintptr_t)fn; /* r12 */
  frame[8] = (uint64_t)(uintptr_t)kgrt_fiber_start_x64;
  fiber->sp = frame;
}

#else /* ucontext */

void kgrt_fiber_init(kgrt_fiber_t *fiber, void *stack, size_t size, void (*fn)(void)) {
  getcontext(&fiber->uc);
  fiber->uc.uc_stack.ss_sp = stack;
  fiber->uc.uc_stack.ss_size = size;
  fiber->uc.uc_link = NULL;
  makecontext(&fiber->uc, fn, 0);
}

void kgrt_fiber_switch(kgrt_fiber_t *from, kgrt_fiber_t *to) {
  swapcontext(&from->uc, &to->uc);
}

#endif
