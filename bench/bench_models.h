/* bench_models.h - the kernel tables kgbench times (the models in bench/models, built
 * by kgen_add_model in bench/CMakeLists.txt). */
#include "cast_f16.h"
#include "copy_16384x8192.h"
#include "copy_4096x8192.h"
#include "embedding.h"
#include "residual_add.h"
#include "rmsnorm.h"
#include "rope.h"
#include "silu.h"
#include "softmax.h"
#include "swiglu.h"
#include "topk.h"
#include "topp.h"
