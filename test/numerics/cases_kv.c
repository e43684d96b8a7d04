/* cases_kv.c - references for lua/ops/kv.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_kv = {"kv", NULL, 0};
