/* base/num.c: range-checked double-to-int conversion (see base/num.h).
 *
 * The checks compare in double before converting: lo and hi are ints, so
 * they are exact in a double, and a v that passes lo <= v <= hi truncates
 * to a value in range. NaN fails every comparison, which is why the test
 * is written as "not within" rather than "below or above".
 */
#include "base/num.h"

#include <math.h>

base_err base_num_to_int(double v, int lo, int hi, int *out)
{
    if (isnan(v) || isinf(v))
        return BASE_EINVAL;
    if (!(v >= (double)lo && v <= (double)hi)) {
        /* A fraction just outside the range still truncates into it
         * (hi + 0.5 -> hi), but rejecting it keeps the rule simple. */
        return BASE_ETOOBIG;
    }
    if (out)
        *out = (int)v;
    return BASE_OK;
}

base_err base_num_to_int_exact(double v, int lo, int hi, int *out)
{
    if (isnan(v) || isinf(v) || v != floor(v))
        return BASE_EINVAL;
    return base_num_to_int(v, lo, hi, out);
}

base_err base_num_parse_int(const char *s, int lo, int hi, int *out)
{
    if (!s || !out)
        return BASE_EINVAL;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\f' || *s == '\r')
        s++;
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return BASE_EINVAL;
    /* Accumulate with a cap above any int: the range check decides. */
    long long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v < 100000000000LL)
            v = v * 10 + (*s - '0');
    }
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return BASE_ETOOBIG;
    *out = (int)v;
    return BASE_OK;
}
