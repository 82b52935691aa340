/* tests/cdp/test_frames.c: cdp/frames.h (frame lookup, top URL, owner
 * boxes, viewport origins, isolated worlds) on a real headless Chromium.
 *
 * The fixture (tests/fixtures/pages/cdp/frames.html) holds a same-origin
 * iframe, a same-site iframe on origin B's port (cross-origin, in-process)
 * and a cross-site one (its own process and session) that holds one more
 * iframe. Expected boxes and origins are measured by the pages' own layout
 * (getBoundingClientRect + border + padding), independently of the
 * DOM.getBoxModel path the code under test takes; origins are then proven by
 * a trusted click at origin + the button's centre, which must land on the
 * button of the right document. */
#include <math.h>
#include <string.h>

#include "base/clock.h"
#include "cdp/browser.h"
#include "cdp/frames.h"
#include "check.h"
#include "harness.h"

#define T_MS 5000

typedef struct fixture {
    cdp_page *p;
    cdp_frame same, port, cross, nested;
} fixture;

static int find_named(const cdp_frame *fr, int n, const char *name, cdp_frame *out)
{
    char key[32];
    snprintf(key, sizeof key, "name=%s", name);
    for (int i = 0; i < n; i++) {
        if (strstr(fr[i].url, key)) {
            *out = fr[i];
            return 1;
        }
    }
    return 0;
}

/* Opens the fixture and waits until the frame table names all four child
 * frames (the cross-site one attaches asynchronously). */
static int open_fixture(fixture *f)
{
    harness *h = harness_get();
    char port_origin[64], path[256];
    /* Origin B's port on A's host: same site as the top page, another origin. */
    const char *colon = strrchr(h->origin_b, ':');
    snprintf(port_origin, sizeof port_origin, "http://127.0.0.1%s", colon ? colon : "");
    snprintf(path, sizeof path, "/cdp/frames.html?p=%s&b=%s", port_origin, h->origin_b);
    memset(f, 0, sizeof *f);
    f->p = harness_open(1024, 700, 1, path);
    if (!f->p)
        return 0;
    for (int i = 0; i < 400; i++) {
        cdp_frame fr[16];
        int n = cdp_page_frames(f->p, fr, 16);
        n = n > 16 ? 16 : n;
        if (find_named(fr, n, "same", &f->same) && find_named(fr, n, "port", &f->port) &&
            find_named(fr, n, "cross", &f->cross) && find_named(fr, n, "nested", &f->nested))
            return 1;
        base_sleep_ms(25);
    }
    return 0;
}

/* Evaluates expr in session / context and returns the value (caller frees). */
static cJSON *js(cdp_page *p, const char *session, int ctx, const char *expr)
{
    cJSON *v = NULL;
    char err[256] = "";
    if (cdp_page_evaluate_in(p, session, ctx, expr, &v, T_MS, err))
        fprintf(stderr, "evaluate failed: %s\n", err);
    return v;
}

/* Content box of the iframe matching sel, measured by the layout of the
 * document on session. */
static base_rect measured(cdp_page *p, const char *session, const char *sel)
{
    char e[512];
    snprintf(e, sizeof e,
             "(() => { const f = document.querySelector('%s'), r = f.getBoundingClientRect(),"
             " s = getComputedStyle(f), bl = parseFloat(s.borderLeftWidth) +"
             " parseFloat(s.paddingLeft), bt = parseFloat(s.borderTopWidth) +"
             " parseFloat(s.paddingTop); return [r.left + bl, r.top + bt, r.left + bl +"
             " f.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight),"
             " r.top + bt + f.clientHeight - parseFloat(s.paddingTop) -"
             " parseFloat(s.paddingBottom)]; })()",
             sel);
    cJSON *v = js(p, session, 0, e);
    base_rect r = {NAN, NAN, NAN, NAN};
    if (cJSON_GetArraySize(v) == 4) {
        r.x0 = (float)cJSON_GetArrayItem(v, 0)->valuedouble;
        r.y0 = (float)cJSON_GetArrayItem(v, 1)->valuedouble;
        r.x1 = (float)cJSON_GetArrayItem(v, 2)->valuedouble;
        r.y1 = (float)cJSON_GetArrayItem(v, 3)->valuedouble;
    }
    cJSON_Delete(v);
    return r;
}

