/* tests/perception/test_enrich.c: DOM enrichment of model-like boxes on
 * tests/fixtures/pages/vision/enrich.html: the matched element, its
 * aria-expanded and checked/pressed state, aria-labelledby text, the parent
 * expand control, and the split of chip + chevron boxes (two elements, and
 * one element ending in a chevron glyph). */
#include <math.h>

#include "base/alloc.h"
#include "check.h"
#include "harness.h"
#include "perception/vision.h"
#include "vision_util.h"

typedef struct want {
    float x0, y0, x1, y1;
    const char *label;
} want;

static perc_detection make(const want *w, int n)
{
    perc_detection d;
    memset(&d, 0, sizeof d);
    d.boxes = base_calloc((size_t)n, sizeof *d.boxes);
    d.n = n;
    for (int i = 0; i < n; i++) {
        d.boxes[i].r = (base_rect){w[i].x0, w[i].y0, w[i].x1, w[i].y1};
        d.boxes[i].id = i + 1;
        snprintf(d.boxes[i].label, sizeof d.boxes[i].label, "%s", w[i].label);
        snprintf(d.boxes[i].kind, sizeof d.boxes[i].kind, "button");
        d.boxes[i].confidence = 0.9f;
        d.boxes[i].intent_relevant = -1;
    }
    return d;
}

static const perc_box *by_label(const perc_detection *d, const char *label)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->boxes[i].label, label) == 0)
            return &d->boxes[i];
    return NULL;
}

/* The page's rect of a selector, top-viewport CSS px. */
static int rect_of(cdp_page *p, const char *sel, base_rect *r)
{
    char expr[256];
    snprintf(expr, sizeof expr,
             "(() => { const r = document.querySelector('%s').getBoundingClientRect();"
             " return [r.left, r.top, r.right, r.bottom]; })()",
             sel);
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, expr, &v, 5000, NULL) || cJSON_GetArraySize(v) != 4) {
        cJSON_Delete(v);
        return -1;
    }
    r->x0 = (float)cJSON_GetArrayItem(v, 0)->valuedouble;
    r->y0 = (float)cJSON_GetArrayItem(v, 1)->valuedouble;
    r->x1 = (float)cJSON_GetArrayItem(v, 2)->valuedouble;
    r->y1 = (float)cJSON_GetArrayItem(v, 3)->valuedouble;
    cJSON_Delete(v);
    return 0;
}

