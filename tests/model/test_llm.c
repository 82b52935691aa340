/* tests/model/test_llm.c: the agent's model client (model/llm.h) and token
 * budget (model/budget.h) against a REPLAY server (tests/harness/replay.h).
 * Every answer here is a replay of scripted chat completions, not a model:
 * the tests check the client — request shape, tool-call round trips with
 * their ids, JSON-schema answers and the fallback to JSON in text, retries,
 * deadlines, cancel, garbage, the budget refusing a call before anything is
 * sent, keys kept out of every message — not anyone's judgement.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/budget.h"
#include "model/tokens.h"
#include "model/llm.h"
#include "model/normalize.h"
#include "agent/session/tool.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/log.h"
#include "check.h"
#include "harness.h"
#include "replay.h"

#define KEY "sk-llm-test-0a1b2c3d4e5f6789SECRETkeyFOVEA"

static const char click_call[] =
    "[{\"id\":\"call_7Qx\",\"type\":\"function\",\"function\":{\"name\":\"click_at\","
    "\"arguments\":\"{\\\"target\\\":\\\"Search\\\"}\"}}]";

/* A replay server in chat mode and a client on it. */
typedef struct fx {
    replay *r;
    model_llm *l;
    char err[BASE_ERRBUF_SIZE];
} fx;

static int fx_start(fx *f, const char *key, int retries, int timeout_ms)
{
    memset(f, 0, sizeof *f);
    if (replay_start(&f->r, f->err) != BASE_OK)
        return 0;
    replay_set_chat(f->r, 1);
    model_llm_config c;
    model_llm_config_init(&c);
    c.base_url = replay_base_url(f->r);
    c.api_key = key;
    c.model = "worker-model";
    c.planner_model = "planner-model";
    c.max_retries = retries;
    c.timeout_ms = timeout_ms;
    if (model_llm_create(&c, &f->l, f->err) != BASE_OK) {
        fprintf(stderr, "create: %s\n", f->err);
        return 0;
    }
    return 1;
}

static void fx_end(fx *f)
{
    model_llm_destroy(f->l);
    replay_destroy(f->r);
    memset(f, 0, sizeof *f);
}

static void push(replay *r, replay_reply rep)
{
    replay_push(r, &rep);
}

/* [system, user] */
static cJSON *conversation(const char *task)
{
    cJSON *m = cJSON_CreateArray();
    model_llm_add_message(m, "system", "You operate a web browser through tools.");
    model_llm_add_message(m, "user", task);
    return m;
}

/* The request body the server saw for request i, parsed (cJSON_Delete). */
static cJSON *seen_body(replay *r, int i)
{
    replay_seen s;
    if (replay_request(r, i, &s) != BASE_OK)
        return NULL;
    cJSON *b = s.body ? cJSON_Parse(s.body) : NULL;
    replay_seen_fini(&s);
    return b;
}

static void request_init(model_llm_request *q, cJSON *msgs, const cJSON *tools)
{
    memset(q, 0, sizeof *q);
    q->messages = msgs;
    q->tools = tools;
    q->temperature = -1;
}

/* Tool calling, two turns: the model calls click_at with an id, the
 * client parses and checks it, the tool's result goes back under that id,
 * and the server (which pairs ids as the API does) accepts the turn. */
