/* tests/model/test_wire.c: the model client on the wire (issue 22).
 *
 * Streams: model/sse.c assembling chunks (tool-call deltas, the usage
 * chunk, an error event, a cut stream). Time: servers that say nothing,
 * stall, trickle or never end (tests/harness/slowhttp.h) must fail the call
 * within its limit with the cause named, retries included. Fallbacks:
 * replay servers (tests/harness/replay.h: REPLAYS, not models) that refuse
 * tools or the system role with the bodies vLLM, llama.cpp's server and
 * Ollama send, after which the client describes the tools in text and
 * reads the calls back out of the reply, or folds the system text into the
 * first user message, and remembers it. Every request goes through the
 * strict wire checker of both servers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/tool.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/json_alloc.h"
#include "check.h"
#include "harness.h"
#include "model/context.h"
#include "model/llm.h"
#include "model/normalize.h"
#include "model/sse.h"
#include "replay.h"
#include "slowhttp.h"

/* ---- streams ------------------------------------------------------------------------ */

static const char tool_stream[] =
    "data: {\"id\":\"c1\",\"model\":\"qwen\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
    "\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\r\n\r\n"
    ": keep-alive comment\n\n"
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me \"}}]}\n\n"
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"click.\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"chatcmpl-"
    "tool-9\",\"type\":\"function\",\"function\":{\"name\":\"click_at\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"{\\\"target\\\": \"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"\\\"Buy\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1500,\"completion_tokens\":30,"
    "\"total_tokens\":1530}}\n\n"
    "data: [DONE]\n\n";

static void sse_assemble(void)
{
    CHECK(model_sse_is_stream(tool_stream, strlen(tool_stream)));
    CHECK(!model_sse_is_stream("{\"choices\":[]}", 14));
    char *out = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(model_sse_assemble(tool_stream, strlen(tool_stream), &out, err) == BASE_OK, "%s", err);
    model_llm_reply r;
    CHECK_MSG(model_llm_parse_reply(out, strlen(out), &r, err) == BASE_OK, "%s\n%s", err, out);
    CHECK_STR(r.content, "Let me click.");
    CHECK_EQ(r.n_calls, 1);
    CHECK_STR(r.calls[0].id, "chatcmpl-tool-9");
    CHECK_STR(r.calls[0].name, "click_at");
    CHECK_STR(cJSON_GetObjectItem(r.calls[0].args, "target")->valuestring, "Buy");
    CHECK_STR(r.finish_reason, "tool_calls");
    CHECK_EQ(r.usage.prompt, 1500);
    CHECK_EQ(r.usage.completion, 30);
    CHECK_STR(r.model, "qwen");
    model_llm_reply_fini(&r);
    base_free(out);
    /* vLLM's mid-stream error event. */
    static const char bad[] =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n"
        "data: {\"object\":\"error\",\"message\":\"The engine is dead\",\"type\":"
        "\"InternalServerError\",\"code\":500}\n\n";
    base_errclear(err);
    CHECK_EQ(model_sse_assemble(bad, strlen(bad), &out, err), BASE_EREMOTE);
    CHECK_MSG(strstr(err, "The engine is dead"), "%s", err);
    /* A stream cut before its end is not an answer. */
    static const char cut[] = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n";
    base_errclear(err);
    CHECK_EQ(model_sse_assemble(cut, strlen(cut), &out, err), BASE_EPROTO);
    CHECK_MSG(strstr(err, "before [DONE]"), "%s", err);
    base_errclear(err);
    CHECK_EQ(model_sse_assemble("data: {nope\n\n", 13, &out, err), BASE_EPROTO);
    static const char far[] = "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":9999}]}}]}\n\n";
    base_errclear(err);
    CHECK_EQ(model_sse_assemble(far, strlen(far), &out, err), BASE_ETOOBIG);
}

/* ---- time --------------------------------------------------------------------------- */

/* A client on url with the byte timers at 1 s and a call limit of limit_ms. */
static model_llm *client(const char *url, int retries, int limit_ms, char *err)
{
    model_llm_config c;
    model_llm_config_init(&c);
    c.base_url = url;
    c.model = "slow-model";
    c.max_retries = retries;
    c.timeout_ms = 60000;
    c.first_byte_ms = 1000;
    c.stall_ms = 1000;
    c.call_limit_ms = limit_ms;
    c.context_tokens = -1; /* the slow server answers nothing else */
    model_llm *l = NULL;
    if (model_llm_create(&c, &l, err) != BASE_OK)
        return NULL;
    return l;
}

