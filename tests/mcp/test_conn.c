/* tests/mcp/test_conn.c: the MCP connection without a browser (mcp/conn.c,
 * mcp/call.c, mcp/permit.c).
 *
 * lifecycle: initialize agrees on the client's version when the server
 *   speaks it, else offers 2025-06-18; ping; notifications get no answer.
 * errors: malformed JSON -32700, a batch / wrong jsonrpc / bad id -32600,
 *   unknown method -32601, unknown tool / bad arguments / an unknown secret
 *   name -32602 — and the connection answers the next request.
 * list: the opt-in tools only with allow_scripts, "done" never; a secret's
 *   name (not its value) in type_at's schema; permissions in descriptions.
 * call_no_browser: a tool call whose browser cannot start is a tool error
 *   (isError, reason "error"), answered, not a protocol error.
 * upload_refused: upload_file without an upload folder is refused before any
 *   page is touched (isError, reason "blocked"); the page source is never
 *   asked.
 * upload_dir: mcp_upload_allowed takes files inside the folder only: "..",
 *   a symlink out, a sibling folder sharing the prefix, a folder are refused.
 * secrets_file: names and values load; a bad name or value is refused naming
 *   the member, never a value.
 */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "mcp/mcp.h"

/* What the connection sent, one JSON text per line. */
typedef struct sink {
    pthread_mutex_t mu;
    char buf[1 << 18];
    size_t n;
} sink;

static void emit(void *user, const char *json, const cJSON *related)
{
    (void)related;
    sink *s = user;
    if (!json)
        return;
    pthread_mutex_lock(&s->mu);
    s->n += (size_t)snprintf(s->buf + s->n, sizeof s->buf - s->n, "%s\n", json);
    pthread_mutex_unlock(&s->mu);
}

static int opens;

static base_err no_browser(void *user, cdp_browser **b, cdp_page **p, char *err)
{
    (void)user;
    (void)b;
    (void)p;
    opens++;
    return base_errf(err, BASE_EIO, "no browser in this test");
}

static void no_close(void *user, cdp_page *p)
{
    (void)user;
    (void)p;
}

static void config(mcp_config *cfg)
{
    mcp_config_init(cfg);
    cfg->pages.open = no_browser;
    cfg->pages.close = no_close;
}

/* Sends one line and returns the answer with that id (parsed; caller's),
 * after the connection's queue drains. */
static cJSON *ask(mcp_conn *c, sink *s, const char *line, int id)
{
    size_t from = s->n;
    mcp_conn_receive(c, line, strlen(line));
    mcp_conn_drain(c);
    cJSON *found = NULL;
    /* Scan every new line for the id (null when id < 0). */
    const char *p = s->buf + from;
    while (*p && !found) {
        const char *e = strchr(p, '\n');
        cJSON *m = cJSON_ParseWithLength(p, (size_t)(e - p));
        const cJSON *mid = cJSON_GetObjectItem(m, "id");
        if ((id < 0 && cJSON_IsNull(mid)) || (id >= 0 && cJSON_IsNumber(mid) && mid->valueint == id))
            found = m;
        else
            cJSON_Delete(m);
        p = e + 1;
    }
    return found;
}

static int err_code(const cJSON *m)
{
    const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "error"), "code");
    return cJSON_IsNumber(c) ? c->valueint : 0;
}

/* A connection with no browser on an emptied sink (cfg and s must outlive it). */
static mcp_conn *fresh(mcp_config *cfg, sink *s)
{
    config(cfg);
    s->n = 0;
    opens = 0;
    mcp_conn *c = NULL;
    return mcp_conn_create(cfg, emit, s, &c, NULL) == BASE_OK ? c : NULL;
}

static void lifecycle(void)
{
    static mcp_config cfg;
    static sink s = {PTHREAD_MUTEX_INITIALIZER, "", 0};
    mcp_conn *c = fresh(&cfg, &s);
    CHECK(c != NULL);
    cJSON *m = ask(c, &s,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                   "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{"
                   "\"name\":\"t\",\"version\":\"1\"}}}",
                   1);
    const cJSON *r = cJSON_GetObjectItem(m, "result");
    CHECK(strcmp(cJSON_GetObjectItem(r, "protocolVersion")->valuestring, "2025-03-26") == 0);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "capabilities"), "tools") != NULL);
    CHECK(strcmp(mcp_conn_version(c), "2025-03-26") == 0);
    cJSON_Delete(m);
    m = ask(c, &s,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{"
            "\"protocolVersion\":\"1999-01-01\"}}",
            2);
    CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "result"), "protocolVersion")
                     ->valuestring,
                 MCP_PROTOCOL_VERSION) == 0);
    cJSON_Delete(m);
    size_t before = s.n;
    const char *note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    CHECK_EQ(mcp_conn_receive(c, note, strlen(note)), 0);
    CHECK_EQ(s.n, before); /* notifications get no answer */
    m = ask(c, &s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", 3);
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(m, "result")));
    cJSON_Delete(m);
    mcp_conn_destroy(c);
}