static void tool_round_trip(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    push(f.r, (replay_reply){.tool_calls = click_call, .require_tools = 1, .prompt_tokens = 1200,
                             .completion_tokens = 25, .cached_tokens = 1024});
    push(f.r, (replay_reply){.content = "The results page is open.", .require_tools = 1,
                             .prompt_tokens = 1300, .cached_tokens = 1200});
    cJSON *tools = tool_functions_json(0);
    cJSON *msgs = conversation("Search for lamps.");
    CHECK(tools && msgs);
    model_llm_request q;
    request_init(&q, msgs, tools);
    model_llm_reply r;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK_EQ(r.n_calls, 1);
    CHECK_EQ(r.n_bad_calls, 0);
    CHECK_STR(r.calls[0].id, "call_7Qx");
    CHECK_STR(r.calls[0].name, "click_at");
    CHECK_STR(cJSON_GetObjectItem(r.calls[0].args, "target")->valuestring, "Search");
    CHECK_STR(r.finish_reason, "tool_calls");
    CHECK_EQ(r.usage.prompt, 1200);
    CHECK_EQ(r.usage.completion, 25);
    CHECK_EQ(r.usage.cached, 1024);
    CHECK_EQ(r.usage.reported, 1);
    CHECK(r.ms > 0 && r.server_ms > 0 && r.server_ms <= r.ms);
    CHECK_STR(r.model, "worker-model");
    /* The request carried the tools and tool_choice auto. */
    cJSON *b0 = seen_body(f.r, 0);
    CHECK(b0 != NULL);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(b0, "tools")), cJSON_GetArraySize(tools));
    CHECK_STR(cJSON_GetObjectItem(b0, "tool_choice")->valuestring, "auto");
    CHECK(cJSON_GetObjectItem(b0, "response_format") == NULL);
    /* Streamed, with the usage in the last chunk (read above: 1200/25/1024). */
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(b0, "stream")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(b0, "stream_options"),
                                           "include_usage")));
    CHECK_EQ(replay_streamed(f.r), 1);
    cJSON_Delete(b0);
    /* Second turn: the assistant message and the tool result, paired. */
    CHECK_OK(model_llm_add_reply(msgs, &r));
    CHECK_OK(model_llm_add_tool_result(msgs, r.calls[0].id, "clicked 'Search'; the URL changed"));
    model_llm_reply_fini(&r);
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK_EQ(r.n_calls, 0);
    CHECK_STR(r.content, "The results page is open.");
    CHECK_EQ(r.usage.cached, 1200);
    cJSON *b1 = seen_body(f.r, 1);
    CHECK(b1 != NULL);
    const cJSON *m = cJSON_GetObjectItem(b1, "messages");
    CHECK_EQ(cJSON_GetArraySize(m), 4);
    const cJSON *asst = cJSON_GetArrayItem(m, 2), *tool = cJSON_GetArrayItem(m, 3);
    CHECK_STR(cJSON_GetObjectItem(asst, "role")->valuestring, "assistant");
    /* On the wire (model/normalize.h): "" for null content, the id in the
     * 9-alphanumeric form on both sides, the function's name on the result. */
    CHECK_STR(cJSON_GetObjectItem(asst, "content")->valuestring, "");
    char wid[10];
    model_wire_id("call_7Qx", wid);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(asst, "tool_calls"), 0),
                                  "id")->valuestring,
              wid);
    CHECK_STR(cJSON_GetObjectItem(tool, "tool_call_id")->valuestring, wid);
    CHECK_STR(cJSON_GetObjectItem(tool, "name")->valuestring, "click_at");
    cJSON_Delete(b1);
    model_llm_reply_fini(&r);
    /* A conversation that drops the tool result is refused by the server
     * (400, as the API does), and the client does not retry it. */
    cJSON *broken = conversation("Search for lamps.");
    cJSON *a = cJSON_Duplicate(cJSON_GetArrayItem(msgs, 2), 1);
    cJSON_AddItemToArray(broken, a);
    model_llm_add_message(broken, "user", "go on");
    q.messages = broken;
    int before = replay_count(f.r);
    /* The normalizer cannot invent a result: the request breaks a wire rule
     * on purpose here, so the checker only counts it. */
    replay_wire_lax(f.r, 1);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EREMOTE);
    CHECK_MSG(strstr(f.err, "400") && strstr(f.err, "did not have response messages: ") &&
                  strstr(f.err, wid),
              "%s", f.err);
    CHECK_EQ(replay_count(f.r), before + 1);
    CHECK_EQ(replay_wire_violations(f.r, NULL, 0), 1);
    replay_wire_lax(f.r, 0);
    /* And a request without tools where the recorded turn needs them. */
    base_errclear(f.err);
    push(f.r, (replay_reply){.tool_calls = click_call, .require_tools = 1});
    cJSON *fresh = conversation("Search for lamps.");
    q.messages = fresh;
    q.tools = NULL;
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EREMOTE);
    CHECK_MSG(strstr(f.err, "carries no tools"), "%s", f.err);
    cJSON_Delete(fresh);
    cJSON_Delete(broken);
    cJSON_Delete(msgs);
    cJSON_Delete(tools);
    fx_end(&f);
}

/* A recorded three-turn conversation (tests/fixtures/replay_chat: response
 * bodies as OpenAI, vLLM and llama.cpp's server write them) replayed in
 * order: each turn's tool calls are answered under their ids, the server
 * checks the pairing on every request, and the usage of each turn is read
 * (cached tokens where the server reports them). */
static void recorded_conversation(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    CHECK_EQ(replay_load_dir(f.r, FOVEA_SOURCE_DIR "/tests/fixtures/replay_chat", f.err), 3);
    cJSON *tools = tool_functions_json(0);
    cJSON *msgs = conversation("Find the cheapest desk lamp.");
    model_llm_request q;
    request_init(&q, msgs, tools);
    model_budget b;
    model_budget_init(&b, MODEL_BUDGET_DEFAULT);
    q.budget = &b;
    static const int calls[] = {1, 2, 0};
    static const long cached[] = {2944, 0, 0};
    for (int turn = 0; turn < 3; turn++) {
        model_llm_reply r;
        CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "turn %d: %s", turn, f.err);
        CHECK_EQ(r.n_calls, calls[turn]);
        CHECK_EQ(r.n_bad_calls, 0);
        CHECK_EQ(r.usage.cached, cached[turn]);
        CHECK_OK(model_llm_add_reply(msgs, &r));
        for (int i = 0; i < r.n_calls; i++) {
            char res[128];
            snprintf(res, sizeof res, "%s: ok", r.calls[i].name);
            CHECK_OK(model_llm_add_tool_result(msgs, r.calls[i].id, res));
        }
        if (turn == 1) {
            CHECK_STR(r.calls[0].id, "chatcmpl-tool-4a1");
            CHECK_STR(cJSON_GetObjectItem(r.calls[0].args, "text")->valuestring, "desk lamp");
        }
        if (turn == 2)
            CHECK(r.content && strstr(r.content, "Arc Mini"));
        model_llm_reply_fini(&r);
    }
    CHECK_EQ(replay_count(f.r), 3);
    CHECK_EQ(b.calls, 3);
    CHECK_EQ(b.spent, 3141 + 3462 + 3604);
    /* The last request carried both tool results of turn 2, in order. */
    cJSON *last = seen_body(f.r, 2);
    const cJSON *m = cJSON_GetObjectItem(last, "messages");
    int n = cJSON_GetArraySize(m);
    /* Turn 2's batch of two went out as two call/result pairs. */
    CHECK_EQ(n, 2 + 2 + 2 * 2);
    char w1[10], w2[10];
    model_wire_id("chatcmpl-tool-4a1", w1);
    model_wire_id("chatcmpl-tool-4a2", w2);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(m, n - 3), "tool_call_id")->valuestring, w1);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(m, n - 1), "tool_call_id")->valuestring, w2);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(m, n - 2), "role")->valuestring, "assistant");
    cJSON_Delete(last);
    cJSON_Delete(msgs);
    cJSON_Delete(tools);
    fx_end(&f);
}

