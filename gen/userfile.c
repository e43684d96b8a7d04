/* userfile.c - kgen's input files, regular files only (see userfile.h). */
#include "userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of mode m is, for "not a regular file (a FIFO)". */
static const char *kind_of(mode_t m) {
  if (S_ISDIR(m))
    return "a folder";
  if (S_ISFIFO(m))
    return "a FIFO";
  if (S_ISCHR(m))
    return "a character device";
  if (S_ISBLK(m))
    return "a block device";
  if (S_ISSOCK(m))
    return "a socket";
  return "a special file";
}

/* real (a real path) is root itself or inside it. */
static int inside(const char *root, const char *real) {
  size_t n = strlen(root);
  if (n > 0 && root[n - 1] == '/')
    n--; /* "/" */
  return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

kg_userfile_status_t kg_userfile_check(kg_userfile_t *f, const char *path,
                                       const char *root, size_t max_bytes) {
  memset(f, 0, sizeof *f);
  f->real = realpath(path, NULL);
  if (f->real == NULL) {
    const int e = errno;
    snprintf(f->why, sizeof f->why, "%s", strerror(e));
    return e == ENOENT || e == ENOTDIR ? KG_USERFILE_MISSING : KG_USERFILE_ERROR;
  }
  if (root != NULL && !inside(root, f->real)) {
    snprintf(f->why, sizeof f->why,
             "resolves to a file outside the model's folder (a symbolic link)");
    return KG_USERFILE_OUTSIDE;
  }
  struct stat st;
  if (stat(f->real, &st) != 0) {
    snprintf(f->why, sizeof f->why, "%s", strerror(errno));
    return KG_USERFILE_ERROR;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(f->why, sizeof f->why, "not a regular file (%s)", kind_of(st.st_mode));
    return KG_USERFILE_SPECIAL;
  }
  if ((unsigned long long)st.st_size > max_bytes) {
    snprintf(f->why, sizeof f->why, "more than %zu bytes", max_bytes);
    return KG_USERFILE_TOO_LARGE;
  }
  f->dev = st.st_dev;
  f->ino = st.st_ino;
  f->size = (size_t)st.st_size;
  return KG_USERFILE_OK;
}

kg_userfile_status_t kg_userfile_read(kg_userfile_t *f, void *buf) {
  /* the resolved path holds no link; one swapped in since is not followed,
   * a FIFO swapped in does not block, and the inode must be the one
   * checked */
  int fd = open(f->real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(f->why, sizeof f->why, "%s", strerror(errno));
    return KG_USERFILE_ERROR;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != f->dev ||
      st.st_ino != f->ino) {
    close(fd);
    snprintf(f->why, sizeof f->why, "it was replaced while kgen read it");
    return KG_USERFILE_ERROR;
  }
  size_t got = 0;
  char extra;
  ssize_t n = 0;
  while (got < f->size) {
    n = read(fd, (char *)buf + got, f->size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  const int err = n < 0 ? errno : 0;
  const ssize_t more = n < 0 ? 0 : read(fd, &extra, 1);
  close(fd);
  if (err != 0) {
    snprintf(f->why, sizeof f->why, "%s", strerror(err));
    return KG_USERFILE_ERROR;
  }
  if (got != f->size || more > 0) {
    snprintf(f->why, sizeof f->why, "it changed size while kgen read it");
    return KG_USERFILE_ERROR;
  }
  return KG_USERFILE_OK;
}

void kg_userfile_free(kg_userfile_t *f) {
  free(f->real);
  f->real = NULL;
}

char *kg_userfile_root(const char *path) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL)
    return realpath(".", NULL);
  if (slash == path)
    return realpath("/", NULL);
  const size_t n = (size_t)(slash - path);
  char *dir = malloc(n + 1);
  if (dir == NULL)
    return NULL;
  memcpy(dir, path, n);
  dir[n] = '\0';
  char *real = realpath(dir, NULL);
  free(dir);
  return real;
}
