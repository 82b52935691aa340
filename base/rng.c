/* base/rng.c: xoshiro256** with splitmix64 seeding (public-domain algorithms
 * by Blackman and Vigna, written here from their published description). */
#include "base/rng.h"

#include <math.h>

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void base_rng_seed(base_rng *r, uint64_t seed)
{
    uint64_t st = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&st);
    r->has_spare = 0;
    r->spare = 0.0;
}

uint64_t base_rng_u64(base_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double base_rng_unit(base_rng *r)
{
    return (double)(base_rng_u64(r) >> 11) * 0x1.0p-53;
}

double base_rng_uniform(base_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * base_rng_unit(r);
}

uint64_t base_rng_below(base_rng *r, uint64_t n)
{
    if (n == 0)
        return 0;
    /* Reject the top partial range so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = base_rng_u64(r);
    } while (x >= limit);
    return x % n;
}

double base_rng_normal(base_rng *r, double mean, double sd)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return mean + sd * r->spare;
    }
    double u, v, s;
    do {
        u = 2.0 * base_rng_unit(r) - 1.0;
        v = 2.0 * base_rng_unit(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    r->spare = v * f;
    r->has_spare = 1;
    return mean + sd * u * f;
}

int base_rng_chance(base_rng *r, double p)
{
    return base_rng_unit(r) < p;
}
