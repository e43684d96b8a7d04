/* cases_sample.c - references for lua/ops/sample.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_sample = {"sample", NULL, 0};
