/* test_arg_names.c - the table names each kernel argument (the template's
 * parameter) and what each step passes for it (lower.c, signature.c), so
 * that kgrt refuses a step whose arguments are out of order, naming both.
 * A copy of external.lua's generated table (y = x * w + 1: its map kernel
 * takes in0, in1, out, n) with a step's two read buffers swapped, then one
 * with an argument for no parameter, then duplicate names in a kernel:
 * each refused at load with the names in its message; the copy unchanged
 * loads and runs. */
#include <stdio.h>
#include <string.h>

#include "external.h"
#include "kgrt.h"
#include "test.h"

enum { MAXK = 8, MAXA = 8 };

/* A mutable copy of the table's one arch and its first step's arguments. */
typedef struct copy {
  kgrt_model_table_t table;
  kgrt_arch_table_t arch;
  const kgrt_arch_table_t *arches[1];
  kgrt_step_t steps[64];
  kgrt_step_arg_t args[MAXA];
  kgrt_kernel_t kernels[MAXK];
  kgrt_kernel_arg_t kargs[MAXA];
} copy_t;

static int copy_init(copy_t *c) {
  memset(c, 0, sizeof *c);
  c->table = kgen_external;
  if (c->table.num_arches != 1)
    return -1;
  c->arch = *c->table.arches[0];
  if (c->arch.num_steps > 64 || c->arch.num_kernels > MAXK)
    return -1;
  memcpy(c->steps, c->arch.steps, c->arch.num_steps * sizeof *c->steps);
  memcpy(c->kernels, c->arch.kernels, c->arch.num_kernels * sizeof *c->kernels);
  const kgrt_kernel_t *k = &c->kernels[c->steps[0].kernel];
  if (k->num_args > MAXA)
    return -1;
  memcpy(c->args, c->steps[0].args, k->num_args * sizeof *c->args);
  memcpy(c->kargs, k->args, k->num_args * sizeof *c->kargs);
  c->steps[0].args = c->args;
  c->kernels[c->steps[0].kernel].args = c->kargs;
  c->arch.steps = c->steps;
  c->arch.kernels = c->kernels;
  c->arches[0] = &c->arch;
  c->table.arches = c->arches;
  return 0;
}

/* Loads c's table: its status, and the message into err. */
static kgrt_status_t load(kgrt_device_t *dev, const copy_t *c, kgrt_error_t *err) {
  kgrt_model_t *m = NULL;
  const kgrt_status_t st = kgrt_model_load(dev, &c->table, &m, err);
  if (m)
    kgrt_model_unload(m);
  return st;
}

int main(void) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  copy_t c;
  CHECK_EQ(kgrt_device_open("sim:gfx1100", NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(copy_init(&c), 0);
  if (dev == NULL)
    return TEST_DONE();

  /* the generated names: the map template's parameters, step and kernel alike */
  const kgrt_kernel_t *k = &c.kernels[c.steps[0].kernel];
  CHECK_EQ(k->num_args, 4u);
  CHECK(k->args[0].name && strcmp(k->args[0].name, "in0") == 0);
  CHECK(k->args[1].name && strcmp(k->args[1].name, "in1") == 0);
  CHECK(k->args[2].name && strcmp(k->args[2].name, "out") == 0);
  for (uint32_t i = 0; i < k->num_args; ++i)
    CHECK(c.args[i].name && k->args[i].name &&
          strcmp(c.args[i].name, k->args[i].name) == 0);
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_OK);

  /* x and w swapped in the step */
  const kgrt_step_arg_t a0 = c.args[0];
  c.args[0] = c.args[1];
  c.args[1] = a0;
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_ABI_MISMATCH);
  printf("swapped: %s\n", err.message);
  CHECK(strstr(err.message, "argument 0 is the kernel's 'in0', but the step passes 'in1' "
                            "(argument 1) there") != NULL);
  c.args[1] = c.args[0];
  c.args[0] = a0;
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_OK);

  /* an argument for no parameter of the kernel */
  c.args[2].name = "bias";
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_ABI_MISMATCH);
  printf("unknown: %s\n", err.message);
  CHECK(strstr(err.message,
               "argument 2 is the kernel's 'out', but the step passes 'bias', "
               "which the kernel does not take") != NULL);
  c.args[2].name = "out  ";
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "argument 2's name is not an identifier") != NULL);
  CHECK_EQ(copy_init(&c), 0);

  /* two parameters of one name in the kernel */
  c.kargs[1].name = "in0";
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_INVALID_ARGUMENT);
  printf("duplicate: %s\n", err.message);
  CHECK(strstr(err.message, "arguments 0 and 1 are both named 'in0'") != NULL);
  CHECK_EQ(copy_init(&c), 0);

  /* unnamed (a hand-built table): nothing to compare, loads */
  for (uint32_t i = 0; i < k->num_args; ++i)
    c.args[i].name = NULL;
  CHECK_EQ(load(dev, &c, &err), KGRT_STATUS_OK);
  kgrt_device_close(dev);
  return TEST_DONE();
}
