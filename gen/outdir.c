/* outdir.c - atomic output (see outdir.h). */
#include "outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "tmpfiles.h"

static int write_all(const char *path, const char *data, size_t size, kg_diag_t *d) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return kg_error(d, "cannot write %s: %s", path, strerror(errno));
  size_t w = size ? fwrite(data, 1, size, f) : 0;
  int bad = w != size;
  if (fclose(f) != 0)
    bad = 1;
  if (bad) {
    remove(path);
    return kg_error(d, "cannot write %s: %s", path, strerror(errno));
  }
  return 0;
}

/* The folder holding `path` (".", if none). Caller frees. */
static char *parent_of(const char *path) {
  char *p = kg_xstrdup(path);
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/')
    p[--n] = '\0';
  char *slash = strrchr(p, '/');
  if (!slash) {
    free(p);
    return kg_xstrdup(".");
  }
  if (slash == p)
    slash[1] = '\0';
  else
    *slash = '\0';
  return p;
}

int kg_out_write_file(const char *path, const char *data, size_t size, kg_diag_t *d) {
  if (strcmp(path, "-") == 0) {
    if (size && fwrite(data, 1, size, stdout) != size)
      return kg_error(d, "cannot write to stdout");
    return fflush(stdout) == 0 ? 0 : kg_error(d, "cannot write to stdout");
  }
  /* a file that is not a regular one (/dev/null, a FIFO, a terminal) is
   * written in place: a rename over it would replace it, and root may */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return kg_error(d, "-o %s: is a folder", path);
    FILE *f = fopen(path, "wb");
    if (!f)
      return kg_error(d, "cannot write %s: %s", path, strerror(errno));
    int bad = size && fwrite(data, 1, size, f) != size;
    bad |= fclose(f) != 0;
    return bad ? kg_error(d, "cannot write %s: %s", path, strerror(errno)) : 0;
  }
  kg_buf_t tmp;
  kg_buf_init(&tmp);
  kg_buf_printf(&tmp, "%s.kgen-tmp-%ld", path, (long)getpid());
  int slot = kg_cleanup_add(kg_buf_cstr(&tmp));
  int rc = write_all(kg_buf_cstr(&tmp), data, size, d);
  if (rc == 0 && rename(tmp.data, path) != 0) {
    rc = kg_error(d, "cannot write %s: %s", path, strerror(errno));
    remove(tmp.data);
  }
  kg_cleanup_remove(slot);
  kg_buf_free(&tmp);
  return rc;
}

int kg_out_write_dir(const char *dir, const kg_outfile_t *files, int n, kg_diag_t *d) {
  struct stat st;
  int exists = stat(dir, &st) == 0;
  if (exists && !S_ISDIR(st.st_mode))
    return kg_error(d, "-o %s: exists and is not a folder", dir);
  char *parent = parent_of(dir);
  kg_buf_t tmp;
  kg_buf_init(&tmp);
  kg_buf_printf(&tmp, "%s/.kgen-tmp-XXXXXX", parent);
  free(parent);
  char *tdir = kg_buf_take(&tmp, NULL);
  if (!mkdtemp(tdir)) {
    kg_error(d, "-o %s: cannot create a temporary folder beside it: %s", dir,
             strerror(errno));
    free(tdir);
    return -1;
  }
  int slot = kg_cleanup_add(tdir);
  int rc = 0, written = 0;
  kg_buf_t path;
  kg_buf_init(&path);
  for (; written < n && rc == 0; written++) {
    path.len = 0;
    kg_buf_printf(&path, "%s/%s", tdir, files[written].name);
    rc = write_all(kg_buf_cstr(&path), files[written].data, files[written].size, d);
  }
  if (rc == 0 && !exists) {
    if (rename(tdir, dir) != 0)
      rc = kg_error(d, "-o %s: %s", dir, strerror(errno));
    else
      written = 0; /* nothing left in tdir */
  } else if (rc == 0) {
    kg_buf_t dst;
    kg_buf_init(&dst);
    for (int i = 0; i < n && rc == 0; i++) {
      path.len = dst.len = 0;
      kg_buf_printf(&path, "%s/%s", tdir, files[i].name);
      kg_buf_printf(&dst, "%s/%s", dir, files[i].name);
      if (rename(kg_buf_cstr(&path), kg_buf_cstr(&dst)) != 0)
        rc = kg_error(d, "cannot write %s: %s", dst.data, strerror(errno));
    }
    kg_buf_free(&dst);
  }
  /* on error (or after moving files out) clean the temporary folder */
  for (int i = 0; i < n; i++) {
    path.len = 0;
    kg_buf_printf(&path, "%s/%s", tdir, files[i].name);
    remove(kg_buf_cstr(&path));
  }
  rmdir(tdir);
  kg_cleanup_remove(slot);
  kg_buf_free(&path);
  free(tdir);
  (void)written;
  return rc;
}
