/* tests/perception/test_enrich_frames.c: the `dom` provider and the selector map
 * inside cross-origin iframes (tests/fixtures/pages/vision/xo_top.html
 * embedding xo_form.html from another origin).
 *
 * Origin B (http://localhost:PORT) is another site than the top page's
 * 127.0.0.1, so Chromium runs the form in an out-of-process iframe with its
 * own CDP session; http://127.0.0.1:PORT_B is the same site on another port
 * (cross-origin but in-process: no session, no contentDocument); a.localhost
 * is a third site for the nested case. The iframe's content box starts at
 * (50, 110) in the top page (left/top 40/100 + border 3 + padding 7), and
 * every form element sits at an exact CSS position inside it, so each box
 * must be that position moved by (50, 110) and by the page scroll, at device
 * scale factors 1 and 2. Each box centre, moved back into the frame, must hit
 * the same element there (elementFromPoint through the frame's own session).
 */
#include "base/alloc.h"
#include "check.h"
#include "harness.h"
#include "perception/vision.h"
#include "vision_util.h"

#define FX 50.0f /* the iframe's content box in the top page */
#define FY 110.0f

/* One test page with the dom provider and its last detection. */
typedef struct xo {
    perc_vision *v;
    cdp_page *p;
    perc_detection d;
    char err[256];
} xo;

/* Runs the dom provider again into x->d; 0 on success. */
static int xo_detect(xo *x)
{
    perc_detection_fini(&x->d);
    if (perc_vision_detect(x->v, x->p, NULL, NULL, &x->d, x->err) == BASE_OK)
        return 0;
    fprintf(stderr, "detect: %s\n", x->err);
    return -1;
}

/* Opens xo_top.html with src = the form on http://host:PORT_B + query and
 * runs the dom provider until `want` boxes are there (the frame loads after
 * the top page's load event) or 8 s passed. 0 on success. */
static int xo_open(xo *x, double scale, const char *host, const char *query, int want)
{
    memset(x, 0, sizeof *x);
    harness *h = harness_get();
    char path[1024];
    snprintf(path, sizeof path, "/vision/xo_top.html?src=http://%s:%d/vision/xo_form.html%s", host,
             serve_httpd_port(h->srv_b), query);
    if (perc_vision_dom_create(&x->v, x->err) || !(x->p = harness_open(800, 600, scale, path)))
        return -1;
    double t0 = base_monotime_ms();
    while (xo_detect(x) == 0 && x->d.n < want && base_monotime_ms() - t0 < 8000)
        base_sleep_ms(50);
    return 0;
}

static void xo_close(xo *x)
{
    perc_detection_fini(&x->d);
    perc_vision_destroy(x->v);
    cdp_page_close(x->p);
}

/* The child frame whose URL contains needle (or, when needle is
 * "scheme://...", starts with it), or -1. */
static int frame_of(cdp_page *p, const char *needle, cdp_frame *out)
{
    cdp_frame fr[16];
    int n = cdp_page_frames(p, fr, 16);
    for (int i = 0; i < n && i < 16; i++) {
        const char *at = strstr(fr[i].url, needle);
        if (fr[i].parent_id[0] && at && (at == fr[i].url || !strstr(needle, "://"))) {
            *out = fr[i];
            return 0;
        }
    }
    return -1;
}

/* The label of the element at (x, y) of the document of `session`'s main
 * frame (aria-label or text), "" when none. */
static void label_at(cdp_page *p, const char *session, float x, float y, char *buf, size_t n)
{
    char expr[256];
    snprintf(expr, sizeof expr,
             "(() => { const e = document.elementFromPoint(%.3f, %.3f);"
             " return e ? (e.getAttribute('aria-label') || e.textContent.trim()) : ''; })()",
             x, y);
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "expression", expr);
    cJSON_AddBoolToObject(pa, "returnByValue", 1);
    cJSON *res = NULL;
    buf[0] = '\0';
    if (cdp_call(cdp_page_conn(p), session, "Runtime.evaluate", pa, &res, 10000, NULL))
        return;
    const char *s = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value"));
    snprintf(buf, n, "%s", s ? s : "");
    cJSON_Delete(res);
}

/* The form's four elements at frame origin (ox, oy) in the top viewport
 * (nth: which copy of the label), each hit again through the frame's
 * session at its centre. */
