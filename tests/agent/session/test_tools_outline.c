/* tests/agent/session/test_tools_outline.c: the outline tools (agent/session/tools_outline.c)
 * through tool_call on fixture pages in a real headless Chromium.
 *
 * landmarks: outline_shop.html's regions as the accessibility mappings
 * define them (a header/footer inside an article is no banner/contentinfo,
 * an unnamed section or form is no landmark, a named one is, a
 * role=navigation div is a NAV), nested regions indented under their
 * parent, headings, open shadow DOM and a same-origin iframe read inline,
 * a display:none link left out, orphans under (ungrouped).
 * marks_and_collapse: [n] of "Load more" is the vision mark: click_at
 * "[Vn]" presses that button; the next read collapses the unchanged banner
 * and footer and shows MAIN's new line; changing the banner's nav expands
 * the banner, and the regions collapsed in the read before are shown whole
 * (never collapsed twice in a row); the next read collapses them all, with
 * the same page digest;
 * focus_region shows a collapsed region in full; the same page gets the 8k
 * budget.
 * long_page_marks: outline_long.html (a reference page whose on-screen
 * sidebar follows 450 signatures in the DOM): every on-screen mark is in
 * the 24k outline (issue 22).
 * cut_not_unchanged: the second read collapses the regions the first
 * showed whole, never MAIN, which the first read's budget cut.
 * cross_origin_frame: a cross-site iframe is read through its own session.
 * docs_budget: on a docs page (dl/dt/dd, pre) a tight budget keeps the
 * signatures, definitions and code, drops navigation and filler first.
 * headings_and_flat: list_headings with counts; flat mode has no regions.
 * task_file: the tools as `fovea run` steps: saved values printed under
 * their steps (the second read collapsed), a misspelt argument refused at
 * load (exit 2).
 * extract_with: a wide query and a text find a method signature (its dt,
 * with a selector unique on the page) and a value (pick: the match's text
 * as the value); a hidden element is skipped; max caps the list and says
 * how many more; the [Vn] of a match is pressed by click_at; an invalid
 * selector is bad_args naming query; boilerplate-only matches are said to
 * be no meaningful content.
 * python_docs: a smoke test on Debian's python3-doc (real documentation
 * nobody here wrote, served on loopback): json.html's outline has its
 * landmarks and the json.dumps signature as a line, extract_with_index
 * finds it. Only what is stable across python3-doc versions is asserted.
 * secret_value: a secret typed into a plain field is masked in the outline
 * (the value attribute) like in every other output.
 * ax_parity: the outline's landmark regions are exactly the landmarks
 * Chromium's accessibility tree (Accessibility.getFullAXTree) computes for
 * the page (form and region counted when named, as the outline does), on
 * the fixture pages and on python3-doc's json.html.
 * failures: bad arguments name the argument; an unknown region is
 * not_found listing the page's regions; a page with only "Loading..." is
 * reported as having no meaningful content.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/session/outline.h"
#include "agent/session/session.h"
#include "agent/session/tool.h"
#include "tool_session.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/json_get.h"
#include "harness.h"
#include "serve/httpd.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"

static fovea_session *open_on(cdp_page **page, const char *path)
{
    return ts_open(1280, 800, path, page);
}

/* Runs tool with args; returns its text value (malloc'd copy, "" when
 * none) and leaves the result in *r for the caller to inspect and fini. */
static const char *call(fovea_session *s, const char *tool, const char *args, tool_result *r)
{
    tool_call(s, tool, args, r);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, "value");
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The printed index of the element rendered as "<tag>name</tag>" (0 = none). */
static int index_of(const char *text, const char *el)
{
    const char *p = strstr(text, el);
    if (!p)
        return 0;
    const char *b = p;
    while (b > text && b[-1] != '[')
        b--;
    return b > text ? (int)strtol(b, NULL, 10) : 0;
}

