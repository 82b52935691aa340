/* tests/tools/test_cmd_snap.c: fovea on tabs it did not open, in a browser
 * it did not launch.
 *
 * The test starts Chromium itself (svc_util.c: fork/exec, fresh profile,
 * --remote-debugging-port=0), opens two tabs on fixture pages through its own
 * CDP client, and gives the first one a device-metrics override (900x600 at
 * DPR 1.5) held by the test's own session, as another automation tool would.
 * Then it runs the real `fovea` binary against that browser:
 *
 * adopt:     cdp_page_adopt reports the tab's own viewport, closing detaches
 *            and the tab stays; a worker or unknown id is refused.
 * snap:      `fovea snap --cdp EP --target notes.html`: a good request (the
 *            icon button named by aria-label), an abstention, malformed lines
 *            (not JSON, a bad box, a bad intent) that get {"error"} while the
 *            service keeps answering, "id" echoed, an abstention on a covered button,
 *            a request for the other tab by "target", and a clean exit on EOF.
 * click:     `fovea snap --click`: the "Add item" press lands exactly once
 *            (the page counts it) and the tool result says so.
 * run:       `fovea run TASK --cdp EP --target notes.html` runs in the tab as
 *            it is (no navigation, state kept, viewport kept).
 * kept:      after fovea exited: both tabs still open, the override intact
 *            (innerWidth/innerHeight/devicePixelRatio unchanged).
 * oopif:     a tab with a cross-site iframe: the snap lands inside it and
 *            names its frame.
 * capture:   `fovea capture --cdp EP --target inbox.html` writes a shot of
 *            that tab at its own size; no match and several matches are
 *            clear errors listing the tabs.
 * closed:    the served tab is closed by the user: the next answer is an
 *            error saying so, and the service serves another tab after it.
 * crashed:   the served tab's renderer crashes and the user reloads it: the
 *            next request re-adopts it by its target id and is answered.
 * dialog:    a tab showing alert() when fovea attaches: the error names the
 *            dialog (fovea does not close the user's dialog).
 * snaptest:  `fovea snaptest CASE --live --cdp EP --target …` replays a
 *            recorded case in the existing tab (at the case's viewport), and
 *            fails rather than passes when the tab's viewport skips it.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "serve/httpd.h"
#include "cdp/browser.h"
#include "svc_util.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define OUT FOVEA_BINARY_DIR "/tests/service"

/* The emulated viewport of tab A (set by the test's own session). */
#define VW 900
#define VH 600
#define DPR 1.5

static struct {
    int ready, failed;
    char why[256];
    svc_chrome chrome;
    serve_httpd *srv, *srv_b; /* srv_b: a second site (localhost) for OOPIFs */
    cdp_browser *client; /* the test's own CDP client (not fovea's) */
    char tab_a[64], tab_b[64];
    char sess_a[64], sess_b[64];
    char url_a[256], url_b[256];
} S;

static void teardown(void)
{
    cdp_browser_destroy(S.client); /* attach mode: only disconnects */
    S.client = NULL;
    svc_chrome_stop(&S.chrome);
    serve_httpd_destroy(S.srv);
    serve_httpd_destroy(S.srv_b);
    S.srv = S.srv_b = NULL;
}

/* Runtime.evaluate in a tab through the test's session; NULL on error. */
static cJSON *eval(const char *sess, const char *expr)
{
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "expression", expr);
    cJSON_AddBoolToObject(pa, "returnByValue", 1);
    cJSON_AddBoolToObject(pa, "awaitPromise", 1);
    cJSON *res = NULL;
    if (cdp_call(cdp_browser_conn(S.client), sess, "Runtime.evaluate", pa, &res, 10000, NULL))
        return NULL;
    cJSON *r = cJSON_GetObjectItemCaseSensitive(res, "result");
    cJSON *v = r ? cJSON_DetachItemFromObjectCaseSensitive(r, "value") : NULL;
    cJSON_Delete(res);
    return v;
}

static double eval_num(const char *sess, const char *expr)
{
    cJSON *v = eval(sess, expr);
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    cJSON_Delete(v);
    return d;
}

/* 1 when the page kit's listener recorder runs in the tab (fovea installs it
 * when it adopts a tab): its marker is there and addEventListener is its
 * wrapper. What it records is readable only from fovea's isolated world
 * (issue 23), which another client cannot enter; tests/perception/test_kit
 * late_attach checks the recording itself. */
static double late_listener_seen(const char *sess)
{
    return eval_num(sess, "(() => !!globalThis[Symbol.for('fovea.listen')] &&"
                          " !String(EventTarget.prototype.addEventListener).includes('[native code]')"
                          " ? 1 : 0)()");
}

