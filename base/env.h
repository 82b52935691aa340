/* base/env.h: configuration read from the environment, one way for every
 * module (a variable set but empty counts as unset). */
#ifndef FOVEA_BASE_ENV_H
#define FOVEA_BASE_ENV_H

#include "base/err.h"

/* The value of name, else of fallback (may be NULL), else NULL; empty values
 * are skipped. Points into the environment (valid until it changes). Any
 * thread, while nobody changes the environment. Errors: none. */
const char *base_env(const char *name, const char *fallback);

/* *out = the decimal integer in name when it is set, within lo..hi; *out
 * untouched when unset. Thread rules as base_env. Errors: BASE_EINVAL "NAME:
 * expected a non-negative integer" (lo >= 0) or "an integer in lo..hi", *out
 * untouched. */
base_err base_env_int(const char *name, int lo, int hi, int *out, char *err);

#endif
