/* cases_sort.c - references for lua/ops/sort.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_sort = {"sort", NULL, 0};
