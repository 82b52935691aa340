/* tests/cdp/test_console.c: the per-page console ring (cdp/console.h) on
 * a real page: console errors and warnings (not log/info), an uncaught
 * exception, an unhandled rejection, a failed request, an error logged in
 * a cross-site (out-of-process) iframe, the ring's bound, and that one
 * page's entries are not another's. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "cdp/console.h"
#include "cdp/console_int.h"
#include "check.h"
#include "harness/harness.h"

/* Waits up to ms for page p to have recorded at least n entries. */
static uint64_t wait_count(cdp_page *p, uint64_t n, int ms)
{
    for (int i = 0; i < ms / 20 && cdp_page_console_count(p) < n; i++)
        base_sleep_ms(20);
    return cdp_page_console_count(p);
}

/* The first kept entry whose text contains needle, or -1. */
static int find(cdp_page *p, const char *needle, cdp_console_entry *out)
{
    uint64_t n = cdp_page_console_count(p);
    for (uint64_t s = cdp_page_console_first(p); s < n; s++) {
        if (cdp_page_console_get(p, s, out) && strstr(out->text, needle))
            return (int)s;
    }
    return -1;
}

static void collects_page_errors(void)
{
    HARNESS_OR_SKIP(h);
    char path[160];
    snprintf(path, sizeof path, "/read/console.html?b=%s", h->origin_b);
    cdp_page *p = harness_open(1024, 700, 1, path);
    CHECK(p != NULL);
    /* error, warning, assert, exception, rejection, 404, frame error. */
    wait_count(p, 7, 5000);
    base_sleep_ms(200); /* nothing more should come: log/info are not kept */
    cdp_console_entry e;
    CHECK(find(p, "Failed to fetch order", &e) >= 0);
    CHECK_EQ(e.kind, CDP_CONSOLE_ERROR);
    CHECK_EQ(e.error, 1);
    CHECK_STR(e.source, "console");
    /* Arguments joined as the console prints them: an object by its
     * description, a number by value. */
    CHECK_MSG(strstr(e.text, "Object") && strstr(e.text, "404"), "text: %s", e.text);
    CHECK(strstr(e.url, "/read/console.html") != NULL);
    CHECK(e.line >= 10 && e.line <= 14);
    CHECK(e.wall_ms > 1.6e12);
    CHECK(find(p, "Deprecated API", &e) >= 0);
    CHECK_EQ(e.kind, CDP_CONSOLE_WARNING);
    CHECK_EQ(e.error, 0);
    CHECK(find(p, "totals disagree", &e) >= 0);
    CHECK_EQ(e.kind, CDP_CONSOLE_ERROR);
    CHECK(find(p, "cart.items is undefined", &e) >= 0);
    CHECK_EQ(e.kind, CDP_CONSOLE_EXCEPTION);
    CHECK_MSG(strstr(e.text, "Uncaught") && strstr(e.text, "TypeError"), "text: %s", e.text);
    /* The message line only: the stack stays out of the text. */
    CHECK(strchr(e.text, '\n') == NULL);
    CHECK(e.line > 0);
    CHECK(find(p, "session refresh failed", &e) >= 0);
    CHECK_EQ(e.kind, CDP_CONSOLE_EXCEPTION);
    CHECK_MSG(strstr(e.text, "in promise") != NULL, "text: %s", e.text);
    CHECK(find(p, "404", &e) >= 0);
    int net = -1;
    uint64_t n = cdp_page_console_count(p);
    for (uint64_t s = 0; s < n; s++) {
        if (cdp_page_console_get(p, s, &e) && e.kind == CDP_CONSOLE_NETWORK) {
            /* The browser's own /favicon.ico request is not the page's. */
            CHECK_MSG(strstr(e.url, "favicon") == NULL, "url: %s", e.url);
            net = (int)s;
        }
    }
    CHECK(net >= 0);
    CHECK(cdp_page_console_get(p, (uint64_t)net, &e));
    CHECK_STR(e.source, "network");
    CHECK_MSG(strstr(e.url, "missing-banner.png") != NULL, "url: %s", e.url);
    /* The cross-site iframe's error reaches the page's ring. */
    CHECK(find(p, "token expired", &e) >= 0);
    CHECK(strstr(e.url, "localhost") != NULL);
    /* Not kept: console.log and console.info. */
    CHECK(find(p, "booting", &e) < 0);
    CHECK(find(p, "build 4711", &e) < 0);
    /* Each message once (Log's console-api copies are dropped). */
    int dup = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (cdp_page_console_get(p, s, &e) && strstr(e.text, "Deprecated API"))
            dup++;
    }
    CHECK_EQ(dup, 1);
    CHECK_EQ(n, 7);
    /* A script's own request that fails (fetch, XHR) is a failed request
     * too, with its URL. */
    char err[256] = "";
    CHECK_OK(cdp_page_evaluate(p, "fetch('/read/orders-api.json').then(r => r.status)", NULL, 5000,
                               err));
    wait_count(p, 8, 3000);
    CHECK(find(p, "404", &e) >= 0);
    int api = 0;
    for (uint64_t s = 7; s < cdp_page_console_count(p); s++) {
        if (cdp_page_console_get(p, s, &e) && e.kind == CDP_CONSOLE_NETWORK &&
            strstr(e.url, "orders-api.json"))
            api = 1;
    }
    CHECK(api);
    cdp_page_close(p);
}

