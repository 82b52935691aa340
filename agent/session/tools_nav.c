/* agent/session/tools_nav.c: navigation, tabs, waiting and page-level control as
 * tools (issue 12; seed 002 §6.5 and Appendix A).
 *
 * navigate and open_tab go through the guards of agent/session/guard.h first (the
 * scheme, search-engine and off-site rules; a refusal is TOOL_BLOCKED and
 * nothing is sent to the page), then the challenge guard (a URL that just
 * answered with a captcha or an anti-bot interstitial is not opened again:
 * that would only trigger the same check). After the hop the main
 * document's HTTP status (cdp/netwatch.h) turns a 4xx/5xx page into
 * TOOL_HTTP_ERROR, and the challenge detector (assets/js/nav_challenge.js
 * plus the frame table) turns a captcha, an interstitial, a block, a geo
 * wall or a cookie wall into TOOL_CHALLENGE, naming what is there: fovea
 * detects, it never solves. A hop to a URL already visited with nothing
 * saved since (no new variable: no new fact) is reported as a revisit, so
 * an agent sees that it loops. Every hop is bracketed by
 * agent__watch_begin/end, which settles the page and schedules a fresh
 * vision pass: the previous page's [Vn] marks are no longer used.
 *
 * The session's navigation state (agent__nav: the site pin, the visits,
 * the URL that last answered with a challenge, the init scripts, one
 * network watcher per tab) hangs off fovea_session.nav and is freed by
 * agent__nav_free before the session closes its tabs.
 *
 * Everything runs on the session's thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/guard.h"
#include "agent/session/js.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/interrupt.h"
#include "base/log.h"
#include "base/regex.h"
#include "base/text.h"
#include "cdp/netwatch.h"
#include "perception/fingerprint.h"
#include "perception/kit.h"
#include "snapper/snap.h"

#define NAV_MAX_VISITS 128
#define NAV_MAX_SCRIPTS 8
#define NAV_SCRIPT_MAX (1u << 20)
#define NAV_WAIT_MAX_MS 120000
#define NAV_POLL_MS 100
/* How long a URL that answered with a challenge is not requested again:
 * "just returned" a check (seed 002 §6.5); later, a person may have passed
 * it in a headful browser, or the site may let the next visit through. */
#define NAV_CHALLENGE_HOLD_MS 60000.0
/* How long a hop waits for an anti-bot interstitial to clear by itself (a
 * "checking your browser" page that lets a real browser through after a
 * few seconds, as a person would wait for it), within the call's time. */
#define NAV_INTERSTITIAL_MS 10000.0

typedef struct nav_visit {
    char url[1024]; /* normalised (agent_url_normalize) */
    int n_vars;     /* variables saved when it was last visited */
    int count;
} nav_visit;

typedef struct nav_watch {
    cdp_page *page;
    cdp_netwatch *w;
} nav_watch;

struct agent__nav {
    char pin[1024];           /* the site pin when the start page had none ("" = s->start_url) */
    nav_visit visits[NAV_MAX_VISITS];
    int n_visits;
    char challenge_url[1024]; /* normalised URL that last answered with a blocking challenge */
    char challenge_what[160];
    double challenge_at;      /* base_monotime_ms of that answer */
    char *scripts[NAV_MAX_SCRIPTS]; /* init scripts, for tabs opened later */
    int n_scripts;
    nav_watch watch[AGENT__MAX_TABS + 1];
    int n_watch;
};

/* ---- state ------------------------------------------------------------------------ */

static agent__nav *nav_of(fovea_session *s)
{
    if (s->nav)
        return s->nav;
    agent__nav *nv = base_calloc(1, sizeof *nv);
    if (!nv)
        return NULL;
    /* The start page counts as visited: going back to it with nothing
     * learned is the plainest loop. */
    if (s->start_url[0] &&
        agent_url_normalize(s->start_url, nv->visits[0].url, sizeof nv->visits[0].url) ==
            BASE_OK) {
        nv->visits[0].count = 1;
        nv->n_visits = 1;
    }
    s->nav = nv;
    return nv;
}

void agent__nav_free(fovea_session *s)
{
    agent__nav *nv = s ? s->nav : NULL;
    if (!nv)
        return;
    for (int i = 0; i < nv->n_watch; i++)
        cdp_netwatch_destroy(nv->watch[i].w);
    for (int i = 0; i < nv->n_scripts; i++)
        base_free(nv->scripts[i]);
    base_free(nv);
    s->nav = NULL;
}

/* The network watcher of page p, created on first use (NULL when the page
 * refuses the Network domain; callers then go without a status). */
static cdp_netwatch *watch_of(fovea_session *s, cdp_page *p)
{
    agent__nav *nv = nav_of(s);
    if (!nv)
        return NULL;
    for (int i = 0; i < nv->n_watch; i++) {
        if (nv->watch[i].page == p)
            return nv->watch[i].w;
    }
    if (nv->n_watch >= (int)(sizeof nv->watch / sizeof nv->watch[0]))
        return NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_netwatch *w = NULL;
    if (cdp_netwatch_create(p, &w, err) != BASE_OK) {
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "network watcher: %s", err);
        return NULL;
    }
    nv->watch[nv->n_watch].page = p;
    nv->watch[nv->n_watch].w = w;
    nv->n_watch++;
    return w;
}

static void unwatch(fovea_session *s, cdp_page *p)
{
    agent__nav *nv = s->nav;
    for (int i = 0; nv && i < nv->n_watch; i++) {
        if (nv->watch[i].page == p) {
            cdp_netwatch_destroy(nv->watch[i].w);
            nv->watch[i] = nv->watch[--nv->n_watch];
            return;
        }
    }
}

void agent__nav_attach(fovea_session *s)
{
    /* Counting starts with the session, so a wait for network idle after a
     * click knows the requests the click started. */
    watch_of(s, s->page);
}

static base_err add_scripts(char *const *scripts, int n, cdp_page *p, char *err);

void agent__nav_tab_added(fovea_session *s, cdp_page *p)
{
    agent__nav *nv = s->nav;
    char err[BASE_ERRBUF_SIZE] = "";
    /* A popup's first document ran before fovea attached; its later loads
     * get the scripts. */
    if (nv && nv->n_scripts > 0 && add_scripts(nv->scripts, nv->n_scripts, p, err) != BASE_OK)
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "init scripts in the new tab: %s", err);
    watch_of(s, p);
}

/* The page's URL as the browser has it (secrets unmasked: for resolving
 * and guarding only; every string of a result is scrubbed by tool_call). */
