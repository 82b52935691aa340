/* tests/agent/session/test_tools_nav.c: the navigation tools (agent/session/tools_nav.c)
 * through tool_call, on fixture pages (tests/fixtures/pages/nav/) served on
 * 127.0.0.1 by a server of the test's own that can also answer slowly or
 * with an error status, and a real headless Chromium.
 *
 * navigate: a relative link resolves and lands; an off-site host (the
 * harness's second origin, localhost), a search engine, javascript: and
 * file: are refused as blocked naming the rule and reach nothing; allow_hosts
 * lets the off-site host through; bad arguments are refused before the page.
 * http_errors: 404 and 500 pages are http_error with the status. challenges:
 * an interstitial, a captcha login, a geo block and a cookie wall fail as
 * challenge naming what is there, and the challenged URL is not requested
 * again; a cookie bar is reported and passes; detect_challenge says the
 * same. revisits: going back to a URL with nothing saved since is reported,
 * and not after a variable was saved. history: go_back/go_forward move and
 * say when there is nowhere to go. tabs: open (guarded), list, switch by
 * index/URL/id, close, the last tab kept, a popup listed. waits: fixed wait,
 * Ctrl-C, text, pattern, selector states, URL, network idle, their
 * timeouts saying what was last seen, and their argument errors. init
 * scripts: set before the page's first inline script, in new tabs too.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/session/tool.h"
#include "tool_session.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "serve/httpd.h"
#include "base/interrupt.h"
#include "harness.h"

static serve_httpd *srv;
static int port;
static atomic_int challenge_hits;

/* /slow?ms=N answers after N ms; /status/N answers N; everything else is
 * a fixture file (requests for the challenge page are counted). */
static int handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    (void)user;
    if (strcmp(req->path, "/slow") == 0) {
        resp->delay_ms = strncmp(req->query, "ms=", 3) == 0 ? (int)strtol(req->query + 3, NULL, 10)
                                                            : 500;
        base_buf_append(&resp->body, "ok", 2);
        return 1;
    }
    if (strncmp(req->path, "/status/", 8) == 0) {
        resp->status = (int)strtol(req->path + 8, NULL, 10);
        snprintf(resp->content_type, sizeof resp->content_type, "text/html; charset=utf-8");
        base_buf_printf(&resp->body, "<!doctype html><title>%d</title><h1>Error %d</h1>",
                        resp->status, resp->status);
        return 1;
    }
    if (strcmp(req->path, "/away") == 0) {
        /* A redirect to the harness's second origin: another site. */
        resp->status = 302;
        harness *h = harness_get();
        char loc[200];
        snprintf(loc, sizeof loc, "%s/nav/page3.html", h ? h->origin_b : "http://localhost:2");
        serve_http_response_header(resp, "Location", loc);
        return 1;
    }
    if (strcmp(req->path, "/nav/challenge.html") == 0)
        atomic_fetch_add(&challenge_hits, 1);
    return 0;
}

static void url_of(const char *path, char *buf, size_t n)
{
    snprintf(buf, n, "http://127.0.0.1:%d%s", port, path);
}

/* A session on path of the test server (allow_hosts as given). */
/* --allow-scripts for the sessions open_on makes (init_scripts sets it). */
static int open_allow_scripts;

static fovea_session *open_on(const char *path, const char *allow, cdp_page **page)
{
    *page = NULL;
    if (!harness_get())
        return NULL;
    if (!srv) {
        serve_httpd_opts o;
        memset(&o, 0, sizeof o);
        o.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
        o.handler = handler;
        if (serve_httpd_start(&o, &srv, NULL) != BASE_OK)
            return NULL;
        port = serve_httpd_port(srv);
    }
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    char url[256], err[BASE_ERRBUF_SIZE] = "";
    url_of(path, url, sizeof url);
    if (!p || cdp_page_navigate(p, url, 10000, err) != BASE_OK) {
        fprintf(stderr, "open_on %s: %s\n", path, err);
        cdp_page_close(p);
        return NULL;
    }
    fovea_session_opts o;
    ts_opts(&o);
    o.allow_hosts = allow;
    o.allow_scripts = open_allow_scripts;
    fovea_session *s = ts_session(p, &o);
    if (!s) {
        cdp_page_close(p);
        return NULL;
    }
    *page = p;
    return s;
}

