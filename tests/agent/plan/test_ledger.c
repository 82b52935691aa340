/* tests/agent/plan/test_ledger.c: the ledger (agent/plan/ledger.h), pure C on a
 * temporary folder; no browser, no model.
 *
 * slots: every §5.2 slot is held; recent keeps the last 3; facts update in
 *   place; dead ends deduplicate; credential values are never held.
 * round_trip: sync then load gives the same document, and the JSONL
 *   journals hold one line per step / fact change / note.
 * resume: a step begun and never finished is reported as uncertain; a step
 *   in steps.jsonl but not yet in ledger.json (crash between the writes)
 *   counts as done; a torn last journal line is ignored and cut.
 * strict: truncated, wrong-typed, unknown-key and out-of-range documents
 *   are errors naming the file and position; never a crash.
 * secrets: a secret never reaches ledger.json, the journals or a render,
 *   including one learned after the fact was stored.
 * render: the role-sliced views (§5.5) hold what each role sees and no more.
 * ingest: a finished call adds a navigation checkpoint with its call id when
 *   the page moved, a derived fact for a saved value; a failure neither.
 * tokens: the shared estimator (model/tokens.h), image sizes read from real
 *   encoder output.
 */
#include "check.h"

#include <fcntl.h>
#include <unistd.h>

#include "agent/plan/ledger.h"
#include "model/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/base64.h"
#include "base/json_alloc.h"
#include "image/image.h"

static char *tmpdir(void)
{
    char tmpl[] = "/tmp/fovea_ledger_XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? base_strdup(d) : NULL;
}

static char *slurp(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    uint8_t *d = NULL;
    size_t n = 0;
    if (base_read_file(p, &d, &n, 1 << 24, NULL) != BASE_OK)
        return NULL;
    return (char *)d;
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    base_write_file(p, (const uint8_t *)text, strlen(text), NULL);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static void rmrf(const char *dir)
{
    static const char *const f[] = {"ledger.json", "steps.jsonl", "facts.jsonl",
                                    "episodic.jsonl"};
    char p[512];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, f[i]);
        unlink(p);
    }
    rmdir(dir);
}

static base_err step(agent_ledger *l, int n, const char *tool, int ok, const char *url)
{
    char id[32];
    snprintf(id, sizeof id, "call_%d", n);
    base_err e = agent_ledger_step_begin(l, n, tool, id, "{\"target\":\"[V3]\"}");
    if (e != BASE_OK)
        return e;
    agent_step_report o = {n, "worker", tool, id, "{\"target\":\"[V3]\"}", ok, 1,
                            ok ? "ok" : "not_found", "clicked", url};
    e = agent_ledger_step_end(l, &o);
    return e != BASE_OK ? e : agent_ledger_sync(l, NULL);
}

static void slots(void)
{
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("book a flight to Lisbon", NULL, NULL, &l, NULL));
    const char *plan[] = {"open search", "fill dates", "pick cheapest"};
    CHECK_OK(agent_ledger_set_plan(l, plan, 3, 0));
    CHECK_OK(agent_ledger_set_subgoal(l, 1));
    CHECK(agent_ledger_set_subgoal(l, 3) == BASE_EINVAL);
    for (int i = 1; i <= 5; i++)
        CHECK_OK(step(l, i, "click_at", 1, "https://a.example/"));
    CHECK_EQ(l->n_recent, 3);
    CHECK_EQ(l->recent[0].step, 3);
    CHECK_EQ(l->recent[2].step, 5);
    CHECK_EQ(l->last_step, 5);
    CHECK_STR(l->last_call_id, "call_5");
    CHECK(agent_ledger_step_begin(l, 5, "x", "c", NULL) == BASE_EINVAL); /* not after last */
    CHECK_OK(agent_ledger_set_fact(l, "price", "$120", AGENT_FACT_OBSERVATION, 0.9, 2));
    CHECK_OK(agent_ledger_set_fact(l, "price", "$99", AGENT_FACT_OBSERVATION, 1.7, 4));
    CHECK_EQ(l->n_facts, 1);
    CHECK_STR(l->facts[0].value, "$99");
    CHECK_EQ(l->facts[0].source_step, 4);
    CHECK(l->facts[0].confidence == 1.0);
    CHECK_OK(agent_ledger_set_fact(l, "pin", "4321", AGENT_FACT_CREDENTIAL, 1, 4));
    CHECK_STR(l->facts[1].value, "********");
    CHECK_OK(agent_ledger_dead_end(l, "Search button does nothing", "https://a.example/",
                                   AGENT_CAUSE_POSTCONDITION_MISS, 3));
    CHECK_OK(agent_ledger_dead_end(l, "Search button does nothing", "https://a.example/",
                                   AGENT_CAUSE_POSTCONDITION_MISS, 4));
    CHECK_EQ(l->n_dead_ends, 1);
    CHECK_OK(agent_ledger_checkpoint(l, 2, "navigation", "results page", "https://a.example/r",
                                     "call_2"));
    CHECK_OK(agent_ledger_note(l, 5, "subgoal 1 done"));
    CHECK_EQ(l->n_checkpoints, 1);
    CHECK_EQ(l->n_episodic, 1);
    CHECK_EQ(agent_cause_from_reason("not_found", NULL), AGENT_CAUSE_STALE_SELECTOR);
    CHECK_EQ(agent_cause_from_reason("challenge", NULL), AGENT_CAUSE_BOT_BLOCK);
    CHECK_EQ(agent_cause_from_reason("http_error", "HTTP 429"), AGENT_CAUSE_RATE_LIMIT);
    CHECK_EQ(agent_cause_from_reason("weird", NULL), AGENT_CAUSE_GENERIC);
    agent_ledger_destroy(l);
}