static int open_tab(const char *url, char *tid, char *sess)
{
    cdp_conn *c = cdp_browser_conn(S.client);
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "url", url);
    cJSON *res = NULL;
    if (cdp_call(c, NULL, "Target.createTarget", pa, &res, 10000, S.why))
        return -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(res, "targetId");
    snprintf(tid, 64, "%s", cJSON_IsString(id) ? id->valuestring : "");
    cJSON_Delete(res);
    pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", tid);
    cJSON_AddBoolToObject(pa, "flatten", 1);
    res = NULL;
    if (cdp_call(c, NULL, "Target.attachToTarget", pa, &res, 10000, S.why))
        return -1;
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(res, "sessionId");
    snprintf(sess, 64, "%s", cJSON_IsString(sid) ? sid->valuestring : "");
    cJSON_Delete(res);
    /* Wait for the page's load; the initial about:blank is "complete" too,
     * so the URL must be the one asked for. */
    for (int i = 0; i < 200; i++) {
        cJSON *v = eval(sess, "document.readyState === 'complete' ? location.href : ''");
        int done = cJSON_IsString(v) && strcmp(v->valuestring, url) == 0;
        cJSON_Delete(v);
        if (done)
            return 0;
        svc_sleep_ms(50);
    }
    snprintf(S.why, sizeof S.why, "%s did not load", url);
    return -1;
}

static int setup(void)
{
    if (S.ready || S.failed)
        return S.ready;
    S.failed = 1;
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
    if (serve_httpd_start(&ho, &S.srv, S.why) || serve_httpd_start(&ho, &S.srv_b, S.why))
        return 0;
    if (svc_chrome_start(&S.chrome, S.why))
        return 0;
    atexit(teardown);
    if (cdp_browser_attach(S.chrome.endpoint, &S.client, S.why))
        return 0;
    int port = serve_httpd_port(S.srv);
    snprintf(S.url_a, sizeof S.url_a, "http://127.0.0.1:%d/service/notes.html", port);
    snprintf(S.url_b, sizeof S.url_b, "http://127.0.0.1:%d/service/inbox.html", port);
    if (open_tab(S.url_a, S.tab_a, S.sess_a) || open_tab(S.url_b, S.tab_b, S.sess_b))
        return 0;
    /* Another tool's emulation on tab A, held by the test's session. */
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddNumberToObject(pa, "width", VW);
    cJSON_AddNumberToObject(pa, "height", VH);
    cJSON_AddNumberToObject(pa, "deviceScaleFactor", DPR);
    cJSON_AddBoolToObject(pa, "mobile", 0);
    if (cdp_call(cdp_browser_conn(S.client), S.sess_a, "Emulation.setDeviceMetricsOverride", pa,
                 NULL, 10000, S.why))
        return 0;
    /* The override reaches the renderer asynchronously. */
    for (int i = 0; i < 100 && eval_num(S.sess_a, "innerWidth") != VW; i++)
        svc_sleep_ms(20);
    if (eval_num(S.sess_a, "innerWidth") != VW || eval_num(S.sess_a, "devicePixelRatio") != DPR) {
        snprintf(S.why, sizeof S.why, "the emulation did not take: %g x %g @%g",
                 eval_num(S.sess_a, "innerWidth"), eval_num(S.sess_a, "innerHeight"),
                 eval_num(S.sess_a, "devicePixelRatio"));
        return 0;
    }
    base_mkdirs(OUT "/x", 1, NULL);
    S.failed = 0;
    S.ready = 1;
    return 1;
}

#define SETUP_OR_SKIP()                                                                    \
    do {                                                                                   \
        if (!setup())                                                                      \
            SKIP(S.why);                                                                   \
    } while (0)

/* The rect of a selector in tab A, in its viewport's CSS px. */
static int rect_of(const char *sess, const char *sel, double r[4])
{
    char js[256];
    snprintf(js, sizeof js,
             "(() => { const b = document.querySelector('%s').getBoundingClientRect();"
             " return [b.left, b.top, b.right, b.bottom]; })()",
             sel);
    cJSON *v = eval(sess, js);
    int ok = cJSON_GetArraySize(v) == 4;
    for (int i = 0; ok && i < 4; i++)
        r[i] = cJSON_GetArrayItem(v, i)->valuedouble;
    cJSON_Delete(v);
    return ok;
}

