/* tests/agent/plan/test_orchestrator.c: the Orchestrator (agent/plan/orchestrator.c)
 * routing a task in words to the browser Worker or the search worker.
 *
 * THE MODEL IS A REPLAY: tests/harness/replay.h serves recorded
 * chat-completions responses (tests/fixtures/replay/agent/lookup*, recorded
 * by hand) in order; it is not a model. The search endpoint is a real HTTP
 * server on 127.0.0.1 (serve/httpd.h) serving an HTML page and counting the
 * GETs; the browser is a real headless Chromium on the demo site.
 *
 * lookup: "What is the capital of Portugal?" with FOVEA_SEARCH_URL set is
 *   routed to the search worker: one GET with the task as the query, its
 *   readable text (no tags, no script) reaches the Planner, which ends the
 *   run done without any Worker call; the route is a progress line, a
 *   ledger note and one trace line.
 * breaker: the same task, but the Planner does not accept the result and
 *   re-plans the same lookup: the circuit breaker refuses a second
 *   delegation (the search worker answered already), the browser Worker
 *   takes it, and the search endpoint saw exactly one GET.
 * nosearch: without FOVEA_SEARCH_URL the lookup route falls back to the
 *   browser Worker and the progress line says so; nothing is fetched.
 * tripped: in process, a search worker that finds nothing is delegated a
 *   lookup 3 times, then the breaker refuses (no 4th GET); a failing
 *   endpoint falls back to the browser.
 * pure: readable text, the search URL template, the learnings parser and
 *   a learning overriding the verbs.
 */
#include "check.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "agent/plan/orchestrator.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "replay.h"
#include "serve/httpd.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define OUT FOVEA_BINARY_DIR "/tests/agent/plan/out_orch"
#define FIX FOVEA_SOURCE_DIR "/tests/fixtures/replay/agent/"
#define SITE FOVEA_SOURCE_DIR "/assets/site"
#define KEY "sk-test-orchestrator-51c2"

static atomic_int hits;
static char last_query[512];

static const char PAGE[] =
    "<!doctype html><html><head><title>Portugal - Encyclopedia</title>"
    "<script>var tracking = 'do not show me';</script><style>p{color:red}</style></head>"
    "<body><nav><a href=\"/\">Home</a></nav><main><h1>Portugal</h1>"
    "<p>Lisbon is the capital and largest city of Portugal, on the estuary of the Tagus "
    "&amp; the Atlantic coast.</p><p>Population about 10.4&nbsp;million.</p></main></body></html>";

static int search_handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    (void)user;
    if (strcmp(req->path, "/empty") == 0) {
        atomic_fetch_add(&hits, 1);
        resp->status = 200;
        base_buf_append_str(&resp->body, "<html><body><p>No results.</p></body></html>");
        return 1;
    }
    if (strcmp(req->path, "/search") != 0)
        return 0;
    atomic_fetch_add(&hits, 1);
    snprintf(last_query, sizeof last_query, "%s", req->query);
    resp->status = 200;
    snprintf(resp->content_type, sizeof resp->content_type, "text/html; charset=utf-8");
    base_buf_append_str(&resp->body, PAGE);
    return 1;
}

static char *slurp(const char *path)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    if (base_read_file(path, &buf, &n, 64u << 20, NULL) != BASE_OK)
        return base_strdup("");
    return (char *)buf;
}

static replay *start_replay(const char *dir)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (replay_start(&r, err) != BASE_OK)
        return NULL;
    replay_set_chat(r, 1);
    replay_require_key(r, KEY);
    if (replay_load_dir(r, dir, err) <= 0) {
        fprintf(stderr, "replay %s: %s\n", dir, err);
        replay_destroy(r);
        return NULL;
    }
    setenv("FOVEA_LLM_BASE_URL", replay_base_url(r), 1);
    setenv("FOVEA_LLM_API_KEY", KEY, 1);
    setenv("FOVEA_LLM_MODEL", "gpt-4o-mini", 1);
    setenv("FOVEA_LLM_MAX_RETRIES", "0", 1);
    unsetenv("FOVEA_TOKEN_BUDGET");
    unsetenv("FOVEA_ROUTE_LEARNINGS");
    return r;
}