static void check_form(cdp_page *p, const perc_detection *d, int nth, float ox, float oy,
                       const char *session)
{
    static const struct {
        const char *label;
        float x0, y0, x1, y1;
    } want[] = {{"Full name", 10, 10, 210, 34},
                {"Email", 10, 50, 210, 74},
                {"I accept", 230, 14, 246, 30},
                {"Confirm", 10, 90, 130, 120}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const perc_box *b = vu_find(d, want[i].label, nth);
        CHECK_MSG(b != NULL, "no box for '%s' (copy %d)", want[i].label, nth);
        VU_CHECK_RECT(b, want[i].x0 + ox, want[i].y0 + oy, want[i].x1 + ox, want[i].y1 + oy);
        char got[128];
        label_at(p, session, (b->r.x0 + b->r.x1) / 2 - ox, (b->r.y0 + b->r.y1) / 2 - oy, got,
                 sizeof got);
        CHECK_STR(got, want[i].label);
    }
}

/* Enriches x's boxes; every box must stay its own selector-map entry, and
 * all but "Top button" belong to frame_id (unless NULL). *map: base_free
 * (NULL and *nmap 0 until enrichment succeeded). */
static void enrich_all(xo *x, const char *frame_id, perc_selector **map, int *nmap)
{
    *map = NULL;
    *nmap = 0;
    CHECK_MSG(perc_vision_enrich(x->p, &x->d, map, nmap, x->err) == BASE_OK, "enrich: %s", x->err);
    CHECK_EQ(*nmap, x->d.n);
    for (int i = 0; i < *nmap; i++) {
        CHECK_EQ(x->d.boxes[i].dom_index, i);
        CHECK_NEAR((*map)[i].r.x0, x->d.boxes[i].r.x0, 1e-3);
        CHECK_NEAR((*map)[i].r.y1, x->d.boxes[i].r.y1, 1e-3);
        if (frame_id)
            CHECK_STR((*map)[i].frame_id,
                      strcmp((*map)[i].label, "Top button") == 0 ? "" : frame_id);
    }
}

static void oopif_at(double scale)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    xo x;
    CHECK(xo_open(&x, scale, "localhost", "", 5) == 0);
    cdp_frame f;
    CHECK(frame_of(x.p, "xo_form.html", &f) == 0);
    CHECK_EQ(f.oopif, 1);
    CHECK_EQ(x.d.n, 5);
    VU_CHECK_RECT(vu_find(&x.d, "Top button", 0), 10, 10, 130, 40);
    check_form(x.p, &x.d, 0, FX, FY, f.session);

    /* The selector map: frame id + xpath inside the frame, element states. */
    perc_selector *map = NULL;
    int nmap = 0;
    enrich_all(&x, f.id, &map, &nmap);
    for (int i = 0; i < nmap; i++) {
        const perc_box *b = &x.d.boxes[i];
        if (strcmp(b->label, "Full name") == 0)
            CHECK_STR(map[i].xpath, "/html[1]/body[1]/input[1]");
        if (strcmp(b->label, "Confirm") == 0)
            CHECK_STR(map[i].xpath, "/html[1]/body[1]/button[1]");
        /* The checkbox is checked: read in the frame's own pass. */
        CHECK_EQ(b->active, strcmp(b->label, "I accept") == 0 ? 1 : -1);
    }
    base_free(map);
    xo_close(&x);
}

static void oopif_dsf1(void)
{
    oopif_at(1);
}

static void oopif_dsf2(void)
{
    oopif_at(2);
}

/* Scrolled by 130 px the frame's content starts at y = -20: "Full name"
 * (frame y 10..34) shows only its lower 14 px, clipped at the viewport. */
static void scrolled(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    xo x;
    CHECK(xo_open(&x, 2, "localhost", "", 5) == 0);
    CHECK_EQ(x.d.n, 5);
    cdp_frame f;
    CHECK(frame_of(x.p, "xo_form.html", &f) == 0);
    CHECK(vu_eval(x.p, "window.scrollTo(0, 130)") == 0);
    CHECK(xo_detect(&x) == 0);
    CHECK(vu_find(&x.d, "Top button", 0) == NULL);
    CHECK_EQ(x.d.n, 4);
    VU_CHECK_RECT(vu_find(&x.d, "Full name", 0), 60, 0, 260, 14);
    char got[128];
    label_at(x.p, f.session, 160 - FX, 7 - (FY - 130), got, sizeof got);
    CHECK_STR(got, "Full name");
    VU_CHECK_RECT(vu_find(&x.d, "Email", 0), 60, 30, 260, 54);
    VU_CHECK_RECT(vu_find(&x.d, "Confirm", 0), 60, 70, 180, 100);
    /* Scrolled out of view: the frame is not probed, nothing is listed. */
    CHECK(vu_eval(x.p, "window.scrollTo(0, 1000)") == 0);
    CHECK(xo_detect(&x) == 0);
    CHECK_EQ(x.d.n, 0);
    xo_close(&x);
}

