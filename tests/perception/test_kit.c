/* tests/perception/test_kit.c: the page kit on the controls the web writes.
 *
 * Fixture: tests/fixtures/pages/kit/controls.html (listener-only controls,
 * labels that live elsewhere, icon-only buttons, a scroll box, a half-covered
 * input, a date-picker panel over a button). Expectations are measured in the
 * page on their own (getBoundingClientRect, elementFromPoint, a trusted
 * click) or written from the fixture's markup, never read from the code under
 * test. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/text.h"
#include "check.h"
#include "harness.h"
#include "perception/dom_boxes.h"
#include "perception/kit.h"
#include "perception/probe.h"
#include "record/snapshot.h"
#include "image/som.h"

static cJSON *js(cdp_page *p, const char *expr)
{
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "expression", expr);
    cJSON_AddBoolToObject(pa, "returnByValue", 1);
    cJSON *res = NULL;
    char err[256] = "";
    if (cdp_call(cdp_page_conn(p), cdp_page_session(p), "Runtime.evaluate", pa, &res, 10000,
                 err)) {
        fprintf(stderr, "js: %s\n", err);
        return NULL;
    }
    cJSON *r = cJSON_GetObjectItem(res, "result");
    cJSON *v = r ? cJSON_DetachItemFromObject(r, "value") : NULL;
    cJSON_Delete(res);
    return v;
}

/* getBoundingClientRect of document.querySelector(sel). */
/* A page with the listener recorder installed before the fixture loads (as
 * `fovea run` and the service do), or without it (attached late). */
static cdp_page *open_page(const char *path, int install)
{
    cdp_page *p = harness_open(1024, 700, 1, NULL);
    if (!p)
        return NULL;
    char err[256] = "";
    if (install && perc_kit_install(p, err)) {
        fprintf(stderr, "kit install: %s\n", err);
        cdp_page_close(p);
        return NULL;
    }
    char url[512];
    harness_url(0, path, url, sizeof url);
    if (cdp_page_navigate(p, url, 15000, err)) {
        fprintf(stderr, "navigate: %s\n", err);
        cdp_page_close(p);
        return NULL;
    }
    return p;
}

/* The probe's candidate for the element `sel` (same tag, same rect), -1. */
static int cand_of(cdp_page *p, const perc_probe *pp, const char *sel, const char *tag)
{
    base_rect r = harness_rect(p, sel);
    for (int i = 0; i < pp->n; i++) {
        if (strcmp(pp->cands[i].tag, tag) == 0 && harness_rect_near(pp->cands[i].rect, r, 0.5f))
            return i;
    }
    return -1;
}

/* ---- cases ------------------------------------------------------------------ */

static const struct ctl {
    const char *sel, *tag;
} listener_only[] = {
    {"#l-span", "span"}, {"#l-div", "div"}, {"#l-li", "li"}, {"#l-svg", "svg"},
    {"#l-th", "th"},     {"#l-a", "a"},     {"#d-act", "span"},
};

/* Elements whose only sign of life is a listener (addEventListener, onclick
 * attribute, onclick property, jQuery-style delegation) are interactive and
 * carry has_listener; a listener added then removed leaves nothing. */
static void listener_only_probe(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/controls.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    /* The recorder ran at document start (so no DOMDebugger fallback is
     * what makes the checks below pass). */
    cJSON *v = js(p, "(() => { const r = globalThis[Symbol.for('fovea.listen')];"
                     " return r ? (r.late ? 'late' : 'start') : 'none'; })()");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "start") == 0);
    cJSON_Delete(v);
    for (size_t i = 0; i < sizeof listener_only / sizeof listener_only[0]; i++) {
        perc_probe pp;
        CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, listener_only[i].sel), 2), &pp, err));
        int c = cand_of(p, &pp, listener_only[i].sel, listener_only[i].tag);
        CHECK_MSG(c >= 0, "%s not probed", listener_only[i].sel);
        if (c >= 0) {
            CHECK_MSG(pp.cands[c].is_interactive, "%s not interactive", listener_only[i].sel);
            CHECK_MSG(pp.cands[c].has_listener, "%s has no listener", listener_only[i].sel);
        }
        perc_probe_fini(&pp);
    }
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, "#inert"), 2), &pp, err));
    int c = cand_of(p, &pp, "#inert", "span");
    CHECK(c >= 0);
    CHECK_EQ(pp.cands[c].is_interactive, 0);
    CHECK_EQ(pp.cands[c].has_listener, 0);
    perc_probe_fini(&pp);
    /* snap picks the listener-only span for its label, and a trusted click
     * there reaches the span's own listener. */
    snap_intent in = {"Archive", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, harness_grow(harness_rect(p, "#l-span"), 6), &in, 1, &s, err));
    CHECK_EQ(s.found, 1);
    CHECK_STR(s.text, "Archive");
    cdp_page_close(p);
}