static void round_trip(void)
{
    char *dir = tmpdir();
    CHECK(dir);
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("goal \"quoted\" \\ and ünïcode", dir, NULL, &l, NULL));
    const char *plan[] = {"a", "b"};
    CHECK_OK(agent_ledger_set_plan(l, plan, 2, 1));
    for (int i = 1; i <= 4; i++)
        CHECK_OK(step(l, i, i == 3 ? "type_at" : "click_at", i != 3, "https://s.example/p"));
    CHECK_OK(agent_ledger_set_fact(l, "origin", "Oslo", AGENT_FACT_CONSTRAINT, 1, 1));
    CHECK_OK(agent_ledger_set_fact(l, "dest", "Lisbon", AGENT_FACT_CONSTRAINT, 1, 1));
    CHECK_OK(agent_ledger_set_fact(l, "dest", "Porto", AGENT_FACT_CONSTRAINT, 1, 3));
    CHECK_OK(agent_ledger_dead_end(l, "x", "https://s.example/p", AGENT_CAUSE_NETWORK, 2));
    CHECK_OK(agent_ledger_checkpoint(l, 4, "filter", "non-stop", "", "call_4"));
    CHECK_OK(agent_ledger_note(l, 4, "n1"));
    CHECK_OK(agent_ledger_note(l, 4, "n2"));
    CHECK_OK(agent_ledger_sync(l, NULL));
    cJSON *a = agent_ledger_to_json(l);
    agent_ledger *m = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(agent_ledger_load(dir, NULL, &m, err) == BASE_OK, "%s", err);
    cJSON *b = agent_ledger_to_json(m);
    CHECK(cJSON_Compare(a, b, 1));
    char *steps = slurp(dir, "steps.jsonl");
    char *facts = slurp(dir, "facts.jsonl");
    char *notes = slurp(dir, "episodic.jsonl");
    CHECK_EQ(count_lines(steps), 4);
    CHECK_EQ(count_lines(facts), 3);
    CHECK_EQ(count_lines(notes), 2);
    /* A second sync owes nothing: the journals do not grow. */
    CHECK_OK(agent_ledger_sync(l, NULL));
    base_free(steps);
    steps = slurp(dir, "steps.jsonl");
    CHECK_EQ(count_lines(steps), 4);
    base_free(steps);
    base_free(facts);
    base_free(notes);
    cJSON_Delete(a);
    cJSON_Delete(b);
    agent_ledger_destroy(l);
    agent_ledger_destroy(m);
    /* A fresh run into the same folder starts its journals empty: the old
     * run's steps are not this one's. */
    CHECK_OK(agent_ledger_create("another goal", dir, NULL, &l, NULL));
    CHECK_OK(step(l, 1, "click_at", 1, "https://s.example/q"));
    steps = slurp(dir, "steps.jsonl");
    facts = slurp(dir, "facts.jsonl");
    CHECK_EQ(count_lines(steps), 1);
    CHECK_EQ(count_lines(facts), 0);
    base_free(steps);
    base_free(facts);
    agent_ledger_destroy(l);
    rmrf(dir);
    base_free(dir);
}

