/* kgrt_codeobj.c - reads an AMDGPU code object (hsaco) or an NVIDIA cubin.
 *
 * Needs: the image in memory and the caller's allocator. Checks the ELF64
 * header, the program and section header tables, every section, the symbol
 * table and every note record against the image's size. Then, by e_machine:
 *   EM_AMDGPU: decodes the NT_AMDGPU_METADATA note (msgpack, code object v3+)
 *     with a bounded decoder;
 *   EM_CUDA: reads the .nv.info attribute sections ptxas writes (see "cubin"
 *     below): per kernel its parameters, registers, stack and shared memory.
 * Gives: kgrt_codeobj_t (kernels sorted by name) or the metadata as YAML text.
 * Malformed input returns -1 and a one-line reason; nothing here aborts. */
#include "kgrt_codeobj.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The ELF and AMDGPU constants we use; <elf.h> is not needed. */
enum {
  CO_EHDR_SIZE = 64,
  CO_PHDR_SIZE = 56,
  CO_SHDR_SIZE = 64,
  CO_SYM_SIZE = 24,
  CO_EM_AMDGPU = 224,
  CO_EM_CUDA = 190,
  CO_SHT_NULL = 0,
  CO_SHT_SYMTAB = 2,
  CO_SHT_STRTAB = 3,
  CO_SHT_NOTE = 7,
  CO_SHT_NOBITS = 8,
  CO_SHT_DYNSYM = 11,
  CO_STT_FUNC = 2,
  CO_NT_AMDGPU_METADATA = 32,
  CO_YAML_MAX_DEPTH = 32,
};

static int fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t err_size, const char *fmt, ...) {
  if (err != NULL && err_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- ELF ------------------------------------------------------------------ */

static uint16_t le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p) {
  return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* [off, off + len) lies inside an image of `size` bytes; no overflow. */
static int in_image(size_t size, uint64_t off, uint64_t len) {
  return off <= size && len <= size - off;
}

typedef struct co_section {
  uint32_t name;
  uint32_t type;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
  uint64_t entsize;
} co_section_t;

/* A checked ELF image: every section but NOBITS lies inside it, every name
 * and symbol name is a terminated string, `meta` is the metadata note's desc. */
typedef struct co_elf {
  const uint8_t *p;
  size_t size;
  uint16_t machine; /* CO_EM_AMDGPU or CO_EM_CUDA */
  uint32_t flags;
  uint8_t abi_version;
  uint64_t shoff;
  uint32_t shnum;
  int has_shstrtab;
  co_section_t shstrtab;
  int has_symtab;
  co_section_t symtab;
  co_section_t symstr;
  const uint8_t *meta;
  size_t meta_size;
} co_elf_t;

/* requires the section header table to be in the image */
static co_section_t elf_section(const co_elf_t *e, uint32_t i) {
  const uint8_t *h = e->p + e->shoff + (uint64_t)i * CO_SHDR_SIZE;
  co_section_t s;
  s.name = le32(h);
  s.type = le32(h + 4);
  s.offset = le64(h + 24);
  s.size = le64(h + 32);
  s.link = le32(h + 40);
  s.entsize = le64(h + 56);
  return s;
}

/* The NUL-terminated string at `off` in string table `tab` (already checked to
 * be inside the image), or NULL when off or the terminator is out of range. */
static const char *elf_string(const co_elf_t *e, const co_section_t *tab, uint64_t off) {
  if (off >= tab->size)
    return NULL;
  const char *s = (const char *)e->p + tab->offset + off;
  return memchr(s, 0, tab->size - off) ? s : NULL;
}

/* requires elf_check_sections */
static const char *elf_section_name(const co_elf_t *e, const co_section_t *s) {
  const char *name = e->has_shstrtab ? elf_string(e, &e->shstrtab, s->name) : NULL;
  return name ? name : "";
}

static int elf_check_header(co_elf_t *e, char *err, size_t err_size) {
  static const uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
  const uint8_t *p = e->p;
  if (memcmp(p, magic, e->size < 4 ? e->size : 4) != 0)
    return fail(err, err_size, "not an ELF file (bad magic)");
  if (e->size < CO_EHDR_SIZE)
    return fail(err, err_size, "truncated: file is %zu bytes, the ELF header needs %d",
                e->size, CO_EHDR_SIZE);
  if (p[4] != 2)
    return fail(err, err_size, "ELF class is not 64-bit (EI_CLASS %u)", p[4]);
  if (p[5] != 1)
    return fail(err, err_size, "ELF data is not little-endian (EI_DATA %u)", p[5]);
  if (p[6] != 1)
    return fail(err, err_size, "ELF version is %u, not 1", p[6]);
  uint16_t machine = le16(p + 18);
  if (machine != CO_EM_AMDGPU && machine != CO_EM_CUDA)
    return fail(err, err_size, "e_machine is %u, not AMDGPU (%d)", machine, CO_EM_AMDGPU);
  e->machine = machine;
  e->abi_version = p[8];
  e->flags = le32(p + 48);

  uint64_t phoff = le64(p + 32);
  uint16_t phentsize = le16(p + 54), phnum = le16(p + 56);
  if (phnum != 0) {
    if (phentsize != CO_PHDR_SIZE)
      return fail(err, err_size, "e_phentsize is %u, not %d", phentsize, CO_PHDR_SIZE);
    if (!in_image(e->size, phoff, (uint64_t)phnum * CO_PHDR_SIZE))
      return fail(err, err_size, "truncated: program header table past end of file");
    for (uint32_t i = 0; i < phnum; i++) {
      const uint8_t *ph = p + phoff + (uint64_t)i * CO_PHDR_SIZE;
      if (!in_image(e->size, le64(ph + 8), le64(ph + 32)))
        return fail(err, err_size, "truncated: program header %u past end of file", i);
    }
  }

  uint16_t shentsize = le16(p + 58);
  e->shoff = le64(p + 40);
  e->shnum = le16(p + 60);
  if (e->shnum == 0)
    return fail(err, err_size, "no section headers (e_shnum is 0)");
  if (shentsize != CO_SHDR_SIZE)
    return fail(err, err_size, "e_shentsize is %u, not %d", shentsize, CO_SHDR_SIZE);
  if (!in_image(e->size, e->shoff, (uint64_t)e->shnum * CO_SHDR_SIZE))
    return fail(err, err_size, "truncated: section header table past end of file");
  return 0;
}

/* requires elf_check_header */
static int elf_check_sections(co_elf_t *e, char *err, size_t err_size) {
  uint16_t shstrndx = le16(e->p + 62);
  if (shstrndx != 0) {
    if (shstrndx >= e->shnum)
      return fail(err, err_size, "e_shstrndx %u out of range (%u sections)", shstrndx,
                  e->shnum);
    e->shstrtab = elf_section(e, shstrndx);
    if (e->shstrtab.type != CO_SHT_STRTAB)
      return fail(err, err_size, "section name table (section %u) is not SHT_STRTAB",
                  shstrndx);
    if (!in_image(e->size, e->shstrtab.offset, e->shstrtab.size))
      return fail(err, err_size, "truncated: section name table past end of file");
    e->has_shstrtab = 1;
  }
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = elf_section(e, i);
    if (e->has_shstrtab && elf_string(e, &e->shstrtab, s.name) == NULL)
      return fail(err, err_size, "section %u: name offset %u out of range", i, s.name);
    if (s.type != CO_SHT_NULL && s.type != CO_SHT_NOBITS &&
        !in_image(e->size, s.offset, s.size))
      return fail(err, err_size, "truncated: section %u (%s) past end of file", i,
                  elf_section_name(e, &s));
  }
  return 0;
}

/* Picks .symtab (else .dynsym) and checks its entries and names.
 * requires elf_check_sections */
static int elf_check_symtab(co_elf_t *e, char *err, size_t err_size) {
  uint32_t index = 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = elf_section(e, i);
    if (s.type == CO_SHT_SYMTAB || (s.type == CO_SHT_DYNSYM && !e->has_symtab)) {
      e->symtab = s;
      e->has_symtab = 1;
      index = i;
    }
    if (s.type == CO_SHT_SYMTAB)
      break;
  }
  if (!e->has_symtab)
    return 0;
  const co_section_t *st = &e->symtab;
  if (st->entsize != CO_SYM_SIZE || st->size % CO_SYM_SIZE != 0)
    return fail(err, err_size, "symbol table (section %u): entry size %llu, size %llu",
                index, (unsigned long long)st->entsize, (unsigned long long)st->size);
  if (st->link >= e->shnum)
    return fail(err, err_size, "symbol table (section %u): sh_link %u out of range",
                index, st->link);
  e->symstr = elf_section(e, st->link);
  if (e->symstr.type != CO_SHT_STRTAB)
    return fail(err, err_size, "symbol table (section %u): sh_link %u is not SHT_STRTAB",
                index, st->link);
  for (uint64_t i = 0; i < st->size / CO_SYM_SIZE; i++) {
    uint32_t name = le32(e->p + st->offset + i * CO_SYM_SIZE);
    if (elf_string(e, &e->symstr, name) == NULL)
      return fail(err, err_size, "symbol %llu: name offset %u out of range",
                  (unsigned long long)i, name);
  }
  return 0;
}

