/* codeobj_dump.c - kgen --emit=meta: a code object's metadata as YAML-like
 * text (the AMDGPU metadata note, or what the cubin reader read). Built into
 * kgen only, not into the runtime library products link.
 * Needs the code object reader (runtime/kgrt_codeobj_internal.h). Gives
 * kgrt_codeobj_dump_metadata (declared in kgrt_codeobj.h). */
#include "kgrt_codeobj_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
  if (kgrt_mp_next(y->r, &v))
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
    return kgrt_mp_fail(y->r, "nested deeper than %d levels", CO_YAML_MAX_DEPTH);
  for (uint64_t i = 0; i < pairs; i++) {
    mp_item_t key;
    if (i > 0 || !first_inline)
      y_indent(y, indent);
    if (kgrt_mp_next(y->r, &key))
      return -1;
    if (key.kind == MP_MAP || key.kind == MP_ARRAY)
      return kgrt_mp_fail(y->r, "a map key is itself a map or array");
    y_scalar(y, &key);
    y_text(y, ":");
    if (y_value(y, indent, depth))
      return -1;
  }
  return 0;
}

static int y_seq(yaml_t *y, uint64_t items, int indent, int depth) {
  if (depth > CO_YAML_MAX_DEPTH)
    return kgrt_mp_fail(y->r, "nested deeper than %d levels", CO_YAML_MAX_DEPTH);
  for (uint64_t i = 0; i < items; i++) {
    mp_item_t v;
    y_indent(y, indent);
    y_text(y, "-");
    if (kgrt_mp_next(y->r, &v))
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
  if (kgrt_mp_next(y->r, &top))
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
    return kgrt_co_fail(err, err_size, "kgrt_codeobj_dump_metadata: write is NULL");
  co_elf_t e;
  if (kgrt_elf_open(&e, image, size, err, err_size))
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