static void real_url(cdp_page *p, char *buf, size_t n)
{
    buf[0] = '\0';
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "location.href", &v, 3000, NULL) == BASE_OK && cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(v);
}

static const char *pin_of(fovea_session *s, agent__nav *nv)
{
    return nv->pin[0] ? nv->pin : s->start_url;
}

/* r->data as an object (created on first use); NULL on allocation failure. */
static cJSON *data_of(tool_result *r)
{
    if (!r->data)
        r->data = cJSON_CreateObject();
    return r->data;
}

static void put_str(cJSON *o, const char *k, const char *v)
{
    if (o)
        cJSON_AddStringToObject(o, k, v ? v : "");
}

static void put_num(cJSON *o, const char *k, double v)
{
    if (o)
        cJSON_AddNumberToObject(o, k, v);
}

static void put_bool(cJSON *o, const char *k, int v)
{
    if (o)
        cJSON_AddBoolToObject(o, k, v);
}

/* The reason name for a cdp error of a navigation or page call. */
static const char *reason_of(base_err e)
{
    switch (e) {
    case BASE_ETIMEDOUT:
        return "timeout";
    case BASE_ECANCELED:
        return "interrupted";
    case BASE_ECLOSED:
        return "page_gone";
    default:
        return "error";
    }
}

/* ---- challenge detection ------------------------------------------------------------ */

/* Captcha providers by the URL of a frame (an out-of-process iframe that the
 * main document's script cannot look into). */
static const struct {
    const char *host, *vendor;
} captcha_hosts[] = {
    {"google.com/recaptcha", "reCAPTCHA"},  {"recaptcha.net/recaptcha", "reCAPTCHA"},
    {"hcaptcha.com", "hCaptcha"},           {"challenges.cloudflare.com", "Cloudflare Turnstile"},
    {"arkoselabs.com", "Arkose Labs"},      {"funcaptcha.com", "Arkose Labs"},
    {"geetest.com", "GeeTest"},             {"captcha-delivery.com", "DataDome"},
};

static int found_vendor(const cJSON *found, const char *vendor)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, found)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "vendor");
        if (cJSON_IsString(v) && strcmp(v->valuestring, vendor) == 0)
            return 1;
    }
    return 0;
}

/* Runs the detector on the page: *out = {found: [...], blocking} (the
 * caller's), what (n bytes) = a one-line summary of the blocking findings
 * ("" when none). Errors: those of the page call. */
static base_err detect(fovea_session *s, cJSON **out, char *what, size_t n, char *err)
{
    what[0] = '\0';
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate_in(s->page, NULL, CDP_CTX_FOVEA,
                                      (const char *)fovea_js_nav_challenge, &v, 5000, err);
    if (e)
        return e;
    cJSON *found = cJSON_GetObjectItemCaseSensitive(v, "found");
    if (!cJSON_IsObject(v) || !cJSON_IsArray(found)) {
        cJSON_Delete(v);
        return base_errf(err, BASE_EPROTO, "the challenge detector returned no result");
    }
    cdp_frame frames[32];
    int nf = cdp_page_frames(s->page, frames, 32);
    for (int i = 1; i < nf && i < 32; i++) {
        for (size_t k = 0; k < sizeof captcha_hosts / sizeof captcha_hosts[0]; k++) {
            if (!strstr(frames[i].url, captcha_hosts[k].host) ||
                found_vendor(found, captcha_hosts[k].vendor))
                continue;
            int invisible = strstr(frames[i].url, "size=invisible") != NULL;
            cJSON *f = cJSON_CreateObject();
            if (!f)
                break;
            put_str(f, "kind", "captcha");
            put_str(f, "vendor", captcha_hosts[k].vendor);
            char ev[160];
            snprintf(ev, sizeof ev, "frame %.140s", frames[i].url);
            put_str(f, "evidence", ev);
            put_bool(f, "blocking", !invisible);
            cJSON_AddItemToArray(found, f);
            if (!invisible)
                cJSON_ReplaceItemInObjectCaseSensitive(v, "blocking", cJSON_CreateTrue());
        }
    }
    size_t k = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, found)
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "blocking")) || k + 1 >= n)
            continue;
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(f, "kind");
        const cJSON *vendor = cJSON_GetObjectItemCaseSensitive(f, "vendor");
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(f, "evidence");
        const char *vn = cJSON_IsString(vendor) ? vendor->valuestring : "?";
        k += (size_t)snprintf(what + k, n - k, "%s%s%s%s ('%.60s')", k ? ", " : "",
                              strcmp(vn, "unknown") == 0 || strcmp(vn, "site") == 0 ? "" : vn,
                              strcmp(vn, "unknown") == 0 || strcmp(vn, "site") == 0 ? "" : " ",
                              cJSON_IsString(kind) ? kind->valuestring : "?",
                              cJSON_IsString(ev) ? ev->valuestring : "");
        if (k >= n)
            k = n - 1;
    }
    *out = v;
    return BASE_OK;
}

/* ---- the hop ------------------------------------------------------------------------ */

/* 1 when every blocking finding is an interstitial (a check the browser
 * may pass by itself), none a captcha, block or wall that needs a person. */
static int only_interstitial(const cJSON *v)
{
    int any = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(v, "found"))
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "blocking")))
            continue;
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(f, "kind");
        if (!cJSON_IsString(k) || strcmp(k->valuestring, "interstitial") != 0)
            return 0;
        any = 1;
    }
    return any;
}

/* Polls the detector while the page shows only an interstitial, until it
 * clears or until_ms. *found and what are replaced by the last reading.
 * Returns the ms it took to clear, or -1. */
static double wait_interstitial(fovea_session *s, cJSON **found, char *what, size_t n,
                                double until_ms)
{
    double t0 = base_monotime_ms();
    while (what[0] && only_interstitial(*found) && base_monotime_ms() < until_ms) {
        if (base_interrupt_sleep_ms(4 * NAV_POLL_MS))
            return -1;
        cJSON *f2 = NULL;
        char w2[200];
        /* The page may be between documents (the check redirects): read
         * again at the next poll. */
        if (detect(s, &f2, w2, sizeof w2, NULL) != BASE_OK)
            continue;
        cJSON_Delete(*found);
        *found = f2;
        snprintf(what, n, "%s", w2);
    }
    if (what[0])
        return -1;
    /* Cleared: let the page it went to finish loading. */
    for (int i = 0; i < 30; i++) {
        cJSON *v = NULL;
        int done = cdp_page_evaluate(s->page, "document.readyState", &v, 1000, NULL) == BASE_OK &&
                   cJSON_IsString(v) && strcmp(v->valuestring, "complete") == 0;
        cJSON_Delete(v);
        if (done || base_interrupt_sleep_ms(NAV_POLL_MS))
            break;
    }
    return base_monotime_ms() - t0;
}