/* Walks every record of every SHT_NOTE section; keeps the first AMDGPU
 * metadata note. requires elf_check_sections */
static int elf_find_metadata(co_elf_t *e, char *err, size_t err_size) {
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = elf_section(e, i);
    if (s.type != CO_SHT_NOTE)
      continue;
    const uint8_t *base = e->p + s.offset;
    uint64_t off = 0;
    for (uint32_t rec = 0; off < s.size; rec++) {
      if (s.size - off < 12)
        return fail(err, err_size, "note %u in section %u (%s) runs past its section",
                    rec, i, elf_section_name(e, &s));
      uint32_t namesz = le32(base + off), descsz = le32(base + off + 4);
      uint32_t type = le32(base + off + 8);
      uint64_t name = off + 12;
      uint64_t desc = name + ((namesz + 3ull) & ~3ull);
      if (desc > s.size || descsz > s.size - desc)
        return fail(err, err_size, "note %u in section %u (%s) runs past its section",
                    rec, i, elf_section_name(e, &s));
      if (e->meta == NULL && type == CO_NT_AMDGPU_METADATA && namesz == 7 &&
          memcmp(base + name, "AMDGPU", 7) == 0) {
        e->meta = base + desc;
        e->meta_size = descsz;
      }
      off = (desc + descsz + 3) & ~3ull;
    }
  }
  if (e->meta == NULL)
    return fail(err, err_size, "no AMDGPU metadata note");
  return 0;
}

static int elf_open(co_elf_t *e, const void *image, size_t size, char *err,
                    size_t err_size) {
  memset(e, 0, sizeof *e);
  if (image == NULL || size == 0)
    return fail(err, err_size, "empty buffer");
  e->p = image;
  e->size = size;
  if (elf_check_header(e, err, err_size) || elf_check_sections(e, err, err_size) ||
      elf_check_symtab(e, err, err_size))
    return -1;
  if (e->machine == CO_EM_AMDGPU && elf_find_metadata(e, err, err_size))
    return -1;
  return 0;
}

/* Finds symbol `name` (of STT type `type`, or any type when type < 0). */
static int elf_find_symbol(const co_elf_t *e, const char *name, int type,
                           uint64_t *out_size) {
  if (!e->has_symtab)
    return 0;
  for (uint64_t i = 0; i < e->symtab.size / CO_SYM_SIZE; i++) {
    const uint8_t *sym = e->p + e->symtab.offset + i * CO_SYM_SIZE;
    const char *s = elf_string(e, &e->symstr, le32(sym));
    if (s == NULL || strcmp(s, name) != 0)
      continue;
    if (type >= 0 && (sym[4] & 0xf) != type)
      continue;
    if (out_size != NULL)
      *out_size = le64(sym + 16);
    return 1;
  }
  return 0;
}

/* ---- msgpack ----------------------------------------------------------------- */

typedef enum mp_kind {
  MP_NIL,
  MP_BOOL,
  MP_UINT, /* any integer >= 0, whatever its encoding */
  MP_INT,  /* a negative integer */
  MP_FLOAT,
  MP_STR,
  MP_BIN,
  MP_ARRAY,
  MP_MAP,
} mp_kind_t;

typedef struct mp_item {
  mp_kind_t kind;
  uint64_t u;          /* MP_UINT, MP_BOOL */
  int64_t i;           /* MP_INT */
  double f;            /* MP_FLOAT */
  uint64_t n;          /* bytes of STR/BIN, items of ARRAY, pairs of MAP, 4/8 for FLOAT */
  const uint8_t *data; /* MP_STR, MP_BIN */
} mp_item_t;

typedef struct mp_reader {
  const uint8_t *p;
  size_t size;
  size_t pos;
  char *err;
  size_t err_size;
} mp_reader_t;

