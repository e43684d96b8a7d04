/* userfile.h - how kgen reads its input files: the model, the modules it
 * requires, the files --define names. Only regular files: a FIFO, a device,
 * a socket or a folder is refused before anything opens it or blocks on it;
 * a file under a root folder must resolve (symbolic links, "..", all) to a
 * file inside that folder. Reading is two steps, so that a caller can make
 * its buffer in between (a Lua userdata: nothing is open while Lua may raise
 * an error): kg_userfile_check finds the file and its size, kg_userfile_read
 * opens that same file (its inode), reads it whole and closes it.
 * Needs: POSIX. Gives: kg_userfile_*. */
#ifndef KG_USERFILE_H
#define KG_USERFILE_H

#include <stddef.h>
#include <sys/types.h>

typedef enum kg_userfile_status {
  KG_USERFILE_OK = 0,
  KG_USERFILE_MISSING,   /* no such file (or a path component is not a folder) */
  KG_USERFILE_SPECIAL,   /* not a regular file: a FIFO, a device, a folder ... */
  KG_USERFILE_OUTSIDE,   /* resolves to a file outside the root folder */
  KG_USERFILE_TOO_LARGE, /* more than the caller's maximum */
  KG_USERFILE_ERROR,     /* the system said no (why says what) */
} kg_userfile_status_t;

typedef struct kg_userfile {
  char *real; /* the resolved path (malloc'd; kg_userfile_free) */
  dev_t dev;  /* the file kg_userfile_check found */
  ino_t ino;
  size_t size;   /* its bytes */
  char why[160]; /* on failure: what is wrong, e.g. "not a regular file (a FIFO)" */
} kg_userfile_t;

/* Finds the regular file at `path`, at most max_bytes long, inside the folder
 * `root` (a real path, from kg_userfile_root) unless root is NULL. Fills f
 * (f->real even on failure: free it with kg_userfile_free). */
kg_userfile_status_t kg_userfile_check(kg_userfile_t *f, const char *path,
                                       const char *root, size_t max_bytes);
/* Reads the file f->check found, f->size bytes into buf, without blocking and
 * without following a link swapped in since; KG_USERFILE_ERROR with f->why
 * when it is no longer that file or no longer that size. */
kg_userfile_status_t kg_userfile_read(kg_userfile_t *f, void *buf);
void kg_userfile_free(kg_userfile_t *f);

/* The real path of the folder that holds `path` (malloc'd), or NULL with
 * errno set. */
char *kg_userfile_root(const char *path);

#endif /* KG_USERFILE_H */
