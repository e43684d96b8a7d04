/* kgrt_elf.c - the checked ELF64 image under the code object reader: the
 * header, the program and section header tables, every section, the symbol
 * table and every note record against the image's size; the AMDGPU
 * metadata note. Gives kgrt_elf_open and the lookups (kgrt_codeobj_internal.h). */
#include "kgrt_codeobj_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void kgrt_co_printable(char *s) {
  for (; *s != '\0'; ++s)
    if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
      *s = '?';
}

int kgrt_co_fail(char *err, size_t err_size, const char *fmt, ...) {
  if (err != NULL && err_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    kgrt_co_printable(err); /* names from the image may hold any byte */
  }
  return -1;
}

/* ---- ELF ------------------------------------------------------------------ */

uint16_t kgrt_co_le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t kgrt_co_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

uint64_t kgrt_co_le64(const uint8_t *p) {
  return kgrt_co_le32(p) | (uint64_t)kgrt_co_le32(p + 4) << 32;
}

/* [off, off + len) lies inside an image of `size` bytes; no overflow. */
int kgrt_co_in_image(size_t size, uint64_t off, uint64_t len) {
  return off <= size && len <= size - off;
}

/* requires the section header table to be in the image */
co_section_t kgrt_elf_section(const co_elf_t *e, uint32_t i) {
  const uint8_t *h = e->p + e->shoff + (uint64_t)i * CO_SHDR_SIZE;
  co_section_t s;
  s.name = kgrt_co_le32(h);
  s.type = kgrt_co_le32(h + 4);
  s.offset = kgrt_co_le64(h + 24);
  s.size = kgrt_co_le64(h + 32);
  s.link = kgrt_co_le32(h + 40);
  s.entsize = kgrt_co_le64(h + 56);
  return s;
}

/* The NUL-terminated string at `off` in string table `tab` (already checked to
 * be inside the image), or NULL when off or the terminator is out of range. */
const char *kgrt_elf_string(const co_elf_t *e, const co_section_t *tab, uint64_t off) {
  if (off >= tab->size)
    return NULL;
  const char *s = (const char *)e->p + tab->offset + off;
  return memchr(s, 0, tab->size - off) ? s : NULL;
}

/* requires elf_check_sections */
const char *kgrt_elf_section_name(const co_elf_t *e, const co_section_t *s) {
  const char *name = e->has_shstrtab ? kgrt_elf_string(e, &e->shstrtab, s->name) : NULL;
  return name ? name : "";
}

static int elf_check_header(co_elf_t *e, char *err, size_t err_size) {
  static const uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
  const uint8_t *p = e->p;
  if (memcmp(p, magic, e->size < 4 ? e->size : 4) != 0)
    return kgrt_co_fail(err, err_size, "not an ELF file (bad magic)");
  if (e->size < CO_EHDR_SIZE)
    return kgrt_co_fail(err, err_size,
                        "truncated: file is %zu bytes, the ELF header needs %d", e->size,
                        CO_EHDR_SIZE);
  if (p[4] != 2)
    return kgrt_co_fail(err, err_size, "ELF class is not 64-bit (EI_CLASS %u)", p[4]);
  if (p[5] != 1)
    return kgrt_co_fail(err, err_size, "ELF data is not little-endian (EI_DATA %u)",
                        p[5]);
  if (p[6] != 1)
    return kgrt_co_fail(err, err_size, "ELF version is %u, not 1", p[6]);
  uint16_t machine = kgrt_co_le16(p + 18);
  if (machine != CO_EM_AMDGPU && machine != CO_EM_CUDA)
    return kgrt_co_fail(err, err_size, "e_machine is %u, not AMDGPU (%d)", machine,
                        CO_EM_AMDGPU);
  e->machine = machine;
  e->abi_version = p[8];
  e->flags = kgrt_co_le32(p + 48);

  uint64_t phoff = kgrt_co_le64(p + 32);
  uint16_t phentsize = kgrt_co_le16(p + 54), phnum = kgrt_co_le16(p + 56);
  if (phnum != 0) {
    if (phentsize != CO_PHDR_SIZE)
      return kgrt_co_fail(err, err_size, "e_phentsize is %u, not %d", phentsize,
                          CO_PHDR_SIZE);
    if (!kgrt_co_in_image(e->size, phoff, (uint64_t)phnum * CO_PHDR_SIZE))
      return kgrt_co_fail(err, err_size,
                          "truncated: program header table past end of file");
    for (uint32_t i = 0; i < phnum; i++) {
      const uint8_t *ph = p + phoff + (uint64_t)i * CO_PHDR_SIZE;
      if (!kgrt_co_in_image(e->size, kgrt_co_le64(ph + 8), kgrt_co_le64(ph + 32)))
        return kgrt_co_fail(err, err_size,
                            "truncated: program header %u past end of file", i);
    }
  }

  uint16_t shentsize = kgrt_co_le16(p + 58);
  e->shoff = kgrt_co_le64(p + 40);
  e->shnum = kgrt_co_le16(p + 60);
  if (e->shnum == 0)
    return kgrt_co_fail(err, err_size, "no section headers (e_shnum is 0)");
  if (shentsize != CO_SHDR_SIZE)
    return kgrt_co_fail(err, err_size, "e_shentsize is %u, not %d", shentsize,
                        CO_SHDR_SIZE);
  if (!kgrt_co_in_image(e->size, e->shoff, (uint64_t)e->shnum * CO_SHDR_SIZE))
    return kgrt_co_fail(err, err_size,
                        "truncated: section header table past end of file");
  return 0;
}

