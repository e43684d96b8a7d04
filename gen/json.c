/* json.c - the strict JSON reader of json.h: recursive descent over the
 * bytes, each value pushed as it is read. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#define NUMBER_MAX 512 /* characters of one number */

typedef struct {
  lua_State *L;
  const char *text, *p, *end;
  char *why;
  size_t why_len;
  int depth;
  char *scratch; /* a string's bytes, decoded (never longer than the text) */
} reader_t;

enum { PUSHED = 0, WAS_NULL = 1, FAILED = -1 };

/* Writes "line L, column C: what" for the byte at `at`; returns FAILED. */
static int fail(reader_t *r, const char *at, const char *fmt, ...) {
  int line = 1;
  const char *bol = r->text;
  for (const char *q = r->text; q < at; q++)
    if (*q == '\n') {
      line++;
      bol = q + 1;
    }
  int n =
      snprintf(r->why, r->why_len, "line %d, column %ld: ", line, (long)(at - bol) + 1);
  if (n >= 0 && (size_t)n < r->why_len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why + n, r->why_len - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return FAILED;
}

static void skip_space(reader_t *r) {
  while (r->p < r->end &&
         (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
    r->p++;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    const char c = p[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0)
      return -1;
    v = v * 16 + (unsigned)d;
  }
  *out = v;
  return 0;
}

/* Appends code point cp as UTF-8 at *out. */
static void add_utf8(char **out, unsigned cp) {
  char *o = *out;
  if (cp < 0x80) {
    *o++ = (char)cp;
  } else if (cp < 0x800) {
    *o++ = (char)(0xc0 | cp >> 6);
    *o++ = (char)(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xe0 | cp >> 12);
    *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
    *o++ = (char)(0x80 | (cp & 0x3f));
  } else {
    *o++ = (char)(0xf0 | cp >> 18);
    *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
    *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
    *o++ = (char)(0x80 | (cp & 0x3f));
  }
  *out = o;
}

/* A \u escape at p (the backslash); its code point, a surrogate pair taken
 * whole. Advances r->p past it. */
static int unicode_escape(reader_t *r, unsigned *cp) {
  const char *at = r->p;
  if (r->end - r->p < 6 || hex4(r->p + 2, cp) != 0)
    return fail(r, at, "\\u takes 4 hex digits");
  r->p += 6;
  if (*cp >= 0xdc00 && *cp <= 0xdfff)
    return fail(r, at, "a low surrogate \\u%04X without its high one", *cp);
  if (*cp >= 0xd800 && *cp <= 0xdbff) {
    unsigned lo;
    if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
        hex4(r->p + 2, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
      return fail(r, at, "a high surrogate \\u%04X without its low one", *cp);
    r->p += 6;
    *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
  }
  return PUSHED;
}

/* A string at r->p (its opening quote): pushes its bytes. They are decoded
 * into r->scratch first (an escape never decodes longer than it is
 * written), so nothing is on the Lua stack until the string is whole. */
static int read_string(reader_t *r) {
  const char *open = r->p++;
  char *out = r->scratch;
  for (;;) {
    if (r->p >= r->end)
      return fail(r, open, "a string without its closing quote");
    const unsigned char c = (unsigned char)*r->p;
    if (c == '"') {
      r->p++;
      lua_pushlstring(r->L, r->scratch, (size_t)(out - r->scratch));
      return PUSHED;
    }
    if (c < 0x20)
      return fail(r, r->p, "a control byte (0x%02x) in a string: write it as an escape",
                  c);
    if (c != '\\') {
      *out++ = (char)c;
      r->p++;
      continue;
    }
    if (r->end - r->p < 2)
      return fail(r, r->p, "a string without its closing quote");
    const char e = r->p[1];
    const char *plain = strchr("\"\\/bfnrt", e);
    if (e != '\0' && plain != NULL) {
      static const char decoded[] = "\"\\/\b\f\n\r\t";
      *out++ = decoded[plain - "\"\\/bfnrt"];
      r->p += 2;
    } else if (e == 'u') {
      unsigned cp;
      if (unicode_escape(r, &cp) != PUSHED)
        return FAILED;
      add_utf8(&out, cp);
    } else {
      return fail(r, r->p, "\\%c is not an escape", e >= 0x20 && e < 0x7f ? e : '?');
    }
  }
}

/* A number at r->p: an integer where it is written whole and fits. */
static int read_number(reader_t *r) {
  const char *start = r->p, *q = r->p;
  int whole = 1;
  if (q < r->end && *q == '-')
    q++;
  if (q < r->end && *q == '0') {
    q++;
  } else if (q < r->end && *q >= '1' && *q <= '9') {
    while (q < r->end && *q >= '0' && *q <= '9')
      q++;
  } else {
    return fail(r, start, "expected a value");
  }
  if (q < r->end && *q == '.') {
    whole = 0;
    if (++q >= r->end || *q < '0' || *q > '9')
      return fail(r, start, "a number with no digit after its point");
    while (q < r->end && *q >= '0' && *q <= '9')
      q++;
  }
  if (q < r->end && (*q == 'e' || *q == 'E')) {
    whole = 0;
    if (++q < r->end && (*q == '+' || *q == '-'))
      q++;
    if (q >= r->end || *q < '0' || *q > '9')
      return fail(r, start, "a number with no digit in its exponent");
    while (q < r->end && *q >= '0' && *q <= '9')
      q++;
  }
  if (q - start > NUMBER_MAX)
    return fail(r, start, "a number of more than %d characters", NUMBER_MAX);
  char text[NUMBER_MAX + 1];
  memcpy(text, start, (size_t)(q - start));
  text[q - start] = '\0';
  r->p = q;
  if (whole) {
    errno = 0;
    const long long v = strtoll(text, NULL, 10);
    if (errno == 0) {
      lua_pushinteger(r->L, (lua_Integer)v);
      return PUSHED;
    }
  }
  const double v = strtod(text, NULL);
  if (!isfinite(v))
    return fail(r, start, "%s is past the float range", text);
  lua_pushnumber(r->L, v);
  return PUSHED;
}

static int read_value(reader_t *r);

/* A member name for a message: quoted where it is short printable ASCII. */
static const char *shown(lua_State *L, int idx) {
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  int plain = len <= 64;
  for (size_t i = 0; plain && i < len; i++)
    plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"';
  return plain ? lua_pushfstring(L, "\"%s\"", s) : "(a name not shown)";
}

/* An object or an array at r->p: pushes its table. */
static int read_container(reader_t *r) {
  const char *open = r->p;
  const int object = *r->p == '{';
  const char close = object ? '}' : ']';
  if (++r->depth > KG_JSON_DEPTH)
    return fail(r, open, "objects and arrays nested more than %d deep", KG_JSON_DEPTH);
  luaL_checkstack(r->L, 8, "json: nesting");
  lua_newtable(r->L);
  r->p++;
  skip_space(r);
  lua_Integer n = 0;
  if (r->p < r->end && *r->p == close) {
    r->p++;
    r->depth--;
    return PUSHED;
  }
  for (;;) {
    skip_space(r);
    if (object) {
      const char *key = r->p;
      if (r->p >= r->end || *r->p != '"')
        return fail(r, r->p, "expected a member name (a string)");
      if (read_string(r) != PUSHED)
        return FAILED;
      lua_pushvalue(r->L, -1);
      if (lua_rawget(r->L, -3) != LUA_TNIL)
        return fail(r, key, "member %s given twice", shown(r->L, -2));
      lua_pop(r->L, 1);
      skip_space(r);
      if (r->p >= r->end || *r->p != ':')
        return fail(r, r->p, "expected ':' after a member name");
      r->p++;
    }
    const char *at = r->p;
    const int got = read_value(r);
    if (got == FAILED)
      return FAILED;
    if (!object && got == WAS_NULL)
      return fail(r, at, "null in an array (kgen reads no holes)");
    if (object && got == WAS_NULL)
      lua_pop(r->L, 1); /* the member's name: null is absent */
    else if (object)
      lua_rawset(r->L, -3);
    else
      lua_rawseti(r->L, -2, ++n);
    skip_space(r);
    if (r->p < r->end && *r->p == ',') {
      r->p++;
      continue;
    }
    if (r->p < r->end && *r->p == close) {
      r->p++;
      r->depth--;
      return PUSHED;
    }
    return fail(r, r->p < r->end ? r->p : open, "expected ',' or '%c'", close);
  }
}

/* A value at r->p (after spaces): pushes it, or nothing for null. */
static int read_value(reader_t *r) {
  skip_space(r);
  if (r->p >= r->end)
    return fail(r, r->p, "expected a value, the text ends");
  const char c = *r->p;
  if (c == '{' || c == '[')
    return read_container(r);
  if (c == '"')
    return read_string(r);
  static const struct {
    const char *word;
    int value; /* -1: null */
  } words[] = {{"true", 1}, {"false", 0}, {"null", -1}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    const size_t len = strlen(words[i].word);
    if ((size_t)(r->end - r->p) >= len && memcmp(r->p, words[i].word, len) == 0) {
      r->p += len;
      if (words[i].value < 0)
        return WAS_NULL;
      lua_pushboolean(r->L, words[i].value);
      return PUSHED;
    }
  }
  return read_number(r);
}

int kg_json_push(lua_State *L, const char *text, size_t len, char *why, size_t why_len) {
  const int base = lua_gettop(L);
  luaL_checkstack(L, 8, "json");
  char *scratch = lua_newuserdatauv(L, len + 1, 0); /* at base + 1, until the end */
  reader_t r = {L, text, text, text + len, why, why_len, 0, scratch};
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
    r.p += 3; /* a UTF-8 byte order mark */
  const char *at = r.p;
  int got = read_value(&r);
  if (got == WAS_NULL)
    got = fail(&r, at, "the text is null");
  if (got == PUSHED) {
    skip_space(&r);
    if (r.p < r.end)
      got = fail(&r, r.p, "text after the value");
  }
  if (got != PUSHED) {
    lua_settop(L, base);
    return -1;
  }
  lua_remove(L, base + 1); /* the scratch */
  return 0;
}
