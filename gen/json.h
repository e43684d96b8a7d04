/* json.h - a strict JSON reader (RFC 8259) that builds the Lua value of a
 * text, for a model that takes its hyperparameters from a Hugging Face
 * config.json (defines.c's json_file). The text is untrusted: every byte is
 * checked, nesting is bounded, and an error names the line and column.
 *
 * The Lua value: an object is a table of its members, an array a sequence
 * (1-based), a number an integer where it is written whole and fits 64 bits
 * (else a float; one past the float range is refused), a string its bytes
 * (escapes decoded; \u surrogate pairs to UTF-8), true and false booleans.
 * A member whose value is null is left out of its object (absent, as Lua
 * has it); a null in an array, a repeated member name, a raw control byte
 * in a string, a lone surrogate and trailing text are refused.
 *
 * Needs: Lua (the value is built on the caller's stack). */
#ifndef KG_JSON_H
#define KG_JSON_H

#include <stddef.h>

#include <lua.h>

#define KG_JSON_DEPTH 64 /* objects and arrays nested */

/* Pushes the value of text[0 .. len) and returns 0; or pushes nothing,
 * writes "line L, column C: what" into why and returns -1. Raises only
 * Lua's own errors (memory), so call it where those are caught. */
int kg_json_push(lua_State *L, const char *text, size_t len, char *why, size_t why_len);

#endif /* KG_JSON_H */
