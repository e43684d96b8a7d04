/* kgrt_emu_decode.c - decodes a kernel's machine code for the emu device:
 * LLVM's disassembler (libLLVM-19, loaded with dlopen through its C API,
 * llvm-c/Disassembler.h) turns each instruction into text and its size;
 * kgrt_emu_parse.c parses that text (mnemonic, operands, modifiers) into a
 * kgrt_emu_inst_t once per kernel, so that running it decodes nothing.
 * No encoding is spelled out here: bytes -> text is LLVM's.
 *
 * Each image keeps one decoding session (LLVM's context and the decoded form
 * of every distinct encoding seen, so an instruction repeated in the image is
 * disassembled once) until kgrt_emu_decode_end.
 *
 * Needs libLLVM at run time. Gives kgrt_emu_decode_kernel, kgrt_emu_code_free
 * (kgrt_emu_run.h) and kgrt_emu_decode_end (kgrt_emu.h). */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_emu_run.h"

/* llvm-c/Disassembler.h, the part used (an opaque context). */
typedef void *emu_llvm_ctx_t;
typedef struct emu_llvm {
  void *lib;
  void (*init_info)(void), (*init_mc)(void), (*init_disasm)(void);
  emu_llvm_ctx_t (*create)(const char *triple, const char *cpu, void *info, int tag,
                           void *get_op_info, void *symbol_lookup);
  size_t (*disasm)(emu_llvm_ctx_t dc, uint8_t *bytes, uint64_t size, uint64_t pc,
                   char *out, size_t out_size);
  void (*dispose)(emu_llvm_ctx_t dc);
} emu_llvm_t;

static int emu_llvm_open(emu_llvm_t *l, char *err, size_t err_size) {
  static const char *const names[] = {"libLLVM-19.so.1", "libLLVM.so.19.1",
                                      "libLLVM-19.so",
                                      "/usr/lib/llvm-19/lib/libLLVM.so.1"};
  memset(l, 0, sizeof *l);
  for (size_t i = 0; i < sizeof names / sizeof names[0] && l->lib == NULL; ++i)
    l->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (l->lib == NULL) {
    snprintf(err, err_size,
             "LLVM's disassembler (libLLVM-19) cannot be loaded: install "
             "Debian's libllvm19");
    return -1;
  }
  *(void **)&l->init_info = dlsym(l->lib, "LLVMInitializeAMDGPUTargetInfo");
  *(void **)&l->init_mc = dlsym(l->lib, "LLVMInitializeAMDGPUTargetMC");
  *(void **)&l->init_disasm = dlsym(l->lib, "LLVMInitializeAMDGPUDisassembler");
  *(void **)&l->create = dlsym(l->lib, "LLVMCreateDisasmCPU");
  *(void **)&l->disasm = dlsym(l->lib, "LLVMDisasmInstruction");
  *(void **)&l->dispose = dlsym(l->lib, "LLVMDisasmDispose");
  if (!l->init_info || !l->init_mc || !l->init_disasm || !l->create || !l->disasm ||
      !l->dispose) {
    snprintf(err, err_size, "libLLVM-19 lacks the AMDGPU disassembler");
    dlclose(l->lib);
    return -1;
  }
  l->init_info();
  l->init_mc();
  l->init_disasm();
  return 0;
}

static int emu_is_branch(int opc) {
  return opc >= KGRT_EMU_OP_BRANCH && opc <= KGRT_EMU_OP_CBRANCH_EXECNZ;
}

void kgrt_emu_code_free(kgrt_emu_code_t *code, const kgrt_allocator_t *alloc) {
  if (code->text != NULL)
    for (uint32_t i = 0; i < code->count; ++i)
      kgrt_free(alloc, code->text[i]);
  kgrt_free(alloc, code->text);
  kgrt_free(alloc, code->insts);
  kgrt_free(alloc, code->at);
  memset(code, 0, sizeof *code);
}

/* ---- a decoding session: LLVM's disassembler and the instructions already
 * decoded, by their bytes (an image repeats most of its encodings), kept in
 * the image until kgrt_emu_decode_end ---- */

typedef struct emu_cached {
  uint8_t bytes[12], size, wave64, used;
  kgrt_emu_inst_t pair[2];
  char *text; /* LLVM's text (and why it is unknown) */
} emu_cached_t;

typedef struct emu_decoder {
  emu_llvm_t llvm;
  emu_llvm_ctx_t dc;
  emu_cached_t *slots;
  uint32_t cap, n; /* cap: a power of two */
} emu_decoder_t;

/* An entry's key: a 4-byte instruction's size follows from its first word, a
 * longer one's from its first two (a VOP3 literal is flagged in the second),
 * so the former are found by their first word, the latter by both. */
