/* tests/agent/session/test_tool.c: the tool layer itself (agent/session/tool.h).
 *
 * schemas: every tool's schema is valid JSON of an object schema, names
 * are unique, aliases resolve, the model's function list has them all
 * (and no opt-in tool unless allowed).
 * args_check: unknown, mistyped, out-of-range and missing arguments are
 * errors naming the argument; the common keys are accepted everywhere.
 * refusals: bad JSON, an unknown tool, bad arguments and an unset variable
 * fail before anything touches the page (the page's click counter stays 0).
 * click: click_at through tool_call reaches the page once, reports the
 * DOM change, and fills the record (tiers, stage timings).
 * scroll_modes: direction, to bottom/top, percent, to_text and within (a
 * scroll box, not the page) through the hand on a real page; a scroll that
 * cannot move is no_effect, not success.
 * variables: a value extract saved with save_as reaches a later call.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <dirent.h>

#include "agent/session/tool.h"
#include "tool_session.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/fs.h"
#include "harness.h"

static void schemas(void)
{
    int n = tool_count();
    CHECK(n >= 10);
    for (int i = 0; i < n; i++) {
        const tool_def *t = tool_at(i);
        CHECK(t && t->name && t->description && t->run);
        cJSON *s = cJSON_Parse(t->schema);
        CHECK_MSG(s != NULL, "%s: schema is not JSON", t->name);
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(s, "type");
        CHECK_MSG(cJSON_IsString(ty) && strcmp(ty->valuestring, "object") == 0,
                  "%s: schema is not an object schema", t->name);
        cJSON_Delete(s);
        CHECK(tool_find(t->name) == t);
        for (int k = 0; k < i; k++)
            CHECK_MSG(strcmp(tool_at(k)->name, t->name) != 0, "%s twice", t->name);
        /* {} is either valid or an error naming what is missing. */
        char err[BASE_ERRBUF_SIZE] = "";
        if (tool_args_check(t, NULL, err) != BASE_OK)
            CHECK_MSG(strstr(err, t->name) != NULL, "%s: '%s'", t->name, err);
    }
    CHECK(tool_find("click") == tool_find("click_at"));
    CHECK(tool_find("type") == tool_find("type_at"));
    CHECK(tool_find("dialog") == tool_find("handle_dialog"));
    CHECK(tool_find("no_such_tool") == NULL);
    CHECK(tool_at(n) == NULL);
    cJSON *fns = tool_functions_json(0);
    CHECK(fns != NULL);
    int opt_in = 0, uploads = 0;
    for (int i = 0; i < n; i++) {
        opt_in += (tool_at(i)->flags & TOOL_OPT_IN) != 0;
        uploads += (tool_at(i)->flags & TOOL_UPLOADS) != 0;
    }
    /* Each tool that needs a permit is offered only with it (issue 23):
     * page script (add_init_script too) and uploads. */
    CHECK_EQ(opt_in, 3);
    CHECK_EQ(uploads, 1);
    CHECK_STR(tool_permit_name(tool_find("add_init_script")), "allow-scripts");
    CHECK_STR(tool_permit_name(tool_find("evaluate_script")), "allow-scripts");
    CHECK_STR(tool_permit_name(tool_find("upload_file")), "upload-dir");
    CHECK_STR(tool_permit_name(tool_find("click_at")), "none");
    CHECK_EQ(cJSON_GetArraySize(fns), n - opt_in - uploads);
    const cJSON *f0 = cJSON_GetArrayItem(fns, 0);
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(f0, "type")->valuestring, "function");
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(f0, "function");
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fn, "name")));
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(fn, "parameters")));
    cJSON_Delete(fns);
    fns = tool_functions_json(TOOL_PERMIT_SCRIPTS);
    CHECK_EQ(cJSON_GetArraySize(fns), n - uploads);
    cJSON_Delete(fns);
    fns = tool_functions_json(TOOL_PERMIT_UPLOAD);
    CHECK_EQ(cJSON_GetArraySize(fns), n - opt_in);
    cJSON_Delete(fns);
    fns = tool_functions_json(TOOL_PERMIT_SCRIPTS | TOOL_PERMIT_UPLOAD);
    CHECK_EQ(cJSON_GetArraySize(fns), n);
    cJSON_Delete(fns);
    CHECK_STR(tool_reason_name(TOOL_NOT_FOUND), "not_found");
    CHECK_EQ(tool_reason_from_name("covered"), TOOL_COVERED);
    CHECK_EQ(tool_reason_from_name("assert_failed"), TOOL_ASSERT_FAILED);
    CHECK_EQ(tool_reason_from_name("page_gone"), TOOL_PAGE_GONE);
    CHECK_EQ(tool_reason_from_name("nonsense"), TOOL_ERROR);
}

