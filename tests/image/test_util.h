/* tests/image/test_util.h: helpers shared by the perception tests. */
#ifndef FOVEA_TESTS_PERCEPTION_UTIL_H
#define FOVEA_TESTS_PERCEPTION_UTIL_H

#include <stdint.h>

#include "base/rng.h"
#include "image/image.h"

/* Allocates img (w x h) and fills every byte from a seeded stream; img stays
 * empty if the allocation fails. */
static inline void random_image(img_image *img, int w, int h, uint64_t seed)
{
    base_rng r;
    base_rng_seed(&r, seed);
    if (img_alloc(img, w, h) != BASE_OK)
        return;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * 4; x++)
            img->px[(size_t)y * img->stride + x] = (uint8_t)base_rng_u64(&r);
}

#endif