static int mp_fail(mp_reader_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int mp_fail(mp_reader_t *r, const char *fmt, ...) {
  if (r->err != NULL && r->err_size > 0) {
    int n = snprintf(r->err, r->err_size, "AMDGPU metadata: ");
    if (n > 0 && (size_t)n < r->err_size) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

/* Reads a `width`-byte big-endian unsigned number. */
static int mp_be(mp_reader_t *r, unsigned width, uint64_t *out) {
  if (width > r->size - r->pos)
    return mp_fail(r, "msgpack truncated at offset %zu", r->pos);
  uint64_t v = 0;
  for (unsigned k = 0; k < width; k++)
    v = v << 8 | r->p[r->pos + k];
  r->pos += width;
  *out = v;
  return 0;
}

static int mp_int(mp_item_t *it, int64_t v) {
  if (v >= 0) {
    it->kind = MP_UINT;
    it->u = (uint64_t)v;
  } else {
    it->kind = MP_INT;
    it->i = v;
  }
  return 0;
}

/* The header of the item's contents: count (maps, arrays) or bytes. Checked
 * against what is left so that a corrupt count cannot ask for much. */
static int mp_sized(mp_reader_t *r, mp_item_t *it, mp_kind_t kind, uint64_t n,
                    size_t at) {
  size_t left = r->size - r->pos;
  it->kind = kind;
  it->n = n;
  if (kind == MP_STR || kind == MP_BIN) {
    if (n > left)
      return mp_fail(r, "msgpack string at offset %zu runs past the end", at);
    it->data = r->p + r->pos;
    r->pos += n;
  } else if ((kind == MP_MAP ? 2 * n : n) > left) {
    return mp_fail(r, "msgpack %s at offset %zu holds more items than bytes left",
                   kind == MP_MAP ? "map" : "array", at);
  }
  return 0;
}

/* Reads one item's header; a STR/BIN's bytes are consumed, the members of an
 * ARRAY/MAP are not. */
static int mp_next(mp_reader_t *r, mp_item_t *it) {
  memset(it, 0, sizeof *it);
  size_t at = r->pos;
  uint64_t b = 0, v = 0;
  if (mp_be(r, 1, &b))
    return -1;
  if (b <= 0x7f)
    return mp_int(it, (int64_t)b);
  if (b >= 0xe0)
    return mp_int(it, (int8_t)b);
  if ((b & 0xf0) == 0x80)
    return mp_sized(r, it, MP_MAP, b & 0x0f, at);
  if ((b & 0xf0) == 0x90)
    return mp_sized(r, it, MP_ARRAY, b & 0x0f, at);
  if ((b & 0xe0) == 0xa0)
    return mp_sized(r, it, MP_STR, b & 0x1f, at);
  switch (b) {
  case 0xc0:
    it->kind = MP_NIL;
    return 0;
  case 0xc2:
  case 0xc3:
    it->kind = MP_BOOL;
    it->u = b & 1;
    return 0;
  case 0xc4: /* bin 8, 16, 32 */
  case 0xc5:
  case 0xc6:
    return mp_be(r, 1u << (b - 0xc4), &v) ? -1 : mp_sized(r, it, MP_BIN, v, at);
  case 0xca: { /* float 32 */
    float f;
    uint32_t bits;
    if (mp_be(r, 4, &v))
      return -1;
    bits = (uint32_t)v;
    memcpy(&f, &bits, 4);
    it->kind = MP_FLOAT;
    it->f = f;
    it->n = 4;
    return 0;
  }
  case 0xcb: /* float 64 */
    if (mp_be(r, 8, &v))
      return -1;
    memcpy(&it->f, &v, 8);
    it->kind = MP_FLOAT;
    it->n = 8;
    return 0;
  case 0xcc: /* uint 8, 16, 32, 64 */
  case 0xcd:
  case 0xce:
  case 0xcf:
    if (mp_be(r, 1u << (b - 0xcc), &v))
      return -1;
    it->kind = MP_UINT;
    it->u = v;
    return 0;
  case 0xd0: /* int 8, 16, 32, 64 */
    return mp_be(r, 1, &v) ? -1 : mp_int(it, (int8_t)v);
  case 0xd1:
    return mp_be(r, 2, &v) ? -1 : mp_int(it, (int16_t)v);
  case 0xd2:
    return mp_be(r, 4, &v) ? -1 : mp_int(it, (int32_t)v);
  case 0xd3:
    return mp_be(r, 8, &v) ? -1 : mp_int(it, (int64_t)v);
  case 0xd9: /* str 8, 16, 32 */
  case 0xda:
  case 0xdb:
    return mp_be(r, 1u << (b - 0xd9), &v) ? -1 : mp_sized(r, it, MP_STR, v, at);
  case 0xdc: /* array 16, 32 */
  case 0xdd:
    return mp_be(r, 2u << (b - 0xdc), &v) ? -1 : mp_sized(r, it, MP_ARRAY, v, at);
  case 0xde: /* map 16, 32 */
  case 0xdf:
    return mp_be(r, 2u << (b - 0xde), &v) ? -1 : mp_sized(r, it, MP_MAP, v, at);
  default: /* 0xc1, ext, fixext */
    return mp_fail(r, "unsupported msgpack type 0x%02x at offset %zu", (unsigned)b, at);
  }
}

/* Skips the members of `it` (nothing for a scalar). Iterative: a deep or wide
 * corrupt document costs one pass and no stack. */
static int mp_skip(mp_reader_t *r, const mp_item_t *it) {
  uint64_t pending = it->kind == MP_ARRAY ? it->n : it->kind == MP_MAP ? 2 * it->n : 0;
  while (pending > 0) {
    mp_item_t sub;
    if (mp_next(r, &sub))
      return -1;
    pending--;
    if (sub.kind == MP_ARRAY)
      pending += sub.n;
    else if (sub.kind == MP_MAP)
      pending += 2 * sub.n;
  }
  return 0;
}

static int mp_skip_next(mp_reader_t *r) {
  mp_item_t it;
  return mp_next(r, &it) || mp_skip(r, &it) ? -1 : 0;
}

static int mp_is(const mp_item_t *it, const char *s) {
  size_t n = strlen(s);
  return it->kind == MP_STR && it->n == n && memcmp(it->data, s, n) == 0;
}

/* Reads the value of `where``key` into a uint32_t. */
static int mp_read_u32(mp_reader_t *r, const char *where, const char *key,
                       uint32_t *out) {
  mp_item_t v;
  if (mp_next(r, &v))
    return -1;
  if (v.kind != MP_UINT || v.u > UINT32_MAX)
    return mp_fail(r, "%s%s is not an unsigned 32-bit integer", where, key);
  *out = (uint32_t)v.u;
  return 0;
}

/* Reads the string value of `where``key` into dst, NUL-terminated. */
static int mp_read_str(mp_reader_t *r, const char *where, const char *key, char *dst,
                       size_t dst_size) {
  mp_item_t v;
  if (mp_next(r, &v))
    return -1;
  if (v.kind != MP_STR)
    return mp_fail(r, "%s%s is not a string", where, key);
  if (v.n >= dst_size)
    return mp_fail(r, "%s%s is %llu bytes, longer than %zu", where, key,
                   (unsigned long long)v.n, dst_size - 1);
  if (memchr(v.data, 0, v.n) != NULL)
    return mp_fail(r, "%s%s holds a NUL byte", where, key);
  memcpy(dst, v.data, v.n);
  dst[v.n] = '\0';
  return 0;
}

/* ---- metadata -> kgrt_codeobj_t ------------------------------------------- */

typedef struct co_u32_field {
  const char *key;
  size_t offset;
} co_u32_field_t;

static const co_u32_field_t kernel_u32_fields[] = {
    {".kernarg_segment_size", offsetof(kgrt_codeobj_kernel_t, kernarg_size)},
    {".kernarg_segment_align", offsetof(kgrt_codeobj_kernel_t, kernarg_align)},
    {".group_segment_fixed_size", offsetof(kgrt_codeobj_kernel_t, lds_bytes)},
    {".private_segment_fixed_size", offsetof(kgrt_codeobj_kernel_t, scratch_bytes)},
    {".vgpr_count", offsetof(kgrt_codeobj_kernel_t, vgprs)},
    {".sgpr_count", offsetof(kgrt_codeobj_kernel_t, sgprs)},
    {".agpr_count", offsetof(kgrt_codeobj_kernel_t, agprs)},
    {".vgpr_spill_count", offsetof(kgrt_codeobj_kernel_t, vgpr_spills)},
    {".sgpr_spill_count", offsetof(kgrt_codeobj_kernel_t, sgpr_spills)},
    {".wavefront_size", offsetof(kgrt_codeobj_kernel_t, wave_size)},
    {".max_flat_workgroup_size", offsetof(kgrt_codeobj_kernel_t, max_block_size)},
};

/* .args: [{.name, .offset, .size, .value_kind, ...}, ...] */
static int parse_args(mp_reader_t *r, const char *where, kgrt_codeobj_kernel_t *k) {
  mp_item_t args;
  if (mp_next(r, &args))
    return -1;
  if (args.kind != MP_ARRAY)
    return mp_fail(r, "%s.args is not an array", where);
  if (args.n > KGRT_CODEOBJ_MAX_ARGS)
    return mp_fail(r, "%s.args has %llu entries, more than %d", where,
                   (unsigned long long)args.n, KGRT_CODEOBJ_MAX_ARGS);
  k->num_args = (uint32_t)args.n;
  for (uint32_t i = 0; i < k->num_args; i++) {
    kgrt_codeobj_arg_t *a = &k->args[i];
    char at[64];
    snprintf(at, sizeof at, "%s.args[%u]", where, i);
    mp_item_t map;
    if (mp_next(r, &map))
      return -1;
    if (map.kind != MP_MAP)
      return mp_fail(r, "%s is not a map", at);
    for (uint64_t j = 0; j < map.n; j++) {
      mp_item_t key;
      int rc;
      if (mp_next(r, &key))
        return -1;
      if (mp_is(&key, ".name"))
        rc = mp_read_str(r, at, ".name", a->name, sizeof a->name);
      else if (mp_is(&key, ".value_kind"))
        rc = mp_read_str(r, at, ".value_kind", a->value_kind, sizeof a->value_kind);
      else if (mp_is(&key, ".offset"))
        rc = mp_read_u32(r, at, ".offset", &a->offset);
      else if (mp_is(&key, ".size"))
        rc = mp_read_u32(r, at, ".size", &a->size);
      else
        rc = mp_skip(r, &key) || mp_skip_next(r) ? -1 : 0;
      if (rc)
        return -1;
    }
  }
  return 0;
}

/* One entry of amdhsa.kernels. */
static int parse_kernel(mp_reader_t *r, uint32_t index, kgrt_codeobj_kernel_t *k) {
  char where[32];
  snprintf(where, sizeof where, "amdhsa.kernels[%u]", index);
  mp_item_t map;
  if (mp_next(r, &map))
    return -1;
  if (map.kind != MP_MAP)
    return mp_fail(r, "%s is not a map", where);
  for (uint64_t j = 0; j < map.n; j++) {
    mp_item_t key;
    int rc = 1; /* 1: not a key we read */
    if (mp_next(r, &key))
      return -1;
    if (mp_is(&key, ".name"))
      rc = mp_read_str(r, where, ".name", k->name, sizeof k->name);
    else if (mp_is(&key, ".symbol"))
      rc = mp_read_str(r, where, ".symbol", k->symbol, sizeof k->symbol);
    else if (mp_is(&key, ".args"))
      rc = parse_args(r, where, k);
    for (size_t f = 0;
         rc == 1 && f < sizeof kernel_u32_fields / sizeof kernel_u32_fields[0]; f++) {
      const co_u32_field_t *field = &kernel_u32_fields[f];
      if (mp_is(&key, field->key))
        rc = mp_read_u32(r, where, field->key, (uint32_t *)((char *)k + field->offset));
    }
    if (rc == 1)
      rc = mp_skip(r, &key) || mp_skip_next(r) ? -1 : 0;
    if (rc)
      return -1;
  }
  if (k->name[0] == '\0')
    return mp_fail(r, "%s has no .name", where);
  if (k->symbol[0] == '\0')
    return mp_fail(r, "%s (%s) has no .symbol", where, k->name);
  return 0;
}

static int parse_kernels(mp_reader_t *r, kgrt_codeobj_t *co,
                         const kgrt_allocator_t *alloc) {
  mp_item_t list;
  if (co->kernels != NULL)
    return mp_fail(r, "amdhsa.kernels appears twice");
  if (mp_next(r, &list))
    return -1;
  if (list.kind != MP_ARRAY)
    return mp_fail(r, "amdhsa.kernels is not an array");
  /* walk it once first, so a corrupt count cannot make us allocate */
  mp_reader_t probe = *r;
  if (mp_skip(&probe, &list))
    return -1;
  if (list.n == 0)
    return 0;
  co->kernels = kgrt_calloc(alloc, list.n, sizeof *co->kernels);
  if (co->kernels == NULL)
    return mp_fail(r, "out of memory for %llu kernels", (unsigned long long)list.n);
  co->num_kernels = (uint32_t)list.n;
  for (uint32_t i = 0; i < co->num_kernels; i++)
    if (parse_kernel(r, i, &co->kernels[i]))
      return -1;
  return 0;
}

/* The top-level map: amdhsa.version, amdhsa.target, amdhsa.kernels. */
static int parse_metadata(mp_reader_t *r, kgrt_codeobj_t *co,
                          const kgrt_allocator_t *alloc) {
  mp_item_t top;
  if (mp_next(r, &top))
    return -1;
  if (top.kind != MP_MAP)
    return mp_fail(r, "the note is not a msgpack map");
  for (uint64_t j = 0; j < top.n; j++) {
    mp_item_t key;
    int rc;
    if (mp_next(r, &key))
      return -1;
    if (mp_is(&key, "amdhsa.target")) {
      rc = mp_read_str(r, "", "amdhsa.target", co->target, sizeof co->target);
    } else if (mp_is(&key, "amdhsa.kernels")) {
      rc = parse_kernels(r, co, alloc);
    } else if (mp_is(&key, "amdhsa.version")) {
      mp_item_t v;
      if (mp_next(r, &v))
        return -1;
      if (v.kind != MP_ARRAY || v.n < 2)
        return mp_fail(r, "amdhsa.version is not an array of two integers");
      rc = mp_read_u32(r, "amdhsa.version", "[0]", &co->meta_version[0]) ||
                   mp_read_u32(r, "amdhsa.version", "[1]", &co->meta_version[1])
               ? -1
               : 0;
      for (uint64_t i = 2; rc == 0 && i < v.n; i++)
        rc = mp_skip_next(r);
    } else {
      rc = mp_skip(r, &key) || mp_skip_next(r) ? -1 : 0;
    }
    if (rc)
      return -1;
  }
  return 0;
}

/* ---- public --------------------------------------------------------------- */

typedef struct co_mach {
  uint8_t mach;
  char name[16];
} co_mach_t;

/* EF_AMDGPU_MACH_AMDGCN_*: checked against the e_flags clang-19 writes for
 * each --offload-arch (gfx950 from LLVM's ELF.h; clang-19 predates it). */
static const co_mach_t co_machs[] = {
    {0x020, "gfx600"},          {0x021, "gfx601"},        {0x03a, "gfx602"},
    {0x022, "gfx700"},          {0x023, "gfx701"},        {0x024, "gfx702"},
    {0x025, "gfx703"},          {0x026, "gfx704"},        {0x03b, "gfx705"},
    {0x028, "gfx801"},          {0x029, "gfx802"},        {0x02a, "gfx803"},
    {0x03c, "gfx805"},          {0x02b, "gfx810"},        {0x02c, "gfx900"},
    {0x02d, "gfx902"},          {0x02e, "gfx904"},        {0x02f, "gfx906"},
    {0x030, "gfx908"},          {0x031, "gfx909"},        {0x03f, "gfx90a"},
    {0x032, "gfx90c"},          {0x040, "gfx940"},        {0x04b, "gfx941"},
    {0x04c, "gfx942"},          {0x04f, "gfx950"},        {0x033, "gfx1010"},
    {0x034, "gfx1011"},         {0x035, "gfx1012"},       {0x042, "gfx1013"},
    {0x036, "gfx1030"},         {0x037, "gfx1031"},       {0x038, "gfx1032"},
    {0x039, "gfx1033"},         {0x03e, "gfx1034"},       {0x03d, "gfx1035"},
    {0x045, "gfx1036"},         {0x041, "gfx1100"},       {0x046, "gfx1101"},
    {0x047, "gfx1102"},         {0x044, "gfx1103"},       {0x043, "gfx1150"},
    {0x04a, "gfx1151"},         {0x055, "gfx1152"},       {0x048, "gfx1200"},
    {0x04e, "gfx1201"},         {0x051, "gfx9-generic"},  {0x052, "gfx10-1-generic"},
    {0x053, "gfx10-3-generic"}, {0x054, "gfx11-generic"}, {0x059, "gfx12-generic"},
};

const char *kgrt_codeobj_mach_name(uint32_t e_flags) {
  for (size_t i = 0; i < sizeof co_machs / sizeof co_machs[0]; i++)
    if (co_machs[i].mach == (e_flags & 0xff))
      return co_machs[i].name;
  return NULL;
}

static int kernel_cmp(const void *a, const void *b) {
  return strcmp(((const kgrt_codeobj_kernel_t *)a)->name,
                ((const kgrt_codeobj_kernel_t *)b)->name);
}

static int kernel_name_cmp(const void *key, const void *elem) {
  return strcmp(key, ((const kgrt_codeobj_kernel_t *)elem)->name);
}

/* arch from e_flags, checked against amdhsa.target's processor; symbols;
 * kernels sorted. */
static int finish(const co_elf_t *e, kgrt_codeobj_t *co, char *err, size_t err_size) {
  char processor[sizeof co->arch] = "";
  const char *dashes = strstr(co->target, "--");
  if (dashes != NULL) {
    size_t len = strcspn(dashes + 2, ":");
    if (len >= sizeof processor)
      return fail(err, err_size, "amdhsa.target '%s': processor name too long",
                  co->target);
    memcpy(processor, dashes + 2, len);
    processor[len] = '\0';
  }
  const char *mach = kgrt_codeobj_mach_name(e->flags);
  if (mach != NULL && processor[0] != '\0' && strcmp(mach, processor) != 0)
    return fail(err, err_size, "e_flags say %s but amdhsa.target says %s", mach,
                processor);
  if (mach == NULL && processor[0] == '\0')
    return fail(err, err_size, "unknown EF_AMDGPU_MACH 0x%02x and no amdhsa.target",
                (unsigned)(e->flags & 0xff));
  snprintf(co->arch, sizeof co->arch, "%s", mach != NULL ? mach : processor);

  for (uint32_t i = 0; i < co->num_kernels; i++) {
    kgrt_codeobj_kernel_t *k = &co->kernels[i];
    k->has_symbol = elf_find_symbol(e, k->symbol, -1, NULL);
    if (!elf_find_symbol(e, k->name, CO_STT_FUNC, &k->code_bytes))
      k->code_bytes = 0;
  }
  if (co->num_kernels > 1)
    qsort(co->kernels, co->num_kernels, sizeof *co->kernels, kernel_cmp);
  for (uint32_t i = 1; i < co->num_kernels; i++)
    if (strcmp(co->kernels[i - 1].name, co->kernels[i].name) == 0)
      return fail(err, err_size, "two kernels are named %s", co->kernels[i].name);
  return 0;
}

/* ---- cubin ---------------------------------------------------------------- */

/* An NVIDIA cubin (EM_CUDA) as NVRTC's ptxas writes it. NVIDIA documents none
 * of this; the layout is what cuobjdump -elf prints, e_flags as LLVM's
 * BinaryFormat/ELF.h decodes them, and the figures were checked against
 * ptxas -v of CUDA 13.0 (test/lit/codegen/sm90_meta.lua) and against the
 * driver's cuFuncGetAttribute on an H100 (registers, shared and local bytes
 * equal for every kernel tried, stack frames and 4000-byte arrays included):
 *   e_flags: the SM number in bits 0-7 under CUDA ELF ABI version 7, in bits
 *     8-15 under version 8; "a" targets (sm_90a) set EF_CUDA_ACCELERATORS
 *     (0x800 under version 7, 0x8 under version 8).
 *   .nv.info.<kernel>: one per kernel, a run of attributes, each {u8 format,
 *     u8 attribute, u16 value}, where format 4 (EIFMT_SVAL) makes the u16 the
 *     size of the bytes that follow. Per kernel we read
 *       0x05 EIATTR_MAX_THREADS       {u32 x, y, z} (from __launch_bounds__)
 *       0x17 EIATTR_KPARAM_INFO       {u32 index, u16 ordinal, u16 offset,
 *                                      u32 flags: size in bytes in bits 18-31}
 *       0x19 EIATTR_CBANK_PARAM_SIZE  bytes of parameters (the u16 value)
 *   .nv.info: records for every function, keyed by symbol index:
 *       0x2f EIATTR_REGCOUNT          {u32 symbol, u32 registers per thread}
 *       0x11 EIATTR_FRAME_SIZE        {u32 symbol, u32 stack frame bytes}
 *       0x12 EIATTR_MIN_STACK_SIZE    {u32 symbol, u32 stack bytes with callees}
 *   .nv.shared.<kernel>: NOBITS, its size the kernel's static shared memory.
 *     For sm_90 ptxas starts it with the 1 KiB the driver reserves per block
 *     (CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024 on an H100)
 *     and marks such cubins with the undefined symbol .nv.reservedSmem.offset0;
 *     ptxas -v and cuFuncGetAttribute leave that 1 KiB out, and so do we
 *     (for sm_80 the section holds the kernel's own bytes alone).
 *   <kernel>: a FUNC symbol, its size the code bytes. */
enum {
  CU_EIFMT_SVAL = 4,
  CU_EIATTR_MAX_THREADS = 0x05,
  CU_EIATTR_FRAME_SIZE = 0x11,
  CU_EIATTR_MIN_STACK_SIZE = 0x12,
  CU_EIATTR_KPARAM_INFO = 0x17,
  CU_EIATTR_CBANK_PARAM_SIZE = 0x19,
  CU_EIATTR_REGCOUNT = 0x2f,
  CU_WARP = 32,
  CU_RESERVED_SHARED = 1024,
};

typedef struct cu_attr {
  uint8_t attr;
  uint16_t value;      /* the u16: a value, or an SVAL's size */
  const uint8_t *data; /* EIFMT_SVAL: `value` bytes */
  uint32_t size;       /* 0 for the other formats */
} cu_attr_t;

/* Reads the attribute at *pos of section `s` (inside the image); returns 1
 * with *a filled, 0 at the section's end, -1 when a record runs past it. */
static int cu_attr_next(const co_elf_t *e, const co_section_t *s, uint64_t *pos,
                        cu_attr_t *a, char *err, size_t err_size) {
  if (*pos >= s->size)
    return 0;
  const uint8_t *p = e->p + s->offset + *pos;
  uint64_t left = s->size - *pos;
  if (left < 4)
    return fail(err, err_size, "%s: attribute at offset %llu runs past its section",
                elf_section_name(e, s), (unsigned long long)*pos);
  a->attr = p[1];
  a->value = le16(p + 2);
  a->data = p + 4;
  a->size = p[0] == CU_EIFMT_SVAL ? a->value : 0;
  if (a->size > left - 4)
    return fail(err, err_size,
                "%s: attribute 0x%02x at offset %llu runs past its section",
                elf_section_name(e, s), a->attr, (unsigned long long)*pos);
  *pos += 4 + (uint64_t)a->size;
  return 1;
}

/* "sm_90" (or "sm_90a") from e_flags and the CUDA ELF ABI version. */
static int cu_arch(const co_elf_t *e, kgrt_codeobj_t *co, char *err, size_t err_size) {
  uint32_t sm, accel;
  if (e->abi_version == 7) {
    sm = e->flags & 0xff;
    accel = e->flags & 0x800;
  } else if (e->abi_version == 8) {
    sm = (e->flags >> 8) & 0xff;
    accel = e->flags & 0x8;
  } else {
    return fail(err, err_size, "CUDA ELF ABI version %u is not 7 or 8", e->abi_version);
  }
  if (sm == 0)
    return fail(err, err_size, "e_flags 0x%08x name no SM architecture",
                (unsigned)e->flags);
  snprintf(co->arch, sizeof co->arch, "sm_%u%s", (unsigned)sm, accel ? "a" : "");
  return 0;
}

/* Section `s`'s name after `prefix`, or NULL when it does not start so. */
static const char *cu_suffix(const co_elf_t *e, const co_section_t *s,
                             const char *prefix) {
  const char *name = elf_section_name(e, s);
  size_t n = strlen(prefix);
  return strncmp(name, prefix, n) == 0 && name[n] != '\0' ? name + n : NULL;
}

/* One kernel's .nv.info.<kernel>: its parameters and thread limit. */
static int cu_kernel_info(const co_elf_t *e, const co_section_t *s,
                          kgrt_codeobj_kernel_t *k, char *err, size_t err_size) {
  uint8_t seen[KGRT_CODEOBJ_MAX_ARGS] = {0};
  uint64_t pos = 0;
  cu_attr_t a = {0};
  int rc;
  while ((rc = cu_attr_next(e, s, &pos, &a, err, err_size)) == 1) {
    if (a.attr == CU_EIATTR_CBANK_PARAM_SIZE) {
      k->kernarg_size = a.value;
    } else if (a.attr == CU_EIATTR_MAX_THREADS && a.size >= 12) {
      uint64_t n = (uint64_t)le32(a.data) * le32(a.data + 4) * le32(a.data + 8);
      k->max_block_size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    } else if (a.attr == CU_EIATTR_KPARAM_INFO) {
      if (a.size < 12)
        return fail(err, err_size, "kernel %s: EIATTR_KPARAM_INFO of %u bytes", k->name,
                    a.size);
      uint32_t ordinal = le16(a.data + 4);
      if (ordinal >= KGRT_CODEOBJ_MAX_ARGS || seen[ordinal])
        return fail(err, err_size, "kernel %s: parameter %u is out of range or repeated",
                    k->name, ordinal);
      seen[ordinal] = 1;
      k->args[ordinal].offset = le16(a.data + 6);
      k->args[ordinal].size = (le32(a.data + 8) >> 18) & 0x3fff;
      if (ordinal + 1 > k->num_args)
        k->num_args = ordinal + 1;
    }
  }
  if (rc < 0)
    return -1;
  for (uint32_t i = 0; i < k->num_args; i++)
    if (!seen[i])
      return fail(err, err_size, "kernel %s: parameter %u has no EIATTR_KPARAM_INFO",
                  k->name, i);
  return 0;
}

/* The kernel that symbol `index` names, or NULL (another function, or no
 * such symbol). requires the kernels sorted */
static kgrt_codeobj_kernel_t *cu_kernel_of_symbol(const co_elf_t *e, kgrt_codeobj_t *co,
                                                  uint32_t index) {
  if (!e->has_symtab || index >= e->symtab.size / CO_SYM_SIZE)
    return NULL;
  const uint8_t *sym = e->p + e->symtab.offset + (uint64_t)index * CO_SYM_SIZE;
  const char *name = elf_string(e, &e->symstr, le32(sym));
  if (name == NULL || (sym[4] & 0xf) != CO_STT_FUNC)
    return NULL;
  return (kgrt_codeobj_kernel_t *)kgrt_codeobj_find(co, name);
}

/* .nv.info: registers and stack, per function symbol. */
static int cu_function_info(const co_elf_t *e, const co_section_t *s, kgrt_codeobj_t *co,
                            char *err, size_t err_size) {
  uint64_t pos = 0;
  cu_attr_t a = {0};
  int rc;
  while ((rc = cu_attr_next(e, s, &pos, &a, err, err_size)) == 1) {
    if (a.size < 8 || (a.attr != CU_EIATTR_REGCOUNT && a.attr != CU_EIATTR_FRAME_SIZE &&
                       a.attr != CU_EIATTR_MIN_STACK_SIZE))
      continue;
    kgrt_codeobj_kernel_t *k = cu_kernel_of_symbol(e, co, le32(a.data));
    uint32_t v = le32(a.data + 4);
    if (k == NULL)
      continue;
    if (a.attr == CU_EIATTR_REGCOUNT)
      k->vgprs = v;
    else if (v > k->scratch_bytes) /* the frame, or the stack with callees */
      k->scratch_bytes = v;
  }
  return rc < 0 ? -1 : 0;
}

static int cu_parse(const co_elf_t *e, kgrt_codeobj_t *co, const kgrt_allocator_t *alloc,
                    char *err, size_t err_size) {
  if (cu_arch(e, co, err, err_size))
    return -1;
  uint32_t count = 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = elf_section(e, i);
    if (cu_suffix(e, &s, ".nv.info.") != NULL)
      count++;
  }
  if (count == 0)
    return 0;
  co->kernels = kgrt_calloc(alloc, count, sizeof *co->kernels);
  if (co->kernels == NULL)
    return fail(err, err_size, "out of memory for %u kernels", count);
  co->num_kernels = count;
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = elf_section(e, i);
    const char *name = cu_suffix(e, &s, ".nv.info.");
    if (name == NULL)
      continue;
    kgrt_codeobj_kernel_t *k = &co->kernels[n++];
    if (strlen(name) >= sizeof k->name)
      return fail(err, err_size, "section %u: kernel name longer than %zu bytes", i,
                  sizeof k->name - 1);
    if (s.type == CO_SHT_NULL || s.type == CO_SHT_NOBITS)
      return fail(err, err_size, "section %u (.nv.info.%s) holds no data", i, name);
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->symbol, sizeof k->symbol, "%s", name);
    k->wave_size = CU_WARP;
    k->has_symbol = elf_find_symbol(e, name, CO_STT_FUNC, &k->code_bytes);
    if (cu_kernel_info(e, &s, k, err, err_size))
      return -1;
  }
  if (co->num_kernels > 1)
    qsort(co->kernels, co->num_kernels, sizeof *co->kernels, kernel_cmp);
  for (uint32_t i = 1; i < co->num_kernels; i++)
    if (strcmp(co->kernels[i - 1].name, co->kernels[i].name) == 0)
      return fail(err, err_size, "two kernels are named %s", co->kernels[i].name);
  uint64_t reserved =
      elf_find_symbol(e, ".nv.reservedSmem.offset0", -1, NULL) ? CU_RESERVED_SHARED : 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = elf_section(e, i);
    const char *shared = cu_suffix(e, &s, ".nv.shared.");
    kgrt_codeobj_kernel_t *k =
        shared ? (kgrt_codeobj_kernel_t *)kgrt_codeobj_find(co, shared) : NULL;
    uint64_t bytes = s.size >= reserved ? s.size - reserved : s.size;
    if (k != NULL)
      k->lds_bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
    if (strcmp(elf_section_name(e, &s), ".nv.info") == 0 &&
        cu_function_info(e, &s, co, err, err_size))
      return -1;
  }
  return 0;
}

