/* cases_index.c - references for lua/ops/index.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_index = {"index", NULL, 0};
