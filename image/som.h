/* image/som.h: Set-of-Marks overlays, debug drawing and model views.
 *
 * A vision model sees the page as a screenshot with numbered marks drawn on
 * it: each mark is a translucent fill, an outline (solid for the current
 * vision pass, dashed for the previous pass when anchoring) and a label tag
 * such as "[V12]". Marks are given in CSS pixels and mapped to image pixels
 * with a scale; labels are placed where they hide neither their own element
 * nor other labels when there is room, and always stay inside the image.
 *
 * Drawing is deterministic: the same input gives the same bytes whatever
 * kernel (scalar, SSE2, AVX2) or OpenMP thread count is used. All functions
 * are reentrant; one image must not be drawn on by two threads at once.
 */
#ifndef FOVEA_IMAGE_SOM_H
#define FOVEA_IMAGE_SOM_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/geom.h"
#include "image/image.h"

typedef enum img_mark_style { IMG_MARK_SOLID = 0, IMG_MARK_DASHED = 1 } img_mark_style;

/* One mark. r is in CSS pixels; label (may be NULL) is borrowed. */
typedef struct img_mark {
    base_rect r;
    int id;
    const char *label;
    int style; /* img_mark_style */
} img_mark;

typedef enum img_kernel {
    IMG_KERNEL_AUTO = 0, /* best the CPU supports */
    IMG_KERNEL_SCALAR,
    IMG_KERNEL_SSE2,
    IMG_KERNEL_AVX2
} img_kernel;

/* Whether the AVX2 (img_have_sse2: SSE2) kernels are compiled in and this
 * CPU runs them: 1 or 0. The pixel kernels of other modules pick their SIMD
 * path by the same answer. Any thread (the answer is computed once);
 * cannot fail. */
int img_have_avx2(void);
int img_have_sse2(void);

typedef enum img_label_fmt {
    IMG_LABEL_VID = 0, /* "[V12]" */
    IMG_LABEL_NUM,     /* "12" */
    IMG_LABEL_TEXT,    /* the mark's label string (id when NULL) */
    IMG_LABEL_NONE     /* no tag */
} img_label_fmt;

typedef struct img_som_opts {
    float scale;    /* image px per CSS px; 0 = use the image's scale */
    int label_fmt;  /* img_label_fmt */
    int fill_alpha; /* 0..255, default 64 (25%) */
    int outline_px; /* outline thickness in image px, default 2 */
    int font_px;    /* label text height in image px, default 14 */
    int dash_px;    /* dash period for dashed marks, default 6 */
    img_kernel kernel;
} img_som_opts;

/* Where a label tag went, in image pixels (half-open), and its colour. */
typedef struct img_som_label {
    int x0, y0, x1, y1;
    int placement; /* index of the candidate position chosen, -1 when none */
    uint8_t rgb[3];
} img_som_label;

/* Fills opts (the caller's) with the defaults above. Any thread; cannot
 * fail. */
void img_som_opts_init(img_som_opts *opts);

/* Computes colours and label rectangles for n marks on a w x h image without
 * drawing (used by img_som_draw and by tests). out holds n entries, written
 * only on success. opts may be NULL (defaults, scale 1). Any thread.
 * Errors: BASE_EINVAL, BASE_ENOTFOUND/BASE_EDECODE (font), BASE_ENOMEM. */
base_err img_som_layout(int w, int h, const img_mark *marks, int n, const img_som_opts *opts,
                         img_som_label *out, char *err);

/* Draws n marks (n may be 0) onto img in place. marks and their labels are
 * borrowed for the call. opts may be NULL. Uses OpenMP inside; call it from
 * one thread per image. Errors: BASE_EINVAL (bad image/opts, n < 0,
 * unsupported kernel forced), font errors, BASE_ENOMEM; on error the image
 * is unchanged. */
base_err img_som_draw(img_image *img, const img_mark *marks, int n, const img_som_opts *opts,
                       char *err);

/* Name of the kernel k resolves to on this CPU ("avx2", "sse2", "scalar";
 * "unavailable" for a kernel this build or CPU lacks). A static string. Any
 * thread. */
const char *img_som_kernel_name(img_kernel k);

/* Debug drawing for run reports. Coordinates are CSS px mapped with
 * img->scale (1 when 0); rgba is 0xRRGGBBAA. Same threading and error
 * contract as img_som_draw (one thread per image; BASE_EINVAL for a bad
 * image or points, BASE_ENOMEM; img_draw_caption also the font's errors).
 * pts and text are borrowed for the call. */
base_err img_draw_crosshair(img_image *img, base_point p, int radius_px, uint32_t rgba,
                             char *err);
base_err img_draw_polyline(img_image *img, const base_point *pts, int n, int width_px,
                            uint32_t rgba, char *err);
/* A thick outline and light fill around the chosen element. */
base_err img_draw_highlight(img_image *img, base_rect r, uint32_t rgba, char *err);
/* A dark strip along the bottom with one line of white text (e.g. "step 3 -
 * click [V4] 'United States' - ok"), cut with "..." when too long. */
base_err img_draw_caption(img_image *img, const char *text, char *err);

/* Resizes src to w x h with stb_image_resize (triangle filter, clamped
 * edges) into a new image owned by the caller; out->scale is src->scale
 * times w / src->w. Any thread. Errors: BASE_EINVAL, BASE_ETOOBIG,
 * BASE_ENOMEM. */
base_err img_resize(const img_image *src, int w, int h, img_image *out);

/* Makes the image sent to a model: src shrunk to target_w pixels wide
 * keeping the aspect ratio (a fixed-point, OpenMP version of the triangle
 * filter of img_resize, identical for any thread count and within 2
 * levels of stbir), or copied when already narrower. out is a new image owned by the caller;
 * out->scale and *scale_out (may be NULL) are the CSS->output factor, src->scale (1 when 0) times
 * target_w / src->w, so CSS boxes map to the output by multiplying. target_w <= 0 means 1024. Any
 * thread. Errors: BASE_EINVAL, BASE_ENOMEM. */
base_err img_model_view(const img_image *src, int target_w, img_image *out, float *scale_out);

/* Parses boxes JSON for `fovea overlay`: either an array or {"boxes":[...]},
 * each element {"x0":..,"y0":..,"x1":..,"y1":..,"label":"..","id":4,
 * "style":"dashed"} or with "box":[ymin,xmin,ymax,xmax] instead of x0..y1.
 * When norm_w/norm_h are > 0, "box" values are 0..1000 normalised and mapped
 * to a norm_w x norm_h CSS viewport; otherwise they are CSS px. Missing ids
 * default to the 1-based index. *marks (with copied labels) is freed with
 * img_marks_free. At most 10000 boxes. Any thread. Errors: BASE_EPROTO
 * with a message naming the field, e.g. "boxes[3].x1: expected a number";
 * BASE_ETOOBIG; BASE_ENOMEM. Out-params untouched on failure. */
base_err img_marks_parse_json(const char *json, size_t len, int norm_w, int norm_h,
                               img_mark **marks, int *n, char *err);

/* Frees a list from img_marks_parse_json (NULL-safe). Any thread. */
void img_marks_free(img_mark *marks, int n);

#endif