/* Tool calls the agent cannot run: an unknown name, arguments failing the
 * tool's schema, arguments that are not JSON. The call succeeds; each bad
 * tool call carries a message for the model. */
static void bad_tool_calls(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    push(f.r,
         (replay_reply){.tool_calls =
                            "[{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"clik_at\","
                            "\"arguments\":\"{}\"}},"
                            "{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"click_at\","
                            "\"arguments\":\"{\\\"targte\\\":\\\"Go\\\"}\"}},"
                            "{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"scroll\","
                            "\"arguments\":\"{not json\"}},"
                            "{\"id\":\"d\",\"type\":\"function\",\"function\":{\"name\":\"click_at\","
                            "\"arguments\":{\"target\":\"Go\"}}}]"});
    cJSON *tools = tool_functions_json(0);
    cJSON *msgs = conversation("Press Go.");
    model_llm_request q;
    request_init(&q, msgs, tools);
    model_llm_reply r;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK_EQ(r.n_calls, 4);
    CHECK_EQ(r.n_bad_calls, 3);
    CHECK_EQ(r.calls[0].error, BASE_ENOTFOUND);
    CHECK_MSG(strstr(r.calls[0].why, "unknown tool 'clik_at'") && strstr(r.calls[0].why, "click_at"),
              "%s", r.calls[0].why);
    CHECK(r.calls[0].args == NULL);
    CHECK_MSG(r.calls[1].error && strstr(r.calls[1].why, "'targte' is not known"), "%s",
              r.calls[1].why);
    CHECK_MSG(r.calls[2].error == BASE_EPROTO && strstr(r.calls[2].why, "not a JSON object"), "%s",
              r.calls[2].why);
    /* Arguments sent as an object (some local servers) are accepted. */
    CHECK_EQ(r.calls[3].error, BASE_OK);
    CHECK_STR(cJSON_GetObjectItem(r.calls[3].args, "target")->valuestring, "Go");
    /* The history message sends arguments back as strings. */
    const cJSON *tc = cJSON_GetArrayItem(cJSON_GetObjectItem(r.message, "tool_calls"), 3);
    CHECK(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(tc, "function"), "arguments")));
    model_llm_reply_fini(&r);
    cJSON_Delete(msgs);
    cJSON_Delete(tools);
    fx_end(&f);
}

static const char planner_schema[] =
    "{\"type\":\"object\",\"properties\":{\"done\":{\"type\":\"boolean\"},"
    "\"final_answer\":{\"type\":\"string\"},\"next_steps\":{\"type\":\"array\","
    "\"items\":{\"type\":\"string\"}}},\"required\":[\"done\",\"next_steps\"],"
    "\"additionalProperties\":false}";

/* A JSON-schema answer: response_format goes out, the JSON comes back
 * parsed and checked; an answer off the schema is a clear error. */
static void json_schema(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    push(f.r, (replay_reply){.content = "{\"done\":true,\"final_answer\":\"42 lamps\","
                                        "\"next_steps\":[]}"});
    push(f.r, (replay_reply){.content = "{\"done\":\"yes\",\"next_steps\":[]}"});
    cJSON *schema = cJSON_Parse(planner_schema);
    cJSON *msgs = conversation("How many lamps?");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    q.role = MODEL_LLM_PLANNER;
    q.schema = schema;
    q.schema_name = "plan";
    model_llm_reply r;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK(r.json != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.json, "done")));
    CHECK_STR(cJSON_GetObjectItem(r.json, "final_answer")->valuestring, "42 lamps");
    CHECK_EQ(r.json_in_text, 0);
    CHECK_EQ(model_llm_schema_fallback(f.l), 0);
    model_llm_reply_fini(&r);
    cJSON *b = seen_body(f.r, 0);
    const cJSON *rf = cJSON_GetObjectItem(b, "response_format");
    CHECK_STR(cJSON_GetObjectItem(rf, "type")->valuestring, "json_schema");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(rf, "json_schema"), "name")->valuestring,
              "plan");
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(rf, "json_schema"), "schema") != NULL);
    /* The planner's role model. */
    CHECK_STR(cJSON_GetObjectItem(b, "model")->valuestring, "planner-model");
    cJSON_Delete(b);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "planner's answer does not follow its schema") &&
                  strstr(f.err, "'done' must be"),
              "%s", f.err);
    cJSON_Delete(msgs);
    cJSON_Delete(schema);
    fx_end(&f);
}

/* A server without structured outputs: the 400 naming response_format is
 * seen once, the same request goes again at once with the schema in the
 * system message, the JSON is read out of the prose and fences, and the
 * next call skips response_format from the start. */