/* requires elf_check_header */
static int elf_check_sections(co_elf_t *e, char *err, size_t err_size) {
  uint16_t shstrndx = kgrt_co_le16(e->p + 62);
  if (shstrndx != 0) {
    if (shstrndx >= e->shnum)
      return kgrt_co_fail(err, err_size, "e_shstrndx %u out of range (%u sections)",
                          shstrndx, e->shnum);
    e->shstrtab = kgrt_elf_section(e, shstrndx);
    if (e->shstrtab.type != CO_SHT_STRTAB)
      return kgrt_co_fail(err, err_size,
                          "section name table (section %u) is not SHT_STRTAB", shstrndx);
    if (!kgrt_co_in_image(e->size, e->shstrtab.offset, e->shstrtab.size))
      return kgrt_co_fail(err, err_size,
                          "truncated: section name table past end of file");
    e->has_shstrtab = 1;
  }
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = kgrt_elf_section(e, i);
    if (e->has_shstrtab && kgrt_elf_string(e, &e->shstrtab, s.name) == NULL)
      return kgrt_co_fail(err, err_size, "section %u: name offset %u out of range", i,
                          s.name);
    if (s.type != CO_SHT_NULL && s.type != CO_SHT_NOBITS &&
        !kgrt_co_in_image(e->size, s.offset, s.size))
      return kgrt_co_fail(err, err_size, "truncated: section %u (%s) past end of file", i,
                          kgrt_elf_section_name(e, &s));
  }
  return 0;
}

/* Picks .symtab (else .dynsym) and checks its entries and names.
 * requires elf_check_sections */
static int elf_check_symtab(co_elf_t *e, char *err, size_t err_size) {
  uint32_t index = 0;
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = kgrt_elf_section(e, i);
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
    return kgrt_co_fail(err, err_size,
                        "symbol table (section %u): entry size %llu, size %llu", index,
                        (unsigned long long)st->entsize, (unsigned long long)st->size);
  if (st->link >= e->shnum)
    return kgrt_co_fail(err, err_size,
                        "symbol table (section %u): sh_link %u out of range", index,
                        st->link);
  e->symstr = kgrt_elf_section(e, st->link);
  if (e->symstr.type != CO_SHT_STRTAB)
    return kgrt_co_fail(err, err_size,
                        "symbol table (section %u): sh_link %u is not SHT_STRTAB", index,
                        st->link);
  for (uint64_t i = 0; i < st->size / CO_SYM_SIZE; i++) {
    uint32_t name = kgrt_co_le32(e->p + st->offset + i * CO_SYM_SIZE);
    if (kgrt_elf_string(e, &e->symstr, name) == NULL)
      return kgrt_co_fail(err, err_size, "symbol %llu: name offset %u out of range",
                          (unsigned long long)i, name);
  }
  return 0;
}

/* Walks every record of every SHT_NOTE section; keeps the first AMDGPU
 * metadata note. requires elf_check_sections */
static int elf_find_metadata(co_elf_t *e, char *err, size_t err_size) {
  for (uint32_t i = 0; i < e->shnum; i++) {
    co_section_t s = kgrt_elf_section(e, i);
    if (s.type != CO_SHT_NOTE)
      continue;
    const uint8_t *base = e->p + s.offset;
    uint64_t off = 0;
    for (uint32_t rec = 0; off < s.size; rec++) {
      if (s.size - off < 12)
        return kgrt_co_fail(err, err_size,
                            "note %u in section %u (%s) runs past its section", rec, i,
                            kgrt_elf_section_name(e, &s));
      uint32_t namesz = kgrt_co_le32(base + off), descsz = kgrt_co_le32(base + off + 4);
      uint32_t type = kgrt_co_le32(base + off + 8);
      uint64_t name = off + 12;
      uint64_t desc = name + ((namesz + 3ull) & ~3ull);
      if (desc > s.size || descsz > s.size - desc)
        return kgrt_co_fail(err, err_size,
                            "note %u in section %u (%s) runs past its section", rec, i,
                            kgrt_elf_section_name(e, &s));
      if (e->meta == NULL && type == CO_NT_AMDGPU_METADATA && namesz == 7 &&
          memcmp(base + name, "AMDGPU", 7) == 0) {
        e->meta = base + desc;
        e->meta_size = descsz;
      }
      off = (desc + descsz + 3) & ~3ull;
    }
  }
  if (e->meta == NULL)
    return kgrt_co_fail(err, err_size, "no AMDGPU metadata note");
  return 0;
}

int kgrt_elf_open(co_elf_t *e, const void *image, size_t size, char *err,
                  size_t err_size) {
  memset(e, 0, sizeof *e);
  if (image == NULL || size == 0)
    return kgrt_co_fail(err, err_size, "empty buffer");
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
int kgrt_elf_find_symbol(const co_elf_t *e, const char *name, int type,
                         uint64_t *out_size) {
  if (!e->has_symtab)
    return 0;
  for (uint64_t i = 0; i < e->symtab.size / CO_SYM_SIZE; i++) {
    const uint8_t *sym = e->p + e->symtab.offset + i * CO_SYM_SIZE;
    const char *s = kgrt_elf_string(e, &e->symstr, kgrt_co_le32(sym));
    if (s == NULL || strcmp(s, name) != 0)
      continue;
    if (type >= 0 && (sym[4] & 0xf) != type)
      continue;
    if (out_size != NULL)
      *out_size = kgrt_co_le64(sym + 16);
    return 1;
  }
  return 0;
}
