/* tests/perception/test_procedural.c: the procedural click target
 * (perception/procedural.h) on real Chromium.
 *
 * The epoch comes from the real prefetcher with the `dom` provider on
 * tests/fixtures/pages/procedural/page.html (a toolbar, a link, a field, a
 * scrolling list box, a shadow-root button, a same-origin and a
 * cross-origin iframe, a same-origin iframe inside a shadow root). Every expectation is checked against something the
 * function under test does not produce: the snapper's live probe of the same
 * box (perc_snap_box, verified), the element's own getBoundingClientRect, and
 * a real trusted click counted by the page. The fallback cases change the
 * page between the vision pass and the call (move, cover, remove, replace,
 * hide) and must be reported as such, never as a hit.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "check.h"
#include "harness.h"
#include "perception/procedural.h"

typedef struct fx {
    cdp_page *p;
    perc_vision *v;
    perc_prefetch *pf;
    perc_epoch *ep;
} fx;

static void fx_close(fx *f)
{
    perc_epoch_release(f->ep);
    perc_prefetch_destroy(f->pf);
    perc_vision_destroy(f->v);
    if (f->p)
        cdp_page_close(f->p);
    memset(f, 0, sizeof *f);
}

/* Evaluates expr in p's top document; returns its value (caller frees). */
static cJSON *js(cdp_page *p, const char *expr)
{
    cJSON *v = NULL;
    char err[256] = "";
    if (cdp_page_evaluate(p, expr, &v, 10000, err)) {
        fprintf(stderr, "js: %s: %s\n", expr, err);
        return NULL;
    }
    return v;
}

static int js_true(cdp_page *p, const char *expr)
{
    cJSON *v = js(p, expr);
    int ok = cJSON_IsTrue(v);
    cJSON_Delete(v);
    return ok;
}

/* A fresh vision pass of the page as it is now (the previous epoch released). */
static int fx_pass(fx *f)
{
    perc_epoch_release(f->ep);
    uint64_t t = perc_prefetch_schedule(f->pf, NULL);
    f->ep = perc_prefetch_wait(f->pf, t, 15000);
    return f->ep != NULL;
}

/* Opens page.html with the remote iframe on origin B (another site: its
 * own process), waits for both frames, and takes the first epoch. */
static int fx_open_at(fx *f, const char *remote)
{
    memset(f, 0, sizeof *f);
    f->p = harness_open(1000, 700, 1, "/procedural/page.html");
    if (!f->p)
        return 0;
    char expr[512];
    snprintf(expr, sizeof expr, "document.getElementById('remote').src = '%s'", remote);
    cJSON_Delete(js(f->p, expr));
    int ready = 0;
    for (double t0 = base_monotime_ms(); !ready && base_monotime_ms() - t0 < 10000;
         base_sleep_ms(50)) {
        cdp_frame fr[8];
        int n = cdp_page_frames(f->p, fr, 8);
        int xo = 0;
        for (int i = 0; i < n && i < 8; i++)
            xo |= strcmp(fr[i].url, remote) == 0;
        ready = xo && js_true(f->p, "document.getElementById('same').contentDocument"
                                    ".readyState === 'complete'");
    }
    if (!ready) {
        fprintf(stderr, "fx_open: the iframes did not load\n");
        return 0;
    }
    char err[256] = "";
    perc_prefetch_opts o = {0, 0};
    if (perc_vision_dom_create(&f->v, err) ||
        perc_prefetch_create(f->p, f->v, &o, &f->pf, err)) {
        fprintf(stderr, "fx_open: %s\n", err);
        return 0;
    }
    return fx_pass(f);
}

/* page.html with its remote iframe on origin B (another site: its own
 * process). */
static int fx_open(fx *f)
{
    char url[256];
    harness_url(1, "/procedural/inner.html", url, sizeof url);
    return fx_open_at(f, url);
}

/* Index of the box labelled label; oopif: 1 only the one in the
 * out-of-process frame, 0 only one outside it. -1 when none. */