/* Does the browser still list target id? */
static int tab_exists(const char *id)
{
    cdp_target_info t[64];
    int n = 0;
    if (cdp_browser_targets(S.client, t, 64, &n, NULL))
        return 0;
    for (int i = 0; i < n && i < 64; i++) {
        if (strcmp(t[i].id, id) == 0)
            return 1;
    }
    return 0;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Sends one line and parses the one answer line. */
static cJSON *ask(svc_proc *p, const char *req)
{
    char line[1 << 15];
    if (svc_proc_send(p, req) || svc_proc_read_line(p, line, sizeof line, 30000)) {
        fprintf(stderr, "no answer to %s\n", req);
        return NULL;
    }
    cJSON *j = cJSON_Parse(line);
    if (!j)
        fprintf(stderr, "answer is not JSON: %s\n", line);
    return j;
}

/* ---- cases ---------------------------------------------------------------- */

static void adopt(void)
{
    SETUP_OR_SKIP();
    char err[256] = "";
    cdp_browser *b = NULL;
    CHECK_MSG(cdp_browser_attach(S.chrome.endpoint, &b, err) == BASE_OK, "attach: %s", err);
    cdp_page *p = NULL;
    base_err e = cdp_page_adopt(b, S.tab_a, &p, err);
    CHECK_MSG(e == BASE_OK, "adopt: %s", err);
    CHECK(cdp_page_adopted(p));
    /* The tab's own (emulated) viewport, read, not set. */
    CHECK_EQ(cdp_page_viewport(p)->width, VW);
    CHECK_EQ(cdp_page_viewport(p)->height, VH);
    CHECK(cdp_page_viewport(p)->scale == DPR);
    cJSON *v = NULL;
    CHECK(cdp_page_evaluate(p, "document.title", &v, 5000, err) == BASE_OK);
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "Notes - drafts") == 0);
    cJSON_Delete(v);
    cdp_page_close(p);
    CHECK(tab_exists(S.tab_a));
    CHECK_EQ(eval_num(S.sess_a, "innerWidth"), VW);
    /* A page fovea opens itself is still closed with it. */
    cdp_page *own = NULL;
    CHECK(cdp_page_open(b, NULL, &own, err) == BASE_OK);
    char own_id[64];
    snprintf(own_id, sizeof own_id, "%s", cdp_page_target_id(own));
    CHECK(!cdp_page_adopted(own));
    cdp_page_close(own);
    svc_sleep_ms(200);
    CHECK(!tab_exists(own_id));
    /* Unknown ids are refused with ENOTFOUND and leave nothing attached. */
    p = NULL;
    CHECK_EQ(cdp_page_adopt(b, "0123456789ABCDEF0123456789ABCDEF", &p, err), BASE_ENOTFOUND);
    CHECK(p == NULL);
    CHECK_EQ(cdp_page_adopt(b, "", &p, err), BASE_EINVAL);
    cdp_browser_destroy(b);
    CHECK(tab_exists(S.tab_a) && tab_exists(S.tab_b));
}

