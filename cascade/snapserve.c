/* cascade/snapserve.c: the `fovea snap` protocol (cascade/snapserve.h).
 *
 * One service holds the tabs it answers for (the one it was created with,
 * plus those requests adopted by "target"), each with the hand created on
 * its first click. A request is parsed (every field checked, with a message
 * naming it), routed to its tab (brought to the front first: a background
 * tab paints no frames, which the cascade's effect checks wait for), snapped
 * with perc_snap_box and, when asked, clicked with cascade_click. The answer
 * reuses the one JSON form of each result: perc_snap_json for the snap and
 * cascade_result_json for the click, so the protocol, the trace and the
 * tests read the same keys with the same rounding.
 *
 * Answers are built with unchecked cJSON adds; an allocation that failed
 * meanwhile (base_alloc_thread_failures) drops the whole answer, so a client
 * never acts on a partial one.
 */
#include "cascade/snapserve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "base/json_alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "perception/kit.h"
#include "perception/probe.h"
#include "snapper/snap.h"

/* An adopted tab's viewport is measured again at most this often (the user
 * may resize the window between requests). */
#define VIEWPORT_REFRESH_MS 1000.0

/* One tab the service answers for. */
typedef struct snap_tab {
    char id[64];
    cdp_page *page;
    cascade_hand *hand; /* created on the first click */
    int own;            /* page is closed by the service (adopted by a request) */
    double vp_at_ms;    /* when its viewport was last measured */
} snap_tab;

struct cascade_snapserve {
    cdp_browser *browser;
    cascade_snapserve_opts o;
    snap_tab tabs[CASCADE_SNAPSERVE_MAX_TABS];
    int ntabs;
    snap_tab *front; /* the tab brought to the front last */
};

typedef struct snap_req {
    base_rect box;
    const char *label; /* borrowed from the parsed JSON */
    snap_intent_kind kind;
    const char *intent; /* as given, "" when absent */
    const char *target; /* NULL: the service's tab */
    int click;          /* -1 absent */
} snap_req;

void cascade_snapserve_opts_init(cascade_snapserve_opts *o)
{
    memset(o, 0, sizeof *o);
    o->verify = 1;
    cascade_opts_init(&o->co);
}

base_err cascade_snapserve_create(cdp_browser *b, cdp_page *page, const cascade_snapserve_opts *opts,
                                cascade_snapserve **out, char *err)
{
    if (!b || !page || !opts || !out)
        return base_errf(err, BASE_EINVAL, "snapserve: NULL argument");
    cascade_snapserve *sv = base_calloc(1, sizeof *sv);
    if (!sv)
        return base_errf(err, BASE_ENOMEM, "snapserve: out of memory");
    sv->browser = b;
    sv->o = *opts;
    snap_tab *t0 = &sv->tabs[0];
    t0->page = page;
    snprintf(t0->id, sizeof t0->id, "%s", cdp_page_target_id(page));
    t0->vp_at_ms = base_monotime_ms();
    sv->ntabs = 1;
    sv->front = t0; /* the caller opened it or brought an adopted tab to the front */
    *out = sv;
    return BASE_OK;
}

void cascade_snapserve_destroy(cascade_snapserve *sv)
{
    if (!sv)
        return;
    for (int i = 0; i < sv->ntabs; i++) {
        cascade_hand_destroy(sv->tabs[i].hand);
        if (sv->tabs[i].own)
            cdp_page_close(sv->tabs[i].page);
    }
    base_free(sv);
}

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
static snap_tab *tab_for(cascade_snapserve *sv, const char *target, char *why, size_t why_n)
{
    if (!target)
        return &sv->tabs[0];
    if (!sv->o.find_target) {
        snprintf(why, why_n, "this service answers for one tab: \"target\" is not supported");
        return NULL;
    }
    char id[64] = "";
    if (sv->o.find_target(sv->o.find_user, sv->browser, target, id, why, why_n))
        return NULL;
    for (int i = 0; i < sv->ntabs; i++) {
        if (strcmp(sv->tabs[i].id, id) == 0)
            return &sv->tabs[i];
    }
    if (sv->ntabs >= CASCADE_SNAPSERVE_MAX_TABS) {
        snprintf(why, why_n, "already serving %d tabs; start another fovea snap for more",
                 CASCADE_SNAPSERVE_MAX_TABS);
        return NULL;
    }
    snap_tab *t = &sv->tabs[sv->ntabs];
    memset(t, 0, sizeof *t);
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_page_adopt(sv->browser, id, &t->page, err) != BASE_OK) {
        snprintf(why, why_n, "cannot attach to tab %s: %s", id, err);
        return NULL;
    }
    /* Listeners the page adds after adoption are recorded by the kit; the
     * DOMDebugger fallback covers those added before (perception/kit.h). */
    if (perc_kit_install(t->page, err))
        base_log(BASE_LOG_CASCADE, BASE_LOG_WARN,
                 "snapserve: tab %s: listener recorder not installed: %s", id, err);
    snprintf(t->id, sizeof t->id, "%s", id);
    t->own = 1;
    t->vp_at_ms = base_monotime_ms();
    sv->ntabs++;
    return t;
}