static void close_session(fovea_session *s, cdp_page *p)
{
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* The session's current URL. */
static void here(fovea_session *s, char *buf, size_t n)
{
    cJSON *v = NULL;
    buf[0] = '\0';
    if (cdp_page_evaluate(fovea_session_page(s), "location.href", &v, 3000, NULL) == BASE_OK &&
        cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(v);
}

static const char *dstr(const tool_result *r, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double dnum(const tool_result *r, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Calls tool name with args and checks the outcome: want_ok, and for a
 * failure the reason and a piece of the message. r is the caller's. */
#define CALL(s, name, args, r, want_ok, want_reason, want_msg)                                 \
    do {                                                                                   \
        int ok_ = tool_call(s, name, args, r);                                             \
        CHECK_MSG(ok_ == (want_ok) && (r)->reason == (want_reason) &&                      \
                      strstr((r)->message, want_msg) != NULL,                              \
                  "%s %s: ok %d reason %s: %s", name, args, ok_,                           \
                  tool_reason_name((r)->reason), (r)->message);                            \
    } while (0)

static void navigate_and_guards(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on("/nav/start.html", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    char url[512], want[512];
    CALL(s, "navigate", "{\"url\": \"page2.html\"}", &r, 1, TOOL_OK, "navigated to");
    url_of("/nav/page2.html", want, sizeof want);
    here(s, url, sizeof url);
    CHECK_STR(url, want);
    CHECK_EQ(dnum(&r, "status"), 200);
    CHECK(r.delivered);
    CHECK(r.changed.url_changed);
    tool_result_fini(&r);
    /* Refusals: nothing reaches the page, the URL stays. */
    harness *h = harness_get();
    char args[400];
    snprintf(args, sizeof args, "{\"url\": \"%s/nav/page3.html\"}", h->origin_b);
    CALL(s, "navigate", args, &r, 0, TOOL_BLOCKED, "off_site");
    CHECK(strstr(r.message, "--allow-host localhost:") != NULL);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    snprintf(args, sizeof args, "{\"url\": \"%s/nav/page3.html\"}", h->origin_a);
    CALL(s, "navigate", args, &r, 0, TOOL_BLOCKED, "off_site"); /* same IP, another port */
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"https://www.google.com/search?q=acme+anvils\"}", &r, 0,
         TOOL_BLOCKED, "search_engine");
    CHECK(strstr(r.message, "Google") != NULL);
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"javascript:document.title='pwned'\"}", &r, 0, TOOL_BLOCKED,
         "scheme");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"file:///etc/passwd\"}", &r, 0, TOOL_BLOCKED, "scheme");
    tool_result_fini(&r);
    /* Redirected off the site: said, as blocked, after the fact. */
    CALL(s, "navigate", "{\"url\": \"/away\"}", &r, 0, TOOL_BLOCKED,
         "redirected off the task's site");
    CHECK(r.delivered);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.data, "redirected_off_site")));
    tool_result_fini(&r);
    CALL(s, "go_back", "{}", &r, 1, TOOL_OK, "went back");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"http://exa mple.com/\"}", &r, 0, TOOL_BAD_ARGS, "bad_url");
    tool_result_fini(&r);
    /* Schema errors name the argument. */
    CALL(s, "navigate", "{}", &r, 0, TOOL_BAD_ARGS, "url");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": 5}", &r, 0, TOOL_BAD_ARGS, "'url'");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"\"}", &r, 0, TOOL_BAD_ARGS, "'url'");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"page3.html\", \"new_tab\": true}", &r, 0, TOOL_BAD_ARGS,
         "'new_tab'");
    tool_result_fini(&r);
    here(s, url, sizeof url);
    CHECK_STR(url, want);
    cJSON *t = NULL;
    CHECK_OK(cdp_page_evaluate(fovea_session_page(s), "document.title", &t, 3000, NULL));
    CHECK_STR(t->valuestring, "Acme Store · Catalogue");
    cJSON_Delete(t);
    close_session(s, p);
    /* allow_hosts lets the second origin through. */
    s = open_on("/nav/start.html", "localhost", &p);
    CHECK(s != NULL);
    snprintf(args, sizeof args, "{\"url\": \"%s/nav/page3.html\"}", h->origin_b);
    CALL(s, "navigate", args, &r, 1, TOOL_OK, "navigated to");
    CHECK(strstr(dstr(&r, "allowed_by"), "allow_hosts") != NULL);
    tool_result_fini(&r);
    close_session(s, p);
}