static void resume(void)
{
    char *dir = tmpdir();
    CHECK(dir);
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", dir, NULL, &l, NULL));
    CHECK_OK(step(l, 1, "navigate", 1, "u1"));
    CHECK_OK(step(l, 2, "click_at", 1, "u2"));
    /* Step 3 begins and the process dies before it ends. */
    CHECK_OK(agent_ledger_step_begin(l, 3, "click_at", "call_3", "{}"));
    CHECK_OK(agent_ledger_sync(l, NULL));
    agent_ledger *m = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(agent_ledger_load(dir, NULL, &m, err) == BASE_OK, "%s", err);
    int next = 0;
    int unsure = 0;
    agent_ledger_resume_point(m, &next, &unsure);
    CHECK_EQ(next, 3);
    CHECK_EQ(unsure, 3);
    char *r = agent_ledger_render(m, AGENT_ROLE_WORKER, "u2");
    CHECK(r && strstr(r, "UNFINISHED: step 3"));
    base_free(r);
    agent_ledger_destroy(m);
    m = NULL;
    /* Step 3 finishes; the crash falls after steps.jsonl's append and
     * before ledger.json's rewrite: simulate by restoring the old ledger.json. */
    char *old = slurp(dir, "ledger.json");
    agent_step_report o = {3, "worker", "click_at", "call_3", "{}", 1, 1, "ok", "done", "u3"};
    CHECK_OK(agent_ledger_step_end(l, &o));
    CHECK_OK(agent_ledger_sync(l, NULL));
    put(dir, "ledger.json", old);
    base_free(old);
    /* And a torn half line at the end of steps.jsonl. */
    char p[512];
    snprintf(p, sizeof p, "%s/steps.jsonl", dir);
    int fd = open(p, O_WRONLY | O_APPEND);
    CHECK(fd >= 0);
    CHECK(write(fd, "{\"step\":4,\"ro", 13) == 13);
    close(fd);
    CHECK_MSG(agent_ledger_load(dir, NULL, &m, err) == BASE_OK, "%s", err);
    agent_ledger_resume_point(m, &next, &unsure);
    CHECK_EQ(next, 4);
    CHECK_EQ(unsure, 0);
    CHECK_STR(m->last_call_id, "call_3");
    CHECK_EQ(m->recent[m->n_recent - 1].step, 3);
    /* The torn tail was cut: the resumed run appends whole lines. */
    CHECK_OK(step(m, 4, "done", 1, "u3"));
    char *steps = slurp(dir, "steps.jsonl");
    CHECK_EQ(count_lines(steps), 4);
    CHECK(strstr(steps, "\"ro") == NULL || strstr(steps, "\"role\""));
    base_free(steps);
    agent_ledger_destroy(m);
    m = NULL;
    CHECK_MSG(agent_ledger_load(dir, NULL, &m, err) == BASE_OK, "%s", err);
    CHECK_EQ(m->last_step, 4);
    agent_ledger_destroy(m);
    /* A corrupt line in the middle is an error naming the line. */
    put(dir, "steps.jsonl", "{\"step\":1}\n{}\n");
    m = NULL;
    err[0] = 0;
    CHECK(agent_ledger_load(dir, NULL, &m, err) == BASE_EPROTO);
    CHECK_MSG(strstr(err, "steps.jsonl line 1"), "%s", err);
    CHECK(m == NULL);
    agent_ledger_destroy(l);
    rmrf(dir);
    base_free(dir);
}

static void parse_fails(const char *text, const char *want)
{
    agent_ledger *l = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_ledger_parse(text, strlen(text), "ledger.json", NULL, &l, err);
    if (e == BASE_OK || l || !strstr(err, want) || !strstr(err, "ledger.json")) {
        check__fail(__FILE__, __LINE__, "parse(%.60s): err '%s', want '%s'", text, err, want);
        agent_ledger_destroy(l);
    }
}

