/* tests/vision/test_dom_provider.c: the `dom` vision provider on
 * tests/fixtures/pages/vision/boxes.html, whose elements sit at exact CSS
 * positions. The boxes must be those rects (clipped to the viewport) at
 * device scale factors 1 and 2, with hidden, covered and off-screen elements
 * left out and shadow-root and same-origin-iframe elements included; the
 * selector map that enrichment builds must agree box for box, with the
 * shared xpath convention and CDP frame ids. */
#include "base/alloc.h"
#include "check.h"
#include "harness.h"
#include "perception/vision.h"
#include "vision_util.h"

static const perc_box *find_label(const perc_detection *d, const char *label)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->boxes[i].label, label) == 0)
            return &d->boxes[i];
    return NULL;
}

#define CHECK_RECT(b, X0, Y0, X1, Y1)                                                      \
    do {                                                                                   \
        CHECK_MSG((b) != NULL, "box missing");                                             \
        CHECK_NEAR((b)->r.x0, X0, 1e-3);                                                   \
        CHECK_NEAR((b)->r.y0, Y0, 1e-3);                                                   \
        CHECK_NEAR((b)->r.x1, X1, 1e-3);                                                   \
        CHECK_NEAR((b)->r.y1, Y1, 1e-3);                                                   \
    } while (0)

static void boxes_at(double scale)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(800, 600, scale, "/vision/boxes.html");
    CHECK(p != NULL);
    perc_vision *v = NULL;
    char err[256] = "";
    CHECK_OK(perc_vision_dom_create(&v, err));
    perc_detection d;
    base_err e = perc_vision_detect(v, p, NULL, NULL, &d, err);
    CHECK_MSG(e == BASE_OK, "detect: %s", err);
    CHECK_STR(d.model, "dom");
    for (int i = 0; i < d.n; i++) {
        CHECK_EQ(d.boxes[i].id, i + 1);
        CHECK_EQ(d.boxes[i].dom_index, i);
        CHECK_NEAR(d.boxes[i].confidence, 1, 0);
    }
    const perc_box *b = find_label(&d, "OK");
    CHECK_RECT(b, 10, 20, 110, 50);
    CHECK_STR(b->kind, "button");
    b = find_label(&d, "Go there");
    CHECK_RECT(b, 150.5, 40, 230.5, 60);
    CHECK_STR(b->kind, "link");
    b = find_label(&d, "Search");
    CHECK_RECT(b, 10, 80, 210, 104);
    CHECK_STR(b->kind, "input");
    b = find_label(&d, "x");
    CHECK_RECT(b, 300, 20, 340, 60);
    CHECK_STR(b->kind, "checkbox");
    b = find_label(&d, "Card");
    CHECK_RECT(b, 300, 80, 420, 110);
    CHECK_STR(b->kind, "clickable");
    b = find_label(&d, "Clipped");
    CHECK_RECT(b, 0, 150, 40, 170);
    b = find_label(&d, "Shadow");
    CHECK_RECT(b, 410, 305, 500, 335);
    b = find_label(&d, "Inner button");
    CHECK(b != NULL);
    CHECK_NEAR(b->r.x0, 10, 1e-3);
    CHECK_NEAR(b->r.y0, 300, 1e-3);
    CHECK(find_label(&d, "Hidden") == NULL);
    CHECK(find_label(&d, "Under") == NULL);
    CHECK(find_label(&d, "Far") == NULL);
    CHECK_EQ(d.n, 8);

    /* Enrichment of the dom boxes: each box is its own map entry. */
    perc_selector *map = NULL;
    int nmap = 0;
    e = perc_vision_enrich(p, &d, &map, &nmap, err);
    CHECK_MSG(e == BASE_OK, "enrich: %s", err);
    CHECK_EQ(nmap, d.n);
    cdp_frame fr[8];
    int nf = cdp_page_frames(p, fr, 8);
    const char *child = NULL;
    for (int i = 0; i < nf && i < 8; i++)
        if (fr[i].parent_id[0] && strstr(fr[i].url, "frame_child.html"))
            child = fr[i].id;
    CHECK(child != NULL);
    for (int i = 0; i < d.n; i++) {
        const perc_box *x = &d.boxes[i];
        CHECK_EQ(x->dom_index, i);
        CHECK_NEAR(map[i].r.x0, x->r.x0, 1e-3);
        CHECK_NEAR(map[i].r.y1, x->r.y1, 1e-3);
        if (strcmp(x->label, "OK") == 0)
            CHECK_STR(map[i].xpath, "/html[1]/body[1]/button[1]");
        else if (strcmp(x->label, "Go there") == 0)
            CHECK_STR(map[i].xpath, "/html[1]/body[1]/a[1]");
        else if (strcmp(x->label, "Shadow") == 0)
            CHECK_STR(map[i].xpath, "/html[1]/body[1]/div[4]/#shadow-root/div[1]/button[1]");
        if (strcmp(x->label, "Inner button") == 0) {
            CHECK_STR(map[i].xpath, "/html[1]/body[1]/button[1]");
            CHECK_STR(map[i].frame_id, child);
        } else {
            CHECK_STR(map[i].frame_id, "");
        }
        if (strcmp(x->label, "x") == 0)
            CHECK_EQ(x->active, 1); /* aria-checked="true" */
    }
    base_free(map);
    perc_detection_fini(&d);
    CHECK_EQ(d.n, 0);
    perc_vision_destroy(v);
    cdp_page_close(p);
}

static void dsf1(void)
{
    boxes_at(1);
}

static void dsf2(void)
{
    boxes_at(2);
}

static void bad_input(void)
{
    perc_vision *v = NULL;
    char err[256] = "";
    CHECK_OK(perc_vision_dom_create(&v, err));
    perc_detection d;
    CHECK_EQ(perc_vision_detect(v, NULL, NULL, NULL, &d, err), BASE_EINVAL);
    CHECK(strstr(err, "live page") != NULL);
    CHECK_EQ(perc_vision_detect(NULL, NULL, NULL, NULL, &d, NULL), BASE_EINVAL);
    perc_vision_destroy(v);
    perc_vision_destroy(NULL);
    perc_detection_fini(NULL);
    CHECK_EQ(perc_vision_dom_create(NULL, NULL), BASE_EINVAL);
}

static const check_case cases[] = {
    {"dsf1", dsf1},
    {"dsf2", dsf2},
    {"bad_input", bad_input},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