static void http_errors(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on("/nav/start.html", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CALL(s, "navigate", "{\"url\": \"/status/404\"}", &r, 0, TOOL_HTTP_ERROR, "HTTP 404");
    CHECK_EQ(dnum(&r, "status"), 404);
    CHECK(r.delivered);
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"/status/500\"}", &r, 0, TOOL_HTTP_ERROR, "HTTP 500");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"/nav/page2.html\"}", &r, 1, TOOL_OK, "HTTP 200");
    tool_result_fini(&r);
    close_session(s, p);
}

static void challenges(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on("/nav/start.html", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    int hits = atomic_load(&challenge_hits);
    CALL(s, "navigate", "{\"url\": \"challenge.html\"}", &r, 0, TOOL_CHALLENGE,
         "Cloudflare interstitial");
    CHECK(strstr(r.message, "does not solve") != NULL);
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r.data, "challenge")));
    tool_result_fini(&r);
    CHECK_EQ(atomic_load(&challenge_hits), hits + 1);
    /* Not opened again: it would only show the same check. */
    CALL(s, "navigate", "{\"url\": \"start.html\"}", &r, 1, TOOL_OK, "navigated");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"challenge.html\"}", &r, 0, TOOL_CHALLENGE,
         "not opened again");
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK_EQ(atomic_load(&challenge_hits), hits + 1);
    /* A check the browser passes by itself is waited out, as a person would. */
    CALL(s, "navigate", "{\"url\": \"checking.html\"}", &r, 1, TOOL_OK,
         "interstitial that cleared by itself");
    CHECK(strstr(dstr(&r, "landed"), "page2.html?checked=1") != NULL);
    CHECK(dnum(&r, "interstitial_ms") >= 500);
    tool_result_fini(&r);
    /* ...within the call's time. */
    CALL(s, "navigate", "{\"url\": \"checking.html?again=1\", \"timeout_ms\": 600}", &r, 0,
         TOOL_CHALLENGE, "interstitial");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"login_captcha.html\"}", &r, 0, TOOL_CHALLENGE, "reCAPTCHA");
    tool_result_fini(&r);
    CALL(s, "detect_challenge", "{}", &r, 1, TOOL_OK, "reCAPTCHA");
    tool_result_fini(&r);
    CALL(s, "detect_challenge", "{\"expect_none\": true}", &r, 0, TOOL_CHALLENGE, "reCAPTCHA");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"geo.html\"}", &r, 0, TOOL_CHALLENGE, "geo");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"cookie_wall.html\"}", &r, 0, TOOL_CHALLENGE, "cookie_wall");
    CHECK(strstr(r.message, "Sourcepoint") != NULL);
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"blocked.html\"}", &r, 0, TOOL_CHALLENGE, "blocked");
    tool_result_fini(&r);
    /* A cookie bar does not stop anything; it is in the data. */
    CALL(s, "navigate", "{\"url\": \"cookie_banner.html\"}", &r, 1, TOOL_OK, "navigated");
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(r.data, "challenge");
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ch, "found")), 1);
    tool_result_fini(&r);
    CALL(s, "detect_challenge", "{\"expect_none\": true}", &r, 1, TOOL_OK, "nothing in the way");
    tool_result_fini(&r);
    CALL(s, "detect_challenge", "{\"expect\": true}", &r, 0, TOOL_BAD_ARGS, "'expect'");
    tool_result_fini(&r);
    close_session(s, p);
}

static void revisits_and_history(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on("/nav/start.html", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CALL(s, "go_back", "{}", &r, 0, TOOL_NOT_FOUND, "no page to go back to");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"page2.html\"}", &r, 1, TOOL_OK, "navigated");
    CHECK(!strstr(r.message, "revisit"));
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"start.html\"}", &r, 1, TOOL_OK, "revisit");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.data, "revisit")));
    tool_result_fini(&r);
    /* A fact saved since the last visit: not a loop. */
    CHECK_OK(fovea_session_set_var(s, "price", "12", NULL));
    CALL(s, "navigate", "{\"url\": \"page2.html#top\"}", &r, 1, TOOL_OK, "navigated");
    CHECK(!strstr(r.message, "revisit"));
    tool_result_fini(&r);
    char url[512], want[512];
    CALL(s, "go_back", "{}", &r, 1, TOOL_OK, "went back");
    here(s, url, sizeof url);
    url_of("/nav/start.html", want, sizeof want);
    CHECK_STR(url, want);
    tool_result_fini(&r);
    CALL(s, "go_forward", "{}", &r, 1, TOOL_OK, "went forward");
    here(s, url, sizeof url);
    url_of("/nav/page2.html#top", want, sizeof want);
    CHECK_STR(url, want);
    tool_result_fini(&r);
    CALL(s, "go_forward", "{}", &r, 0, TOOL_NOT_FOUND, "no page to go forward to");
    tool_result_fini(&r);
    CALL(s, "go_back", "{\"steps\": 2}", &r, 0, TOOL_BAD_ARGS, "'steps'");
    tool_result_fini(&r);
    close_session(s, p);
}

