/* runtime_kernel.h - how runtime_kernel.hip's two kernels take their
 * arguments, for the tables test_runtime.c and fuzz/fuzz_table.c build
 * around them: k_scale(x, w, y, n), k_rowsum(y, out, rows). */
#ifndef KG_TEST_RUNTIME_KERNEL_H
#define KG_TEST_RUNTIME_KERNEL_H

#include "kgrt_table.h"

static const kgrt_kernel_arg_t rk_scale_args[4] = {{KGRT_ARG_BUFFER, 0, 8, NULL},
                                                   {KGRT_ARG_BUFFER, 8, 8, NULL},
                                                   {KGRT_ARG_BUFFER, 16, 8, NULL},
                                                   {KGRT_ARG_I64, 24, 8, NULL}};
static const kgrt_kernel_arg_t rk_rowsum_args[3] = {{KGRT_ARG_BUFFER, 0, 8, NULL},
                                                    {KGRT_ARG_BUFFER, 8, 8, NULL},
                                                    {KGRT_ARG_I64, 16, 8, NULL}};
enum { RK_SCALE_KERNARG = 32, RK_ROWSUM_KERNARG = 24 };

#endif /* KG_TEST_RUNTIME_KERNEL_H */
