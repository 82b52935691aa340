/* base/stats.h: the one summary every benchmark prints, so that medians and
 * p90s of fovea and of its baselines are computed the same way. */
#ifndef FOVEA_BASE_STATS_H
#define FOVEA_BASE_STATS_H

typedef struct base_summary {
    int n;
    double min, median, p90, max, mean;
} base_summary;

/* Sorts v[0..n-1] in place and summarises it: median = the middle value (mean
 * of the two middle values for even n), p90 = the value at rank ceil(0.9 n)
 * (nearest-rank). n <= 0 gives all zeros. Borrows v (reordered). Any thread.
 * Errors: none. */
base_summary base_summarize(double *v, int n);

#endif
