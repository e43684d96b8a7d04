/* make_llama3_gguf.c - writes a GGUF file of Llama-3-8B's shapes with random
 * weights and a SentencePiece-style vocabulary of 128256 pieces (<unk>, <s>,
 * </s>, the 256 byte pieces, then "▁w<k>"), the file both kgen-serve (with
 * bench/serve/llama3_8b_*.lua) and llama.cpp's llama-server load, for
 * bench/serve/run.sh on a GPU machine with nothing to download from. The
 * weights stream to the file as they are made (16 GB for bf16, 4.7 GB for
 * q4_0: the projections and the LM head in Q4_0, the embedding bf16, as
 * llama3_8b_q4_0.lua binds them; norms f32).
 *   make_llama3_gguf OUT.gguf bf16|q4_0 [LAYERS]
 * Self-contained (cc -O2): GGUF v3, 32-byte alignment. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  HIDDEN = 4096,
  HEADS = 32,
  KV_HEADS = 8,
  HEAD_DIM = 128,
  FFN = 14336,
  VOCAB = 128256,
  CONTEXT = 8192,
  ALIGN = 32
};
enum { T_F32 = 0, T_Q4_0 = 2, T_BF16 = 30 }; /* ggml types */
enum { V_U32 = 4, V_I32 = 5, V_F32 = 6, V_BOOL = 7, V_STR = 8, V_ARR = 9 }; /* gguf */

typedef struct tensor {
  char name[64];
  uint32_t type;
  uint64_t ne0, ne1; /* ne1 = 1: a vector */
  uint64_t offset, bytes;
} tensor_t;

static FILE *out;
static int failed;

static void put(const void *p, size_t n) {
  if (fwrite(p, 1, n, out) != n)
    failed = 1;
}
static void u32(uint32_t v) {
  put(&v, 4);
}
static void u64(uint64_t v) {
  put(&v, 8);
}
static void str(const char *s) {
  u64(strlen(s));
  put(s, strlen(s));
}
static void kv_str(const char *k, const char *v) {
  str(k);
  u32(V_STR);
  str(v);
}
static void kv_u32(const char *k, uint32_t v) {
  str(k);
  u32(V_U32);
  u32(v);
}
static void kv_f32(const char *k, float v) {
  str(k);
  u32(V_F32);
  put(&v, 4);
}