static const struct named {
    const char *sel, *tag, *name;
} names[] = {
    {"#f-email", "input", "Email address"},   {"#f-name", "input", "Full name"},
    {"#f-city", "input", "Home city"},        {"#f-search", "input", "Search mail"},
    {"#f-zip", "input", "Postal code"},       {"#f-terms", "input", "I accept the terms"},
    {"#f-news", "input", "Send newsletter"},  {"#i-star", "button", "Star this"},
    {"#l-span", "span", "Archive"},           {"#under", "button", "Search flights"},
};

/* The accessible name for each labelling style. */
static void accessible_names(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/controls.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        perc_probe pp;
        CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, names[i].sel), 1), &pp, err));
        int c = cand_of(p, &pp, names[i].sel, names[i].tag);
        CHECK_MSG(c >= 0, "%s not probed", names[i].sel);
        if (c >= 0)
            CHECK_MSG(strcmp(pp.cands[c].name, names[i].name) == 0, "%s: name '%s', want '%s'",
                      names[i].sel, pp.cands[c].name, names[i].name);
        perc_probe_fini(&pp);
    }
    cdp_page_close(p);
}

static const struct hinted {
    const char *sel, *word;
} hints[] = {
    {"#i-trash", "fa-trash"},
    {"#i-del", "delete_forever"},
    {"#i-gear", "icon-gear"},
    {"#i-del", "material-icons"},
};

/* Icon-only buttons carry their icon's words. */
static void icon_hints(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/controls.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        perc_probe pp;
        CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, hints[i].sel), 1), &pp, err));
        int c = cand_of(p, &pp, hints[i].sel, "button");
        CHECK_MSG(c >= 0, "%s not probed", hints[i].sel);
        if (c >= 0) {
            char padded[256];
            snprintf(padded, sizeof padded, " %s ", pp.cands[c].hint);
            char word[64];
            snprintf(word, sizeof word, " %s ", hints[i].word);
            CHECK_MSG(strstr(padded, word) != NULL, "%s: hint '%s' lacks %s", hints[i].sel,
                      pp.cands[c].hint, hints[i].word);
        }
        perc_probe_fini(&pp);
    }
    cdp_page_close(p);
}

/* A box on the date picker's panel, over the button painted under it: the
 * click would land on the panel (checked with elementFromPoint and a trusted
 * click), so the button is in no stack and snap does not pick it. */
static void popup_layer(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/controls.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    base_rect under = harness_rect(p, "#under");
    base_rect panel = harness_rect(p, "#picker");
    base_rect box = base_rect_intersect(under, panel);
    CHECK(!base_rect_empty(box));
    cJSON *v = js(p, "(() => { const r = document.getElementById('under').getBoundingClientRect();"
                     " const e = document.elementFromPoint((r.left + r.right) / 2,"
                     " (r.top + r.bottom) / 2); return e.closest('#picker') ? 1 : 0; })()");
    CHECK(cJSON_IsNumber(v) && v->valueint == 1);
    cJSON_Delete(v);
    perc_probe pp;
    CHECK_OK(perc_probe_box(p, NULL, box, &pp, err));
    int b = cand_of(p, &pp, "#under", "button");
    for (int k = 0; k < pp.probe.n_points && b >= 0; k++) {
        for (int d = 0; d < pp.probe.n[k]; d++)
            CHECK_MSG(pp.probe.stack[k][d] != b, "point %d walks through the panel", k);
    }
    perc_probe_fini(&pp);
    snap_intent in = {"Search flights", SNAP_INTENT_ANY};
    perc_snap s;
    CHECK_OK(perc_snap_box(p, box, &in, 1, &s, err));
    CHECK_MSG(!s.found || strcmp(s.text, "Search flights") != 0, "picked %s under the panel",
              s.text);
    cdp_page_close(p);
}