/* One call to a misbehaving server: its error and how long it took. */
static base_err slow_call(slow_mode mode, int interval_ms, int retries, int limit_ms, char *err,
                          double *ms, int *requests)
{
    slow_server *s = NULL;
    if (slow_start(mode, interval_ms, &s, err) != BASE_OK)
        return BASE_EIO;
    model_llm *l = client(slow_base_url(s), retries, limit_ms, err);
    cJSON *msgs = cJSON_CreateArray();
    model_llm_add_message(msgs, "system", "You answer.");
    model_llm_add_message(msgs, "user", "Say something.");
    model_llm_request q;
    memset(&q, 0, sizeof q);
    q.messages = msgs;
    q.temperature = -1;
    model_llm_reply r;
    double t0 = base_monotime_ms();
    base_err e = l ? model_llm_chat(l, &q, &r, err) : BASE_EINVAL;
    *ms = base_monotime_ms() - t0;
    if (!e)
        model_llm_reply_fini(&r);
    model_llm_destroy(l);
    *requests = slow_requests(s);
    slow_destroy(s);
    cJSON_Delete(msgs);
    return e;
}

static void silent_server(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    double ms = 0;
    int n = 0;
    CHECK_EQ(slow_call(SLOW_SILENT, 0, 0, 20000, err, &ms, &n), BASE_ETIMEDOUT);
    CHECK_MSG(strstr(err, "no first byte in 1 s"), "%s", err);
    CHECK_EQ(n, 1);
    CHECK_MSG(ms < 20000, "%.0f ms", ms);
}

/* Retries count against the call's limit: a server that stalls every
 * attempt fails the call by the limit, however many retries are allowed. */
static void stalled_server(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    double ms = 0;
    int n = 0;
    CHECK_EQ(slow_call(SLOW_STALL, 0, 10, 3000, err, &ms, &n), BASE_ETIMEDOUT);
    CHECK_MSG(strstr(err, "no byte for 1 s"), "%s", err);
    CHECK_MSG(n >= 2, "%d attempts", n);
    CHECK_MSG(ms < 3000 + 1000, "%.0f ms for a 3 s limit", ms);
}

static void trickling_server(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    double ms = 0;
    int n = 0;
    /* One byte every 300 ms never trips the 1 s stall timer; the call's
     * limit ends it. */
    CHECK_EQ(slow_call(SLOW_TRICKLE, 300, 3, 2500, err, &ms, &n), BASE_ETIMEDOUT);
    CHECK_MSG(strstr(err, "time limit ran out"), "%s", err);
    CHECK_EQ(n, 1);
    CHECK_MSG(ms < 2500 + 1000, "%.0f ms for a 2.5 s limit", ms);
}

static void endless_server(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    double ms = 0;
    int n = 0;
    CHECK_EQ(slow_call(SLOW_ENDLESS, 20, 3, 2000, err, &ms, &n), BASE_ETIMEDOUT);
    CHECK_MSG(strstr(err, "time limit ran out"), "%s", err);
    CHECK_MSG(ms < 2000 + 1000, "%.0f ms for a 2 s limit", ms);
}

/* A trickle that ends in time is an answer. */
static void slow_but_done(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    double ms = 0;
    int n = 0;
    CHECK_MSG(slow_call(SLOW_TRICKLE, 1, 0, 20000, err, &ms, &n) == BASE_OK, "%s", err);
}

static void defaults_bounded(void)
{
    model_llm_config c;
    model_llm_config_init(&c);
    CHECK(c.call_limit_ms > 0 && c.call_limit_ms <= 300000);
    CHECK(c.first_byte_ms > 0 && c.stall_ms > 0 && c.stream == 1);
    setenv("FOVEA_LLM_BASE_URL", "http://127.0.0.1:1/v1", 1);
    setenv("FOVEA_LLM_STALL_S", "7", 1);
    setenv("FOVEA_LLM_CALL_LIMIT_S", "0", 1);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(model_llm_config_from_env(&c, err), BASE_EINVAL); /* the limit cannot be off */
    setenv("FOVEA_LLM_CALL_LIMIT_S", "90", 1);
    base_errclear(err);
    CHECK_MSG(model_llm_config_from_env(&c, err) == BASE_OK, "%s", err);
    CHECK_EQ(c.stall_ms, 7000);
    CHECK_EQ(c.call_limit_ms, 90000);
    unsetenv("FOVEA_LLM_STALL_S");
    unsetenv("FOVEA_LLM_CALL_LIMIT_S");
    unsetenv("FOVEA_LLM_BASE_URL");
}