static serve_httpd *start_search(void)
{
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.handler = search_handler;
    serve_httpd *h = NULL;
    if (serve_httpd_start(&o, &h, NULL) != BASE_OK)
        return NULL;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/search?q={q}&lang=en", serve_httpd_port(h));
    setenv("FOVEA_SEARCH_URL", url, 1);
    atomic_store(&hits, 0);
    return h;
}

static int run(const char *name, const char *args, char **out, char **errs)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && rm -rf '%s/%s' && '%s' run %s --site '%s' --no-humanize --out "
             "'%s/%s' > '%s/%s.stdout' 2> '%s/%s.stderr'",
             OUT, OUT, name, FOVEA, args, SITE, OUT, name, OUT, name, OUT, name);
    int st = system(cmd);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.stdout", OUT, name);
    *out = slurp(path);
    snprintf(path, sizeof path, "%s/%s.stderr", OUT, name);
    *errs = slurp(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int request_has(replay *r, int i, const char *needle)
{
    replay_seen s;
    if (replay_request(r, i, &s) != BASE_OK)
        return 0;
    int yes = s.body && strstr(s.body, needle) != NULL;
    replay_seen_fini(&s);
    return yes;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

#define TASK "'What is the capital of Portugal?' --url /index.html"

static void lookup(void)
{
    replay *r = start_replay(FIX "lookup");
    serve_httpd *h = r ? start_search() : NULL;
    if (!r || !h) {
        replay_destroy(r);
        SKIP("replay or search server");
    }
    char *out = NULL, *errs = NULL;
    int st = run("lookup", TASK, &out, &errs);
    if (st != 0)
        fprintf(stderr, "stdout: %s\nstderr: %s\n", out, errs);
    CHECK_EQ(st, 0);
    CHECK(strstr(out, "agent done in") && strstr(out, "Lisbon is the capital of Portugal"));
    CHECK_EQ(atomic_load(&hits), 1);
    CHECK(strncmp(last_query, "q=What+is+the+capital+of+Portugal%3F&lang=en", 44) == 0);
    /* One model call: the Planner judging the search text, no Worker. */
    CHECK_EQ(replay_count(r), 1);
    CHECK(request_has(r, 0, "response_format"));
    CHECK(request_has(r, 0, "[SEARCH_RESULT]"));
    CHECK(request_has(r, 0, "Lisbon is the capital and largest city of Portugal, on the estuary "
                            "of the Tagus & the Atlantic coast."));
    CHECK(!request_has(r, 0, "do not show me") && !request_has(r, 0, "<p>"));
    CHECK(strstr(errs, "orchestrator start: lookup route by the task's verbs: the search worker") !=
          NULL);
    CHECK(strstr(errs, "search GET http://127.0.0.1:") != NULL);
    CHECK(strstr(errs, "call worker") == NULL); /* no browser Worker call */
    char *trace = slurp(OUT "/lookup/trace.jsonl");
    CHECK_EQ(count(trace, "\"type\":\"route\""), 1);
    CHECK(strstr(trace, "\"worker\":\"search\"") != NULL);
    CHECK(strstr(trace, KEY) == NULL && strstr(errs, KEY) == NULL);
    char *notes = slurp(OUT "/lookup/episodic.jsonl");
    char *ledger = slurp(OUT "/lookup/ledger.json");
    CHECK(strstr(notes, "orchestrator start") || strstr(ledger, "orchestrator start"));
    base_free(notes);
    base_free(ledger);
    base_free(trace);
    base_free(out);
    base_free(errs);
    serve_httpd_destroy(h);
    unsetenv("FOVEA_SEARCH_URL");
    replay_destroy(r);
}

static void breaker(void)
{
    replay *r = start_replay(FIX "lookup_breaker");
    serve_httpd *h = r ? start_search() : NULL;
    if (!r || !h) {
        replay_destroy(r);
        SKIP("replay or search server");
    }
    char *out = NULL, *errs = NULL;
    int st = run("breaker", TASK, &out, &errs);
    CHECK_MSG(st == 1, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    /* Delegated once; the re-plan of the same lookup was refused. */
    CHECK_EQ(atomic_load(&hits), 1);
    CHECK(strstr(errs, "orchestrator replan: lookup route by the task's verbs, delegation "
                       "refused by the circuit breaker (the search worker answered it already)") !=
          NULL);
    /* Planner (search text), Worker (browser), Planner. */
    CHECK_EQ(replay_count(r), 3);
    CHECK(request_has(r, 0, "[SEARCH_RESULT]"));
    CHECK(request_has(r, 1, "\"tools\"") && !request_has(r, 1, "[SEARCH_RESULT]"));
    char *trace = slurp(OUT "/breaker/trace.jsonl");
    CHECK_EQ(count(trace, "\"type\":\"route\""), 2);
    CHECK(strstr(trace, "\"breaker\":\"answered\"") != NULL);
    base_free(trace);
    base_free(out);
    base_free(errs);
    serve_httpd_destroy(h);
    unsetenv("FOVEA_SEARCH_URL");
    replay_destroy(r);
}

static void nosearch(void)
{
    replay *r = start_replay(FIX "lookup_nosearch");
    if (!r)
        SKIP("replay server");
    unsetenv("FOVEA_SEARCH_URL");
    char *out = NULL, *errs = NULL;
    int st = run("nosearch", TASK, &out, &errs);
    CHECK_MSG(st == 1, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    CHECK(strstr(errs, "no search worker (FOVEA_SEARCH_URL is not set): the browser Worker "
                       "takes it") != NULL);
    CHECK(strstr(errs, "search GET") == NULL);
    CHECK_EQ(replay_count(r), 2);
    CHECK(request_has(r, 0, "\"tools\""));
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

static void pure(void)
{
    char t[512];
    agent_readable_text(PAGE, t, sizeof t);
    CHECK(strstr(t, "Lisbon is the capital and largest city of Portugal") != NULL);
    CHECK(strstr(t, "Tagus & the Atlantic") != NULL);
    CHECK(strstr(t, "10.4 million") != NULL);
    CHECK(strstr(t, "tracking") == NULL && strstr(t, "color") == NULL && strchr(t, '<') == NULL);
    CHECK(strstr(t, "Home\nPortugal\nLisbon") != NULL);
    char small[8];
    agent_readable_text("<p>abcdefghijkl</p>", small, sizeof small);
    CHECK_EQ(strlen(small), 7u);
    char u[128];
    CHECK_EQ(agent_search_url("http://s/find?x=1", "a b&c", u, sizeof u), 0);
    CHECK(strcmp(u, "http://s/find?x=1&q=a+b%26c") == 0);
    CHECK_EQ(agent_search_url("http://s/{q}.html", "é", u, sizeof u), 0);
    CHECK(strcmp(u, "http://s/%C3%A9.html") == 0);
    CHECK_EQ(agent_search_url("http://s/?q={q}", "a long query", u, 12), -1);
    agent_orch o;
    memset(&o, 0, sizeof o);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_orch_parse_learnings(&o, "www.Example.com=search:0.9, wiki.org=browser:0.95",
                                        err));
    CHECK_EQ(o.n_learn, 2);
    CHECK(strcmp(o.learn[0].domain, "example.com") == 0);
    CHECK(o.learn[0].preferred == AGENT_ROUTE_SEARCH && o.learn[1].preferred == AGENT_ROUTE_BROWSER);
    CHECK_EQ(agent_orch_parse_learnings(&o, "example.com=maybe:0.9", err), BASE_EINVAL);
    CHECK(strstr(err, "maybe") != NULL);
    CHECK_EQ(o.n_learn, 0);
    err[0] = '\0';
    CHECK_EQ(agent_orch_parse_learnings(&o, "example.com=search:1.5", err), BASE_EINVAL);
    CHECK_EQ(agent_orch_parse_learnings(&o, "example.com", err), BASE_EINVAL);
    /* A learning decides over the verbs; with no search URL the decision
     * still falls back to the browser and says so. */
    unsetenv("FOVEA_SEARCH_URL");
    setenv("FOVEA_ROUTE_LEARNINGS", "shop.example=search:0.95", 1);
    CHECK_OK(agent_orch_init(&o, err));
    agent_orch_decision d;
    CHECK_OK(agent_orch_route(&o, "Book a table for two tomorrow", "https://www.shop.example/x",
                              &d, err));
    CHECK(d.route.kind == AGENT_ROUTE_SEARCH && d.route.from_learning);
    CHECK(d.worker == AGENT_ROUTE_BROWSER && strstr(d.why, "a domain learning") != NULL);
    agent_orch_decision_fini(&d);
    CHECK_OK(agent_orch_route(&o, "Book a table for two tomorrow", "https://other.example/",
                              &d, err));
    CHECK(d.route.kind == AGENT_ROUTE_BROWSER && !d.route.from_learning);
    agent_orch_decision_fini(&d);
    agent_orch_fini(&o);
    unsetenv("FOVEA_ROUTE_LEARNINGS");
    setenv("FOVEA_SEARCH_URL", "ftp://nope/", 1);
    err[0] = '\0';
    CHECK_EQ(agent_orch_init(&o, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "FOVEA_SEARCH_URL") != NULL, "err: %s", err);
    agent_orch_fini(&o);
    unsetenv("FOVEA_SEARCH_URL");
}

/* A search worker that keeps finding nothing is delegated the same lookup
 * AGENT_BREAKER_MAX_TRIES times, then the breaker trips and the browser
 * takes it without a fetch. In process, no model. */
static void tripped(void)
{
    serve_httpd *h = start_search();
    if (!h)
        SKIP("search server");
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/empty?q={q}", serve_httpd_port(h));
    setenv("FOVEA_SEARCH_URL", url, 1);
    unsetenv("FOVEA_ROUTE_LEARNINGS");
    agent_orch o;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_orch_init(&o, err));
    for (int i = 0; i < AGENT_BREAKER_MAX_TRIES + 2; i++) {
        agent_orch_decision d;
        CHECK_OK(agent_orch_route(&o, "Who wrote Os Lusiadas?", "https://example.org/", &d, err));
        if (i < AGENT_BREAKER_MAX_TRIES) {
            CHECK(d.worker == AGENT_ROUTE_SEARCH && d.text && strcmp(d.text, "No results.") == 0);
        } else {
            CHECK(d.worker == AGENT_ROUTE_BROWSER && d.breaker == AGENT_BREAKER_TRIPPED);
            CHECK(strstr(d.why, "tried too often") != NULL && !d.text);
        }
        agent_orch_decision_fini(&d);
    }
    CHECK_EQ(atomic_load(&hits), AGENT_BREAKER_MAX_TRIES);
    /* Another lookup is not blocked by the first one's breaker. */
    agent_orch_decision d;
    CHECK_OK(agent_orch_route(&o, "Who wrote Mensagem?", "https://example.org/", &d, err));
    CHECK(d.worker == AGENT_ROUTE_SEARCH);
    agent_orch_decision_fini(&d);
    /* A failing endpoint falls back to the browser and says why. */
    serve_httpd_destroy(h);
    CHECK_OK(agent_orch_route(&o, "Who wrote Peregrinacao?", "https://example.org/", &d, err));
    CHECK(d.worker == AGENT_ROUTE_BROWSER && d.error[0] && strstr(d.why, "search worker failed"));
    agent_orch_decision_fini(&d);
    agent_orch_fini(&o);
    unsetenv("FOVEA_SEARCH_URL");
}

static const check_case cases[] = {{"pure", pure},
                                   {"tripped", tripped},
                                   {"lookup", lookup},
                                   {"breaker", breaker},
                                   {"nosearch", nosearch},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
