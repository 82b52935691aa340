/* tests/perception/test_dom_boxes.c: the `dom` vision provider on
 * tests/fixtures/pages/vision/boxes.html, whose elements sit at exact CSS
 * positions. The boxes must be those rects (clipped to the viewport) at
 * device scale factors 1 and 2, with hidden, covered and off-screen elements
 * left out and shadow-root and same-origin-iframe elements included; the
 * selector map that enrichment builds must agree box for box, with the
 * shared xpath convention and CDP frame ids (twin.html: two frames with one
 * URL, the first hidden, still get the right id). Cross-origin frames:
 * test_enrich_frames.c. */
#include "base/alloc.h"
#include "check.h"
#include "harness.h"
#include "perception/kit.h"
#include "perception/vision.h"
#include "vision_util.h"

static const perc_box *find_label(const perc_detection *d, const char *label)
{
    return vu_find(d, label, 0);
}

#define CHECK_RECT VU_CHECK_RECT

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

/* The id attribute of frame fid's <iframe> element (DOM.getFrameOwner +
 * DOM.describeNode, independent of the probe's owner matching). */
static void owner_id(cdp_page *p, const char *fid, char *buf, size_t n)
{
    buf[0] = '\0';
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "frameId", fid);
    cJSON *res = NULL;
    if (cdp_page_call(p, "DOM.getFrameOwner", pa, &res, 5000, NULL))
        return;
    pa = cJSON_CreateObject();
    cJSON_AddItemToObject(pa, "backendNodeId",
                          cJSON_Duplicate(cJSON_GetObjectItem(res, "backendNodeId"), 1));
    cJSON_Delete(res);
    res = NULL;
    if (cdp_page_call(p, "DOM.describeNode", pa, &res, 5000, NULL))
        return;
    const cJSON *at = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "node"), "attributes");
    for (int i = 0; i + 1 < cJSON_GetArraySize(at); i += 2)
        if (strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(at, i)), "id") == 0)
            snprintf(buf, n, "%s", cJSON_GetStringValue(cJSON_GetArrayItem(at, i + 1)));
    cJSON_Delete(res);
}

/* Two frames with one URL, the first hidden: the button's frame id is the
 * visible frame's, whatever order the CDP frame table has. */
static void frame_ids(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(800, 600, 1, "/vision/twin.html");
    CHECK(p != NULL);
    perc_vision *v = NULL;
    char err[256] = "";
    CHECK_OK(perc_vision_dom_create(&v, err));
    perc_detection d;
    CHECK_OK(perc_vision_detect(v, p, NULL, NULL, &d, err));
    CHECK_EQ(d.n, 1);
    perc_selector *map = NULL;
    int nmap = 0;
    CHECK_OK(perc_vision_enrich(p, &d, &map, &nmap, err));
    CHECK_EQ(nmap, 1);
    CHECK_STR(map[0].label, "Inner button");
    char id[32];
    owner_id(p, map[0].frame_id, id, sizeof id);
    CHECK_STR(id, "b");
    base_free(map);
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    cdp_page_close(p);
}

/* Elements whose only listeners are hover ones (recorded from the
 * document's start) are boxed with kind "hover": an avatar whose caption
 * shows on mouseenter, a menu title opening on mouseover. An element with a
 * click listener too stays a control; a removed hover listener and plain
 * text are not boxed. */
static void hover_boxes(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    char err[256] = "";
    CHECK_OK(perc_kit_install(p, err));
    char url[512];
    harness_url(0, "/vision/hover.html", url, sizeof url);
    CHECK_OK(cdp_page_navigate(p, url, 15000, err));
    perc_vision *v = NULL;
    CHECK_OK(perc_vision_dom_create(&v, err));
    perc_detection d;
    base_err e = perc_vision_detect(v, p, NULL, NULL, &d, err);
    CHECK_MSG(e == BASE_OK, "detect: %s", err);
    if (e == BASE_OK) {
        const perc_box *b = find_label(&d, "User Avatar");
        CHECK_RECT(b, 20, 20, 68, 68);
        if (b)
            CHECK_STR(b->kind, "hover");
        b = find_label(&d, "Products");
        CHECK(b != NULL);
        if (b)
            CHECK_STR(b->kind, "hover");
        b = find_label(&d, "Card");
        CHECK(b != NULL);
        if (b)
            CHECK_STR(b->kind, "clickable");
        CHECK(find_label(&d, "Was hoverable") == NULL);
        CHECK(find_label(&d, "Plain words") == NULL);
        CHECK_EQ(d.n, 3);
        perc_detection_fini(&d);
    }
    perc_vision_destroy(v);
    cdp_page_close(p);
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
    {"frame_ids", frame_ids},
    {"hover_boxes", hover_boxes},
    {"bad_input", bad_input},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
