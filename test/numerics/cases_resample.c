/* cases_resample.c - references for lua/ops/resample.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_resample = {"resample", NULL, 0};
