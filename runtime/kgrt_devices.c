/* kgrt_devices.c - the device table: every kind of device a spec may name,
 * with its constructor. The one file that refers to the device files;
 * kgrt_device_open reaches a device through this table, and "auto" picks
 * one of them. */
#include <string.h>

#include "kgrt_device.h"
#include "kgrt_emu.h"

/* "auto[,graphs=0|1]": the first of cuda, hip and sim that opens. A device
 * that is UNAVAILABLE (no driver, no GPU) gives way to the next; any other
 * failure is the answer. The chosen device's own name says which it is. */
static kgrt_status_t kgrt_device_auto_create(const char *part, const char *options,
                                             const kgrt_allocator_t *alloc,
                                             kgrt_device_t **out_device,
                                             kgrt_error_t *err) {
  if (part != NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "device spec 'auto:%s': auto takes no ':' part", part);
  for (const char *s = options; s != NULL && *s != '\0';) {
    char key[16];
    uint64_t v;
    if (kgrt_options_next(&s, key, sizeof key, &v) != 0 || strcmp(key, "graphs") != 0 ||
        v > 1)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "device spec 'auto,%s': auto takes only graphs=0|1, which "
                            "every device takes",
                            options);
  }
  kgrt_status_t (*const create[])(const char *, const char *, const kgrt_allocator_t *,
                                  kgrt_device_t **, kgrt_error_t *) = {
      kgrt_device_cuda_create, kgrt_device_hip_create, kgrt_device_sim_create};
  kgrt_status_t st = KGRT_STATUS_UNAVAILABLE;
  for (size_t i = 0; i < sizeof create / sizeof create[0]; ++i)
    if ((st = create[i](NULL, options, alloc, out_device, err)) !=
        KGRT_STATUS_UNAVAILABLE)
      break;
  return st;
}

static const kgrt_device_kind_t kgrt_device_table[] = {
    {"auto", "auto[,graphs=0|1]", kgrt_device_auto_create},
    {"sim", "sim[:ARCH][,wave=N][,workers=N][,memory=BYTES][,graphs=0|1]",
     kgrt_device_sim_create},
    {"hip", "hip[:N][,graphs=0|1]", kgrt_device_hip_create},
    {"emu", "emu[:ARCH][,workers=N][,memory=BYTES][,stats=0|1]", kgrt_device_emu_create},
    {"cuda", "cuda[:N][,early_launch=0|1][,time_flush=0|1][,graphs=0|1]",
     kgrt_device_cuda_create},
};

const kgrt_device_kind_t *kgrt_device_kinds(size_t *out_count) {
  *out_count = sizeof kgrt_device_table / sizeof kgrt_device_table[0];
  return kgrt_device_table;
}