static void snap(void)
{
    SETUP_OR_SKIP();
    double save[4], under[4], empty[4], sent[4];
    CHECK(rect_of(S.sess_a, "#save", save));
    CHECK(rect_of(S.sess_a, "#under", under));
    CHECK(rect_of(S.sess_a, "#empty", empty));
    CHECK(rect_of(S.sess_b, "#sent", sent));
    const char *const argv[] = {FOVEA, "snap", "--cdp", S.chrome.endpoint, "--target",
                          "service/notes.html", NULL};
    svc_proc p;
    CHECK(svc_proc_start(&p, argv, OUT "/snap.err") == 0);
    char req[512];

    /* Good: a vision box a little larger than the icon button, and its name. */
    snprintf(req, sizeof req,
             "{\"id\":\"r1\",\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Save draft\","
             "\"intent\":\"click\"}",
             save[0] - 6, save[1] - 4, save[2] + 6, save[3] + 4);
    cJSON *a = ask(&p, req);
    CHECK(a != NULL);
    CHECK_STR(jstr(a, "id"), "r1");
    CHECK_STR(jstr(a, "intent"), "click");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")));
    CHECK_STR(jstr(a, "target"), S.tab_a);
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(a, "element");
    CHECK_STR(jstr(el, "tag"), "button");
    /* The adopted tab got the kit's listener recorder (tools/browser_opts.c). */
    CHECK_EQ(late_listener_seen(S.sess_a), 1);
    CHECK_STR(jstr(el, "name"), "Save draft");
    CHECK(jstr(el, "xpath") && strstr(jstr(el, "xpath"), "/button"));
    CHECK_STR(jstr(el, "frame"), "");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(a, "point");
    CHECK(cJSON_GetArraySize(pt) == 2);
    double x = cJSON_GetArrayItem(pt, 0)->valuedouble, y = cJSON_GetArrayItem(pt, 1)->valuedouble;
    CHECK_MSG(x >= save[0] && x <= save[2] && y >= save[1] && y <= save[3],
              "point (%.1f,%.1f) outside the button", x, y);
    CHECK(jstr(a, "phase") && strcmp(jstr(a, "phase"), "-") != 0);
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(a, "score");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sc, "total")));
    CHECK_STR(jstr(cJSON_GetObjectItemCaseSensitive(a, "hit"), "verdict"), "ok");
    cJSON_Delete(a);

    /* Abstain: a box over empty space. */
    snprintf(req, sizeof req, "{\"id\":7,\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Delete\"}",
             empty[0] + 400, empty[1] + 20, empty[0] + 480, empty[1] + 60);
    a = ask(&p, req);
    CHECK(a != NULL);
    CHECK_EQ(cJSON_GetObjectItemCaseSensitive(a, "id")->valueint, 7);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "abstain")));
    CHECK(jstr(a, "why") && jstr(a, "why")[0]);
    CHECK(!cJSON_GetObjectItemCaseSensitive(a, "element"));
    cJSON_Delete(a);

    /* Malformed lines: each gets an error; the service keeps going. */
    static const char *const bad[][2] = {
        {"this is not json", "not JSON"},
        {"{\"id\":\"b2\",\"box\":[1,2,3]}", "box"},
        {"{\"box\":[10,10,5,5]}", "empty"},
        {"{\"box\":[1,1,9,9],\"intent\":\"hover\"}", "intent"},
        {"[1,2,3,4]", "object"},
        {"{\"box\":[1,1,9,9],\"target\":\"no-such-tab\"}", "matches no tab"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        a = ask(&p, bad[i][0]);
        CHECK(a != NULL);
        const char *e = jstr(a, "error");
        CHECK_MSG(e && strstr(e, bad[i][1]), "%s -> error %s, want '%s'", bad[i][0],
                  e ? e : "(none)", bad[i][1]);
        cJSON_Delete(a);
    }
    a = ask(&p, "{\"id\":\"b2x\",\"box\":[1,2,3]}");
    CHECK(a && strcmp(jstr(a, "id"), "b2x") == 0);
    cJSON_Delete(a);

    /* Covered: the button under a translucent layer cannot take a click (the
     * layer is painted on top and receives it), so the service abstains
     * instead of answering a button a click would miss (issue 10 item 7: the
     * top-most element at a point is the one painted there). */
    snprintf(req, sizeof req, "{\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Archive\"}",
             under[0] - 4, under[1] - 4, under[2] + 4, under[3] + 4);
    a = ask(&p, req);
    CHECK(a != NULL);
    CHECK(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "abstain")));
    CHECK(cJSON_GetObjectItemCaseSensitive(a, "element") == NULL);
    cJSON_Delete(a);

    /* Another tab by "target" (a URL substring), then back to the first. */
    snprintf(req, sizeof req,
             "{\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Sent\",\"target\":\"inbox.html\"}",
             sent[0] - 3, sent[1] - 3, sent[2] + 3, sent[3] + 3);
    a = ask(&p, req);
    CHECK(a != NULL);
    CHECK_STR(jstr(a, "target"), S.tab_b);
    el = cJSON_GetObjectItemCaseSensitive(a, "element");
    /* So did the tab adopted by "target" (tools/cmd_snap.c). */
    CHECK_EQ(late_listener_seen(S.sess_b), 1);
    CHECK_STR(jstr(el, "tag"), "a");
    CHECK_STR(jstr(el, "text"), "Sent");
    cJSON_Delete(a);
    snprintf(req, sizeof req, "{\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Save draft\"}", save[0],
             save[1], save[2], save[3]);
    a = ask(&p, req);
    CHECK(a != NULL);
    CHECK_STR(jstr(a, "target"), S.tab_a);
    CHECK_STR(jstr(cJSON_GetObjectItemCaseSensitive(a, "element"), "name"), "Save draft");
    cJSON_Delete(a);

    /* EOF ends the service cleanly. */
    CHECK_EQ(svc_proc_finish(&p, 15000), 0);
    CHECK(tab_exists(S.tab_a) && tab_exists(S.tab_b));
}