/* The dom provider's mark whose rect is r (within tol), -1. */
static int mark_at(const img_mark *m, int n, base_rect r, float tol)
{
    for (int i = 0; i < n; i++) {
        if (harness_rect_near(m[i].r, r, tol))
            return i;
    }
    return -1;
}

/* The dom provider offers listener-only controls as marks, labelled with the
 * accessible name, and a control half covered by another element. */
static void dom_provider_boxes(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/controls.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    img_mark *m = NULL;
    int n = 0;
    CHECK_OK(perc_dom_boxes(p, &m, &n, err));
    for (size_t i = 0; i < sizeof listener_only / sizeof listener_only[0]; i++)
        CHECK_MSG(mark_at(m, n, harness_rect(p, listener_only[i].sel), 0.5f) >= 0, "%s not boxed",
                  listener_only[i].sel);
    CHECK_MSG(mark_at(m, n, harness_rect(p, "#inert"), 0.5f) < 0, "#inert boxed");
    int k = mark_at(m, n, harness_rect(p, "#f-email"), 0.5f);
    CHECK(k >= 0);
    if (k >= 0)
        CHECK_STR(m[k].label, "Email address");
    k = mark_at(m, n, harness_rect(p, "#f-city"), 0.5f);
    CHECK(k >= 0);
    if (k >= 0)
        CHECK_STR(m[k].label, "Home city");
    /* Half covered: its centre is under #cover (checked in the page). */
    cJSON *v = js(p, "(() => { const r = document.getElementById('half').getBoundingClientRect();"
                     " return document.elementFromPoint((r.left + r.right) / 2,"
                     " (r.top + r.bottom) / 2).id; })()");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "cover") == 0);
    cJSON_Delete(v);
    CHECK_MSG(mark_at(m, n, harness_rect(p, "#half"), 0.5f) >= 0, "half-covered input dropped");
    img_marks_free(m, n);
    cdp_page_close(p);
}

/* Items of a scroll box are boxed where they show: clipped to the box's
 * padding box, and not at all when scrolled out of it. */
static void clipped_boxes(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/controls.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    cJSON *v = js(p, "(() => { const s = document.getElementById('scroller');"
                     " const r = s.getBoundingClientRect(); const x = r.left + s.clientLeft,"
                     " y = r.top + s.clientTop; return [x, y, x + s.clientWidth,"
                     " y + s.clientHeight]; })()");
    CHECK(cJSON_GetArraySize(v) == 4);
    base_rect pad = {(float)cJSON_GetArrayItem(v, 0)->valuedouble,
                     (float)cJSON_GetArrayItem(v, 1)->valuedouble,
                     (float)cJSON_GetArrayItem(v, 2)->valuedouble,
                     (float)cJSON_GetArrayItem(v, 3)->valuedouble};
    cJSON_Delete(v);
    img_mark *m = NULL;
    int n = 0;
    CHECK_OK(perc_dom_boxes(p, &m, &n, err));
    base_rect s2 = harness_rect(p, "#s2"), s5 = harness_rect(p, "#s5"), s1 = harness_rect(p, "#s1");
    CHECK(s2.y0 < pad.y0 && s2.y1 > pad.y0); /* the fixture clips #s2 at the top */
    CHECK(s5.y0 < pad.y1 && s5.y1 > pad.y1); /* and #s5 at the bottom */
    CHECK(s1.y1 <= pad.y0);                  /* and scrolls #s1 out */
    CHECK_MSG(mark_at(m, n, base_rect_intersect(s2, pad), 0.5f) >= 0, "#s2 not clipped");
    CHECK_MSG(mark_at(m, n, base_rect_intersect(s5, pad), 0.5f) >= 0, "#s5 not clipped");
    CHECK_MSG(mark_at(m, n, s2, 0.5f) < 0, "#s2 boxed unclipped");
    for (int i = 0; i < n; i++)
        CHECK_MSG(!(m[i].r.x0 >= s1.x0 - 1 && m[i].r.x1 <= s1.x1 + 1 && m[i].r.y1 <= pad.y0 + 0.5f),
                  "a mark above the scroll box's view: %s", m[i].label);
    img_marks_free(m, n);
    cdp_page_close(p);
}

