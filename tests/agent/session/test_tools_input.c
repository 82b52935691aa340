/* tests/agent/session/test_tools_input.c: the input tools (agent/session/tools_input.c)
 * through tool_call on tests/fixtures/pages/hand/verbs.html (a key-logging
 * search field, a script menu and a CSS :hover flyout, a double-click and a
 * context-menu target, a native select and a portalled ARIA listbox, a
 * hidden file input in a label and a button that opens a chooser from
 * script, a Copy button), grounded by label through the dom provider.
 *
 * args: bad arguments are bad_args naming the argument or the key, before
 * anything touches the page (the page's key log stays empty).
 * keys: send_keys to a target and to the focused field; chords reach the
 * page with their modifiers; delivered and effects reported.
 * pointer: hover reports what appeared (script menu, CSS flyout);
 * double_click and right_click fire dblclick / contextmenu once.
 * dropdowns: options listed (native, custom opened and closed), chosen by
 * text, ambiguous / disabled / absent options refused with candidates.
 * files_clipboard: upload_file into the label's input and through a
 * chooser, a missing file refused naming it; get_clipboard after Copy, its
 * value saved with save_as and used by a later call.
 * task_file: a task that uses every verb through `fovea run`.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/session/tool.h"
#include "tool_session.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "cascade/cascade.h"
#include "harness.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define UPLOAD FOVEA_SOURCE_DIR "/tests/fixtures/pages/tools/upload.txt"

static fovea_session *open_session(cdp_page **page)
{
    return ts_open(1000, 760, "/hand/verbs.html", page);
}

static const char *page_str(cdp_page *p, const char *expr, char *buf, size_t n)
{
    cJSON *v = NULL;
    buf[0] = '\0';
    if (cdp_page_evaluate(p, expr, &v, 3000, NULL) == BASE_OK && cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(v);
    return buf;
}

/* window.log joined with '|', then cleared. */
static const char *page_log(cdp_page *p, char *buf, size_t n)
{
    return page_str(p, "(() => { const s = window.log.join('|'); window.log.length = 0; return s; })()",
                    buf, n);
}

static int call(fovea_session *s, const char *tool, const char *args, tool_result *r)
{
    int ok = tool_call(s, tool, args, r);
    if (!ok)
        fprintf(stderr, "  %s %s: %s (%s)\n", tool, args, r->message, tool_reason_name(r->reason));
    return ok;
}

