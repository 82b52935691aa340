/* base/env.c: see env.h. */
#include "base/env.h"

#include <errno.h>
#include <stdlib.h>

const char *base_env(const char *name, const char *fallback)
{
    const char *v = name ? getenv(name) : NULL;
    if ((!v || !*v) && fallback)
        v = getenv(fallback);
    return v && *v ? v : NULL;
}

base_err base_env_int(const char *name, int lo, int hi, int *out, char *err)
{
    const char *v = base_env(name, NULL);
    if (!v)
        return BASE_OK;
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) {
        if (lo == 0)
            return base_errf(err, BASE_EINVAL, "%s: expected a non-negative integer", name);
        return base_errf(err, BASE_EINVAL, "%s: expected an integer in %d..%d", name, lo, hi);
    }
    *out = (int)x;
    return BASE_OK;
}
