/* tools/cmd_snap.c: `fovea snap`, the snapper as a grounding service.
 *
 * Another agent (or a person's own tooling) already has a box and a label
 * from its vision model and wants the element and point they mean on a page
 * that is open right now. One fovea process attaches once (or launches a
 * browser), then answers one JSON line on stdout for every JSON line read on
 * stdin, flushed at once, so a client can hold a pipe open and pay only the
 * probe per request (no process start, no attach, no script install).
 *
 * Each request goes through the same path `fovea run` uses: perc_snap_box
 * (one batched probe evaluate, snap_resolve, iframe descent) and, with
 * --click or "click":true, cascade_click on the snapped element. Bad input
 * never ends the service: a line that is not a valid request gets
 * {"error":...} and the next line is read; EOF ends it cleanly (adopted tabs
 * are detached and stay open). Requests may name another tab ("target"); the
 * tabs adopted that way are kept for later requests.
 *
 * Main thread only (the cdp service thread is the library's).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "cascade/cascade.h"
#include "perception/kit.h"
#include "perception/probe.h"
#include "snapper/snap.h"
#include "tools/cli.h"

/* A request line longer than this is refused (and skipped to its end):
 * a box, a label and a target fit in a few hundred bytes. */
#define SNAP_LINE_MAX (64 * 1024)
#define SNAP_MAX_TABS 8
/* An adopted tab's viewport is measured again at most this often (the user
 * may resize the window between requests). */
#define SNAP_VIEWPORT_REFRESH_MS 1000.0

static void snap_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea snap (--cdp EP [--target T] | --site DIR [--url PATH] | --url URL)\n"
            "                  [--click] [--no-humanize] [--allow-untrusted] [--no-verify]\n\n"
            "Grounding service: reads one JSON request per line on stdin,\n"
            "  {\"box\":[x0,y0,x1,y1], \"label\":\"Save\", \"intent\":\"click|expand|select\",\n"
            "   \"target\":\"tab id or URL substring\", \"id\":any, \"click\":true|false}\n"
            "(box in CSS px of the tab's viewport; only box is required) and writes one JSON\n"
            "line per request on stdout: the point, the element (tag, text, name, xpath,\n"
            "frame), \"match\" (exact|partial|none), the phase and score parts and the\n"
            "hit-target verdict; {\"ambiguous\":true,\"candidates\":[{name,role,tag,rect,\n"
            "point,xpath}..],\"why\":...} when the label cannot tell the controls in the box\n"
            "apart (nothing is clicked), or {\"abstain\":true,\"why\":...}; a malformed line\n"
            "gets {\"error\":...}; blank\n"
            "lines are skipped. EOF ends it (adopted tabs stay open).\n\n"
            "  --click          also click the element through the cascade and return the\n"
            "                   tool result (a request's \"click\" overrides)\n"
            "  --no-humanize    straight, untimed pointer events for --click\n"
            "  --allow-untrusted  let the cascade fall back to el.click() (tier 3)\n"
            "  --no-verify      skip the hit-target check of answers without a click\n"
            "                   (one evaluate less per request)\n");
    fputs(cli_browser_opts_help, f);
}

/* One tab the service answers for. */
typedef struct snap_tab {
    char id[64];
    cdp_page *page;
    cascade_hand *hand; /* created on the first click */
    int own;            /* page is freed by the service (not the session's) */
    double vp_at_ms;    /* when its viewport was last measured */
} snap_tab;

typedef struct snap_service {
    cli_session s;
    snap_tab tabs[SNAP_MAX_TABS];
    int ntabs;
    snap_tab *front; /* the tab brought to the front last */
    int click;
    int verify;
    cascade_opts co;
} snap_service;

typedef struct snap_req {
    base_rect box;
    const char *label;  /* borrowed from the parsed JSON */
    snap_intent_kind kind;
    const char *intent; /* as given, "" when absent */
    const char *target; /* NULL: the service's tab */
    int click;          /* -1 absent */
} snap_req;