static void ring_is_bounded(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, "/read/console.html");
    CHECK(p != NULL);
    uint64_t n0 = wait_count(p, 6, 5000);
    CHECK(n0 >= 6);
    char err[256] = "";
    CHECK_OK(cdp_page_evaluate(p, "burst(300)", NULL, 5000, err));
    uint64_t n = wait_count(p, n0 + 300, 5000);
    CHECK_EQ(n, n0 + 300);
    CHECK_EQ(cdp_page_console_first(p), n - CDP_CONSOLE_RING);
    cdp_console_entry e;
    memset(&e, 0, sizeof e);
    /* Pushed out, and not yet recorded: both refused, out untouched. */
    CHECK_EQ(cdp_page_console_get(p, 0, &e), 0);
    CHECK_EQ(cdp_page_console_get(p, n, &e), 0);
    CHECK_EQ(e.seq, 0);
    CHECK(cdp_page_console_get(p, n - 1, &e));
    CHECK_STR(e.text, "burst 299");
    CHECK_EQ(e.seq, n - 1);
    CHECK(cdp_page_console_get(p, n - CDP_CONSOLE_RING, &e));
    char want[32];
    snprintf(want, sizeof want, "burst %d", 300 - CDP_CONSOLE_RING);
    CHECK_STR(e.text, want);
    cdp_page_close(p);
}

static void pages_are_separate(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *a = harness_open(800, 600, 1, "/read/console.html");
    cdp_page *b = harness_open(800, 600, 1, "/blocks.html");
    CHECK(a != NULL && b != NULL);
    CHECK(wait_count(a, 6, 5000) >= 6);
    char err[256] = "";
    CHECK_OK(cdp_page_evaluate(b, "console.error('only b ' + 1)", NULL, 5000, err));
    CHECK_EQ(wait_count(b, 1, 3000), 1);
    cdp_console_entry e;
    CHECK(cdp_page_console_get(b, 0, &e));
    CHECK_STR(e.text, "only b 1");
    CHECK_EQ(e.kind, CDP_CONSOLE_ERROR);
    CHECK(find(a, "only b", &e) < 0);
    CHECK_STR(cdp_console_kind_name(CDP_CONSOLE_NETWORK), "network");
    CHECK_EQ(cdp_page_console_count(NULL), 0);
    cdp_page_close(a);
    cdp_page_close(b);
}

/* Feeds one event (JSON text) to ring c. */
static void feed(cdp__console *c, const char *method, const char *params)
{
    cJSON *pa = cJSON_Parse(params);
    cdp__console_on_event(c, method, pa);
    cJSON_Delete(pa);
}

/* The event parsing alone, on events shaped as the protocol sends them and
 * on broken ones: what is kept, how it reads, what is dropped. */
