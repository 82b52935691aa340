/* tests/perception/test_probe.c: the live probe and snap on real Chromium.
 *
 * Every expectation is measured independently in the page (the element's own
 * getBoundingClientRect, elementFromPoint, a real trusted click) rather than
 * taken from the probe under test. Fixture pages: tests/fixtures/pages/probe.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "check.h"
#include "harness.h"
#include "perception/probe.h"
#include "perception/probe_int.h"

/* Evaluates expr on session (NULL: the page's) and returns the value. */
static cJSON *js(cdp_page *p, const char *session, const char *expr)
{
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "expression", expr);
    cJSON_AddBoolToObject(pa, "returnByValue", 1);
    cJSON *res = NULL;
    char err[256] = "";
    if (cdp_call(cdp_page_conn(p), session ? session : cdp_page_session(p), "Runtime.evaluate", pa,
                 &res, 10000, err)) {
        fprintf(stderr, "js: %s\n", err);
        return NULL;
    }
    cJSON *r = cJSON_GetObjectItem(res, "result");
    cJSON *v = r ? cJSON_DetachItemFromObject(r, "value") : NULL;
    cJSON_Delete(res);
    return v;
}

static double js_num(cdp_page *p, const char *session, const char *expr)
{
    cJSON *v = js(p, session, expr);
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    cJSON_Delete(v);
    return d;
}

/* Returns 1 when expr evaluates to a string equal to want. */
static int js_str_is(cdp_page *p, const char *session, const char *expr, const char *want)
{
    cJSON *v = js(p, session, expr);
    int ok = cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
    if (!ok)
        fprintf(stderr, "js_str_is: %s gave %s, want %s\n", expr,
                cJSON_IsString(v) ? v->valuestring : "(not a string)", want);
    cJSON_Delete(v);
    return ok;
}

/* getBoundingClientRect of the element `sel` in the top document. */
static int find(const perc_probe *pp, const char *xpath, const char *chain)
{
    for (int i = 0; i < pp->n; i++) {
        if (strcmp(pp->cands[i].xpath, xpath) == 0 && strcmp(pp->cands[i].frame_chain, chain) == 0)
            return i;
    }
    return -1;
}

/* A trusted left click at top-viewport pt through the page session. */
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

/* Prints a probe when PROBE_DUMP is set (debugging aid). */
static void dump(const perc_probe *pp)
{
    if (!getenv("PROBE_DUMP"))
        return;
    for (int k = 0; k < pp->probe.n_points; k++) {
        fprintf(stderr, "pt %d (%.1f,%.1f) cand %d:", k, (double)pp->probe.pt[k].x,
                (double)pp->probe.pt[k].y, pp->probe.for_cand[k]);
        for (int d = 0; d < pp->probe.n[k]; d++)
            fprintf(stderr, " %d", pp->probe.stack[k][d]);
        fprintf(stderr, "\n");
    }
    for (int i = 0; i < pp->n; i++) {
        const snap_candidate *c = &pp->cands[i];
        fprintf(stderr, "%d: %s %s|%s '%s' [%.1f %.1f %.1f %.1f] int=%d ifr=%d paint=%d par=%d\n",
                i, c->tag, c->frame_chain, c->xpath, c->text, (double)c->rect.x0,
                (double)c->rect.y0, (double)c->rect.x1, (double)c->rect.y1, c->is_interactive,
                c->is_iframe, c->paint_order, c->parent);
    }
}

/* ---- cases ------------------------------------------------------------------ */

/* The script hit-tests exactly snap_probe_points, and the front of each
 * lattice stack is what elementFromPoint says; candidate points are visible
 * centres of interactive elements inside the box, smallest first. */