int kgrt_codeobj_parse(const void *image, size_t size, const kgrt_allocator_t *alloc,
                       kgrt_codeobj_t *out, char *err, size_t err_size) {
  if (err != NULL && err_size > 0)
    err[0] = '\0';
  if (out == NULL)
    return fail(err, err_size, "kgrt_codeobj_parse: out is NULL");
  memset(out, 0, sizeof *out);
  co_elf_t e;
  if (elf_open(&e, image, size, err, err_size))
    return -1;

  kgrt_codeobj_t co;
  memset(&co, 0, sizeof co);
  co.machine = e.machine;
  co.abi_version = e.abi_version;
  if (e.machine == CO_EM_CUDA) {
    if (cu_parse(&e, &co, alloc, err, err_size)) {
      kgrt_codeobj_free(&co, alloc);
      return -1;
    }
    *out = co;
    return 0;
  }
  /* ELFABIVERSION_AMDGPU_HSA_V3..V6 are 1..4 */
  co.code_object_version =
      e.abi_version >= 1 && e.abi_version <= 4 ? e.abi_version + 2u : 0;
  mp_reader_t r = {e.meta, e.meta_size, 0, err, err_size};
  if (parse_metadata(&r, &co, alloc) || finish(&e, &co, err, err_size)) {
    kgrt_codeobj_free(&co, alloc);
    return -1;
  }
  *out = co;
  return 0;
}