/* ---- fallbacks ---------------------------------------------------------------------- */

typedef struct server_style {
    const char *name;
    int status;
    const char *body;
} server_style;

/* How each server says it has no tool calling (their bodies, shapes as
 * they send them). */
static const server_style no_tools[] = {
    {"vLLM", 400,
     "{\"object\":\"error\",\"message\":\"\\\"auto\\\" tool choice requires "
     "--enable-auto-tool-choice and --tool-call-parser to be set\",\"type\":\"BadRequestError\","
     "\"param\":null,\"code\":400}"},
    {"llama.cpp", 500,
     "{\"error\":{\"code\":500,\"message\":\"tools param requires --jinja flag\",\"type\":"
     "\"server_error\"}}"},
    {"Ollama", 400, "{\"error\":\"registry.ollama.ai/library/gemma2:2b does not support tools\"}"},
};

static const server_style no_system[] = {
    {"vLLM", 400,
     "{\"object\":\"error\",\"message\":\"System role not supported\",\"type\":"
     "\"BadRequestError\",\"param\":null,\"code\":400}"},
    {"llama.cpp", 500,
     "{\"error\":{\"code\":500,\"message\":\"System role not supported\",\"type\":"
     "\"server_error\"}}"},
};

static model_llm *replay_client(replay *r, char *err)
{
    model_llm_config c;
    model_llm_config_init(&c);
    c.base_url = replay_base_url(r);
    c.model = "local-model";
    c.max_retries = 1;
    c.timeout_ms = 5000;
    model_llm *l = NULL;
    return model_llm_create(&c, &l, err) == BASE_OK ? l : NULL;
}

static void tools_refused(void)
{
    for (size_t s = 0; s < sizeof no_tools / sizeof no_tools[0]; s++) {
        replay *r = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK(replay_start(&r, err) == BASE_OK);
        replay_set_chat(r, 1);
        CHECK(replay_refuse(r, REPLAY_REFUSE_TOOLS, no_tools[s].status, no_tools[s].body) ==
              BASE_OK);
        /* The model writes its call as text, as prompted. */
        replay_reply a = {.content = "I will press it.\n```json\n{\"tool\": \"click_at\", "
                                     "\"arguments\": {\"target\": \"Buy\"}}\n```"};
        replay_reply b = {.content = "The order is placed."};
        replay_push(r, &a);
        replay_push(r, &b);
        model_llm *l = replay_client(r, err);
        CHECK(l);
        cJSON *tools = tool_functions_json(0);
        cJSON *msgs = cJSON_CreateArray();
        model_llm_add_message(msgs, "system", "You operate a browser.");
        model_llm_add_message(msgs, "user", "Buy it.");
        model_llm_request q;
        memset(&q, 0, sizeof q);
        q.messages = msgs;
        q.tools = tools;
        q.temperature = -1;
        q.check_call = tool_check_call;
        model_llm_reply rep;
        CHECK_MSG(model_llm_chat(l, &q, &rep, err) == BASE_OK, "%s: %s", no_tools[s].name, err);
        CHECK_EQ(model_llm_wire_fallbacks(l), MODEL_WIRE_TOOLS_IN_TEXT);
        CHECK_EQ(rep.n_calls, 1);
        CHECK_EQ(rep.n_bad_calls, 0);
        CHECK_STR(rep.calls[0].name, "click_at");
        CHECK_STR(cJSON_GetObjectItem(rep.calls[0].args, "target")->valuestring, "Buy");
        CHECK_STR(rep.content, "I will press it.");
        model_llm_add_reply(msgs, &rep);
        model_llm_add_tool_result(msgs, rep.calls[0].id, "clicked Buy");
        model_llm_reply_fini(&rep);
        int refused = replay_refused(r);
        CHECK(refused >= 1);
        /* Remembered: the next call goes straight to the text form, with
         * the call and its result written as text. */
        CHECK_MSG(model_llm_chat(l, &q, &rep, err) == BASE_OK, "%s", err);
        CHECK_STR(rep.content, "The order is placed.");
        model_llm_reply_fini(&rep);
        CHECK_EQ(replay_refused(r), refused);
        replay_seen seen;
        CHECK(replay_request(r, replay_count(r) - 1, &seen) == BASE_OK);
        CHECK(!strstr(seen.body, "\"tools\"") && !strstr(seen.body, "\"role\":\"tool\""));
        CHECK(strstr(seen.body, "You can use these tools") &&
              strstr(seen.body, "Result of the tool click_at: clicked Buy"));
        replay_seen_fini(&seen);
        cJSON_Delete(msgs);
        cJSON_Delete(tools);
        model_llm_destroy(l);
        replay_destroy(r);
    }
}

