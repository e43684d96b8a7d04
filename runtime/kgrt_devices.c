/* kgrt_devices.c - the device table: every kind of device a spec may name,
 * with its constructor. The one file that refers to the device files;
 * kgrt_device_open reaches a device through this table. */
#include "kgrt_device.h"
#include "kgrt_emu.h"

static const kgrt_device_kind_t kgrt_device_table[] = {
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