static void lattice_points(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/compound.html");
    CHECK(p != NULL);
    base_rect box = {33.3f, 27.7f, 331.1f, 88.9f};
    perc_probe pp;
    char err[256] = "";
    base_err e = perc_probe_box(p, NULL, box, &pp, err);
    CHECK_MSG(e == BASE_OK, "probe: %s", err);
    base_point lat[SNAP_PROBE_NGRID];
    snap_probe_points(box, lat);
    CHECK(pp.probe.n_points > SNAP_PROBE_NGRID);
    for (int k = 0; k < SNAP_PROBE_NGRID; k++) {
        CHECK(pp.probe.pt[k].x == lat[k].x && pp.probe.pt[k].y == lat[k].y);
        CHECK_EQ(pp.probe.for_cand[k], -1);
        CHECK(pp.probe.n[k] > 0);
        char ex[256];
        snprintf(ex, sizeof ex,
                 "(() => { const r = document.elementFromPoint(%.9g, %.9g)"
                 ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()",
                 (double)lat[k].x, (double)lat[k].y);
        cJSON *v = js(p, NULL, ex);
        CHECK(cJSON_GetArraySize(v) == 4);
        base_rect want = {(float)cJSON_GetArrayItem(v, 0)->valuedouble,
                          (float)cJSON_GetArrayItem(v, 1)->valuedouble,
                          (float)cJSON_GetArrayItem(v, 2)->valuedouble,
                          (float)cJSON_GetArrayItem(v, 3)->valuedouble};
        cJSON_Delete(v);
        CHECK(harness_rect_near(pp.cands[pp.probe.stack[k][0]].rect, want, 0.01f));
    }
    /* Candidate points: the chevron (narrower than the lattice spacing) and
     * the chip of row 1, smallest overlap first, at their visible centres. */
    float prev = 0.0f;
    int saw_chev = 0;
    for (int k = SNAP_PROBE_NGRID; k < pp.probe.n_points; k++) {
        int c = pp.probe.for_cand[k];
        CHECK(c >= 0 && c < pp.n);
        CHECK(pp.cands[c].is_interactive);
        base_point vc = snap_visible_center(pp.cands[c].rect, box);
        CHECK_NEAR(pp.probe.pt[k].x, vc.x, 0.01);
        CHECK_NEAR(pp.probe.pt[k].y, vc.y, 0.01);
        float a = base_rect_area(base_rect_intersect(pp.cands[c].rect, box));
        CHECK(a >= prev);
        prev = a;
        if (strcmp(pp.cands[c].xpath, "/html[1]/body[1]/div[1]/button[1]") == 0) {
            saw_chev = 1;
            CHECK_EQ(pp.probe.stack[k][0], c);
        }
    }
    CHECK(saw_chev);
    /* Parents precede children, and paint order falls along every stack. */
    for (int i = 0; i < pp.n; i++)
        CHECK(pp.cands[i].parent < i);
    for (int k = 0; k < pp.probe.n_points; k++) {
        for (int d = 1; d < pp.probe.n[k]; d++)
            CHECK(pp.cands[pp.probe.stack[k][d - 1]].paint_order >
                  pp.cands[pp.probe.stack[k][d]].paint_order);
    }
    CHECK(pp.eval_ms > 0.0);
    perc_probe_fini(&pp);
    cdp_page_close(p);
}

/* Candidate fields on a compound row, then the intent decides: expand picks
 * the chevron, select the label; a real click on the chevron point expands. */
static void compound_row_at(double scale)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, scale, "/probe/compound.html");
    CHECK(p != NULL);
    base_rect row = harness_rect(p, "#row1");
    base_rect chev = harness_rect(p, "#chev1");
    base_rect chip = harness_rect(p, "#chip1");
    CHECK(!base_rect_empty(row));
    char err[256] = "";
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, row, &pp, err));
    int ic = find(&pp, "/html[1]/body[1]/div[1]/button[1]", "");
    int il = find(&pp, "/html[1]/body[1]/div[1]/a[1]", "");
    int ir = find(&pp, "/html[1]/body[1]/div[1]", "");
    CHECK(ic >= 0 && il >= 0 && ir >= 0);
    const snap_candidate *c = &pp.cands[ic];
    CHECK_STR(c->tag, "button");
    CHECK_STR(c->role, "button");
    CHECK_STR(c->aria_label, "Expand United States");
    CHECK_STR(c->text, "\xe2\x96\xbe");
    CHECK_EQ(c->aria_expanded, 0);
    CHECK_EQ(c->aria_haspopup, 0);
    CHECK_EQ(c->cursor_pointer, 1);
    CHECK_EQ(c->is_interactive, 1);
    CHECK_EQ(c->is_iframe, 0);
    CHECK_EQ(c->disabled, 0);
    CHECK_EQ(c->parent, ir);
    CHECK(harness_rect_near(c->rect, chev, 0.01f));
    CHECK_STR(pp.cands[il].role, "link");
    CHECK_STR(pp.cands[il].text, "United States");
    CHECK_EQ(pp.cands[il].aria_expanded, -1);
    CHECK_EQ(pp.cands[ir].is_interactive, 0);
    CHECK_STR(pp.cands[ir].role, "");
    perc_probe_fini(&pp);

    snap_intent expand = {"United States", snap_classify_intent("expand", "United States")};
    snap_intent select = {"United States", snap_classify_intent("select", "United States")};
    CHECK_EQ(expand.kind, SNAP_INTENT_EXPAND);
    CHECK_EQ(select.kind, SNAP_INTENT_SELECT);
    perc_snap s;
    CHECK_OK(perc_snap_box(p, row, &expand, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_STR(s.tag, "button");
    CHECK_STR(s.xpath, "/html[1]/body[1]/div[1]/button[1]");
    CHECK_EQ(s.res.phase, SNAP_PHASE_B);
    CHECK(s.res.score.chevron > 1.0f);
    CHECK(base_rect_contains(chev, s.pt));
    CHECK(harness_rect_near(s.rect, chev, 0.01f));
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    CHECK_STR(s.covering, "");
    CHECK_STR(s.frame_id, "");
    CHECK_STR(s.session, "");
    CHECK(s.probe_ms > 0.0);

    perc_snap t;
    CHECK_OK(perc_snap_box(p, row, &select, 1, &t, err));
    CHECK_EQ(t.found, 1);
    CHECK_STR(t.tag, "a");
    CHECK_STR(t.text, "United States");
    CHECK_STR(t.xpath, "/html[1]/body[1]/div[1]/a[1]");
    CHECK(base_rect_contains(chip, t.pt));
    CHECK_EQ(t.verdict, SNAP_VERIFY_OK);

    /* The chosen point really is the chevron: a trusted click expands it. */
    CHECK_OK(click_at(p, s.pt));
    CHECK(js_str_is(p, NULL, "document.getElementById('chev1').getAttribute('aria-expanded')",
                    "true"));
    cdp_page_close(p);
}

static void compound_row(void)
{
    compound_row_at(1.0);
}

static void compound_row_dsf2(void)
{
    compound_row_at(2.0);
}

/* Open shadow roots are entered (inner hits before their host, xpaths with
 * #shadow-root), a closed one is not, slotted light content stays in front. */
static void shadow_roots(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/shadow.html");
    CHECK(p != NULL);
    char err[256] = "";
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, (base_rect){20, 20, 320, 80}, &pp, err));
    dump(&pp);
    const int *st = pp.probe.stack[0];
    /* body has no height (everything is absolutely placed), so it is not
     * hit: html follows the host, as elementsFromPoint says. */
    CHECK_EQ(pp.probe.n[0], 3);
    CHECK_STR(pp.cands[st[0]].xpath, "/html[1]/body[1]/x-card[1]/#shadow-root/button[1]");
    CHECK_STR(pp.cands[st[0]].text, "Shadow button");
    CHECK_EQ(pp.cands[st[0]].is_interactive, 1);
    CHECK_STR(pp.cands[st[1]].xpath, "/html[1]/body[1]/x-card[1]");
    CHECK_STR(pp.cands[st[2]].xpath, "/html[1]");
    CHECK_STR(pp.cands[st[2]].text, "Light label");
    CHECK(snap_is_ancestor(pp.cands, pp.n, st[1], st[0]));
    perc_probe_fini(&pp);

    CHECK_OK(perc_probe_box(p, NULL, (base_rect){20, 120, 320, 180}, &pp, err));
    st = pp.probe.stack[0];
    CHECK_STR(pp.cands[st[0]].xpath,
              "/html[1]/body[1]/x-outer[1]/#shadow-root/x-inner[1]/#shadow-root/a[1]");
    CHECK_STR(pp.cands[st[0]].role, "link");
    CHECK_STR(pp.cands[st[1]].xpath, "/html[1]/body[1]/x-outer[1]/#shadow-root/x-inner[1]");
    CHECK_STR(pp.cands[st[2]].xpath, "/html[1]/body[1]/x-outer[1]");
    perc_probe_fini(&pp);

    CHECK_OK(perc_probe_box(p, NULL, (base_rect){20, 220, 320, 280}, &pp, err));
    CHECK_STR(pp.cands[pp.probe.stack[0][0]].xpath, "/html[1]/body[1]/x-closed[1]");
    perc_probe_fini(&pp);

    base_rect light = harness_rect(p, "#light");
    base_rect lb = {light.x0 + 1, light.y0 + 1, light.x1 - 1, light.y1 - 1};
    CHECK_OK(perc_probe_box(p, NULL, lb, &pp, err));
    st = pp.probe.stack[0];
    CHECK_STR(pp.cands[st[0]].xpath, "/html[1]/body[1]/x-slot[1]/span[1]");
    CHECK_STR(pp.cands[st[1]].xpath, "/html[1]/body[1]/x-slot[1]/#shadow-root/button[1]");
    CHECK_STR(pp.cands[st[2]].xpath, "/html[1]/body[1]/x-slot[1]");
    CHECK_STR(pp.cands[st[1]].text, "Light label");
    perc_probe_fini(&pp);

    snap_intent in = {"Deep link", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, (base_rect){20, 120, 320, 180}, &in, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_STR(s.tag, "a");
    CHECK_STR(s.text, "Deep link");
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    cdp_page_close(p);
}