/* The user's tab crashed and they reloaded it: the target id is the same,
 * the session fovea had is dead. Attaches to the tab again by its id (the
 * service then owns the new handle); on failure t stays as it was and the
 * request is answered "gone". */
static void readopt(cascade_snapserve *sv, snap_tab *t)
{
    cdp_page *np = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_page_adopt(sv->browser, t->id, &np, err) != BASE_OK) {
        base_log(BASE_LOG_CASCADE, BASE_LOG_INFO, "snapserve: tab %s not re-adopted: %s", t->id,
                 err);
        return;
    }
    if (perc_kit_install(np, err))
        base_log(BASE_LOG_CASCADE, BASE_LOG_WARN,
                 "snapserve: tab %s: listener recorder not installed: %s", t->id, err);
    cascade_hand_destroy(t->hand);
    t->hand = NULL;
    if (t->own)
        cdp_page_close(t->page);
    t->page = np;
    t->own = 1;
    t->vp_at_ms = base_monotime_ms();
    base_log(BASE_LOG_CASCADE, BASE_LOG_INFO, "snapserve: tab %s re-adopted after a crash",
             t->id);
}

/* 1 while the browser still lists target id (or when it cannot be asked). */
static int tab_listed(cascade_snapserve *sv, const char *id)
{
    cdp_target_info *t = base_calloc(256, sizeof *t);
    int n = 0, found = 0;
    if (!t || cdp_browser_targets(sv->browser, t, 256, &n, NULL) != BASE_OK) {
        base_free(t);
        return 1;
    }
    for (int i = 0; i < n && i < 256 && !found; i++)
        found = strcmp(t[i].id, id) == 0;
    base_free(t);
    return found;
}

static int conn_gone(cascade_snapserve *sv)
{
    return !cdp_conn_alive(cdp_browser_conn(sv->browser));
}

static void add_ms(cJSON *ans, double probe_ms, double t0)
{
    cJSON *ms = cJSON_AddObjectToObject(ans, "ms");
    cJSON_AddNumberToObject(ms, "probe", perc_json_score(probe_ms));
    cJSON_AddNumberToObject(ms, "total", perc_json_score(base_monotime_ms() - t0));
}

/* Moves member k of from into to (the snap answer's members sit at the
 * answer's top level in the protocol). */
static void move_item(cJSON *from, const char *k, cJSON *to, const char *as)
{
    cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(from, k);
    if (x)
        base_json_add(to, as ? as : k, x);
}

/* Answers one parsed request into ans. Returns 0, or -1 when the browser
 * connection is gone (the caller ends the service after answering). */
