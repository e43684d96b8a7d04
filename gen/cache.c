/* cache.c - kgen's content-addressed cache of compiled artifacts (see
 * cache.h). An entry is a file named by its key's 32 hex digits: a header
 * line "KGENCACHE 1", the key, the payload's length and its checksum (hex,
 * one per line), then the payload. Writes go to a temporary beside it and
 * are renamed into place, so a reader sees a whole entry or none; a reader
 * checks the header, key, length and checksum before it trusts a byte. */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KG_CACHE_MAGIC "KGENCACHE 1\n"
#define KG_CACHE_HEADER (sizeof KG_CACHE_MAGIC - 1 + 33 + 17 + 17)

/* FNV-1a 64 from `seed`. */
static uint64_t fnv(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

void kg_cache_key(const kg_cache_t *c, kg_cache_key_t *key, const char *const *parts,
                  const size_t *lens, int n) {
  key->h[0] = fnv(0xcbf29ce484222325ull, &c->self, sizeof c->self);
  key->h[1] = fnv(0x84222325cbf29ce4ull, &c->self, sizeof c->self);
  for (int i = 0; i < n; i++) {
    const uint64_t len = lens[i];
    for (int k = 0; k < 2; k++) {
      key->h[k] = fnv(key->h[k], &len, sizeof len);
      key->h[k] = fnv(key->h[k], parts[i], lens[i]);
    }
    key->h[1] ^= key->h[1] >> 29; /* the two lanes diverge */
  }
}

static uint64_t checksum(const void *data, size_t len) {
  return fnv(0x9e3779b97f4a7c15ull, data, len);
}

static int read_file(const char *path, kg_buf_t *b);

/* mkdir -p, mode 0700 for what it makes. */
static int make_dirs(const char *path) {
  char *p = strdup(path);
  if (!p)
    return -1;
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0700) != 0 && errno != EEXIST) {
        free(p);
        return -1;
      }
      *s = '/';
    }
  const int rc = mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
  free(p);
  return rc;
}

void kg_cache_open(kg_cache_t *c, int off, int verbose) {
  c->dir = NULL;
  c->verbose = verbose;
  c->self = 0;
  if (off)
    return;
  kg_buf_t exe;
  kg_buf_init(&exe);
  if (read_file("/proc/self/exe", &exe) != 0 || exe.len == 0) {
    if (verbose)
      fprintf(stderr, "kgen: no cache: cannot read kgen's own executable\n");
    kg_buf_free(&exe);
    return;
  }
  c->self = checksum(exe.data, exe.len);
  kg_buf_free(&exe);
  kg_buf_t b;
  kg_buf_init(&b);
  const char *env = getenv("KGEN_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (env && *env)
    kg_buf_puts(&b, env);
  else if (xdg && *xdg)
    kg_buf_printf(&b, "%s/kgen", xdg);
  else if (home && *home)
    kg_buf_printf(&b, "%s/.cache/kgen", home);
  if (b.len == 0 || make_dirs(b.data) != 0) {
    if (verbose)
      fprintf(stderr, "kgen: no cache: cannot use the folder %s\n",
              b.len ? b.data : "(none)");
    kg_buf_free(&b);
    return;
  }
  c->dir = kg_buf_take(&b, NULL);
}

void kg_cache_close(kg_cache_t *c) {
  free(c->dir);
  c->dir = NULL;
}

static void key_hex(const kg_cache_key_t *key, char out[33]) {
  snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, key->h[0], key->h[1]);
}

static char *entry_path(const kg_cache_t *c, const char *hex) {
  kg_buf_t b;
  kg_buf_init(&b);
  kg_buf_printf(&b, "%s/%s", c->dir, hex);
  return kg_buf_take(&b, NULL);
}

/* Reads the whole file at path into b; 0 on success. */
static int read_file(const char *path, kg_buf_t *b) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      close(fd);
      return n < 0 ? -1 : 0;
    }
    kg_buf_put(b, chunk, (size_t)n);
  }
}

int kg_cache_get(const kg_cache_t *c, const kg_cache_key_t *key, kg_buf_t *out) {
  if (!c->dir)
    return 0;
  char hex[33];
  key_hex(key, hex);
  char *path = entry_path(c, hex);
  kg_buf_t b;
  kg_buf_init(&b);
  if (read_file(path, &b) != 0) { /* not there: a miss */
    kg_buf_free(&b);
    free(path);
    return 0;
  }
  /* the header: magic, key, length, checksum */
  int ok = b.len >= KG_CACHE_HEADER &&
           memcmp(b.data, KG_CACHE_MAGIC, sizeof KG_CACHE_MAGIC - 1) == 0;
  const char *h = b.data + sizeof KG_CACHE_MAGIC - 1;
  uint64_t len = 0, sum = 0;
  ok = ok && memcmp(h, hex, 32) == 0 && h[32] == '\n' && h[49] == '\n' && h[66] == '\n' &&
       sscanf(h + 33, "%16" SCNx64, &len) == 1 && sscanf(h + 50, "%16" SCNx64, &sum) == 1;
  ok = ok && len == b.len - KG_CACHE_HEADER &&
       checksum(b.data + KG_CACHE_HEADER, len) == sum;
  if (!ok) {
    fprintf(stderr, "kgen: cache entry %s is corrupt; rebuilding it\n", path);
    unlink(path);
  } else {
    kg_buf_put(out, b.data + KG_CACHE_HEADER, (size_t)len);
    if (c->verbose)
      fprintf(stderr, "kgen: cache: %s (%zu bytes)\n", hex, (size_t)len);
  }
  kg_buf_free(&b);
  free(path);
  return ok;
}

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    const ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

void kg_cache_put(const kg_cache_t *c, const kg_cache_key_t *key, const void *data,
                  size_t len) {
  if (!c->dir)
    return;
  char hex[33];
  key_hex(key, hex);
  char *path = entry_path(c, hex);
  kg_buf_t tmp;
  kg_buf_init(&tmp);
  /* unique per process and thread: jobs of one build write at once */
  kg_buf_printf(&tmp, "%s.tmp.%ld.%lx", path, (long)getpid(),
                (unsigned long)(uintptr_t)pthread_self());
  char header[KG_CACHE_HEADER + 1];
  snprintf(header, sizeof header, KG_CACHE_MAGIC "%s\n%016" PRIx64 "\n%016" PRIx64 "\n",
           hex, (uint64_t)len, checksum(data, len));
  const int fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int ok = fd >= 0;
  ok = ok && write_all(fd, header, KG_CACHE_HEADER) == 0 && write_all(fd, data, len) == 0;
  if (fd >= 0 && close(fd) != 0)
    ok = 0;
  if (ok && rename(tmp.data, path) != 0)
    ok = 0;
  if (!ok) {
    unlink(tmp.data);
    if (c->verbose)
      fprintf(stderr, "kgen: cache: cannot store %s\n", path);
  }
  kg_buf_free(&tmp);
  free(path);
}