void kgrt_codeobj_free(kgrt_codeobj_t *co, const kgrt_allocator_t *alloc) {
  if (co == NULL)
    return;
  kgrt_free(alloc, co->kernels);
  co->kernels = NULL;
  co->num_kernels = 0;
}

const kgrt_codeobj_kernel_t *kgrt_codeobj_find(const kgrt_codeobj_t *co,
                                               const char *name) {
  if (co == NULL || name == NULL || co->kernels == NULL)
    return NULL;
  return bsearch(name, co->kernels, co->num_kernels, sizeof *co->kernels,
                 kernel_name_cmp);
}

/* ---- YAML dump -------------------------------------------------------------- */

typedef struct yaml {
  kgrt_codeobj_write_fn write;
  void *user;
  mp_reader_t *r;
} yaml_t;

static void y_text(yaml_t *y, const char *s) {
  y->write(y->user, s, strlen(s));
}

static void y_indent(yaml_t *y, int n) {
  static const char spaces[] = "                                ";
  for (; n > 0; n -= 32)
    y->write(y->user, spaces, n < 32 ? (size_t)n : 32);
}

/* Whether YAML reads s back as this same plain string. */
static int y_plain_ok(const uint8_t *s, size_t n) {
  static const char *const words[] = {"true", "false", "null", "yes",
                                      "no",   "on",    "off",  "~"};
  if (n == 0 || strchr("-?:,[]{}#&*!|>'\"%@` +", s[0]) != NULL)
    return 0;
  if ((s[0] >= '0' && s[0] <= '9') ||
      (s[0] == '.' && n > 1 && s[1] >= '0' && s[1] <= '9'))
    return 0;
  if (s[n - 1] == ' ')
    return 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < 0x20 || s[i] >= 0x7f)
      return 0;
    if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' '))
      return 0;
    if (s[i] == '#' && s[i - 1] == ' ') /* i > 0: s[0] == '#' returned above */
      return 0;
  }
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
    if (strlen(words[w]) == n && strncasecmp(words[w], (const char *)s, n) == 0)
      return 0;
  return 1;
}

