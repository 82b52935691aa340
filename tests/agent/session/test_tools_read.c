/* tests/agent/test_tools_read.c: the reading, assertion and script tools
 * (agent/session/tools_read.c) called through tool_call on fixture pages in a real
 * headless Chromium (tests/fixtures/pages/read): a documentation page, a
 * settings form, a page that logs errors and throws. Each tool's output,
 * its failure path, and bad arguments (named in the message, nothing run).
 * The vision provider is "dom" (no model endpoint). */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/session_int.h"
#include "agent/session/tool.h"
#include "tool_session.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "cdp/console.h"
#include "check.h"
#include "harness/harness.h"

static fovea_session *session_on(cdp_page *p, int allow_scripts)
{
    fovea_session_opts o;
    ts_opts(&o);
    o.allow_scripts = allow_scripts;
    return ts_session(p, &o);
}

/* tool_call, then the value of data.value ("" when none) into *value. */
static int call(fovea_session *s, const char *tool, const char *args, tool_result *r)
{
    tool_result_fini(r);
    int ok = tool_call(s, tool, args, r);
    if (getenv("READ_TRACE"))
        fprintf(stderr, "%s %s -> %s %s: %s\n", tool, args, ok ? "ok" : "FAIL",
                tool_reason_name(r->reason), r->message);
    return ok;
}

static const char *value(const tool_result *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, "value");
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const tool_result *r, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Waits until the same-origin frame of docs.html has its text. */
static void docs_ready(cdp_page *p)
{
    for (int i = 0; i < 100; i++) {
        cJSON *v = NULL;
        int ok = cdp_page_evaluate(p,
                                   "(() => { const f = document.getElementById('notes');"
                                   " return !!(f && f.contentDocument && f.contentDocument.body &&"
                                   " f.contentDocument.body.textContent.includes('Frame')); })()",
                                   &v, 2000, NULL) == BASE_OK &&
                 cJSON_IsTrue(v);
        cJSON_Delete(v);
        if (ok)
            return;
        base_sleep_ms(20);
    }
}

