/* test_codeobj.c - kgrt_codeobj reads real code objects and refuses bad ones.
 *
 * usage: test_codeobj <gfx1100.hsaco> <gfx942.hsaco>, both built from
 * codeobj_kernel.hip. Also builds code objects in memory to cover every
 * msgpack encoding, and feeds truncated and corrupted copies (they must fail
 * with a reason, never crash: run it under valgrind). */
#include "kgrt_codeobj.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------- */

/* Counts live blocks so that a leak or a double free shows. */
typedef struct counting {
  long live;
  int fail; /* nonzero: every allocation fails */
} counting_t;

static void *counting_alloc(void *user, size_t size) {
  counting_t *c = user;
  if (c->fail)
    return NULL;
  c->live++;
  return malloc(size);
}

static void counting_free(void *user, void *ptr) {
  counting_t *c = user;
  c->live--;
  free(ptr);
}

typedef struct buf {
  uint8_t *p;
  size_t len, cap;
} buf_t;

static void buf_put(buf_t *b, const void *data, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL)
      abort();
  }
  memcpy(b->p + b->len, data, n);
  b->len += n;
  b->p[b->len] = 0; /* text stays a C string */
}

static void buf_write(void *user, const char *text, size_t len) {
  buf_put(user, text, len);
}

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p) {
  return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr_le(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* The section header of the first section of `type` in a well-formed image. */
static uint8_t *find_section(uint8_t *image, uint32_t type) {
  uint64_t shoff = rd64(image + 40);
  uint16_t shnum = (uint16_t)(image[60] | image[61] << 8);
  for (uint16_t i = 0; i < shnum; i++)
    if (rd32(image + shoff + i * 64u + 4) == type)
      return image + shoff + i * 64u;
  return NULL;
}

/* Parses a patched copy; returns the parse result, the reason in err. */
static int parse_copy(const uint8_t *image, size_t size, size_t at, const uint8_t *bytes,
                      size_t n, char *err, size_t err_size) {
  uint8_t *copy = malloc(size);
  memcpy(copy, image, size);
  memcpy(copy + at, bytes, n);
  kgrt_codeobj_t co;
  int rc = kgrt_codeobj_parse(copy, size, NULL, &co, err, err_size);
  kgrt_codeobj_free(&co, NULL);
  free(copy);
  return rc;
}

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- real code objects ----------------------------------------------------- */

static void test_real(const uint8_t *image, size_t size, const char *arch,
                      uint32_t wave) {
  counting_t count = {0, 0};
  kgrt_allocator_t alloc = {counting_alloc, counting_free, &count};
  kgrt_codeobj_t co;
  char err[256];
  CHECK_EQ(kgrt_codeobj_parse(image, size, &alloc, &co, err, sizeof err), 0);
  CHECK_STR(err, "");
  CHECK_STR(co.arch, arch);
  CHECK(strstr(co.target, arch) != NULL);
  CHECK(starts_with(co.target, "amdgcn-amd-amdhsa--"));
  CHECK_EQ(co.machine, 224);
  CHECK_EQ(co.abi_version, 3); /* clang-19 writes code object v5 */
  CHECK_EQ(co.code_object_version, 5);
  CHECK_EQ(co.meta_version[0], 1);
  CHECK_EQ(co.meta_version[1], 2);
  CHECK_EQ(co.num_kernels, 1);

  const kgrt_codeobj_kernel_t *k = kgrt_codeobj_find(&co, "k");
  CHECK(k != NULL);
  CHECK(kgrt_codeobj_find(&co, "nope") == NULL);
  if (k != NULL) {
    CHECK_STR(k->symbol, "k.kd");
    CHECK(k->has_symbol);
    CHECK(k->code_bytes > 0);
    CHECK_EQ(k->wave_size, wave);
    CHECK_EQ(k->num_args, 2);
    CHECK_EQ(k->args[0].offset, 0);
    CHECK_EQ(k->args[0].size, 8);
    CHECK_STR(k->args[0].value_kind, "global_buffer");
    CHECK_EQ(k->args[1].offset, 8);
    CHECK_EQ(k->args[1].size, 8);
    CHECK_STR(k->args[1].value_kind, "by_value");
    CHECK_EQ(k->kernarg_size, 16);
    CHECK_EQ(k->kernarg_align, 8);
    CHECK_EQ(k->scratch_bytes, 0);
    CHECK_EQ(k->lds_bytes, 0);
    CHECK_EQ(k->max_block_size, 256);
    CHECK(k->vgprs > 0 && k->sgprs > 0);
    CHECK_EQ(k->vgpr_spills + k->sgpr_spills, 0);
  }
  CHECK(count.live > 0);
  kgrt_codeobj_free(&co, &alloc);
  CHECK_EQ(count.live, 0);
  CHECK(co.kernels == NULL && co.num_kernels == 0);
  kgrt_codeobj_free(&co, &alloc); /* twice is harmless */

  buf_t text = {0};
  CHECK_EQ(kgrt_codeobj_dump_metadata(image, size, buf_write, &text, err, sizeof err), 0);
  char want[64];
  snprintf(want, sizeof want, "\n    .wavefront_size: %u\n", wave);
  CHECK(text.p != NULL && strstr((char *)text.p, want) != NULL);
  snprintf(want, sizeof want, "\namdhsa.target: amdgcn-amd-amdhsa--%s", arch);
  CHECK(text.p != NULL && strstr((char *)text.p, want) != NULL);
  static const char *const want_all[] = {
      "---\namdhsa.kernels:\n  - .",
      ".args:\n      - .address_space: global\n        .offset: 0\n",
      "\n      - .offset: 8\n        .size: 8\n        .value_kind: by_value\n",
      "\n    .name: k\n",
      "amdhsa.version:\n  - 1\n  - 2\n...\n",
  };
  for (size_t i = 0; i < sizeof want_all / sizeof want_all[0]; i++)
    CHECK(text.p != NULL && strstr((char *)text.p, want_all[i]) != NULL);
  free(text.p);

  /* an allocator that always fails */
  count.fail = 1;
  CHECK_EQ(kgrt_codeobj_parse(image, size, &alloc, &co, err, sizeof err),
           KGRT_CODEOBJ_NO_MEMORY);
  CHECK(strstr(err, "out of memory") != NULL);
  CHECK_EQ(count.live, 0);
}

/* Each malformed copy fails with its own reason. */
static void test_rejects(const uint8_t *image, size_t size) {
  char err[256];
  kgrt_codeobj_t co;
  uint8_t b[8];

  CHECK_EQ(kgrt_codeobj_parse(NULL, 0, NULL, &co, err, sizeof err), -1);
  CHECK_STR(err, "empty buffer");
  CHECK_EQ(kgrt_codeobj_parse(image, 0, NULL, &co, err, sizeof err), -1);
  CHECK_STR(err, "empty buffer");
  CHECK(co.kernels == NULL && co.num_kernels == 0);
  CHECK_EQ(kgrt_codeobj_parse(image, size, NULL, &co, NULL, 0), 0); /* no err buffer */
  kgrt_codeobj_free(&co, NULL);

  b[0] = 'X';
  CHECK_EQ(parse_copy(image, size, 1, b, 1, err, sizeof err), -1);
  CHECK(starts_with(err, "not an ELF file"));
  b[0] = 1; /* ELFCLASS32 */
  CHECK_EQ(parse_copy(image, size, 4, b, 1, err, sizeof err), -1);
  CHECK(starts_with(err, "ELF class is not 64-bit"));
  b[0] = 2; /* ELFDATA2MSB */
  CHECK_EQ(parse_copy(image, size, 5, b, 1, err, sizeof err), -1);
  CHECK(starts_with(err, "ELF data is not little-endian"));
  b[0] = 62; /* EM_X86_64 */
  b[1] = 0;
  CHECK_EQ(parse_copy(image, size, 18, b, 2, err, sizeof err), -1);
  CHECK_STR(err, "e_machine is 62, not AMDGPU (224)");
  wr_le(b, size, 8); /* e_shoff at the end of the file */
  CHECK_EQ(parse_copy(image, size, 40, b, 8, err, sizeof err), -1);
  CHECK_STR(err, "truncated: section header table past end of file");
  b[0] = 0x4c; /* e_flags: gfx942 whatever amdhsa.target says */
  if ((image[48] & 0xff) == 0x4c)
    b[0] = 0x41;
  CHECK_EQ(parse_copy(image, size, 48, b, 1, err, sizeof err), -1);
  CHECK(strstr(err, "but amdhsa.target says") != NULL);

  uint8_t *copy = malloc(size);
  memcpy(copy, image, size);
  uint8_t *note = find_section(copy, 7); /* SHT_NOTE */
  uint8_t *symtab = find_section(copy, 2);
  CHECK(note != NULL && symtab != NULL);
  if (note == NULL || symtab == NULL) {
    free(copy);
    return;
  }
  size_t note_hdr = (size_t)(note - copy), symtab_hdr = (size_t)(symtab - copy);
  uint64_t note_off = rd64(note + 24), note_size = rd64(note + 32);
  free(copy);

  wr_le(b, size, 8); /* the note section's sh_size: the whole file */
  CHECK_EQ(parse_copy(image, size, note_hdr + 32, b, 8, err, sizeof err), -1);
  CHECK(starts_with(err, "truncated: section 1 (.note) past end of file"));
  wr_le(b, note_size - 4, 8); /* four bytes short: the metadata note overhangs */
  CHECK_EQ(parse_copy(image, size, note_hdr + 32, b, 8, err, sizeof err), -1);
  CHECK_STR(err, "note 0 in section 1 (.note) runs past its section");
  wr_le(b, 0xfffffff0u, 4); /* the note's namesz */
  CHECK_EQ(parse_copy(image, size, note_off, b, 4, err, sizeof err), -1);
  CHECK_STR(err, "note 0 in section 1 (.note) runs past its section");
  wr_le(b, 33, 4); /* the note's type */
  CHECK_EQ(parse_copy(image, size, note_off + 8, b, 4, err, sizeof err), -1);
  CHECK_STR(err, "no AMDGPU metadata note");
  b[0] = 0xc1; /* the first msgpack byte: a never-used type */
  CHECK_EQ(parse_copy(image, size, note_off + 20, b, 1, err, sizeof err), -1);
  CHECK_STR(err, "AMDGPU metadata: unsupported msgpack type 0xc1 at offset 0");
  b[0] = 0xdf; /* the top map claims 2^32 - 1 pairs */
  memset(b + 1, 0xff, 4);
  CHECK_EQ(parse_copy(image, size, note_off + 20, b, 5, err, sizeof err), -1);
  CHECK(strstr(err, "holds more items than bytes left") != NULL);
  wr_le(b, 0xffffff, 4); /* a section name past .shstrtab */
  CHECK_EQ(parse_copy(image, size, note_hdr, b, 4, err, sizeof err), -1);
  CHECK_STR(err, "section 1: name offset 16777215 out of range");
  wr_le(b, 0xffff, 4); /* symbol 1's name past .strtab */
  CHECK_EQ(
      parse_copy(image, size, rd64(image + symtab_hdr + 24) + 24, b, 4, err, sizeof err),
      -1);
  CHECK_STR(err, "symbol 1: name offset 65535 out of range");
  wr_le(b, 99, 4); /* .symtab's sh_link */
  CHECK_EQ(parse_copy(image, size, symtab_hdr + 40, b, 4, err, sizeof err), -1);
  CHECK(strstr(err, "sh_link 99 out of range") != NULL);

  buf_t text = {0};
  CHECK_EQ(kgrt_codeobj_dump_metadata(image, 100, buf_write, &text, err, sizeof err), -1);
  CHECK(starts_with(err, "truncated"));
  CHECK(text.p == NULL); /* nothing written */
}

/* Every prefix of the file is refused as truncated. */
static void test_truncated(const uint8_t *image, size_t size) {
  char err[256];
  size_t bad = 0;
  for (size_t n = 0; n < size; n++) {
    uint8_t *copy = malloc(n ? n : 1); /* exact size: valgrind sees overreads */
    memcpy(copy, image, n);
    kgrt_codeobj_t co;
    int rc = kgrt_codeobj_parse(copy, n, NULL, &co, err, sizeof err);
    int ok = rc == -1 &&
             (n == 0 ? strcmp(err, "empty buffer") == 0 : starts_with(err, "truncated"));
    if (n == size - 1 && strcmp(err, "truncated: section header table past end of file"))
      ok = 0;
    if (!ok && bad++ == 0)
      fprintf(stderr, "prefix %zu: rc %d, %s\n", n, rc, err);
    kgrt_codeobj_free(&co, NULL);
    free(copy);
  }
  CHECK_EQ(bad, 0);
}

static uint64_t xorshift64(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Random byte flips, half of them inside the metadata note: parse returns 0
 * or -1 with a reason, frees what it took, never reads out of bounds. */
static void test_flips(const uint8_t *image, size_t size, uint64_t seed, int rounds) {
  counting_t count = {0, 0};
  kgrt_allocator_t alloc = {counting_alloc, counting_free, &count};
  uint8_t *copy = malloc(size);
  const uint8_t *note = find_section(memcpy(copy, image, size), 7);
  uint64_t lo = note ? rd64(note + 24) : 0, span = note ? rd64(note + 32) : size;
  int bad = 0, ok = 0;
  char err[256];
  for (int i = 0; i < rounds; i++) {
    memcpy(copy, image, size);
    int flips = 1 + (int)(xorshift64(&seed) % 4);
    for (int f = 0; f < flips; f++) {
      uint64_t r = xorshift64(&seed);
      size_t at = r & 1 ? (size_t)(r >> 8) % size : (size_t)(lo + (r >> 8) % span);
      uint8_t x = (uint8_t)(r >> 1);
      copy[at] ^= x ? x : 1; /* never a no-op */
    }
    kgrt_codeobj_t co;
    err[0] = 'x';
    int rc = kgrt_codeobj_parse(copy, size, &alloc, &co, err, sizeof err);
    if (rc == 0) {
      ok++;
      for (uint32_t k = 0; k < co.num_kernels; k++)
        if (kgrt_codeobj_find(&co, co.kernels[k].name) != &co.kernels[k])
          bad++;
    } else if (rc != -1 || err[0] == '\0' || err[0] == 'x') {
      bad++;
    }
    kgrt_codeobj_free(&co, &alloc);
    buf_t text = {0};
    if (kgrt_codeobj_dump_metadata(copy, size, buf_write, &text, err, sizeof err) != 0 &&
        text.p != NULL)
      bad++; /* a refused document prints nothing */
    free(text.p);
  }
  free(copy);
  CHECK_EQ(bad, 0);
  CHECK_EQ(count.live, 0);
  CHECK(ok > 0 && ok < rounds); /* both outcomes were exercised */
}

/* ---- code objects built in memory ------------------------------------------ */

static void mp_byte(buf_t *b, uint8_t v) {
  buf_put(b, &v, 1);
}

static void mp_be(buf_t *b, uint8_t tag, uint64_t v, int bytes) {
  mp_byte(b, tag);
  for (int i = bytes - 1; i >= 0; i--)
    mp_byte(b, (uint8_t)(v >> (8 * i)));
}

static void mp_str(buf_t *b, const char *s) {
  size_t n = strlen(s);
  if (n < 32)
    mp_byte(b, (uint8_t)(0xa0 | n));
  else
    mp_be(b, 0xd9, n, 1);
  buf_put(b, s, n);
}

static void mp_map(buf_t *b, unsigned n) {
  mp_byte(b, (uint8_t)(0x80 | n));
}
static void mp_arr(buf_t *b, unsigned n) {
  mp_byte(b, (uint8_t)(0x90 | n));
}

typedef enum variant {
  VARIANT_GOOD,
  VARIANT_BIG_VGPRS,  /* .vgpr_count does not fit 32 bits */
  VARIANT_NO_NAME,    /* a kernel without .name */
  VARIANT_MANY_ARGS,  /* 65 args */
  VARIANT_LONG_NAME,  /* a 200-byte kernel name */
  VARIANT_DUP_KERNEL, /* two kernels named ka */
} variant_t;

/* Metadata with two kernels (kb before ka) using every msgpack encoding. */
static void build_metadata(buf_t *m, variant_t v) {
  mp_be(m, 0xde, 4, 2); /* map16 */
  mp_str(m, "amdhsa.version");
  mp_arr(m, 2);
  mp_byte(m, 1);
  mp_byte(m, 2);
  mp_str(m, "amdhsa.target");
  mp_be(m, 0xda, 26, 2); /* str16 */
  buf_put(m, "amdgcn-amd-amdhsa--gfx1100", 26);
  mp_str(m, "amdhsa.other"); /* unknown: skipped, and printed */
  mp_be(m, 0xdc, 13, 2);     /* array16 */
  mp_byte(m, 0xc0);          /* nil */
  mp_byte(m, 0xc3);          /* true */
  mp_byte(m, 0xc2);          /* false */
  mp_byte(m, 0xff);          /* -1 */
  mp_be(m, 0xd0, (uint8_t)-100, 1);
  mp_be(m, 0xd1, (uint16_t)-1000, 2);
  mp_be(m, 0xd2, (uint32_t)-100000, 4);
  mp_be(m, 0xd3, (uint64_t)-10000000000LL, 8);
  mp_be(m, 0xca, 0x3f000000, 4);         /* 0.5f */
  mp_be(m, 0xcb, 0x4002000000000000, 8); /* 2.25 */
  mp_be(m, 0xc4, 3, 1);                  /* bin8 */
  buf_put(m, "\x01\x02\x03", 3);
  mp_map(m, 1);
  mp_str(m, "x");
  mp_be(m, 0xdd, 2, 4); /* array32 */
  mp_byte(m, 7);
  mp_arr(m, 0);
  mp_be(m, 0xdf, 0, 4); /* map32, empty */

  mp_str(m, "amdhsa.kernels");
  mp_be(m, 0xdc, 2, 2);
  mp_be(m, 0xde, v == VARIANT_NO_NAME ? 12 : 13, 2);
  if (v != VARIANT_NO_NAME) {
    mp_str(m, ".name");
    if (v == VARIANT_LONG_NAME) {
      char name[201];
      memset(name, 'n', 200);
      name[200] = 0;
      mp_be(m, 0xda, 200, 2);
      buf_put(m, name, 200);
    } else {
      mp_str(m, v == VARIANT_DUP_KERNEL ? "ka" : "kb");
    }
  }
  mp_str(m, ".symbol");
  mp_str(m, "kb.kd");
  mp_str(m, ".vgpr_count");
  if (v == VARIANT_BIG_VGPRS)
    mp_be(m, 0xcf, 1ull << 40, 8);
  else
    mp_be(m, 0xcd, 300, 2); /* uint16 */
  mp_str(m, ".sgpr_count");
  mp_be(m, 0xd0, 20, 1); /* a positive int8 */
  mp_str(m, ".kernarg_segment_size");
  mp_be(m, 0xce, 24, 4);
  mp_str(m, ".group_segment_fixed_size");
  mp_be(m, 0xcf, 65536, 8);
  mp_str(m, ".max_flat_workgroup_size");
  mp_be(m, 0xd1, 1024, 2);
  mp_str(m, ".private_segment_fixed_size");
  mp_be(m, 0xd2, 16, 4);
  mp_str(m, ".kernarg_segment_align");
  mp_be(m, 0xd3, 8, 8);
  mp_str(m, ".wavefront_size");
  mp_byte(m, 32);
  mp_str(m, ".agpr_count");
  mp_byte(m, 0);
  mp_str(m, ".some_future_field");
  mp_map(m, 1);
  mp_byte(m, 5); /* an integer key */
  mp_arr(m, 2);
  mp_byte(m, 1);
  mp_byte(m, 2);
  mp_str(m, ".args");
  if (v == VARIANT_MANY_ARGS) {
    mp_be(m, 0xdc, 65, 2);
    for (int i = 0; i < 65; i++)
      mp_map(m, 0);
  } else {
    mp_arr(m, 2);
    mp_map(m, 4);
    mp_str(m, ".name");
    mp_be(m, 0xda, 1, 2); /* str16 */
    buf_put(m, "x", 1);
    mp_str(m, ".offset");
    mp_byte(m, 0);
    mp_str(m, ".size");
    mp_byte(m, 8);
    mp_str(m, ".value_kind");
    mp_str(m, "global_buffer");
    mp_map(m, 4);
    mp_str(m, ".offset");
    mp_byte(m, 8);
    mp_str(m, ".size");
    mp_byte(m, 4);
    mp_str(m, ".value_kind");
    mp_str(m, "by_value");
    mp_str(m, ".type_name");
    mp_str(m, "int: \"quoted\"");
  }

  mp_map(m, 3);
  mp_str(m, ".name");
  mp_str(m, "ka");
  mp_str(m, ".symbol");
  mp_str(m, "ka.kd");
  mp_str(m, ".wavefront_size");
  mp_byte(m, 64);
}

static void put_le(buf_t *b, uint64_t v, int bytes) {
  uint8_t tmp[8];
  wr_le(tmp, v, bytes);
  buf_put(b, tmp, (size_t)bytes);
}

static void pad_to(buf_t *b, size_t align) {
  while (b->len % align)
    put_le(b, 0, 1);
}

/* A gfx1100 ELF: .note (the metadata), .symtab, .strtab, .shstrtab. */
static void build_elf(buf_t *e, const buf_t *meta) {
  static const char strtab[] = "\0ka\0ka.kd\0kb";
  static const char shstrtab[] = "\0.note\0.symtab\0.strtab\0.shstrtab";
  uint8_t ehdr[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 64, 3};
  buf_put(e, ehdr, sizeof ehdr);

  size_t note = e->len;
  put_le(e, 7, 4);
  put_le(e, meta->len, 4);
  put_le(e, 32, 4);
  buf_put(e, "AMDGPU\0", 8);
  buf_put(e, meta->p, meta->len);
  pad_to(e, 4);
  size_t note_size = e->len - note;
  pad_to(e, 8);

  size_t symtab = e->len;
  uint8_t sym[24] = {0};
  buf_put(e, sym, 24); /* the null symbol */
  struct {
    uint32_t name;
    uint8_t info;
    uint64_t size;
  } syms[] = {{1, 0x12, 0x40}, {4, 0x11, 64}, {10, 0x12, 0x100}}; /* GLOBAL FUNC/OBJECT */
  for (int i = 0; i < 3; i++) {
    memset(sym, 0, sizeof sym);
    wr_le(sym, syms[i].name, 4);
    sym[4] = syms[i].info;
    wr_le(sym + 16, syms[i].size, 8);
    buf_put(e, sym, 24);
  }
  size_t str = e->len;
  buf_put(e, strtab, sizeof strtab);
  size_t shstr = e->len;
  buf_put(e, shstrtab, sizeof shstrtab);
  pad_to(e, 8);

  size_t shoff = e->len;
  struct {
    uint32_t name, type;
    uint64_t offset, size;
    uint32_t link;
    uint64_t entsize;
  } sh[] = {{0, 0, 0, 0, 0, 0},
            {1, 7, note, note_size, 0, 0},
            {7, 2, symtab, 4 * 24, 3, 24},
            {15, 3, str, sizeof strtab, 0, 0},
            {23, 3, shstr, sizeof shstrtab, 0, 0}};
  for (int i = 0; i < 5; i++) {
    uint8_t h[64] = {0};
    wr_le(h, sh[i].name, 4);
    wr_le(h + 4, sh[i].type, 4);
    wr_le(h + 24, sh[i].offset, 8);
    wr_le(h + 32, sh[i].size, 8);
    wr_le(h + 40, sh[i].link, 4);
    wr_le(h + 56, sh[i].entsize, 8);
    buf_put(e, h, 64);
  }
  wr_le(e->p + 16, 3, 2);   /* ET_DYN */
  wr_le(e->p + 18, 224, 2); /* EM_AMDGPU */
  wr_le(e->p + 20, 1, 4);
  wr_le(e->p + 40, shoff, 8);
  wr_le(e->p + 48, 0x41, 4); /* gfx1100 */
  wr_le(e->p + 52, 64, 2);
  wr_le(e->p + 58, 64, 2);
  wr_le(e->p + 60, 5, 2);
  wr_le(e->p + 62, 4, 2);
}

static int parse_variant(variant_t v, buf_t *elf, kgrt_codeobj_t *co, char *err,
                         size_t err_size) {
  buf_t meta = {0};
  build_metadata(&meta, v);
  build_elf(elf, &meta);
  free(meta.p);
  return kgrt_codeobj_parse(elf->p, elf->len, NULL, co, err, err_size);
}

static void test_synthetic(void) {
  char err[256];
  kgrt_codeobj_t co;
  buf_t elf = {0};
  CHECK_EQ(parse_variant(VARIANT_GOOD, &elf, &co, err, sizeof err), 0);
  CHECK_STR(err, "");
  CHECK_STR(co.arch, "gfx1100");
  CHECK_EQ(co.code_object_version, 5);
  CHECK_EQ(co.num_kernels, 2);
  if (co.num_kernels == 2) {
    CHECK_STR(co.kernels[0].name, "ka"); /* sorted */
    CHECK_STR(co.kernels[1].name, "kb");
  }
  const kgrt_codeobj_kernel_t *ka = kgrt_codeobj_find(&co, "ka");
  const kgrt_codeobj_kernel_t *kb = kgrt_codeobj_find(&co, "kb");
  CHECK(ka != NULL && kb != NULL);
  if (ka != NULL && kb != NULL) {
    CHECK(ka->has_symbol);
    CHECK_EQ(ka->code_bytes, 0x40);
    CHECK_EQ(ka->wave_size, 64);
    CHECK_EQ(ka->num_args, 0);
    CHECK(!kb->has_symbol); /* no kb.kd */
    CHECK_EQ(kb->code_bytes, 0x100);
    CHECK_EQ(kb->vgprs, 300);
    CHECK_EQ(kb->sgprs, 20);
    CHECK_EQ(kb->kernarg_size, 24);
    CHECK_EQ(kb->lds_bytes, 65536);
    CHECK_EQ(kb->max_block_size, 1024);
    CHECK_EQ(kb->scratch_bytes, 16);
    CHECK_EQ(kb->kernarg_align, 8);
    CHECK_EQ(kb->wave_size, 32);
    CHECK_EQ(kb->num_args, 2);
    CHECK_STR(kb->args[0].name, "x");
    CHECK_STR(kb->args[0].value_kind, "global_buffer");
    CHECK_STR(kb->args[1].name, "");
    CHECK_EQ(kb->args[1].offset, 8);
    CHECK_EQ(kb->args[1].size, 4);
  }
  kgrt_codeobj_free(&co, NULL);

  buf_t text = {0};
  CHECK_EQ(kgrt_codeobj_dump_metadata(elf.p, elf.len, buf_write, &text, err, sizeof err),
           0);
  const char *want[] = {
      "---\namdhsa.version:\n  - 1\n  - 2\namdhsa.target: amdgcn-amd-amdhsa--gfx1100\n",
      "amdhsa.other:\n  - null\n  - true\n  - false\n  - -1\n  - -100\n  - -1000\n"
      "  - -100000\n  - -10000000000\n  - 0.5\n  - 2.25\n  - !!binary AQID\n"
      "  - x:\n      - 7\n      - []\n  - {}\namdhsa.kernels:\n  - .name: kb\n",
      "\n    .vgpr_count: 300\n",
      "\n    .some_future_field:\n      5:\n        - 1\n        - 2\n",
      "\n    .args:\n      - .name: x\n        .offset: 0\n",
      "\n        .type_name: \"int: \\\"quoted\\\"\"\n",
      "\n  - .name: ka\n    .symbol: ka.kd\n    .wavefront_size: 64\n...\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK(text.p != NULL && strstr((char *)text.p, want[i]) != NULL);
  free(text.p);
  test_flips(elf.p, elf.len, 0x5eed5eedu, 2000);
  free(elf.p);

  static const struct {
    variant_t v;
    const char *err;
  } bad[] = {
      {VARIANT_BIG_VGPRS, "AMDGPU metadata: amdhsa.kernels[0].vgpr_count is not an "
                          "unsigned 32-bit integer"},
      {VARIANT_NO_NAME, "AMDGPU metadata: amdhsa.kernels[0] has no .name"},
      {VARIANT_MANY_ARGS, "AMDGPU metadata: amdhsa.kernels[0].args has 65 entries, more "
                          "than 64"},
      {VARIANT_LONG_NAME, "AMDGPU metadata: amdhsa.kernels[0].name is 200 bytes, longer "
                          "than 127"},
      {VARIANT_DUP_KERNEL, "two kernels are named ka"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    buf_t e = {0};
    CHECK_EQ(parse_variant(bad[i].v, &e, &co, err, sizeof err), -1);
    CHECK_STR(err, bad[i].err);
    CHECK(co.kernels == NULL);
    free(e.p);
  }
}

static void test_mach_names(void) {
  CHECK_STR(kgrt_codeobj_mach_name(0x041), "gfx1100");
  CHECK_STR(kgrt_codeobj_mach_name(0x54c), "gfx942"); /* xnack, sramecc bits ignored */
  CHECK_STR(kgrt_codeobj_mach_name(0x53f), "gfx90a");
  CHECK_STR(kgrt_codeobj_mach_name(0x036), "gfx1030");
  CHECK_STR(kgrt_codeobj_mach_name(0x04e), "gfx1201");
  CHECK(kgrt_codeobj_mach_name(0x000) == NULL);
  CHECK(kgrt_codeobj_mach_name(0x0ff) == NULL);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <gfx1100.hsaco> <gfx942.hsaco>\n", argv[0]);
    return 2;
  }
  static const struct {
    const char *arch;
    uint32_t wave;
  } targets[] = {{"gfx1100", 32}, {"gfx942", 64}};
  test_mach_names();
  test_synthetic();
  for (int i = 0; i < 2; i++) {
    size_t size = 0;
    uint8_t *image = test_read_file(argv[1 + i], &size);
    CHECK(image != NULL);
    if (image == NULL) {
      fprintf(stderr, "cannot read %s\n", argv[1 + i]);
      continue;
    }
    test_real(image, size, targets[i].arch, targets[i].wave);
    test_rejects(image, size);
    test_truncated(image, size);
    test_flips(image, size, 0x9e3779b97f4a7c15u + (uint64_t)i, 2000);
    free(image);
  }
  return TEST_DONE();
}
