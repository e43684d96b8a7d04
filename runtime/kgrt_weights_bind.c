/* kgrt_weights_bind.c - binds a loaded model's weights from a weight file by
 * name: every table weight found (exactly, or by its C-identifier mangling of
 * the file name or of its alias), checked for dtype and shape, then uploaded
 * once through kgrt_model_set_weight straight from the mapping.
 *
 * Needs kgrt_model.c (the model's table and dims) and kgrt_weights.c. Gives
 * kgrt_model_bind_weights. */
#include "kgrt_device.h"
#include "kgrt_weights_internal.h"

#include <stdio.h>
#include <string.h>

/* 1 when table name `t` equals file name `f` with every byte outside
 * [A-Za-z0-9_] read as '_'. */
static int kgrt_bind_mangled_eq(const char *t, const char *f) {
  for (; *t != '\0' && *f != '\0'; ++t, ++f) {
    unsigned char c = (unsigned char)*f;
    int ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '_';
    if (*t != (ident ? (char)c : '_'))
      return 0;
  }
  return *t == '\0' && *f == '\0';
}

/* The file tensor for table weight `name`: exact name first, else the only
 * tensor whose name or alias mangles to it. *out_ambiguous names a second. */
static const kgrt_weight_info_t *kgrt_bind_lookup(const kgrt_weights_t *w,
                                                  const char *name,
                                                  const kgrt_weight_info_t **out_second) {
  *out_second = NULL;
  const kgrt_weight_info_t *t = kgrt_weights_find(w, name);
  if (t != NULL)
    return t;
  for (uint32_t i = 0; i < w->count; ++i) {
    const kgrt_weight_info_t *f = &w->infos[i];
    if (!kgrt_bind_mangled_eq(name, f->name) &&
        (f->alias == NULL || !kgrt_bind_mangled_eq(name, f->alias)))
      continue;
    if (t == NULL) {
      t = f;
    } else {
      *out_second = f;
      break;
    }
  }
  return t;
}

/* Appends " name" to a list in buf while it fits; counts the rest. */
static void kgrt_bind_list(char *buf, size_t size, size_t *len, uint32_t *more,
                           const char *name) {
  size_t n = strlen(name);
  if (*more == 0 && *len + n + 2 < size - 24) {
    buf[(*len)++] = ' ';
    memcpy(buf + *len, name, n + 1);
    *len += n;
  } else {
    (*more)++;
  }
}

static void kgrt_bind_list_end(char *buf, size_t size, size_t len, uint32_t more) {
  if (more > 0)
    snprintf(buf + len, size - len, " (and %u more)", more);
}

