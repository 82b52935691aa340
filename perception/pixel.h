/* perception/pixel.h: the native pixel detector and the `pixel` vision
 * provider — interactive-looking controls found in a screenshot alone.
 *
 * No DOM, no network, no model: an edge map (SIMD kernels with a scalar
 * reference, rows split over OpenMP), connected components of edge pixels,
 * closed rectangular outlines (buttons, fields, checkboxes), glyphs grouped
 * into words and phrases (link-like text, icon + text), containers rejected.
 * Labels come from Tesseract OCR of each box (perception/pixel_ocr.c); a
 * field or checkbox also reads the text line that labels it from outside
 * (above, left, or a checkbox's right: perception/pixel_label.c).
 * The detector's output is identical for any thread count and any kernel.
 * See perception/DESIGN.md "Pixel provider".
 *
 * Threads: the detector is stateless (any thread, calls may overlap); an OCR
 * pool and a provider are used by one thread at a time. Failures are a
 * base_err with the reason in err; a picture with nothing to find is not one.
 */
#ifndef FOVEA_PERCEPTION_PIXEL_H
#define FOVEA_PERCEPTION_PIXEL_H

#include <stdint.h>

#include "base/err.h"
#include "image/image.h"
#include "image/som.h"
#include "perception/vision.h"

/* Classes of detected elements. */
typedef enum perc_pixel_class {
    PERC_PIXEL_BUTTON = 0, /* closed outline / filled rectangle holding text or an icon */
    PERC_PIXEL_FIELD,      /* wide outline, empty or left-aligned text: a text input */
    PERC_PIXEL_LINK,       /* coloured text phrase outside any outline */
    PERC_PIXEL_TEXT,       /* short plain text phrase (nav item, label) */
    PERC_PIXEL_ICON,       /* small isolated non-text shape */
    PERC_PIXEL_CHECKBOX    /* small square outline */
} perc_pixel_class;

/* One detected element, in image (device) pixels, half-open. text is the
 * union of the glyph/icon marks inside it (what OCR reads); empty (x1 <= x0)
 * when it holds none. */
typedef struct perc_pixel_elem {
    int x0, y0, x1, y1;
    int tx0, ty0, tx1, ty1;
    perc_pixel_class cls;
    float confidence; /* how sure the geometry is, 0..1 */
} perc_pixel_elem;

typedef struct perc_pixel_opts {
    int threads;       /* OpenMP threads for the kernels; 0 = auto: OpenMP's default
                          from 2 Mpx up, 1 below (a 1280x800 frame is ~1 ms) */
    img_kernel kernel; /* edge kernel (AUTO = best the CPU has) */
    int edge_min;      /* edge strength threshold, 0 = default (8) */
} perc_pixel_opts;

/* Defaults (auto threads, AUTO kernel, default threshold) into the caller's
 * *o. Any thread. Errors: none. */
void perc_pixel_opts_init(perc_pixel_opts *o);

/* Detects elements in img (RGBA). *out (base_free) and *n are set on success;
 * the list is sorted top-to-bottom, left-to-right. Output does not depend on
 * o->threads or o->kernel. A blank, noisy or huge image gives few or no
 * elements, never an error. Any thread (stateless); distinct calls may run
 * concurrently. Errors: BASE_EINVAL (NULL/empty image), BASE_ENOMEM,
 * BASE_EINVAL for an unavailable kernel. */
base_err perc_pixel_detect(const img_image *img, const perc_pixel_opts *o,
                           perc_pixel_elem **out, int *n, char *err);

/* Short class name used as perc_box.kind ("button", "input", "link", "text",
 * "icon", "checkbox"); static storage. Any thread. */
const char *perc_pixel_class_name(perc_pixel_class c);

/* ---- OCR (Tesseract) ---- */

typedef struct perc_ocr perc_ocr;

/* An OCR pool of `threads` Tesseract engines (English, LSTM), one per worker
 * thread, loaded once. Owned by the caller (perc_ocr_destroy). Any thread.
 * Errors: BASE_ENOTFOUND (no eng.traineddata: names tesseract-ocr-eng),
 * BASE_ENOMEM. */
base_err perc_ocr_create(int threads, perc_ocr **out, char *err);
/* Ends the engines and frees o (NULL: no-op). On the owner's thread, with no
 * perc_ocr_read in flight. */
void perc_ocr_destroy(perc_ocr *o);

/* One OCR request: the rectangle (image px, half-open) to read; the answer is
 * text (UTF-8, whitespace collapsed; "" when unreadable) and conf 0..1. */
typedef struct perc_ocr_item {
    int x0, y0, x1, y1;
    char text[PERC_LABEL_MAX];
    float conf;
} perc_ocr_item;

/* Reads every item's rectangle from img, the items spread over the pool's
 * threads (each its own engine); results do not depend on the thread count.
 * Recently read crops (same pixels) are answered from a small cache. One
 * caller at a time per pool. Errors: BASE_EINVAL, BASE_ENOMEM, BASE_EIO (a
 * worker thread could not start). */
base_err perc_ocr_read(perc_ocr *o, const img_image *img, perc_ocr_item *items, int n,
                       char *err);

/* ---- the provider ---- */

typedef struct perc_pixel_config {
    int threads;      /* OCR threads (Tesseract engines); 0 = 2. The kernels
                         use perc_pixel_opts' auto thread count. */
    int ocr;          /* 1 = label boxes by OCR (default), 0 = geometry only */
    int dom_names;    /* 0 (default) = labels are OCR text only; 1 (the opt-in
                         `pixel-dom`) = after enrichment, a box lying on an
                         element with an accessible name takes that name */
} perc_pixel_config;

/* Defaults (2 OCR threads, OCR on, DOM names off) into the caller's *c. Any
 * thread. Errors: none. */
void perc_pixel_config_init(perc_pixel_config *c);

/* The `pixel` provider: boxes from the screenshot alone, labelled by OCR
 * (every box is read; a box with no readable text has an empty label); with a
 * live page the boxes are DOM-enriched inside detect (the selector map is
 * handed over, as the dom provider does) and plain-text/icon boxes on no
 * interactive element are dropped; only with c->dom_names do they take the
 * names of the elements they lie on (see pixel_vision.c). c may be NULL
 * (defaults; c is borrowed for the call). *out is the caller's
 * (perc_vision_destroy); it is used by one thread at a time. Errors:
 * BASE_EINVAL (NULL out), BASE_ENOMEM, the OCR pool's errors. */
base_err perc_vision_pixel_create(const perc_pixel_config *c, perc_vision **out, char *err);

/* d's boxes as Set-of-Marks marks (labels copied; free with img_marks_free);
 * boxes of kind "text" (pixel's text guesses) are dashed, the others solid.
 * Any thread. Errors: BASE_EINVAL, BASE_ENOMEM; *marks untouched on failure. */
base_err perc_detection_marks(const perc_detection *d, img_mark **marks, int *n, char *err);

#endif
