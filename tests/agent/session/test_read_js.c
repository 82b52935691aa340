/* tests/agent/session/test_read_js.c: the reading tools' page scripts
 * (assets/js/read_markdown.js, read_search.js, read_state.js, on the page
 * kit and lib/dom.js) run in a real headless Chromium on the fixture pages
 * of tests/fixtures/pages/read: Markdown of a documentation page (headings,
 * a pipe table, a fenced code block, nested lists, links, a shadow root, a
 * same-origin frame; hidden text and scripts left out), the length cap, the
 * search by text and selector, and element states on a settings form. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/js_read.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "check.h"
#include "harness/harness.h"

/* Runs script js with argument arg (JSON text) on p; *err gets a thrown
 * exception's text. Returns the value (caller frees) or NULL. */
static cJSON *run(cdp_page *p, const unsigned char *js, const char *arg, char *err)
{
    size_t n = strlen((const char *)js) + strlen(arg) + 8;
    char *expr = base_malloc(n);
    if (!expr)
        return NULL;
    snprintf(expr, n, "(%s)(%s)", (const char *)js, arg);
    cJSON *v = NULL;
    err[0] = 0;
    base_err e = cdp_page_evaluate(p, expr, &v, 10000, err);
    base_free(expr);
    return e ? NULL : v;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Waits until the page's frame and custom element have content. */
static void settle(cdp_page *p)
{
    char err[256];
    for (int i = 0; i < 100; i++) {
        cJSON *v = NULL;
        if (cdp_page_evaluate(p,
                              "!!(document.getElementById('notes') && "
                              "document.getElementById('notes').contentDocument && "
                              "document.getElementById('notes').contentDocument.body && "
                              "document.getElementById('notes').contentDocument.body.textContent.includes('Frame'))",
                              &v, 2000, err) == BASE_OK &&
            cJSON_IsTrue(v)) {
            cJSON_Delete(v);
            return;
        }
        cJSON_Delete(v);
        base_sleep_ms(20);
    }
}

static void markdown_page(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/docs.html");
    CHECK(p != NULL);
    settle(p);
    char err[256];
    cJSON *v = run(p, fovea_js_read_markdown, "{}", err);
    CHECK_MSG(v != NULL, "%s", err);
    const char *md = str(v, "markdown");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(v, "found")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(v, "cut")));
    const char *want[] = {
        "# Widgets API\n",
        "## Install\n",
        "### Limits",
        "The **Widgets** service lets you *create*, list and delete widgets.",
        "~~v1~~",
        "[changelog](https://example.com/changelog)",
        "`npm install widgets`",
        "```js\nconst w = require('widgets');\nw.create({ name: \"gear\" });\n```",
        "**REST endpoints**",
        "| Method | Path | Description |\n| --- | --- | --- |\n| GET | `/widgets` | List widgets |",
        "| POST | `/widgets` | Create a widget \\| bulk |",
        "| DELETE | Remove one widget |  |",
        "- 100 requests per minute\n   - burst: 20\n- Payload up to **1 MB**",
        "3. Authenticate\n4. Call the API",
        "> Widgets are eventually consistent.",
        "![Widgets logo](",
        "#### Is there a free tier?",      /* inside the open shadow root */
        "[up to 1,000 widgets](",
        "### Release notes",               /* inside the same-origin frame */
        "Frame paragraph: rate limits raised.",
        "Last updated 2026-11-01.",
        "[Usage guide](http://127.0.0.1:",  /* relative href made absolute */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        CHECK_MSG(strstr(md, want[i]) != NULL, "missing %s in:\n%s", want[i], md);
    const char *absent[] = {"We use cookies", "Invisible paragraph", "Hidden attribute",
                            "script text", "color:red", "javascript:", "Reference"};
    for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
        CHECK_MSG(strstr(md, absent[i]) == NULL, "unexpected %s in:\n%s", absent[i], md);
    /* "Print" (a javascript: link) stays as plain text. */
    CHECK(strstr(md, "Print") != NULL);
    cJSON_Delete(v);

    /* A region by selector; a miss; a bad selector. */
    v = run(p, fovea_js_read_markdown, "{\"css\":\"#endpoints\"}", err);
    CHECK(v != NULL);
    md = str(v, "markdown");
    CHECK_MSG(strncmp(md, "**REST endpoints**\n\n| Method |", 29) == 0, "%s", md);
    CHECK(strstr(md, "Widgets API") == NULL);
    cJSON_Delete(v);
    v = run(p, fovea_js_read_markdown, "{\"css\":\"#nope\"}", err);
    CHECK(v != NULL);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(v, "found")));
    cJSON_Delete(v);
    v = run(p, fovea_js_read_markdown, "{\"css\":\"div[[\"}", err);
    CHECK(v == NULL);
    CHECK_MSG(strstr(err, "not a valid selector") != NULL, "%s", err);

    /* A region by point: the text of a table cell widens to its block. */
    cJSON *c = NULL;
    CHECK_OK(cdp_page_evaluate(p,
                               "(() => { const r = document.querySelector('blockquote p')"
                               ".getBoundingClientRect(); return [r.x + 5, r.y + r.height / 2]; })()",
                               &c, 5000, err));
    char arg[96];
    snprintf(arg, sizeof arg, "{\"x\":%g,\"y\":%g}", cJSON_GetArrayItem(c, 0)->valuedouble,
             cJSON_GetArrayItem(c, 1)->valuedouble);
    cJSON_Delete(c);
    v = run(p, fovea_js_read_markdown, arg, err);
    CHECK(v != NULL);
    CHECK_STR(str(v, "markdown"), "Widgets are eventually consistent.");
    cJSON_Delete(v);

    /* The cap: whole blocks only, and "cut" says so. */
    v = run(p, fovea_js_read_markdown, "{\"max\":120}", err);
    CHECK(v != NULL);
    md = str(v, "markdown");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(v, "cut")));
    CHECK(strlen(md) <= 120);
    CHECK(strlen(md) > 0);
    CHECK(strstr(md, "Install") != NULL);
    cJSON_Delete(v);
    cdp_page_close(p);
}