static void system_refused(void)
{
    for (size_t s = 0; s < sizeof no_system / sizeof no_system[0]; s++) {
        replay *r = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK(replay_start(&r, err) == BASE_OK);
        replay_set_chat(r, 1);
        CHECK(replay_refuse(r, REPLAY_REFUSE_SYSTEM, no_system[s].status, no_system[s].body) ==
              BASE_OK);
        replay_reply a = {.content = "{\"done\": true}", .times = 2};
        replay_push(r, &a);
        model_llm *l = replay_client(r, err);
        cJSON *msgs = cJSON_CreateArray();
        model_llm_add_message(msgs, "system", "You plan.");
        model_llm_add_message(msgs, "user", "Is it done?");
        model_llm_request q;
        memset(&q, 0, sizeof q);
        q.messages = msgs;
        q.temperature = -1;
        model_llm_reply rep;
        CHECK_MSG(model_llm_chat(l, &q, &rep, err) == BASE_OK, "%s: %s", no_system[s].name, err);
        CHECK_EQ(model_llm_wire_fallbacks(l), MODEL_WIRE_SYSTEM_IN_USER);
        model_llm_reply_fini(&rep);
        replay_seen seen;
        CHECK(replay_request(r, replay_count(r) - 1, &seen) == BASE_OK);
        CHECK_MSG(strstr(seen.body, "\"messages\":[{\"role\":\"user\",\"content\":\"You plan.\\n\\nIs "
                                    "it done?\"}]"),
                  "%s", seen.body);
        replay_seen_fini(&seen);
        int refused = replay_refused(r);
        CHECK_MSG(model_llm_chat(l, &q, &rep, err) == BASE_OK, "%s", err);
        model_llm_reply_fini(&rep);
        CHECK_EQ(replay_refused(r), refused);
        cJSON_Delete(msgs);
        model_llm_destroy(l);
        replay_destroy(r);
    }
}

/* A 400 that names neither is the caller's, reported as it is. */
static void other_400_reported(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK(replay_start(&r, err) == BASE_OK);
    replay_set_chat(r, 1);
    replay_reply a = {.status = 400,
                      .body = "{\"object\":\"error\",\"message\":\"This model's maximum context "
                              "length is 4096 tokens\",\"type\":\"BadRequestError\",\"code\":400}"};
    replay_push(r, &a);
    model_llm *l = replay_client(r, err);
    cJSON *msgs = cJSON_CreateArray();
    model_llm_add_message(msgs, "user", "hi");
    model_llm_request q;
    memset(&q, 0, sizeof q);
    q.messages = msgs;
    q.temperature = -1;
    model_llm_reply rep;
    CHECK_EQ(model_llm_chat(l, &q, &rep, err), BASE_EREMOTE);
    CHECK_MSG(strstr(err, "maximum context length is 4096"), "%s", err);
    CHECK_EQ(model_llm_wire_fallbacks(l), 0);
    CHECK_EQ(replay_count(r), 1);
    cJSON_Delete(msgs);
    model_llm_destroy(l);
    replay_destroy(r);
}

/* ---- context window ----------------------------------------------------------------- */