static void click(void)
{
    SETUP_OR_SKIP();
    double add[4];
    CHECK(rect_of(S.sess_a, "#add", add));
    CHECK_EQ(eval_num(S.sess_a, "window.added"), 0);
    const char *const argv[] = {FOVEA, "snap", "--cdp", S.chrome.endpoint, "--target", S.tab_a,
                          "--click", "--no-humanize", NULL};
    svc_proc p;
    CHECK(svc_proc_start(&p, argv, OUT "/click.err") == 0);
    char req[512];
    snprintf(req, sizeof req, "{\"id\":1,\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Add item\"}",
             add[0] - 5, add[1] - 5, add[2] + 5, add[3] + 5);
    cJSON *a = ask(&p, req);
    CHECK(a != NULL);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "click");
    CHECK_MSG(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "success")), "click: %s",
              jstr(c, "message") ? jstr(c, "message") : "(no click result)");
    CHECK_STR(jstr(c, "reason"), "ok");
    const cJSON *tried = cJSON_GetObjectItemCaseSensitive(c, "tried");
    CHECK(cJSON_GetArraySize(tried) >= 1);
    /* The tier that succeeded says what the page did (the list grew). */
    const cJSON *last = cJSON_GetArrayItem(tried, cJSON_GetArraySize(tried) - 1);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(last, "success")));
    CHECK_MSG(jstr(last, "outcome") && strstr(jstr(last, "outcome"), "mutation"), "outcome %s",
              jstr(last, "outcome") ? jstr(last, "outcome") : "(none)");
    CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(c, "effects")));
    CHECK_STR(jstr(cJSON_GetObjectItemCaseSensitive(a, "hit"), "verdict"), "ok");
    cJSON_Delete(a);
    /* A request may turn the click off: only the answer, no press. */
    snprintf(req, sizeof req,
             "{\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"Add item\",\"click\":false}", add[0],
             add[1], add[2], add[3]);
    a = ask(&p, req);
    CHECK(a && !cJSON_GetObjectItemCaseSensitive(a, "click"));
    cJSON_Delete(a);
    CHECK_EQ(svc_proc_finish(&p, 15000), 0);
    /* Exactly one press reached the page. */
    CHECK_EQ(eval_num(S.sess_a, "window.added"), 1);
    CHECK_EQ(eval_num(S.sess_a, "document.querySelectorAll('#items li').length"), 1);
}

static void kept(void)
{
    SETUP_OR_SKIP();
    CHECK(tab_exists(S.tab_a));
    CHECK(tab_exists(S.tab_b));
    CHECK_EQ(eval_num(S.sess_a, "innerWidth"), VW);
    CHECK_EQ(eval_num(S.sess_a, "innerHeight"), VH);
    CHECK(eval_num(S.sess_a, "devicePixelRatio") == DPR);
    CHECK(eval_num(S.sess_a, "matchMedia('(resolution: 1.5dppx)').matches ? 1 : 0") == 1);
}

/* Runs a fovea command line; stdout+stderr into *log. */
static int run(const char *args, char **log)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s/cmd.log' 2>&1", FOVEA, args, OUT);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    *log = base_read_file(OUT "/cmd.log", &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void capture(void)
{
    SETUP_OR_SKIP();
    char args[1024], *log = NULL;
    int vw = (int)eval_num(S.sess_b, "innerWidth"), vh = (int)eval_num(S.sess_b, "innerHeight");
    snprintf(args, sizeof args, "capture --cdp %s --target inbox.html --out %s/inbox.png",
             S.chrome.endpoint, OUT);
    int st = run(args, &log);
    CHECK_MSG(st == 0, "capture exited %d: %s", st, log ? log : "");
    char want[64];
    snprintf(want, sizeof want, "(%dx%d device px", vw, vh);
    CHECK_MSG(log && strstr(log, "inbox.html") && strstr(log, want), "log: %s want %s",
              log ? log : "", want);
    base_free(log);
    CHECK(access(OUT "/inbox.png", R_OK) == 0);
    /* Nothing matches: the error lists both tabs with their ids. */
    snprintf(args, sizeof args, "capture --cdp %s --target no-such-page --out %s/no.png",
             S.chrome.endpoint, OUT);
    st = run(args, &log);
    CHECK(st != 0);
    CHECK_MSG(log && strstr(log, "matches no tab") && strstr(log, S.tab_a) &&
                  strstr(log, S.tab_b) && strstr(log, "Notes - drafts"),
              "log: %s", log ? log : "");
    base_free(log);
    /* Several match: ambiguous, and the listing holds only the matches. */
    snprintf(args, sizeof args, "capture --cdp %s --target /service/ --out %s/no.png",
             S.chrome.endpoint, OUT);
    st = run(args, &log);
    CHECK(st != 0);
    CHECK_MSG(log && strstr(log, "matches 2 tabs") && strstr(log, S.tab_a) && strstr(log, S.tab_b),
              "log: %s", log ? log : "");
    CHECK(!strstr(log, "about:blank"));
    base_free(log);
    /* --cdp alone: the first page tab in the browser's own list. */
    cdp_target_info t[64];
    int n = 0;
    CHECK(cdp_browser_targets(S.client, t, 64, &n, NULL) == BASE_OK);
    const char *first = NULL;
    for (int i = 0; i < n && i < 64 && !first; i++) {
        if (cdp_target_is_tab(&t[i]))
            first = t[i].url;
    }
    CHECK(first != NULL);
    snprintf(args, sizeof args, "capture --cdp %s --out %s/first.png", S.chrome.endpoint, OUT);
    st = run(args, &log);
    CHECK_MSG(st == 0 && log && strstr(log, first), "capture exited %d (first tab %s): %s", st,
              first, log ? log : "");
    base_free(log);
    /* --target without --cdp is a usage error. */
    st = run("capture --target notes --out " OUT "/no.png", &log);
    CHECK(st != 0 && log && strstr(log, "give --cdp"));
    base_free(log);
    CHECK(tab_exists(S.tab_a) && tab_exists(S.tab_b));
    CHECK_EQ(eval_num(S.sess_a, "innerWidth"), VW);
}