static void schema_fallback(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    replay_refuse_format(f.r, 1);
    push(f.r, (replay_reply){.content = "Sure! Here is my plan:\n```json\n{\"done\": false, "
                                        "\"next_steps\": [\"open the cart\"]}\n```\nGood luck."});
    push(f.r, (replay_reply){.content = "{\"done\": true, \"next_steps\": []}"});
    cJSON *schema = cJSON_Parse(planner_schema);
    cJSON *msgs = conversation("Buy a lamp.");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    q.role = MODEL_LLM_PLANNER;
    q.schema = schema;
    model_llm_reply r;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK_EQ(replay_count(f.r), 2);
    CHECK_EQ(r.attempts, 2);
    CHECK_EQ(model_llm_schema_fallback(f.l), 1);
    CHECK_EQ(r.json_in_text, 1);
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r.json, "next_steps"), 0)->valuestring,
              "open the cart");
    model_llm_reply_fini(&r);
    replay_seen s0;
    CHECK_OK(replay_request(f.r, 0, &s0));
    CHECK_EQ(s0.status, 400);
    replay_seen_fini(&s0);
    cJSON *b = seen_body(f.r, 1);
    CHECK(cJSON_GetObjectItem(b, "response_format") == NULL);
    const cJSON *sys = cJSON_GetArrayItem(cJSON_GetObjectItem(b, "messages"), 0);
    const char *st = cJSON_GetObjectItem(sys, "content")->valuestring;
    CHECK_MSG(strstr(st, "You operate a web browser") && strstr(st, "JSON Schema") &&
                  strstr(st, "\"next_steps\""),
              "%s", st);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(b, "messages")), 2);
    cJSON_Delete(b);
    /* The caller's conversation is untouched. */
    CHECK(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "content")->valuestring,
                 "JSON Schema") == NULL);
    /* Remembered: one request this time. */
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK_EQ(replay_count(f.r), 3);
    CHECK_EQ(r.attempts, 1);
    model_llm_reply_fini(&r);
    cJSON_Delete(msgs);
    cJSON_Delete(schema);
    fx_end(&f);
}

/* 429 with Retry-After: 1, then an answer: the wait is honoured and
 * counted apart from the server's time. */
static void retry_429(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 3, 5000));
    push(f.r, (replay_reply){.status = 429, .retry_after = "1"});
    push(f.r, (replay_reply){.content = "ok"});
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    model_llm_reply r;
    double t0 = base_monotime_ms();
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    double ms = base_monotime_ms() - t0;
    CHECK_EQ(r.attempts, 2);
    CHECK_MSG(ms >= 990 && r.wait_ms >= 990, "Retry-After 1 s not honoured: %.0f ms", ms);
    CHECK(r.server_ms < 500);
    model_llm_reply_fini(&r);
    /* A Retry-After beyond the call's deadline is not waited for. */
    push(f.r, (replay_reply){.status = 429, .retry_after = "3600"});
    q.deadline_ms = base_monotime_ms() + 2000;
    t0 = base_monotime_ms();
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EREMOTE);
    CHECK_MSG(strstr(f.err, "model endpoint: rate-limited (Retry-After 3600 s)") &&
                  strstr(f.err, "not retried") && strstr(f.err, "left for the call"),
              "%s", f.err);
    CHECK(base_monotime_ms() - t0 < 1000);
    cJSON_Delete(msgs);
    fx_end(&f);
}

/* A slow server: the per-attempt timeout, and the call's deadline. */
static void timeout_and_deadline(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 300));
    push(f.r, (replay_reply){.content = "late", .delay_ms = 3000, .times = -1});
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    model_llm_reply r;
    double t0 = base_monotime_ms();
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_ETIMEDOUT);
    CHECK_MSG(strstr(f.err, "model endpoint: timed out after 300 ms"), "%s", f.err);
    CHECK(base_monotime_ms() - t0 < 1500);
    model_llm_destroy(f.l);
    /* Long attempts, short deadline: the deadline wins. */
    model_llm_config c;
    model_llm_config_init(&c);
    c.base_url = replay_base_url(f.r);
    c.timeout_ms = 20000;
    CHECK_OK(model_llm_create(&c, &f.l, f.err));
    q.deadline_ms = base_monotime_ms() + 400;
    t0 = base_monotime_ms();
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_ETIMEDOUT);
    CHECK_MSG(base_monotime_ms() - t0 < 1500, "%.0f ms", base_monotime_ms() - t0);
    cJSON_Delete(msgs);
    fx_end(&f);
}

typedef struct later {
    model_llm *l; /* cancel this, or */
    int sig;      /* raise this signal */
} later;

static void *fire_later(void *arg)
{
    later *w = arg;
    base_sleep_ms(200);
    if (w->l)
        model_llm_cancel(w->l, 1);
    else
        kill(getpid(), w->sig);
    return NULL;
}

/* A call waiting for a slow answer ends at once on model_llm_cancel from
 * another thread, and on Ctrl-C (SIGINT through base/interrupt.h). */
static void cancel(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 2, 10000));
    push(f.r, (replay_reply){.content = "late", .delay_ms = 4000, .times = -1});
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    model_llm_reply r;
    later w = {f.l, 0};
    pthread_t th;
    pthread_create(&th, NULL, fire_later, &w);
    double t0 = base_monotime_ms();
    base_err e = model_llm_chat(f.l, &q, &r, f.err);
    double ms = base_monotime_ms() - t0;
    pthread_join(th, NULL);
    CHECK_EQ(e, BASE_ECANCELED);
    CHECK_MSG(strstr(f.err, "request cancelled"), "%s", f.err);
    CHECK_MSG(ms < 1500, "%.0f ms", ms);
    /* Cancelled stays cancelled until cleared. */
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_ECANCELED);
    model_llm_cancel(f.l, 0);
    /* Ctrl-C. */
    base_interrupt_install(NULL);
    later s = {NULL, SIGINT};
    pthread_create(&th, NULL, fire_later, &s);
    t0 = base_monotime_ms();
    base_errclear(f.err);
    e = model_llm_chat(f.l, &q, &r, f.err);
    ms = base_monotime_ms() - t0;
    pthread_join(th, NULL);
    base_interrupt_reset();
    CHECK_EQ(e, BASE_ECANCELED);
    CHECK_MSG(strstr(f.err, "interrupted by SIGINT"), "%s", f.err);
    CHECK_MSG(ms < 1500, "%.0f ms", ms);
    cJSON_Delete(msgs);
    fx_end(&f);
}

