/* base/rng.h: seeded, platform-independent random numbers.
 *
 * xoshiro256** seeded through splitmix64. The integer stream is identical on
 * every platform for a given seed; uniform doubles are derived from the top
 * 53 bits, so they are too. Normal deviates use the polar method, whose only
 * libm calls are sqrt (exact under IEEE 754) and log (correctly rounded in
 * glibc for the argument range used); motion plans therefore replay exactly.
 *
 * A base_rng is a plain value owned by the caller; one per thread.
 */
#ifndef FOVEA_BASE_RNG_H
#define FOVEA_BASE_RNG_H

#include <stdint.h>

typedef struct base_rng {
    uint64_t s[4];
    int has_spare;
    double spare;
} base_rng;

/* Seeds the generator; every seed (including 0) gives a valid stream. */
void base_rng_seed(base_rng *r, uint64_t seed);
/* Next 64 random bits. */
uint64_t base_rng_u64(base_rng *r);
/* Uniform in [0, 1). */
double base_rng_unit(base_rng *r);
/* Uniform in [lo, hi). */
double base_rng_uniform(base_rng *r, double lo, double hi);
/* Uniform integer in [0, n); n = 0 gives 0. Unbiased (rejection). */
uint64_t base_rng_below(base_rng *r, uint64_t n);
/* Normal deviate with the given mean and standard deviation. */
double base_rng_normal(base_rng *r, double mean, double sd);
/* True with probability p. */
int base_rng_chance(base_rng *r, double p);

#endif