/* `fovea run --cdp --target`: the task runs in the existing tab as it is
 * (no navigation: the page keeps its state, so the count goes on from the
 * click case), at the tab's own viewport. */
static void run_task(void)
{
    SETUP_OR_SKIP();
    double before = eval_num(S.sess_a, "window.added");
    CHECK(before >= 0);
    static const uint8_t task[] = "{\"name\": \"adopted tab\", \"url\": \"/not-opened.html\",\n"
                       " \"steps\": [{\"action\": \"click\", \"target\": \"Add item\"},\n"
                       "  {\"action\": \"assert_text\", \"text\": \"Item\"}]}\n";
    CHECK(base_write_file(OUT "/task.json", task, sizeof task - 1, NULL) == BASE_OK);
    char args[1024], *log = NULL;
    snprintf(args, sizeof args,
             "run %s/task.json --cdp %s --target notes.html --no-humanize --overlays none "
             "--out %s/run",
             OUT, S.chrome.endpoint, OUT);
    int st = run(args, &log);
    CHECK_MSG(st == 0, "fovea run exited %d: %s", st, log ? log : "");
    base_free(log);
    CHECK_EQ(eval_num(S.sess_a, "window.added"), before + 1);
    cJSON *v = eval(S.sess_a, "location.pathname");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "/service/notes.html") == 0);
    cJSON_Delete(v);
    CHECK_EQ(eval_num(S.sess_a, "innerWidth"), VW);
}

/* A cross-site iframe in an adopted tab: fovea auto-attaches to the
 * out-of-process frame that already exists and snaps inside it. */
static void oopif(void)
{
    SETUP_OR_SKIP();
    char url[300], tid[64], sess[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/frames.html?b=http://localhost:%d",
             serve_httpd_port(S.srv), serve_httpd_port(S.srv_b));
    CHECK(open_tab(url, tid, sess) == 0);
    double fr[4];
    CHECK(rect_of(sess, "#cross", fr));
    /* The inner document loads after the outer one's load event. */
    cJSON *ti = NULL;
    int frame_up = 0;
    for (int i = 0; i < 200 && !frame_up; i++) {
        cJSON_Delete(ti);
        ti = NULL;
        cdp_call(cdp_browser_conn(S.client), NULL, "Target.getTargets", NULL, &ti, 5000, NULL);
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(ti, "targetInfos"))
        {
            const char *u = jstr(t, "url");
            const char *ty = jstr(t, "type");
            frame_up |= u && ty && strstr(u, "inner.html?cross=1") && strcmp(ty, "iframe") == 0;
        }
        if (!frame_up)
            svc_sleep_ms(25);
    }
    cJSON_Delete(ti);
    CHECK_MSG(frame_up, "the cross-site frame did not come up as its own target");
    svc_sleep_ms(300);
    const char *const argv[] = {FOVEA, "snap", "--cdp", S.chrome.endpoint, "--target", tid, NULL};
    svc_proc p;
    CHECK(svc_proc_start(&p, argv, OUT "/oopif.err") == 0);
    char req[256];
    snprintf(req, sizeof req, "{\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"inner button\"}",
             fr[0] + 2, fr[1] + 2, fr[0] + 110, fr[1] + 30);
    cJSON *a = ask(&p, req);
    CHECK(a != NULL);
    char *txt = cJSON_PrintUnformatted(a);
    int found = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found"));
    CHECK_MSG(found, "answer: %s", txt ? txt : "");
    cJSON_free(txt);
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(a, "element");
    CHECK_STR(jstr(el, "text"), "inner button");
    CHECK_MSG(jstr(el, "frame") && jstr(el, "frame")[0], "no frame id for an OOPIF element");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(a, "point");
    double x = cJSON_GetArrayItem(pt, 0)->valuedouble, y = cJSON_GetArrayItem(pt, 1)->valuedouble;
    CHECK(x > fr[0] && x < fr[2] && y > fr[1] && y < fr[3]);
    cJSON_Delete(a);
    CHECK_EQ(svc_proc_finish(&p, 15000), 0);
    CHECK(tab_exists(tid));
}