/* Garbage bytes, a connection closed mid-body, a body cut short, an error
 * envelope with status 200, an empty answer to a schema: clear errors. */
static void garbage(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 1, 5000));
    push(f.r, (replay_reply){.garbage = 1});
    push(f.r, (replay_reply){.close_mid_body = 1, .times = 2});
    push(f.r, (replay_reply){.body = "{\"id\":\"x\",\"choices\":[{\"message\":{\"role\":"
                                     "\"assistant\",\"content\":\"I will cli"});
    push(f.r, (replay_reply){.body = "{\"error\":{\"message\":\"model overloaded\"}}"});
    push(f.r, (replay_reply){.body = "{\"choices\":[]}"});
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    model_llm_reply r;
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "not JSON"), "%s", f.err);
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EIO);
    CHECK_MSG(strstr(f.err, "closed the connection mid-reply") && strstr(f.err, "after 2 attempts"),
              "%s", f.err);
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "cut off") && strstr(f.err, "I will cli"), "%s", f.err);
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EREMOTE);
    CHECK_MSG(strstr(f.err, "model overloaded"), "%s", f.err);
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "no choices[0].message"), "%s", f.err);
    /* Prose with no JSON where a schema was asked for. */
    push(f.r, (replay_reply){.content = "I'm not sure what to do next."});
    cJSON *schema = cJSON_Parse(planner_schema);
    q.schema = schema;
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "no JSON object") && strstr(f.err, "not sure"), "%s", f.err);
    /* Bad requests never reach the server. */
    int n = replay_count(f.r);
    cJSON *empty = cJSON_CreateArray();
    q.messages = empty;
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EINVAL);
    CHECK_EQ(replay_count(f.r), n);
    cJSON_Delete(empty);
    cJSON_Delete(schema);
    cJSON_Delete(msgs);
    fx_end(&f);
}

/* The budget: a call that would pass the limit is refused before anything
 * is sent, naming spent and limit; usage is charged after each call, and
 * dollars follow the configured prices. */
static void budget(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    model_budget b;
    model_budget_init(&b, 100000);
    b.price_in = 2.5;
    b.price_out = 10;
    b.price_cached = 1.25;
    push(f.r, (replay_reply){.content = "fine", .prompt_tokens = 40000, .completion_tokens = 500,
                             .cached_tokens = 30000});
    push(f.r, (replay_reply){.content = "fine", .prompt_tokens = 50000, .completion_tokens = 500,
                             .cached_tokens = 40000});
    push(f.r, (replay_reply){.content = "never sent"});
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    q.budget = &b;
    model_llm_reply r;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    CHECK(r.estimate > 0);
    model_llm_reply_fini(&r);
    CHECK_EQ(b.spent, 40500);
    CHECK_EQ(b.total.cached, 30000);
    CHECK_EQ(b.calls, 1);
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    model_llm_reply_fini(&r);
    CHECK_EQ(b.spent, 91000);
    /* $: (90000-70000)*2.5 + 70000*1.25 + 1000*10, per million. */
    CHECK_NEAR(model_budget_cost(&b, &b.total), (20000 * 2.5 + 70000 * 1.25 + 1000 * 10) / 1e6,
               1e-9);
    /* A large request now would pass 100,000: refused, nothing sent. */
    char big[40001];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    model_llm_add_message(msgs, "user", big);
    int n = replay_count(f.r);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_ETOOBIG);
    CHECK_MSG(strncmp(f.err, "cost_cap_exceeded: 91000 tokens spent of the 100000-token budget",
                      64) == 0,
              "%s", f.err);
    CHECK_EQ(replay_count(f.r), n);
    CHECK_EQ(replay_pending(f.r), 1);
    CHECK_EQ(b.spent, 91000);
    char line[200];
    model_budget_describe(&b, line, sizeof line);
    CHECK_MSG(strstr(line, "91000 / 100000 tokens") && strstr(line, "$0.1475"), "%s", line);
    cJSON_Delete(msgs);
    fx_end(&f);
}

/* What is left of the budget goes out as max_tokens, and a server that
 * reports 0 (or negative) tokens is charged the estimate, so the cap
 * fires after a few calls instead of never (issue 22: four calls charged
 * 0 tokens). */
