/* sd_png.h - an RGB image written as a PNG file with libpng. */
#ifndef SD_PNG_H
#define SD_PNG_H

#include <stddef.h>

/* rgb: height rows of width x 3 bytes. 0 on success; else -1 with a
 * one-line reason in why. The file is written whole or not at all (a
 * temporary file renamed into place). */
int sd_png_write(const char *path, const unsigned char *rgb, int width, int height,
                 char *why, size_t why_size);

#endif /* SD_PNG_H */