/* tool_args_check(name, json) -> error text ("" when valid). */
static const char *check_args(const char *name, const char *json, char *err)
{
    err[0] = '\0';
    cJSON *a = cJSON_Parse(json);
    if (!a)
        return "(test: bad JSON)";
    base_err e = tool_args_check(tool_find(name), a, err);
    cJSON_Delete(a);
    return e ? err : "";
}

static void args_check(void)
{
    char err[BASE_ERRBUF_SIZE];
    static const struct {
        const char *tool, *args, *want; /* want "" = valid */
    } cases[] = {
        {"click_at", "{\"target\": \"Save\"}", ""},
        {"click_at", "{\"target\": {\"label\": \"Save\", \"index\": 3}, \"timeout_ms\": 900, "
                     "\"retries\": 0, \"note\": \"n\", \"critical\": true}",
         ""},
        {"click_at", "{\"targte\": \"Save\"}", "argument 'targte' is not known (target, verb"},
        {"click_at", "{}", "required"},
        {"click_at", "{\"target\": 5}", "'target' must be a string or an object"},
        {"click_at", "{\"target\": \"\"}", "'target' must not be empty"},
        {"click_at", "{\"target\": \"a\", \"timeout_ms\": 0}", "timeout_ms"},
        {"click_at", "{\"target\": \"a\", \"expect_effect\": \"yes\"}", "expect_effect"},
        {"type_at", "{\"target\": \"Email\"}", "text"},
        {"scroll", "{\"direction\": \"sideways\"}", "'direction' must be one of: up, down"},
        {"scroll", "{\"percent\": 140}", "'percent' must be at most 100"},
        {"scroll", "{}", "needs one of target, dy"},
        {"scroll", "{\"to\": \"top\", \"dy\": 3}", "give only one of"},
        {"scroll", "{\"to\": \"bottom\", \"pixels\": 3}", "'pixels' goes with 'direction'"},
        {"scroll", "{\"direction\": \"down\", \"pixels\": 300, \"within\": \"Log\"}", ""},
        {"done", "{\"text\": \"42\", \"save_as\": \"answer\"}", ""},
        {"done", "{\"text\": \"42\", \"save_as\": \"9lives\"}", "'save_as' must be a name"},
        {"done", "{\"txt\": \"42\"}", "'txt' is not known (text, success; and timeout_ms"},
        {"handle_dialog", "{\"prompt_text\": \"x\"}", "needs \"accept\": true"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = check_args(cases[i].tool, cases[i].args, err);
        if (!cases[i].want[0])
            CHECK_MSG(!got[0], "case %zu (%s %s): unexpected error '%s'", i, cases[i].tool,
                      cases[i].args, got);
        else
            CHECK_MSG(strstr(got, cases[i].want) != NULL, "case %zu (%s %s): got '%s', want '%s'",
                      i, cases[i].tool, cases[i].args, got, cases[i].want);
    }
}

static double eval_num(cdp_page *p, const char *expr)
{
    cJSON *v = NULL;
    double d = -1;
    if (cdp_page_evaluate(p, expr, &v, 3000, NULL) == BASE_OK && cJSON_IsNumber(v))
        d = v->valuedouble;
    cJSON_Delete(v);
    return d;
}

/* A session on tools/scroll.html with no trace and no humanization. */
static fovea_session *open_session(cdp_page **page)
{
    return ts_open(1280, 800, "/tools/scroll.html", page);
}

static void refusals(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CHECK(!tool_call(s, "click_at", "{\"target\": ", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK(strstr(r.message, "not valid JSON") != NULL);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "click_somewhere", "{}", &r));
    CHECK_EQ(r.reason, TOOL_UNKNOWN_TOOL);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "click_at", "{\"target\": \"Subscribe\", \"verbb\": \"press\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "'verbb' is not known") != NULL, "%s", r.message);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "click_at", "{\"target\": \"${who}\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "${who} is not set") != NULL, "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "click_at", "[1, 2]", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    /* Nothing of the above reached the page. */
    CHECK_EQ(eval_num(p, "parseInt(document.getElementById('count').textContent)"), 0);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void click(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    int ok = tool_call(s, "click_at", "{\"target\": \"Subscribe\"}", &r);
    CHECK_MSG(ok, "%s", r.message);
    CHECK_EQ(r.reason, TOOL_OK);
    CHECK(r.delivered);
    CHECK(r.changed.effects != 0);
    CHECK(!r.changed.url_changed);
    CHECK(r.rec.hand.n_tried >= 1);
    CHECK(r.rec.total_ms > 0);
    CHECK_STR(r.rec.action, "click_at");
    CHECK(r.rec.box_id > 0);
    tool_result_fini(&r);
    CHECK_EQ(eval_num(p, "parseInt(document.getElementById('count').textContent)"), 1);
    /* A label nothing carries: not_found with the nearest names. */
    CHECK(!tool_call(s, "click_at", "{\"target\": \"Unsubscribe from everything\", "
                                    "\"timeout_ms\": 600}",
                     &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK(r.rec.n_alternatives > 0);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK_EQ(eval_num(p, "parseInt(document.getElementById('count').textContent)"), 1);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* Issue 21: a label that names several controls alike is answered
 * "ambiguous" with the controls in the result's data (name, role, [Vn],
 * rect, point), for the model to name one; nothing is pressed. The label
 * that names one control presses it and says so by its own name. */
static void ambiguous(void)
{
    cdp_page *p = NULL;
    fovea_session *s = ts_open(1280, 800, "/snap/board.html", &p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CHECK(!tool_call(s, "click_at", "{\"target\": \"Delete\", \"timeout_ms\": 2000}", &r));
    CHECK_EQ(r.reason, TOOL_AMBIGUOUS);
    CHECK(!r.delivered);
    CHECK_MSG(strstr(r.message, "names 3 controls alike"), "%s", r.message);
    const cJSON *cands = cJSON_GetObjectItemCaseSensitive(r.data, "candidates");
    CHECK_EQ(cJSON_GetArraySize(cands), 3);
    const cJSON *c0 = cJSON_GetArrayItem(cands, 0);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(c0, "name");
    CHECK(cJSON_IsString(nm) && strcmp(nm->valuestring, "Delete") == 0);
    const cJSON *mk = cJSON_GetObjectItemCaseSensitive(c0, "mark");
    CHECK(cJSON_IsString(mk) && strncmp(mk->valuestring, "[V", 2) == 0);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c0, "point")), 2);
    tool_result_fini(&r);
    char logtxt[64] = "";
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "document.getElementById('log').textContent", &v, 5000, NULL) ==
            BASE_OK &&
        cJSON_IsString(v))
        snprintf(logtxt, sizeof logtxt, "%s", v->valuestring);
    cJSON_Delete(v);
    CHECK_STR(logtxt, ""); /* nothing deleted */
    /* An ordinal picks one of them in reading order (docs/grounding.md). */
    static const char *const picks[][2] = {{"second Delete", "deleted t2"},
                                           {"the last Delete", "deleted t3"},
                                           {"1st Delete", "deleted t1"}};
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "{\"target\": \"%s\"}", picks[i][0]);
        int okp = tool_call(s, "click_at", args, &r);
        CHECK_MSG(okp, "%s: %s", picks[i][0], r.message);
        tool_result_fini(&r);
        v = NULL;
        logtxt[0] = '\0';
        if (cdp_page_evaluate(p, "document.getElementById('log').textContent", &v, 5000, NULL) ==
                BASE_OK &&
            cJSON_IsString(v))
            snprintf(logtxt, sizeof logtxt, "%s", v->valuestring);
        cJSON_Delete(v);
        CHECK_STR(logtxt, picks[i][1]);
    }
    CHECK(!tool_call(s, "click_at", "{\"target\": \"fifth Delete\", \"timeout_ms\": 600}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK_MSG(strstr(r.message, "names 3 controls; there is no 5th"), "%s", r.message);
    tool_result_fini(&r);
    int ok = tool_call(s, "click_at", "{\"target\": \"Save\"}", &r);
    CHECK_MSG(ok, "%s", r.message);
    CHECK_MSG(strstr(r.message, "clicked <button> 'Save' (match exact)"), "%s", r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void scroll_modes(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    double max = eval_num(p, "document.scrollingElement.scrollHeight - innerHeight");
    CHECK(max > 2000);
    tool_result r;
    CHECK_MSG(tool_call(s, "scroll", "{\"direction\": \"down\", \"pixels\": 500}", &r), "%s",
              r.message);
    CHECK_NEAR(eval_num(p, "scrollY"), 500, 2);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r.data, "top")));
    tool_result_fini(&r);
    CHECK_MSG(tool_call(s, "scroll", "{\"to\": \"bottom\"}", &r), "%s", r.message);
    CHECK_NEAR(eval_num(p, "scrollY"), max, 2);
    tool_result_fini(&r);
    /* At the bottom, "down" cannot move: no_effect, never a success. */
    CHECK(!tool_call(s, "scroll", "{\"direction\": \"down\"}", &r));
    CHECK_EQ(r.reason, TOOL_NO_EFFECT);
    tool_result_fini(&r);
    CHECK_MSG(tool_call(s, "scroll", "{\"percent\": 50}", &r), "%s", r.message);
    CHECK_NEAR(eval_num(p, "scrollY"), max / 2, 4);
    tool_result_fini(&r);
    CHECK_MSG(tool_call(s, "scroll", "{\"to\": \"top\"}", &r), "%s", r.message);
    CHECK_NEAR(eval_num(p, "scrollY"), 0, 1);
    tool_result_fini(&r);
    CHECK_MSG(tool_call(s, "scroll", "{\"to_text\": \"printing tables is slow\"}", &r), "%s",
              r.message);
    double top = eval_num(p, "document.querySelectorAll('section')[3].querySelector('p')"
                             ".getBoundingClientRect().top");
    CHECK_MSG(top >= 0 && top < 800, "text at %.0f", top);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "scroll", "{\"to_text\": \"Version 9.9\"}", &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    tool_result_fini(&r);
    /* within: the log box scrolls, the page does not. */
    double page_y = eval_num(p, "scrollY");
    CHECK_MSG(tool_call(s, "scroll", "{\"direction\": \"down\", \"pixels\": 300, "
                                     "\"within\": \"Event 2\"}",
                        &r),
              "%s", r.message);
    tool_result_fini(&r);
    CHECK_NEAR(eval_num(p, "document.getElementById('log').scrollTop"), 300, 2);
    CHECK_NEAR(eval_num(p, "scrollY"), page_y, 1);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void variables(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    tool_result r;
    CHECK_MSG(tool_call(s, "extract", "{\"pattern\": \"^Version 3\\\\.1$\", \"save_as\": \"v\"}",
                        &r),
              "%s", r.message);
    tool_result_fini(&r);
    CHECK_STR(fovea_session_var(s, "v"), "Version 3.1");
    CHECK_MSG(tool_call(s, "done", "{\"text\": \"latest but one: ${v}\"}", &r), "%s", r.message);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "latest but one: Version 3.1") == 0);
    tool_result_fini(&r);
    /* wait_for on a pattern alone (no target, no text). */
    CHECK_MSG(tool_call(s, "wait_for", "{\"pattern\": \"^Version \\\\d\\\\.9$\", "
                                       "\"timeout_ms\": 2000}",
                        &r),
              "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "wait_for", "{\"pattern\": \"^Version 7\", \"timeout_ms\": 300}", &r));
    CHECK_EQ(r.reason, TOOL_TIMEOUT);
    CHECK_MSG(strstr(r.message, "/^Version 7/ did not appear") != NULL, "%s", r.message);
    tool_result_fini(&r);
    char err[BASE_ERRBUF_SIZE];
    CHECK_EQ(fovea_session_set_var(s, "bad name", "x", err), BASE_EINVAL);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* Appends every .c and .json file of dir to b. */