static nav_visit *find_visit(agent__nav *nv, const char *norm)
{
    for (int i = 0; i < nv->n_visits; i++) {
        if (strcmp(nv->visits[i].url, norm) == 0)
            return &nv->visits[i];
    }
    return NULL;
}

/* Checks url against the guards (relative to the current page). Returns 1
 * with v filled when allowed; 0 with r's failure set. */
static int guard(fovea_session *s, agent__nav *nv, const char *url, agent_guard_verdict *v,
                 tool_result *r)
{
    char cur[AGENT_URL_MAX];
    real_url(s->page, cur, sizeof cur);
    agent_guard_rule rule =
        agent_guard_check(pin_of(s, nv), s->o.allow_hosts, cur[0] ? cur : NULL, url, v);
    cJSON *d = data_of(r);
    put_str(d, "url", v->url[0] ? v->url : url);
    put_str(d, "guard", agent_guard_rule_name(rule));
    if (rule == AGENT_GUARD_OK) {
        put_str(d, "allowed_by", v->why);
        return 1;
    }
    agent__failf(&r->rec, rule == AGENT_GUARD_BAD_URL ? "bad_args" : "blocked", "%s", v->message);
    return 0;
}

/* Navigates the session's page to v->url (allowed by the guards): the
 * challenge guard, the hop itself with settling and a new vision pass, the
 * HTTP status, the challenge detector, the revisit check. Returns success. */
static int hop(fovea_session *s, agent__nav *nv, const agent_guard_verdict *v, int timeout_ms,
               const char *verb, tool_result *r)
{
    double t_start = base_monotime_ms();
    cJSON *d = data_of(r);
    char norm[1024];
    agent_url_normalize(v->url, norm, sizeof norm);
    if (nv->challenge_url[0] && strcmp(norm, nv->challenge_url) == 0 &&
        base_monotime_ms() - nv->challenge_at < NAV_CHALLENGE_HOLD_MS) {
        agent__failf(&r->rec, "challenge",
                     "%.200s not opened again: it answered with %.120s %.0f s ago, and opening "
                     "it again only triggers the same check (fovea detects challenges, it does "
                     "not solve them)",
                     v->url, nv->challenge_what, (base_monotime_ms() - nv->challenge_at) / 1000);
        return 0;
    }
    nav_visit *vis = find_visit(nv, norm);
    int revisit = vis && vis->n_vars == s->n_vars;
    cdp_netwatch *w = watch_of(s, s->page);
    cdp_netstat before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    if (w)
        cdp_netwatch_get(w, &before);
    agent__settle st;
    agent__watch_begin(s, &st);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_navigate(s->page, v->url, timeout_ms, err);
    /* Page.navigate was sent: the hop may have happened, never repeat it. */
    s->delivered = 1;
    agent__watch_end(s, &st, &r->rec, verb);
    if (w)
        cdp_netwatch_get(w, &after);
    int status = w && after.doc_seq != before.doc_seq ? after.doc_status : 0;
    /* Count the visit whatever came of it. */
    if (!vis && nv->n_visits < NAV_MAX_VISITS) {
        vis = &nv->visits[nv->n_visits++];
        snprintf(vis->url, sizeof vis->url, "%s", norm);
    }
    if (vis) {
        vis->count++;
        vis->n_vars = s->n_vars;
    }
    char now[AGENT_URL_MAX];
    fovea_session_page_url(s, now, sizeof now);
    put_str(d, "landed", now);
    if (status)
        put_num(d, "status", status);
    put_bool(d, "revisit", revisit);
    put_num(d, "visits", vis ? vis->count : 1);
    if (e == BASE_EREMOTE && status >= 400) {
        agent__failf(&r->rec, "http_error",
                     "HTTP %d at %.200s: the server answered with an error page; do not act on "
                     "it",
                     status, v->url);
        return 0;
    }
    if (e) {
        agent__failf(&r->rec, reason_of(e), "%s", err);
        return 0;
    }
    /* A server may redirect the hop elsewhere: the guards hold for where
     * it landed too (a sign-in hand-off to a safe-listed host passes). */
    char landed[AGENT_URL_MAX];
    real_url(s->page, landed, sizeof landed);
    agent_guard_verdict *lv = base_malloc(sizeof *lv);
    if (lv && landed[0] &&
        agent_guard_check(pin_of(s, nv), s->o.allow_hosts, NULL, landed, lv) ==
            AGENT_GUARD_OFF_SITE) {
        put_bool(d, "redirected_off_site", 1);
        agent__failf(&r->rec, "blocked",
                     "%.160s was redirected off the task's site to %.160s (rule off_site): do "
                     "not act there; go_back, or allow the host with allow_hosts",
                     v->url, now);
        base_free(lv);
        return 0;
    }
    base_free(lv);
    /* The first real page of a session that started on about:blank pins
     * the site. */
    agent_url su;
    if (!nv->pin[0] && (agent_url_parse(s->start_url, &su, NULL) != BASE_OK || !su.host[0]) &&
        strncmp(v->url, "http", 4) == 0)
        snprintf(nv->pin, sizeof nv->pin, "%.1000s", v->url);
    cJSON *found = NULL;
    char what[200];
    err[0] = '\0';
    double cleared_ms = -1;
    if (detect(s, &found, what, sizeof what, err) == BASE_OK) {
        if (what[0] && only_interstitial(found)) {
            double until = t_start + timeout_ms;
            if (until > base_monotime_ms() + NAV_INTERSTITIAL_MS)
                until = base_monotime_ms() + NAV_INTERSTITIAL_MS;
            cleared_ms = wait_interstitial(s, &found, what, sizeof what, until);
            if (cleared_ms >= 0) {
                /* It went on to the real page: that page is the hop's. */
                fovea_session_page_url(s, now, sizeof now);
                cJSON *ls = d ? cJSON_CreateString(now) : NULL;
                if (ls && !cJSON_ReplaceItemInObjectCaseSensitive(d, "landed", ls))
                    cJSON_Delete(ls);
                put_num(d, "interstitial_ms", cleared_ms);
                fovea_session_schedule(s, verb);
            }
        }
        if (!d || !cJSON_AddItemToObject(d, "challenge", found))
            cJSON_Delete(found); /* tool_call drops the data that lost it */
        if (what[0]) {
            snprintf(nv->challenge_url, sizeof nv->challenge_url, "%s", norm);
            snprintf(nv->challenge_what, sizeof nv->challenge_what, "%.159s", what);
            nv->challenge_at = base_monotime_ms();
            agent__failf(&r->rec, "challenge",
                         "%.160s shows %s; detection only: fovea does not solve it (a person "
                         "must, or use another route)",
                         now, what);
            return 0;
        }
    } else {
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "challenge detector: %s", err);
    }
    if (strcmp(norm, nv->challenge_url) == 0)
        nv->challenge_url[0] = '\0';
    char st_txt[96] = "";
    if (cleared_ms >= 0)
        snprintf(st_txt, sizeof st_txt, " (after an anti-bot interstitial that cleared by itself "
                                        "in %.0f ms)",
                 cleared_ms);
    else if (status)
        snprintf(st_txt, sizeof st_txt, " (HTTP %d)", status);
    if (revisit)
        agent__okf(&r->rec,
                   "%s %.200s%s; revisit: this URL was already visited (%d times now) and "
                   "nothing was saved since: the task may be looping",
                   verb, now, st_txt, vis ? vis->count : 2);
    else
        agent__okf(&r->rec, "%s %.200s%s", verb, now, st_txt);
    return 1;
}