/* Waits until the cross-site frame of frames.html has attached and loaded;
 * copies its session. */
static int wait_cross(cdp_page *p, char *session)
{
    for (int i = 0; i < 400; i++) {
        cdp_frame fr[8];
        int n = cdp_page_frames(p, fr, 8);
        for (int k = 0; k < n && k < 8; k++) {
            if (fr[k].oopif && strstr(fr[k].url, "cross=1")) {
                cJSON *v =
                    js(p, fr[k].session,
                       "document.readyState === 'complete' && !!document.getElementById('btn')");
                int ok = cJSON_IsTrue(v);
                cJSON_Delete(v);
                if (ok) {
                    snprintf(session, 64, "%s", fr[k].session);
                    return 1;
                }
            }
        }
        base_sleep_ms(25);
    }
    return 0;
}

static cdp_page *open_frames(double scale)
{
    harness *h = harness_get();
    char path[200];
    snprintf(path, sizeof path, "/probe/frames.html?b=%s", h->origin_b);
    return harness_open(1024, 700, scale, path);
}

/* The content-box origin of iframe `sel`, measured in the page. */
static base_point content_origin(cdp_page *p, const char *sel)
{
    char e[300];
    snprintf(e, sizeof e,
             "(() => { const f = document.querySelector('%s'), r = f.getBoundingClientRect(),"
             " s = getComputedStyle(f); return [r.left + parseFloat(s.borderLeftWidth) +"
             " parseFloat(s.paddingLeft), r.top + parseFloat(s.borderTopWidth) +"
             " parseFloat(s.paddingTop)]; })()",
             sel);
    cJSON *v = js(p, NULL, e);
    base_point o = {NAN, NAN};
    if (cJSON_GetArraySize(v) == 2) {
        o.x = (float)cJSON_GetArrayItem(v, 0)->valuedouble;
        o.y = (float)cJSON_GetArrayItem(v, 1)->valuedouble;
    }
    cJSON_Delete(v);
    return o;
}

