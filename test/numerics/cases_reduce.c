/* cases_reduce.c - references for lua/ops/reduce.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_reduce = {"reduce", NULL, 0};
