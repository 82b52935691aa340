/* image/image_int.h: helpers shared by the image and codec sources of
 * perception/ only. Not a public header. */
#ifndef FOVEA_IMAGE_IMAGE_INT_H
#define FOVEA_IMAGE_IMAGE_INT_H

#include "image/image.h"

/* Checks w x h against the image limits; writes "<what>: ..." into err. */
base_err img__check_dims(int w, int h, const char *what, char *err);

/* Codec entry points behind img_decode; same contract. */
base_err img__png_decode(const uint8_t *data, size_t n, img_image *out, char *err);
base_err img__jpeg_decode(const uint8_t *data, size_t n, img_image *out, char *err);
base_err img__jpeg_info(const uint8_t *data, size_t n, int *w, int *h, char *err);

#endif