static void strict(void)
{
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    CHECK_OK(step(l, 1, "click_at", 1, "u"));
    CHECK_OK(agent_ledger_set_fact(l, "k", "v", AGENT_FACT_DERIVED, 0.5, 1));
    cJSON *j = agent_ledger_to_json(l);
    char *good = cJSON_Print(j);
    cJSON_Delete(j);
    agent_ledger_destroy(l);
    l = NULL;
    CHECK_OK(agent_ledger_parse(good, strlen(good), NULL, NULL, &l, NULL));
    agent_ledger_destroy(l);
    /* Every truncation of a valid document is a clean error. */
    for (size_t n = 0; n < strlen(good); n++) {
        l = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = agent_ledger_parse(good, n, "ledger.json", NULL, &l, err);
        CHECK_MSG(e == BASE_EPROTO && !l, "truncation at %zu parsed", n);
        CHECK_MSG(strstr(err, "ledger.json: invalid JSON near line"), "%s", err);
    }
    cJSON_free(good);
    parse_fails("[]", "expected an object");
    parse_fails("{\"version\":1}", "goal: missing");
    parse_fails("{\"version\":2}", "unsupported version");
    parse_fails("{\"version\":1,\"goal\":\"g\",\"bogus\":1}", "unknown key \"bogus\"");
#define BASE_DOC "{\"version\":1,\"goal\":\"g\",\"plan\":[],\"subgoal\":-1," \
                           "\"recent\":[],\"facts\":[%s],\"dead_ends\":[%s],\"checkpoints\":[]," \
                           "\"episodic\":[],\"last_step\":0,\"last_call_id\":\"\",\"pending\":%s}"
    char doc[1024];
    snprintf(doc, sizeof doc, BASE_DOC,
             "{\"key\":\"k\",\"value\":\"v\",\"category\":\"rumour\",\"confidence\":1,"
             "\"source_step\":1,\"ref_step\":1}",
             "", "null");
    parse_fails(doc, "facts[0]: category");
    snprintf(doc, sizeof doc, BASE_DOC,
             "{\"key\":\"k\",\"value\":\"v\",\"category\":\"derived\",\"confidence\":\"high\","
             "\"source_step\":1,\"ref_step\":1}",
             "", "null");
    parse_fails(doc, "facts[0].confidence: expected a number");
    snprintf(doc, sizeof doc, BASE_DOC,
             "{\"key\":\"k\",\"value\":\"v\",\"category\":\"derived\",\"confidence\":1,"
             "\"source_step\":1,\"ref_step\":1},{\"key\":\"k\",\"value\":\"w\",\"category\":"
             "\"derived\",\"confidence\":1,\"source_step\":1,\"ref_step\":1}",
             "", "null");
    parse_fails(doc, "facts[1]: key: empty or duplicated");
    snprintf(doc, sizeof doc, BASE_DOC, "",
             "{\"what\":\"w\",\"url\":\"u\",\"cause\":\"network\",\"step\":-4}", "null");
    parse_fails(doc, "dead_ends[0].step");
    snprintf(doc, sizeof doc, BASE_DOC, "", "",
             "{\"step\":0,\"tool\":\"t\",\"call_id\":\"c\",\"args\":\"{}\"}");
    parse_fails(doc, "pending.step");
    snprintf(doc, sizeof doc, BASE_DOC, "", "", "null");
    l = NULL;
    CHECK_OK(agent_ledger_parse(doc, strlen(doc), NULL, NULL, &l, NULL));
    agent_ledger_destroy(l);
    /* A missing folder is "not found", naming the file. */
    char err[BASE_ERRBUF_SIZE] = "";
    l = NULL;
    CHECK(agent_ledger_load("/nonexistent/fovea_run", NULL, &l, err) == BASE_ENOTFOUND);
    CHECK_MSG(strstr(err, "ledger.json"), "%s", err);
}

static void secrets(void)
{
    char *dir = tmpdir();
    CHECK(dir);
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    CHECK_OK(agent_secrets_add(s, "hunter2pass"));
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("log in with hunter2pass", dir, s, &l, NULL));
    CHECK_OK(agent_ledger_step_begin(l, 1, "type_at", "c1", "{\"text\":\"hunter2pass\"}"));
    agent_step_report o = {1, "worker", "type_at", "c1", "{\"text\":\"hunter2pass\"}", 1, 1,
                            "ok", "typed hunter2pass", "https://x/?p=hunter2pass"};
    CHECK_OK(agent_ledger_step_end(l, &o));
    /* A value that becomes a secret only later. */
    CHECK_OK(agent_ledger_set_fact(l, "code", "otp 918273", AGENT_FACT_OBSERVATION, 1, 1));
    CHECK_OK(agent_secrets_add(s, "918273"));
    CHECK_OK(agent_ledger_note(l, 1, "the code was 918273"));
    CHECK_OK(agent_ledger_sync(l, NULL));
    static const char *const f[] = {"ledger.json", "steps.jsonl", "facts.jsonl",
                                    "episodic.jsonl"};
    for (int i = 0; i < 4; i++) {
        char *t = slurp(dir, f[i]);
        CHECK_MSG(t, "%s missing", f[i]);
        CHECK_MSG(!strstr(t, "hunter2pass") && !strstr(t, "918273"), "%s: %s", f[i], t);
        base_free(t);
    }
    char *r = agent_ledger_render(l, AGENT_ROLE_ORCHESTRATOR, NULL);
    CHECK(r && !strstr(r, "hunter2pass"));
    base_free(r);
    agent_ledger_destroy(l);
    agent_secrets_destroy(s);
    rmrf(dir);
    base_free(dir);
}