static void budget_wire(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000));
    model_budget b;
    model_budget_init(&b, 3000);
    static const char zero[] =
        "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"m\",\"choices\":[{\"index\":0,"
        "\"message\":{\"role\":\"assistant\",\"content\":\"a reply of some forty characters..\"},"
        "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":-5,"
        "\"total_tokens\":0}}";
    push(f.r, (replay_reply){.body = zero, .times = -1});
    char task[2001];
    memset(task, 'w', sizeof task - 1);
    task[sizeof task - 1] = '\0';
    cJSON *msgs = conversation(task);
    model_llm_request q;
    request_init(&q, msgs, NULL);
    q.budget = &b;
    model_llm_reply r;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    long est = r.estimate;
    CHECK(est > 400);
    CHECK_EQ(r.usage.reported, 0);
    CHECK_EQ(r.usage.prompt, est);
    CHECK(r.usage.completion > 0);
    CHECK_EQ(b.spent, est + r.usage.completion);
    model_llm_reply_fini(&r);
    cJSON *b0 = seen_body(f.r, 0);
    const cJSON *mt = cJSON_GetObjectItem(b0, "max_tokens");
    CHECK(cJSON_IsNumber(mt));
    CHECK_EQ((long)mt->valuedouble, 3000 - est);
    cJSON_Delete(b0);
    /* The second call is offered only what is left. */
    long spent = b.spent;
    CHECK_MSG(model_llm_chat(f.l, &q, &r, f.err) == BASE_OK, "%s", f.err);
    model_llm_reply_fini(&r);
    cJSON *b1 = seen_body(f.r, 1);
    CHECK_EQ((long)cJSON_GetObjectItem(b1, "max_tokens")->valuedouble, 3000 - spent - est);
    cJSON_Delete(b1);
    /* Charged every time: within a few calls the cap refuses, nothing sent. */
    int calls = 2;
    base_err e = BASE_OK;
    while (calls < 10 && (e = model_llm_chat(f.l, &q, &r, f.err)) == BASE_OK) {
        model_llm_reply_fini(&r);
        calls++;
    }
    CHECK_EQ(e, BASE_ETOOBIG);
    CHECK_MSG(strstr(f.err, "cost_cap_exceeded"), "%s", f.err);
    CHECK(calls < 10);
    CHECK_EQ(replay_count(f.r), calls);
    cJSON_Delete(msgs);
    fx_end(&f);
}

/* The estimator: text bytes / 4 plus framing, images at a fixed count, and
 * the ratio learned from the server's prompt counts. */
static void estimator(void)
{
    model_budget b;
    model_budget_init(&b, 0);
    cJSON *m = cJSON_CreateArray();
    char text[4001];
    memset(text, 'a', 4000);
    text[4000] = '\0';
    model_llm_add_message(m, "user", text);
    long e1 = model_budget_estimate(&b, m, NULL, NULL);
    CHECK_MSG(e1 >= 1000 && e1 <= 1020, "%ld", e1);
    /* A 200 KB image data: URL counts as one image, not 50,000 tokens. */
    cJSON *parts = cJSON_CreateArray();
    cJSON *img = cJSON_CreateObject();
    cJSON_AddStringToObject(img, "type", "image_url");
    char *url = base_malloc(200001);
    memcpy(url, "data:image/jpeg;base64,", 23);
    memset(url + 23, 'Q', 200000 - 23);
    url[200000] = '\0';
    cJSON_AddStringToObject(cJSON_AddObjectToObject(img, "image_url"), "url", url);
    base_free(url);
    cJSON_AddItemToArray(parts, img);
    cJSON *um = cJSON_CreateObject();
    cJSON_AddStringToObject(um, "role", "user");
    cJSON_AddItemToObject(um, "content", parts);
    cJSON_AddItemToArray(m, um);
    long e2 = model_budget_estimate(&b, m, NULL, NULL);
    CHECK_MSG(e2 - e1 >= MODEL_TOKENS_IMAGE_DEFAULT && e2 - e1 < MODEL_TOKENS_IMAGE_DEFAULT + 30,
              "%ld", e2 - e1);
    /* The server counted 1.5x the estimate: later estimates follow. */
    model_budget_usage u = {(long)(e2 * 1.5), 10, 0, 1};
    model_budget_charge(&b, &u, e2);
    CHECK_NEAR(b.ratio, 1.5, 0.01);
    long e3 = model_budget_estimate(&b, m, NULL, NULL);
    CHECK_NEAR((double)e3, e2 * 1.5, 2);
    /* Without reported usage the estimate is charged. */
    model_budget_usage none = {0, 0, 0, 0};
    long before = b.spent;
    model_budget_charge(&b, &none, 77);
    CHECK_EQ(b.spent - before, 77);
    /* No limit: never refused. */
    CHECK_OK(model_budget_check(&b, 1L << 40, NULL));
    long v = 0;
    CHECK_OK(model_budget_parse("100k", &v, NULL));
    CHECK_EQ(v, 100000);
    CHECK_OK(model_budget_parse("1.5M", &v, NULL));
    CHECK_EQ(v, 1500000);
    CHECK_EQ(model_budget_parse("lots", &v, NULL), BASE_EINVAL);
    cJSON_Delete(m);
}


typedef struct key_run {
    fx *f;
    base_err e;
} key_run;

static void run_with_key(void *arg)
{
    key_run *k = arg;
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    model_llm_reply r;
    k->e = model_llm_chat(k->f->l, &q, &r, k->f->err);
    if (k->e == BASE_OK)
        model_llm_reply_fini(&r);
    cJSON_Delete(msgs);
}

/* True when s holds any 8-character piece of key. */
static int leaks(const char *s, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + 8 <= kl; i++) {
        char piece[9];
        memcpy(piece, key + i, 8);
        piece[8] = '\0';
        if (strstr(s, piece))
            return 1;
    }
    return 0;
}

/* The key goes to the server as a bearer token and nowhere else: not into
 * the error when the server echoes it (a 401), nor into traced stderr, nor
 * into the error quoting a model's answer that repeats it. */