/* A same-origin iframe is entered by the page script: inner hits come first,
 * translated to the top viewport, with the iframe's xpath as frame chain. */
static void same_origin_frame(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_frames(1.0);
    CHECK(p != NULL);
    base_point o = content_origin(p, "#same");
    CHECK_NEAR(o.x, 62, 0.01);
    CHECK_NEAR(o.y, 72, 0.01);
    base_rect btn = {o.x + 30, o.y + 40, o.x + 150, o.y + 76};
    char err[256] = "";
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, harness_grow(btn, 6), &pp, err));
    dump(&pp);
    const int *st = pp.probe.stack[0];
    const char *chain = "/html[1]/body[1]/iframe[1]";
    /* button, the frame's html (its body has no height), the iframe, then
     * the outer page (spacer, body, html). */
    CHECK(pp.probe.n[0] >= 4);
    CHECK_STR(pp.cands[st[pp.probe.n[0] - 1]].xpath, "/html[1]");
    CHECK_STR(pp.cands[st[0]].xpath, "/html[1]/body[1]/button[1]");
    CHECK_STR(pp.cands[st[0]].frame_chain, chain);
    CHECK(harness_rect_near(pp.cands[st[0]].rect, btn, 0.01f));
    CHECK_STR(pp.cands[st[1]].xpath, "/html[1]");
    CHECK_STR(pp.cands[st[1]].frame_chain, chain);
    CHECK_STR(pp.cands[st[2]].xpath, "/html[1]/body[1]/iframe[1]");
    CHECK_STR(pp.cands[st[2]].frame_chain, "");
    CHECK_EQ(pp.cands[st[2]].is_iframe, 0); /* entered already: no descent needed */
    CHECK_STR(pp.cands[st[3]].frame_chain, "");
    CHECK(snap_is_ancestor(pp.cands, pp.n, st[2], st[0]));
    perc_probe_fini(&pp);

    snap_intent in = {"Frame button", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, harness_grow(btn, 6), &in, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_STR(s.text, "Frame button");
    CHECK_STR(s.xpath, "/html[1]/body[1]/button[1]");
    CHECK(s.frame_id[0] != '\0');
    CHECK_STR(s.session, "");
    CHECK_NEAR(s.frame_offset.x, o.x, 0.5);
    CHECK_NEAR(s.frame_offset.y, o.y, 0.5);
    CHECK(base_rect_contains(btn, s.pt));
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    /* frame_id is the frame of that document. */
    cdp_frame fr[8];
    int n = cdp_page_frames(p, fr, 8), hit = 0;
    for (int k = 0; k < n && k < 8; k++)
        hit |= strcmp(fr[k].id, s.frame_id) == 0 && strstr(fr[k].url, "frame_inner.html") &&
               !strstr(fr[k].url, "cross=1");
    CHECK(hit);
    CHECK_OK(click_at(p, s.pt));
    CHECK(js_str_is(p, NULL,
                    "document.getElementById('same').contentDocument.getElementById('btn')"
                    ".textContent",
                    "clicked"));
    cdp_page_close(p);
}

/* A button in a cross-origin iframe: the top probe sees only the iframe
 * (A-alt), the snap descends through the frame's session and returns a
 * top-viewport point that lands on the button. */
static void cross_origin_at(double scale, int scroll_y)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_frames(scale);
    CHECK(p != NULL);
    char fs[64];
    CHECK(wait_cross(p, fs));
    char sc[64];
    snprintf(sc, sizeof sc, "window.scrollTo(0, %d), window.scrollY", scroll_y);
    CHECK_NEAR(js_num(p, NULL, sc), scroll_y, 0.5);
    base_point o = content_origin(p, "#cross");
    CHECK_NEAR(o.x, 457, 0.01);
    CHECK_NEAR(o.y, 67 - scroll_y, 0.01);
    base_rect btn = {o.x + 30, o.y + 40, o.x + 150, o.y + 76};
    base_rect box = harness_grow(btn, 8);
    char err[256] = "";
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, box, &pp, err));
    const snap_candidate *top = &pp.cands[pp.probe.stack[0][0]];
    CHECK_STR(top->tag, "iframe");
    CHECK_STR(top->xpath, "/html[1]/body[1]/iframe[2]");
    CHECK_EQ(top->is_iframe, 1);
    snap_result r;
    CHECK_OK(snap_resolve(pp.cands, pp.n, &pp.probe, NULL, &r, err));
    CHECK_EQ(r.phase, SNAP_PHASE_A_ALT);
    perc_probe_fini(&pp);
    /* Probing the frame's own session directly, in its coordinates. */
    base_rect inner = snap_frame_box(box, (base_rect){o.x, o.y, o.x + 300, o.y + 150});
    CHECK_OK(perc_probe_box(p, fs, inner, &pp, err));
    CHECK_STR(pp.cands[pp.probe.stack[0][0]].text, "Frame button");
    perc_probe_fini(&pp);

    snap_intent in = {"Frame button", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, box, &in, 1, &s, err));
    CHECK_MSG(s.found == 1, "not found: %s", s.res.reason);
    CHECK_STR(s.tag, "button");
    CHECK_STR(s.text, "Frame button");
    CHECK_STR(s.xpath, "/html[1]/body[1]/button[1]");
    CHECK_STR(s.session, fs);
    CHECK(s.frame_id[0] != '\0');
    CHECK_NEAR(s.frame_offset.x, o.x, 0.5);
    CHECK_NEAR(s.frame_offset.y, o.y, 0.5);
    CHECK(harness_rect_near(s.rect, btn, 0.5f));
    CHECK(base_rect_contains(btn, s.pt));
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    /* Independently: the top document puts the iframe there, the frame
     * puts its button at the translated point. */
    char ex[200];
    snprintf(ex, sizeof ex, "document.elementFromPoint(%.9g, %.9g).id", (double)s.pt.x,
             (double)s.pt.y);
    CHECK(js_str_is(p, NULL, ex, "cross"));
    snprintf(ex, sizeof ex, "document.elementFromPoint(%.9g, %.9g).id", (double)(s.pt.x - o.x),
             (double)(s.pt.y - o.y));
    CHECK(js_str_is(p, fs, ex, "btn"));
    /* And a trusted click at the point presses it (repeated if the browser
     * did not route the first one to the new frame yet; see sandboxed_frame). */
    int clicked = 0;
    for (int i = 0; i < 120 && !clicked; i++) {
        if (i % 40 == 0)
            CHECK_OK(click_at(p, s.pt));
        cJSON *v = js(p, fs, "document.getElementById('btn').textContent");
        clicked = cJSON_IsString(v) && strcmp(v->valuestring, "clicked") == 0;
        cJSON_Delete(v);
        if (!clicked)
            base_sleep_ms(25);
    }
    CHECK(clicked);
    cdp_page_close(p);
}