static void render(void)
{
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("buy socks", NULL, NULL, &l, NULL));
    const char *plan[] = {"search socks", "add to cart"};
    CHECK_OK(agent_ledger_set_plan(l, plan, 2, 1));
    for (int i = 1; i <= 7; i++) {
        char k[16];
        snprintf(k, sizeof k, "fact%d", i);
        CHECK_OK(agent_ledger_set_fact(l, k, "v", AGENT_FACT_OBSERVATION, 0.8, i));
    }
    CHECK(agent_ledger_touch_fact(l, "fact1", 9));
    CHECK_OK(agent_ledger_dead_end(l, "here", "https://shop.example/cart#top",
                                   AGENT_CAUSE_STALE_SELECTOR, 2));
    CHECK_OK(agent_ledger_dead_end(l, "elsewhere", "https://shop.example/other",
                                   AGENT_CAUSE_NETWORK, 3));
    CHECK_OK(agent_ledger_checkpoint(l, 3, "cart", "1 item", "", ""));
    CHECK_OK(agent_ledger_note(l, 3, "note"));
    for (int i = 1; i <= 4; i++)
        CHECK_OK(step(l, i, "click_at", 1, "https://shop.example/cart"));
    char *w = agent_ledger_render(l, AGENT_ROLE_WORKER, "https://shop.example/cart/");
    char *o = agent_ledger_render(l, AGENT_ROLE_ORCHESTRATOR, NULL);
    char *p = agent_ledger_render(l, AGENT_ROLE_PLANNER, NULL);
    CHECK(w && o && p);
    /* Worker: subgoal, 3 recent, 5 facts (fact1 first: referred to last),
     * dead ends at this page only; no plan, notes or checkpoints. */
    CHECK(strstr(w, "SUBGOAL: add to cart"));
    CHECK(strstr(w, "- step 2 ") && !strstr(w, "- step 1 "));
    CHECK(strstr(w, "FACTS:\n- fact1 = v"));
    CHECK(strstr(w, "fact4") && !strstr(w, "fact3 ") && !strstr(w, "fact2 "));
    CHECK(strstr(w, "- here") && !strstr(w, "elsewhere"));
    CHECK(!strstr(w, "PLAN:") && !strstr(w, "NOTES:") && !strstr(w, "CHECKPOINTS:"));
    /* Orchestrator: everything. */
    CHECK(strstr(o, "PLAN:\n  1. search socks\n> 2. add to cart"));
    CHECK(strstr(o, "fact2 = v") && strstr(o, "elsewhere") && strstr(o, "NOTES:") &&
          strstr(o, "CHECKPOINTS:"));
    CHECK(strstr(p, "PLAN:") && strstr(p, "fact7"));
    /* Deterministic, and the goal opens the block. */
    char *w2 = agent_ledger_render(l, AGENT_ROLE_WORKER, "https://shop.example/cart/");
    CHECK_STR(w, w2);
    CHECK(strncmp(o, "[LEDGER view=orchestrator]\nGOAL: buy socks\n", 42) == 0);
    base_free(w);
    base_free(w2);
    base_free(o);
    base_free(p);
    agent_ledger_destroy(l);
}