static int n_tabs(const tool_result *r)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->data, "tabs"));
}

static void tabs(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on("/nav/start.html", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "1 tab open");
    CHECK_EQ(n_tabs(&r), 1);
    tool_result_fini(&r);
    CALL(s, "close_tab", "{}", &r, 0, TOOL_BLOCKED, "last open tab");
    tool_result_fini(&r);
    CALL(s, "open_tab", "{\"url\": \"page3.html?tab=new\"}", &r, 1, TOOL_OK, "opened a tab on");
    CHECK(fovea_session_page(s) != p);
    CHECK(r.changed.new_tab);
    char id[80];
    snprintf(id, sizeof id, "%s", dstr(&r, "id"));
    tool_result_fini(&r);
    char url[512];
    here(s, url, sizeof url);
    CHECK(strstr(url, "/nav/page3.html?tab=new") != NULL);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "2 tabs open, current 1");
    CHECK_EQ(n_tabs(&r), 2);
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{\"tab\": 0}", &r, 1, TOOL_OK, "switched");
    CHECK(fovea_session_page(s) == p);
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{\"tab\": \"tab=new\"}", &r, 1, TOOL_OK, "switched");
    CHECK(fovea_session_page(s) != p);
    tool_result_fini(&r);
    char args[200];
    snprintf(args, sizeof args, "{\"tab\": \"%s\"}", id);
    CALL(s, "switch_tab", "{\"tab\": 0}", &r, 1, TOOL_OK, "switched");
    tool_result_fini(&r);
    CALL(s, "switch_tab", args, &r, 1, TOOL_OK, "switched");
    CHECK_STR(cdp_page_target_id(fovea_session_page(s)), id);
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{\"tab\": 7}", &r, 0, TOOL_NOT_FOUND, "no tab 7");
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{\"tab\": \"no-such-page\"}", &r, 0, TOOL_NOT_FOUND, "no tab matches");
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{\"tab\": \"/nav/\"}", &r, 0, TOOL_AMBIGUOUS, "more than one");
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{}", &r, 0, TOOL_BAD_ARGS, "tab");
    tool_result_fini(&r);
    CALL(s, "close_tab", "{\"tab\": -1}", &r, 0, TOOL_BAD_ARGS, "'tab'");
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{\"all\": true}", &r, 0, TOOL_BAD_ARGS, "'all'");
    tool_result_fini(&r);
    CALL(s, "open_tab", "{}", &r, 0, TOOL_BAD_ARGS, "url");
    tool_result_fini(&r);
    CALL(s, "open_tab", "{\"url\": \"page2.html\", \"switch\": \"no\"}", &r, 0,
         TOOL_BAD_ARGS, "'switch'");
    tool_result_fini(&r);
    CALL(s, "switch_tab", "{\"tab\": true}", &r, 0, TOOL_BAD_ARGS, "'tab'");
    tool_result_fini(&r);
    CALL(s, "open_tab", "{\"url\": \"https://duckduckgo.com/?q=anvils\"}", &r, 0, TOOL_BLOCKED,
         "search_engine");
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "2 tabs");
    tool_result_fini(&r);
    /* Closing the current tab goes back to the start page. */
    CALL(s, "close_tab", "{}", &r, 1, TOOL_OK, "closed the tab");
    CHECK(fovea_session_page(s) == p);
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "1 tab open");
    tool_result_fini(&r);
    /* A popup the page opens becomes a tab of the session. */
    CALL(s, "click_at", "{\"target\": \"Open help in a new window\"}", &r, 1, TOOL_OK, "");
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "2 tabs open, current 1");
    const cJSON *t1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r.data, "tabs"), 1);
    const cJSON *u1 = cJSON_GetObjectItemCaseSensitive(t1, "url");
    CHECK(cJSON_IsString(u1) && strstr(u1->valuestring, "from=popup") != NULL);
    tool_result_fini(&r);
    CALL(s, "close_tab", "{\"tab\": \"from=popup\"}", &r, 1, TOOL_OK, "closed the tab");
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "1 tab open, current 0");
    tool_result_fini(&r);
    /* In the background: the session stays where it is. */
    CALL(s, "open_tab", "{\"url\": \"page2.html?bg=1\", \"switch\": false}", &r, 1, TOOL_OK,
         "opened a tab");
    CHECK(fovea_session_page(s) == p);
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "2 tabs open, current 0");
    tool_result_fini(&r);
    /* The start page may go too, as long as another tab is left. */
    CALL(s, "close_tab", "{\"tab\": 0}", &r, 1, TOOL_OK, "now on http://127.0.0.1:");
    CHECK(fovea_session_page(s) != p);
    CHECK(!cdp_page_alive(p));
    tool_result_fini(&r);
    CALL(s, "list_tabs", "{}", &r, 1, TOOL_OK, "1 tab open, current 0");
    tool_result_fini(&r);
    here(s, url, sizeof url);
    CHECK(strstr(url, "bg=1") != NULL);
    CALL(s, "close_tab", "{}", &r, 0, TOOL_BLOCKED, "last open tab");
    tool_result_fini(&r);
    close_session(s, p);
}