static void parse_events(void)
{
    cdp__console *c = cdp__console_create();
    CHECK(c != NULL);
    cdp_console_entry e;
    /* Arguments: string, number, bool, null, undefined, an Error (its
     * message line only), an unserializable value. */
    feed(c, "Runtime.consoleAPICalled",
         "{\"type\":\"error\",\"timestamp\":1700000000000.5,\"args\":["
         "{\"type\":\"string\",\"value\":\"bad\"},{\"type\":\"number\",\"value\":42},"
         "{\"type\":\"boolean\",\"value\":true},{\"type\":\"object\",\"subtype\":\"null\",\"value\":null},"
         "{\"type\":\"undefined\"},"
         "{\"type\":\"object\",\"subtype\":\"error\",\"description\":\"Error: boom\\n    at f (a.js:1:2)\"},"
         "{\"type\":\"number\",\"unserializableValue\":\"NaN\"}],"
         "\"stackTrace\":{\"callFrames\":[{\"url\":\"https://shop.example/app.js\",\"lineNumber\":9,\"columnNumber\":4}]}}");
    CHECK_EQ(cdp__console_count(c), 1);
    CHECK(cdp__console_get(c, 0, &e));
    CHECK_STR(e.text, "bad 42 true null undefined Error: boom NaN");
    CHECK_STR(e.url, "https://shop.example/app.js");
    CHECK_EQ(e.line, 10);
    CHECK_EQ(e.column, 5);
    CHECK_NEAR(e.wall_ms, 1700000000000.5, 0.01);
    /* Not kept: log, info, debug; Log's console-api copies, verbose and
     * info levels, the browser's own favicon request. */
    feed(c, "Runtime.consoleAPICalled", "{\"type\":\"log\",\"args\":[{\"type\":\"string\",\"value\":\"x\"}]}");
    feed(c, "Runtime.consoleAPICalled", "{\"type\":\"info\",\"args\":[]}");
    feed(c, "Log.entryAdded", "{\"entry\":{\"source\":\"console-api\",\"level\":\"error\",\"text\":\"bad\"}}");
    feed(c, "Log.entryAdded", "{\"entry\":{\"source\":\"violation\",\"level\":\"verbose\",\"text\":\"slow\"}}");
    feed(c, "Log.entryAdded", "{\"entry\":{\"source\":\"network\",\"level\":\"error\",\"text\":\"404\","
         "\"url\":\"http://a.example/favicon.ico?v=2\"}}");
    /* Broken events: no params, wrong types, missing fields. */
    cdp__console_on_event(c, "Runtime.consoleAPICalled", NULL);
    feed(c, "Runtime.consoleAPICalled", "{\"type\":7}");
    feed(c, "Runtime.exceptionThrown", "{}");
    feed(c, "Log.entryAdded", "{\"entry\":{\"level\":\"error\"}}");
    feed(c, "Page.loadEventFired", "{}");
    cdp__console_on_event(NULL, "Runtime.consoleAPICalled", NULL);
    CHECK_EQ(cdp__console_count(c), 1);
    /* An assert with no message, a rejection with a plain value, a
     * failed request, a CSP report. */
    feed(c, "Runtime.consoleAPICalled", "{\"type\":\"assert\",\"args\":[]}");
    feed(c, "Runtime.exceptionThrown",
         "{\"timestamp\":5,\"exceptionDetails\":{\"text\":\"Uncaught (in promise)\",\"lineNumber\":0,"
         "\"columnNumber\":0,\"url\":\"\",\"exception\":{\"type\":\"string\",\"value\":\"nope\"},"
         "\"stackTrace\":{\"callFrames\":[{\"url\":\"https://x.example/m.js\",\"lineNumber\":2,\"columnNumber\":0}]}}}");
    feed(c, "Log.entryAdded", "{\"entry\":{\"source\":\"network\",\"level\":\"error\",\"text\":\"Failed to load "
         "resource: net::ERR_CONNECTION_REFUSED\",\"url\":\"http://127.0.0.1:9/api\"}}");
    feed(c, "Log.entryAdded", "{\"entry\":{\"source\":\"security\",\"level\":\"warning\",\"text\":\"CSP\"}}");
    CHECK_EQ(cdp__console_count(c), 5);
    CHECK(cdp__console_get(c, 1, &e));
    CHECK_STR(e.text, "Assertion failed");
    CHECK_EQ(e.kind, CDP_CONSOLE_ERROR);
    CHECK(cdp__console_get(c, 2, &e));
    CHECK_STR(e.text, "Uncaught (in promise) nope");
    CHECK_STR(e.url, "https://x.example/m.js"); /* from the stack when the details have none */
    CHECK_EQ(e.line, 3);
    CHECK(cdp__console_get(c, 3, &e));
    CHECK_EQ(e.kind, CDP_CONSOLE_NETWORK);
    CHECK_STR(e.url, "http://127.0.0.1:9/api");
    CHECK(cdp__console_get(c, 4, &e));
    CHECK_EQ(e.kind, CDP_CONSOLE_BROWSER);
    CHECK_EQ(e.error, 0);
    CHECK_STR(e.source, "security");
    /* Text past the entry's size is cut on a character boundary, invalid
     * bytes replaced: the entry is always valid UTF-8. */
    char big[8000];
    size_t k = 0;
    k += (size_t)snprintf(big + k, sizeof big - k, "{\"type\":\"warning\",\"args\":[{\"type\":\"string\",\"value\":\"");
    for (int i = 0; i < 1000; i++)
        k += (size_t)snprintf(big + k, sizeof big - k, "\u00e9");
    snprintf(big + k, sizeof big - k, "\"}]}");
    feed(c, "Runtime.consoleAPICalled", big);
    CHECK(cdp__console_get(c, 5, &e));
    CHECK(strlen(e.text) < sizeof e.text);
    CHECK_EQ(strlen(e.text) % 2, 0); /* whole two-byte characters only */
    CHECK(strlen(e.text) > 700);
    feed(c, "Runtime.consoleAPICalled",
         "{\"type\":\"error\",\"args\":[{\"type\":\"string\",\"value\":\"ok \xff\xfe end\"}]}");
    CHECK(cdp__console_get(c, 6, &e));
    CHECK_STR(e.text, "ok \xef\xbf\xbd\xef\xbf\xbd end");
    CHECK_STR(cdp_console_kind_name((cdp_console_kind)99), "?");
    cdp__console_destroy(c);
    cdp__console_destroy(NULL);
}

static const check_case cases[] = {
    {"parse_events", parse_events},
    {"collects_page_errors", collects_page_errors},
    {"ring_is_bounded", ring_is_bounded},
    {"pages_are_separate", pages_are_separate},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