static void extract_markdown(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/docs.html");
    CHECK(p != NULL);
    docs_ready(p);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    CHECK(call(s, "extract_markdown", "{\"save_as\": \"doc\"}", &r));
    const char *md = value(&r);
    CHECK_MSG(strstr(md, "# Widgets API\n") && strstr(md, "| GET | `/widgets` | List widgets |") &&
                  strstr(md, "```js\n") && strstr(md, "Frame paragraph"),
              "%s", md);
    CHECK(strstr(md, "We use cookies") == NULL);
    CHECK_STR(fovea_session_var(s, "doc"), md);
    /* A region, and the cap with its note. */
    CHECK(call(s, "extract_markdown", "{\"selector\": \"#endpoints\"}", &r));
    CHECK(strncmp(value(&r), "**REST endpoints**", 18) == 0);
    CHECK(call(s, "extract_markdown", "{\"max_chars\": 150}", &r));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.data, "cut")));
    CHECK_MSG(strstr(value(&r), "[... cut at 150 characters") != NULL, "%s", value(&r));
    CHECK(strstr(r.message, "cut") != NULL);
    /* Failures: no such region, a bad selector, bad arguments. */
    CHECK(!call(s, "extract_markdown", "{\"selector\": \"#nothing-here\"}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK(strstr(r.message, "#nothing-here") != NULL);
    CHECK(!call(s, "extract_markdown", "{\"selector\": \"div[[\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "not a valid CSS selector") != NULL, "%s", r.message);
    CHECK(!call(s, "extract_markdown", "{\"selectr\": \"main\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "selectr") != NULL, "%s", r.message);
    CHECK(!call(s, "extract_markdown", "{\"max_chars\": 5}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "max_chars") != NULL);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void dom_search(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/docs.html");
    CHECK(p != NULL);
    docs_ready(p);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    CHECK(call(s, "dom_search", "{\"text\": \"List widgets\"}", &r));
    CHECK_EQ(num(&r, "total"), 1);
    CHECK_MSG(strncmp(value(&r), "1. <td> \"List widgets\"", 22) == 0, "%s", value(&r));
    CHECK(strstr(value(&r), "xpath=/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[1]/td[3]") != NULL);
    cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(r.data, "matches"), 0);
    CHECK_EQ(cJSON_GetObjectItem(m, "index")->valueint, 1);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(m, "visible")));
    /* Selector, hidden matches marked, the cap and the count beyond it. */
    CHECK(call(s, "dom_search", "{\"selector\": \"p\", \"max_results\": 2}", &r));
    CHECK(num(&r, "total") >= 6);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(r.data, "matches")), 2);
    CHECK(strstr(value(&r), "more not listed") != NULL);
    CHECK(call(s, "dom_search", "{\"text\": \"hidden banner\"}", &r));
    CHECK(strstr(value(&r), "[hidden]") != NULL);
    /* A match in the same-origin frame names the frame element's xpath
     * (the page kit's framePath); one in the page names none. */
    CHECK(call(s, "dom_search", "{\"text\": \"Frame paragraph\"}", &r));
    m = cJSON_GetArrayItem(cJSON_GetObjectItem(r.data, "matches"), 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(m, "frame")),
              "/html[1]/body[1]/main[1]/iframe[1]");
    CHECK(call(s, "dom_search", "{\"text\": \"List widgets\"}", &r));
    m = cJSON_GetArrayItem(cJSON_GetObjectItem(r.data, "matches"), 0);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(m, "frame")), "");
    /* Failures. */
    CHECK(!call(s, "dom_search", "{\"text\": \"no such words here\"}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK(!call(s, "dom_search", "{\"selector\": \"p:has(\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "not a valid CSS selector") != NULL);
    CHECK(!call(s, "dom_search", "{}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "text") && strstr(r.message, "selector"), "%s", r.message);
    CHECK(!call(s, "dom_search", "{\"text\": \"x\", \"max_results\": 81}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "max_results") != NULL);
    CHECK(!call(s, "dom_search", "{\"text\": 3}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void accessibility_tree(void)
{
    HARNESS_OR_SKIP(h);
    char path[160];
    snprintf(path, sizeof path, "/read/form.html");
    cdp_page *p = harness_open(1024, 800, 1, path);
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    CHECK(call(s, "get_accessibility_tree", "{}", &r));
    const char *t = value(&r);
    const char *want[] = {"heading \"Settings\" [level=1]", "checkbox \"Newsletter\" [checked]",
                          "checkbox \"SMS alerts\" [unchecked]", "switch \"Dark mode\"",
                          "button \"Save changes\" [disabled]", "button \"Cancel\"",
                          "textbox \"Email\" value=\"ada@example.com\"", "combobox \"Plan\""};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        CHECK_MSG(strstr(t, want[i]) != NULL, "missing %s in:\n%s", want[i], t);
    /* Indented under their parents; ignored nodes (the hidden list item)
     * left out. */
    CHECK(strstr(t, "\n  ") != NULL);
    CHECK(strstr(t, "Three") == NULL);
    CHECK(num(&r, "lines") > 10);
    CHECK(call(s, "get_accessibility_tree", "{\"max_chars\": 200}", &r));
    CHECK(strlen(value(&r)) < 300);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.data, "cut")));
    CHECK(!call(s, "get_accessibility_tree", "{\"max_depth\": 0}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
    /* A cross-site frame's tree comes after the page's, under its URL. */
    snprintf(path, sizeof path, "/read/console.html?b=%s", h->origin_b);
    p = harness_open(1024, 800, 1, path);
    CHECK(p != NULL);
    s = session_on(p, 0);
    CHECK(s != NULL);
    int frame = 0;
    for (int i = 0; i < 50 && !frame; i++) {
        CHECK(call(s, "get_accessibility_tree", "{}", &r));
        frame = strstr(value(&r), "frame \"http://localhost") && strstr(value(&r), "Chat with us");
        if (!frame)
            base_sleep_ms(50);
    }
    CHECK_MSG(frame, "%s", value(&r));
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
    /* A same-origin frame (the page's own process) by its frame id. */
    p = harness_open(1024, 800, 1, "/read/docs.html");
    CHECK(p != NULL);
    docs_ready(p);
    s = session_on(p, 0);
    CHECK(s != NULL);
    CHECK(call(s, "get_accessibility_tree", "{}", &r));
    CHECK_MSG(strstr(value(&r), "/read/docs_frame.html\"\n") &&
                  strstr(value(&r), "heading \"Release notes\" [level=3]") &&
                  strstr(value(&r), "table \"REST endpoints\"\n      rowgroup") &&
                  /* one node, one line: a code block's breaks written as \n */
                  strstr(value(&r), "StaticText \"const w = require('widgets');\\nw.create(") &&
                  !strstr(value(&r), "strong"),
              "%s", value(&r));
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void console_errors(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/console.html");
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    /* error, warning, assert, exception, rejection, 404 (no frame here). */
    for (int i = 0; i < 100 && cdp_page_console_count(p) < 6u; i++)
        base_sleep_ms(20);
    CHECK(call(s, "get_console_errors", "{}", &r));
    const char *t = value(&r);
    CHECK_MSG(strstr(t, "[console error] Failed to fetch order Object 404 (http://") &&
                  strstr(t, "/read/console.html:12:") &&
                  strstr(t, "[console warning] Deprecated API") &&
                  strstr(t, "[exception] Uncaught TypeError: cart.items is undefined") &&
                  strstr(t, "[network error] Failed to load resource") &&
                  strstr(t, "missing-banner.png"),
              "%s", t);
    CHECK(strstr(t, "booting") == NULL);
    double next = num(&r, "next");
    CHECK(next >= 6);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(r.data, "entries")), (int)next);
    /* Errors only. */
    CHECK(call(s, "get_console_errors", "{\"warnings\": false}", &r));
    CHECK(strstr(value(&r), "Deprecated") == NULL);
    /* Only what came since: nothing, then the one new error, with a
     * secret the session holds masked. */
    char args[64];
    snprintf(args, sizeof args, "{\"since\": %d}", (int)next);
    CHECK(call(s, "get_console_errors", args, &r));
    CHECK_STR(value(&r), "");
    CHECK(strstr(r.message, "no console errors") != NULL);
    CHECK_OK(agent_secrets_add(s->sec, "hunter2-secret"));
    CHECK_OK(cdp_page_evaluate(p, "console.error('login failed for hunter2-secret')", NULL, 5000,
                               NULL));
    for (int i = 0; i < 100 && cdp_page_console_count(p) <= (uint64_t)next; i++)
        base_sleep_ms(20);
    CHECK(call(s, "get_console_errors", args, &r));
    CHECK_MSG(strstr(value(&r), "login failed for ********") != NULL, "%s", value(&r));
    CHECK(strstr(value(&r), "hunter2") == NULL);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(r.data, "entries")), 1);
    CHECK_EQ(num(&r, "next"), next + 1);
    /* The newest max_entries only. */
    CHECK(call(s, "get_console_errors", "{\"max_entries\": 2}", &r));
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(r.data, "entries")), 2);
    CHECK(strstr(value(&r), "login failed") != NULL);
    CHECK(strstr(value(&r), "older entries not listed") != NULL);
    CHECK(!call(s, "get_console_errors", "{\"since\": -1}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void scripts(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/form.html");
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    /* Opt-in: refused while the session does not allow scripts. */
    CHECK(!call(s, "evaluate_script", "{\"expression\": \"document.title = 'x'\"}", &r));
    CHECK_EQ(r.reason, TOOL_BLOCKED);
    CHECK(!call(s, "run_script", "{\"script\": \"return 1\"}", &r));
    CHECK_EQ(r.reason, TOOL_BLOCKED);
    cJSON *t = NULL;
    CHECK_OK(cdp_page_evaluate(p, "document.title", &t, 5000, NULL));
    CHECK_STR(t->valuestring, "Account settings");
    cJSON_Delete(t);
    fovea_session_destroy(s);
    s = session_on(p, 1);
    CHECK(s != NULL);
    CHECK(call(s, "evaluate_script", "{\"expression\": \"document.title\", \"save_as\": \"title\"}",
               &r));
    CHECK_STR(value(&r), "Account settings");
    CHECK_STR(fovea_session_var(s, "title"), "Account settings");
    CHECK(r.delivered);
    CHECK(call(s, "evaluate_script",
               "{\"expression\": \"[...document.querySelectorAll('.item')].map(e => e.textContent)\"}",
               &r));
    CHECK_STR(value(&r), "[\"One\",\"Two\",\"Three\"]");
    CHECK(cJSON_IsArray(cJSON_GetObjectItem(r.data, "result")));
    /* Awaited, and variables from an earlier step. */
    CHECK(call(s, "evaluate_script",
               "{\"expression\": \"await new Promise(f => setTimeout(() => f('${title}!'), 50))\"}", &r));
    CHECK_STR(value(&r), "Account settings!");
    CHECK(call(s, "run_script",
               "{\"script\": \"const n = document.querySelectorAll(arg).length;\\nreturn {n}; // done\","
               " \"arg\": \"input\"}",
               &r));
    CHECK_MSG(strcmp(value(&r), "{\"n\":5}") == 0, "%s", value(&r));
    /* Nothing returned is said, not silently "". */
    CHECK(call(s, "run_script", "{\"script\": \"document.title = 'Renamed'\"}", &r));
    CHECK_STR(value(&r), "");
    CHECK_MSG(strstr(r.message, "returned nothing") && strstr(r.message, "return"), "%s", r.message);
    CHECK(call(s, "evaluate_script", "{\"expression\": \"document.title\"}", &r));
    CHECK_STR(value(&r), "Renamed");
    /* Exceptions with their message; the time limit for loops and promises. */
    CHECK(!call(s, "evaluate_script", "{\"expression\": \"null.prop\"}", &r));
    CHECK_EQ(r.reason, TOOL_ERROR);
    CHECK_MSG(strstr(r.message, "TypeError") && strstr(r.message, "prop"), "%s", r.message);
    CHECK(!call(s, "run_script", "{\"script\": \"throw new Error('no cart')\"}", &r));
    CHECK_MSG(strstr(r.message, "threw: Error: no cart") != NULL, "%s", r.message);
    double t0 = base_monotime_ms();
    CHECK(!call(s, "evaluate_script", "{\"expression\": \"for (;;) {}\", \"timeout_ms\": 400}", &r));
    CHECK_EQ(r.reason, TOOL_TIMEOUT);
    CHECK(base_monotime_ms() - t0 < 3000);
    CHECK(!call(s, "evaluate_script",
                "{\"expression\": \"new Promise(() => {})\", \"timeout_ms\": 300}", &r));
    CHECK_EQ(r.reason, TOOL_TIMEOUT);
    /* A huge result is cut, not carried whole. */
    CHECK(call(s, "evaluate_script", "{\"expression\": \"'ab'.repeat(300000)\"}", &r));
    CHECK(strlen(value(&r)) < 270000);
    CHECK(strstr(value(&r), "[... cut at 262144 of 600000 bytes]") != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.data, "cut")));
    /* A DOM node reads as its description. */
    CHECK(call(s, "evaluate_script", "{\"expression\": \"document.getElementById('save')\"}", &r));
    CHECK_MSG(strcmp(value(&r), "button#save.btn.btn-primary") == 0, "%s", value(&r));
    /* The page still answers after both. */
    CHECK(call(s, "evaluate_script", "{\"expression\": \"1 + 2\"}", &r));
    CHECK_STR(value(&r), "3");
    CHECK(!call(s, "evaluate_script", "{}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "expression") != NULL);
    /* A secret the page hands back is masked in the value, the raw result
     * and the message. */
    CHECK_OK(agent_secrets_add(s->sec, "hunter2"));
    CHECK(call(s, "evaluate_script",
               "{\"expression\": \"({pw: document.getElementById('pw').value})\"}", &r));
    CHECK_MSG(strstr(value(&r), "hunter2") == NULL && strstr(value(&r), "********") != NULL, "%s",
              value(&r));
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.data, "result"), "pw")),
              "********");
    CHECK(strstr(r.message, "hunter2") == NULL);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void assert_absent(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/form.html");
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    CHECK(call(s, "assert_absent", "{\"text\": \"Order confirmed\"}", &r));
    CHECK(call(s, "assert_absent", "{\"selector\": \".item:nth-child(3)\"}", &r)); /* hidden */
    /* Present and staying: fails after its timeout, saying what is there. */
    double t0 = base_monotime_ms();
    CHECK(!call(s, "assert_absent", "{\"text\": \"please wait\", \"timeout_ms\": 400}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    CHECK(base_monotime_ms() - t0 >= 400);
    CHECK(strstr(r.message, "still on the page") != NULL);
    CHECK(!call(s, "assert_absent", "{\"selector\": \"#modal\", \"timeout_ms\": 200}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    CHECK_MSG(strstr(r.message, "1 match, 1 visible") != NULL, "%s", r.message);
    CHECK(!call(s, "assert_absent", "{\"pattern\": \"Sav(ing|ed)\", \"timeout_ms\": 200}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    /* Going away while it waits: passes as soon as it is gone. */
    CHECK_OK(cdp_page_evaluate(p, "later(400, () => document.getElementById('modal').remove())",
                               NULL, 5000, NULL));
    t0 = base_monotime_ms();
    CHECK(call(s, "assert_absent", "{\"text\": \"please wait\", \"timeout_ms\": 5000}", &r));
    double took = base_monotime_ms() - t0;
    CHECK_MSG(took >= 250 && took < 3000, "took %.0f ms", took);
    CHECK(call(s, "assert_absent", "{\"selector\": \"#modal\", \"timeout_ms\": 100}", &r));
    /* Bad arguments. */
    CHECK(!call(s, "assert_absent", "{}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(!call(s, "assert_absent", "{\"text\": \"a\", \"selector\": \"b\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(!call(s, "assert_absent", "{\"pattern\": \"(unclosed\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "pattern") != NULL);
    CHECK(!call(s, "assert_absent", "{\"selector\": \"a[[\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void assert_state(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/form.html");
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    CHECK(call(s, "assert_state", "{\"selector\": \"#news\", \"state\": \"checked\"}", &r));
    CHECK(call(s, "assert_state", "{\"selector\": \"#save\", \"state\": \"disabled\"}", &r));
    CHECK(call(s, "assert_state",
               "{\"selector\": \"#email\", \"state\": \"value_equals\", \"value\": \"ada@example.com\"}",
               &r));
    CHECK(call(s, "assert_state", "{\"selector\": \"#save\", \"state\": \"class_has\", \"value\": \"btn-primary\"}", &r));
    CHECK(call(s, "assert_state", "{\"selector\": \".item\", \"state\": \"count\", \"count\": 3}", &r));
    CHECK(call(s, "assert_state", "{\"selector\": \".item\", \"state\": \"count_at_least\", \"count\": 1}", &r));
    CHECK(call(s, "assert_state",
               "{\"selector\": \"#dark\", \"state\": \"attribute\", \"name\": \"aria-checked\", \"value\": \"false\"}",
               &r));
    /* Failing: says what it saw, after the whole timeout. */
    double t0 = base_monotime_ms();
    CHECK(!call(s, "assert_state", "{\"selector\": \"#sms\", \"state\": \"checked\", \"timeout_ms\": 300}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    CHECK(base_monotime_ms() - t0 >= 300);
    CHECK_MSG(strstr(r.message, "expected checked, saw unchecked") != NULL, "%s", r.message);
    CHECK(!call(s, "assert_state", "{\"selector\": \".item\", \"state\": \"count\", \"count\": 2, \"timeout_ms\": 100}", &r));
    CHECK_MSG(strstr(r.message, "expected 2 matches, saw 3 matches") != NULL, "%s", r.message);
    CHECK(!call(s, "assert_state", "{\"selector\": \"#nope\", \"state\": \"enabled\", \"timeout_ms\": 100}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    /* Polling: the state comes true while it waits. */
    CHECK_OK(cdp_page_evaluate(p, "later(300, () => { document.getElementById('save').disabled = false; })",
                               NULL, 5000, NULL));
    CHECK(call(s, "assert_state", "{\"selector\": \"#save\", \"state\": \"enabled\", \"timeout_ms\": 5000}", &r));
    /* Bad arguments: what goes with which state is checked before any run. */
    CHECK(!call(s, "assert_state", "{\"selector\": \"#email\", \"state\": \"value_equals\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "value") != NULL);
    CHECK(!call(s, "assert_state", "{\"selector\": \"#email\", \"state\": \"shiny\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "state") != NULL);
    CHECK(!call(s, "assert_state", "{\"selector\": \".item\", \"state\": \"count\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(!call(s, "assert_state", "{\"selector\": \"#news\", \"state\": \"checked\", \"count\": 1}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(!call(s, "assert_state", "{\"state\": \"checked\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* Targets named by label (grounded through the "dom" vision provider and
 * the snapper), as a task file names them. */
static void targets(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1024, 800, 1, "/read/form.html");
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    /* A label's text stands for its check box; a switch reads aria-checked. */
    CHECK(call(s, "assert_state", "{\"target\": \"Newsletter\", \"state\": \"checked\"}", &r));
    CHECK(call(s, "assert_state", "{\"target\": \"SMS alerts\", \"state\": \"unchecked\"}", &r));
    CHECK(call(s, "assert_state", "{\"target\": \"Save changes\", \"state\": \"disabled\"}", &r));
    CHECK(call(s, "assert_state", "{\"target\": \"Dark mode\", \"state\": \"unchecked\"}", &r));
    CHECK(!call(s, "assert_state",
                "{\"target\": \"Newsletter\", \"state\": \"unchecked\", \"timeout_ms\": 200}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    CHECK_MSG(strstr(r.message, "Newsletter") && strstr(r.message, "saw checked"), "%s", r.message);
    /* The state changes while it waits. */
    CHECK_OK(cdp_page_evaluate(p, "later(300, () => document.getElementById('sms').click())", NULL,
                               5000, NULL));
    CHECK(call(s, "assert_state", "{\"target\": \"SMS alerts\", \"state\": \"checked\"}", &r));
    CHECK(!call(s, "assert_state", "{\"target\": \"Save\", \"selector\": \"#save\", \"state\": \"enabled\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(!call(s, "assert_state", "{\"target\": \"Save changes\", \"state\": \"count\", \"count\": 1}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    /* assert_text on a target polls the element's text until its timeout:
     * the button's label changes 400 ms after the call starts. */
    CHECK_OK(cdp_page_evaluate(p,
                               "later(400, () => { document.getElementById('sync').textContent ="
                               " 'Synced just now'; })",
                               NULL, 5000, NULL));
    double t0 = base_monotime_ms();
    CHECK(call(s, "assert_text", "{\"target\": \"Sync now\", \"text\": \"Synced\"}", &r));
    CHECK(base_monotime_ms() - t0 >= 300);
    t0 = base_monotime_ms();
    CHECK(!call(s, "assert_text",
                "{\"target\": \"Cancel\", \"text\": \"Cancelled\", \"timeout_ms\": 500}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    CHECK(base_monotime_ms() - t0 >= 500);
    CHECK_MSG(strstr(r.message, "within 500 ms") != NULL, "%s", r.message);
    /* The block around a target, as Markdown. */
    CHECK(call(s, "extract_markdown", "{\"target\": \"Cancel\"}", &r));
    CHECK_MSG(strstr(value(&r), "[Cancel]") && strstr(value(&r), "[x] Newsletter") &&
                  !strstr(value(&r), "# Settings"),
              "%s", value(&r));
    CHECK(!call(s, "extract_markdown", "{\"target\": \"Cancel\", \"selector\": \"form\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    /* A target that stays, then one that goes away while it waits. */
    CHECK(!call(s, "assert_absent", "{\"target\": \"Cancel\", \"timeout_ms\": 300}", &r));
    CHECK_EQ(r.reason, TOOL_ASSERT_FAILED);
    CHECK_MSG(strstr(r.message, "Cancel") && strstr(r.message, "still on the page"), "%s", r.message);
    CHECK_OK(cdp_page_evaluate(p, "later(300, () => document.getElementById('delete').remove())",
                               NULL, 5000, NULL));
    CHECK(call(s, "assert_absent", "{\"target\": \"Delete account\", \"timeout_ms\": 8000}", &r));
    CHECK_MSG(strstr(r.message, "not on the page") != NULL, "%s", r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"

/* Runs `fovea run TASK --site tests/fixtures/pages/read extra`; returns the
 * exit status and the output (caller frees) in *log. */
static int fovea_run(const char *task, const char *extra, char **log)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/session/out_read";
    char cmd[2048], path[600];
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s' run '%s/tests/agent/session/tasks/%s' --site '%s/tests/fixtures/pages/read' "
             "--out '%s' --no-humanize --overlays none %s > '%s' 2>&1",
             out, FOVEA, FOVEA_SOURCE_DIR, task, FOVEA_SOURCE_DIR, out, extra, path);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    *log = base_read_file(path, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The tools as task-file steps through `fovea run`: values saved with
 * save_as printed under their steps, scripts refused without
 * --allow-scripts, a state without its value refused at load (exit 2). */
static void task_file(void)
{
    HARNESS_OR_SKIP(h);
    char *log = NULL;
    int st = fovea_run("read_form.json", "--allow-scripts", &log);
    CHECK_MSG(st == 0 && log && strstr(log, "passed: 13/13 steps"), "exit %d:\n%s", st,
              log ? log : "");
    /* Each line of a value is marked: page text never reads as fovea's. */
    CHECK_MSG(strstr(log, "  = - One\n  = - Two\n") != NULL, "%s", log);
    CHECK_MSG(strstr(log, "  = 2\n") != NULL, "%s", log);
    base_free(log);
    /* Without --allow-scripts the script steps are refused at load (exit
     * 2), before the steps ahead of them act. */
    st = fovea_run("read_form.json", "", &log);
    CHECK_MSG(st == 2 && log && strstr(log, "runs page JavaScript: add --allow-scripts") &&
                  !strstr(log, "step 1/"),
              "exit %d:\n%s", st, log ? log : "");
    base_free(log);
    st = fovea_run("read_bad.json", "", &log);
    CHECK_MSG(st == 2 && log && strstr(log, "needs 'value'"), "exit %d:\n%s", st, log ? log : "");
    base_free(log);
}

/* A ${name} inside a pattern is the saved value, quoted: "Pro (monthly)"
 * matches itself (raw, its parentheses are a group and the line is not
 * found). */
static void task_vars(void)
{
    HARNESS_OR_SKIP(h);
    char *log = NULL;
    int st = fovea_run("read_vars.json", "", &log);
    CHECK_MSG(st == 0 && log && strstr(log, "passed: 3/3 steps"), "exit %d:\n%s", st,
              log ? log : "");
    base_free(log);
}

/* done ends the task: with success false the run fails at that step (exit
 * 1), and the step after it never runs. */
static void task_done(void)
{
    HARNESS_OR_SKIP(h);
    char *log = NULL;
    int st = fovea_run("read_gave_up.json", "", &log);
    CHECK_MSG(st == 1 && log && strstr(log, "FAILED at step 2") && !strstr(log, "step 3/3"),
              "exit %d:\n%s", st, log ? log : "");
    base_free(log);
}

/* A cross-site frame (its own process and session) is read through its
 * session: in the page's Markdown under its URL, and by dom_search. */
static void cross_origin_frame(void)
{
    HARNESS_OR_SKIP(h);
    char path[160];
    snprintf(path, sizeof path, "/read/console.html?b=%s", h->origin_b);
    cdp_page *p = harness_open(1024, 800, 1, path);
    CHECK(p != NULL);
    fovea_session *s = session_on(p, 0);
    CHECK(s != NULL);
    tool_result r = {0};
    int seen = 0;
    for (int i = 0; i < 50 && !seen; i++) {
        CHECK(call(s, "extract_markdown", "{}", &r));
        seen = strstr(value(&r), "Chat with us") != NULL;
        if (!seen)
            base_sleep_ms(50);
    }
    CHECK_MSG(seen, "%s", value(&r));
    CHECK_MSG(strstr(value(&r), "# Your order") && strstr(value(&r), "(frame http://localhost"),
              "%s", value(&r));
    CHECK(call(s, "extract_markdown", "{\"frames\": false}", &r));
    CHECK(strstr(value(&r), "Chat with us") == NULL);
    CHECK(call(s, "dom_search", "{\"text\": \"chat with us\"}", &r));
    CHECK_EQ(num(&r, "total"), 1);
    cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(r.data, "matches"), 0);
    CHECK(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(m, "frame_url")), "localhost") != NULL);
    CHECK(strstr(value(&r), "frame=http://localhost") != NULL);
    /* A selector that only the frame matches is found there. */
    CHECK(call(s, "assert_state", "{\"selector\": \"#chat\", \"state\": \"visible\"}", &r));
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"cross_origin_frame", cross_origin_frame},
    {"task_file", task_file},
    {"task_vars", task_vars},
    {"task_done", task_done},
    {"targets", targets},
    {"extract_markdown", extract_markdown},
    {"dom_search", dom_search},
    {"accessibility_tree", accessibility_tree},
    {"console_errors", console_errors},
    {"scripts", scripts},
    {"assert_absent", assert_absent},
    {"assert_state", assert_state},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
