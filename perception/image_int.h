/* perception/image_int.h: helpers shared by the image and codec sources of
 * perception/ only. Not a public header. */
#ifndef FOVEA_PERCEPTION_IMAGE_INT_H
#define FOVEA_PERCEPTION_IMAGE_INT_H

#include "perception/image.h"

/* Checks w x h against the image limits; writes "<what>: ..." into err. */
base_err perc__check_dims(int w, int h, const char *what, char *err);

/* Codec entry points behind perc_image_decode; same contract. */
base_err perc__png_decode(const uint8_t *data, size_t n, perc_image *out, char *err);
base_err perc__jpeg_decode(const uint8_t *data, size_t n, perc_image *out, char *err);
base_err perc__jpeg_info(const uint8_t *data, size_t n, int *w, int *h, char *err);

#endif
