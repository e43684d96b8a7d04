/* make_sd_weights.c - random weight files for sd_tiny (examples/sd): a
 * diffusers pipeline's three safetensors files (names and shapes as its
 * text_encoder, unet and vae files have them) for the tiny tables sd_tiny
 * is built with.
 *   make_sd_weights DIR     writes DIR/{text_encoder,unet,vae}.safetensors */
#include <stdio.h>

#include "sd_test.h"
#include "tiny_clip.h"
#include "tiny_unet.h"
#include "tiny_vae.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_sd_weights DIR\n");
    return 2;
  }
  const struct {
    const kgrt_model_table_t *table;
    const char *file;
  } parts[] = {{&kgen_tiny_clip, "text_encoder"},
               {&kgen_tiny_unet, "unet"},
               {&kgen_tiny_vae, "vae"}};
  for (int i = 0; i < 3; ++i) {
    char path[4096];
    ww_buf_t buf;
    snprintf(path, sizeof path, "%s/%s.safetensors", argv[1], parts[i].file);
    if (sd_make_weights(parts[i].table) != 0 ||
        sd_write_file(sd_parts, SD_NUM_PARTS, &buf) != 0 ||
        ww_write_file(path, buf.p, buf.len) != 0) {
      fprintf(stderr, "make_sd_weights: cannot write %s\n", path);
      return 1;
    }
    ww_free(&buf);
    sd_free_weights();
  }
  return 0;
}