static void enrich_fields(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(800, 600, 1, "/vision/enrich.html");
    CHECK(p != NULL);
    base_rect radio, summary;
    CHECK_OK(rect_of(p, "#r1", &radio));
    CHECK_OK(rect_of(p, "summary", &summary));
    /* Boxes roughly where a vision model would put them (a few px off). */
    want w[] = {
        {10, 10, 110, 40, "Menu"},
        {12, 42, 200, 62, "Option one"},
        {249, 9, 271, 31, "cb on"},
        {279, 9, 301, 31, "cb off"},
        {320, 10, 400, 40, "Bold"},
        {250, 60, 400, 84, "date input"},
        {10, 150, 140, 180, "Price"},
        {200, 150, 320, 180, "Sort by"},
        {summary.x0, summary.y0, summary.x1, summary.y1, "Filters"},
        {radio.x0 - 1, radio.y0 - 1, radio.x1 + 1, radio.y1 + 1, "Cheap"},
        {700, 500, 720, 520, "nothing"},
    };
    int n = (int)(sizeof w / sizeof w[0]);
    perc_detection d = make(w, n);
    perc_selector *map = NULL;
    int nmap = 0;
    char err[256] = "";
    base_err e = perc_vision_enrich(p, &d, &map, &nmap, err);
    CHECK_MSG(e == BASE_OK, "enrich: %s", err);
    CHECK_EQ(d.n, n + 2); /* two boxes were split */
    for (int i = 0; i < d.n; i++)
        CHECK_EQ(d.boxes[i].id, i + 1);

    const perc_box *b = by_label(&d, "Menu");
    CHECK(b && b->dom_index >= 0);
    CHECK_STR(map[b->dom_index].xpath, "/html[1]/body[1]/button[1]");
    CHECK_EQ(b->expanded, 1);
    CHECK_EQ(b->active, -1);
    int menu_idx = (int)(b - d.boxes);

    b = by_label(&d, "Option one");
    CHECK(b && b->dom_index >= 0);
    CHECK_STR(map[b->dom_index].label, "Option one");
    CHECK_EQ(b->expand_control, menu_idx); /* aria-controls="menulist" */

    b = by_label(&d, "cb on");
    CHECK(b && b->dom_index >= 0);
    CHECK_EQ(b->active, 1);
    b = by_label(&d, "cb off");
    CHECK(b && b->dom_index >= 0);
    CHECK_EQ(b->active, 0);
    b = by_label(&d, "Bold");
    CHECK(b);
    CHECK_EQ(b->active, 1); /* aria-pressed */
    b = by_label(&d, "date input");
    CHECK(b);
    CHECK_STR(b->labelledby, "Departure date");

    /* Chip + chevron as two buttons: the chevron half is the 30 px button. */
    b = by_label(&d, "Price");
    CHECK(b && b->dom_index >= 0);
    CHECK_NEAR(b->r.x0, 10, 1e-3);
    CHECK_NEAR(b->r.x1, 110, 1e-3);
    CHECK_EQ(b->expanded, -1);
    const perc_box *c = b + 1;
    CHECK_STR(c->kind, "chevron");
    CHECK_NEAR(c->r.x0, 110, 1e-3);
    CHECK_NEAR(c->r.x1, 140, 1e-3);
    CHECK_EQ(c->expanded, 0);
    CHECK(c->dom_index >= 0 && c->dom_index != b->dom_index);
    CHECK_STR(c->label, "Expand price");

    /* One button "Sort by ▾": split at the glyph, both halves the button. */
    b = by_label(&d, "Sort by");
    CHECK(b && b->dom_index >= 0);
    c = b + 1;
    CHECK_STR(c->kind, "chevron");
    CHECK_EQ(c->dom_index, b->dom_index);
    CHECK_NEAR(b->r.x0, 200, 1e-3);
    CHECK_NEAR(c->r.x1, 320, 1e-3);
    CHECK_NEAR(b->r.x1, c->r.x0, 1e-3);
    CHECK_MSG(c->r.x0 > 240 && c->r.x0 < 315, "glyph split at %g", c->r.x0);

    b = by_label(&d, "Filters");
    CHECK(b && b->dom_index >= 0);
    CHECK_EQ(b->expanded, 1); /* <details open> */
    int filters_idx = (int)(b - d.boxes);
    b = by_label(&d, "Cheap");
    CHECK(b && b->dom_index >= 0);
    CHECK_EQ(b->active, 1);
    CHECK_EQ(b->expand_control, filters_idx); /* the enclosing <summary> */

    b = by_label(&d, "nothing");
    CHECK(b);
    CHECK_EQ(b->dom_index, -1);
    CHECK_EQ(b->expanded, -1);
    CHECK_EQ(b->active, -1);
    CHECK_EQ(b->expand_control, -1);

    /* Clicking the checkbox flips its state on the next enrichment. */
    CHECK_OK(vu_eval(p, "document.getElementById('cb').click()"));
    base_free(map);
    perc_detection_fini(&d);
    d = make(w, n);
    CHECK_OK(perc_vision_enrich(p, &d, &map, &nmap, err));
    CHECK_EQ(by_label(&d, "cb on")->active, 0);
    base_free(map);
    perc_detection_fini(&d);
    cdp_page_close(p);
}

static void bad_boxes(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(800, 600, 1, "/vision/enrich.html");
    CHECK(p != NULL);
    want w[] = {{10, 10, 110, 40, "Menu"}};
    perc_detection d = make(w, 1);
    d.boxes[0].r.x1 = NAN;
    perc_selector *map = NULL;
    int nmap = -7;
    char err[256] = "";
    CHECK_EQ(perc_vision_enrich(p, &d, &map, &nmap, err), BASE_EINVAL);
    CHECK(strstr(err, "non-finite") != NULL);
    CHECK_EQ(nmap, -7);
    CHECK_EQ(d.n, 1);
    CHECK_EQ(perc_vision_enrich(NULL, &d, &map, &nmap, NULL), BASE_EINVAL);
    perc_detection_fini(&d);
    /* No boxes at all: just the selector map. */
    CHECK_OK(perc_vision_enrich(p, &d, &map, &nmap, err));
    CHECK_EQ(d.n, 0);
    CHECK(nmap >= 8);
    base_free(map);
    perc_detection_fini(&d);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"enrich_fields", enrich_fields},
    {"bad_boxes", bad_boxes},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
