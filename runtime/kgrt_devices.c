/* kgrt_devices.c - the device table: every kind of device a spec may name,
 * with its constructor, and kgrt_device_open, which parses a spec
 * ("kind[:part][,options]") and reaches a device through the table. The one
 * file that refers to the device files; "auto" picks one of them. */
#include <stdio.h>
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

/* Copies spec[0..n) into buf; -1 when it does not fit. */
static int kgrt_spec_copy(char *buf, size_t size, const char *spec, size_t n) {
  if (n >= size)
    return -1;
  memcpy(buf, spec, n);
  buf[n] = '\0';
  return 0;
}

static int kgrt_spec_is_name(const char *s) {
  if (*s == '\0')
    return 0;
  for (; *s; ++s) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

kgrt_status_t kgrt_device_open(const char *spec, const kgrt_allocator_t *alloc,
                               kgrt_device_t **out_device, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (out_device == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_device_open: out_device is NULL");
  *out_device = NULL;
  if (spec == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_device_open: spec is NULL");

  /* kind[:part][,options] */
  char kind[16], part[64];
  size_t kind_len = strcspn(spec, ":,");
  const char *rest = spec + kind_len;
  int has_part = 0;
  part[0] = '\0';
  if (kgrt_spec_copy(kind, sizeof kind, spec, kind_len) != 0)
    kind[0] = '\0';
  if (*rest == ':') {
    size_t part_len = strcspn(rest + 1, ",");
    has_part = 1;
    if (kgrt_spec_copy(part, sizeof part, rest + 1, part_len) != 0 ||
        !kgrt_spec_is_name(part))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "device spec '%s': bad name after ':'", spec);
    rest += 1 + part_len;
  }
  const char *options = *rest == ',' ? rest + 1 : NULL;

  size_t count = 0;
  const kgrt_device_kind_t *kinds = kgrt_device_kinds(&count);
  for (size_t i = 0; i < count; ++i)
    if (strcmp(kind, kinds[i].kind) == 0)
      return kinds[i].create(has_part ? part : NULL, options, alloc, out_device, err);
  char expected[256];
  size_t len = 0;
  expected[0] = '\0';
  for (size_t i = 0; i < count && len < sizeof expected; ++i)
    len += (size_t)snprintf(expected + len, sizeof expected - len, "%s%s",
                            i == 0           ? ""
                            : i + 1 == count ? " or "
                                             : ", ",
                            kinds[i].usage);
  return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                        "device spec '%s': unknown device (expected %s)", spec, expected);
}

void kgrt_device_close(kgrt_device_t *device) {
  if (device != NULL)
    device->vtable->destroy(device);
}

const char *kgrt_device_name(const kgrt_device_t *device) {
  return device != NULL ? device->name : "";
}