static uint32_t emu_hash(const uint8_t *b, size_t size) {
  uint32_t w0, w1 = 0;
  memcpy(&w0, b, 4);
  if (size > 4)
    memcpy(&w1, b + 4, 4);
  const uint64_t x = ((uint64_t)w1 << 32 | w0) * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(x >> 32) ^ (size > 4 ? 0x5bd1e995u : 0);
}

/* The cached decoding of the instruction at bytes (avail bytes there), or NULL. */
static const emu_cached_t *emu_cache_find(const emu_decoder_t *d, const uint8_t *bytes,
                                          uint64_t avail, int wave64) {
  if (d->cap == 0)
    return NULL;
  for (int longer = 0; longer < 2; ++longer) {
    if (longer && avail < 8)
      break;
    for (uint32_t h = emu_hash(bytes, longer ? 8 : 4) & (d->cap - 1);;
         h = (h + 1) & (d->cap - 1)) {
      const emu_cached_t *e = &d->slots[h];
      if (!e->used)
        break;
      if ((e->size > 4) == longer && e->wave64 == wave64 && e->size <= avail &&
          memcmp(e->bytes, bytes, e->size) == 0)
        return e;
    }
  }
  return NULL;
}

static void emu_cache_put(emu_decoder_t *d, const kgrt_allocator_t *alloc,
                          const uint8_t *bytes, size_t size, int wave64,
                          const kgrt_emu_inst_t *pair, const char *text) {
  if (size > 12)
    return;
  if (2 * (d->n + 1) > d->cap) { /* grow: at most half full */
    const uint32_t cap = d->cap ? 2 * d->cap : 4096;
    emu_cached_t *slots = kgrt_calloc(alloc, cap, sizeof *slots);
    if (slots == NULL)
      return;
    for (uint32_t i = 0; i < d->cap; ++i)
      if (d->slots[i].used) {
        uint32_t h = emu_hash(d->slots[i].bytes, d->slots[i].size) & (cap - 1);
        while (slots[h].used)
          h = (h + 1) & (cap - 1);
        slots[h] = d->slots[i];
      }
    kgrt_free(alloc, d->slots);
    d->slots = slots;
    d->cap = cap;
  }
  char *t = kgrt_alloc(alloc, strlen(text) + 1);
  if (t == NULL)
    return;
  strcpy(t, text);
  uint32_t h = emu_hash(bytes, size) & (d->cap - 1);
  while (d->slots[h].used)
    h = (h + 1) & (d->cap - 1);
  emu_cached_t *e = &d->slots[h];
  memcpy(e->bytes, bytes, size);
  e->size = (uint8_t)size;
  e->wave64 = (uint8_t)wave64;
  e->used = 1;
  memcpy(e->pair, pair, sizeof e->pair);
  e->text = t;
  d->n++;
}

void kgrt_emu_decode_end(kgrt_emu_image_t *img, const kgrt_allocator_t *alloc) {
  emu_decoder_t *d = img->decoder;
  if (d == NULL)
    return;
  for (uint32_t i = 0; i < d->cap; ++i)
    if (d->slots[i].used)
      kgrt_free(alloc, d->slots[i].text);
  kgrt_free(alloc, d->slots);
  d->llvm.dispose(d->dc);
  dlclose(d->llvm.lib);
  kgrt_free(alloc, d);
  img->decoder = NULL;
}

static emu_decoder_t *emu_decoder(kgrt_emu_image_t *img, const kgrt_allocator_t *alloc,
                                  char *err, size_t err_size) {
  if (img->decoder != NULL)
    return img->decoder;
  emu_decoder_t *d = kgrt_calloc(alloc, 1, sizeof *d);
  if (d == NULL)
    return snprintf(err, err_size, "out of host memory"), NULL;
  if (emu_llvm_open(&d->llvm, err, err_size) != 0) {
    kgrt_free(alloc, d);
    return NULL;
  }
  d->dc = d->llvm.create("amdgcn-amd-amdhsa", img->arch, NULL, 0, NULL, NULL);
  if (d->dc == NULL) {
    dlclose(d->llvm.lib);
    kgrt_free(alloc, d);
    return snprintf(err, err_size, "LLVM has no disassembler for %s", img->arch), NULL;
  }
  img->decoder = d;
  return d;
}