/* A modal over the left 200 px of the page covers the iframe there: the
 * elements whose centre it hides are dropped, the checkbox stays. */
static void covered(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    xo x;
    CHECK(xo_open(&x, 1, "localhost", "", 5) == 0);
    CHECK_EQ(x.d.n, 5);
    CHECK(vu_eval(x.p, "const m = document.getElementById('modal');"
                       "m.className = 'open'; m.style.width = '200px'") == 0);
    CHECK(xo_detect(&x) == 0);
    CHECK_EQ(x.d.n, 1);
    VU_CHECK_RECT(vu_find(&x.d, "I accept", 0), 280, 124, 296, 140);
    /* The whole frame under the modal: nothing left. */
    CHECK(vu_eval(x.p, "document.getElementById('modal').style.width = '100%'") == 0);
    CHECK(xo_detect(&x) == 0);
    CHECK_EQ(x.d.n, 0);
    xo_close(&x);
}

/* Top (127.0.0.1) -> localhost form -> a.localhost form: two levels of
 * out-of-process frames; the inner one's content box is at (20, 150) of the
 * outer frame, i.e. (70, 260) in the top page. */
static void nested(void)
{
    HARNESS_OR_SKIP(h);
    char q[256];
    snprintf(q, sizeof q, "?inner=http://a.localhost:%d/vision/xo_form.html",
             serve_httpd_port(h->srv_b));
    xo x;
    CHECK(xo_open(&x, 1, "localhost", q, 9) == 0);
    cdp_frame outer, inner;
    CHECK(frame_of(x.p, "http://localhost:", &outer) == 0);
    CHECK(frame_of(x.p, "http://a.localhost:", &inner) == 0);
    CHECK(outer.oopif && inner.oopif);
    CHECK_STR(inner.parent_id, outer.id);
    CHECK_EQ(x.d.n, 9);
    check_form(x.p, &x.d, 0, FX, FY, outer.session);
    check_form(x.p, &x.d, 1, FX + 20, FY + 150, inner.session);
    perc_selector *map = NULL;
    int nmap = 0;
    enrich_all(&x, NULL, &map, &nmap);
    int n_inner = 0;
    for (int i = 0; i < nmap; i++) {
        int in = x.d.boxes[i].r.y0 >= FY + 150;
        n_inner += in;
        if (strcmp(map[i].label, "Top button") != 0)
            CHECK_STR(map[i].frame_id, in ? inner.id : outer.id);
    }
    CHECK_EQ(n_inner, 4);
    base_free(map);
    xo_close(&x);
}

/* http://127.0.0.1:PORT_B inside http://127.0.0.1:PORT_A: same site, other
 * origin. Chromium keeps it in the page's process (no session of its own)
 * and the top script cannot enter it; it is probed in an isolated world. */
static void same_site(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    xo x;
    CHECK(xo_open(&x, 1, "127.0.0.1", "", 5) == 0);
    cdp_frame f;
    CHECK(frame_of(x.p, "xo_form.html", &f) == 0);
    CHECK_EQ(f.oopif, 0);
    CHECK_STR(f.session, cdp_page_session(x.p));
    CHECK_EQ(x.d.n, 5);
    VU_CHECK_RECT(vu_find(&x.d, "Full name", 0), 60, 120, 260, 144);
    VU_CHECK_RECT(vu_find(&x.d, "Confirm", 0), 60, 200, 180, 230);
    /* In the top document the centre is on the (label-less) iframe. */
    char got[128];
    label_at(x.p, cdp_page_session(x.p), 160, 132, got, sizeof got);
    CHECK_STR(got, "");
    perc_selector *map = NULL;
    int nmap = 0;
    enrich_all(&x, f.id, &map, &nmap);
    CHECK_EQ(nmap, 5);
    base_free(map);
    xo_close(&x);
}

/* A sandboxed frame (no allow-scripts) still gets its boxes. */
static void sandboxed(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    xo x;
    CHECK(xo_open(&x, 1, "localhost", "&sandbox=", 5) == 0);
    CHECK_EQ(x.d.n, 5);
    VU_CHECK_RECT(vu_find(&x.d, "Full name", 0), 60, 120, 260, 144);
    xo_close(&x);
}

static const check_case cases[] = {
    {"oopif_dsf1", oopif_dsf1},
    {"oopif_dsf2", oopif_dsf2},
    {"scrolled", scrolled},
    {"covered", covered},
    {"nested", nested},
    {"same_site", same_site},
    {"sandboxed", sandboxed},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