static void cross_origin_frame(void)
{
    cross_origin_at(1.0, 0);
}

static void cross_origin_frame_dsf2(void)
{
    cross_origin_at(2.0, 0);
}

/* Scrolled: the owner's box model and the script's rects share the viewport. */
static void cross_origin_frame_scrolled(void)
{
    cross_origin_at(1.0, 30);
}

/* A sandboxed iframe (opaque origin): the page script cannot enter it, the
 * snap still reaches its button, in-process (isolated world) or not. */
static void sandboxed_frame(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_frames(1.0);
    CHECK(p != NULL);
    base_rect btn = {70, 280, 210, 316};
    char err[256] = "";
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, harness_grow(btn, 6), &pp, err));
    const snap_candidate *top = &pp.cands[pp.probe.stack[0][0]];
    CHECK_STR(top->xpath, "/html[1]/body[1]/iframe[3]");
    CHECK_EQ(top->is_iframe, 1);
    perc_probe_fini(&pp);
    snap_intent in = {"Sandboxed button", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, harness_grow(btn, 6), &in, 1, &s, err));
    CHECK_MSG(s.found == 1, "not found: %s", s.res.reason);
    CHECK_STR(s.text, "Sandboxed button");
    CHECK(s.frame_id[0] != '\0');
    CHECK_NEAR(s.frame_offset.x, 50, 0.5);
    CHECK_NEAR(s.frame_offset.y, 260, 0.5);
    CHECK(harness_rect_near(s.rect, btn, 0.5f));
    CHECK(base_rect_contains(btn, s.pt));
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    /* A trusted click at the point presses it: the next snap reads the new
     * label. Right after load the browser may not yet route input to a new
     * out-of-process frame, so an unanswered click is repeated (the button
     * only sets its text; a second press changes nothing). */
    base_point at = s.pt;
    snap_intent after = {"sandbox clicked", SNAP_INTENT_ANY};
    int clicked = 0;
    for (int i = 0; i < 120 && !clicked; i++) {
        if (i % 40 == 0)
            CHECK_OK(click_at(p, at));
        CHECK_OK(perc_snap_box(p, harness_grow(btn, 6), &after, 1, &s, err));
        clicked = s.found && strcmp(s.text, "sandbox clicked") == 0;
        if (!clicked)
            base_sleep_ms(25);
    }
    CHECK(clicked);
    cdp_page_close(p);
}

/* An in-process frame the page hides from main-world scripts: the snap
 * enters it through an isolated world of that frame. */
static void hidden_frame(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/hidden_frame.html");
    CHECK(p != NULL);
    base_rect btn = {132, 122, 252, 158}; /* origin 102,82 + the button at 30,40 */
    char err[256] = "";
    snap_intent in = {"Frame button", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, harness_grow(btn, 6), &in, 1, &s, err));
    CHECK_MSG(s.found == 1, "not found: %s", s.res.reason);
    CHECK_STR(s.text, "Frame button");
    CHECK_STR(s.session, "");
    CHECK(s.frame_id[0] != '\0');
    CHECK_NEAR(s.frame_offset.x, 102, 0.5);
    CHECK_NEAR(s.frame_offset.y, 82, 0.5);
    CHECK(base_rect_contains(btn, s.pt));
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    CHECK_OK(click_at(p, s.pt));
    snap_intent after = {"clicked", SNAP_INTENT_ANY};
    CHECK_OK(perc_snap_box(p, harness_grow(btn, 6), &after, 1, &s, err));
    CHECK_STR(s.text, "clicked");
    cdp_page_close(p);
}