/* Lookup by id, the main frame by NULL / "" / its id, the top URL. */
static void lookup_and_top_url(void)
{
    HARNESS_OR_SKIP(h);
    fixture f;
    CHECK(open_fixture(&f));
    cdp_frame m;
    CHECK(cdp_frame_find(f.p, NULL, &m));
    CHECK_STR(m.parent_id, "");
    CHECK_STR(m.id, cdp_page_target_id(f.p));
    cdp_frame m2;
    CHECK(cdp_frame_find(f.p, "", &m2));
    CHECK_STR(m2.id, m.id);
    cdp_frame c;
    CHECK(cdp_frame_find(f.p, f.cross.id, &c));
    CHECK(c.oopif);
    CHECK(strstr(c.url, "localhost") != NULL);
    CHECK(!cdp_frame_find(f.p, "no-such-frame", &c));
    /* The nested frame is a child of the cross-site one, in its process. */
    CHECK_STR(f.nested.parent_id, f.cross.id);
    CHECK(!f.port.oopif);
    char url[512];
    cdp_page_top_url(f.p, url, sizeof url);
    CHECK(strstr(url, "/cdp/frames.html?p=") != NULL);
    CHECK(strncmp(url, h->origin_a, strlen(h->origin_a)) == 0);
    char tiny[8];
    cdp_page_top_url(f.p, tiny, sizeof tiny);
    CHECK_EQ(strlen(tiny), 7); /* truncated, still terminated */
    cdp_page_close(f.p);
}

/* Owner boxes match the layout's content boxes, in every kind of parent. */
static void owner_boxes(void)
{
    HARNESS_OR_SKIP(h);
    fixture f;
    CHECK(open_fixture(&f));
    const char *top = cdp_page_session(f.p);
    struct {
        const cdp_frame *fr;
        const char *session, *sel;
    } cases[] = {{&f.same, top, "#same"},
                 {&f.port, top, "#port"},
                 {&f.cross, top, "#cross"},
                 {&f.nested, f.cross.session, "#nested"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        base_rect want = measured(f.p, cases[i].session, cases[i].sel);
        base_rect got;
        char err[256] = "";
        CHECK_OK(cdp_frame_owner_box(f.p, cases[i].session, cases[i].fr->id, T_MS, &got, err));
        CHECK_MSG(harness_rect_near(got, want, 0.5f), "%s: %.1f,%.1f,%.1f,%.1f vs %.1f,%.1f,%.1f,%.1f",
                  cases[i].sel, (double)got.x0, (double)got.y0, (double)got.x1, (double)got.y1,
                  (double)want.x0, (double)want.y0, (double)want.x1, (double)want.y1);
        int node = 0;
        CHECK_OK(cdp_frame_owner_node(f.p, cases[i].session, cases[i].fr->id, T_MS, &node, err));
        CHECK(node > 0);
    }
    /* The wrong document: the nested frame's owner is not in the top one. */
    base_rect r = {1, 2, 3, 4};
    char err[256] = "";
    CHECK(cdp_frame_owner_box(f.p, top, f.nested.id, T_MS, &r, err) != BASE_OK);
    CHECK(err[0] != '\0');
    CHECK_EQ(r.x0, 1); /* untouched on failure */
    CHECK_EQ(cdp_frame_owner_box(f.p, top, "", T_MS, &r, err), BASE_EINVAL);
    cdp_page_close(f.p);
}

/* A trusted press and release at p on the top session. */
static base_err click_at(cdp_page *p, base_point pt)
{
    const char *types[] = {"mousePressed", "mouseReleased"};
    for (int i = 0; i < 2; i++) {
        cJSON *pa = cJSON_CreateObject();
        if (!pa || !cJSON_AddStringToObject(pa, "type", types[i]) ||
            !cJSON_AddNumberToObject(pa, "x", pt.x) || !cJSON_AddNumberToObject(pa, "y", pt.y) ||
            !cJSON_AddStringToObject(pa, "button", "left") ||
            !cJSON_AddNumberToObject(pa, "clickCount", 1)) {
            cJSON_Delete(pa);
            return BASE_ENOMEM;
        }
        base_err e = cdp_page_call(p, "Input.dispatchMouseEvent", pa, NULL, T_MS, NULL);
        if (e)
            return e;
    }
    return BASE_OK;
}

/* Frame origins compose through same- and cross-process levels: each equals
 * the measured content boxes summed up the tree, and a click at origin + the
 * button's centre lands on that frame's button. */
static void origins(void)
{
    HARNESS_OR_SKIP(h);
    fixture f;
    CHECK(open_fixture(&f));
    const char *top = cdp_page_session(f.p);
    base_point o;
    char err[256] = "";
    CHECK_OK(cdp_frame_origin(f.p, NULL, T_MS, &o, err));
    CHECK_EQ(o.x, 0);
    CHECK_EQ(o.y, 0);
    base_rect same = measured(f.p, top, "#same");
    base_rect port = measured(f.p, top, "#port");
    base_rect cross = measured(f.p, top, "#cross");
    base_rect nested = measured(f.p, f.cross.session, "#nested");
    CHECK(same.y0 == same.y0); /* not NaN: the page answered */
    CHECK(nested.y0 == nested.y0);
    struct {
        const cdp_frame *fr;
        base_point want;
    } cases[] = {{&f.same, {same.x0, same.y0}},
                 {&f.port, {port.x0, port.y0}},
                 {&f.cross, {cross.x0, cross.y0}},
                 {&f.nested, {cross.x0 + nested.x0, cross.y0 + nested.y0}}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_OK(cdp_frame_origin(f.p, cases[i].fr->id, T_MS, &o, err));
        CHECK_NEAR(o.x, cases[i].want.x, 0.5);
        CHECK_NEAR(o.y, cases[i].want.y, 0.5);
        /* The button sits at (40, 30) 120x40 in every frame's viewport. */
        CHECK_OK(click_at(f.p, (base_point){o.x + 100, o.y + 50}));
    }
    /* The session of the cross-site frame has that frame's origin. */
    base_point so;
    CHECK_OK(cdp_session_origin(f.p, f.cross.session, T_MS, &so, err));
    CHECK_NEAR(so.x, cross.x0, 0.5);
    CHECK_NEAR(so.y, cross.y0, 0.5);
    CHECK_OK(cdp_session_origin(f.p, top, T_MS, &so, err));
    CHECK_EQ(so.x, 0);
    /* Each click landed in its own frame, exactly once. */
    cJSON *v = js(f.p, NULL, 0,
                  "document.getElementById('same').contentDocument.body.dataset.clicks");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "1") == 0);
    cJSON_Delete(v);
    v = js(f.p, f.cross.session, 0, "document.body.dataset.clicks + '/' + "
                                    "document.getElementById('nested').contentDocument.body"
                                    ".dataset.clicks");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "1/1") == 0);
    cJSON_Delete(v);
    int ctx = 0;
    CHECK_OK(cdp_frame_isolated_world(f.p, top, f.port.id, "fovea_test", T_MS, &ctx, err));
    v = js(f.p, top, ctx, "document.body.dataset.clicks");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "1") == 0);
    cJSON_Delete(v);
    /* Bad input: an unknown frame and an unknown session are named. */
    o = (base_point){7, 7};
    CHECK_EQ(cdp_frame_origin(f.p, "no-such-frame", T_MS, &o, err), BASE_ENOTFOUND);
    CHECK(strstr(err, "no-such-frame") != NULL);
    CHECK_EQ(o.x, 7);
    CHECK_EQ(cdp_session_origin(f.p, "no-such-session", T_MS, &so, err), BASE_ENOTFOUND);
    cdp_page_close(f.p);
}

