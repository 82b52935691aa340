/* tests/cascade/test_hostile.c: a hostile page cannot blind or steer the
 * `fovea snap --click` path (cascade/snapserve.h) on a real Chromium (issue
 * 23). Fixture pages in tests/fixtures/pages/hostile/:
 *   override.html?o=NAME  one line in <head> replaces one built-in (23 cases,
 *                         the list): "Save" is still found and
 *                         pressed, and only Save;
 *   override.html?o=spoof every rectangle and hit test the page's own world
 *                         can ask for is swapped between Save and Delete: a
 *                         click asked for Save presses Save or nothing, never
 *                         Delete;
 *   closed.html           Save and Delete inside a closed shadow root: Save
 *                         is found and pressed.
 * Where a button really is comes from a world of the test's own (an isolated
 * world the page cannot reach), and what was pressed from the page's record
 * in <body data-pressed>, read there too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cascade/snapserve.h"
#include "cdp/frames.h"
#include "check.h"
#include "harness.h"
#include "hostile.h"
#include "perception/kit.h"


/* expr evaluated in the test's own isolated world of p's main frame. */
static cJSON *truth(cdp_page *p, const char *expr)
{
    int ctx = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_frame_isolated_world(p, NULL, cdp_page_target_id(p), "fovea_test_truth", 5000, &ctx,
                                 err)) {
        fprintf(stderr, "truth: %s\n", err);
        return NULL;
    }
    cJSON *v = NULL;
    if (cdp_page_evaluate_in(p, NULL, ctx, expr, &v, 5000, err)) {
        fprintf(stderr, "truth: %s\n", err);
        return NULL;
    }
    return v;
}

/* The real viewport rectangle of #id. */
static base_rect rect_of(cdp_page *p, const char *id)
{
    char expr[256];
    snprintf(expr, sizeof expr,
             "(() => { const r = document.getElementById('%s').getBoundingClientRect();"
             " return [r.left, r.top, r.right, r.bottom]; })()",
             id);
    base_rect r = {NAN, NAN, NAN, NAN};
    cJSON *v = truth(p, expr);
    if (cJSON_GetArraySize(v) == 4)
        r = (base_rect){(float)cJSON_GetArrayItem(v, 0)->valuedouble,
                        (float)cJSON_GetArrayItem(v, 1)->valuedouble,
                        (float)cJSON_GetArrayItem(v, 2)->valuedouble,
                        (float)cJSON_GetArrayItem(v, 3)->valuedouble};
    cJSON_Delete(v);
    return r;
}

/* What the page recorded as pressed ("save;", "delete;", ...), into buf. */
static void pressed(cdp_page *p, char *buf, size_t n)
{
    cJSON *v = truth(p, "document.body.getAttribute('data-pressed') || ''");
    snprintf(buf, n, "%s", cJSON_IsString(v) ? v->valuestring : "?");
    cJSON_Delete(v);
}

/* One `fovea snap` request with a click on p: box, label "Save". */
static cJSON *snap_click(cdp_page *p, base_rect box)
{
    harness *h = harness_get();
    cascade_snapserve_opts o;
    cascade_snapserve_opts_init(&o);
    o.co.humanize = 0;
    cascade_snapserve *sv = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    /* As `fovea snap` does (tools/browser_opts.c): the kit's recorder and its
     * bridge into fovea's world. */
    if (perc_kit_install(p, err)) {
        fprintf(stderr, "kit: %s\n", err);
        return NULL;
    }
    if (cascade_snapserve_create(h->browser, p, &o, &sv, err)) {
        fprintf(stderr, "snapserve: %s\n", err);
        return NULL;
    }
    char req[256];
    snprintf(req, sizeof req, "{\"box\":[%g,%g,%g,%g],\"label\":\"Save\",\"click\":true}",
             (double)box.x0, (double)box.y0, (double)box.x1, (double)box.y1);
    int blank = 0;
    cJSON *a = cascade_snapserve_answer_line(sv, req, strlen(req), &blank, NULL);
    cascade_snapserve_destroy(sv);
    return a;
}

static int clicked(const cJSON *a)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(a, "click"), "success"));
}