/* The user closes the served tab: the next answer says so, the service
 * keeps going and serves another tab named by "target". */
static void closed(void)
{
    SETUP_OR_SKIP();
    char url[300], tid[64], sess[64];
    snprintf(url, sizeof url, "%s?third", S.url_b);
    CHECK(open_tab(url, tid, sess) == 0);
    const char *const argv[] = {FOVEA, "snap", "--cdp", S.chrome.endpoint, "--target", tid, NULL};
    svc_proc p;
    CHECK(svc_proc_start(&p, argv, OUT "/closed.err") == 0);
    cJSON *a = ask(&p, "{\"box\":[0,0,200,60],\"label\":\"Sent\"}");
    CHECK(a && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")));
    cJSON_Delete(a);
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", tid);
    CHECK(cdp_call(cdp_browser_conn(S.client), NULL, "Target.closeTarget", pa, NULL, 10000,
                   NULL) == BASE_OK);
    for (int i = 0; i < 100 && tab_exists(tid); i++)
        svc_sleep_ms(20);
    a = ask(&p, "{\"id\":2,\"box\":[0,0,200,60],\"label\":\"Sent\"}");
    CHECK(a != NULL);
    CHECK_MSG(jstr(a, "error") && strstr(jstr(a, "error"), "is gone"), "answer: %s",
              jstr(a, "error") ? jstr(a, "error") : "(no error)");
    cJSON_Delete(a);
    a = ask(&p, "{\"box\":[0,0,200,60],\"label\":\"Sent\",\"target\":\"notes.html\"}");
    CHECK(a && jstr(a, "target") && strcmp(jstr(a, "target"), S.tab_a) == 0);
    CHECK(!cJSON_GetObjectItemCaseSensitive(a, "error"));
    cJSON_Delete(a);
    CHECK_EQ(svc_proc_finish(&p, 15000), 0);
}

/* The served tab's renderer crashes and the user reloads it (same target
 * id, a new renderer): the next request re-adopts the tab by its id and is
 * answered, instead of "the tab is gone" forever (issue 23). */
static void crashed(void)
{
    SETUP_OR_SKIP();
    char url[300], tid[64], sess[64];
    snprintf(url, sizeof url, "%s?crash", S.url_b);
    CHECK(open_tab(url, tid, sess) == 0);
    const char *const argv[] = {FOVEA, "snap", "--cdp", S.chrome.endpoint, "--target", tid, NULL};
    svc_proc p;
    CHECK(svc_proc_start(&p, argv, OUT "/crashed.err") == 0);
    cJSON *a = ask(&p, "{\"box\":[0,0,200,60],\"label\":\"Sent\"}");
    CHECK(a && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")));
    cJSON_Delete(a);
    /* Crash the renderer (the call gets no answer: the page died). */
    cdp_call(cdp_browser_conn(S.client), sess, "Page.crash", NULL, NULL, 2000, NULL);
    svc_sleep_ms(500);
    /* The user reloads the tab: through a fresh session of the test's. */
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", tid);
    cJSON_AddBoolToObject(pa, "flatten", 1);
    cJSON *res = NULL;
    CHECK_OK(cdp_call(cdp_browser_conn(S.client), NULL, "Target.attachToTarget", pa, &res, 10000,
                      S.why));
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(res, "sessionId");
    char s2[64];
    snprintf(s2, sizeof s2, "%s", cJSON_IsString(sid) ? sid->valuestring : "");
    cJSON_Delete(res);
    CHECK_OK(cdp_call(cdp_browser_conn(S.client), s2, "Page.reload", NULL, NULL, 10000, S.why));
    int loaded = 0;
    for (int i = 0; i < 200 && !loaded; i++) {
        cJSON *v = eval(s2, "document.readyState === 'complete'");
        loaded = cJSON_IsTrue(v);
        cJSON_Delete(v);
        if (!loaded)
            svc_sleep_ms(50);
    }
    CHECK(loaded);
    a = ask(&p, "{\"id\":2,\"box\":[0,0,200,60],\"label\":\"Sent\"}");
    CHECK(a != NULL);
    CHECK_MSG(a && !cJSON_GetObjectItemCaseSensitive(a, "error") &&
                  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "found")),
              "answer: %s", a && jstr(a, "error") ? jstr(a, "error") : "(no error)");
    cJSON_Delete(a);
    CHECK_EQ(svc_proc_finish(&p, 15000), 0);
    pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", tid);
    cdp_call(cdp_browser_conn(S.client), NULL, "Target.closeTarget", pa, NULL, 10000, NULL);
}