static void key_never_printed(void)
{
    fx f;
    CHECK(fx_start(&f, KEY, 0, 5000));
    CHECK_OK(replay_require_key(f.r, "sk-the-right-one"));
    key_run k = {&f, BASE_OK};
    char *out = harness_capture_stderr(run_with_key, &k);
    CHECK(out != NULL);
    CHECK_EQ(k.e, BASE_EREMOTE);
    CHECK_MSG(strstr(f.err, "401") && strstr(f.err, "Incorrect API key provided: ***"), "%s",
              f.err);
    CHECK_MSG(!leaks(f.err, KEY), "key in error: %s", f.err);
    CHECK_MSG(strstr(out, "fovea[agent]") != NULL, "tracing was not on: %s", out);
    CHECK_MSG(!leaks(out, KEY), "key in stderr: %s", out);
    base_free(out);
    replay_seen s;
    CHECK_OK(replay_request(f.r, 0, &s));
    CHECK_STR(s.auth, "Bearer " KEY);
    replay_seen_fini(&s);
    /* A model answer quoting the key, where JSON was wanted. */
    CHECK_OK(replay_require_key(f.r, NULL));
    push(f.r, (replay_reply){.content = "my key is " KEY " ok"});
    cJSON *schema = cJSON_Parse(planner_schema);
    cJSON *msgs = conversation("hi");
    model_llm_request q;
    request_init(&q, msgs, NULL);
    q.schema = schema;
    model_llm_reply r;
    base_errclear(f.err);
    CHECK_EQ(model_llm_chat(f.l, &q, &r, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "my key is ***") && !leaks(f.err, KEY), "%s", f.err);
    cJSON_Delete(schema);
    cJSON_Delete(msgs);
    fx_end(&f);
}

/* Configuration from the environment: FOVEA_LLM_* first, OPENAI_* after,
 * per-role models; the error names the variables. */
