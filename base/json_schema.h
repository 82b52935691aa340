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
    /* 1: an object schema without additionalProperties accepts keys it does
     * not name, as JSON Schema says (a user's schema); 0: such objects are
     * closed (fovea's own tool and answer schemas). */
    int open_objects;
} base_json_schema_opts;

/* Checks value (NULL = an empty object when the schema is an object's) against
 * schema. who names the checked thing in messages ("click_at: 'text' must be a
 * string"). opts NULL = no extra keys and BASE_JSON_SCHEMA_TEXT_MAX. Borrows
 * everything. Any thread; pure. Errors: BASE_EINVAL with the first mismatch in
 * err, naming its path; BASE_EINVAL "no schema" when schema is NULL. */
base_err base_json_schema_check(const char *who, const cJSON *schema, const cJSON *value,
                                const base_json_schema_opts *opts, char *err);

/* Whether schema is a schema base_json_schema_check can enforce in full: an
 * object using only the keywords base/json_schema.c lists, each with a value
 * of the right kind (a pattern that compiles, counts that are whole
 * numbers, sub-schemas that are schemas), nested at most 32 deep. A keyword
 * it cannot enforce (not, $ref, if/then/else ...) is refused by name, never
 * ignored. Annotations (title, description, format ...) are accepted.
 * Borrows schema. Any thread; pure. Errors: BASE_EINVAL with the first
 * problem in err, naming its place ("schema.properties.price: 'type' must
 * be ..."). */
base_err base_json_schema_valid(const cJSON *schema, char *err);

#endif