/* The snapshot carries the page kit's answers (roles, names, "interactive",
 * listeners, icon hints), checked on parity.html against values written
 * from the markup. */
static void kit_definitions(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = open_page("/kit/parity.html", 1);
    CHECK(p != NULL);
    char err[256] = "";
    cJSON *snapj = NULL;
    CHECK_OK(rec_snapshot_capture(p, &snapj, err));
    rec_snapshot snap;
    CHECK_OK(rec_snapshot_load(snapj, &snap, err));
    static const struct want {
        const char *xp, *role, *name;
        int inter, lis;
    } want[] = {
        {"/html[1]/body[1]/div[1]", "button", "Two roles", 1, 0},
        {"/html[1]/body[1]/div[2]", "tab", "Spaced role", 1, 0},
        {"/html[1]/body[1]/span[1]", "", "", 0, 0},        /* tabindex="abc" */
        {"/html[1]/body[1]/span[2]", "", "Spaced tabindex", 1, 0},
        {"/html[1]/body[1]/span[3]", "", "", 0, 0},        /* tabindex="-1" */
        {"/html[1]/body[1]/span[4]", "", "Minus zero", 1, 0},
        {"/html[1]/body[1]/div[4]", "", "Editable", 1, 0},
        {"/html[1]/body[1]/div[5]", "", "", 0, 0},
        {"/html[1]/body[1]/div[6]", "", "Plain editable", 1, 0},
        {"/html[1]/body[1]/input[1]", "combobox", "", 1, 0},
        {"/html[1]/body[1]/img[1]", "presentation", "", 0, 0},
        {"/html[1]/body[1]/img[2]", "img", "Company logo", 0, 0},
        {"/html[1]/body[1]/section[1]", "region", "News", 0, 0},
        {"/html[1]/body[1]/section[2]", "", "", 0, 0},
        {"/html[1]/body[1]/header[1]", "banner", "Header text", 1, 1}, /* keydown listener */
        {"/html[1]/body[1]/input[3]", "button", "Submit", 1, 0},
        {"/html[1]/body[1]/input[4]", "button", "Reset", 1, 0},
        {"/html[1]/body[1]/input[5]", "button", "Press me", 1, 0},
        {"/html[1]/body[1]/input[6]", "button", "Go there", 1, 0},
        {"/html[1]/body[1]/select[1]", "listbox", "", 1, 0},
        {"/html[1]/body[1]/div[7]", "", "Pointer outer inner", 1, 0},
        {"/html[1]/body[1]/div[7]/span[1]", "", "", 0, 0},
        {"/html[1]/body[1]/input[7]", "textbox", "Hidden caption", 1, 0},
        {"/html[1]/body[1]/input[8]", "textbox", "First Second part", 1, 0},
        {"/html[1]/body[1]/button[1]", "button", "Save drafts", 1, 0},
        {"/html[1]/body[1]/button[2]", "button", "Close dialog", 1, 0},
        {"/html[1]/body[1]/button[3]", "button", "Print", 1, 0},
        {"/html[1]/body[1]/a[1]", "link", "A real link", 1, 0},
        {"/html[1]/body[1]/a[2]", "", "", 0, 0},
        {"/html[1]/body[1]/a[3]", "", "Handler link", 1, 1},
        {"/html[1]/body[1]/h2[1]", "heading", "A heading", 0, 0},
        {"/html[1]/body[1]/body[1]", "", "", 0, 0},
        {"/html[1]/body[1]", "", "", 0, 0},
        {"/html[1]/body[1]/div[8]", "", "", 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int k = rec_snapshot_find(&snap, want[i].xp, "");
        if (strcmp(want[i].xp, "/html[1]/body[1]/body[1]") == 0) {
            CHECK(k < 0);
            continue;
        }
        CHECK_MSG(k >= 0, "%s not in the snapshot", want[i].xp);
        if (k < 0)
            continue;
        const snap_candidate *c = &snap.scene.cand[k];
        CHECK_MSG(strcmp(c->role, want[i].role) == 0, "%s: role '%s', want '%s'", want[i].xp,
                  c->role, want[i].role);
        CHECK_MSG(strcmp(c->name, want[i].name) == 0, "%s: name '%s', want '%s'", want[i].xp,
                  c->name, want[i].name);
        CHECK_MSG(c->is_interactive == want[i].inter, "%s: interactive %d", want[i].xp,
                  c->is_interactive);
        CHECK_MSG(c->has_listener == want[i].lis, "%s: listener %d", want[i].xp, c->has_listener);
    }
    /* Inside an open shadow root and a same-origin frame. */
    static const struct deep {
        const char *xp, *frame, *name;
        int inter, lis;
    } deep[] = {
        {"/html[1]/body[1]/x-card[1]/#shadow-root/span[1]", "", "Shadow action", 1, 1},
        {"/html[1]/body[1]/x-card[1]/#shadow-root/input[1]", "", "Shadow field", 1, 0},
        {"/html[1]/body[1]/span[1]", "/html[1]/body[1]/iframe[1]", "Framed archive", 1, 1},
        {"/html[1]/body[1]/label[1]/input[1]", "/html[1]/body[1]/iframe[1]", "Framed name", 1, 0},
    };
    for (size_t i = 0; i < sizeof deep / sizeof deep[0]; i++) {
        int d = rec_snapshot_find(&snap, deep[i].xp, deep[i].frame);
        CHECK_MSG(d >= 0, "%s|%s not in the snapshot", deep[i].frame, deep[i].xp);
        if (d < 0)
            continue;
        const snap_candidate *c = &snap.scene.cand[d];
        CHECK_MSG(strcmp(c->name, deep[i].name) == 0 && c->is_interactive == deep[i].inter &&
                      c->has_listener == deep[i].lis,
                  "%s: '%s' int %d lis %d", deep[i].xp, c->name, c->is_interactive,
                  c->has_listener);
    }
    int k = rec_snapshot_find(&snap, "/html[1]/body[1]/button[4]", "");
    CHECK(k >= 0);
    if (k >= 0)
        CHECK_STR(snap.scene.cand[k].hint, "bell ring glyphicon glyphicon-bell");
    k = rec_snapshot_find(&snap, "/html[1]/body[1]/button[5]", "");
    CHECK(k >= 0);
    if (k >= 0)
        CHECK_STR(snap.scene.cand[k].hint, "material-symbols-outlined more_vert");
    rec_snapshot_fini(&snap);
    cJSON_Delete(snapj);
    cdp_page_close(p);
}

/* fovea attached to a tab that was already open: the recorder missed the
 * listeners, so the probe asks DOMDebugger about the candidates; the
 * listener-only controls are still interactive (with the recorder installed
 * late, and with none at all). */
static void late_attach(void)
{
    HARNESS_OR_SKIP(h);
    for (int install_late = 0; install_late < 2; install_late++) {
        cdp_page *p = open_page("/kit/controls.html", 0);
        CHECK(p != NULL);
        if (!p)
            return;
        char err[256] = "";
        if (install_late)
            CHECK_OK(perc_kit_install(p, err));
        static const struct ctl late_ctl[] = {
            {"#l-span", "span"}, {"#l-svg", "svg"}, {"#l-th", "th"}, {"#l-a", "a"}};
        for (size_t i = 0; i < sizeof late_ctl / sizeof late_ctl[0]; i++) {
            perc_probe pp;
            CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, late_ctl[i].sel), 2), &pp, err));
            int c = cand_of(p, &pp, late_ctl[i].sel, late_ctl[i].tag);
            CHECK_MSG(c >= 0, "%s not probed", late_ctl[i].sel);
            if (c >= 0)
                CHECK_MSG(pp.cands[c].is_interactive && pp.cands[c].has_listener,
                          "%s: late attach (%d) missed its listener", late_ctl[i].sel,
                          install_late);
            perc_probe_fini(&pp);
        }
        perc_probe pp;
        CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, "#inert"), 2), &pp, err));
        int c = cand_of(p, &pp, "#inert", "span");
        CHECK(c >= 0 && !pp.cands[c].is_interactive);
        perc_probe_fini(&pp);
        /* With the recorder in place, DOMDebugger's answers stay in fovea's
         * world (each element is asked about once) and a second probe reads
         * them: the controls are still interactive, and a listener the page
         * adds afterwards is the recorder's. Without a recorder nothing is
         * kept, so the late listener is found by asking again. */
        cJSON *kept = NULL;
        CHECK_OK(cdp_page_evaluate_in(
            p, NULL, CDP_CTX_FOVEA,
            "(() => { const m = globalThis[Symbol.for('fovea.probe.lateSeen')];"
            " return m ? [m.get(document.querySelector('#l-span')),"
            " m.get(document.querySelector('#inert'))].map(String).join() : 'none'; })()",
            &kept, 5000, err));
        CHECK_MSG(cJSON_IsString(kept) && strcmp(kept->valuestring, "true,false") == 0,
                  "kept answers (%d): %s", install_late,
                  cJSON_IsString(kept) ? kept->valuestring : "?");
        cJSON_Delete(kept);
        for (size_t i = 0; i < sizeof late_ctl / sizeof late_ctl[0]; i++) {
            CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, late_ctl[i].sel), 2), &pp, err));
            c = cand_of(p, &pp, late_ctl[i].sel, late_ctl[i].tag);
            CHECK_MSG(c >= 0 && pp.cands[c].is_interactive && pp.cands[c].has_listener,
                      "%s: second probe (%d) lost its listener", late_ctl[i].sel, install_late);
            perc_probe_fini(&pp);
        }
        CHECK_OK(cdp_page_evaluate(p,
                                   "window.__late = () => {}; document.querySelector('#inert')"
                                   ".addEventListener('click', window.__late); 1",
                                   NULL, 5000, err));
        CHECK_OK(perc_probe_box(p, NULL, harness_grow(harness_rect(p, "#inert"), 2), &pp, err));
        c = cand_of(p, &pp, "#inert", "span");
        CHECK_MSG(c >= 0 && pp.cands[c].is_interactive,
                  "a listener added after the first probe (%d) was missed", install_late);
        perc_probe_fini(&pp);
        CHECK_OK(cdp_page_evaluate(p,
                                   "document.querySelector('#inert').removeEventListener('click',"
                                   " window.__late); 1",
                                   NULL, 5000, err));
        /* A snapshot of the same tab (`fovea record --cdp`) gets them from
         * DOMDebugger too. */
        cJSON *snapj = NULL;
        CHECK_OK(rec_snapshot_capture(p, &snapj, err));
        rec_snapshot snap;
        CHECK_OK(rec_snapshot_load(snapj, &snap, err));
        static const char *const xps[] = {"/html[1]/body[1]/span[1]", "/html[1]/body[1]/svg[1]",
                                          "/html[1]/body[1]/a[1]"};
        for (size_t i = 0; i < sizeof xps / sizeof xps[0]; i++) {
            int k = rec_snapshot_find(&snap, xps[i], "");
            CHECK_MSG(k >= 0 && snap.scene.cand[k].has_listener && snap.scene.cand[k].is_interactive,
                      "snapshot, late (%d): %s has no listener", install_late, xps[i]);
        }
        int k = rec_snapshot_find(&snap, "/html[1]/body[1]/span[2]", ""); /* #inert */
        CHECK(k >= 0 && !snap.scene.cand[k].has_listener);
        rec_snapshot_fini(&snap);
        cJSON_Delete(snapj);
        cdp_page_close(p);
    }
}

