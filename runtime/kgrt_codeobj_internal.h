/* kgrt_codeobj_internal.h - the pieces of the code object reader that its
 * files share (internal to kgrt and kgen): the checked ELF image
 * (kgrt_elf.c), the bounded msgpack reader (kgrt_msgpack.c), the cubin
 * reader (kgrt_cubin.c), the kernel list both readers fill
 * (kgrt_codeobj_kernels.c); kgrt_codeobj.c reads AMDGPU metadata with them,
 * and kgen's metadata dumper (gen/codeobj_dump.c) prints it.
 * Every reader checks offsets and lengths against the image before use and
 * returns -1 with a one-line reason; nothing aborts. */
#ifndef KGRT_CODEOBJ_INTERNAL_H
#define KGRT_CODEOBJ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_codeobj.h"

#if defined(__GNUC__)
#define KGRT_CO_INTERNAL __attribute__((visibility("hidden")))
#else
#define KGRT_CO_INTERNAL
#endif

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

/* Writes the formatted reason into err (when not NULL) and returns -1. */
/* Replaces each byte of s outside printable ASCII with '?': a message that
 * quotes a name from an image stays one printable line. */
KGRT_CO_INTERNAL void kgrt_co_printable(char *s);
KGRT_CO_INTERNAL int kgrt_co_fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Little-endian loads. */
KGRT_CO_INTERNAL uint16_t kgrt_co_le16(const uint8_t *p);
KGRT_CO_INTERNAL uint32_t kgrt_co_le32(const uint8_t *p);
KGRT_CO_INTERNAL uint64_t kgrt_co_le64(const uint8_t *p);
/* [off, off + len) lies inside an image of `size` bytes; no overflow. */
KGRT_CO_INTERNAL int kgrt_co_in_image(size_t size, uint64_t off, uint64_t len);

/* Orders kgrt_codeobj_kernel_t by name (qsort; kgrt_codeobj_kernels.c). */
KGRT_CO_INTERNAL int kgrt_co_kernel_cmp(const void *a, const void *b);

/* ---- ELF (kgrt_elf.c) ---- */

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

/* Checks the header, the program and section header tables, every section,
 * the symbol table and (AMDGPU) the notes, and finds the metadata note. */
KGRT_CO_INTERNAL int kgrt_elf_open(co_elf_t *e, const void *image, size_t size, char *err,
                                   size_t err_size);
/* Section i; requires the section header table to be in the image. */
KGRT_CO_INTERNAL co_section_t kgrt_elf_section(const co_elf_t *e, uint32_t i);
/* The NUL-terminated string at `off` in string table `tab`, or NULL. */
KGRT_CO_INTERNAL const char *kgrt_elf_string(const co_elf_t *e, const co_section_t *tab,
                                             uint64_t off);
KGRT_CO_INTERNAL const char *kgrt_elf_section_name(const co_elf_t *e,
                                                   const co_section_t *s);
/* Finds symbol `name` (of STT type `type`, or any type when type < 0). */
KGRT_CO_INTERNAL int kgrt_elf_find_symbol(const co_elf_t *e, const char *name, int type,
                                          uint64_t *out_size);

/* ---- msgpack (kgrt_msgpack.c) ---- */

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

/* "AMDGPU metadata: " and the formatted reason into r->err; returns -1. */
KGRT_CO_INTERNAL int kgrt_mp_fail(mp_reader_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The next item's head (a container's items follow it); -1 when malformed. */
KGRT_CO_INTERNAL int kgrt_mp_next(mp_reader_t *r, mp_item_t *it);
/* Skips what follows the head `it` (a container's items), or the next item. */
KGRT_CO_INTERNAL int kgrt_mp_skip(mp_reader_t *r, const mp_item_t *it);
KGRT_CO_INTERNAL int kgrt_mp_skip_next(mp_reader_t *r);
/* `it` is the string s. */
KGRT_CO_INTERNAL int kgrt_mp_is(const mp_item_t *it, const char *s);
/* The next item as a u32 / a string of fewer than dst_size bytes. */
KGRT_CO_INTERNAL int kgrt_mp_read_u32(mp_reader_t *r, const char *where, const char *key,
                                      uint32_t *out);
KGRT_CO_INTERNAL int kgrt_mp_read_str(mp_reader_t *r, const char *where, const char *key,
                                      char *dst, size_t dst_size);

/* ---- cubin (kgrt_cubin.c) ---- */

/* Fills co from a cubin's .nv.info sections and symbols. */
KGRT_CO_INTERNAL int kgrt_cubin_parse(const co_elf_t *e, kgrt_codeobj_t *co,
                                      const kgrt_allocator_t *alloc, char *err,
                                      size_t err_size);

#endif /* KGRT_CODEOBJ_INTERNAL_H */