/* ---- navigate, go_back, go_forward ------------------------------------------------- */

static int run_navigate(fovea_session *s, const cJSON *args, tool_result *r)
{
    agent__nav *nv = nav_of(s);
    if (!nv) {
        agent__failf(&r->rec, "error", "navigate: out of memory");
        return 0;
    }
    agent_guard_verdict v;
    if (!guard(s, nv, agent__arg_str(args, "url"), &v, r))
        return 0;
    return hop(s, nv, &v, agent__arg_int(args, "timeout_ms", 30000), "navigated to", r);
}

/* Moves delta entries through the tab's history. */
static int history_step(fovea_session *s, int delta, tool_result *r)
{
    const char *dir = delta < 0 ? "back" : "forward";
    cJSON *h = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_call(s->page, "Page.getNavigationHistory", NULL, &h, 5000, err);
    if (e) {
        agent__failf(&r->rec, reason_of(e), "go_%s: %s", dir, err);
        return 0;
    }
    const cJSON *cur = cJSON_GetObjectItemCaseSensitive(h, "currentIndex");
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(h, "entries");
    int n = cJSON_GetArraySize(entries);
    int at = cJSON_IsNumber(cur) ? cur->valueint : -1;
    int to = at + delta;
    /* The blank page a new tab starts on is no page to go back to. */
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(entries, 0), "url");
    int blank0 = cJSON_IsString(first) && strcmp(first->valuestring, "about:blank") == 0;
    if (at < 0 || to < (blank0 ? 1 : 0) || to >= n) {
        const cJSON *here = cJSON_GetArrayItem(entries, at);
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(here, "url");
        agent__failf(&r->rec, "not_found",
                     "go_%s: no page to go %s to: %.200s is the %s entry of this tab's history",
                     dir, dir, cJSON_IsString(u) ? u->valuestring : "the page",
                     delta < 0 ? "first" : "newest");
        cJSON_Delete(h);
        return 0;
    }
    const cJSON *ent = cJSON_GetArrayItem(entries, to);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(ent, "id");
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_IsNumber(id) || !cJSON_AddNumberToObject(pa, "entryId", id->valuedouble)) {
        cJSON_Delete(pa);
        cJSON_Delete(h);
        agent__failf(&r->rec, "error", "go_%s: bad history entry", dir);
        return 0;
    }
    cJSON_Delete(h);
    agent__settle st;
    agent__watch_begin(s, &st);
    e = cdp_page_call(s->page, "Page.navigateToHistoryEntry", pa, NULL, 10000, err);
    if (!e)
        s->delivered = 1;
    agent__watch_end(s, &st, &r->rec, dir);
    if (e) {
        agent__failf(&r->rec, reason_of(e), "go_%s: %s", dir, err);
        return 0;
    }
    char now[AGENT_URL_MAX];
    fovea_session_page_url(s, now, sizeof now);
    put_str(data_of(r), "url", now);
    agent__okf(&r->rec, "went %s to %.200s", dir, now);
    return 1;
}

static int run_go_back(fovea_session *s, const cJSON *args, tool_result *r)
{
    (void)args;
    return history_step(s, -1, r);
}

static int run_go_forward(fovea_session *s, const cJSON *args, tool_result *r)
{
    (void)args;
    return history_step(s, +1, r);
}

/* ---- tabs ----------------------------------------------------------------------------- */

/* The session's open tabs in order (the start page first), at most max. */
static int open_tabs(fovea_session *s, cdp_page **out, int max)
{
    int n = 0;
    if (s->home && cdp_page_alive(s->home) && n < max)
        out[n++] = s->home;
    for (int i = 0; i < s->n_tabs && n < max; i++) {
        if (s->tabs[i] != s->home && cdp_page_alive(s->tabs[i]))
            out[n++] = s->tabs[i];
    }
    return n;
}

static void tab_title(cdp_page *p, char *buf, size_t n)
{
    buf[0] = '\0';
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "document.title", &v, 1500, NULL) == BASE_OK && cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(v);
}

static int run_list_tabs(fovea_session *s, const cJSON *args, tool_result *r)
{
    (void)args;
    cdp_page *tabs[AGENT__MAX_TABS + 1];
    int n = open_tabs(s, tabs, AGENT__MAX_TABS + 1);
    cJSON *d = data_of(r);
    cJSON *arr = d ? cJSON_AddArrayToObject(d, "tabs") : NULL;
    if (!arr) {
        agent__failf(&r->rec, "error", "list_tabs: out of memory");
        return 0;
    }
    int current = -1;
    for (int i = 0; i < n; i++) {
        char url[AGENT_URL_MAX], title[200];
        real_url(tabs[i], url, sizeof url);
        tab_title(tabs[i], title, sizeof title);
        cJSON *t = cJSON_CreateObject();
        if (!t)
            break;
        put_num(t, "index", i);
        put_str(t, "id", cdp_page_target_id(tabs[i]));
        put_str(t, "url", url);
        put_str(t, "title", title);
        put_bool(t, "current", tabs[i] == s->page);
        cJSON_AddItemToArray(arr, t);
        if (tabs[i] == s->page)
            current = i;
    }
    put_num(d, "current", current);
    agent__okf(&r->rec, "%d tab%s open, current %d", n, n == 1 ? "" : "s", current);
    return 1;
}