/* Parses one request; on failure says why in why (and returns 0). */
static int parse_req(const cJSON *j, snap_req *r, char *why, size_t why_n)
{
    memset(r, 0, sizeof *r);
    r->click = -1;
    r->intent = "";
    if (!cJSON_IsObject(j)) {
        snprintf(why, why_n, "a request is a JSON object");
        return 0;
    }
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(j, "box");
    if (!cJSON_IsArray(box) || cJSON_GetArraySize(box) != 4) {
        snprintf(why, why_n, "\"box\" must be [x0,y0,x1,y1] (CSS px)");
        return 0;
    }
    double v[4];
    for (int i = 0; i < 4; i++) {
        const cJSON *x = cJSON_GetArrayItem(box, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e6) {
            snprintf(why, why_n, "\"box\"[%d] must be a finite number of CSS px", i);
            return 0;
        }
        v[i] = x->valuedouble;
    }
    if (!(v[2] > v[0] && v[3] > v[1])) {
        snprintf(why, why_n, "\"box\" is empty: need x1 > x0 and y1 > y0");
        return 0;
    }
    r->box = (base_rect){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(j, "label");
    if (label && !cJSON_IsNull(label)) {
        if (!cJSON_IsString(label)) {
            snprintf(why, why_n, "\"label\" must be a string");
            return 0;
        }
        r->label = label->valuestring;
    }
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(j, "intent");
    if (in && !cJSON_IsNull(in)) {
        if (!cJSON_IsString(in)) {
            snprintf(why, why_n, "\"intent\" must be \"click\", \"expand\" or \"select\"");
            return 0;
        }
        r->intent = in->valuestring;
        if (strcmp(r->intent, "click") == 0 || strcmp(r->intent, "any") == 0) {
            r->kind = SNAP_INTENT_ANY;
        } else if (strcmp(r->intent, "expand") == 0) {
            r->kind = SNAP_INTENT_EXPAND;
        } else if (strcmp(r->intent, "select") == 0) {
            r->kind = SNAP_INTENT_SELECT;
        } else {
            snprintf(why, why_n, "\"intent\" must be \"click\", \"expand\" or \"select\", got "
                                 "\"%.40s\"",
                     r->intent);
            return 0;
        }
    } else {
        /* No intent: a click, unless the label itself asks to expand. */
        r->kind = snap_classify_intent("click", r->label);
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "target");
    if (t && !cJSON_IsNull(t)) {
        if (!cJSON_IsString(t) || !t->valuestring[0]) {
            snprintf(why, why_n, "\"target\" must be a tab id or a URL substring");
            return 0;
        }
        r->target = t->valuestring;
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "click");
    if (c && !cJSON_IsNull(c)) {
        if (!cJSON_IsBool(c)) {
            snprintf(why, why_n, "\"click\" must be true or false");
            return 0;
        }
        r->click = cJSON_IsTrue(c);
    }
    return 1;
}

/* The tab a request is for: the service's own, or the one "target" names
 * (adopted on first use and kept). NULL with why set when none fits. */
static snap_tab *tab_for(snap_service *sv, const char *target, char *why, size_t why_n)
{
    if (!target)
        return &sv->tabs[0];
    char id[64];
    int r = cli_find_target(sv->s.browser, target, id, why, why_n);
    if (r)
        return NULL;
    for (int i = 0; i < sv->ntabs; i++) {
        if (strcmp(sv->tabs[i].id, id) == 0)
            return &sv->tabs[i];
    }
    if (sv->ntabs >= SNAP_MAX_TABS) {
        snprintf(why, why_n, "already serving %d tabs; start another fovea snap for more",
                 SNAP_MAX_TABS);
        return NULL;
    }
    snap_tab *t = &sv->tabs[sv->ntabs];
    memset(t, 0, sizeof *t);
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_page_adopt(sv->s.browser, id, &t->page, err) != BASE_OK) {
        snprintf(why, why_n, "cannot attach to tab %s: %s", id, err);
        return NULL;
    }
    /* Listeners the page adds after adoption are recorded by the kit; the
     * DOMDebugger fallback covers those added before (perception/kit.h). */
    if (perc_kit_install(t->page, err))
        fprintf(stderr, "fovea snap: note: tab %s: listener recorder not installed: %s\n", id,
                err);
    snprintf(t->id, sizeof t->id, "%s", id);
    t->own = 1;
    t->vp_at_ms = base_monotime_ms();
    sv->ntabs++;
    return t;
}