/* An isolated world runs in the frame it names (even one the top page's
 * scripts cannot enter), keeps its globals from the page's, and the same
 * name reaches the same world again. */
static void isolated_worlds(void)
{
    HARNESS_OR_SKIP(h);
    fixture f;
    CHECK(open_fixture(&f));
    const char *top = cdp_page_session(f.p);
    char err[256] = "";
    /* The page script cannot reach into the port frame: it is cross-origin. */
    cJSON *v = js(f.p, NULL, 0,
                  "(() => { try { return document.getElementById('port').contentDocument"
                  " === null ? 'closed' : 'open'; } catch (e) { return 'closed'; } })()");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "closed") == 0);
    cJSON_Delete(v);
    int ctx = 0;
    CHECK_OK(cdp_frame_isolated_world(f.p, top, f.port.id, "fovea_test", T_MS, &ctx, err));
    CHECK(ctx > 0);
    v = js(f.p, top, ctx, "document.title + '|' + typeof window.clicks");
    /* The frame's document, and not the page's globals (window.clicks is the
     * main world's). */
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "port|undefined") == 0);
    cJSON_Delete(v);
    v = js(f.p, top, ctx, "window.__mark = 42; 1");
    cJSON_Delete(v);
    int ctx2 = 0;
    CHECK_OK(cdp_frame_isolated_world(f.p, top, f.port.id, "fovea_test", T_MS, &ctx2, err));
    v = js(f.p, top, ctx2, "document.title + '|' + window.__mark");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "port|42") == 0);
    cJSON_Delete(v);
    /* In the cross-site frame's own session too. */
    CHECK_OK(cdp_frame_isolated_world(f.p, f.cross.session, f.cross.id, "fovea_test", T_MS, &ctx,
                                      err));
    v = js(f.p, f.cross.session, ctx, "document.title");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "cross") == 0);
    cJSON_Delete(v);
    /* Bad input gets a clear error and leaves the out-param alone. */
    ctx = -5;
    CHECK_EQ(cdp_frame_isolated_world(f.p, top, "", "fovea_test", T_MS, &ctx, err), BASE_EINVAL);
    CHECK_EQ(cdp_frame_isolated_world(f.p, top, f.port.id, "", T_MS, &ctx, err), BASE_EINVAL);
    CHECK(cdp_frame_isolated_world(f.p, top, "no-such-frame", "w", T_MS, &ctx, err) != BASE_OK);
    CHECK(err[0] != '\0');
    CHECK_EQ(ctx, -5);
    cdp_page_close(f.p);
}

static const check_case cases[] = {{"lookup_and_top_url", lookup_and_top_url},
                                   {"owner_boxes", owner_boxes},
                                   {"origins", origins},
                                   {"isolated_worlds", isolated_worlds},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