/* Finds the tab that arg names: an index (0 = the start page), a target id
 * (or a prefix of at least 6 characters), else a substring of its URL or
 * title. Returns the page, or NULL with r's failure set. */
static cdp_page *find_tab(fovea_session *s, const cJSON *arg, const char *tool, tool_result *r)
{
    cdp_page *tabs[AGENT__MAX_TABS + 1];
    int n = open_tabs(s, tabs, AGENT__MAX_TABS + 1);
    if (!arg)
        return s->page;
    if (cJSON_IsNumber(arg)) {
        int i = arg->valueint;
        if (i < 0 || i >= n) {
            agent__failf(&r->rec, "not_found",
                         "%s: no tab %d (%d open: 0..%d; list_tabs lists them)", tool, i, n,
                         n - 1);
            return NULL;
        }
        return tabs[i];
    }
    const char *want = cJSON_IsString(arg) ? arg->valuestring : "";
    size_t wn = strlen(want);
    for (int i = 0; i < n; i++) {
        const char *id = cdp_page_target_id(tabs[i]);
        if (strcmp(id, want) == 0 || (wn >= 6 && strncmp(id, want, wn) == 0))
            return tabs[i];
    }
    cdp_page *hit = NULL;
    int hits = 0;
    char seen[300] = "";
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        char url[AGENT_URL_MAX], title[200];
        real_url(tabs[i], url, sizeof url);
        tab_title(tabs[i], title, sizeof title);
        if (strstr(url, want) || (title[0] && snap_text_contains(title, want))) {
            hit = tabs[i];
            hits++;
        }
        if (k + 1 < sizeof seen) {
            k += (size_t)snprintf(seen + k, sizeof seen - k, "%s%d %.60s", i ? "; " : "", i, url);
            if (k >= sizeof seen)
                k = sizeof seen - 1;
        }
    }
    if (hits == 1)
        return hit;
    agent__failf(&r->rec, hits ? "ambiguous" : "not_found", "%s: %s tab matches '%.80s' (open: %s)",
                 tool, hits ? "more than one" : "no", want, seen);
    return NULL;
}

/* Makes p the session's page: the hand, vision and fingerprint state move
 * to it, it comes to the front, and a vision pass is scheduled. */
static int switch_to(fovea_session *s, cdp_page *p, tool_result *r, const char *tool)
{
    if (p == s->page)
        return 1;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent__move_to(s, p, err);
    if (!e)
        e = cdp_page_activate(p, err);
    if (e) {
        agent__failf(&r->rec, reason_of(e), "%s: cannot switch to the tab: %s", tool, err);
        return 0;
    }
    /* Dialogs and popups that tab showed before stay reported: only new
     * ones are this call's. */
    s->dialogs_seen = cdp_page_dialog_count(p);
    s->popups_seen = cdp_page_popup_count(p);
    watch_of(s, p);
    fovea_session_schedule(s, tool);
    return 1;
}

static int run_switch_tab(fovea_session *s, const cJSON *args, tool_result *r)
{
    cdp_page *p = find_tab(s, cJSON_GetObjectItemCaseSensitive(args, "tab"), "switch_tab", r);
    if (!p || !switch_to(s, p, r, "switch_tab"))
        return 0;
    char url[AGENT_URL_MAX];
    fovea_session_page_url(s, url, sizeof url);
    put_str(data_of(r), "url", url);
    put_str(data_of(r), "id", cdp_page_target_id(p));
    agent__okf(&r->rec, "switched to the tab on %.200s", url);
    return 1;
}

/* Adds the init scripts scripts[0..n-1] to page p, in order. */
static base_err add_scripts(char *const *scripts, int n, cdp_page *p, char *err)
{
    for (int i = 0; i < n; i++) {
        cJSON *pa = cJSON_CreateObject();
        if (!pa || !cJSON_AddStringToObject(pa, "source", scripts[i])) {
            cJSON_Delete(pa);
            return base_errf(err, BASE_ENOMEM, "out of memory");
        }
        base_err e =
            cdp_page_call(p, "Page.addScriptToEvaluateOnNewDocument", pa, NULL, 5000, err);
        if (e)
            return e;
    }
    return BASE_OK;
}

static int run_open_tab(fovea_session *s, const cJSON *args, tool_result *r)
{
    agent__nav *nv = nav_of(s);
    if (!nv) {
        agent__failf(&r->rec, "error", "open_tab: out of memory");
        return 0;
    }
    agent_guard_verdict v;
    if (!guard(s, nv, agent__arg_str(args, "url"), &v, r))
        return 0;
    if (s->n_tabs >= AGENT__MAX_TABS) {
        agent__failf(&r->rec, "blocked", "open_tab: the session has %d tabs open already; close "
                                         "one first (close_tab)",
                     s->n_tabs + 1);
        return 0;
    }
    cdp_page *back = s->page;
    cdp_page *np = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_open(cdp_page_browser(s->page), cdp_page_viewport(s->page), &np, err);
    /* The same set-up as the start page: the listener recorder and the
     * init scripts before any page script, the fingerprint observer. */
    if (!e)
        e = perc_kit_install(np, err);
    if (!e)
        e = add_scripts(nv->scripts, nv->n_scripts, np, err);
    if (!e)
        e = perc_fingerprint_install(np, err);
    if (e) {
        cdp_page_close(np);
        agent__failf(&r->rec, reason_of(e), "open_tab: %s", err);
        return 0;
    }
    s->tabs[s->n_tabs++] = np;
    if (!switch_to(s, np, r, "open_tab"))
        return 0;
    watch_of(s, np);
    int ok = hop(s, nv, &v, agent__arg_int(args, "timeout_ms", 30000), "opened a tab on", r);
    put_str(data_of(r), "id", cdp_page_target_id(np));
    char now[AGENT_URL_MAX];
    fovea_session_page_url(s, now, sizeof now);
    snprintf(r->rec.new_tab, sizeof r->rec.new_tab, "opened a new tab on %.130s", now);
    if (!agent__arg_bool(args, "switch", 1) && back != np && cdp_page_alive(back)) {
        /* Opened in the background: the session stays where it was. */
        tool_result tmp;
        memset(&tmp, 0, sizeof tmp);
        if (!switch_to(s, back, &tmp, "open_tab"))
            base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "open_tab: could not switch back");
        tool_result_fini(&tmp);
    }
    return ok;
}