/* 1 while the browser still lists target id (or when it cannot be asked). */
static int tab_listed(snap_service *sv, const char *id)
{
    cdp_target_info *t = base_calloc(256, sizeof *t);
    int n = 0, found = 0;
    if (!t || cdp_browser_targets(sv->s.browser, t, 256, &n, NULL) != BASE_OK) {
        base_free(t);
        return 1;
    }
    for (int i = 0; i < n && i < 256 && !found; i++)
        found = strcmp(t[i].id, id) == 0;
    base_free(t);
    return found;
}

static cJSON *point_json(base_point p)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(round(p.x * 10) / 10));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(round(p.y * 10) / 10));
    return a;
}

static cJSON *rect_json(base_rect r)
{
    cJSON *a = cJSON_CreateArray();
    const float v[4] = {r.x0, r.y0, r.x1, r.y1};
    for (int i = 0; i < 4; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(round(v[i] * 10) / 10));
    return a;
}

static double r3(double v)
{
    return round(v * 1000) / 1000;
}

static const char *verdict_name(snap_verdict v)
{
    return v == SNAP_VERIFY_OK ? "ok" : v == SNAP_VERIFY_COVERED ? "covered" : "empty";
}

/* The cascade's effect bits by name, for clients that do not know the enum. */
static cJSON *effects_json(unsigned fx)
{
    /* Unchecked adds: the answer's builder drops the whole answer when an
     * allocation failed (base_alloc_thread_failures). */
    cJSON *a = cJSON_CreateArray();
    for (unsigned i = 0; i < 32; i++) {
        const char *name = (fx >> i) & 1u ? cascade_effect_name(1u << i) : NULL;
        if (name)
            cJSON_AddItemToArray(a, cJSON_CreateString(name));
    }
    return a;
}

static cJSON *click_json(const cascade_result *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "success", c->success);
    cJSON_AddStringToObject(o, "reason", c->success ? "ok" : cascade_reason_name(c->reason));
    cJSON_AddStringToObject(o, "message", c->message);
    cJSON *tr = cJSON_AddArrayToObject(o, "tried");
    for (int i = 0; i < c->n_tried && i < 3; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "tier", c->tried[i].tier);
        cJSON_AddBoolToObject(t, "success", c->tried[i].success);
        cJSON_AddNumberToObject(t, "ms", r3(c->tried[i].ms));
        cJSON_AddStringToObject(t, "outcome", c->tried[i].outcome);
        cJSON_AddItemToArray(tr, t);
    }
    cJSON *al = cJSON_AddArrayToObject(o, "alternatives");
    for (int i = 0; i < c->n_alternatives && i < 4; i++)
        cJSON_AddItemToArray(al, cJSON_CreateString(c->alternatives[i]));
    cJSON_AddItemToObject(o, "effects", effects_json(c->effects));
    if (c->effects & CASCADE_FX_NEW_TAB)
        cJSON_AddStringToObject(o, "new_target", c->new_target_id);
    if (c->effects & CASCADE_FX_DIALOG) {
        cJSON *d = cJSON_AddObjectToObject(o, "dialog");
        cJSON_AddStringToObject(d, "type", c->dialog_type);
        cJSON_AddStringToObject(d, "message", c->dialog_message);
    }
    if (c->n_tried > 0)
        cJSON_AddItemToObject(o, "clicked_at", point_json(c->clicked_at));
    cJSON_AddNumberToObject(o, "ms", r3(c->ms));
    return o;
}

/* The controls of an ambiguous answer: name, role, tag, rect, click point,
 * xpath, best first in reading order. */