static void ingest(void)
{
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    CHECK_OK(agent_ledger_step_begin(l, 1, "click_at", "c1", "{}"));
    agent_step_report r1 = {1, "worker", "click_at", "c1", "{}", 1, 1, "ok", "opened results",
                            "https://a.example/results#top"};
    agent_ingest in = {&r1, "https://a.example/", NULL, NULL};
    CHECK_OK(agent_ledger_ingest(l, &in));
    CHECK_EQ(l->n_checkpoints, 1);
    CHECK_STR(l->checkpoints[0].call_id, "c1");
    CHECK_STR(l->checkpoints[0].kind, "navigation");
    CHECK(strstr(l->checkpoints[0].label, "opened results"));
    /* Same page (only the fragment moved): no checkpoint; a saved value is a fact. */
    CHECK_OK(agent_ledger_step_begin(l, 2, "extract", "c2", "{}"));
    agent_step_report r2 = {2, "worker", "extract", "c2", "{}", 1, 0, "ok", "",
                            "https://a.example/results#list"};
    agent_ingest in2 = {&r2, "https://a.example/results#top", "price", "89 EUR"};
    CHECK_OK(agent_ledger_ingest(l, &in2));
    CHECK_EQ(l->n_checkpoints, 1);
    CHECK_EQ(l->n_facts, 1);
    CHECK_STR(l->facts[0].value, "89 EUR");
    CHECK_EQ(l->facts[0].cat, AGENT_FACT_DERIVED);
    /* A failed call moves nothing but the step record. */
    CHECK_OK(agent_ledger_step_begin(l, 3, "click_at", "c3", "{}"));
    agent_step_report r3 = {3, "worker", "click_at", "c3", "{}", 0, 1, "no_effect", "",
                            "https://a.example/other"};
    agent_ingest in3 = {&r3, "https://a.example/results", "x", "y"};
    CHECK_OK(agent_ledger_ingest(l, &in3));
    CHECK_EQ(l->n_checkpoints, 1);
    CHECK_EQ(l->n_facts, 1);
    CHECK_EQ(l->last_step, 3);
    /* Without a pending step: refused, nothing changes. */
    CHECK(agent_ledger_ingest(l, &in3) == BASE_EINVAL);
    agent_ledger_destroy(l);
}

static void tokens(void)
{
    CHECK_EQ(model_tokens_text("", 0), 0);
    CHECK_EQ(model_tokens_text("abcd", 4), 1);
    CHECK_EQ(model_tokens_text("abcde", 5), 2);
    CHECK_EQ(model_tokens_text("日本語", strlen("日本語")), 3);
    CHECK_EQ(model_tokens_image(1280, 800), 1105);
    CHECK_EQ(model_tokens_image(512, 512), 255);
    CHECK_EQ(model_tokens_image(0, 0), MODEL_TOKENS_IMAGE_DEFAULT);
    /* A PNG header of 640x400: 85 + 170 * 2 * 1. */
    const char *png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAoAAAAGQCAYAAAA";
    int w = 0;
    int h = 0;
    CHECK(model_tokens_data_url_size(png, &w, &h));
    CHECK_EQ(w, 640);
    CHECK_EQ(h, 400);
    /* Real encoder output: a JPEG (size in its SOF marker, after JFIF and
     * quantisation tables) and a PNG. */
    for (int fmt = 0; fmt < 2; fmt++) {
        int iw = fmt ? 300 : 1280;
        int ih = fmt ? 200 : 720;
        img_image img = {base_calloc((size_t)iw * (size_t)ih, 4), iw, ih, iw * 4, 1};
        CHECK(img.px);
        uint8_t *enc = NULL;
        size_t n = 0;
        base_err e = fmt ? img_encode_png(&img, 1, &enc, &n, NULL)
                         : img_encode_jpeg(&img, 80, &enc, &n, NULL);
        base_free(img.px);
        CHECK_OK(e);
        char *url = base_malloc(base64_encoded_len(n) + 32);
        CHECK(url);
        int k = snprintf(url, 32, "data:image/%s;base64,", fmt ? "png" : "jpeg");
        base64_encode(enc, n, url + k);
        base_free(enc);
        w = h = 0;
        CHECK(model_tokens_data_url_size(url, &w, &h));
        base_free(url);
        CHECK_EQ(w, iw);
        CHECK_EQ(h, ih);
        CHECK_EQ(model_tokens_image(w, h), fmt ? 255 : 1105);
    }
    CHECK(!model_tokens_data_url_size("data:image/png;base64,!!!!", &w, &h));
    CHECK(!model_tokens_data_url_size("https://x/y.png", &w, &h));
    cJSON *m = cJSON_Parse("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"abcdefgh\"},"
                           "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\",\"detail\":\"low\"}}]}");
    CHECK(m);
    CHECK_EQ(model_tokens_message(m), 4 + 1 + 2 + 85);
    cJSON_Delete(m);
}

static const check_case cases[] = {{"slots", slots},   {"round_trip", round_trip},
                                   {"resume", resume}, {"strict", strict},
                                   {"secrets", secrets}, {"render", render},
                                   {"ingest", ingest}, {"tokens", tokens},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    base_json_alloc_install();
    return check_main(argc, argv, cases);
}
