/* defines.h - what `kgen --define NAME=VALUE` hands a model: the DSL's
 * define(NAME) reads VALUE, weights_file(NAME) reads the header of the
 * weight file at path VALUE (GGUF metadata and every tensor's dtype and
 * shape, through kgrt's checked reader), and json_file(NAME) the JSON file
 * at path VALUE (a Hugging Face config.json; json.h), so a model description
 * can take its hyperparameters from the files it will run with. A model names a
 * define, never a path: it opens no file the command line did not give.
 *
 * Needs: a sandbox (sandbox.c) whose library environment this fills. */
#ifndef KG_DEFINES_H
#define KG_DEFINES_H

#include <lua.h>

#include "diag.h"

#define KG_MAX_DEFINES 64
#define KG_DEFINE_VALUE_MAX 4096   /* bytes of one VALUE */
#define KG_JSON_FILE_MAX (1 << 20) /* bytes of a json_file */

/* Checks one "NAME=VALUE" argument (NAME an identifier of at most 64 bytes,
 * VALUE at most KG_DEFINE_VALUE_MAX bytes, no control bytes) and splits it
 * at the '=' into name (a copy) and value (the rest of arg). */
int kg_define_parse(const char *arg, char **out_name, const char **out_value,
                    kg_diag_t *d);

/* Sets kg_define, kg_weights_file and kg_json_file in the library table at
 * index `lib`,
 * with the defines as their upvalue. Runs inside the sandbox's setup. */
void kg_defines_setup(lua_State *L, int lib, int num, const char *const *names,
                      const char *const *values);

#endif /* KG_DEFINES_H */