static void y_string(yaml_t *y, const uint8_t *s, size_t n) {
  if (y_plain_ok(s, n)) {
    y->write(y->user, (const char *)s, n);
    return;
  }
  char buf[72];
  size_t len = 0;
  buf[len++] = '"';
  for (size_t i = 0; i < n; i++) {
    if (len > 64) {
      y->write(y->user, buf, len);
      len = 0;
    }
    if (s[i] == '"' || s[i] == '\\') {
      buf[len++] = '\\';
      buf[len++] = (char)s[i];
    } else if (s[i] < 0x20 || s[i] == 0x7f) {
      len += (size_t)snprintf(buf + len, sizeof buf - len, "\\x%02x", s[i]);
    } else {
      buf[len++] = (char)s[i]; /* UTF-8 passes through */
    }
  }
  buf[len++] = '"';
  y->write(y->user, buf, len);
}

static void y_base64(yaml_t *y, const uint8_t *s, size_t n) {
  static const char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)s[i] << 16;
    if (i + 1 < n)
      v |= (uint32_t)s[i + 1] << 8;
    if (i + 2 < n)
      v |= s[i + 2];
    char out[4] = {digits[v >> 18 & 63], digits[v >> 12 & 63],
                   i + 1 < n ? digits[v >> 6 & 63] : '=',
                   i + 2 < n ? digits[v & 63] : '='};
    y->write(y->user, out, 4);
  }
}