static int box_of(const fx *f, const char *label, int oopif)
{
    cdp_frame fr[8];
    int n = cdp_page_frames(f->p, fr, 8);
    for (int i = 0; i < f->ep->n; i++) {
        const perc_box *b = &f->ep->boxes[i];
        if (strcmp(b->label, label) != 0 || b->dom_index < 0)
            continue;
        const char *fid = f->ep->map[b->dom_index].frame_id;
        int in_oopif = 0;
        for (int k = 0; k < n && k < 8; k++)
            in_oopif |= fid[0] && strcmp(fr[k].id, fid) == 0 && fr[k].oopif;
        if (in_oopif == oopif)
            return i;
    }
    return -1;
}

/* A trusted left click at top-viewport pt. */
static base_err click_at(cdp_page *p, base_point pt)
{
    static const char *const types[] = {"mousePressed", "mouseReleased"};
    for (int i = 0; i < 2; i++) {
        cJSON *pa = cJSON_CreateObject();
        cJSON_AddStringToObject(pa, "type", types[i]);
        cJSON_AddNumberToObject(pa, "x", pt.x);
        cJSON_AddNumberToObject(pa, "y", pt.y);
        cJSON_AddStringToObject(pa, "button", "left");
        cJSON_AddNumberToObject(pa, "clickCount", 1);
        base_err e = cdp_page_call(p, "Input.dispatchMouseEvent", pa, NULL, 5000, NULL);
        if (e)
            return e;
    }
    return BASE_OK;
}

/* ---- cases ------------------------------------------------------------------ */

/* On the unchanged page every element outside the cross-origin frame is a
 * hit, and what the hit says equals what the snapper's live probe says
 * about the same box: the same element (xpath, frame), tag, text, name and
 * rect, a point the live hit test reaches. The element in the other
 * process's frame is left to the snapper. */
static void static_page(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    fx f;
    CHECK(fx_open(&f));
    static const struct {
        const char *label, *sel;
    } want[] = {
        {"Save draft", "#save"}, {"Send", "#send"}, {"Discard", "#discard"}, {"Help", "#help"},
        {"To", "#to"}, {"Carla Reis", "#contacts li:nth-child(3)"}, {"Attach file", NULL},
        {"Insert signature", NULL}, {"Insert date", NULL},
    };
    char err[256] = "";
    int hits = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int bi = box_of(&f, want[i].label, 0);
        CHECK_MSG(bi >= 0, "no box '%s' in %d boxes", want[i].label, f.ep->n);
        const perc_box *b = &f.ep->boxes[bi];
        snap_intent in = {want[i].label, SNAP_INTENT_ANY};
        perc_snap ps, ls;
        perc_proc why;
        CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &in, &ps, &why, err));
        CHECK_MSG(why.outcome == PERC_PROC_HIT, "'%s': %s: %s", want[i].label,
                  perc_proc_name(why.outcome), why.detail);
        hits++;
        CHECK_OK(perc_snap_box(f.p, b->r, &in, 1, &ls, err));
        CHECK_MSG(ls.found, "snapper: %s", ls.res.reason);
        CHECK_EQ(ps.found, 1);
        CHECK_EQ(ps.res.phase, SNAP_PHASE_P);
        CHECK_STR(snap_phase_name(ps.res.phase), "P");
        CHECK_STR(ps.xpath, ls.xpath);
        CHECK_STR(ps.frame_id, ls.frame_id);
        CHECK_STR(ps.tag, ls.tag);
        CHECK_STR(ps.text, ls.text);
        CHECK_STR(ps.name, ls.name);
        CHECK_STR(ps.session, ls.session);
        CHECK_EQ(ps.disabled, ls.disabled);
        CHECK_EQ(ps.verdict, SNAP_VERIFY_OK);
        CHECK_NEAR(ps.frame_offset.x, ls.frame_offset.x, 0.01);
        CHECK_NEAR(ps.frame_offset.y, ls.frame_offset.y, 0.01);
        CHECK_MSG(harness_rect_near(ps.rect, ls.rect, 0.5f), "'%s' rect %.1f,%.1f,%.1f,%.1f",
                  want[i].label, (double)ps.rect.x0, (double)ps.rect.y0, (double)ps.rect.x1,
                  (double)ps.rect.y1);
        CHECK(base_rect_contains(ps.rect, ps.pt));
        CHECK(ps.probe_ms > 0 && ps.probe_ms == why.eval_ms);
        if (want[i].sel) {
            /* The element's own box, clipped to the list box for the item. */
            base_rect own = harness_rect(f.p, want[i].sel);
            CHECK(base_rect_contains(own, ps.pt));
        }
    }
    CHECK_EQ(hits, (int)(sizeof want / sizeof want[0]));
    /* The same button in the other site's frame: not checked here. */
    int xo = box_of(&f, "Insert signature", 1);
    CHECK_MSG(xo >= 0, "no box in the cross-origin frame");
    snap_intent in = {"Insert signature", SNAP_INTENT_ANY};
    perc_snap ps;
    memset(&ps, 0x5a, sizeof ps);
    perc_snap before = ps;
    perc_proc why;
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, xo, &in, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_FRAME);
    CHECK_EQ(why.eval_ms, 0);
    CHECK(memcmp(&ps, &before, sizeof ps) == 0);
    fx_close(&f);
}