/* snaptest --live --target: a recorded case replays inside tab B once that
 * tab has the case's viewport (the test's own override, as a user's window
 * size would be); the tab is navigated to the case's page and stays open. */
static void snaptest(void)
{
    SETUP_OR_SKIP();
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddNumberToObject(pa, "width", 1280);
    cJSON_AddNumberToObject(pa, "height", 800);
    cJSON_AddNumberToObject(pa, "deviceScaleFactor", 1);
    cJSON_AddBoolToObject(pa, "mobile", 0);
    CHECK(cdp_call(cdp_browser_conn(S.client), S.sess_b, "Emulation.setDeviceMetricsOverride", pa,
                   NULL, 10000, NULL) == BASE_OK);
    for (int i = 0; i < 100 && eval_num(S.sess_b, "innerWidth") != 1280; i++)
        svc_sleep_ms(20);
    char args[1024], *log = NULL;
    snprintf(args, sizeof args,
             "snaptest %s/tests/snapcases/shop-sort-option --live --site %s/tests/fixtures/pages "
             "--cdp %s --target inbox.html",
             FOVEA_SOURCE_DIR, FOVEA_SOURCE_DIR, S.chrome.endpoint);
    int st = run(args, &log);
    CHECK_MSG(st == 0 && log && strstr(log, "live: 1 cases, 0 disagree with offline, 0 wrong"),
              "snaptest exited %d: %s", st, log ? log : "");
    base_free(log);
    CHECK(tab_exists(S.tab_b));
    cJSON *v = eval(S.sess_b, "location.pathname");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "/snap/shop.html") == 0);
    cJSON_Delete(v);
    /* Tab A (900x600) would skip the case: nothing checked is a failure. */
    snprintf(args, sizeof args,
             "snaptest %s/tests/snapcases/shop-sort-option --live --site %s/tests/fixtures/pages "
             "--cdp %s --target %s",
             FOVEA_SOURCE_DIR, FOVEA_SOURCE_DIR, S.chrome.endpoint, S.tab_a);
    st = run(args, &log);
    CHECK_MSG(st == 1 && log && strstr(log, "1 cases skipped"), "snaptest exited %d: %s", st,
              log ? log : "");
    base_free(log);
}

/* A tab that shows an alert() when fovea attaches (issue 23): it answers
 * nothing until the dialog is closed, and fovea does not close the user's
 * dialog; the error names the dialog as the cause instead of a bare
 * "Page.enable timed out". The tab is made without a session of the test's
 * own, so nothing answers the alert. */
static void dialog(void)
{
    SETUP_OR_SKIP();
    cdp_conn *c = cdp_browser_conn(S.client);
    char url[256], tid[64] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d/service/alert.html", serve_httpd_port(S.srv));
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "url", url);
    cJSON *res = NULL;
    CHECK_OK(cdp_call(c, NULL, "Target.createTarget", pa, &res, 10000, S.why));
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(res, "targetId");
    snprintf(tid, sizeof tid, "%s", cJSON_IsString(id) ? id->valuestring : "");
    cJSON_Delete(res);
    svc_sleep_ms(1500); /* the alert is up */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "echo | '%s' snap --cdp '%s' --target '%s' > '%s/dialog.out' 2>&1",
             FOVEA, S.chrome.endpoint, tid, OUT);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    char *log = base_read_file(OUT "/dialog.out", &d, &n, 1 << 16, NULL) == BASE_OK ? (char *)d
                                                                                   : NULL;
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) != 0 && log &&
                  strstr(log, "JavaScript dialog") != NULL,
              "exit %d: %s", st, log ? log : "");
    base_free(log);
    pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", tid);
    cdp_call(c, NULL, "Target.closeTarget", pa, NULL, 10000, NULL);
}

static const check_case cases[] = {
    {"dialog", dialog},   {"crashed", crashed},
    {"adopt", adopt},     {"snap", snap},     {"click", click},       {"run", run_task},
    {"kept", kept},       {"oopif", oopif},   {"capture", capture},   {"closed", closed},
    {"snaptest", snaptest}, {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