/* requires `it` not to be an ARRAY or MAP */
static void y_scalar(yaml_t *y, const mp_item_t *it) {
  char buf[40];
  switch (it->kind) {
  case MP_NIL:
    y_text(y, "null");
    return;
  case MP_BOOL:
    y_text(y, it->u ? "true" : "false");
    return;
  case MP_UINT:
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)it->u);
    break;
  case MP_INT:
    snprintf(buf, sizeof buf, "%lld", (long long)it->i);
    break;
  case MP_FLOAT:
    snprintf(buf, sizeof buf, "%.*g", it->n == 4 ? 9 : 17, it->f);
    if (strspn(buf, "-0123456789") == strlen(buf))
      strcat(buf, ".0"); /* keep it a float when read back */
    break;
  case MP_STR:
    y_string(y, it->data, it->n);
    return;
  case MP_BIN:
    y_text(y, "!!binary ");
    y_base64(y, it->data, it->n);
    return;
  default:
    return;
  }
  y_text(y, buf);
}

static int y_map(yaml_t *y, uint64_t pairs, int indent, int first_inline, int depth);
static int y_seq(yaml_t *y, uint64_t items, int indent, int depth);

/* Prints the next item as the value after "key:", ending the line. */
static int y_value(yaml_t *y, int indent, int depth) {
  mp_item_t v;
  if (mp_next(y->r, &v))
    return -1;
  if (v.kind == MP_MAP && v.n > 0) {
    y_text(y, "\n");
    return y_map(y, v.n, indent + 2, 0, depth + 1);
  }
  if (v.kind == MP_ARRAY && v.n > 0) {
    y_text(y, "\n");
    return y_seq(y, v.n, indent + 2, depth + 1);
  }
  y_text(y, " ");
  if (v.kind == MP_MAP || v.kind == MP_ARRAY)
    y_text(y, v.kind == MP_MAP ? "{}" : "[]");
  else
    y_scalar(y, &v);
  y_text(y, "\n");
  return 0;
}