static const struct {
    const char *name;
    int which;
    const char *body;
    long ctx;
    const char *advice;
} windows[] = {
    {"vLLM", REPLAY_DISC_VLLM,
     "{\"object\":\"list\",\"data\":[{\"id\":\"other\",\"object\":\"model\",\"max_model_len\":"
     "32768},{\"id\":\"local-model\",\"object\":\"model\",\"owned_by\":\"vllm\",\"max_model_len\":"
     "3000}]}",
     3000, "--max-model-len"},
    {"llama.cpp", REPLAY_DISC_LLAMA,
     "{\"default_generation_settings\":{\"n_ctx\":3000,\"params\":{\"temperature\":0.8}},"
     "\"total_slots\":1,\"chat_template\":\"...\"}",
     3000, "llama-server -c"},
    {"Ollama", REPLAY_DISC_OLLAMA,
     "{\"modelfile\":\"FROM x\",\"parameters\":\"stop \\\"<|im_end|>\\\"\\nnum_ctx    3000\","
     "\"model_info\":{\"general.architecture\":\"qwen2\",\"qwen2.context_length\":32768}}",
     3000, "num_ctx"},
};

/* A request is fitted into the window the server states (max_tokens cut to
 * the room left), and one that cannot fit is refused before it is sent,
 * saying how to make room. */
static void context_window(void)
{
    for (size_t s = 0; s < sizeof windows / sizeof windows[0]; s++) {
        replay *r = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK(replay_start(&r, err) == BASE_OK);
        replay_set_chat(r, 1);
        CHECK(replay_set_discovery(r, windows[s].which, windows[s].body) == BASE_OK);
        replay_reply a = {.content = "fine"};
        replay_push(r, &a);
        model_llm *l = replay_client(r, err);
        cJSON *msgs = cJSON_CreateArray();
        model_llm_add_message(msgs, "user", "A short question.");
        model_llm_request q;
        memset(&q, 0, sizeof q);
        q.messages = msgs;
        q.temperature = -1;
        model_llm_reply rep;
        CHECK_MSG(model_llm_chat(l, &q, &rep, err) == BASE_OK, "%s: %s", windows[s].name, err);
        long est = rep.estimate;
        model_llm_reply_fini(&rep);
        cJSON *b = NULL;
        replay_seen seen;
        CHECK(replay_request(r, 0, &seen) == BASE_OK);
        b = cJSON_Parse(seen.body);
        replay_seen_fini(&seen);
        CHECK_EQ((long)cJSON_GetObjectItem(b, "max_tokens")->valuedouble, windows[s].ctx - est);
        cJSON_Delete(b);
        int asked = replay_discovery_asked(r);
        CHECK(asked >= 1 && asked <= 3);
        /* A prompt past the window: refused, nothing sent, not asked again. */
        char big[16001];
        memset(big, 'q', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        model_llm_add_message(msgs, "assistant", "ok");
        model_llm_add_message(msgs, "user", big);
        int before = replay_count(r);
        base_errclear(err);
        CHECK_EQ(model_llm_chat(l, &q, &rep, err), BASE_ETOOBIG);
        CHECK_MSG(strstr(err, "context window is 3000") && strstr(err, windows[s].advice) &&
                      strstr(err, "nothing was sent"),
                  "%s: %s", windows[s].name, err);
        CHECK_EQ(replay_count(r), before);
        CHECK_EQ(replay_discovery_asked(r), asked);
        cJSON_Delete(msgs);
        model_llm_destroy(l);
        replay_destroy(r);
    }
    /* Parsers: nothing said is no window. */
    CHECK_EQ(model_context_parse(MODEL_CONTEXT_VLLM, "{\"data\":[]}", 11, "m"), 0);
    CHECK_EQ(model_context_parse(MODEL_CONTEXT_LLAMA, "{\"n_ctx\":-5}", 12, "m"), 0);
    CHECK_EQ(model_context_parse(MODEL_CONTEXT_OLLAMA, "{\"model_info\":{}}", 17, "m"),
             MODEL_CONTEXT_OLLAMA_DEFAULT);
    CHECK_EQ(model_context_parse(MODEL_CONTEXT_OLLAMA, "not json", 8, "m"), 0);
}

static const check_case cases[] = {
    {"context_window", context_window},
    {"sse_assemble", sse_assemble},
    {"silent_server", silent_server},
    {"stalled_server", stalled_server},
    {"trickling_server", trickling_server},
    {"endless_server", endless_server},
    {"slow_but_done", slow_but_done},
    {"defaults_bounded", defaults_bounded},
    {"tools_refused", tools_refused},
    {"system_refused", system_refused},
    {"other_400_reported", other_400_reported},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    base_json_alloc_install();
    return check_main(argc, argv, cases);
}