static int run_close_tab(fovea_session *s, const cJSON *args, tool_result *r)
{
    cdp_page *p = find_tab(s, cJSON_GetObjectItemCaseSensitive(args, "tab"), "close_tab", r);
    if (!p)
        return 0;
    cdp_page *tabs[AGENT__MAX_TABS + 1];
    int n = open_tabs(s, tabs, AGENT__MAX_TABS + 1);
    if (n <= 1) {
        agent__failf(&r->rec, "blocked",
                     "close_tab refused: it is the last open tab, and the session needs a page");
        return 0;
    }
    char url[AGENT_URL_MAX];
    real_url(p, url, sizeof url);
    if (p == s->page) {
        /* Leave it first: the previous tab in the list, else the next. */
        int at = 0;
        for (int i = 0; i < n; i++)
            if (tabs[i] == p)
                at = i;
        if (!switch_to(s, tabs[at > 0 ? at - 1 : 1], r, "close_tab"))
            return 0;
    }
    unwatch(s, p);
    int k = -1;
    for (int i = 0; i < s->n_tabs; i++)
        if (s->tabs[i] == p)
            k = i;
    if (k >= 0) {
        cdp_page_close(p);
        memmove(&s->tabs[k], &s->tabs[k + 1], (size_t)(s->n_tabs - k - 1) * sizeof s->tabs[0]);
        s->n_tabs--;
    } else {
        /* The start page belongs to the caller, who frees it: close the tab
         * in the browser only. */
        cJSON *pa = cJSON_CreateObject();
        char err[BASE_ERRBUF_SIZE] = "";
        if (!pa || !cJSON_AddStringToObject(pa, "targetId", cdp_page_target_id(p)) ||
            cdp_call(cdp_page_conn(p), NULL, "Target.closeTarget", pa, NULL, 5000, err)) {
            agent__failf(&r->rec, "error", "close_tab: %s", err[0] ? err : "out of memory");
            return 0;
        }
        pa = NULL;
        cdp_page_fail(p, BASE_ECLOSED, "tab closed (close_tab)");
    }
    s->delivered = 1;
    char now[AGENT_URL_MAX];
    fovea_session_page_url(s, now, sizeof now);
    put_str(data_of(r), "closed", url);
    put_str(data_of(r), "url", now);
    agent__okf(&r->rec, "closed the tab on %.150s; now on %.150s", url, now);
    return 1;
}

/* ---- waiting ------------------------------------------------------------------------- */

static int run_wait(fovea_session *s, const cJSON *args, tool_result *r)
{
    (void)s;
    int ms = agent__arg_int(args, "ms", 0);
    if (base_interrupt_sleep_ms(ms)) {
        agent__stopped(&r->rec);
        return 0;
    }
    agent__okf(&r->rec, "waited %d ms", ms);
    return 1;
}

/* One poll of a selector: its state ("absent", "hidden", "visible"), or
 * -1 with *bad set for a selector the browser refuses. */
static base_err selector_state(fovea_session *s, const char *sel, char *state, size_t n,
                               int *count, int *bad, char *err)
{
    *bad = 0;
    /* The selector goes in as a JSON string literal (quotes escaped). */
    cJSON *str = cJSON_CreateString(sel);
    char *lit = str ? cJSON_PrintUnformatted(str) : NULL;
    cJSON_Delete(str);
    if (!lit)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    base_buf b;
    base_buf_init(&b, fovea_js_nav_selector_len + strlen(lit) + 16);
    base_err e = base_buf_printf(&b, "(%s)(%s)", (const char *)fovea_js_nav_selector, lit);
    cJSON_free(lit);
    if (e) {
        base_buf_fini(&b);
        return base_errf(err, e, "out of memory");
    }
    cJSON *v = NULL;
    e = cdp_page_evaluate_in(s->page, NULL, CDP_CTX_FOVEA, (const char *)b.data, &v, 3000, err);
    base_buf_fini(&b);
    if (e)
        return e;
    const cJSON *er = cJSON_GetObjectItemCaseSensitive(v, "error");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(v, "state");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "count");
    if (cJSON_IsString(er)) {
        *bad = 1;
        base_errf(err, BASE_EINVAL, "%s", er->valuestring);
    } else {
        snprintf(state, n, "%s", cJSON_IsString(st) ? st->valuestring : "?");
        *count = cJSON_IsNumber(c) ? c->valueint : 0;
    }
    cJSON_Delete(v);
    return *bad ? BASE_EINVAL : BASE_OK;
}

/* Load-time checks (tool_def.check): one condition, state only with a
 * selector, patterns that compile. */
static base_err check_wait_for_condition(const cJSON *args, char *err)
{
    static const char *const conds[] = {"text", "pattern", "selector", "url", "url_pattern"};
    int given = agent__arg_bool(args, "network_idle", 0);
    for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++)
        given += agent__arg_str(args, conds[i]) != NULL;
    if (given != 1)
        return base_errf(err, BASE_EINVAL,
                         "wait_for_condition: give exactly one of text, pattern, selector, url, "
                         "url_pattern, network_idle (got %d)",
                         given);
    if (agent__arg_str(args, "state") && !agent__arg_str(args, "selector"))
        return base_errf(err, BASE_EINVAL, "wait_for_condition: 'state' goes with 'selector'");
    if (cJSON_GetObjectItemCaseSensitive(args, "idle_ms") &&
        !agent__arg_bool(args, "network_idle", 0))
        return base_errf(err, BASE_EINVAL,
                         "wait_for_condition: 'idle_ms' goes with 'network_idle': true");
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "url_pattern" : "pattern";
        const char *pat = agent__arg_str(args, name);
        base_regex *re = NULL;
        char why[BASE_ERRBUF_SIZE] = "";
        if (pat && base_regex_compile(pat, strlen(pat), BASE_REGEX_MULTILINE, &re, why))
            return base_errf(err, BASE_EINVAL, "wait_for_condition: '%s': %s", name, why);
        base_regex_destroy(re);
    }
    return BASE_OK;
}