static void search(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/docs.html");
    CHECK(p != NULL);
    settle(p);
    char err[256];
    /* By text: the innermost element, not its ancestors. */
    cJSON *v = run(p, fovea_js_read_search, "{\"text\":\"list widgets\"}", err);
    CHECK_MSG(v != NULL, "%s", err);
    CHECK_EQ(cJSON_GetObjectItem(v, "total")->valueint, 1);
    cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "matches"), 0);
    CHECK_STR(str(m, "tag"), "td");
    CHECK_STR(str(m, "text"), "List widgets");
    CHECK_STR(str(m, "xpath"), "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[1]/td[3]");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(m, "visible")));
    cJSON *box = cJSON_GetObjectItem(m, "box");
    CHECK(cJSON_GetObjectItem(box, "w")->valueint > 0);
    cJSON_Delete(v);
    /* Hidden elements are found, and say so; inside a shadow root and a
     * frame too (frame = the iframe's xpath, box in top-page px). */
    v = run(p, fovea_js_read_search, "{\"text\":\"we use cookies\"}", err);
    CHECK(v != NULL);
    m = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "matches"), 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(m, "visible")));
    CHECK_STR(str(cJSON_GetObjectItem(m, "attrs"), "id"), "cookie");
    cJSON_Delete(v);
    v = run(p, fovea_js_read_search, "{\"text\":\"free tier\"}", err);
    CHECK(v != NULL);
    m = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "matches"), 0);
    CHECK_STR(str(m, "tag"), "h4");
    CHECK(strstr(str(m, "xpath"), "/#shadow-root/h4[1]") != NULL);
    cJSON_Delete(v);
    v = run(p, fovea_js_read_search, "{\"text\":\"rate limits raised\"}", err);
    CHECK(v != NULL);
    m = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "matches"), 0);
    CHECK_STR(str(m, "tag"), "p");
    CHECK_STR(str(m, "frame"), "/html[1]/body[1]/main[1]/iframe[1]");
    CHECK_STR(str(m, "xpath"), "/html[1]/body[1]/p[1]");
    double fy = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "box"), "y")->valuedouble;
    cJSON *fr = NULL;
    CHECK_OK(cdp_page_evaluate(p, "document.getElementById('notes').getBoundingClientRect().top",
                               &fr, 5000, err));
    CHECK(fy > fr->valuedouble);
    cJSON_Delete(fr);
    cJSON_Delete(v);
    /* By selector (with the text narrowing it), the cap, and all matches. */
    v = run(p, fovea_js_read_search, "{\"css\":\"td code\",\"max\":1}", err);
    CHECK(v != NULL);
    CHECK_EQ(cJSON_GetObjectItem(v, "total")->valueint, 2);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(v, "matches")), 1);
    cJSON_Delete(v);
    v = run(p, fovea_js_read_search, "{\"css\":\"a\",\"text\":\"usage\"}", err);
    CHECK(v != NULL);
    CHECK_EQ(cJSON_GetObjectItem(v, "total")->valueint, 1);
    m = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "matches"), 0);
    CHECK_STR(str(cJSON_GetObjectItem(m, "attrs"), "href"), "guide/usage.html");
    cJSON_Delete(v);
    v = run(p, fovea_js_read_search, "{\"text\":\"no such words anywhere\"}", err);
    CHECK(v != NULL);
    CHECK_EQ(cJSON_GetObjectItem(v, "total")->valueint, 0);
    cJSON_Delete(v);
    v = run(p, fovea_js_read_search, "{\"css\":\"p:has(\"}", err);
    CHECK(v == NULL);
    CHECK_MSG(strstr(err, "not a valid selector") != NULL, "%s", err);
    cdp_page_close(p);
}

