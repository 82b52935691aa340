/* base/json_schema.h: a JSON value checked against a JSON Schema (the
 * subset fovea's schemas use; base/json_schema.c lists it), with errors that
 * name the path and say what was expected. */
#ifndef FOVEA_BASE_JSON_SCHEMA_H
#define FOVEA_BASE_JSON_SCHEMA_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

/* A string whose schema gives no maxLength is capped at this many bytes. */
#define BASE_JSON_SCHEMA_TEXT_MAX 4096

typedef struct base_json_schema_opts {
    /* Properties every object at the top level may have besides the
     * schema's own (an object of name -> schema), NULL = none. */
    const cJSON *extra;
    /* Appended to "argument 'x' is not known (a, b)" at the top level when
     * extra is set, to name the extra keys ("; and timeout_ms, ..."). */
    const char *extra_hint;
    size_t text_max; /* cap for strings without maxLength (bytes) */
} base_json_schema_opts;

/* Checks value (NULL = an empty object when the schema is an object's) against
 * schema. who names the checked thing in messages ("click_at: 'text' must be a
 * string"). opts NULL = no extra keys and BASE_JSON_SCHEMA_TEXT_MAX. Borrows
 * everything. Any thread; pure. Errors: BASE_EINVAL with the first mismatch in
 * err, naming its path; BASE_EINVAL "no schema" when schema is NULL. */
base_err base_json_schema_check(const char *who, const cJSON *schema, const cJSON *value,
                                const base_json_schema_opts *opts, char *err);

#endif