static int answer(cascade_snapserve *sv, const snap_req *rq, cJSON *ans)
{
    double t0 = base_monotime_ms();
    char why[4096] = "";
    snap_tab *t = tab_for(sv, rq->target, why, sizeof why);
    if (!t) {
        cJSON_AddStringToObject(ans, "error", why);
        return conn_gone(sv) ? -1 : 0;
    }
    cJSON_AddStringToObject(ans, "target", t->id);
    if (!cdp_page_alive(t->page) && cdp_page_adopted(t->page) && !conn_gone(sv) &&
        tab_listed(sv, t->id))
        readopt(sv, t);
    if (!cdp_page_alive(t->page)) {
        cJSON_AddStringToObject(ans, "error", "the tab is gone (closed or crashed)");
        return conn_gone(sv) ? -1 : 0;
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
    if (cdp_page_adopted(t->page) && t0 - t->vp_at_ms > VIEWPORT_REFRESH_MS) {
        if (cdp_page_refresh_viewport(t->page, err) == BASE_OK)
            t->vp_at_ms = t0;
    }
    int click = rq->click >= 0 ? rq->click : sv->o.click;
    snap_intent in = {rq->label, rq->kind};
    perc_snap sn;
    memset(&sn, 0, sizeof sn);
    /* With a click the cascade makes the hit-target check itself, right
     * before it presses (as fovea run does): do not pay for it twice. */
    base_err e = perc_snap_box(t->page, rq->box, &in, click ? 0 : sv->o.verify, &sn, err);
    if (e && !tab_listed(sv, t->id)) {
        /* The user closed the tab: say so rather than pass on the
         * protocol's "session not found". */
        snprintf(why, sizeof why, "the tab %s is gone (closed); name another with \"target\"",
                 t->id);
        cJSON_AddStringToObject(ans, "error", why);
        return conn_gone(sv) ? -1 : 0;
    }
    if (e) {
        cJSON_AddStringToObject(ans, "error", err);
        return conn_gone(sv) ? -1 : 0;
    }
    /* In the request's words: a plain click is "click", not "any". */
    cJSON_AddStringToObject(ans, "intent",
                            rq->kind == SNAP_INTENT_ANY ? "click" : snap_intent_name(rq->kind));
    cJSON *sj = perc_snap_json(&sn);
    if (!sj)
        return 0; /* the caller sees the failed allocation and answers so */
    move_item(sj, "phase", ans, NULL);
    if (!sn.found) {
        /* Ambiguous: nothing pressed, the controls listed for the caller to
         * name one (by its point or a narrower box); else an abstention. */
        if (sn.res.ambiguous) {
            move_item(sj, "ambiguous", ans, NULL);
            move_item(sj, "candidates", ans, NULL);
        } else {
            cJSON_AddBoolToObject(ans, "abstain", 1);
        }
        move_item(sj, "reason", ans, "why");
        move_item(sj, "point", ans, "box_center");
        cJSON_Delete(sj);
        add_ms(ans, sn.probe_ms, t0);
        return 0;
    }
    move_item(sj, "found", ans, NULL);
    move_item(sj, "point", ans, NULL);
    /* What the element's names make of the label: exact, partial, none. */
    move_item(sj, "match", ans, NULL);
    move_item(sj, "element", ans, NULL);
    move_item(sj, "score", ans, NULL);
    move_item(sj, "reason", ans, NULL);
    cJSON_Delete(sj);
    int rc = 0;
    if (click) {
        if (!t->hand && (e = cascade_hand_create(t->page, &sv->o.co, &t->hand, err))) {
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
        base_json_add(ans, "click", cascade_result_json(&c));
        if (e) {
            cJSON_AddStringToObject(ans, "error", err);
            rc = conn_gone(sv) ? -1 : 0;
        }
    } else if (sv->o.verify) {
        cJSON *hit = cJSON_AddObjectToObject(ans, "hit");
        cJSON_AddStringToObject(hit, "verdict", perc_verdict_name(sn.verdict));
        if (sn.verdict == SNAP_VERIFY_COVERED)
            cJSON_AddStringToObject(hit, "covering", sn.covering);
    }
    add_ms(ans, sn.probe_ms, t0);
    return rc;
}

cJSON *cascade_snapserve_answer(cascade_snapserve *sv, const cJSON *req, int *gone)
{
    if (gone)
        *gone = 0;
    unsigned long fails0 = base_alloc_thread_failures();
    cJSON *ans = cJSON_CreateObject();
    if (!ans)
        return NULL;
    /* The request's "id" (any JSON value) comes first, so a client can
     * match answers even when it pipelines requests. */
    const cJSON *id = cJSON_IsObject(req) ? cJSON_GetObjectItemCaseSensitive(req, "id") : NULL;
    if (id)
        base_json_add(ans, "id", cJSON_Duplicate(id, 1));
    char why[256] = "";
    snap_req rq;
    int rc = 0;
    if (!sv || !parse_req(req, &rq, why, sizeof why))
        cJSON_AddStringToObject(ans, "error", sv ? why : "snapserve: NULL service");
    else
        rc = answer(sv, &rq, ans);
    if (gone)
        *gone = rc < 0;
    /* The answer's members are added unchecked: if any allocation failed
     * while it was made, one may be missing, and a client must not act on a
     * partial answer. */
    if (base_alloc_thread_failures() != fails0) {
        cJSON_Delete(ans);
        return NULL;
    }
    return ans;
}

/* An answer holding only {"error": msg}. */
static cJSON *error_answer(const char *msg)
{
    unsigned long fails0 = base_alloc_thread_failures();
    cJSON *ans = cJSON_CreateObject();
    cJSON_AddStringToObject(ans, "error", msg);
    if (ans && base_alloc_thread_failures() != fails0) {
        cJSON_Delete(ans);
        return NULL;
    }
    return ans;
}

cJSON *cascade_snapserve_answer_line(cascade_snapserve *sv, const char *line, size_t len, int *blank,
                                   int *gone)
{
    if (blank)
        *blank = 0;
    if (gone)
        *gone = 0;
    if (len > CASCADE_SNAPSERVE_LINE_MAX)
        return error_answer("request line longer than 64 KiB");
    size_t sp = 0;
    while (sp < len && (line[sp] == ' ' || line[sp] == '\t' || line[sp] == '\r'))
        sp++;
    if (sp == len) {
        if (blank)
            *blank = 1; /* blank lines are not requests */
        return NULL;
    }
    /* A NUL byte would cut the copy below short (and, read as a string, the
     * line would look blank and get no answer at all): say so instead. */
    if (memchr(line + sp, '\0', len - sp))
        return error_answer("not JSON (a NUL byte in the request line)");
    /* A NUL-terminated copy: one value per line, trailing text is an
     * error, not ignored. */
    char *z = base_strndup(line + sp, len - sp);
    if (!z)
        return NULL;
    const char *end = NULL;
    cJSON *req = cJSON_ParseWithOpts(z, &end, 1);
    if (!req) {
        char why[64];
        snprintf(why, sizeof why, "not JSON (at byte %zu)", end ? (size_t)(end - z) : (size_t)0);
        base_free(z);
        return error_answer(why);
    }
    base_free(z);
    cJSON *ans = cascade_snapserve_answer(sv, req, gone);
    cJSON_Delete(req);
    return ans;
}

/* Writes one answer line and flushes. Returns 0, -1 when out is gone. */
static int emit(FILE *out, cJSON *ans)
{
    char *s = ans ? cJSON_PrintUnformatted(ans) : NULL;
    /* Strings come from the request ("id") and the page, which may hold any
     * bytes; cJSON passes bytes >= 0x80 through. Every JSON delimiter is
     * ASCII, so each invalid byte becomes U+FFFD and the line stays JSON,
     * now valid UTF-8 (a strict client's decoder would raise otherwise). */
    size_t n = s ? strlen(s) : 0;
    if (s && base_utf8_check(s, n) < n) {
        char *fixed = base_malloc(BASE_UTF8_REPAIR_CAP(n));
        if (fixed)
            base_utf8_repair(s, n, fixed, BASE_UTF8_REPAIR_CAP(n));
        cJSON_free(s);
        s = NULL;
        if (fixed) {
            int rc = fputs(fixed, out) < 0 || fputc('\n', out) == EOF || fflush(out) ? -1 : 0;
            base_free(fixed);
            return rc;
        }
    }
    int rc;
    if (s) {
        rc = fputs(s, out) < 0 || fputc('\n', out) == EOF || fflush(out) ? -1 : 0;
        cJSON_free(s);
    } else {
        /* Out of memory for the text: still answer, in fixed form. */
        rc = fputs("{\"error\":\"out of memory\"}\n", out) < 0 || fflush(out) ? -1 : 0;
    }
    return rc;
}

/* Reads one line, without its '\n', into line (cap bytes, NUL-terminated
 * within cap): *len is its length counted in bytes, NUL bytes included (fgets
 * and strlen would stop at the first, and a line starting with one would
 * read as blank). A line longer than cap - 1 is consumed whole and reported
 * as cap bytes long (over the limit). *at_eof is set when the input ended
 * with this line. Returns 0 for a line, EOF when nothing was left. */
static int read_line(FILE *in, char *line, size_t cap, size_t *len, int *at_eof)
{
    size_t n = 0;
    int ch = EOF, any = 0;
    while ((ch = getc(in)) != EOF) {
        any = 1;
        if (ch == '\n')
            break;
        if (n < cap - 1)
            line[n] = (char)ch;
        if (n < cap)
            n++;
    }
    if (!any)
        return EOF;
    line[n < cap ? n : cap - 1] = '\0';
    *len = n;
    *at_eof = ch == EOF;
    return 0;
}

base_err cascade_snapserve_run(cascade_snapserve *sv, FILE *in, FILE *out, long *n_req, long *n_err,
                             char *err)
{
    if (!sv || !in || !out)
        return base_errf(err, BASE_EINVAL, "snapserve: NULL argument");
    char *line = base_malloc(CASCADE_SNAPSERVE_LINE_MAX + 2);
    if (!line)
        return base_errf(err, BASE_ENOMEM, "snapserve: out of memory");
    long nr = 0, ne = 0;
    base_err e = BASE_OK;
    size_t len = 0;
    int at_eof = 0;
    while (read_line(in, line, CASCADE_SNAPSERVE_LINE_MAX + 1, &len, &at_eof) == 0) {
        while (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        int blank = 0, gone = 0;
        cJSON *ans = cascade_snapserve_answer_line(sv, line, len, &blank, &gone);
        if (blank)
            continue;
        nr++;
        if (!ans || cJSON_GetObjectItemCaseSensitive(ans, "error"))
            ne++;
        int w = emit(out, ans);
        cJSON_Delete(ans);
        if (w < 0) {
            e = base_errf(err, BASE_EIO, "cannot write the answer (output closed?)");
            break;
        }
        if (gone) {
            e = base_errf(err, BASE_ECLOSED, "the browser connection is gone");
            break;
        }
        if (at_eof)
            break;
    }
    base_free(line);
    if (n_req)
        *n_req = nr;
    if (n_err)
        *n_err = ne;
    return e;
}
