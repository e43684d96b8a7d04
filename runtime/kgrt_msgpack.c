/* kgrt_msgpack.c - a bounded msgpack reader for the AMDGPU metadata note:
 * every length is checked against the bytes left, nesting is bounded, no
 * allocation. Gives kgrt_mp_* (kgrt_codeobj_internal.h). */
#include "kgrt_codeobj_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- msgpack ----------------------------------------------------------------- */

int kgrt_mp_fail(mp_reader_t *r, const char *fmt, ...) {
  if (r->err != NULL && r->err_size > 0) {
    int n = snprintf(r->err, r->err_size, "AMDGPU metadata: ");
    if (n > 0 && (size_t)n < r->err_size) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
      va_end(ap);
      kgrt_co_printable(r->err); /* keys and names from the image */
    }
  }
  return -1;
}

/* Reads a `width`-byte big-endian unsigned number. */
static int mp_be(mp_reader_t *r, unsigned width, uint64_t *out) {
  if (width > r->size - r->pos)
    return kgrt_mp_fail(r, "msgpack truncated at offset %zu", r->pos);
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
      return kgrt_mp_fail(r, "msgpack string at offset %zu runs past the end", at);
    it->data = r->p + r->pos;
    r->pos += n;
  } else if ((kind == MP_MAP ? 2 * n : n) > left) {
    return kgrt_mp_fail(r, "msgpack %s at offset %zu holds more items than bytes left",
                        kind == MP_MAP ? "map" : "array", at);
  }
  return 0;
}

/* Reads one item's header; a STR/BIN's bytes are consumed, the members of an
 * ARRAY/MAP are not. */
int kgrt_mp_next(mp_reader_t *r, mp_item_t *it) {
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
    return kgrt_mp_fail(r, "unsupported msgpack type 0x%02x at offset %zu", (unsigned)b,
                        at);
  }
}

/* Skips the members of `it` (nothing for a scalar). Iterative: a deep or wide
 * corrupt document costs one pass and no stack. */
int kgrt_mp_skip(mp_reader_t *r, const mp_item_t *it) {
  uint64_t pending = it->kind == MP_ARRAY ? it->n : it->kind == MP_MAP ? 2 * it->n : 0;
  while (pending > 0) {
    mp_item_t sub;
    if (kgrt_mp_next(r, &sub))
      return -1;
    pending--;
    if (sub.kind == MP_ARRAY)
      pending += sub.n;
    else if (sub.kind == MP_MAP)
      pending += 2 * sub.n;
  }
  return 0;
}

int kgrt_mp_skip_next(mp_reader_t *r) {
  mp_item_t it;
  return kgrt_mp_next(r, &it) || kgrt_mp_skip(r, &it) ? -1 : 0;
}

int kgrt_mp_is(const mp_item_t *it, const char *s) {
  size_t n = strlen(s);
  return it->kind == MP_STR && it->n == n && memcmp(it->data, s, n) == 0;
}

/* Reads the value of `where``key` into a uint32_t. */
int kgrt_mp_read_u32(mp_reader_t *r, const char *where, const char *key, uint32_t *out) {
  mp_item_t v;
  if (kgrt_mp_next(r, &v))
    return -1;
  if (v.kind != MP_UINT || v.u > UINT32_MAX)
    return kgrt_mp_fail(r, "%s%s is not an unsigned 32-bit integer", where, key);
  *out = (uint32_t)v.u;
  return 0;
}

/* Reads the string value of `where``key` into dst, NUL-terminated. */
int kgrt_mp_read_str(mp_reader_t *r, const char *where, const char *key, char *dst,
                     size_t dst_size) {
  mp_item_t v;
  if (kgrt_mp_next(r, &v))
    return -1;
  if (v.kind != MP_STR)
    return kgrt_mp_fail(r, "%s%s is not a string", where, key);
  if (v.n >= dst_size)
    return kgrt_mp_fail(r, "%s%s is %llu bytes, longer than %zu", where, key,
                        (unsigned long long)v.n, dst_size - 1);
  if (memchr(v.data, 0, v.n) != NULL)
    return kgrt_mp_fail(r, "%s%s holds a NUL byte", where, key);
  memcpy(dst, v.data, v.n);
  dst[v.n] = '\0';
  return 0;
}
