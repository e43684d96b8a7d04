/* cases_sketch.c - references for lua/ops/sketch.lua (none yet). */
#include "kn.h"

const kn_family_t kn_family_sketch = {"sketch", NULL, 0};