/* The point a hit gives is where a trusted click lands on that element,
 * in the top document, a shadow root and a same-origin frame. */
static void click_lands(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    fx f;
    CHECK(fx_open(&f));
    static const struct {
        const char *label, *hit_expr;
    } want[] = {
        {"Send", "window.hits.at(-1) === 'send'"},
        {"Attach file", "window.hits.at(-1) === 'attach-btn'"},
        {"Carla Reis", "window.hits.at(-1) === 'Carla Reis'"},
        {"Insert signature", "document.getElementById('same').contentWindow.hits.at(-1) === "
                             "'sig'"},
        {"Insert date", "document.querySelector('date-frame').shadowRoot.querySelector('iframe')"
                        ".contentWindow.hits.at(-1) === 'date'"},
    };
    char err[256] = "";
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int bi = box_of(&f, want[i].label, 0);
        CHECK(bi >= 0);
        snap_intent in = {want[i].label, SNAP_INTENT_ANY};
        perc_snap ps;
        perc_proc why;
        CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &in, &ps, &why, err));
        CHECK_MSG(why.outcome == PERC_PROC_HIT, "%s", why.detail);
        CHECK_OK(click_at(f.p, ps.pt));
        CHECK_MSG(js_true(f.p, want[i].hit_expr), "'%s': the click at (%.1f,%.1f) missed",
                  want[i].label, (double)ps.pt.x, (double)ps.pt.y);
    }
    fx_close(&f);
}

/* Changes made after the vision pass: each is a fallback with its reason. */
static void changed_page(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    fx f;
    CHECK(fx_open(&f));
    static const struct {
        const char *label;
        const char *change;
        perc_proc_outcome want;
        const char *detail;
    } cases[] = {
        /* Moved 40 px right. */
        {"Send", "document.getElementById('send').style.marginLeft = '40px'", PERC_PROC_MOVED,
         "moved 40 px"},
        /* A modal veil over everything. */
        {"Help",
         "{const d = document.createElement('div'); d.id = 'veil'; document.body.append(d);}",
         PERC_PROC_COVERED, "covered by div#veil"},
        /* Hidden. */
        {"To", "document.getElementById('to').style.visibility = 'hidden'", PERC_PROC_HIDDEN,
         "not shown"},
        /* Scrolled out of its list box. */
        {"Ana Lima", "document.getElementById('contacts').scrollTop = 200", PERC_PROC_HIDDEN,
         "not shown"},
        /* Removed, and its xpath now names nothing. */
        {"Discard", "document.getElementById('discard').remove()", PERC_PROC_GONE,
         "names no element"},
        /* Removed, and the next button (same size) took its xpath and place. */
        {"Save draft", "document.getElementById('save').remove()", PERC_PROC_GONE,
         "xpath is now 'Send', was 'Save draft'"},
    };
    char err[256] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(fx_pass(&f));
        int bi = box_of(&f, cases[i].label, 0);
        CHECK_MSG(bi >= 0, "no box '%s'", cases[i].label);
        /* Unchanged, it is a hit; the change makes it a fallback. */
        snap_intent in = {cases[i].label, SNAP_INTENT_ANY};
        perc_snap ps;
        perc_proc why;
        CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &in, &ps, &why, err));
        CHECK_MSG(why.outcome == PERC_PROC_HIT, "'%s' before: %s", cases[i].label, why.detail);
        cJSON_Delete(js(f.p, cases[i].change));
        memset(&ps, 0, sizeof ps);
        CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &in, &ps, &why, err));
        CHECK_MSG(why.outcome == cases[i].want, "'%s': got %s (%s), want %s", cases[i].label,
                  perc_proc_name(why.outcome), why.detail, perc_proc_name(cases[i].want));
        CHECK_MSG(strstr(why.detail, cases[i].detail) != NULL, "detail '%s' lacks '%s'",
                  why.detail, cases[i].detail);
        CHECK_EQ(ps.found, 0); /* untouched */
        CHECK(why.eval_ms > 0);
        /* The moved button: the save draft case later needs Send back. */
        if (cases[i].want == PERC_PROC_MOVED)
            cJSON_Delete(js(f.p, "document.getElementById('send').style.marginLeft = ''"));
        if (cases[i].want == PERC_PROC_COVERED)
            cJSON_Delete(js(f.p, "document.getElementById('veil').remove()"));
    }
    fx_close(&f);
}