static double num(const tool_result *r, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void landmarks(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "\nBANNER:\n  [") != NULL, "%s", t);
    CHECK_EQ(count(t, "BANNER:"), 1);       /* the article's header is none */
    CHECK_EQ(count(t, "CONTENTINFO:"), 1);  /* nor its footer */
    CHECK(strstr(t, "\n  SEARCH:\n    [") != NULL);
    CHECK(strstr(t, "\n  NAV: \"Primary\"\n    [") != NULL);
    CHECK(strstr(t, "<a>Tents</a>") != NULL);
    CHECK(strstr(t, "\nMAIN:\n  # Trail stoves\n") != NULL);
    CHECK(strstr(t, "\n  NAV: \"On this page\"\n    [") != NULL);
    CHECK(strstr(t, "\n  ## Canister stoves\n") != NULL && strstr(t, "\n  ### Ember 2\n") != NULL);
    CHECK(strstr(t, "Boils a litre in 3 minutes. $39.00") != NULL);
    CHECK(strstr(t, "\n  An unnamed section is no landmark.\n") != NULL);
    CHECK_EQ(count(t, "REGION:"), 1);
    CHECK(strstr(t, "\n  REGION: \"Reviews\"\n    ### Reviews\n    No reviews yet.\n") != NULL);
    CHECK_EQ(count(t, "FORM:"), 1);
    CHECK(strstr(t, "\n  FORM: \"Newsletter\"\n    Email [") != NULL);
    CHECK(strstr(t, "<input type=number value=\"1\">") != NULL);
    CHECK(strstr(t, "Gift cards from $10 [") != NULL && strstr(t, "<button>Buy a gift card</button>"));
    CHECK(strstr(t, "Fuel canisters 3 for $15 [") != NULL);
    CHECK(strstr(t, "Hidden details") == NULL);
    CHECK(strstr(t, "\nCOMPLEMENTARY: \"Cart\"\n  ## Your cart\n  Empty\n") != NULL);
    CHECK(strstr(t, "\nNAV: \"Breadcrumbs\"\n  [") != NULL);
    CHECK(strstr(t, "\n(ungrouped):\n  [") != NULL);
    const char *ung = strstr(t, "(ungrouped):");
    CHECK(ung && strstr(ung, "<a>Skip to content</a>") && strstr(ung, "<a>Help centre</a>"));
    CHECK(strstr(t, "=== END OUTLINE ===") != NULL);
    CHECK(num(&r, "marks") > 0);
    CHECK_EQ(num(&r, "collapsed"), 0);
    CHECK_EQ(num(&r, "cap"), 24000);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void marks_and_collapse(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    int n = index_of(t, "<button>Load more</button>");
    int marks = (int)num(&r, "marks");
    tool_result_fini(&r);
    CHECK_MSG(n > 0 && n <= marks, "Load more is [%d], marks 1..%d", n, marks);
    /* The outline's number is the vision mark: pressing [Vn] presses it. */
    char args[64];
    snprintf(args, sizeof args, "{\"target\": \"[V%d]\"}", n);
    CHECK_MSG(tool_call(s, "click_at", args, &r), "%s", r.message);
    tool_result_fini(&r);
    t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "\nBANNER: (unchanged, 4 links, 1 button, 1 field)\n") != NULL, "%s", t);
    CHECK(strstr(t, "\nCONTENTINFO: (unchanged, 2 links)\n") != NULL);
    CHECK(strstr(t, "\nCOMPLEMENTARY: \"Cart\" (unchanged, 2 lines)\n") != NULL);
    CHECK(strstr(t, "\nMAIN:\n  # Trail stoves\n") != NULL);
    CHECK(strstr(t, "Windscreen kit: $12.00") != NULL);
    /* Inside the expanded MAIN, its unchanged sub-regions still collapse. */
    CHECK(strstr(t, "\n  NAV: \"On this page\" (unchanged, 2 links)\n") != NULL);
    CHECK(strstr(t, "<a>Tents</a>") == NULL);
    CHECK_EQ(num(&r, "cap"), 8000);
    CHECK(num(&r, "collapsed") >= 4);
    tool_result_fini(&r);

    /* The banner's nav changes: the banner expands. A region collapsed in
     * the last read (its text two reads back) is shown whole again, and so
     * is MAIN, which held such a sub-region: a region collapses only
     * against a read that showed all of it. */
    CHECK(cdp_page_evaluate(p, "document.getElementById('change-nav').click()", NULL, 3000,
                            NULL) == BASE_OK);
    t = call(s, "get_outline", "{}", &r);
    CHECK(strstr(t, "\nBANNER:\n") != NULL && strstr(t, "<a>Lights</a>") != NULL);
    CHECK_MSG(strstr(t, "\n  SEARCH:\n") != NULL, "%s", t);
    CHECK(strstr(t, "\nMAIN:\n  # Trail stoves\n") != NULL);
    CHECK(strstr(t, "\n  NAV: \"On this page\"\n") != NULL);
    CHECK_EQ(num(&r, "collapsed"), 0);
    char digest[32];
    snprintf(digest, sizeof digest, "%s", base_json_str(r.data, "digest", "?"));
    tool_result_fini(&r);
    /* Nothing changed since: everything shown whole collapses. The page's
     * digest is the same for both renderings of it (the agent's loop
     * detection compares pages by it). */
    t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(strstr(t, "\nBANNER: (unchanged, ") != NULL, "%s", t);
    CHECK(strstr(t, "\nMAIN: (unchanged, ") != NULL);
    CHECK(strstr(t, "<a>Lights</a>") == NULL);
    CHECK_STR(base_json_str(r.data, "digest", ""), digest);
    CHECK_EQ(strlen(digest), 16);
    tool_result_fini(&r);

    /* A collapsed region in full on request. */
    t = call(s, "focus_region", "{\"region\": \"MAIN\"}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(strncmp(t, "MAIN:\n  # Trail stoves\n", 23) == 0);
    CHECK(strstr(t, "Windscreen kit") != NULL && strstr(t, "BANNER") == NULL);
    tool_result_fini(&r);
    t = call(s, "focus_region", "{\"region\": \"NAV:Primary\"}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(strstr(t, "<a>Lights</a>") != NULL && strstr(t, "<a>Tents</a>") != NULL);
    tool_result_fini(&r);
    /* fresh: no collapsing. */
    t = call(s, "get_outline", "{\"fresh\": true}", &r);
    CHECK(strstr(t, "unchanged") == NULL && strstr(t, "<a>Tents</a>") != NULL);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* A runner that did not give the model a read puts back the set of the read
 * it did give (fovea_session_outline_copy, then _swap), so the next read
 * collapses as against that one; fovea_session_outline_hold makes the next
 * read collapse nothing, still at the same-page budget (agent/plan/goal.c:
 * the Worker's "unchanged" note, and its reads after a cut one). */
static void copy_and_hold(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    call(s, "get_outline", "{}", &r); /* A: whole, the model's */
    CHECK_MSG(r.success, "%s", r.message);
    tool_result_fini(&r);
    struct agent_outline_sig *shown = NULL;
    fovea_session_outline_copy(s, &shown);
    CHECK(shown != NULL);
    call(s, "get_outline", "{}", &r); /* B: collapses against A; not given */
    int collapsed_b = (int)num(&r, "collapsed");
    CHECK_MSG(collapsed_b >= 4, "%d collapsed", collapsed_b);
    tool_result_fini(&r);
    fovea_session_outline_swap(s, &shown); /* A's set back */
    fovea_session_outline_free(shown);
    /* Against B's set the regions B collapsed would be shown whole again
     * (marks_and_collapse); against A's they collapse as in B. */
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG((int)num(&r, "collapsed") == collapsed_b, "%.0f collapsed, B %d: %s",
              num(&r, "collapsed"), collapsed_b, t);
    tool_result_fini(&r);
    fovea_session_outline_hold(s);
    t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(num(&r, "collapsed") == 0, "%s", t);
    CHECK(strstr(t, "unchanged") == NULL && strstr(t, "<a>Tents</a>") != NULL);
    CHECK_EQ(num(&r, "cap"), AGENT_OL_CAP_SAME);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* outline_long.html: a Sphinx-like reference whose sidebar (fixed on the
 * left, on screen) comes after 450 signatures in the DOM. Under the 24k
 * budget every on-screen mark is in the outline (issue 22: they ranked with
 * the signatures before, and lost to the ones earlier in reading order). */
static void long_page_marks(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_long.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_EQ(num(&r, "cap"), AGENT_OL_CAP_FIRST);
    CHECK_MSG(num(&r, "raw_chars") > 2 * AGENT_OL_CAP_FIRST, "raw %.0f", num(&r, "raw_chars"));
    CHECK(strstr(t, "lines omitted (budget 24000 chars)") != NULL);
    CHECK(num(&r, "chars") <= AGENT_OL_CAP_FIRST);
    int in = (int)num(&r, "marks_in"), shown = (int)num(&r, "marks_shown");
    CHECK_MSG(in >= 30, "only %d marks on screen", in);
    CHECK_MSG(shown == in, "%d of %d on-screen marks shown", shown, in);
    /* The sidebar's on-screen links, each with its mark. */
    int n = index_of(t, "<a>Valve functions</a>");
    CHECK_MSG(n > 0 && n <= num(&r, "marks"), "Valve functions is [%d]", n);
    CHECK(index_of(t, "<a>Troubleshooting</a>") > 0);
    /* What is left of the budget still goes to the signatures. */
    CHECK(strstr(t, "garden.irrigation.valve_open(valve_id, *, minutes=5, retry=False)") != NULL);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* The second read of a page collapses the regions the first showed whole,
 * and never one the first read cut for budget: MAIN lost lines to the 24k
 * cap, so it is shown again (within the 8k same-page budget); the related
 * bar and the sidebar, shown whole, are one line each. */
static void cut_not_unchanged(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_long.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(strstr(t, "\nMAIN:\n") != NULL && strstr(t, "omitted") != NULL);
    int first = (int)num(&r, "chars");
    tool_result_fini(&r);
    t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_EQ(num(&r, "cap"), AGENT_OL_CAP_SAME);
    CHECK_MSG(strstr(t, "\nNAV: \"Related\" (unchanged, 5 links)\n") != NULL, "%s", t);
    CHECK_MSG(strstr(t, "\nNAV: \"Main\" (unchanged, ") != NULL, "%s", t);
    CHECK_MSG(strstr(t, "MAIN: (unchanged") == NULL, "%s", t);
    CHECK(strstr(t, "\nMAIN:\n  # garden.irrigation — Watering controllers\n") != NULL);
    CHECK_MSG(num(&r, "collapsed") >= 2, "%.0f collapsed", num(&r, "collapsed"));
    CHECK(num(&r, "chars") <= AGENT_OL_CAP_SAME && num(&r, "chars") < first);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void cross_origin_frame(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_empty.html");
    if (!s)
        SKIP(harness_error());
    char url[256], js[512];
    harness_url(1, "/tools/outline_frame.html", url, sizeof url);
    snprintf(js,
             sizeof js,
             "new Promise((ok) => { const f = document.createElement('iframe'); f.src = '%s'; "
             "f.onload = () => ok(1); document.body.appendChild(f); })",
             url);
    CHECK(cdp_page_evaluate(p, js, NULL, 5000, NULL) == BASE_OK);
    /* The frame's target attaches after its load event. */
    for (int i = 0; i < 40; i++) {
        cdp_frame fr[8];
        int n = cdp_page_frames(p, fr, 8);
        if (n >= 2 && fr[1].oopif && fr[1].session[0])
            break;
        base_sleep_ms(50);
    }
    tool_result r;
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "Fuel canisters 3 for $15 [") != NULL, "%s", t);
    CHECK(strstr(t, "<a>See deal</a>") != NULL && strstr(t, "#### Weekend deal") != NULL);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void docs_budget(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_docs.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    /* Without pressure everything is there. */
    CHECK(strstr(t, "Brewing history, part 4") != NULL && strstr(t, "omitted") == NULL);
    CHECK(strstr(t, "\nNAV: \"Related\"\n") != NULL && strstr(t, "\nNAV: \"Main\"\n") != NULL);
    CHECK(strstr(t, "\n  class kettle.Timer(seconds, *, label=None, repeat=False)\n") != NULL);
    /* Code keeps its indentation (inside the four-space code block). */
    CHECK_MSG(strstr(t, "\n      ...     t.reset(pot.seconds)\n") != NULL, "%s", t);
    tool_result_fini(&r);
    t = call(s, "get_outline", "{\"max_chars\": 1500, \"fresh\": true}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "class kettle.Timer(seconds, *, label=None, repeat=False)") != NULL, "%s",
              t);
    CHECK(strstr(t, "remaining(precision=1)") != NULL);
    CHECK(strstr(t, "Return the seconds left, rounded to precision digits.") != NULL);
    CHECK(strstr(t, "DEFAULT_TEMPERATURE = 96") != NULL);
    CHECK(strstr(t, "\n      >>> t = kettle.Timer(240, label=\"green tea\")\n") != NULL);
    CHECK(strstr(t, "# kettle — Brewing timers") != NULL);
    CHECK(strstr(t, "Brewing history, part 4") == NULL);
    CHECK(strstr(t, "lines omitted (budget 1500 chars)") != NULL);
    CHECK(num(&r, "kept_lines") < num(&r, "lines"));
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void headings_and_flat(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "list_headings", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "# Trail stoves (MAIN, ") != NULL, "%s", t);
    CHECK(strstr(t, "\n### Reviews (REGION \"Reviews\", 0 elements)\n") != NULL);
    CHECK(strstr(t, "\n### Ember 2 (MAIN, 1 element)\n") != NULL);
    CHECK(strstr(t, "\n## Your cart (COMPLEMENTARY \"Cart\", 0 elements)\n") != NULL);
    CHECK(num(&r, "headings") >= 8);
    tool_result_fini(&r);
    t = call(s, "get_outline", "{\"mode\": \"flat\"}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(strstr(t, "BANNER") == NULL && strstr(t, "NAV:") == NULL && strstr(t, "(ungrouped)") == NULL);
    CHECK(strstr(t, "<a>Tents</a>") != NULL && strstr(t, "# Trail stoves") != NULL);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void failures(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_empty.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CHECK(!tool_call(s, "focus_region", "{}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "region") != NULL, "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "get_outline", "{\"mode\": \"tree\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "mode") != NULL, "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "get_outline", "{\"max_chars\": 10}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    /* A page with nothing but a loading line: said so, not an answer. */
    call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(r.message, "no meaningful content (only boilerplate") != NULL, "%s",
              r.message);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r.data, "meaningful")));
    tool_result_fini(&r);
    CHECK(!tool_call(s, "focus_region", "{\"region\": \"MAIN\"}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK_MSG(strstr(r.message, "no region 'MAIN'; the page has: no landmark regions") != NULL,
              "%s", r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    /* On a page with regions, the miss lists them. */
    cdp_page_close(p);
    s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    CHECK(!tool_call(s, "focus_region", "{\"region\": \"NAV:Secondary\"}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK_MSG(strstr(r.message, "#1 BANNER #2 SEARCH #3 NAV \"Primary\"") != NULL, "%s",
              r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* Runs `fovea run` on tests/agent/session/tasks/TASK; exit status, *log its output. */
static int fovea_run_with(const char *task, const char *extra, char **log)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/session/out_outline";
    char cmd[2048], path[600];
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s' run '%s/tests/agent/session/tasks/%s' --site "
             "'%s/tests/fixtures/pages/tools' --out '%s' --no-humanize --overlays none %s > '%s' "
             "2>&1",
             out, FOVEA, FOVEA_SOURCE_DIR, task, FOVEA_SOURCE_DIR, out, extra, path);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    *log = base_read_file(path, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int fovea_run(const char *task, char **log)
{
    return fovea_run_with(task, "", log);
}

static void task_file(void)
{
    if (!harness_get())
        SKIP(harness_error());
    char *log = NULL;
    int st = fovea_run("outline_shop.json", &log);
    CHECK_MSG(st == 0 && log && strstr(log, "passed: 6/6 steps"), "exit %d:\n%s", st,
              log ? log : "");
    CHECK_MSG(log && strstr(log, "  = === PAGE OUTLINE: Lantern Outfitters") != NULL, "%s", log);
    CHECK_MSG(log && strstr(log, "BANNER: (unchanged, 4 links, 1 button, 1 field)") != NULL, "%s",
              log);
    CHECK_MSG(log && strstr(log, "# Trail stoves (MAIN, ") != NULL, "%s", log);
    CHECK_MSG(log && strstr(log, "  = Titanium, 48 g. $64.50\n") != NULL, "%s", log);
    base_free(log);
    st = fovea_run("outline_bad.json", &log);
    CHECK_MSG(st == 2 && log && strstr(log, "regoin"), "exit %d:\n%s", st, log ? log : "");
    base_free(log);
    /* --page-text flat: get_outline without a mode reads the flat text (no
     * outline header, no region lines); a bad mode is refused at once. */
    st = fovea_run_with("outline_shop.json", "--page-text flat", &log);
    CHECK_MSG(st == 0 && log && strstr(log, "passed: 6/6 steps"), "exit %d:\n%s", st,
              log ? log : "");
    CHECK_MSG(log && !strstr(log, "=== PAGE OUTLINE") && !strstr(log, "BANNER:"), "%s",
              log ? log : "");
    base_free(log);
    st = fovea_run_with("outline_shop.json", "--page-text tree", &log);
    CHECK_MSG(st == 2 && log && strstr(log, "--page-text must be outline or flat"), "exit %d:\n%s",
              st, log ? log : "");
    base_free(log);
}

static void extract_with(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_docs.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    const char *t = call(s, "extract_with_index",
                         "{\"query\": \"dt, dd, code, p\", \"contains\": "
                         "\"remaining(precision=1)\"}",
                         &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "<dt> selector: #kettle\\.Timer\\.remaining text: "
                        "\"remaining(precision=1)\"") != NULL,
              "%s", t);
    CHECK(strncmp(t, "[1] <", 5) == 0);
    CHECK(num(&r, "total") >= 2); /* the dt and the dd around it */
    const cJSON *m0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r.data, "matches"), 1);
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(m0, "selector");
    CHECK(cJSON_IsString(sel));
    if (cJSON_IsString(sel)) {
        char js[300];
        snprintf(js, sizeof js, "document.querySelectorAll(%s).length", "'#kettle\\\\.Timer\\\\.remaining'");
        cJSON *v = NULL;
        CHECK(cdp_page_evaluate(p, js, &v, 3000, NULL) == BASE_OK && cJSON_IsNumber(v) &&
              v->valuedouble == 1);
        cJSON_Delete(v);
    }
    tool_result_fini(&r);
    /* A known value, read by index. */
    t = call(s, "extract_with_index",
             "{\"query\": \"dt\", \"contains\": \"DEFAULT_TEMPERATURE\", \"pick\": 1}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_STR(t, "DEFAULT_TEMPERATURE = 96");
    tool_result_fini(&r);
    CHECK(!tool_call(s, "extract_with_index", "{\"query\": \"dt\", \"contains\": "
                                              "\"DEFAULT_TEMPERATURE\", \"pick\": 2}",
                     &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    tool_result_fini(&r);
    /* max caps the list; the rest is counted. */
    t = call(s, "extract_with_index", "{\"query\": \"p\", \"max\": 3}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(strstr(t, "[3] <p>") != NULL && strstr(t, "[4] <p>") == NULL);
    CHECK(strstr(t, "more not listed") != NULL);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "extract_with_index", "{\"query\": \"dt[\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "'query' is not a valid CSS selector: dt[") != NULL, "%s",
              r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "extract_with_index", "{\"contains\": \"x\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "query") != NULL, "%s", r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);

    s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    /* Hidden elements are skipped. */
    CHECK(!tool_call(s, "extract_with_index", "{\"query\": \"a\", \"contains\": \"Hidden\"}",
                     &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    tool_result_fini(&r);
    /* The [Vn] of a match, pressed next turn. */
    t = call(s, "extract_with_index", "{\"query\": \"button\", \"contains\": \"load more\"}",
             &r);
    CHECK_MSG(r.success, "%s", r.message);
    const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r.data, "matches"), 0);
    int mark = (int)cJSON_GetObjectItemCaseSensitive(m, "mark")->valuedouble;
    CHECK_MSG(mark > 0 && strstr(t, "[1] <button> [V") != NULL, "%s", t);
    CHECK(strstr(t, "selector: #change-main") != NULL);
    tool_result_fini(&r);
    char args[64];
    snprintf(args, sizeof args, "{\"target\": \"[V%d]\"}", mark);
    CHECK_MSG(tool_call(s, "click_at", args, &r), "%s", r.message);
    tool_result_fini(&r);
    t = call(s, "extract_with_index", "{\"query\": \"main p\", \"contains\": \"windscreen\"}",
             &r);
    CHECK_MSG(r.success && strstr(t, "Windscreen kit: $12.00"), "%s", r.message);
    tool_result_fini(&r);
    /* Boilerplate only: found, but said to be no answer. */
    call(s, "extract_with_index", "{\"query\": \"footer p\"}", &r);
    CHECK_MSG(r.success && strstr(r.message, "no meaningful content"), "%s", r.message);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r.data, "meaningful")));
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void python_docs(void)
{
    const char *root = "/usr/share/doc/python3-doc/html";
    if (access(root, R_OK) != 0)
        SKIP("python3-doc is not installed (scripts/setup.sh installs it)");
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = root;
    serve_httpd *srv = NULL;
    char err[BASE_ERRBUF_SIZE] = "", url[256];
    CHECK_OK(serve_httpd_start(&ho, &srv, err));
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    if (!p) {
        serve_httpd_destroy(srv);
        SKIP(harness_error());
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%d/library/json.html", serve_httpd_port(srv));
    CHECK_OK(cdp_page_navigate(p, url, 30000, err));
    fovea_session_opts o;
    fovea_session_opts_init(&o);
    o.humanize = 0;
    o.overlays = AGENT_OVERLAYS_NONE;
    fovea_session *s = NULL;
    CHECK_OK(fovea_session_create(p, &o, &s, err));
    tool_result r;
    const char *t = call(s, "get_outline", "{\"max_chars\": 1000000}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(strstr(t, "\nMAIN:\n") != NULL && strstr(t, "\nNAV: ") != NULL);
    CHECK(strstr(t, "\n  json.dumps(obj, *, skipkeys=False") != NULL);
    CHECK(strstr(t, "\n  # ") != NULL && strstr(t, "JSON encoder and decoder") != NULL);
    /* A comment in a code sample is code, not a heading. */
    CHECK(strstr(t, "      # ") != NULL && strstr(t, "\n  # Let the") == NULL);
    tool_result_fini(&r);
    t = call(s, "extract_with_index", "{\"query\": \"dt\", \"contains\": \"json.dumps(\"}", &r);
    CHECK_MSG(r.success && strstr(t, "text: \"json.dumps(obj, *, skipkeys=False"), "%s",
              r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
    serve_httpd_destroy(srv);
}

static void secret_value(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_on(&p, "/tools/outline_shop.html");
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CHECK_MSG(tool_call(s, "type_at",
                        "{\"target\": \"Search gear\", \"text\": \"hunter2-sekrit\", \"secret\": true}",
                        &r),
              "%s", r.message);
    tool_result_fini(&r);
    const char *t = call(s, "get_outline", "{}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_MSG(strstr(t, "<input type=search value=\"") != NULL, "%s", t);
    CHECK_MSG(strstr(t, "hunter2-sekrit") == NULL, "%s", t);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

#define MAX_LM 64

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Chromium's landmarks of p's main frame as sorted "LABEL \"name\"" lines. */
static int ax_landmarks(cdp_page *p, char out[][200])
{
    static const char *const ROLES[][2] = {
        {"banner", "BANNER"}, {"navigation", "NAV"}, {"main", "MAIN"},
        {"complementary", "COMPLEMENTARY"}, {"contentinfo", "CONTENTINFO"},
        {"search", "SEARCH"}, {"form", "FORM"}, {"region", "REGION"}};
    cJSON *res = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_page_call(p, "Accessibility.getFullAXTree", cJSON_CreateObject(), &res, 10000, err)) {
        fprintf(stderr, "ax: %s\n", err);
        return -1;
    }
    int n = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(res, "nodes"))
    {
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(node, "role"), "value");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(node, "name"), "value");
        if (!cJSON_IsString(role) || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "ignored")))
            continue;
        const char *nm = cJSON_IsString(name) ? name->valuestring : "";
        for (size_t k = 0; k < sizeof ROLES / sizeof ROLES[0] && n < MAX_LM; k++) {
            if (strcmp(role->valuestring, ROLES[k][0]) != 0)
                continue;
            /* Form and region are landmarks only when named. */
            if ((k == 6 || k == 7) && !nm[0])
                break;
            if (nm[0])
                snprintf(out[n++], 200, "%s \"%.150s\"", ROLES[k][1], nm);
            else
                snprintf(out[n++], 200, "%s", ROLES[k][1]);
        }
    }
    cJSON_Delete(res);
    qsort(out, (size_t)n, 200, cmp_str);
    return n;
}

/* The outline's region headers ("NAV: \"Primary\"" at any depth) the same way. */
static int outline_landmarks(const char *t, char out[][200])
{
    int n = 0;
    for (const char *l = t; *l && n < MAX_LM; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        while (*l == ' ')
            l++;
        size_t len = strcspn(l, "\n");
        const char *colon = memchr(l, ':', len);
        if (!colon || *l < 'A' || *l > 'Z' || !strncmp(l, "===", 3))
            continue;
        int upper = 1;
        for (const char *c = l; c < colon; c++)
            upper &= (*c >= 'A' && *c <= 'Z');
        if (!upper)
            continue;
        const char *rest = colon + 1;
        size_t rl = len - (size_t)(rest - l);
        if (rl > 1 && rest[0] == ' ' && rest[1] == '"')
            snprintf(out[n++], 200, "%.*s %.*s", (int)(colon - l), l, (int)(rl - 1), rest + 1);
        else
            snprintf(out[n++], 200, "%.*s", (int)(colon - l), l);
    }
    qsort(out, (size_t)n, 200, cmp_str);
    return n;
}

static void parity_on(cdp_page *p, fovea_session *s, const char *what)
{
    static char ax[MAX_LM][200], ol[MAX_LM][200];
    tool_result r;
    const char *t = call(s, "get_outline", "{\"fresh\": true, \"max_chars\": 1000000}", &r);
    CHECK_MSG(r.success, "%s", r.message);
    int no = outline_landmarks(t, ol);
    tool_result_fini(&r);
    int na = ax_landmarks(p, ax);
    CHECK_MSG(na > 0 && na == no, "%s: %d landmarks in the AX tree, %d in the outline", what, na,
              no);
    for (int i = 0; i < na && i < no; i++)
        CHECK_MSG(strcmp(ax[i], ol[i]) == 0, "%s: AX '%s' vs outline '%s'", what, ax[i], ol[i]);
}

static void ax_parity(void)
{
    const char *pages[] = {"/tools/outline_shop.html", "/tools/outline_docs.html"};
    for (int i = 0; i < 2; i++) {
        cdp_page *p = NULL;
        fovea_session *s = open_on(&p, pages[i]);
        if (!s)
            SKIP(harness_error());
        parity_on(p, s, pages[i]);
        fovea_session_destroy(s);
        cdp_page_close(p);
    }
    const char *root = "/usr/share/doc/python3-doc/html";
    if (access(root, R_OK) != 0)
        SKIP("python3-doc is not installed (scripts/setup.sh installs it)");
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = root;
    serve_httpd *srv = NULL;
    char err[BASE_ERRBUF_SIZE] = "", url[256];
    CHECK_OK(serve_httpd_start(&ho, &srv, err));
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/library/json.html", serve_httpd_port(srv));
    fovea_session *s = NULL;
    fovea_session_opts o;
    fovea_session_opts_init(&o);
    o.humanize = 0;
    o.overlays = AGENT_OVERLAYS_NONE;
    if (p && cdp_page_navigate(p, url, 30000, err) == BASE_OK &&
        fovea_session_create(p, &o, &s, err) == BASE_OK)
        parity_on(p, s, "python3-doc json.html");
    else
        CHECK_MSG(0, "%s", err);
    fovea_session_destroy(s);
    cdp_page_close(p);
    serve_httpd_destroy(srv);
}

static const check_case cases[] = {
    {"ax_parity", ax_parity},
    {"secret_value", secret_value},
    {"python_docs", python_docs},
    {"extract_with", extract_with},
    {"task_file", task_file},
    {"landmarks", landmarks},
    {"marks_and_collapse", marks_and_collapse},
    {"copy_and_hold", copy_and_hold},
    {"long_page_marks", long_page_marks},
    {"cut_not_unchanged", cut_not_unchanged},
    {"cross_origin_frame", cross_origin_frame},
    {"docs_budget", docs_budget},
    {"headings_and_flat", headings_and_flat},
    {"failures", failures},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    harness_shutdown();
    return rc;
}