static void errors(void)
{
    static mcp_config cfg;
    static sink s = {PTHREAD_MUTEX_INITIALIZER, "", 0};
    mcp_conn *c = fresh(&cfg, &s);
    CHECK(c != NULL);
    static const struct {
        const char *line;
        int id, code;
    } cases[] = {
        {"{\"jsonrpc\":\"2.0\",\"id\":1,", -1, -32700},
        {"[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]", -1, -32600},
        {"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}", 3, -32600},
        {"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":7}", 4, -32600},
        {"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\"}", 5, -32601},
        {"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", 6,
         -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"navigate\","
         "\"arguments\":{\"url\":3}}}",
         7, -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"type_at\","
         "\"arguments\":{\"target\":\"Password\",\"text\":{\"secret\":\"NONE\"}}}}",
         8, -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"evaluate_script\",\"arguments\":{\"script\":\"1\"}}}",
         9, -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"click_box\",\"arguments\":{\"box\":[1,2,3]}}}",
         10, -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"get_outline\",\"arguments\":{\"screenshot\":\"yes\"}}}",
         11, -32602},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *m = ask(c, &s, cases[i].line, cases[i].id);
        CHECK_MSG(m && err_code(m) == cases[i].code, "case %zu: want %d, got %d", i,
                  cases[i].code, err_code(m));
        cJSON_Delete(m);
    }
    CHECK_EQ(opens, 0); /* nothing reached the page source */
    cJSON *m = ask(c, &s, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}", 99);
    CHECK(m && cJSON_GetObjectItem(m, "result"));
    cJSON_Delete(m);
    mcp_conn_destroy(c);
}

static char *tools_text(const mcp_config *cfg, int *n)
{
    static sink s = {PTHREAD_MUTEX_INITIALIZER, "", 0};
    s.n = 0;
    mcp_conn *c = NULL;
    if (mcp_conn_create(cfg, emit, &s, &c, NULL) != BASE_OK)
        return NULL;
    cJSON *m = ask(c, &s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", 1);
    cJSON *tools = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "result"), "tools");
    *n = cJSON_GetArraySize(tools);
    char *t = cJSON_PrintUnformatted(tools);
    cJSON_Delete(m);
    mcp_conn_destroy(c);
    return t;
}

static void list(void)
{
    char dir[] = "/tmp/fovea-mcp-list-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/s.json", dir);
    const char *js = "{\"SHOP_PIN\": \"739155-never\"}";
    CHECK(base_write_file(path, (const uint8_t *)js, strlen(js), NULL) == BASE_OK);
    mcp_secrets *sec = NULL;
    CHECK(mcp_secrets_load(path, &sec, NULL) == BASE_OK);
    mcp_config cfg;
    config(&cfg);
    cfg.secrets = sec;
    int n = 0, n2 = 0;
    char *t = tools_text(&cfg, &n);
    CHECK(t != NULL);
    CHECK(strstr(t, "\"name\":\"click_box\"") && strstr(t, "\"name\":\"click_point\""));
    CHECK(!strstr(t, "\"name\":\"evaluate_script\"") && !strstr(t, "\"name\":\"done\""));
    CHECK(strstr(t, "SHOP_PIN") != NULL);
    CHECK(strstr(t, "739155") == NULL);
    CHECK(strstr(t, "refused (the server has no --upload-dir)") != NULL);
    free(t);
    cfg.allow_scripts = 1;
    t = tools_text(&cfg, &n2);
    CHECK(t != NULL);
    CHECK(strstr(t, "\"name\":\"evaluate_script\"") != NULL);
    CHECK_EQ(n2, n + 3); /* evaluate_script, run_script and add_init_script (issue 23) */
    free(t);
    mcp_secrets_destroy(sec);
    unlink(path);
    rmdir(dir);
}

/* One tools/call on a fresh connection with no browser: the answer's
 * structuredContent (its parent result kept in *msg, the caller's). */
static const cJSON *call_once(const char *line, int id, cJSON **msg)
{
    static mcp_config cfg;
    static sink s = {PTHREAD_MUTEX_INITIALIZER, "", 0};
    *msg = NULL;
    mcp_conn *c = fresh(&cfg, &s);
    if (!c)
        return NULL;
    *msg = ask(c, &s, line, id);
    mcp_conn_destroy(c);
    const cJSON *r = cJSON_GetObjectItem(*msg, "result");
    return cJSON_IsTrue(cJSON_GetObjectItem(r, "isError"))
               ? cJSON_GetObjectItem(r, "structuredContent")
               : NULL;
}