int kgrt_emu_decode_kernel(kgrt_emu_image_t *img, const kgrt_emu_kernel_t *k,
                           const kgrt_allocator_t *alloc, kgrt_emu_code_t *code,
                           char *err, size_t err_size) {
  memset(code, 0, sizeof *code);
  emu_decoder_t *d = emu_decoder(img, alloc, err, err_size);
  if (d == NULL)
    return -1;
  const int wave64 = k->wave_size == 64;
  code->lo = k->entry;
  code->hi = k->code_end;
  const uint64_t words = (code->hi - code->lo) / 4;
  const uint64_t cap = words + 1;
  code->at = kgrt_alloc(alloc, words * sizeof *code->at + 4);
  code->insts = kgrt_calloc(alloc, cap, sizeof *code->insts);
  code->text = kgrt_calloc(alloc, cap, sizeof *code->text);
  int rc = 0;
  if (code->at == NULL || code->insts == NULL || code->text == NULL) {
    snprintf(err, err_size, "out of host memory");
    rc = -1;
  }
  if (rc == 0)
    memset(code->at, 0xff, words * sizeof *code->at);
  uint64_t pc = code->lo;
  while (rc == 0 && pc + 4 <= code->hi) {
    uint8_t *bytes = (uint8_t *)(uintptr_t)pc;
    kgrt_emu_inst_t pair[2];
    char t2[448];
    size_t size;
    const emu_cached_t *hit = emu_cache_find(d, bytes, code->hi - pc, wave64);
    if (hit != NULL) {
      memcpy(pair, hit->pair, sizeof pair);
      snprintf(t2, sizeof t2, "%s", hit->text);
      size = hit->size;
    } else {
      char text[256], why[160] = "";
      size = d->llvm.disasm(d->dc, bytes, code->hi - pc, pc, text, sizeof text);
      if (size == 0) /* not an instruction: run it and it is reported */
        size = 4;
      memset(pair, 0, sizeof pair);
      const char *t = text;
      while (*t == ' ' || *t == '\t')
        ++t;
      snprintf(t2, sizeof t2, "%s", t);
      pair[0].size = (uint8_t)size;
      if (kgrt_emu_parse(t2, pc, pair, wave64, why, sizeof why) != 0) {
        /* kept as unknown: an error only when it runs */
        memset(pair, 0, sizeof pair);
        pair[0].opc = KGRT_EMU_OP_COUNT;
        pair[0].size = (uint8_t)size;
        snprintf(t2, sizeof t2, "%.250s (%.150s)", t, why);
      } else {
        snprintf(t2, sizeof t2, "%s", t);
      }
      emu_cache_put(d, alloc, bytes, size, wave64, pair, t2);
    }
    if (emu_is_branch(pair[0].opc)) {
      int64_t simm = pair[0].nsrc > 0 ? (int16_t)pair[0].src[0].value : 0;
      pair[0].target = (int64_t)pc + 4 + simm * 4;
    }
    if (code->count + (pair[0].dual ? 2u : 1u) > cap) {
      snprintf(err, err_size, "code too dense");
      rc = -1;
      break;
    }
    code->at[(pc - code->lo) / 4] = (int32_t)code->count;
    code->text[code->count] = kgrt_alloc(alloc, strlen(t2) + 1);
    if (code->text[code->count] == NULL) {
      snprintf(err, err_size, "out of host memory");
      rc = -1;
      break;
    }
    strcpy(code->text[code->count], t2);
    code->insts[code->count++] = pair[0];
    if (pair[0].dual) {
      pair[1].size = 0;
      code->insts[code->count++] = pair[1];
    }
    pc += size;
    if (pair[0].opc == KGRT_EMU_OP_NOP && strncmp(t2, "s_code_end", 10) == 0)
      break;
  }
  /* every register an instruction names lies in the files the descriptor grants */
  for (uint32_t i = 0; rc == 0 && i < code->count; ++i) {
    const kgrt_emu_inst_t *in = &code->insts[i];
    for (int j = 0; j < in->ndst + in->nsrc && rc == 0; ++j) {
      const kgrt_emu_operand_t *o = j < in->ndst ? &in->dst[j] : &in->src[j - in->ndst];
      const uint32_t end = (uint32_t)o->reg + o->count;
      if ((o->kind == KGRT_EMU_V && end > k->accum_offset) ||
          (o->kind == KGRT_EMU_A && end > k->agprs) ||
          (o->kind == KGRT_EMU_S && o->reg < 106 && end > k->sgprs)) {
        snprintf(err, err_size,
                 "kernel %s: '%s' uses %c%u..%u, past the %u %s its descriptor grants",
                 k->name, code->text[i] ? code->text[i] : "?",
                 o->kind == KGRT_EMU_V   ? 'v'
                 : o->kind == KGRT_EMU_A ? 'a'
                                         : 's',
                 o->reg, end - 1,
                 o->kind == KGRT_EMU_V   ? k->accum_offset
                 : o->kind == KGRT_EMU_A ? k->agprs
                                         : k->sgprs,
                 o->kind == KGRT_EMU_V   ? "VGPRs"
                 : o->kind == KGRT_EMU_A ? "AGPRs"
                                         : "SGPRs");
        rc = -1;
      }
    }
  }
  if (rc != 0)
    kgrt_emu_code_free(code, alloc);
  return rc;
}
