/* base/stats.c: median and nearest-rank percentiles. */
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

base_summary base_summarize(double *v, int n)
{
    base_summary s;
    memset(&s, 0, sizeof s);
    if (!v || n <= 0)
        return s;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.n = n;
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    int k = (int)ceil(0.9 * n) - 1;
    s.p90 = v[k < 0 ? 0 : k];
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / n;
    return s;
}