static void *raise_later(void *arg)
{
    (void)arg;
    base_sleep_ms(200);
    kill(getpid(), SIGINT);
    return NULL;
}

static void waits(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on("/nav/late.html?delay=700", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    double t0 = base_monotime_ms();
    CALL(s, "wait_for_condition", "{\"text\": \"Order AB-4821 confirmed\"}", &r, 1, TOOL_OK,
         "condition met");
    double took = base_monotime_ms() - t0;
    CHECK_MSG(took >= 300 && took < 5000, "text after %.0f ms", took);
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"pattern\": \"AB-\\\\d{4} pending\"}", &r, 1, TOOL_OK,
         "condition met");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"selector\": \"#spinner\", \"state\": \"absent\"}", &r, 1,
         TOOL_OK, "condition met");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"selector\": \"li.result\"}", &r, 1, TOOL_OK,
         "condition met");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"url\": \"done=1\"}", &r, 1, TOOL_OK, "condition met");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"url_pattern\": \"done=\\\\d$\"}", &r, 1, TOOL_OK,
         "condition met");
    tool_result_fini(&r);
    /* Failures say what was last seen. */
    CALL(s, "wait_for_condition", "{\"text\": \"Order ZZ-0000\", \"timeout_ms\": 500}", &r, 0,
         TOOL_TIMEOUT, "it showed: 'Search results");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"selector\": \"li.result\", \"state\": \"absent\", "
                                  "\"timeout_ms\": 400}",
         &r, 0, TOOL_TIMEOUT, "it was visible (2 matches)");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"url\": \"checkout\", \"timeout_ms\": 300}", &r, 0,
         TOOL_TIMEOUT, "the URL was http://127.0.0.1:");
    tool_result_fini(&r);
    /* Argument errors, before anything polls. */
    CALL(s, "wait_for_condition", "{}", &r, 0, TOOL_BAD_ARGS, "exactly one of");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"text\": \"a\", \"selector\": \"b\"}", &r, 0, TOOL_BAD_ARGS,
         "(got 2)");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"text\": \"a\", \"state\": \"visible\"}", &r, 0,
         TOOL_BAD_ARGS, "'state' goes with 'selector'");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"selector\": \"a\", \"state\": \"gone\"}", &r, 0,
         TOOL_BAD_ARGS, "'state' must be one of");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"pattern\": \"(unclosed\"}", &r, 0, TOOL_BAD_ARGS,
         "'pattern'");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"selector\": \"li[[\"}", &r, 0, TOOL_BAD_ARGS,
         "not valid CSS");
    tool_result_fini(&r);
    /* Network idle: a slow request holds it, then it comes. */
    CALL(s, "navigate", "{\"url\": \"late.html?delay=1500\"}", &r, 1, TOOL_OK, "navigated");
    tool_result_fini(&r);
    /* One more slow request, started now (the page's own may be over on a
     * slow build). */
    CHECK_OK(cdp_page_evaluate(fovea_session_page(s),
                               "fetch('/slow?ms=1501').then(r => r.text()); 1", NULL, 3000, NULL));
    CALL(s, "wait_for_condition", "{\"network_idle\": true, \"idle_ms\": 200, \"timeout_ms\": "
                                  "600}",
         &r, 0, TOOL_TIMEOUT, "/slow?ms=150");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"network_idle\": true, \"idle_ms\": 200, \"timeout_ms\": "
                                  "8000}",
         &r, 1, TOOL_OK, "network idle");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"text\": \"Order AB-4822 pending\", \"timeout_ms\": 1000}",
         &r, 1, TOOL_OK, "condition met");
    tool_result_fini(&r);
    CALL(s, "wait_for_condition", "{\"text\": \"x\", \"idle_ms\": 200}", &r, 0, TOOL_BAD_ARGS,
         "'idle_ms' goes with");
    tool_result_fini(&r);
    /* Fixed waits: bounded, and Ctrl-C ends them. */
    t0 = base_monotime_ms();
    CALL(s, "wait", "{\"ms\": 300}", &r, 1, TOOL_OK, "waited 300 ms");
    CHECK(base_monotime_ms() - t0 >= 295);
    tool_result_fini(&r);
    CALL(s, "wait", "{\"ms\": -1}", &r, 0, TOOL_BAD_ARGS, "'ms'");
    tool_result_fini(&r);
    CALL(s, "wait", "{\"ms\": 200000}", &r, 0, TOOL_BAD_ARGS, "'ms'");
    tool_result_fini(&r);
    CALL(s, "wait", "{}", &r, 0, TOOL_BAD_ARGS, "ms");
    tool_result_fini(&r);
    base_interrupt_install(NULL);
    pthread_t th;
    pthread_create(&th, NULL, raise_later, NULL);
    t0 = base_monotime_ms();
    int ok = tool_call(s, "wait", "{\"ms\": 20000}", &r);
    took = base_monotime_ms() - t0;
    pthread_join(th, NULL);
    base_interrupt_reset();
    CHECK(!ok);
    CHECK_EQ(r.reason, TOOL_INTERRUPTED);
    CHECK_MSG(took < 3000, "a stopped wait took %.0f ms", took);
    tool_result_fini(&r);
    close_session(s, p);
}