static void call_no_browser(void)
{
    cJSON *m = NULL;
    const cJSON *sc = call_once("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
                                "{\"name\":\"get_outline\",\"arguments\":{}}}",
                                5, &m);
    CHECK(sc != NULL); /* a tool error, not a protocol one */
    CHECK(strcmp(cJSON_GetObjectItem(sc, "reason")->valuestring, "error") == 0);
    CHECK(strstr(cJSON_GetObjectItem(sc, "message")->valuestring, "no browser in this test"));
    CHECK_EQ(opens, 1);
    cJSON_Delete(m);
}

static void upload_refused(void)
{
    cJSON *m = NULL;
    const cJSON *sc = call_once(
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"upload_file\",\"arguments\":{\"target\":\"File\",\"files\":\"/etc/hostname\"}}}",
        6, &m);
    CHECK(sc != NULL);
    CHECK(strcmp(cJSON_GetObjectItem(sc, "reason")->valuestring, "blocked") == 0);
    CHECK(strstr(cJSON_GetObjectItem(sc, "message")->valuestring, "--upload-dir") != NULL);
    CHECK_EQ(opens, 0); /* refused before any page was asked for */
    cJSON_Delete(m);
}

static void upload_dir(void)
{
    char root[] = "/tmp/fovea-mcp-up-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char up[160], up2[160], in[200], out[200], link[200], real[4096], why[256];
    snprintf(up, sizeof up, "%s/up", root);
    snprintf(up2, sizeof up2, "%s/up-other", root);
    CHECK(mkdir(up, 0700) == 0 && mkdir(up2, 0700) == 0);
    snprintf(in, sizeof in, "%s/a.txt", up);
    snprintf(out, sizeof out, "%s/b.txt", up2);
    snprintf(link, sizeof link, "%s/link.txt", up);
    CHECK(base_write_file(in, (const uint8_t *)"a", 1, NULL) == BASE_OK);
    CHECK(base_write_file(out, (const uint8_t *)"b", 1, NULL) == BASE_OK);
    CHECK(symlink(out, link) == 0);
    CHECK_EQ(mcp_upload_allowed(up, in, real, sizeof real, why, sizeof why), 0);
    CHECK(strstr(real, "/up/a.txt") != NULL);
    char dotdot[240];
    snprintf(dotdot, sizeof dotdot, "%s/../up-other/b.txt", up);
    CHECK_EQ(mcp_upload_allowed(up, dotdot, real, sizeof real, why, sizeof why), -1);
    CHECK(strstr(why, "is outside the folder") != NULL);
    CHECK_EQ(mcp_upload_allowed(up, out, real, sizeof real, why, sizeof why), -1);
    CHECK_EQ(mcp_upload_allowed(up, link, real, sizeof real, why, sizeof why), -1);
    CHECK_EQ(mcp_upload_allowed(root, up, real, sizeof real, why, sizeof why), -1);
    CHECK(strstr(why, "not a regular file") != NULL);
    CHECK_EQ(mcp_upload_allowed(NULL, in, real, sizeof real, why, sizeof why), -1);
    CHECK_EQ(mcp_upload_allowed(up, "/no/such/file", real, sizeof real, why, sizeof why), -1);
    unlink(link);
    unlink(in);
    unlink(out);
    rmdir(up);
    rmdir(up2);
    rmdir(root);
}

static void secrets_file(void)
{
    char dir[] = "/tmp/fovea-mcp-sec-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/s.json", dir);
    static const struct {
        const char *json;
        int ok;
    } cases[] = {
        {"{\"A\": \"x1\", \"LONG_NAME_2\": \"y2\"}", 1},
        {"{\"bad-name\": \"topsecret1\"}", 0},
        {"{\"A\": 5}", 0},
        {"{\"A\": \"\"}", 0},
        {"[\"topsecret1\"]", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(base_write_file(path, (const uint8_t *)cases[i].json, strlen(cases[i].json), NULL) ==
              BASE_OK);
        mcp_secrets *s = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = mcp_secrets_load(path, &s, err);
        CHECK_MSG((e == BASE_OK) == cases[i].ok, "case %zu: %s", i, err);
        CHECK(strstr(err, "topsecret1") == NULL);
        if (!e) {
            CHECK_EQ(mcp_secrets_count(s), 2);
            CHECK(strcmp(mcp_secrets_value(s, "LONG_NAME_2"), "y2") == 0);
            CHECK(mcp_secrets_value(s, "B") == NULL);
        }
        mcp_secrets_destroy(s);
    }
    unlink(path);
    rmdir(dir);
}

static const check_case cases[] = {
    {"lifecycle", lifecycle},
    {"errors", errors},
    {"list", list},
    {"call_no_browser", call_no_browser},
    {"upload_refused", upload_refused},
    {"upload_dir", upload_dir},
    {"secrets_file", secrets_file},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