/* What is decided before the page is asked: labels that do not match, an
 * expand intent on a plain button, a model box much larger than the element
 * it maps to, a box without element, bad arguments. */
static void decided_offline(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    fx f;
    CHECK(fx_open(&f));
    char err[256] = "";
    int bi = box_of(&f, "Send", 0);
    CHECK(bi >= 0);
    perc_snap ps;
    perc_proc why;
    snap_intent other = {"Archive", SNAP_INTENT_ANY};
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &other, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_MISMATCH);
    CHECK(strstr(why.detail, "'Archive'") != NULL);
    snap_intent open = {"Send", SNAP_INTENT_EXPAND};
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &open, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_MISMATCH);
    CHECK_EQ(why.eval_ms, 0);
    /* No intent at all (an index-only target): a hit. */
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, NULL, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_HIT);
    CHECK_EQ(ps.res.match, SNAP_MATCH_NONE);
    snap_intent part = {"send", SNAP_INTENT_SELECT};
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &part, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_HIT);
    CHECK_EQ(ps.res.match, SNAP_MATCH_EXACT);

    /* A model's box around the whole toolbar, mapped to one button. */
    perc_epoch fake = *f.ep;
    perc_box wide = f.ep->boxes[bi];
    wide.r = (base_rect){10, 10, 600, 56};
    fake.boxes = &wide;
    fake.n = 1;
    CHECK_OK(perc_snap_from_epoch(f.p, &fake, 0, NULL, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_UNMAPPED);
    CHECK(strstr(why.detail, "IoU") != NULL);
    /* A model's box a little larger than the button: the same element. */
    wide.r = harness_grow(f.ep->map[wide.dom_index].r, 3);
    CHECK_OK(perc_snap_from_epoch(f.p, &fake, 0, NULL, &ps, &why, err));
    CHECK_MSG(why.outcome == PERC_PROC_HIT, "%s", why.detail);
    CHECK_STR(ps.text, "Send");
    wide.dom_index = -1;
    CHECK_OK(perc_snap_from_epoch(f.p, &fake, 0, NULL, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_UNMAPPED);
    wide.dom_index = f.ep->n_map;
    CHECK_OK(perc_snap_from_epoch(f.p, &fake, 0, NULL, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_UNMAPPED);

    CHECK_EQ(perc_snap_from_epoch(f.p, f.ep, f.ep->n, NULL, &ps, &why, err), BASE_EINVAL);
    CHECK(strstr(err, "out of range") != NULL);
    CHECK_EQ(perc_snap_from_epoch(f.p, f.ep, -1, NULL, &ps, &why, err), BASE_EINVAL);
    CHECK_EQ(perc_snap_from_epoch(NULL, f.ep, 0, NULL, &ps, &why, err), BASE_EINVAL);
    CHECK_EQ(perc_snap_from_epoch(f.p, NULL, 0, NULL, &ps, &why, err), BASE_EINVAL);
    CHECK_EQ(perc_snap_from_epoch(f.p, f.ep, 0, NULL, NULL, &why, err), BASE_EINVAL);
    CHECK_EQ(perc_snap_from_epoch(f.p, f.ep, 0, NULL, &ps, NULL, err), BASE_EINVAL);
    fx_close(&f);
}

/* A new document (navigation) has no compiled copy of the script: the first
 * call installs it and still answers; a reload keeps the answers. */
static void new_document(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    fx f;
    CHECK(fx_open(&f));
    char err[256] = "";
    int bi = box_of(&f, "Send", 0);
    CHECK(bi >= 0);
    perc_snap ps;
    perc_proc why;
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, NULL, &ps, &why, err));
    CHECK_EQ(why.outcome, PERC_PROC_HIT);
    char url[256];
    harness_url(0, "/procedural/page.html", url, sizeof url);
    CHECK_OK(cdp_page_navigate(f.p, url, 15000, err));
    /* The script is kept in fovea's isolated world (issue 23), never in the
     * page's own. */
    static const char kept[] = "Object.getOwnPropertySymbols(globalThis).some((s) => "
                               "String(s).includes('fovea.snap_epoch'))";
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate_in(f.p, NULL, CDP_CTX_FOVEA, kept, &v, 5000, err));
    CHECK(!cJSON_IsTrue(v));
    cJSON_Delete(v);
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, NULL, &ps, &why, err));
    CHECK_MSG(why.outcome == PERC_PROC_HIT, "%s", why.detail);
    v = NULL;
    CHECK_OK(cdp_page_evaluate_in(f.p, NULL, CDP_CTX_FOVEA, kept, &v, 5000, err));
    CHECK(cJSON_IsTrue(v));
    cJSON_Delete(v);
    CHECK(!js_true(f.p, kept));
    fx_close(&f);
}