/* `first_inline`: the first key goes on the current line, after "- ". */
static int y_map(yaml_t *y, uint64_t pairs, int indent, int first_inline, int depth) {
  if (depth > CO_YAML_MAX_DEPTH)
    return mp_fail(y->r, "nested deeper than %d levels", CO_YAML_MAX_DEPTH);
  for (uint64_t i = 0; i < pairs; i++) {
    mp_item_t key;
    if (i > 0 || !first_inline)
      y_indent(y, indent);
    if (mp_next(y->r, &key))
      return -1;
    if (key.kind == MP_MAP || key.kind == MP_ARRAY)
      return mp_fail(y->r, "a map key is itself a map or array");
    y_scalar(y, &key);
    y_text(y, ":");
    if (y_value(y, indent, depth))
      return -1;
  }
  return 0;
}

static int y_seq(yaml_t *y, uint64_t items, int indent, int depth) {
  if (depth > CO_YAML_MAX_DEPTH)
    return mp_fail(y->r, "nested deeper than %d levels", CO_YAML_MAX_DEPTH);
  for (uint64_t i = 0; i < items; i++) {
    mp_item_t v;
    y_indent(y, indent);
    y_text(y, "-");
    if (mp_next(y->r, &v))
      return -1;
    if (v.kind == MP_MAP && v.n > 0) {
      y_text(y, " ");
      if (y_map(y, v.n, indent + 2, 1, depth + 1))
        return -1;
    } else if (v.kind == MP_ARRAY && v.n > 0) {
      y_text(y, "\n");
      if (y_seq(y, v.n, indent + 2, depth + 1))
        return -1;
    } else {
      y_text(y, " ");
      if (v.kind == MP_MAP || v.kind == MP_ARRAY)
        y_text(y, v.kind == MP_MAP ? "{}" : "[]");
      else
        y_scalar(y, &v);
      y_text(y, "\n");
    }
  }
  return 0;
}

/* "---", the document, "...". */
static int y_document(yaml_t *y) {
  mp_item_t top;
  if (mp_next(y->r, &top))
    return -1;
  y_text(y, "---\n");
  if (top.kind == MP_MAP && y_map(y, top.n, 0, 0, 0))
    return -1;
  if (top.kind == MP_ARRAY && y_seq(y, top.n, 0, 0))
    return -1;
  if (top.kind != MP_MAP && top.kind != MP_ARRAY) {
    y_scalar(y, &top);
    y_text(y, "\n");
  }
  y_text(y, "...\n");
  return 0;
}

static void y_discard(void *user, const char *text, size_t len) {
  (void)user;
  (void)text;
  (void)len;
}

/* A cubin's figures in the same YAML-like shape: what cu_parse read. */
static int cu_dump(const void *image, size_t size, kgrt_codeobj_write_fn write,
                   void *user, char *err, size_t err_size) {
  kgrt_codeobj_t co;
  if (kgrt_codeobj_parse(image, size, NULL, &co, err, err_size))
    return -1;
  char line[512];
  int n = snprintf(line, sizeof line, "---\ncuda.arch: %s\ncuda.elf_abi_version: %u\n",
                   co.arch, co.abi_version);
  write(user, line, (size_t)n);
  write(user, "cuda.kernels:\n", 14);
  for (uint32_t i = 0; i < co.num_kernels; i++) {
    const kgrt_codeobj_kernel_t *k = &co.kernels[i];
    n = snprintf(line, sizeof line,
                 "  - .name: %s\n    .code_bytes: %llu\n    .registers: %u\n"
                 "    .shared_bytes: %u\n    .stack_bytes: %u\n    .max_threads: %u\n"
                 "    .param_bytes: %u\n    .params:%s\n",
                 k->name, (unsigned long long)k->code_bytes, k->vgprs, k->lds_bytes,
                 k->scratch_bytes, k->max_block_size, k->kernarg_size,
                 k->num_args ? "" : " []");
    write(user, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    for (uint32_t j = 0; j < k->num_args; j++) {
      n = snprintf(line, sizeof line, "      - .offset: %u\n        .size: %u\n",
                   k->args[j].offset, k->args[j].size);
      write(user, line, (size_t)n);
    }
  }
  write(user, "...\n", 4);
  kgrt_codeobj_free(&co, NULL);
  return 0;
}

int kgrt_codeobj_dump_metadata(const void *image, size_t size,
                               kgrt_codeobj_write_fn write, void *user, char *err,
                               size_t err_size) {
  if (err != NULL && err_size > 0)
    err[0] = '\0';
  if (write == NULL)
    return fail(err, err_size, "kgrt_codeobj_dump_metadata: write is NULL");
  co_elf_t e;
  if (elf_open(&e, image, size, err, err_size))
    return -1;
  if (e.machine == CO_EM_CUDA)
    return cu_dump(image, size, write, user, err, err_size);
  mp_reader_t r = {e.meta, e.meta_size, 0, err, err_size};
  yaml_t dry_run = {y_discard, NULL, &r};
  if (y_document(&dry_run))
    return -1; /* a corrupt document prints nothing */
  r.pos = 0;
  yaml_t y = {write, user, &r};
  return y_document(&y);
}
