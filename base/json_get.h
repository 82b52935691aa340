/* base/json_get.h: reading members of parsed JSON (cJSON) without a
 * helper in every file. */
#ifndef FOVEA_BASE_JSON_GET_H
#define FOVEA_BASE_JSON_GET_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The string member key of o, or dflt when o is not an object, has no such
 * member or it is not a string. Borrows (the string lives as long as o). Any
 * thread. Errors: none. */
const char *base_json_str(const cJSON *o, const char *key, const char *dflt);

/* The index one past the bracket that closes the object or array opening at
 * t[i] ('{' or '['), with strings and their escapes honoured (a '}' inside a
 * string does not close), for finding a JSON value inside a model's prose; 0
 * when the text ends first or a closing bracket comes unopened. Brackets are
 * not matched by kind (the parser that runs next judges the value). Pure, any
 * thread. Errors: none. */
size_t base_json_value_end(const char *t, size_t len, size_t i);

#endif