static void init_scripts(void)
{
    cdp_page *p = NULL;
    /* Script on every later page (sign-in pages included) needs the run's
     * --allow-scripts: without it the call is blocked before it runs. */
    open_allow_scripts = 0;
    fovea_session *s = open_on("/nav/start.html", NULL, &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CALL(s, "add_init_script", "{\"source\": \"window.__foveaInit = 'set-by-init';\"}", &r, 0,
         TOOL_BLOCKED, "--allow-scripts");
    tool_result_fini(&r);
    close_session(s, p);
    open_allow_scripts = 1;
    s = open_on("/nav/start.html", NULL, &p);
    if (!s) {
        open_allow_scripts = 0;
        SKIP(harness_error());
    }
    CALL(s, "add_init_script", "{\"source\": \"window.__foveaInit = 'set-by-init';\"}", &r, 1,
         TOOL_OK, "init script added");
    tool_result_fini(&r);
    CALL(s, "navigate", "{\"url\": \"init.html\"}", &r, 1, TOOL_OK, "navigated");
    tool_result_fini(&r);
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate(fovea_session_page(s), "document.getElementById('out').textContent",
                               &v, 3000, NULL));
    CHECK_STR(v->valuestring, "init value at start: set-by-init");
    cJSON_Delete(v);
    /* From a file, and in a tab opened later (both scripts run, in order). */
    const char *path = FOVEA_BINARY_DIR "/tests/agent/session/nav_init.js";
    const char *js = "window.__foveaInit = (window.__foveaInit || '') + '+file';";
    CHECK_OK(base_write_file(path, (const uint8_t *)js, strlen(js), NULL));
    char args[600];
    snprintf(args, sizeof args, "{\"path\": \"%s\"}", path);
    CALL(s, "add_init_script", args, &r, 1, TOOL_OK, "init script added");
    tool_result_fini(&r);
    CALL(s, "open_tab", "{\"url\": \"init.html\"}", &r, 1, TOOL_OK, "opened a tab");
    tool_result_fini(&r);
    CHECK_OK(cdp_page_evaluate(fovea_session_page(s), "document.getElementById('out').textContent",
                               &v, 3000, NULL));
    CHECK_STR(v->valuestring, "init value at start: set-by-init+file");
    cJSON_Delete(v);
    CALL(s, "add_init_script", "{}", &r, 0, TOOL_BAD_ARGS, "exactly one of source, path");
    tool_result_fini(&r);
    CALL(s, "add_init_script", "{\"path\": \"/nonexistent/init.js\"}", &r, 0, TOOL_BAD_ARGS,
         "/nonexistent/init.js");
    tool_result_fini(&r);
    close_session(s, p);
    /* A popup the session follows gets the scripts for its later loads. */
    s = open_on("/nav/start.html", NULL, &p);
    open_allow_scripts = 0;
    CHECK(s != NULL);
    CALL(s, "add_init_script", "{\"source\": \"window.__foveaInit = 'in-popup';\"}", &r, 1,
         TOOL_OK, "init script added");
    tool_result_fini(&r);
    CALL(s, "click_at", "{\"target\": \"Open help in a new window\"}", &r, 1, TOOL_OK, "");
    CHECK(r.changed.new_tab);
    tool_result_fini(&r);
    CHECK(fovea_session_page(s) != p);
    CALL(s, "navigate", "{\"url\": \"init.html\"}", &r, 1, TOOL_OK, "navigated");
    tool_result_fini(&r);
    CHECK_OK(cdp_page_evaluate(fovea_session_page(s), "document.getElementById('out').textContent",
                               &v, 3000, NULL));
    CHECK_STR(v->valuestring, "init value at start: in-popup");
    cJSON_Delete(v);
    close_session(s, p);
}

