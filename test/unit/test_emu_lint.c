/* test_emu_lint.c - the emu's coverage lint: decodes every kernel of each
 * code object named (or found under the directories named) with the emu
 * device's own decoder and lists the mnemonics it does not implement, with
 * how often each occurs, for the arches the emu device runs (gfx1100,
 * gfx942; others are skipped). Exit 1 when there is one (or no code object).
 *
 *   test_emu_lint [--list] PATH...   (PATH: a .hsaco, or a directory searched)
 * --list prints every mnemonic seen, with its count. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kgrt_codeobj.h"
#include "kgrt_emu_run.h"

#define MAX_NAMES 2048

typedef struct tally {
  char name[64];
  unsigned long count;
  int unknown;
} tally_t;

static tally_t names[MAX_NAMES];
static int num_names, num_objects, failures;

/* names[] by mnemonic: an open-addressed index (MAX_NAMES * 2 slots, -1 free) */
static int slot_of[MAX_NAMES * 2];

static void count(const char *text, int unknown) {
  char m[64];
  size_t n = strcspn(text, " \t");
  if (n >= sizeof m)
    n = sizeof m - 1;
  memcpy(m, text, n);
  m[n] = '\0';
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ (unsigned char)m[i]) * 16777619u;
  for (h %= MAX_NAMES * 2; slot_of[h] >= 0; h = (h + 1) % (MAX_NAMES * 2))
    if (strcmp(names[slot_of[h]].name, m) == 0) {
      names[slot_of[h]].count++;
      return;
    }
  if (num_names < MAX_NAMES) {
    snprintf(names[num_names].name, sizeof names[num_names].name, "%s", m);
    names[num_names].count = 1;
    names[num_names].unknown = unknown;
    slot_of[h] = num_names++;
  }
}

static void lint_file(const char *path, kgrt_emu_mem_t *mem) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)size);
  if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(buf);
    return;
  }
  fclose(f);
  char err[512];
  kgrt_codeobj_t co;
  if (kgrt_codeobj_parse(buf, (size_t)size, NULL, &co, err, sizeof err) != 0 ||
      co.machine != 224 ||
      (strcmp(co.arch, "gfx1100") != 0 && strcmp(co.arch, "gfx942") != 0)) {
    free(buf);
    return;
  }
  const char **kn = calloc(co.num_kernels + 1, sizeof *kn);
  for (uint32_t k = 0; k < co.num_kernels; ++k)
    kn[k] = co.kernels[k].name;
  kgrt_emu_image_t img;
  if (kgrt_emu_image_load(buf, (size_t)size, kn, co.num_kernels, mem, NULL, &img, err,
                          sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", path, err);
    failures++;
  } else {
    num_objects++;
    for (uint32_t k = 0; k < img.num_kernels; ++k) {
      kgrt_emu_code_t code;
      if (kgrt_emu_decode_kernel(&img, &img.kernels[k], NULL, &code, err, sizeof err) !=
          0) {
        fprintf(stderr, "%s: %s\n", path, err);
        failures++;
        continue;
      }
      for (uint32_t i = 0; i < code.count; ++i)
        if (code.text[i] != NULL)
          count(code.text[i], code.insts[i].opc == KGRT_EMU_OP_COUNT);
      kgrt_emu_code_free(&code, NULL);
    }
    kgrt_emu_image_unload(&img, mem, NULL);
  }
  free(kn);
  kgrt_codeobj_free(&co, NULL);
  free(buf);
}

static void walk(const char *path, kgrt_emu_mem_t *mem) {
  struct stat st;
  if (stat(path, &st) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    size_t n = strlen(path);
    if (n > 6 && strcmp(path + n - 6, ".hsaco") == 0)
      lint_file(path, mem);
    return;
  }
  DIR *d = opendir(path);
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    walk(sub, mem);
  }
  closedir(d);
}

static int by_count(const void *a, const void *b) {
  const tally_t *x = a, *y = b;
  return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->name, y->name);
}

int main(int argc, char **argv) {
  int list = 0;
  kgrt_emu_mem_t *mem;
  memset(slot_of, 0xff, sizeof slot_of);
  char err[256];
  if (kgrt_emu_mem_create((uint64_t)1 << 30, NULL, &mem, err, sizeof err) != 0) {
    fprintf(stderr, "test_emu_lint: %s\n", err);
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--list") == 0)
      list = 1;
    else
      walk(argv[i], mem);
  }
  kgrt_emu_mem_destroy(mem);
  qsort(names, (size_t)num_names, sizeof names[0], by_count);
  int unknown = 0;
  for (int i = 0; i < num_names; ++i) {
    if (names[i].unknown) {
      printf("NOT IMPLEMENTED %-40s %lu\n", names[i].name, names[i].count);
      unknown++;
    } else if (list) {
      printf("ok              %-40s %lu\n", names[i].name, names[i].count);
    }
  }
  printf("test_emu_lint: %d code objects, %d mnemonics, %d not implemented\n",
         num_objects, num_names, unknown);
  return unknown > 0 || failures > 0 || num_objects == 0;
}
