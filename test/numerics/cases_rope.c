/* cases_rope.c - references for lua/ops/rope.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_rope = {"rope", NULL, 0};