/* The state q (JSON) on the form page: its ok, and seen into buf. */
static int state(cdp_page *p, const char *q, char *seen, size_t n)
{
    char err[256];
    cJSON *v = run(p, fovea_js_read_state, q, err);
    if (!v) {
        snprintf(seen, n, "error: %.120s", err);
        return -1;
    }
    snprintf(seen, n, "%s", str(v, "seen"));
    int ok = cJSON_IsTrue(cJSON_GetObjectItem(v, "ok"));
    cJSON_Delete(v);
    return ok;
}

static void states(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/form.html");
    CHECK(p != NULL);
    char seen[200];
    struct {
        const char *q;
        int ok;
        const char *seen;
    } cases[] = {
        {"{\"css\":\"#news\",\"state\":\"checked\"}", 1, "checked"},
        {"{\"css\":\"#sms\",\"state\":\"checked\"}", 0, "unchecked"},
        {"{\"css\":\"#sms\",\"state\":\"unchecked\"}", 1, "unchecked"},
        {"{\"css\":\"#dark\",\"state\":\"unchecked\"}", 1, "unchecked"},
        {"{\"css\":\"#email\",\"state\":\"value_equals\",\"value\":\"ada@example.com\"}", 1, NULL},
        {"{\"css\":\"#email\",\"state\":\"value_contains\",\"value\":\"ADA@\"}", 1, NULL},
        {"{\"css\":\"#email\",\"state\":\"value_equals\",\"value\":\"bob\"}", 0,
         "value \"ada@example.com\""},
        {"{\"css\":\"#pw\",\"state\":\"value_equals\",\"value\":\"x\"}", 0, "a hidden value"},
        {"{\"css\":\"#plan\",\"state\":\"value_equals\",\"value\":\"Pro (monthly)\"}", 1, NULL},
        {"{\"css\":\"#plan\",\"state\":\"value_equals\",\"value\":\"pro\"}", 1, NULL},
        {"{\"css\":\"#save\",\"state\":\"class_has\",\"value\":\"btn-primary\"}", 1, NULL},
        {"{\"css\":\"#cancel\",\"state\":\"class_has\",\"value\":\"btn-primary\"}", 0, "class \"btn\""},
        {"{\"css\":\"#save\",\"state\":\"disabled\"}", 1, "disabled"},
        {"{\"css\":\"#save\",\"state\":\"enabled\"}", 0, "disabled"},
        {"{\"css\":\"#card\",\"state\":\"disabled\"}", 1, NULL},     /* a disabled fieldset */
        {"{\"css\":\"#delete\",\"state\":\"disabled\"}", 1, NULL},   /* aria-disabled */
        {"{\"css\":\"#cancel\",\"state\":\"enabled\"}", 1, "enabled"},
        {"{\"css\":\"#modal\",\"state\":\"visible\"}", 1, "visible"},
        {"{\"css\":\".item\",\"state\":\"count\",\"count\":3}", 1, "3 matches"},
        {"{\"css\":\".item\",\"state\":\"count\",\"count\":2}", 0, "3 matches"},
        {"{\"css\":\".item\",\"state\":\"count_at_least\",\"count\":2}", 1, NULL},
        {"{\"css\":\".item:nth-child(3)\",\"state\":\"hidden\"}", 1, "hidden"},
        {"{\"css\":\"#gone\",\"state\":\"hidden\"}", 1, "not in the page"},
        {"{\"css\":\"#gone\",\"state\":\"checked\"}", 0, "not in the page"},
        {"{\"css\":\"#dark\",\"state\":\"attribute\",\"name\":\"role\",\"value\":\"switch\"}", 1, NULL},
        {"{\"css\":\"#dark\",\"state\":\"attribute\",\"name\":\"aria-checked\",\"value\":\"true\"}", 0,
         "aria-checked=\"false\""},
        {"{\"css\":\"#dark\",\"state\":\"attribute\",\"name\":\"tabindex\"}", 1, NULL},
        {"{\"css\":\"#modal\",\"state\":\"present\"}", 1, NULL},
        {"{\"css\":\"a[[\",\"state\":\"present\"}", -1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int ok = state(p, cases[i].q, seen, sizeof seen);
        CHECK_MSG(ok == cases[i].ok, "%s: ok %d, seen %s", cases[i].q, ok, seen);
        if (cases[i].seen)
            CHECK_MSG(strcmp(seen, cases[i].seen) == 0, "%s: seen %s", cases[i].q, seen);
    }
    /* The text of an element named by its xpath (assert_text's re-read). */
    char err0[256];
    cJSON *tv = run(p, fovea_js_read_state, "{\"xpath\":\"/html[1]/body[1]/div[1]\",\"state\":\"text\"}", err0);
    CHECK_MSG(tv != NULL, "%s", err0);
    CHECK_STR(str(tv, "text"), "Saving\xe2\x80\xa6 please wait");
    cJSON_Delete(tv);
    /* A point on a label's text stands for its check box; a point on the
     * switch reads aria-checked; a click there changes what is read. */
    char err[256];
    cJSON *c = NULL;
    CHECK_OK(cdp_page_evaluate(p,
                               "(() => { const l = document.getElementById('sms').parentElement;"
                               " const r = l.getBoundingClientRect();"
                               " return [r.right - 8, r.y + r.height / 2]; })()",
                               &c, 5000, err));
    char q[128];
    snprintf(q, sizeof q, "{\"x\":%g,\"y\":%g,\"state\":\"unchecked\"}",
             cJSON_GetArrayItem(c, 0)->valuedouble, cJSON_GetArrayItem(c, 1)->valuedouble);
    cJSON_Delete(c);
    CHECK_EQ(state(p, q, seen, sizeof seen), 1);
    CHECK_OK(cdp_page_evaluate(p, "document.getElementById('sms').click()", NULL, 5000, err));
    CHECK_EQ(state(p, q, seen, sizeof seen), 0);
    CHECK_STR(seen, "checked");
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"markdown_page", markdown_page},
    {"search", search},
    {"states", states},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
