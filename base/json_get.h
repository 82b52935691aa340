/* base/json_get.h: reading members of parsed JSON (cJSON) without a
 * helper in every file. */
#ifndef FOVEA_BASE_JSON_GET_H
#define FOVEA_BASE_JSON_GET_H

#include <cjson/cJSON.h>

/* Purpose: the string member key of o, or dflt when o is not an object,
 * has no such member or it is not a string. Ownership: borrows (the
 * string lives as long as o). Thread: any. Errors: none. */
const char *base_json_str(const cJSON *o, const char *key, const char *dflt);

#endif
