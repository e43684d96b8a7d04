/* sd_png.c - see sd_png.h. */
#include "sd_png.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sd_png_write(const char *path, const unsigned char *rgb, int width, int height,
                 char *why, size_t why_size) {
  size_t n = strlen(path) + 5;
  char *tmp = malloc(n);
  if (tmp == NULL) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  snprintf(tmp, n, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (f == NULL) {
    snprintf(why, why_size, "%s: %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
  volatile int ok = 0;
  if (png != NULL && info != NULL && setjmp(png_jmpbuf(png)) == 0) {
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; ++y)
      png_write_row(png, rgb + (size_t)y * width * 3);
    png_write_end(png, NULL);
    ok = 1;
  }
  png_destroy_write_struct(png != NULL ? &png : NULL, info != NULL ? &info : NULL);
  if (fclose(f) != 0)
    ok = 0;
  if (ok && rename(tmp, path) != 0) {
    snprintf(why, why_size, "%s: %s", path, strerror(errno));
    remove(tmp);
    free(tmp);
    return -1;
  }
  if (!ok) {
    snprintf(why, why_size, "%s: libpng could not write the image", path);
    remove(tmp);
  }
  free(tmp);
  return ok ? 0 : -1;
}