/* A cross-origin frame of the same site (127.0.0.1 on origin B's port):
 * same renderer, but closed to the top document's script. Left to the
 * snapper, which reaches it (isolated world). */
static void same_site_frame(void)
{
    HARNESS_OR_SKIP(h);
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/procedural/inner.html",
             serve_httpd_port(h->srv_b));
    fx f;
    CHECK(fx_open_at(&f, url));
    cdp_frame fr[8];
    int n = cdp_page_frames(f.p, fr, 8);
    const char *fid = NULL;
    for (int i = 0; i < n && i < 8; i++) {
        if (strcmp(fr[i].url, url) == 0) {
            CHECK_EQ(fr[i].oopif, 0);
            fid = fr[i].id;
        }
    }
    CHECK(fid != NULL);
    int bi = -1;
    for (int i = 0; i < f.ep->n && bi < 0; i++) {
        const perc_box *b = &f.ep->boxes[i];
        if (strcmp(b->label, "Insert signature") == 0 && b->dom_index >= 0 &&
            strcmp(f.ep->map[b->dom_index].frame_id, fid) == 0)
            bi = i;
    }
    CHECK_MSG(bi >= 0, "no box in the same-site frame");
    snap_intent in = {"Insert signature", SNAP_INTENT_ANY};
    perc_snap ps, ls;
    perc_proc why;
    char err[256] = "";
    CHECK_OK(perc_snap_from_epoch(f.p, f.ep, bi, &in, &ps, &why, err));
    CHECK_MSG(why.outcome == PERC_PROC_FRAME, "%s: %s", perc_proc_name(why.outcome), why.detail);
    CHECK(why.eval_ms > 0);
    CHECK_OK(perc_snap_box(f.p, f.ep->boxes[bi].r, &in, 1, &ls, err));
    CHECK_MSG(ls.found, "snapper: %s", ls.res.reason);
    CHECK_STR(ls.text, "Insert signature");
    CHECK_STR(ls.frame_id, fid);
    fx_close(&f);
}

static const check_case cases[] = {
    {"same_site_frame", same_site_frame},
    {"static_page", static_page},
    {"click_lands", click_lands},
    {"changed_page", changed_page},
    {"decided_offline", decided_offline},
    {"new_document", new_document},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
