/* tests/perception/webset.h: the pixel provider's web fixture set
 * (the pages of tests/fixtures/pages/pixel/web) — pages in the styles third-party
 * sites draw controls in (a date picker grid, links inside running text,
 * adjacent icon buttons, SVG chart shapes, a faint footer, a status panel of
 * plain text), their ground truth from the DOM, and the per-class score of a
 * detection on them. Shared by tests/perception/test_pixel_web.c (the bars) and
 * bench/bench_pixel_web.c (the figures in bench/RESULTS.md), so both measure
 * the same thing.
 */
#ifndef FOVEA_TESTS_PIXEL_WEBSET_H
#define FOVEA_TESTS_PIXEL_WEBSET_H

#include <stdio.h>

#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"
#include "image/image.h"
#include "perception/vision.h"

#define PW_MAX_TRUTH 256

/* One visible interactive element of a page (truth.js): its rect in CSS px
 * (= device px: the set is captured at scale 1), accessible name, and the
 * text it shows ("" for an icon). */
typedef struct pw_truth {
    base_rect r;
    char name[96];
    char text[96];
} pw_truth;

/* One fixture page, loaded and captured. */
typedef struct pw_page {
    char path[96];          /* fixture path, e.g. "/pixel/web/datepicker.html" */
    char cls[32];           /* its class (body data-pixel-class), e.g. "grid" */
    img_image shot;        /* the 1280x800 screenshot (img_fini) */
    pw_truth t[PW_MAX_TRUTH];
    int nt;
} pw_page;

/* The fixture paths of the set, NULL-terminated. */
extern const char *const pw_set[];

/* Navigates p (a 1280x800 page at scale 1, from harness_open) to
 * fixture path, waits until truth.js has published the controls, reads them
 * and captures the screenshot into *pg (caller-owned; pw_page_fini).
 * The test's thread. Errors: the navigation's, capture's, BASE_ETIMEDOUT
 * when the page never publishes, BASE_EPROTO for unreadable truth. */
base_err pw_page_load(cdp_page *p, const char *path, pw_page *pg, char *err);

/* Frees pg's screenshot. Any thread. */
void pw_page_fini(pw_page *pg);

/* Counts of one or more pages' scores; rates are ratios of these. */
typedef struct pw_score {
    int truth;    /* controls */
    int boxes;    /* boxes */
    int ctl;      /* boxes whose kind is not "text" (control guesses) */
    int hit;      /* controls holding some box's centre */
    int hit1;     /* ... a box that holds no other control's centre: one box per control */
    int iou;      /* controls with a box of IoU >= 0.5 */
    int prec;     /* boxes whose centre lies in some control */
    int ctl_prec; /* control guesses whose centre lies in some control */
    int ocr_n;    /* controls hit (one box) that show text of at most 6 words */
    int ocr_ok;   /* ... whose box label holds every word of that text */
} pw_score;

#define PW_MAX_WORDS 32

/* The lower-case alphanumeric words of s into w (at most PW_MAX_WORDS of 31
 * bytes; apostrophes, ASCII or U+2019, stay inside a word): how a control's
 * text and an OCR label are compared, here and in bench/bench_pixel.c.
 * Returns the count. Any thread. */
int pw_words(const char *s, char w[PW_MAX_WORDS][32]);

/* Adds the score of detection d (boxes in CSS px) on pg to *s. A
 * control is hit "one box per control" when some box's centre lies in it and
 * that box holds no other control's centre (a control nested in or around it
 * excepted): a box swallowing a week of day cells or a star and a trash can
 * counts for none of them. Any thread. */
void pw_score_add(const pw_page *pg, const perc_detection *d, pw_score *s);

/* Prints why each control of pg missed (no box centre; or only a
 * box swallowing others) and every box, to f. Any thread. */
void pw_dump(const pw_page *pg, const perc_detection *d, FILE *f);

#endif
