/* test_emu_planted.c - broken code objects the sim cannot see fail on the emu.
 *
 * The f16 test Llama's table (test/llama/llama_f16.lua) runs a 16-token
 * prefill on emu:gfx1100 and emu:gfx942: its logits must match the float64
 * reference (NMSE <= 1e-6). Then the arch's code object is edited, one class
 * of defect at a time, as a miscompile or a bad descriptor would leave it
 * (the HIP source, and so the sim, unchanged), and the same run must fail,
 * with an error or with logits past the bound:
 *   mma_order  every WMMA (gfx1100) or MFMA (gfx942) with its A and B
 *              register operands exchanged (the encoding's SRC0 and SRC1);
 *   lds        every kernel descriptor granting half the LDS it had;
 *   vgprs      every kernel descriptor granting half its VGPR granules;
 *   rodata     every .rodata address formed after s_getpc_b64 (the
 *              s_add_u32 literal) 4 bytes off;
 *   waitcnt    every s_waitcnt on vmcnt or lgkmcnt made an s_nop (the emu
 *              keeps loads pending until a wait proves them returned).
 * Each edit is checked to have happened (sites counted, the disassembly of
 * an edited matrix instruction read back); with --sim, the edited table
 * must still pass on sim:ARCH, which runs the host build of the same source
 * (slower: it is in the emu_full set).
 *
 *   test_emu_planted [--sim] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_emu.h"
#include "kgrt_emu_run.h"
#include "kgrt_hash.h"
#include "kgrt_table.h"
#include "kgrt_weights.h"
#include "llama_f16.h"
#include "llm_model.h"
#include "weights_writer.h"

enum { T = 16 };
static const llm_config_t config = LLM_TINY_F16;
static const double nmse_bound = 1e-6;
static int failures, checks;

/* ---- the ELF (a little-endian ELF64 the table carries) ---- */

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}
static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* The file offset of vaddr (in a PT_LOAD segment's file bytes), or 0. */
static size_t file_off(const unsigned char *e, size_t size, uint64_t vaddr) {
  const uint64_t phoff = le(e + 32, 8), phnum = le(e + 56, 2);
  for (uint64_t i = 0; i < phnum && phoff + 56 * (i + 1) <= size; ++i) {
    const unsigned char *ph = e + phoff + 56 * i;
    const uint64_t off = le(ph + 8, 8), va = le(ph + 16, 8), filesz = le(ph + 32, 8);
    if (le(ph, 4) == 1 && vaddr >= va && vaddr < va + filesz && off + filesz <= size)
      return (size_t)(off + vaddr - va);
  }
  return 0;
}

/* The value of symbol `name`, or 0. */
static uint64_t symbol(const unsigned char *e, size_t size, const char *name) {
  const uint64_t shoff = le(e + 40, 8), shnum = le(e + 60, 2);
  for (uint64_t i = 0; i < shnum && shoff + 64 * (i + 1) <= size; ++i) {
    const unsigned char *sh = e + shoff + 64 * i;
    if (le(sh + 4, 4) != 2) /* SHT_SYMTAB */
      continue;
    const unsigned char *str = e + shoff + 64 * le(sh + 40, 4);
    const uint64_t soff = le(str + 24, 8), off = le(sh + 24, 8), n = le(sh + 32, 8) / 24;
    for (uint64_t j = 1; j < n && off + 24 * (j + 1) <= size; ++j) {
      const unsigned char *s = e + off + 24 * j;
      const uint64_t at = soff + le(s, 4);
      if (at < size && strncmp((const char *)e + at, name, size - at) == 0)
        return le(s + 8, 8);
    }
  }
  return 0;
}

/* ---- the edits ---- */

enum { MMA_ORDER, LDS, VGPRS, RODATA, WAITCNT, NPLANTS };
static const char *const plant_names[] = {"mma_order", "lds", "vgprs", "rodata",
                                          "waitcnt"};

/* Decodes every kernel of the image (the emu's decoder) and edits the
 * instructions of plant p; returns how many sites it edited. */
static int edit_code(const kgrt_arch_table_t *arch, unsigned char *e, size_t size, int p,
                     char *shown, size_t shown_size) {
  const char **names = calloc(arch->num_kernels, sizeof *names);
  kgrt_emu_mem_t *mem = NULL;
  kgrt_emu_image_t img;
  char err[512];
  int sites = 0;
  for (uint32_t k = 0; k < arch->num_kernels; ++k)
    names[k] = arch->kernels[k].name;
  if (kgrt_emu_mem_create((uint64_t)64 << 20, NULL, &mem, err, sizeof err) != 0 ||
      kgrt_emu_image_load(arch->image, arch->image_size, names, arch->num_kernels, mem,
                          NULL, &img, err, sizeof err) != 0) {
    printf("FAIL %s: %s\n", arch->arch, err);
    failures++;
    free(names);
    kgrt_emu_mem_destroy(mem);
    return 0;
  }
  for (uint32_t k = 0; k < img.num_kernels; ++k) {
    kgrt_emu_code_t code;
    if (kgrt_emu_decode_kernel(&img, &img.kernels[k], NULL, &code, err, sizeof err) != 0)
      continue;
    for (uint64_t wd = 0; wd < (code.hi - code.lo) / 4; ++wd) {
      const int32_t i = code.at[wd];
      if (i < 0 || code.text[i] == NULL)
        continue;
      const char *t = code.text[i];
      const uint64_t vaddr = code.lo + 4 * wd - img.alloc_addr;
      const size_t at = file_off(e, size, vaddr);
      if (at == 0 || at + 16 > size)
        continue;
      if (p == MMA_ORDER &&
          (strncmp(t, "v_wmma_f32", 10) == 0 || strncmp(t, "v_mfma_f32", 10) == 0)) {
        /* VOP3P: the second dword's SRC0 [8:0] and SRC1 [17:9] */
        const uint32_t d1 = (uint32_t)le(e + at + 4, 4);
        const uint32_t s0 = d1 & 0x1ff, s1 = (d1 >> 9) & 0x1ff;
        put32(e + at + 4, (d1 & ~0x3ffffu) | s1 | s0 << 9);
        if (sites++ == 0)
          snprintf(shown, shown_size, "%s", t);
      } else if (p == WAITCNT && strncmp(t, "s_waitcnt", 9) == 0 &&
                 (strstr(t, "vmcnt") != NULL || strstr(t, "lgkmcnt") != NULL)) {
        put32(e + at, 0xbf800000u); /* s_nop 0 */
        sites++;
      } else if (p == RODATA && strncmp(t, "s_getpc_b64", 11) == 0) {
        const int32_t n = code.at[wd + 1]; /* s_add_u32 sN, sN, literal */
        if (n >= 0 && code.text[n] != NULL &&
            strncmp(code.text[n], "s_add_u32", 9) == 0 && code.insts[n].size == 8) {
          put32(e + at + 8, (uint32_t)le(e + at + 8, 4) + 4);
          sites++;
        }
      }
    }
    kgrt_emu_code_free(&code, NULL);
  }
  kgrt_emu_image_unload(&img, mem, NULL);
  kgrt_emu_mem_destroy(mem);
  free(names);
  return sites;
}

/* Edits every kernel descriptor (plants LDS, VGPRS); returns the count. */
static int edit_descriptors(const kgrt_arch_table_t *arch, unsigned char *e, size_t size,
                            int p) {
  int sites = 0;
  for (uint32_t k = 0; k < arch->num_kernels; ++k) {
    char kd[160];
    snprintf(kd, sizeof kd, "%s.kd", arch->kernels[k].name);
    const size_t at = file_off(e, size, symbol(e, size, kd));
    if (at == 0 || at + 64 > size)
      continue;
    if (p == LDS) {
      const uint32_t lds = (uint32_t)le(e + at, 4);
      if (lds >= 8) {
        put32(e + at, lds / 2);
        sites++;
      }
    } else {
      const uint32_t rsrc1 = (uint32_t)le(e + at + 48, 4), granules = (rsrc1 & 0x3f) + 1;
      if (granules >= 2) {
        put32(e + at + 48, (rsrc1 & ~0x3fu) | (granules / 2 - 1));
        sites++;
      }
    }
  }
  return sites;
}

/* ---- runs ---- */

/* The prefill's logits on device spec with table t; 0, or -1 with the error. */
static int run(const char *spec, const kgrt_model_table_t *t, const char *weights,
               const int32_t *tokens, float *logits, kgrt_error_t *err) {
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  int rc = -1;
  if (kgrt_device_open(spec, NULL, &dev, err) == KGRT_STATUS_OK &&
      kgrt_model_load(dev, t, &m, err) == KGRT_STATUS_OK &&
      kgrt_weights_open(weights, NULL, &w, err) == KGRT_STATUS_OK &&
      kgrt_model_bind_weights(m, w, KGRT_BIND_REFUSE_UNUSED, err) == KGRT_STATUS_OK &&
      llm_run(m, tokens, T, 0, err) == KGRT_STATUS_OK &&
      kgrt_model_get_output(m, "logits", logits, sizeof(float) * LLM_TINY_VOCAB, err) ==
          KGRT_STATUS_OK)
    rc = 0;
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return rc;
}

static int with_sim;

static void run_arch(const char *arch_name, const char *weights, const int32_t *tokens,
                     const double *want) {
  const kgrt_model_table_t *base = &kgen_llama_f16;
  uint32_t ai = 0;
  while (ai < base->num_arches && strcmp(base->arches[ai]->arch, arch_name) != 0)
    ++ai;
  if (ai == base->num_arches) {
    printf("FAIL %s: not in the table\n", arch_name);
    failures++;
    return;
  }
  char spec[64];
  snprintf(spec, sizeof spec, "emu:%s", arch_name);
  static float logits[LLM_TINY_VOCAB];
  kgrt_error_t err = {0};
  checks++;
  if (run(spec, base, weights, tokens, logits, &err) != 0) {
    printf("FAIL %s: the table as built: %s\n", spec, err.message);
    failures++;
    return;
  }
  double nmse = llm_nmse(logits, want, LLM_TINY_VOCAB);
  printf("%s as built: NMSE %.3g\n", spec, nmse);
  if (!(nmse <= nmse_bound)) {
    printf("FAIL %s: the table as built: NMSE %.3g over %.0e\n", spec, nmse, nmse_bound);
    failures++;
    return;
  }
  const kgrt_arch_table_t *a = base->arches[ai];
  for (int p = 0; p < NPLANTS; ++p) {
    unsigned char *image = malloc(a->image_size);
    memcpy(image, a->image, a->image_size);
    char shown[256] = "";
    const int sites = p == MMA_ORDER || p == RODATA || p == WAITCNT
                          ? edit_code(a, image, a->image_size, p, shown, sizeof shown)
                          : edit_descriptors(a, image, a->image_size, p);
    kgrt_arch_table_t edited = *a;
    edited.image = image;
    edited.image_hash = kgrt_hash64(image, a->image_size);
    const kgrt_arch_table_t *arches[8];
    for (uint32_t i = 0; i < base->num_arches && i < 8; ++i)
      arches[i] = i == ai ? &edited : base->arches[i];
    kgrt_model_table_t t = *base;
    t.arches = arches;
    checks++;
    if (sites == 0) {
      printf("FAIL %s %s: nothing to edit\n", spec, plant_names[p]);
      failures++;
      free(image);
      continue;
    }
    if (p == MMA_ORDER) { /* the edit as LLVM reads it back: A and B exchanged */
      char again[256] = "";
      unsigned char *twice = malloc(a->image_size);
      memcpy(twice, image, a->image_size);
      edited.image = twice;
      edit_code(&edited, twice, a->image_size, MMA_ORDER, again, sizeof again);
      edited.image = image;
      printf("%s %s: %d sites; '%s' now reads '%s'\n", spec, plant_names[p], sites, shown,
             again);
      free(twice);
    } else {
      printf("%s %s: %d sites\n", spec, plant_names[p], sites);
    }
    for (int v = 0; v < LLM_TINY_VOCAB; ++v)
      logits[v] = NAN;
    memset(&err, 0, sizeof err);
    if (run(spec, &t, weights, tokens, logits, &err) != 0) {
      printf("  fails: %s\n", err.message);
      /* a bad descriptor must be named for what it is */
      const char *need = p == LDS     ? "bytes of LDS the descriptor grants"
                         : p == VGPRS ? "VGPRs"
                                      : NULL;
      if (need != NULL && strstr(err.message, need) == NULL) {
        printf("FAIL %s %s: the error does not say '%s'\n", spec, plant_names[p], need);
        failures++;
      }
    } else {
      nmse = llm_nmse(logits, want, LLM_TINY_VOCAB);
      printf("  fails: NMSE %.3g\n", nmse);
      if (nmse <= nmse_bound || p == LDS || p == VGPRS || p == WAITCNT) {
        printf("FAIL %s %s: the edited code object passed (NMSE %.3g)\n", spec,
               plant_names[p], nmse);
        failures++;
      }
    }
    /* --sim: the sim runs the host build of the same source: it cannot see it */
    char sim[64];
    if (!with_sim) {
      free(image);
      continue;
    }
    snprintf(sim, sizeof sim, "sim:%s", arch_name);
    memset(&err, 0, sizeof err);
    checks++;
    if (run(sim, &t, weights, tokens, logits, &err) != 0 ||
        !(llm_nmse(logits, want, LLM_TINY_VOCAB) <= nmse_bound)) {
      printf("FAIL %s %s: the sim saw it: %s\n", sim, plant_names[p],
             err.message[0] ? err.message : "logits past the bound");
      failures++;
    }
    free(image);
  }
}

int main(int argc, char **argv) {
  with_sim = argc > 1 && strcmp(argv[1], "--sim") == 0;
  char path[] = "/tmp/kgen_test_emu_planted_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  close(fd);
  llm_model_t lm;
  llm_ref_t ref = {0};
  static double want[LLM_TINY_VOCAB];
  int32_t tokens[T];
  for (int t = 0; t < T; ++t)
    tokens[t] = (int32_t)((t * 7919 + 13) % LLM_TINY_VOCAB);
  if (llm_model_init(&lm, &config, 1) != 0 || llm_model_write_gguf(&lm, path) != 0 ||
      llm_ref_init(&ref, &lm) != 0 || llm_ref_forward(&ref, tokens, T, 0, want) != 0) {
    fprintf(stderr, "test_emu_planted: cannot make the model\n");
    unlink(path);
    return 1;
  }
  run_arch("gfx1100", path, tokens, want);
  run_arch("gfx942", path, tokens, want);
  unlink(path);
  llm_ref_free(&ref);
  llm_model_free(&lm);
  printf("test_emu_planted: %d checks, %d failed\n", checks, failures);
  return failures == 0 && checks == 2 * ((1 + with_sim) * NPLANTS + 1) ? 0 : 1;
}
