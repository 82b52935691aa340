/* base/json_check.h: strict JSON syntax check with line, column and expectation.
 *
 * cJSON says only where it stopped. Files people write (task files) deserve
 * "invalid JSON near line 3, column 14: expected ',' or '}', got '\"'", and
 * a check that is stricter than cJSON's parser: exactly one JSON text
 * (RFC 8259) and nothing after it, valid UTF-8 (RFC 3629), no raw NUL byte
 * and no \u0000 escape (fovea's strings are C strings, so either would cut
 * a value short without a word). Run it before cJSON_Parse.
 */
#ifndef FOVEA_BASE_JSON_CHECK_H
#define FOVEA_BASE_JSON_CHECK_H

#include <stddef.h>

#include "base/err.h"

/* Checks that s[0..n) is exactly one JSON value, optionally surrounded by
 * whitespace, nested at most max_depth deep. Borrows s. Any thread. Errors:
 * BASE_EPROTO with err = "invalid JSON near line L, column C: expected ..., got
 * ..." (columns count characters from 1), or "... : invalid UTF-8 (byte 0xFF)",
 * "...: a NUL byte", "...: nesting deeper than N". No allocation. */
base_err base_json_check(const char *s, size_t n, int max_depth, char *err);

#endif