static int run_wait_for_condition(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *text = agent__arg_str(args, "text");
    const char *pattern = agent__arg_str(args, "pattern");
    const char *sel = agent__arg_str(args, "selector");
    const char *url = agent__arg_str(args, "url");
    const char *url_pattern = agent__arg_str(args, "url_pattern");
    int idle = agent__arg_bool(args, "network_idle", 0);
    /* check_wait_for_condition made sure exactly one condition is given. */
    const char *state = agent__arg_str(args, "state");
    if (!state)
        state = "visible";
    int timeout_ms = agent__arg_int(args, "timeout_ms", 5000);
    double t0 = base_monotime_ms(), deadline = t0 + timeout_ms;
    char err[BASE_ERRBUF_SIZE] = "";
    cJSON *d = data_of(r);
    if (idle) {
        int idle_ms = agent__arg_int(args, "idle_ms", 500);
        cdp_netwatch *w = watch_of(s, s->page);
        if (!w) {
            agent__failf(&r->rec, "error", "wait_for_condition: the page does not report its "
                                           "network traffic");
            return 0;
        }
        cdp_netstat st;
        base_err e = cdp_netwatch_wait_idle(w, idle_ms, timeout_ms, &st, err);
        put_num(d, "inflight", st.inflight);
        put_num(d, "requests", (double)st.started);
        if (e) {
            agent__failf(&r->rec, reason_of(e), "wait_for_condition: %s", err);
            return 0;
        }
        agent__okf(&r->rec, "network idle for %d ms after %.0f ms", idle_ms,
                   base_monotime_ms() - t0);
        return 1;
    }
    base_regex *re = NULL;
    const char *pat = pattern ? pattern : url_pattern;
    if (pat && base_regex_compile(pat, strlen(pat), BASE_REGEX_MULTILINE, &re, err) != BASE_OK) {
        agent__failf(&r->rec, "bad_args", "wait_for_condition: %s '%.80s': %s",
                     pattern ? "pattern" : "url_pattern", pat, err);
        return 0;
    }
    char last[200] = "";
    int ok = 0, fail_reason_set = 0;
    for (;;) {
        if (agent__stopped(&r->rec) || !agent__page_ok(s)) {
            fail_reason_set = 1;
            if (!agent__page_ok(s))
                agent__failf(&r->rec, "page_gone", "wait_for_condition: the page is gone");
            break;
        }
        err[0] = '\0';
        if (text || pattern) {
            base_buf b;
            base_buf_init(&b, 8u << 20);
            base_err e = agent__page_text(s, &b, err);
            const char *t = b.data ? (const char *)b.data : "";
            if (!e) {
                if (text) {
                    ok = snap_text_contains(t, text);
                } else {
                    int m = 0;
                    double dl = deadline > base_monotime_ms() + 250 ? deadline
                                                                    : base_monotime_ms() + 250;
                    e = base_regex_match_until(re, t, strlen(t), dl, &m, err);
                    if (e == BASE_ETOOBIG) {
                        base_buf_fini(&b);
                        agent__failf(&r->rec, "pattern_limit", "wait_for_condition: %s", err);
                        fail_reason_set = 1;
                        break;
                    }
                    ok = !e && m;
                }
                /* The start of what the page showed, for the failure line. */
                base_text_norm(t, last, sizeof last, 120);
            }
            base_buf_fini(&b);
        } else if (sel) {
            char st[16] = "";
            int count = 0, bad = 0;
            base_err e = selector_state(s, sel, st, sizeof st, &count, &bad, err);
            if (bad) {
                agent__failf(&r->rec, "bad_args",
                             "wait_for_condition: selector '%.80s' is not valid CSS: %s", sel,
                             err);
                fail_reason_set = 1;
                break;
            }
            if (!e) {
                ok = strcmp(state, "present") == 0 ? strcmp(st, "absent") != 0
                     : strcmp(state, "hidden") == 0 ? strcmp(st, "visible") != 0
                                                    : strcmp(st, state) == 0;
                snprintf(last, sizeof last, "%s (%d match%s)", st, count, count == 1 ? "" : "es");
            }
        } else {
            char cur[AGENT_URL_MAX];
            real_url(s->page, cur, sizeof cur);
            if (url) {
                ok = strstr(cur, url) != NULL;
            } else {
                int m = 0;
                ok = base_regex_match(re, cur, strlen(cur), &m, NULL) == BASE_OK && m;
            }
            fovea_session_page_url(s, last, sizeof last);
        }
        if (ok || base_monotime_ms() >= deadline)
            break;
        base_interrupt_sleep_ms(NAV_POLL_MS);
    }
    base_regex_destroy(re);
    double took = base_monotime_ms() - t0;
    put_str(d, "last_seen", last);
    put_num(d, "waited_ms", took);
    if (ok) {
        agent__okf(&r->rec, "condition met after %.0f ms", took);
        return 1;
    }
    if (fail_reason_set)
        return 0;
    if (text || pattern)
        agent__failf(&r->rec, "timeout",
                     "wait_for_condition: %s '%.80s' not on the page after %d ms (it showed: "
                     "'%.120s')",
                     text ? "text" : "pattern", text ? text : pattern, timeout_ms, last);
    else if (sel)
        agent__failf(&r->rec, "timeout",
                     "wait_for_condition: selector '%.80s' not %s after %d ms (it was %s)", sel,
                     state, timeout_ms, last[0] ? last : "unreadable");
    else
        agent__failf(&r->rec, "timeout",
                     "wait_for_condition: the URL did not %s '%.80s' within %d ms (the URL was "
                     "%.160s)",
                     url ? "contain" : "match", url ? url : url_pattern, timeout_ms, last);
    return 0;
}

/* ---- init scripts --------------------------------------------------------------------- */

base_err fovea_session_add_init_script(fovea_session *s, const char *source, int on_current_pages,
                               char *err)
{
    agent__nav *nv = nav_of(s);
    if (!nv)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    if (nv->n_scripts >= NAV_MAX_SCRIPTS)
        return base_errf(err, BASE_ETOOBIG, "at most %d init scripts", NAV_MAX_SCRIPTS);
    size_t n = strlen(source);
    char *copy = base_malloc(n + 1);
    if (!copy)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    memcpy(copy, source, n + 1);
    if (on_current_pages) {
        cdp_page *tabs[AGENT__MAX_TABS + 1];
        int nt = open_tabs(s, tabs, AGENT__MAX_TABS + 1);
        for (int i = 0; i < nt; i++) {
            base_err e = add_scripts(&copy, 1, tabs[i], err);
            if (e) {
                base_free(copy);
                return e;
            }
        }
    }
    nv->scripts[nv->n_scripts++] = copy;
    return BASE_OK;
}

static base_err check_add_init_script(const cJSON *args, char *err)
{
    if (!agent__arg_str(args, "source") == !agent__arg_str(args, "path"))
        return base_errf(err, BASE_EINVAL, "add_init_script: give exactly one of source, path");
    return BASE_OK;
}