kgrt_status_t kgrt_model_bind_weights(kgrt_model_t *model, const kgrt_weights_t *w,
                                      uint32_t flags, kgrt_error_t *err) {
  if (err != NULL) {
    err->status = KGRT_STATUS_OK;
    err->message[0] = '\0';
  }
  if (model == NULL || w == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_bind_weights: model or weights is NULL");
  if ((flags & ~KGRT_BIND_REFUSE_UNUSED) != 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_bind_weights: unknown flags 0x%x", (unsigned)flags);
  const kgrt_model_table_t *table = kgrt_model_table(model);
  const char *model_name = table->name != NULL ? table->name : "?";
  const uint32_t ranks = table->ranks > 1 ? table->ranks : 1;
  if (ranks > 1 && kgrt_model_comm(model) == NULL)
    return kgrt_error_set(
        err, KGRT_STATUS_FAILED_PRECONDITION,
        "model %s is one rank of %u: join a communicator before binding "
        "its part of the weights (kgrt_model_join)",
        model_name, ranks);
  const kgrt_allocator_t *alloc = &w->alloc;
  const kgrt_weight_info_t **found =
      kgrt_calloc(alloc, table->num_weights, sizeof *found);
  unsigned char *used = kgrt_calloc(alloc, w->count, 1);
  kgrt_status_t st = KGRT_STATUS_OK;
  if (found == NULL || used == NULL)
    st = kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");

  /* 1. find every weight; list the missing */
  char missing[320];
  size_t missing_len = 0;
  uint32_t missing_more = 0, num_missing = 0;
  missing[0] = '\0';
  for (uint32_t i = 0; i < table->num_weights && st == KGRT_STATUS_OK; ++i) {
    const kgrt_weight_info_t *second;
    found[i] = kgrt_bind_lookup(w, table->weights[i].name, &second);
    if (second != NULL)
      st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "model %s weight %s is ambiguous: file tensors %s and %s "
                             "both match it",
                             model_name, table->weights[i].name, found[i]->name,
                             second->name);
    if (found[i] == NULL) {
      num_missing++;
      kgrt_bind_list(missing, sizeof missing, &missing_len, &missing_more,
                     table->weights[i].name);
    } else {
      used[found[i] - w->infos] = 1;
    }
  }
  kgrt_bind_list_end(missing, sizeof missing, missing_len, missing_more);
  if (st == KGRT_STATUS_OK && num_missing > 0)
    st = kgrt_weights_fail(w, err, KGRT_STATUS_NOT_FOUND,
                           "model %s: %u weights not in the file:%s", model_name,
                           num_missing, missing);

  /* 2. the file tensors no weight takes */
  if (st == KGRT_STATUS_OK && (flags & KGRT_BIND_REFUSE_UNUSED)) {
    char unused[320];
    size_t unused_len = 0;
    uint32_t unused_more = 0, num_unused = 0;
    unused[0] = '\0';
    for (uint32_t i = 0; i < w->count; ++i)
      if (!used[i]) {
        num_unused++;
        kgrt_bind_list(unused, sizeof unused, &unused_len, &unused_more,
                       w->infos[i].name);
      }
    kgrt_bind_list_end(unused, sizeof unused, unused_len, unused_more);
    if (num_unused > 0)
      st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "model %s uses none of %u file tensors:%s", model_name,
                             num_unused, unused);
  }

  /* 3. dtype and shape, row-major, symbolic dims at their current values */
  for (uint32_t i = 0; i < table->num_weights && st == KGRT_STATUS_OK; ++i) {
    const kgrt_tensor_info_t *tw = &table->weights[i];
    const kgrt_weight_info_t *f = found[i];
    if (tw->dtype != f->dtype) {
      st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "model %s weight %s: tensor %s is %s in the file, the model "
                             "expects %s",
                             model_name, tw->name, f->name,
                             kgrt_weights_dtype_name(f->dtype),
                             kgrt_weights_dtype_name(tw->dtype));
      break;
    }
    char want[160], got[160];
    size_t wl = 0, gl = 0;
    int same = tw->rank == f->ndim;
    for (uint32_t d = 0; d < tw->rank && d < KGRT_MAX_DIMS; ++d) {
      int64_t v = tw->dims[d].value;
      if (tw->parts > 1 &&
          d == tw->split) /* the whole of a split dim (checked at load) */
        v *= tw->parts;
      if (tw->dims[d].sym >= 0) {
        v = kgrt_model_dim_value(model, (uint32_t)tw->dims[d].sym);
        if (v == 0) {
          st = kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                              "model %s: dim %s is not set (weight %s needs it)",
                              model_name, table->syms[tw->dims[d].sym].name, tw->name);
          break;
        }
      }
      same = same && d < f->ndim && f->shape[d] == v;
      wl += (size_t)snprintf(want + wl, wl < sizeof want ? sizeof want - wl : 0, "%s%lld",
                             d ? ", " : "", (long long)v);
      if (wl >= sizeof want)
        wl = sizeof want - 1;
    }
    for (uint32_t d = 0; d < f->ndim; ++d) {
      gl += (size_t)snprintf(got + gl, gl < sizeof got ? sizeof got - gl : 0, "%s%lld",
                             d ? ", " : "", (long long)f->shape[d]);
      if (gl >= sizeof got)
        gl = sizeof got - 1;
    }
    want[wl] = got[gl] = '\0';
    if (st == KGRT_STATUS_OK && !same)
      st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "model %s weight %s: tensor %s has shape [%s] in the file "
                             "(row-major), the model expects [%s]",
                             model_name, tw->name, f->name, got, want);
  }

  /* 4. upload, each once, from the mapping (a split weight: this rank's part) */
  for (uint32_t i = 0; i < table->num_weights && st == KGRT_STATUS_OK; ++i)
    st = kgrt_model_set_weight_whole(model, table->weights[i].name, found[i]->data,
                                     found[i]->bytes, err);
  kgrt_free(alloc, found);
  kgrt_free(alloc, used);
  return st;
}