/* The page kit's SPACES and ZERO regexes (read from assets/js/lib/kit.js as
 * written, evaluated by Chromium's own regex engine) match exactly the code
 * points base_text_char_class calls spaces and invisible: the page scripts and
 * the C side (snapshot loader, snapper) fold text the same way. */
static char *kit_regex(const char *src, const char *decl)
{
    const char *a = strstr(src, decl);
    if (!a)
        return NULL;
    a += strlen(decl);
    const char *e = strstr(a, "/g;");
    if (!e)
        return NULL;
    size_t n = (size_t)(e - a) + 2;
    char *r = base_malloc(n + 1);
    if (!r)
        return NULL;
    memcpy(r, a, n);
    r[n] = '\0';
    return r;
}

static void kit_text_classes(void)
{
    HARNESS_OR_SKIP(h);
    FILE *f = fopen(FOVEA_SOURCE_DIR "/assets/js/lib/kit.js", "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static char src[1 << 17];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = '\0';
    char *sp = kit_regex(src, "const SPACES = ");
    char *zr = kit_regex(src, "const ZERO = ");
    CHECK(sp != NULL && zr != NULL);
    if (!sp || !zr) {
        base_free(sp);
        base_free(zr);
        return;
    }
    cdp_page *p = harness_open(400, 300, 1, NULL);
    CHECK(p != NULL);
    if (!p) {
        base_free(sp);
        base_free(zr);
        return;
    }
    char expr[2048];
    snprintf(expr, sizeof expr,
             "(() => { const SPACES = %s; const ZERO = %s; const sp = [], zr = [];"
             " for (let cp = 1; cp <= 0x10ffff; cp++) {"
             "  if (cp >= 0xd800 && cp <= 0xdfff) continue;"
             "  const c = String.fromCodePoint(cp);"
             "  SPACES.lastIndex = 0; ZERO.lastIndex = 0;"
             "  if (SPACES.test(c)) sp.push(cp);"
             "  if (ZERO.test(c)) zr.push(cp); }"
             " return [sp, zr]; })()",
             sp, zr);
    base_free(sp);
    base_free(zr);
    cJSON *v = js(p, expr);
    CHECK(cJSON_GetArraySize(v) == 2);
    if (cJSON_GetArraySize(v) == 2) {
        const cJSON *lists[2] = {cJSON_GetArrayItem(v, 0), cJSON_GetArrayItem(v, 1)};
        const base_text_class cls[2] = {BASE_TEXT_SPACE, BASE_TEXT_INVISIBLE};
        for (int k = 0; k < 2; k++) {
            int at = 0, count = cJSON_GetArraySize(lists[k]);
            for (unsigned cp = 1; cp <= 0x10ffff; cp++) {
                if (cp >= 0xd800 && cp <= 0xdfff)
                    continue;
                char ch[5] = {0};
                if (cp < 0x80) {
                    ch[0] = (char)cp;
                } else if (cp < 0x800) {
                    ch[0] = (char)(0xc0 | (cp >> 6));
                    ch[1] = (char)(0x80 | (cp & 0x3f));
                } else if (cp < 0x10000) {
                    ch[0] = (char)(0xe0 | (cp >> 12));
                    ch[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                    ch[2] = (char)(0x80 | (cp & 0x3f));
                } else {
                    continue; /* no astral character is a space or invisible in either */
                }
                size_t len = 0;
                if (base_text_char_class(ch, &len) != cls[k])
                    continue;
                const cJSON *j = cJSON_GetArrayItem(lists[k], at);
                CHECK_MSG(j && (unsigned)j->valuedouble == cp,
                          "class %d: C has U+%04X, kit.js has U+%04X at %d", k, cp,
                          j ? (unsigned)j->valuedouble : 0u, at);
                if (!j || (unsigned)j->valuedouble != cp)
                    break;
                at++;
            }
            CHECK_MSG(at == count, "class %d: kit.js matches %d code points, C %d", k, count, at);
        }
    }
    cJSON_Delete(v);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"listener_only_probe", listener_only_probe},
    {"accessible_names", accessible_names},
    {"icon_hints", icon_hints},
    {"popup_layer", popup_layer},
    {"dom_provider_boxes", dom_provider_boxes},
    {"clipped_boxes", clipped_boxes},
    {"late_attach", late_attach},
    {"kit_definitions", kit_definitions},
    {"kit_text_classes", kit_text_classes},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