static void args(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    char buf[512];
    page_log(p, buf, sizeof buf);
    tool_result r;
    CHECK(!tool_call(s, "send_keys", "{\"keys\": \"Control+Entr\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "'Entr'") && strstr(r.message, "Enter"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "send_keys", "{\"keys\": [\"Tab\", \"Shfit+Tab\"]}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "Shfit") && strstr(r.message, "Shift"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "send_keys", "{}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "keys"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "send_keys", "{\"keys\": \"a\", \"repeat\": 0}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "repeat"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "hover", "{\"targte\": \"Products\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "targte"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "select_dropdown_by_text", "{\"target\": \"Country\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "text"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "upload_file", "{\"target\": \"Attach...\", \"files\": 3}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "files"), "%s", r.message);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "get_clipboard", "{\"format\": \"html\"}", &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    tool_result_fini(&r);
    /* Nothing reached the page. */
    CHECK_STR(page_log(p, buf, sizeof buf), "");
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void keys(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    char buf[2048];
    tool_result r;
    CHECK(call(s, "type_at", "{\"target\": \"Search\", \"text\": \"shoes\"}", &r));
    tool_result_fini(&r);
    page_log(p, buf, sizeof buf);
    /* Enter on the focused field: the page's handler runs. */
    CHECK(call(s, "send_keys", "{\"keys\": \"Enter\"}", &r));
    CHECK(r.delivered);
    CHECK(r.changed.effects & CASCADE_FX_MUTATION);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(r.data, "keys");
    CHECK(cJSON_GetArraySize(k) == 1 && strcmp(cJSON_GetArrayItem(k, 0)->valuestring, "Enter") == 0);
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.getElementById('keylog').textContent", buf, sizeof buf),
              "searched shoes");
    /* A chord sequence on a target: focused by a click, emptied. */
    CHECK(call(s, "send_keys", "{\"target\": \"Search\", \"keys\": [\"Control+A\", \"Delete\"]}",
               &r));
    CHECK(r.delivered);
    CHECK(r.changed.effects & CASCADE_FX_VALUE);
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.getElementById('q').value", buf, sizeof buf), "");
    /* Tab with repeat from Search: Note, then the next control. */
    CHECK(call(s, "send_keys", "{\"keys\": \"Tab\", \"repeat\": 1}", &r));
    CHECK(r.changed.effects & CASCADE_FX_FOCUS);
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.activeElement.id", buf, sizeof buf), "n2");
    CHECK(call(s, "send_keys", "{\"keys\": \"Shift+Tab\"}", &r));
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.activeElement.id", buf, sizeof buf), "q");
    page_log(p, buf, sizeof buf);
    CHECK_MSG(strstr(buf, "keydown:a:KeyA:C:t") && strstr(buf, "keydown:Tab:Tab:S:t") &&
                  !strstr(buf, ":u"),
              "%s", buf);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

/* 1 when the data's "appeared" array holds a line containing needle. */
static int appeared_has(const cJSON *data, const char *needle)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(data, "appeared"))
    {
        if (cJSON_IsString(it) && strstr(it->valuestring, needle))
            return 1;
    }
    return 0;
}

static void pointer(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    char buf[512];
    tool_result r;
    CHECK(call(s, "hover", "{\"target\": \"Products\"}", &r));
    CHECK(r.delivered);
    CHECK_MSG(appeared_has(r.data, "Laptops"), "%s", r.message);
    tool_result_fini(&r);
    /* The CSS flyout: no DOM change, but its text shows. */
    CHECK(call(s, "hover", "{\"target\": \"Company\"}", &r));
    CHECK_MSG(appeared_has(r.data, "Careers"), "%s", r.message);
    CHECK_MSG(strstr(r.rec.outcome, "appeared"), "%s", r.rec.outcome);
    tool_result_fini(&r);
    page_log(p, buf, sizeof buf);
    CHECK(call(s, "double_click", "{\"target\": \"Double-click to edit\"}", &r));
    CHECK(r.delivered);
    tool_result_fini(&r);
    CHECK_STR(page_log(p, buf, sizeof buf), "click:dbl|click:dbl|dblclick:t");
    CHECK(call(s, "right_click", "{\"target\": \"Right-click me\", \"expect_effect\": true}", &r));
    CHECK(r.delivered);
    CHECK(r.changed.effects & CASCADE_FX_MUTATION);
    tool_result_fini(&r);
    CHECK_STR(page_log(p, buf, sizeof buf), "contextmenu:t");
    /* Not there: not_found, nothing pressed. */
    CHECK(!tool_call(s, "double_click", "{\"target\": \"Delete my account\", \"timeout_ms\": 600}",
                     &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK_STR(page_log(p, buf, sizeof buf), "");
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void dropdowns(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    char buf[512];
    tool_result r;
    CHECK(call(s, "get_dropdown_options", "{\"target\": \"Country\", \"save_as\": \"countries\"}",
               &r));
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(r.data, "options");
    CHECK_EQ(cJSON_GetArraySize(o), 6);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.data, "native")));
    const cJSON *gy = cJSON_GetArrayItem(o, 4);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(gy, "disabled")));
    tool_result_fini(&r);
    const char *v = fovea_session_var(s, "countries");
    CHECK_MSG(v && strstr(v, "Austria\nAustralia"), "%s", v ? v : "(unset)");
    CHECK(call(s, "select_dropdown_by_text", "{\"target\": \"Country\", \"text\": \"germany\"}",
               &r));
    CHECK(r.delivered);
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.getElementById('country-out').textContent", buf, sizeof buf),
              "chose de");
    CHECK(!tool_call(s, "select_dropdown_by_text", "{\"target\": \"Country\", \"text\": \"Au\"}",
                     &r));
    CHECK_EQ(r.reason, TOOL_AMBIGUOUS);
    CHECK_MSG(strstr(r.message, "Austria") && strstr(r.message, "Australia"), "%s", r.message);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK(!tool_call(s, "select_dropdown_by_text", "{\"target\": \"Country\", \"text\": \"Guyana\"}",
                     &r));
    CHECK_EQ(r.reason, TOOL_DISABLED);
    tool_result_fini(&r);
    /* The custom combobox: opened, read, closed; then chosen by a click. */
    CHECK(call(s, "get_dropdown_options", "{\"target\": \"Pick a fruit\"}", &r));
    o = cJSON_GetObjectItemCaseSensitive(r.data, "options");
    CHECK_EQ(cJSON_GetArraySize(o), 6);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r.data, "native")));
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "String(document.querySelectorAll('#fruit-list').length)", buf,
                       sizeof buf),
              "0");
    CHECK(call(s, "select_dropdown_by_text", "{\"target\": \"Pick a fruit\", \"text\": \"Apr\"}",
               &r));
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.getElementById('fruit-out').textContent", buf, sizeof buf),
              "fruit apricot");
    CHECK(!tool_call(s, "select_dropdown_by_text", "{\"target\": \"Apricot\", \"text\": \"Kiwi\"}",
                     &r));
    CHECK_EQ(r.reason, TOOL_NOT_FOUND);
    CHECK_MSG(strstr(r.message, "Banana"), "%s", r.message);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void files_clipboard(void)
{
    cdp_page *p = NULL;
    fovea_session *s = open_session(&p);
    if (!s)
        SKIP(harness_error());
    char buf[512];
    tool_result r;
    CHECK(call(s, "upload_file", "{\"target\": \"Drop a file or click\", \"files\": \"" UPLOAD "\"}",
               &r));
    CHECK(r.delivered);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(r.data, "files");
    CHECK(cJSON_GetArraySize(f) == 1 &&
          strcmp(cJSON_GetArrayItem(f, 0)->valuestring, "upload.txt") == 0);
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.getElementById('files').textContent", buf, sizeof buf),
              "upload.txt:21");
    CHECK(!tool_call(s, "upload_file",
                     "{\"target\": \"Attach...\", \"files\": [\"" UPLOAD "\", \"/no/such/file.pdf\"]}",
                     &r));
    CHECK_EQ(r.reason, TOOL_BAD_ARGS);
    CHECK_MSG(strstr(r.message, "/no/such/file.pdf") && strstr(r.message, "does not exist"), "%s",
              r.message);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK(call(s, "upload_file", "{\"target\": \"Attach...\", \"files\": [\"" UPLOAD "\"]}", &r));
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "String(window.chosen)", buf, sizeof buf), "upload.txt");
    /* Copy, then read the clipboard into a variable a later call uses. */
    CHECK(call(s, "click_at", "{\"target\": \"Copy\"}", &r));
    tool_result_fini(&r);
    for (int i = 0; i < 50 && !strstr(page_str(p, "window.log.join('|')", buf, sizeof buf), "cop");
         i++)
        base_sleep_ms(20);
    CHECK_MSG(strstr(buf, "copied"), "%s", buf);
    CHECK(call(s, "get_clipboard", "{\"save_as\": \"clip\"}", &r));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "INV-2026-0042") == 0);
    CHECK(!r.delivered);
    tool_result_fini(&r);
    CHECK(call(s, "type_at", "{\"target\": \"Note\", \"text\": \"ref ${clip}\"}", &r));
    tool_result_fini(&r);
    CHECK_STR(page_str(p, "document.getElementById('n2').value", buf, sizeof buf),
              "ref INV-2026-0042");
    /* A secret on the clipboard is masked like any output. */
    CHECK(call(s, "type_at", "{\"target\": \"Note\", \"text\": \"hunter2-Zq9\", \"secret\": true}",
               &r));
    tool_result_fini(&r);
    page_str(p, "navigator.clipboard.writeText('pw: ' + document.getElementById('n2').value)"
                ".then(() => 'ok', (e) => String(e))",
             buf, sizeof buf);
    CHECK(call(s, "get_clipboard", "{\"save_as\": \"clip2\"}", &r));
    v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    CHECK_MSG(cJSON_IsString(v) && strncmp(v->valuestring, "pw: ", 4) == 0 &&
                  !strstr(v->valuestring, "hunter2-Zq9"),
              "%s", cJSON_IsString(v) ? v->valuestring : "(none)");
    CHECK(!strstr(r.message, "hunter2-Zq9") && !strstr(r.rec.outcome, "hunter2-Zq9"));
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
}

static void task_file(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/session/out_input";
    char cmd[2048], logp[512];
    snprintf(logp, sizeof logp, "%s.log", out);
    /* From the source tree, so the task's relative upload path resolves. */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && rm -rf '%s' && '%s' run tests/agent/session/tasks/input.json --no-humanize "
             "--site tests/fixtures/pages --out '%s' > '%s' 2>&1",
             FOVEA_SOURCE_DIR, out, FOVEA, out, logp);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    char *log = base_read_file(logp, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (code == 3 || (log && strstr(log, "cannot start")))
        fprintf(stderr, "%s\n", log ? log : "");
    CHECK_MSG(code == 0 && log && strstr(log, "passed"), "exit %d: %s", code, log ? log : "");
    CHECK_MSG(log && strstr(log, "INV-2026-0042"), "the clipboard value is not on the console");
    base_free(log);
}

static const check_case cases[] = {
    {"args", args},
    {"keys", keys},
    {"pointer", pointer},
    {"dropdowns", dropdowns},
    {"files_clipboard", files_clipboard},
    {"task_file", task_file},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    harness_shutdown();
    return rc;
}