static uint64_t tensor_bytes(uint32_t type, uint64_t n) {
  return type == T_F32 ? 4 * n : type == T_BF16 ? 2 * n : n / 32 * 18;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* f32 -> f16 bits, for normal values in f16's range */
static uint16_t half(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const int e = (int)((b >> 23) & 0xff) - 127 + 15;
  return (uint16_t)(sign | ((uint32_t)e << 10) | ((b >> 13) & 0x3ffu));
}

/* Writes t's bytes: norms 1.0, bf16 uniform in +-0.03, Q4_0 blocks of a
 * small scale and random nibbles. */
static void write_data(const tensor_t *t, unsigned char *buf, size_t cap) {
  uint64_t left = t->bytes;
  while (left > 0) {
    size_t n = left < cap ? (size_t)left : cap;
    if (t->type == T_F32) {
      const float one = 1.0f;
      for (size_t i = 0; i + 4 <= n; i += 4)
        memcpy(buf + i, &one, 4);
    } else if (t->type == T_BF16) {
      for (size_t i = 0; i + 2 <= n; i += 2) {
        const float f = ((float)(next() >> 40) / 16777216.0f - 0.5f) * 0.06f;
        uint32_t b;
        memcpy(&b, &f, 4);
        const uint16_t h = (uint16_t)(b >> 16);
        memcpy(buf + i, &h, 2);
      }
    } else {
      n -= n % 18;
      const uint16_t d = half(0.002f);
      for (size_t i = 0; i + 18 <= n; i += 18) {
        memcpy(buf + i, &d, 2);
        const uint64_t a = next(), b = next();
        memcpy(buf + i + 2, &a, 8);
        memcpy(buf + i + 10, &b, 8);
      }
    }
    put(buf, n);
    left -= n;
  }
}

int main(int argc, char **argv) {
  if (argc < 3 || (strcmp(argv[2], "bf16") != 0 && strcmp(argv[2], "q4_0") != 0)) {
    fprintf(stderr, "usage: make_llama3_gguf OUT.gguf bf16|q4_0 [LAYERS]\n");
    return 1;
  }
  const int q4 = strcmp(argv[2], "q4_0") == 0;
  const int layers = argc > 3 ? atoi(argv[3]) : 32;
  if (layers < 1 || layers > 32) {
    fprintf(stderr, "make_llama3_gguf: LAYERS from 1 to 32\n");
    return 1;
  }
  const uint32_t wt = q4 ? T_Q4_0 : T_BF16;
  tensor_t *ts = calloc(3 + 9 * (size_t)layers, sizeof *ts);
  int n = 0;
#define ADD(type_, ne0_, ne1_, ...)                                                      \
  do {                                                                                   \
    snprintf(ts[n].name, sizeof ts[n].name, __VA_ARGS__);                                \
    ts[n].type = (type_);                                                                \
    ts[n].ne0 = (ne0_);                                                                  \
    ts[n].ne1 = (ne1_);                                                                  \
    n++;                                                                                 \
  } while (0)
  ADD(T_BF16, HIDDEN, VOCAB, "token_embd.weight");
  for (int l = 0; l < layers; ++l) {
    ADD(T_F32, HIDDEN, 1, "blk.%d.attn_norm.weight", l);
    ADD(wt, HIDDEN, HEADS * HEAD_DIM, "blk.%d.attn_q.weight", l);
    ADD(wt, HIDDEN, KV_HEADS * HEAD_DIM, "blk.%d.attn_k.weight", l);
    ADD(wt, HIDDEN, KV_HEADS * HEAD_DIM, "blk.%d.attn_v.weight", l);
    ADD(wt, HEADS * HEAD_DIM, HIDDEN, "blk.%d.attn_output.weight", l);
    ADD(T_F32, HIDDEN, 1, "blk.%d.ffn_norm.weight", l);
    ADD(wt, HIDDEN, FFN, "blk.%d.ffn_gate.weight", l);
    ADD(wt, HIDDEN, FFN, "blk.%d.ffn_up.weight", l);
    ADD(wt, FFN, HIDDEN, "blk.%d.ffn_down.weight", l);
  }
  ADD(T_F32, HIDDEN, 1, "output_norm.weight");
  ADD(wt, HIDDEN, VOCAB, "output.weight");
  uint64_t at = 0;
  for (int i = 0; i < n; ++i) {
    ts[i].offset = at;
    ts[i].bytes = tensor_bytes(ts[i].type, ts[i].ne0 * ts[i].ne1);
    at += (ts[i].bytes + ALIGN - 1) / ALIGN * ALIGN;
  }
  if ((out = fopen(argv[1], "wb")) == NULL) {
    perror(argv[1]);
    return 1;
  }
  static char iobuf[1 << 20];
  setvbuf(out, iobuf, _IOFBF, sizeof iobuf);
  put("GGUF", 4);
  u32(3);
  u64((uint64_t)n);
  u64(23); /* the KVs below */
  kv_str("general.architecture", "llama");
  kv_str("general.name", "kgen random-init Llama-3-8B shapes");
  kv_u32("general.file_type", q4 ? 2 : 32);
  kv_u32("general.alignment", ALIGN);
  kv_u32("llama.context_length", CONTEXT);
  kv_u32("llama.embedding_length", HIDDEN);
  kv_u32("llama.block_count", (uint32_t)layers);
  kv_u32("llama.feed_forward_length", FFN);
  kv_u32("llama.attention.head_count", HEADS);
  kv_u32("llama.attention.head_count_kv", KV_HEADS);
  kv_u32("llama.rope.dimension_count", HEAD_DIM);
  kv_f32("llama.rope.freq_base", 500000.0f);
  kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  kv_u32("llama.vocab_size", VOCAB);
  kv_str("tokenizer.ggml.model", "llama");
  /* tokens, scores, types */
  str("tokenizer.ggml.tokens");
  u32(V_ARR);
  u32(V_STR);
  u64(VOCAB);
  char piece[32];
  for (int i = 0; i < VOCAB; ++i) {
    if (i < 3)
      snprintf(piece, sizeof piece, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
    else if (i < 3 + 256)
      snprintf(piece, sizeof piece, "<0x%02X>", i - 3);
    else
      snprintf(piece, sizeof piece, "\xe2\x96\x81w%d", i - 3 - 256);
    str(piece);
  }
  str("tokenizer.ggml.scores");
  u32(V_ARR);
  u32(V_F32);
  u64(VOCAB);
  for (int i = 0; i < VOCAB; ++i) {
    const float s = i < 3 + 256 ? 0.0f : (float)-i;
    put(&s, 4);
  }
  str("tokenizer.ggml.token_type");
  u32(V_ARR);
  u32(V_I32);
  u64(VOCAB);
  for (int i = 0; i < VOCAB; ++i)
    u32(i == 0 ? 2 : i < 3 ? 3 : i < 3 + 256 ? 6 : 1);
  kv_u32("tokenizer.ggml.bos_token_id", 1);
  kv_u32("tokenizer.ggml.eos_token_id", 2);
  kv_u32("tokenizer.ggml.unknown_token_id", 0);
  str("tokenizer.ggml.add_bos_token");
  u32(V_BOOL);
  put("\1", 1);
  kv_u32("tokenizer.ggml.padding_token_id", 0);
  /* tensor infos, then the data at 32-byte alignment */
  for (int i = 0; i < n; ++i) {
    str(ts[i].name);
    u32(ts[i].ne1 == 1 ? 1 : 2);
    u64(ts[i].ne0);
    if (ts[i].ne1 != 1)
      u64(ts[i].ne1);
    u32(ts[i].type);
    u64(ts[i].offset);
  }
  static const unsigned char zeros[ALIGN];
  long pos = ftell(out);
  put(zeros, (size_t)((ALIGN - pos % ALIGN) % ALIGN));
  const size_t cap = (size_t)18 << 22; /* a whole number of Q4_0 blocks and bf16s */
  unsigned char *buf = malloc(cap);
  failed |= buf == NULL;
  for (int i = 0; i < n && !failed; ++i) {
    write_data(&ts[i], buf, cap);
    put(zeros, (size_t)((ALIGN - ts[i].bytes % ALIGN) % ALIGN));
  }
  free(buf);
  free(ts);
  if (fclose(out) != 0 || failed) {
    fprintf(stderr, "make_llama3_gguf: cannot write %s\n", argv[1]);
    return 1;
  }
  printf("%s: Llama-3-8B shapes, %d layers, %s, %.2f GB of weights\n", argv[1], layers,
         argv[2], (double)at / 1e9);
  return 0;
}