static void config(void)
{
    static const char *const vars[] = {"FOVEA_LLM_BASE_URL", "OPENAI_BASE_URL",
                                       "FOVEA_LLM_API_KEY", "OPENAI_API_KEY",
                                       "FOVEA_LLM_MODEL", "OPENAI_MODEL",
                                       "FOVEA_PLANNER_MODEL",
                                       "FOVEA_LLM_TIMEOUT_MS", "FOVEA_TOKEN_BUDGET",
                                       "FOVEA_PRICE_IN", "FOVEA_PRICE_OUT", "FOVEA_PRICE_CACHED"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    model_llm_config c;
    model_llm_config_init(&c);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(model_llm_config_from_env(&c, err), BASE_ENOTFOUND);
    CHECK_MSG(strstr(err, "FOVEA_LLM_BASE_URL") && strstr(err, "OPENAI_BASE_URL"), "%s", err);
    setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1", 1);
    setenv("OPENAI_API_KEY", "k-openai", 1);
    setenv("OPENAI_MODEL", "m-openai", 1);
    CHECK_OK(model_llm_config_from_env(&c, err));
    CHECK_STR(c.base_url, "http://127.0.0.1:9/v1");
    CHECK_STR(c.api_key, "k-openai");
    CHECK_STR(c.model, "m-openai");
    setenv("FOVEA_LLM_BASE_URL", "http://127.0.0.1:10/v1", 1);
    setenv("FOVEA_LLM_API_KEY", "k-fovea", 1);
    setenv("FOVEA_LLM_MODEL", "m-fovea", 1);
    setenv("FOVEA_PLANNER_MODEL", "m-planner", 1);
    CHECK_OK(model_llm_config_from_env(&c, err));
    CHECK_STR(c.base_url, "http://127.0.0.1:10/v1");
    CHECK_STR(c.api_key, "k-fovea");
    CHECK_STR(c.model, "m-fovea");
    model_llm *l = NULL;
    CHECK_OK(model_llm_create(&c, &l, err));
    CHECK_STR(model_llm_model(l, MODEL_LLM_WORKER), "m-fovea");
    CHECK_STR(model_llm_model(l, MODEL_LLM_PLANNER), "m-planner");
    CHECK_STR(model_llm_role_name(MODEL_LLM_PLANNER), "planner");
    CHECK_STR(model_llm_role_name(MODEL_LLM_ROLE_COUNT), "?");
    model_llm_destroy(l);
    setenv("FOVEA_LLM_TIMEOUT_MS", "soon", 1);
    base_errclear(err);
    CHECK_EQ(model_llm_config_from_env(&c, err), BASE_EINVAL);
    CHECK(strstr(err, "FOVEA_LLM_TIMEOUT_MS") != NULL);
    c.base_url = "ftp://x";
    CHECK_EQ(model_llm_create(&c, &l, err), BASE_EINVAL);
    /* The budget's variables. */
    model_budget b;
    model_budget_init(&b, MODEL_BUDGET_DEFAULT);
    CHECK_OK(model_budget_from_env(&b, err));
    CHECK_EQ(b.limit, 100000);
    CHECK(b.price_in < 0);
    setenv("FOVEA_TOKEN_BUDGET", "250k", 1);
    setenv("FOVEA_PRICE_IN", "0.15", 1);
    setenv("FOVEA_PRICE_OUT", "0.6", 1);
    CHECK_OK(model_budget_from_env(&b, err));
    CHECK_EQ(b.limit, 250000);
    CHECK_NEAR(b.price_in, 0.15, 1e-12);
    CHECK_NEAR(b.price_cached, 0.15, 1e-12);
    setenv("FOVEA_PRICE_OUT", "cheap", 1);
    base_errclear(err);
    CHECK_EQ(model_budget_from_env(&b, err), BASE_EINVAL);
    CHECK(strstr(err, "FOVEA_PRICE_OUT") != NULL);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* The loose JSON reader and the envelope parser on their own. */
static void parsing(void)
{
    static const struct {
        const char *text;
        const char *key; /* NULL: must fail */
    } cases[] = {
        {"{\"a\": 1}", "a"},
        {"  \n{\"a\": 1}\n", "a"},
        {"```json\n{\"b\": [1, 2]}\n```", "b"},
        {"Here you go: {\"c\": \"}{ not a brace\"} -- done", "c"},
        {"Thinking {not json} then {\"d\": true}", "d"},
        {"no json at all", NULL},
        {"{\"e\": [1, 2, ", NULL},
        {"[1, 2, 3]", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *v = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = model_llm_json_from_text(cases[i].text, strlen(cases[i].text), &v, err);
        if (cases[i].key) {
            CHECK_MSG(e == BASE_OK && cJSON_GetObjectItem(v, cases[i].key), "case %zu: %s", i, err);
            cJSON_Delete(v);
        } else {
            CHECK_MSG(e == BASE_EPROTO, "case %zu parsed", i);
        }
    }
    char err[BASE_ERRBUF_SIZE] = "";
    cJSON *v = NULL;
    const char *cut = "{\"e\": [1, 2, ";
    CHECK_EQ(model_llm_json_from_text(cut, strlen(cut), &v, err), BASE_EPROTO);
    CHECK_MSG(strstr(err, "cut off"), "%s", err);
    /* Content parts, a legacy function_call without id, reasoning, cached
     * tokens clamped to the prompt. */
    const char *body =
        "{\"model\":\"m\",\"choices\":[{\"finish_reason\":\"length\",\"message\":{\"role\":"
        "\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\","
        "\"text\":\"b\"}],\"reasoning_content\":\"hmm\",\"function_call\":{\"name\":\"scroll\","
        "\"arguments\":\"\"}}}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,"
        "\"prompt_tokens_details\":{\"cached_tokens\":99}}}";
    model_llm_reply r;
    CHECK_OK(model_llm_parse_reply(body, strlen(body), &r, err));
    CHECK_STR(r.content, "a\nb");
    CHECK_STR(r.reasoning, "hmm");
    CHECK_EQ(r.truncated, 1);
    CHECK_EQ(r.n_calls, 1);
    char wid0[10];
    model_wire_id("call_0", wid0);
    CHECK_STR(r.calls[0].id, wid0);
    CHECK_EQ(r.calls[0].error, BASE_OK);
    CHECK_EQ(r.usage.cached, 10);
    model_llm_reply_fini(&r);
}

/* Every allocation of the reply parser failing in turn: a clean
 * BASE_ENOMEM (or success), never a crash or a leak (ASan build). */
static void out_of_memory(void)
{
    const char *body =
        "{\"model\":\"m\",\"choices\":[{\"finish_reason\":\"tool_calls\",\"message\":{\"role\":"
        "\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\","
        "\"text\":\"b\"}],\"reasoning\":\"r\",\"tool_calls\":[{\"id\":\"c1\",\"type\":"
        "\"function\",\"function\":{\"name\":\"scroll\",\"arguments\":\"{}\"}},{\"type\":"
        "\"function\",\"function\":{\"name\":\"done\",\"arguments\":{\"x\":1}}}]}}],"
        "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}";
    model_llm_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    base_alloc_fail_after(0);
    CHECK_OK(model_llm_parse_reply(body, strlen(body), &r, err));
    model_llm_reply_fini(&r);
    unsigned long n = base_alloc_fail_after(0);
    CHECK(n >= 6);
    for (unsigned long k = 1; k <= n; k++) {
        base_errclear(err);
        base_alloc_fail_after(k);
        base_err e = model_llm_parse_reply(body, strlen(body), &r, err);
        base_alloc_fail_after(0);
        CHECK_MSG(e == BASE_OK || e == BASE_ENOMEM, "allocation %lu: %s", k, err);
        if (e == BASE_OK)
            model_llm_reply_fini(&r);
        else
            CHECK_MSG(strstr(err, "out of memory"), "allocation %lu: %s", k, err);
    }
    /* The same for an answer read out of prose. */
    const char *text = "Plan:\n```json\n{\"done\": false, \"next_steps\": [\"a\", \"b\"]}\n```";
    cJSON *v = NULL;
    base_alloc_fail_after(0);
    CHECK_OK(model_llm_json_from_text(text, strlen(text), &v, err));
    cJSON_Delete(v);
    n = base_alloc_fail_after(0);
    CHECK(n >= 3);
    for (unsigned long k = 1; k <= n; k++) {
        base_errclear(err);
        v = NULL;
        base_alloc_fail_after(k);
        base_err e = model_llm_json_from_text(text, strlen(text), &v, err);
        base_alloc_fail_after(0);
        CHECK_MSG(e == BASE_OK || e == BASE_ENOMEM, "allocation %lu: %s", k, err);
        cJSON_Delete(v);
    }
}

static const check_case cases[] = {
    {"tool_round_trip", tool_round_trip},
    {"recorded_conversation", recorded_conversation},
    {"bad_tool_calls", bad_tool_calls},
    {"json_schema", json_schema},
    {"schema_fallback", schema_fallback},
    {"retry_429", retry_429},
    {"timeout_and_deadline", timeout_and_deadline},
    {"cancel", cancel},
    {"garbage", garbage},
    {"budget", budget},
    {"budget_wire", budget_wire},
    {"estimator", estimator},
    {"key_never_printed", key_never_printed},
    {"config", config},
    {"parsing", parsing},
    {"out_of_memory", out_of_memory},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