/* Each override: the plain "Save" click still lands on Save. */
static void overrides_click(void)
{
    HARNESS_OR_SKIP(h);
    int failed = 0;
    for (size_t i = 0; i < HOSTILE_N_OVERRIDES; i++) {
        char path[160];
        snprintf(path, sizeof path, "/hostile/override.html?o=%s", hostile_overrides[i]);
        cdp_page *p = harness_open(1280, 800, 1, path);
        CHECK(p != NULL);
        if (!p)
            return;
        base_rect s = rect_of(p, "save");
        if (!(base_rect_w(s) > 20))
            fprintf(stderr, "  %s: no Save button\n", hostile_overrides[i]);
        cJSON *a = snap_click(p, harness_grow(s, 6));
        char got[64];
        pressed(p, got, sizeof got);
        char *txt = a ? cJSON_PrintUnformatted(a) : NULL;
        int ok = a && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")) && clicked(a) &&
                 strcmp(got, "save;") == 0;
        if (!ok)
            fprintf(stderr, "  %s: pressed '%s'; answer %.400s\n", hostile_overrides[i], got,
                    txt ? txt : "(none)");
        failed += !ok;
        cJSON_free(txt);
        cJSON_Delete(a);
        cdp_page_close(p);
    }
    CHECK_MSG(failed == 0, "%d of %zu overrides blinded or steered the click", failed,
              HOSTILE_N_OVERRIDES);
}

/* Swapped rectangles: a click asked for Save presses Save or refuses; it
 * never presses Delete, and never says Save when it pressed anything else. */
static void spoofed_rects(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1280, 800, 1, "/hostile/override.html?o=spoof");
    CHECK(p != NULL);
    if (!p)
        return;
    base_rect s = rect_of(p, "save"), d = rect_of(p, "delete");
    CHECK(base_rect_w(s) > 20 && base_rect_w(d) > 20);
    /* A loose box over both buttons, as a screenshot-reading model gives. */
    base_rect box = {fminf(s.x0, d.x0) - 8, fminf(s.y0, d.y0) - 8, fmaxf(s.x1, d.x1) + 8,
                     fmaxf(s.y1, d.y1) + 8};
    cJSON *a = snap_click(p, box);
    CHECK(a != NULL);
    char got[64];
    pressed(p, got, sizeof got);
    char *txt = a ? cJSON_PrintUnformatted(a) : NULL;
    CHECK_MSG(strstr(got, "delete") == NULL, "Delete was pressed ('%s'): %.400s", got,
              txt ? txt : "");
    if (clicked(a))
        CHECK_MSG(strcmp(got, "save;") == 0, "reported a click, pressed '%s'", got);
    else
        CHECK_MSG(got[0] == '\0', "reported no click, pressed '%s'", got);
    /* Save is where the browser draws it: found there, by its name. */
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(a, "element");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(el, "text")), "Save");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(a, "point");
    double x = cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 0));
    double y = cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 1));
    CHECK_MSG(x >= s.x0 && x <= s.x1 && y >= s.y0 && y <= s.y1, "point %.1f,%.1f not on Save", x,
              y);
    cJSON_free(txt);
    cJSON_Delete(a);
    cdp_page_close(p);
}

/* Buttons in a closed shadow root: found through CDP (DOM.getDocument with
 * pierce) and pressed, Save and only Save. The box is the component's, as a
 * screenshot shows it; Save is its left half. */
static void closed_shadow(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1280, 800, 1, "/hostile/closed.html");
    CHECK(p != NULL);
    if (!p)
        return;
    base_rect host = {NAN, NAN, NAN, NAN};
    cJSON *v = truth(p, "(() => { const r = document.querySelector('note-actions')"
                        ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()");
    if (cJSON_GetArraySize(v) == 4)
        host = (base_rect){(float)cJSON_GetArrayItem(v, 0)->valuedouble,
                           (float)cJSON_GetArrayItem(v, 1)->valuedouble,
                           (float)cJSON_GetArrayItem(v, 2)->valuedouble,
                           (float)cJSON_GetArrayItem(v, 3)->valuedouble};
    cJSON_Delete(v);
    CHECK(base_rect_w(host) > 100);
    /* The buttons sit at the host's left: a box over the first 90 px. */
    base_rect box = {host.x0 - 4, host.y0 - 4, host.x0 + 90, host.y1 + 4};
    cJSON *a = snap_click(p, box);
    char got[64];
    pressed(p, got, sizeof got);
    char *txt = a ? cJSON_PrintUnformatted(a) : NULL;
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(a, "element");
    CHECK_MSG(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")) && clicked(a),
              "not found or not clicked: %.1500s", txt ? txt : "(none)");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(el, "tag")), "button");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(el, "text")), "Save");
    CHECK_MSG(strcmp(got, "save;") == 0, "pressed '%s'", got);
    cJSON_free(txt);
    cJSON_Delete(a);
    cdp_page_close(p);
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"overrides_click", overrides_click},
        {"spoofed_rects", spoofed_rects},
        {"closed_shadow", closed_shadow},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