static cJSON *alts_json(const perc_snap *sn)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < sn->n_alt; k++) {
        const perc_snap_alt *x = &sn->alt[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", x->name);
        cJSON_AddStringToObject(o, "role", x->role);
        cJSON_AddStringToObject(o, "tag", x->tag);
        cJSON_AddItemToObject(o, "rect", rect_json(x->rect));
        cJSON_AddItemToObject(o, "point", point_json(x->pt));
        cJSON_AddStringToObject(o, "xpath", x->xpath);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* Answers one parsed request into ans. Returns 0, or -1 when the browser
 * connection is gone (the caller ends the service after answering). */
static int answer(snap_service *sv, const snap_req *rq, cJSON *ans)
{
    double t0 = base_monotime_ms();
    char why[4096] = "";
    snap_tab *t = tab_for(sv, rq->target, why, sizeof why);
    if (!t) {
        cJSON_AddStringToObject(ans, "error", why);
        return cdp_conn_alive(cdp_browser_conn(sv->s.browser)) ? 0 : -1;
    }
    cJSON_AddStringToObject(ans, "target", t->id);
    if (!cdp_page_alive(t->page)) {
        cJSON_AddStringToObject(ans, "error", "the tab is gone (closed or crashed)");
        return cdp_conn_alive(cdp_browser_conn(sv->s.browser)) ? 0 : -1;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    if (t != sv->front) {
        /* A request for another tab switches to it first: a background tab
         * paints no frames, which the cascade's effect checks wait for. */
        if (cdp_page_activate(t->page, err) != BASE_OK) {
            cJSON_AddStringToObject(ans, "error", err);
            return 0;
        }
        sv->front = t;
    }
    if (cdp_page_adopted(t->page) && t0 - t->vp_at_ms > SNAP_VIEWPORT_REFRESH_MS) {
        if (cdp_page_refresh_viewport(t->page, err) == BASE_OK)
            t->vp_at_ms = t0;
    }
    int click = rq->click >= 0 ? rq->click : sv->click;
    snap_intent in = {rq->label, rq->kind};
    perc_snap sn;
    memset(&sn, 0, sizeof sn);
    /* With a click the cascade makes the hit-target check itself, right
     * before it presses (as fovea run does): do not pay for it twice. */
    base_err e = perc_snap_box(t->page, rq->box, &in, click ? 0 : sv->verify, &sn, err);
    if (e && !tab_listed(sv, t->id)) {
        /* The user closed the tab: say so rather than pass on the
         * protocol's "session not found". */
        snprintf(why, sizeof why, "the tab %s is gone (closed); name another with \"target\"",
                 t->id);
        cJSON_AddStringToObject(ans, "error", why);
        return cdp_conn_alive(cdp_browser_conn(sv->s.browser)) ? 0 : -1;
    }
    if (e) {
        cJSON_AddStringToObject(ans, "error", err);
        return cdp_conn_alive(cdp_browser_conn(sv->s.browser)) ? 0 : -1;
    }
    /* In the request's words: a plain click is "click", not "any". */
    cJSON_AddStringToObject(ans, "intent",
                            rq->kind == SNAP_INTENT_ANY ? "click" : snap_intent_name(rq->kind));
    cJSON_AddStringToObject(ans, "phase", snap_phase_name(sn.res.phase));
    if (!sn.found) {
        /* Ambiguous: nothing pressed, the controls listed for the caller to
         * name one (by its point or a narrower box); else an abstention. */
        if (sn.res.ambiguous) {
            cJSON_AddBoolToObject(ans, "ambiguous", 1);
            cJSON_AddItemToObject(ans, "candidates", alts_json(&sn));
        } else {
            cJSON_AddBoolToObject(ans, "abstain", 1);
        }
        cJSON_AddStringToObject(ans, "why", sn.res.reason);
        cJSON_AddItemToObject(ans, "box_center", point_json(sn.pt));
        cJSON *ms = cJSON_AddObjectToObject(ans, "ms");
        cJSON_AddNumberToObject(ms, "probe", r3(sn.probe_ms));
        cJSON_AddNumberToObject(ms, "total", r3(base_monotime_ms() - t0));
        return 0;
    }
    cJSON_AddBoolToObject(ans, "found", 1);
    cJSON_AddItemToObject(ans, "point", point_json(sn.pt));
    /* What the element's names make of the label: exact, partial, none. */
    cJSON_AddStringToObject(ans, "match", snap_match_grade(sn.res.match));
    cJSON *el = cJSON_AddObjectToObject(ans, "element");
    cJSON_AddStringToObject(el, "tag", sn.tag);
    cJSON_AddStringToObject(el, "text", sn.text);
    cJSON_AddStringToObject(el, "name", sn.name);
    cJSON_AddStringToObject(el, "xpath", sn.xpath);
    cJSON_AddStringToObject(el, "frame", sn.frame_id);
    cJSON_AddItemToObject(el, "rect", rect_json(sn.rect));
    cJSON_AddBoolToObject(el, "disabled", sn.disabled);
    cJSON *sc = cJSON_AddObjectToObject(ans, "score");
    cJSON_AddNumberToObject(sc, "area", r3(sn.res.score.area));
    cJSON_AddNumberToObject(sc, "label", r3(sn.res.score.label));
    cJSON_AddNumberToObject(sc, "chevron", r3(sn.res.score.chevron));
    cJSON_AddNumberToObject(sc, "total", r3(sn.res.score.total));
    cJSON_AddStringToObject(ans, "reason", sn.res.reason);
    int rc = 0;
    if (click) {
        if (!t->hand && (e = cascade_hand_create(t->page, &sv->co, &t->hand, err))) {
            cJSON_AddStringToObject(ans, "error", err);
            return 0;
        }
        cascade_target ct;
        memset(&ct, 0, sizeof ct);
        ct.xpath = sn.xpath;
        ct.frame_id = sn.frame_id;
        ct.pt = sn.pt;
        ct.have_pt = 1;
        ct.origin = sn.frame_offset;
        ct.have_origin = 1;
        ct.label = rq->label;
        cascade_result c;
        memset(&c, 0, sizeof c);
        e = cascade_click(t->hand, &ct, &c, err);
        cJSON *hit = cJSON_AddObjectToObject(ans, "hit");
        cJSON_AddStringToObject(hit, "verdict", c.reason == CASCADE_COVERED ? "covered"
                                                : c.n_tried > 0            ? "ok"
                                                                           : "unchecked");
        if (c.reason == CASCADE_COVERED)
            cJSON_AddStringToObject(hit, "covering", c.message);
        cJSON_AddItemToObject(ans, "click", click_json(&c));
        if (e) {
            cJSON_AddStringToObject(ans, "error", err);
            rc = cdp_conn_alive(cdp_browser_conn(sv->s.browser)) ? 0 : -1;
        }
    } else if (sv->verify) {
        cJSON *hit = cJSON_AddObjectToObject(ans, "hit");
        cJSON_AddStringToObject(hit, "verdict", verdict_name(sn.verdict));
        if (sn.verdict == SNAP_VERIFY_COVERED)
            cJSON_AddStringToObject(hit, "covering", sn.covering);
    }
    cJSON *ms = cJSON_AddObjectToObject(ans, "ms");
    cJSON_AddNumberToObject(ms, "probe", r3(sn.probe_ms));
    cJSON_AddNumberToObject(ms, "total", r3(base_monotime_ms() - t0));
    return rc;
}

/* Writes one answer line and flushes. Returns 0, -1 when stdout is gone. */
static int emit(cJSON *ans)
{
    char *s = ans ? cJSON_PrintUnformatted(ans) : NULL;
    int rc = -1;
    if (s) {
        rc = fputs(s, stdout) < 0 || fputc('\n', stdout) == EOF || fflush(stdout) ? -1 : 0;
        cJSON_free(s);
    } else {
        /* Out of memory for the text: still answer, in fixed form. */
        rc = fputs("{\"error\":\"out of memory\"}\n", stdout) < 0 || fflush(stdout) ? -1 : 0;
    }
    return rc;
}

/* Copies the request's "id" (any JSON value) into the answer first, so a
 * client can match answers even when it pipelines requests. */
static void echo_id(const cJSON *req, cJSON *ans)
{
    const cJSON *id = cJSON_IsObject(req) ? cJSON_GetObjectItemCaseSensitive(req, "id") : NULL;
    if (id)
        cJSON_AddItemToObject(ans, "id", cJSON_Duplicate(id, 1));
}

static void service_close(snap_service *sv)
{
    for (int i = 0; i < sv->ntabs; i++) {
        cascade_hand_destroy(sv->tabs[i].hand);
        if (sv->tabs[i].own)
            cdp_page_close(sv->tabs[i].page);
    }
    cli_session_close(&sv->s);
}

/* Reads the rest of an over-long line. Returns 0 at its end, EOF at EOF. */
static int skip_line(FILE *in)
{
    int ch;
    while ((ch = fgetc(in)) != EOF) {
        if (ch == '\n')
            return 0;
    }
    return EOF;
}

int cli_cmd_snap(int argc, char **argv)
{
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    snap_service *sv = base_calloc(1, sizeof *sv);
    if (!sv) {
        fprintf(stderr, "fovea snap: out of memory\n");
        return 1;
    }
    sv->verify = 1;
    cascade_opts_init(&sv->co);
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0) {
            base_free(sv);
            return 2;
        }
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            snap_usage(stdout);
            base_free(sv);
            return 0;
        } else if (strcmp(a, "--click") == 0) {
            sv->click = 1;
        } else if (strcmp(a, "--no-humanize") == 0) {
            sv->co.humanize = 0;
        } else if (strcmp(a, "--allow-untrusted") == 0) {
            sv->co.allow_untrusted = 1;
        } else if (strcmp(a, "--no-verify") == 0) {
            sv->verify = 0;
        } else {
            fprintf(stderr, "fovea snap: unknown option %s\n", a);
            snap_usage(stderr);
            base_free(sv);
            return 2;
        }
    }
    if (!bo.cdp && !bo.url && !bo.site) {
        fprintf(stderr, "fovea snap: give --cdp (a running browser) or --url/--site\n");
        snap_usage(stderr);
        base_free(sv);
        return 2;
    }
    if (cli_session_open(&sv->s, &bo)) {
        base_free(sv);
        return 1;
    }
    snap_tab *t0 = &sv->tabs[0];
    t0->page = sv->s.page;
    snprintf(t0->id, sizeof t0->id, "%s", cdp_page_target_id(sv->s.page));
    t0->vp_at_ms = base_monotime_ms();
    sv->ntabs = 1;
    sv->front = t0; /* cli_session_open brought an adopted tab to the front */
    const cdp_page_opts *vp = cdp_page_viewport(sv->s.page);
    fprintf(stderr, "fovea snap: %s tab %s (%.200s, %dx%d @%g); one JSON request per line\n",
            cdp_page_adopted(sv->s.page) ? "attached to" : "opened", t0->id, sv->s.url,
            vp->width, vp->height, vp->scale);

    char *line = base_malloc(SNAP_LINE_MAX + 2);
    int status = line ? 0 : 1;
    long n_req = 0, n_err = 0;
    while (line && fgets(line, SNAP_LINE_MAX + 2, stdin)) {
        size_t len = strlen(line);
        int complete = len > 0 && line[len - 1] == '\n';
        int at_eof = 0;
        if (!complete && len > SNAP_LINE_MAX)
            at_eof = skip_line(stdin) == EOF;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        const char *p = line + strspn(line, " \t");
        if (!*p && len <= SNAP_LINE_MAX)
            continue; /* blank lines are not requests */
        n_req++;
        unsigned long fails0 = base_alloc_thread_failures();
        cJSON *ans = cJSON_CreateObject();
        int rc = 0;
        if (!ans) {
            /* emit() answers {"error":"out of memory"} for a NULL answer. */
        } else if (len > SNAP_LINE_MAX) {
            cJSON_AddStringToObject(ans, "error", "request line longer than 64 KiB");
        } else {
            const char *end = NULL;
            /* One value per line: trailing text is an error, not ignored. */
            cJSON *req = cJSON_ParseWithOpts(p, &end, 1);
            char why[256] = "";
            snap_req rq;
            if (!req) {
                size_t at = end ? (size_t)(end - p) : 0;
                snprintf(why, sizeof why, "not JSON (at byte %zu)", at);
                cJSON_AddStringToObject(ans, "error", why);
            } else {
                echo_id(req, ans);
                if (!parse_req(req, &rq, why, sizeof why))
                    cJSON_AddStringToObject(ans, "error", why);
                else
                    rc = answer(sv, &rq, ans);
            }
            cJSON_Delete(req);
        }
        /* The answer's members are added unchecked: if any allocation failed
         * while it was made, one may be missing, and a client must not act
         * on a partial answer. It gets the fixed out-of-memory one instead. */
        if (ans && base_alloc_thread_failures() != fails0) {
            cJSON_Delete(ans);
            ans = NULL;
        }
        if (!ans || cJSON_GetObjectItemCaseSensitive(ans, "error"))
            n_err++;
        if (emit(ans) < 0) {
            cJSON_Delete(ans);
            fprintf(stderr, "fovea snap: cannot write the answer (stdout closed?)\n");
            status = 1;
            break;
        }
        cJSON_Delete(ans);
        if (rc < 0) {
            fprintf(stderr, "fovea snap: the browser connection is gone\n");
            status = 1;
            break;
        }
        if (at_eof)
            break;
    }
    base_free(line);
    fprintf(stderr, "fovea snap: %ld requests, %ld errors\n", n_req, n_err);
    service_close(sv);
    base_free(sv);
    return status;
}
