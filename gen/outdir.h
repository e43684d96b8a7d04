/* outdir.h - writing results so that an error leaves nothing behind: files
 * are collected in memory, written to a temporary folder beside the target,
 * and renamed into place only when all of them are written. */
#ifndef KG_OUTDIR_H
#define KG_OUTDIR_H

#include <stddef.h>

#include "diag.h"

typedef struct kg_outfile {
  char *name; /* file name inside the folder */
  const char *data;
  size_t size;
} kg_outfile_t;

/* Writes the files into folder `dir` (created if missing; files of the same
 * names replaced; other files left alone). */
int kg_out_write_dir(const char *dir, const kg_outfile_t *files, int n, kg_diag_t *d);
/* Writes one file (path "-" is stdout) through a temporary and a rename. */
int kg_out_write_file(const char *path, const char *data, size_t size, kg_diag_t *d);

#endif /* KG_OUTDIR_H */