static int run_add_init_script(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *source = agent__arg_str(args, "source");
    const char *path = agent__arg_str(args, "path");
    char err[BASE_ERRBUF_SIZE] = "";
    uint8_t *file = NULL;
    size_t n = 0;
    if (path) {
        base_err e = base_read_file(path, &file, &n, NAV_SCRIPT_MAX, err);
        if (e) {
            agent__failf(&r->rec, "bad_args", "add_init_script: %s", err);
            return 0;
        }
        if (memchr(file, '\0', n)) {
            base_free(file);
            agent__failf(&r->rec, "bad_args", "add_init_script: %.200s is not a text file",
                         path);
            return 0;
        }
        source = (const char *)file;
    }
    base_err e = fovea_session_add_init_script(s, source, 1, err);
    base_free(file);
    if (e) {
        agent__failf(&r->rec, e == BASE_ETOOBIG ? "blocked" : reason_of(e), "add_init_script: %s",
                     err);
        return 0;
    }
    put_num(data_of(r), "scripts", s->nav ? s->nav->n_scripts : 0);
    agent__okf(&r->rec, "init script added (%zu bytes): it runs before the page's own scripts "
                        "from the next page load on, in every tab",
               strlen(path ? "" : source) + n);
    return 1;
}

/* ---- detect_challenge ------------------------------------------------------------------ */

static int run_detect_challenge(fovea_session *s, const cJSON *args, tool_result *r)
{
    cJSON *found = NULL;
    char what[200], err[BASE_ERRBUF_SIZE] = "";
    base_err e = detect(s, &found, what, sizeof what, err);
    if (e) {
        agent__failf(&r->rec, reason_of(e), "detect_challenge: %s", err);
        return 0;
    }
    cJSON_Delete(r->data);
    r->data = found;
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(found, "found"));
    if (what[0] && agent__arg_bool(args, "expect_none", 0)) {
        agent__failf(&r->rec, "challenge", "the page shows %s (detection only: fovea does not "
                                           "solve it)",
                     what);
        return 0;
    }
    if (what[0])
        agent__okf(&r->rec, "the page shows %s (detection only: fovea does not solve it)", what);
    else if (n > 0)
        agent__okf(&r->rec, "nothing in the way (%d non-blocking finding%s: see data)", n,
                   n == 1 ? "" : "s");
    else
        agent__okf(&r->rec, "no captcha, interstitial, block or wall on the page");
    return 1;
}

/* ---- the table -------------------------------------------------------------------------- */

#define TAB_ARG                                                                                \
    "{\"description\":\"index from list_tabs (0 = the start page), tab id, or a substring of "  \
    "its URL or title\",\"oneOf\":[{\"type\":\"integer\",\"minimum\":0},"                      \
    "{\"type\":\"string\",\"minLength\":1,\"maxLength\":2047}]}"

const tool_def agent__tools_nav[] = {
    {"navigate",
     "Go to a URL in the current tab (absolute, or relative to the current page). Guarded: "
     "only the task's site, a small sign-in/CDN safe-list and allow_hosts; no search engines; "
     "http(s) only. Fails on 4xx/5xx pages and on captchas or anti-bot walls (detection only). "
     "Reports a revisit when the URL was already visited with nothing learned since.",
     "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\",\"minLength\":1,"
     "\"maxLength\":2047}},\"required\":[\"url\"],\"additionalProperties\":false}",
     TOOL_MUTATES, run_navigate, NULL},
    {"go_back", "Go back one entry in the current tab's history.",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}", TOOL_MUTATES,
     run_go_back, NULL},
    {"go_forward", "Go forward one entry in the current tab's history.",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}", TOOL_MUTATES,
     run_go_forward, NULL},
    {"list_tabs", "List the session's open tabs (index, id, URL, title, which is current).",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}", 0, run_list_tabs,
     NULL},
    {"open_tab",
     "Open a URL in a new tab (same guards as navigate) and switch to it unless switch is "
     "false.",
     "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\",\"minLength\":1,"
     "\"maxLength\":2047},\"switch\":{\"type\":\"boolean\"}},\"required\":[\"url\"],"
     "\"additionalProperties\":false}",
     TOOL_MUTATES, run_open_tab, NULL},
    {"switch_tab", "Make another open tab the current one.",
     "{\"type\":\"object\",\"properties\":{\"tab\":" TAB_ARG "},\"required\":[\"tab\"],"
     "\"additionalProperties\":false}",
     TOOL_MUTATES, run_switch_tab, NULL},
    {"close_tab", "Close a tab (default: the current one). The last tab cannot be closed.",
     "{\"type\":\"object\",\"properties\":{\"tab\":" TAB_ARG "},\"additionalProperties\":false}",
     TOOL_MUTATES, run_close_tab, NULL},
    {"wait", "Wait a fixed time (at most 120000 ms; Ctrl-C ends it).",
     "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0,"
     "\"maximum\":120000}},\"required\":[\"ms\"],\"additionalProperties\":false}",
     0, run_wait, NULL},
    {"wait_for_condition",
     "Wait (up to timeout_ms, default 5000) until exactly one condition holds: text on the "
     "page, a regular expression (pattern) on the page text, a CSS selector in a state "
     "(visible by default; present, hidden, absent), the URL containing url or matching "
     "url_pattern, or the network idle (no request for idle_ms, default 500).",
     "{\"type\":\"object\",\"properties\":{"
     "\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
     "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024},"
     "\"selector\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024},"
     "\"state\":{\"type\":\"string\",\"enum\":[\"visible\",\"present\",\"hidden\",\"absent\"]},"
     "\"url\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":2047},"
     "\"url_pattern\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024},"
     "\"network_idle\":{\"type\":\"boolean\"},"
     "\"idle_ms\":{\"type\":\"integer\",\"minimum\":50,\"maximum\":60000}},"
     "\"additionalProperties\":false}",
     0, run_wait_for_condition, check_wait_for_condition},
    {"add_init_script",
     "Run a script before the page's own scripts on every later page load, in every tab: "
     "inline source, or a file path.",
     "{\"type\":\"object\",\"properties\":{"
     "\"source\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1048576},"
     "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096}},"
     "\"additionalProperties\":false}",
     TOOL_OPT_IN, run_add_init_script, check_add_init_script},
    {"detect_challenge",
     "Say whether a captcha, anti-bot interstitial, access-denied or geo block, or cookie wall "
     "is on the page (detection only, nothing is solved). expect_none: fail when one blocks.",
     "{\"type\":\"object\",\"properties\":{\"expect_none\":{\"type\":\"boolean\"}},"
     "\"additionalProperties\":false}",
     0, run_detect_challenge, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL},
};