/* What a click reaches is what the stacks hold (issue 10, item 7): a target
 * under a cookie banner or a modal overlay is painted over and the click
 * would land on the layer, so it is not offered; an uncovered one is OK. */
static void covered_targets(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/covered.html");
    CHECK(p != NULL);
    char err[256] = "";
    perc_snap s;
    snap_intent buy = {"Buy now", SNAP_INTENT_ANY};
    CHECK_OK(perc_snap_box(p, harness_grow(harness_rect(p, "#buy"), 4), &buy, 1, &s, err));
    CHECK_MSG(!s.found || strcmp(s.text, "Buy now") != 0, "walked through the banner to %s",
              s.text);
    snap_intent open = {"Open account", SNAP_INTENT_ANY};
    CHECK_OK(perc_snap_box(p, harness_grow(harness_rect(p, "#open"), 4), &open, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    cdp_page_close(p);

    p = harness_open(1024, 700, 1, "/probe/covered.html?modal=1");
    CHECK(p != NULL);
    CHECK_OK(perc_snap_box(p, harness_grow(harness_rect(p, "#open"), 4), &open, 1, &s, err));
    CHECK_MSG(!s.found || strcmp(s.text, "Open account") != 0,
              "walked through the overlay to %s", s.text);
    cdp_page_close(p);
}

/* Transformed elements: the rect is the transformed bounding box and the
 * point lands on the element. */
static void transforms(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/transform.html");
    CHECK(p != NULL);
    static const char *const ids[] = {"#scaled", "#rotated", "#moved"};
    static const char *const labels[] = {"Scaled button", "Rotated button", "Moved button"};
    for (int i = 0; i < 3; i++) {
        base_rect r = harness_rect(p, ids[i]);
        snap_intent in = {labels[i], SNAP_INTENT_ANY};
        perc_snap s;
        char err[256] = "";
        CHECK_OK(perc_snap_box(p, r, &in, 1, &s, err));
        CHECK_MSG(s.found == 1, "%s: %s", ids[i], s.res.reason);
        CHECK_STR(s.text, labels[i]);
        CHECK(harness_rect_near(s.rect, r, 0.01f));
        CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
        char ex[200];
        snprintf(ex, sizeof ex, "'#' + document.elementFromPoint(%.9g, %.9g).id", (double)s.pt.x,
                 (double)s.pt.y);
        CHECK(js_str_is(p, NULL, ex, ids[i]));
    }
    /* The scaled button is 1.5 x 140 by 1.5 x 40 CSS px. */
    base_rect sr = harness_rect(p, "#scaled");
    CHECK_NEAR(base_rect_w(sr), 210, 0.01);
    cdp_page_close(p);
}

/* A scrolled page: viewport coordinates; a target half under the fixed
 * header is found and reported covered by the header. */
static void scrolled_page(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/scrolled.html");
    CHECK(p != NULL);
    CHECK_NEAR(js_num(p, NULL, "window.scrollTo(0, 1400), window.scrollY"), 1400, 0.5);
    base_rect far = harness_rect(p, "#far");
    CHECK_NEAR(far.y0, 300, 0.01);
    char err[256] = "";
    snap_intent in = {"Far button", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, harness_grow(far, 10), &in, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK(harness_rect_near(s.rect, far, 0.01f));
    CHECK(base_rect_contains(far, s.pt));
    CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    base_rect under = harness_rect(p, "#under");
    CHECK_NEAR(under.y0, 20, 0.01);
    snap_intent un = {"Under header", SNAP_INTENT_ANY};
    CHECK_OK(perc_snap_box(p, under, &un, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_STR(s.text, "Under header");
    if (s.pt.y < 50) {
        CHECK_EQ(s.verdict, SNAP_VERIFY_COVERED);
        CHECK_MSG(strncmp(s.covering, "header#hdr", 10) == 0, "covering: %s", s.covering);
    } else {
        CHECK_EQ(s.verdict, SNAP_VERIFY_OK);
    }
    cdp_page_close(p);
}

/* No interactive element in the box: BASE_OK, found 0, the box centre. */
static void no_candidate(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 700, 1, "/probe/compound.html");
    CHECK(p != NULL);
    char err[256] = "";
    base_rect box = {600, 400, 700, 450};
    perc_snap s;
    memset(&s, 0x55, sizeof s);
    CHECK_OK(perc_snap_box(p, box, NULL, 1, &s, err));
    CHECK_EQ(s.found, 0);
    CHECK_EQ(s.res.phase, SNAP_PHASE_NONE);
    CHECK(s.res.reason != NULL && s.res.reason[0]);
    CHECK_NEAR(s.pt.x, 650, 0.001);
    CHECK_NEAR(s.pt.y, 425, 0.001);
    /* The decorative arrow of row 3 is not a target; the chip is. */
    snap_intent in = {"France", SNAP_INTENT_EXPAND};
    CHECK_OK(perc_snap_box(p, harness_rect(p, "#row3"), &in, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_STR(s.tag, "a");
    /* Bad input is a clear error, never a crash. */
    base_rect bad[] = {{10, 10, 10, 20}, {NAN, 0, 10, 10}, {0, 0, INFINITY, 10}, {5, 5, 1, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        perc_probe pp;
        err[0] = '\0';
        CHECK_EQ(perc_probe_box(p, NULL, bad[i], &pp, err), BASE_EINVAL);
        CHECK(err[0] != '\0');
        CHECK_EQ(perc_snap_box(p, bad[i], NULL, 1, &s, NULL), BASE_EINVAL);
    }
    CHECK_EQ(perc_snap_box(p, box, NULL, 1, NULL, NULL), BASE_EINVAL);
    CHECK_EQ(perc_probe_box(NULL, NULL, box, NULL, NULL), BASE_EINVAL);
    perc_probe_fini(NULL);
    cdp_page_close(p);
}

/* The live table loads into the offline model (parents come first), and on
 * a page without clipping the model reproduces the live probe: the same
 * candidate points and the same stacks. */
static void scene_agrees(void)
{
    HARNESS_OR_SKIP(h);
    static const char *const pages[] = {"/probe/compound.html", "/probe/transform.html"};
    for (int pg = 0; pg < 2; pg++) {
        cdp_page *p = harness_open(1024, 700, 1, pages[pg]);
        CHECK(p != NULL);
        base_rect box = pg == 0 ? harness_rect(p, "#row1") : harness_grow(harness_rect(p, "#moved"), 10);
        char err[256] = "";
        perc_probe pp;
        CHECK_OK(perc_probe_box(p, NULL, box, &pp, err));
        dump(&pp);
        snap_scene sc;
        snap_scene_init(&sc);
        for (int i = 0; i < pp.n; i++)
            CHECK_OK(snap_scene_add(&sc, &pp.cands[i], NULL, NULL));
        snap_probe *off = malloc(sizeof *off);
        CHECK(off != NULL);
        CHECK_OK(snap_scene_probe(&sc, box, off));
        CHECK_EQ(off->n_points, pp.probe.n_points);
        for (int k = 0; k < off->n_points; k++) {
            CHECK_EQ(off->for_cand[k], pp.probe.for_cand[k]);
            CHECK_NEAR(off->pt[k].x, pp.probe.pt[k].x, 0.01);
            CHECK_NEAR(off->pt[k].y, pp.probe.pt[k].y, 0.01);
            CHECK_MSG(off->n[k] == pp.probe.n[k], "%s point %d: %d != %d", pages[pg], k, off->n[k],
                      pp.probe.n[k]);
            for (int d = 0; d < off->n[k]; d++)
                CHECK_EQ(off->stack[k][d], pp.probe.stack[k][d]);
        }
        free(off);
        snap_scene_fini(&sc);
        perc_probe_fini(&pp);
        cdp_page_close(p);
    }
}

/* ---- the reply parser on hand-written replies ------------------------------ */

/* A minimal valid reply for the unit box: the 17 lattice points, one
 * candidate. The %s slots let cases break one part at a time. */
static void lattice_json(base_rect box, char *buf, size_t n)
{
    base_point lat[SNAP_PROBE_NGRID];
    snap_probe_points(box, lat);
    size_t o = 0;
    for (int k = 0; k < SNAP_PROBE_NGRID; k++)
        o += (size_t)snprintf(buf + o, n - o, "%s[%.9g,%.9g]", k ? "," : "", (double)lat[k].x,
                              (double)lat[k].y);
}

static base_err parse_with(const char *fmt_pts, const char *fc, const char *st, const char *c,
                           perc__reply *r, char *err)
{
    base_rect box = {0, 0, 100, 50};
    base_point lat[SNAP_PROBE_NGRID];
    snap_probe_points(box, lat);
    char pts[2048], json[8192];
    lattice_json(box, pts, sizeof pts);
    snprintf(json, sizeof json,
             "{\"v\":1,\"ms\":0.1,\"pts\":[%s%s],\"fc\":%s,\"st\":%s,\"f\":[[\"\",0,0]],"
             "\"c\":%s,\"ifr\":[]}",
             pts, fmt_pts, fc, st, c);
    return perc__probe_parse(json, strlen(json), box, lat, SNAP_PROBE_NGRID, r, err);
}

#define FC17 "[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1"
#define ST17 "[[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0]"
#define CAND "[\"button\",\"button\",\"Go\",\"\",\"\",\"/html[1]/body[1]/button[1]\",0,0,0,100,50,"

static void reply_parser(void)
{
    char err[256] = "";
    perc__reply r;
    /* Valid, with one candidate point (x=50) and one dropped on the edge. */
    CHECK_OK(parse_with(",[50,25],[100,25]", FC17 ",0,0]", ST17 ",[0],[0]]",
                        "[" CAND "189,3,-1,\"button#go\",\"Go now\",\"icon-go\"]]", &r, err));
    CHECK_EQ(r.p.n, 1);
    CHECK_EQ(r.p.probe.n_points, 18);
    CHECK_EQ(r.p.probe.for_cand[17], 0);
    CHECK_STR(r.p.cands[0].text, "Go");
    CHECK_EQ(r.p.cands[0].aria_expanded, 0);
    CHECK_EQ(r.p.cands[0].aria_haspopup, 1);
    CHECK_EQ(r.p.cands[0].disabled, 1);
    CHECK_EQ(r.p.cands[0].cursor_pointer, 1);
    CHECK_EQ(r.p.cands[0].is_interactive, 1);
    CHECK_EQ(r.p.cands[0].is_iframe, 0);
    CHECK_EQ(r.p.cands[0].paint_order, 3);
    CHECK_STR(r.desc[0], "button#go");
    CHECK_STR(r.p.cands[0].name, "Go now");
    CHECK_STR(r.p.cands[0].hint, "icon-go");
    CHECK_EQ(r.p.cands[0].has_listener, 1);
    snap_result res;
    CHECK_OK(snap_resolve(r.p.cands, r.p.n, &r.p.probe, NULL, &res, err));
    CHECK_EQ(res.found, 1);
    perc__reply_fini(&r);
    perc__reply_fini(NULL);

    static const struct bad {
        const char *pts, *fc, *st, *c, *why;
    } bad[] = {
        {"", FC17 "]", ST17 ",[1]]", "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]]", "arrays disagree"},
        {"", FC17 "]", ST17 "]", "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]]", "ok"},
        {"", FC17 "]", "[[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0]]",
         "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]]", "too many stacks"},
        {"", FC17 "]", "[[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[1]]",
         "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]]", "index out of range"},
        {"", FC17 "]", ST17 "]", "[" CAND "0,0,0,\"b\",\"n\",\"h\"]]", "own parent"},
        {"", FC17 "]", ST17 "]", "[" CAND "0,0,-1]]", "short entry"},
        {"", FC17 "]", ST17 "]", "[" CAND "0.5,0,-1,\"b\",\"n\",\"h\"]]", "fractional flags"},
        {"", FC17 "]", ST17 "]", "[" CAND "256,0,-1,\"b\",\"n\",\"h\"]]", "unknown flag"},
        {"", FC17 "]", ST17 "]", "[" CAND "0,0,-1,\"b\",1,\"h\"]]", "name not a string"},
        {"", FC17 "]", ST17 "]", "[[1,\"button\",\"Go\",\"\",\"\",\"/x\",0,0,0,1,1,0,0,-1,\"b\",\"n\",\"h\"]]",
         "tag not a string"},
        {"", FC17 "]", ST17 "]", "[" CAND "0,0,-1,\"b\",\"n\",\"h\",1]]", "long entry"},
        {"", "[0,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1]", ST17 "]",
         "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]]", "lattice point with a candidate"},
        {",[50,25]", FC17 ",-1]", ST17 ",[0]]", "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]]",
         "candidate point without candidate"},
        {"", FC17 "]", ST17 "]", "[" CAND "0,0,-1,\"b\",\"n\",\"h\"]", "missing bracket"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&r, 0x5a, sizeof r);
        perc__reply before = r;
        err[0] = '\0';
        base_err e = parse_with(bad[i].pts, bad[i].fc, bad[i].st, bad[i].c, &r, err);
        if (strcmp(bad[i].why, "ok") == 0) {
            CHECK_OK(e);
            perc__reply_fini(&r);
            continue;
        }
        CHECK_MSG(e == BASE_EPROTO, "%s: got %d", bad[i].why, e);
        CHECK_MSG(err[0] != '\0', "%s: no message", bad[i].why);
        CHECK(memcmp(&r, &before, sizeof r) == 0);
    }
    /* Whole-reply breakage. */
    base_rect box = {0, 0, 100, 50};
    base_point lat[SNAP_PROBE_NGRID];
    snap_probe_points(box, lat);
    static const char *const junk[] = {
        "", "null", "[]", "{\"v\":2}", "{\"v\":1}", "{\"v\":1,", "\"just a string\""};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        err[0] = '\0';
        CHECK_EQ(perc__probe_parse(junk[i], strlen(junk[i]), box, lat, SNAP_PROBE_NGRID, &r, err),
                 BASE_EPROTO);
        CHECK(err[0] != '\0');
    }
    /* A lattice point that is not the one sent. */
    char pts[2048], json[4096];
    lattice_json((base_rect){0, 0, 100, 51}, pts, sizeof pts);
    snprintf(json, sizeof json,
             "{\"v\":1,\"pts\":[%s],\"fc\":%s],\"st\":%s],\"f\":[[\"\",0,0]],\"c\":[%s0,0,-1,"
             "\"b\",\"n\",\"h\"]],\"ifr\":[]}",
             pts, FC17, ST17, CAND);
    CHECK_EQ(perc__probe_parse(json, strlen(json), box, lat, SNAP_PROBE_NGRID, &r, err),
             BASE_EPROTO);
    CHECK_EQ(perc__probe_parse(NULL, 0, box, lat, SNAP_PROBE_NGRID, &r, err), BASE_EINVAL);
}

static const check_case cases[] = {
    {"reply_parser", reply_parser},
    {"lattice_points", lattice_points},
    {"compound_row", compound_row},
    {"compound_row_dsf2", compound_row_dsf2},
    {"shadow_roots", shadow_roots},
    {"same_origin_frame", same_origin_frame},
    {"cross_origin_frame", cross_origin_frame},
    {"cross_origin_frame_dsf2", cross_origin_frame_dsf2},
    {"cross_origin_frame_scrolled", cross_origin_frame_scrolled},
    {"sandboxed_frame", sandboxed_frame},
    {"hidden_frame", hidden_frame},
    {"covered_targets", covered_targets},
    {"transforms", transforms},
    {"scrolled_page", scrolled_page},
    {"no_candidate", no_candidate},
    {"scene_agrees", scene_agrees},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
