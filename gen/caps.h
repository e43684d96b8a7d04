/* caps.h - the limits kgen puts on a model and on the compilers it runs,
 * the ones a user meets (`kgen --list-limits` prints them; README quotes
 * that output and test/readme checks it). The counts a model may declare
 * live beside the code that checks them (front_internal.h, fuse.h, json.h,
 * defines.h, kgrt_table.h); caps.c gathers them. */
#ifndef KG_CAPS_H
#define KG_CAPS_H

#include <stdio.h>

/* The most distinct kernels one target compiles: a real model repeats a few
 * dozen (its layers share their code); each costs compile time. */
#define KG_MAX_DISTINCT_KERNELS 1024
/* Defaults of the compilers' limits (--max-compile-seconds, -memory). */
#define KG_DEFAULT_COMPILE_SECONDS 600
#define KG_DEFAULT_COMPILE_MEMORY_MIB 8192

/* Prints every limit, a line each: its name, its value and what it bounds
 * (the option that changes it, where one does). The same bytes every run. */
void kg_caps_print(FILE *f);

#endif /* KG_CAPS_H */