/* Runs `fovea run TASK args` on the fixture pages; returns the exit status
 * and the output in *log (caller frees). */
static int fovea_run(const char *task, const char *args, char **log)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/session/out_nav";
    char cmd[2048], path[600];
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s/tools/fovea' run '%s/tests/agent/session/tasks/%s' %s --no-humanize "
             "--overlays none --site '%s/tests/fixtures/pages' --out '%s' > '%s' 2>&1",
             out, FOVEA_BINARY_DIR, FOVEA_SOURCE_DIR, task, args, FOVEA_SOURCE_DIR, out, path);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    *log = base_read_file(path, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void task_files(void)
{
    if (!harness_get())
        SKIP(harness_error());
    char *log = NULL;
    int st = fovea_run("nav.json", "", &log);
    CHECK_MSG(st == 0 && log && strstr(log, "passed: 15/15 steps"), "exit %d:\n%s", st,
              log ? log : "");
    base_free(log);
    /* Off-site: refused by the guard, naming the rule and the flag... */
    st = fovea_run("nav_offsite.json", "", &log);
    CHECK_MSG(st == 1 && log && strstr(log, "off_site") &&
                  strstr(log, "--allow-host localhost:2") && !strstr(log, "retrying"),
              "exit %d:\n%s", st, log ? log : "");
    base_free(log);
    /* ...and let through by it: then the closed port is what fails. */
    st = fovea_run("nav_offsite.json", "--allow-host localhost", &log);
    CHECK_MSG(st == 1 && log && !strstr(log, "off_site") && strstr(log, "ERR_CONNECTION_REFUSED"),
              "exit %d:\n%s", st, log ? log : "");
    base_free(log);
    st = fovea_run("nav_offsite.json", "--allow-host a,b", &log);
    CHECK_MSG(st == 2 && log && strstr(log, "one non-empty host per flag"), "exit %d:\n%s", st,
              log ? log : "");
    base_free(log);
    /* A step with two conditions is refused at load, before a browser. */
    st = fovea_run("nav_bad.json", "", &log);
    CHECK_MSG(st == 2 && log && strstr(log, "exactly one of"), "exit %d:\n%s", st,
              log ? log : "");
    base_free(log);
}

static const check_case cases[] = {
    {"navigate_and_guards", navigate_and_guards},
    {"http_errors", http_errors},
    {"challenges", challenges},
    {"revisits_and_history", revisits_and_history},
    {"tabs", tabs},
    {"waits", waits},
    {"init_scripts", init_scripts},
    {"task_files", task_files},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    serve_httpd_destroy(srv);
    return rc;
}