static void slurp_dir(const char *dir, base_buf *b)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (!(n > 2 && strcmp(e->d_name + n - 2, ".c") == 0) &&
            !(n > 5 && strcmp(e->d_name + n - 5, ".json") == 0))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        uint8_t *data = NULL;
        size_t len = 0;
        if (base_read_file(path, &data, &len, 8u << 20, NULL) == BASE_OK)
            base_buf_append(b, data, len);
        base_free(data);
    }
    if (d)
        closedir(d);
}

/* Every tool in the registry is called by name (or by its task word) in a
 * tool-layer test or task file: a tool added without a test fails here. */
static void every_tool_tested(void)
{
    base_buf b;
    base_buf_init(&b, 64u << 20);
    slurp_dir(FOVEA_SOURCE_DIR "/tests/agent/session", &b);
    slurp_dir(FOVEA_SOURCE_DIR "/tests/agent/session/tasks", &b);
    slurp_dir(FOVEA_SOURCE_DIR "/assets/tasks", &b);
    base_buf_append(&b, "", 1);
    const char *all = (const char *)b.data;
    CHECK(all != NULL);
    static const char *const words[][2] = {{"click_at", "click"}, {"type_at", "type"},
                                           {"select_option", "select"},
                                           {"handle_dialog", "dialog"}};
    for (int i = 0; all && i < tool_count(); i++) {
        const char *name = tool_at(i)->name;
        char q[96], eq[100];
        snprintf(q, sizeof q, "\"%s\"", name);
        snprintf(eq, sizeof eq, "\\\"%s\\\"", name);
        int seen = strstr(all, q) != NULL || strstr(all, eq) != NULL;
        for (size_t w = 0; !seen && w < sizeof words / sizeof words[0]; w++) {
            if (strcmp(words[w][0], name) != 0)
                continue;
            snprintf(q, sizeof q, "\"action\": \"%s\"", words[w][1]);
            snprintf(eq, sizeof eq, "\\\"action\\\":\\\"%s\\\"", words[w][1]);
            seen = strstr(all, q) != NULL || strstr(all, eq) != NULL;
        }
        CHECK_MSG(seen, "no test calls the tool '%s'", name);
    }
    base_buf_fini(&b);
}

static const check_case cases[] = {
    {"every_tool_tested", every_tool_tested},
    {"schemas", schemas},
    {"args_check", args_check},
    {"refusals", refusals},
    {"click", click},
    {"ambiguous", ambiguous},
    {"scroll_modes", scroll_modes},
    {"variables", variables},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    harness_shutdown();
    return rc;
}
