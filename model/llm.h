/* model/llm.h: the agent's model client — chat completions on any
 * OpenAI-compatible endpoint (OpenAI, Gemini's compatible endpoint, vLLM,
 * llama.cpp's server, Ollama), with function calling and JSON-schema
 * answers, usage and latency per call, and a hard token budget.
 *
 * The conversation is a cJSON array of OpenAI-format messages that the
 * caller owns ({"role": "system"|"user"|"assistant"|"tool", ...}); one call
 * sends it with the tools (tool_functions_json() of agent/session/tool.h) and an
 * optional JSON Schema for the answer, and returns an model_llm_reply: the
 * text, the parsed JSON answer, the tool calls (id, name, arguments parsed
 * and checked against the tool's schema: an unknown tool or bad arguments
 * is an error on that call, worded for the model), the assistant message to
 * append to the conversation, and the usage (prompt, completion, cached).
 *
 * JSON-schema answers use response_format {"type": "json_schema"} where the
 * server takes it. A server that refuses the parameter (a 400 naming it) is
 * remembered for the client's lifetime and asked again at once without it,
 * with the schema written into the system message instead; the JSON is then
 * read out of the text loosely (code fences, prose around it), and checked
 * against the schema either way.
 *
 * Transport (retries, Retry-After, deadline, cancel, key scrubbing) is the
 * vision provider's, model/endpoint.h. A stop signal (Ctrl-C,
 * base/interrupt.h) cancels a call in flight.
 *
 * A client belongs to one thread (the agent's); model_llm_cancel may be
 * called from any thread.
 */
#ifndef FOVEA_MODEL_LLM_H
#define FOVEA_MODEL_LLM_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "model/budget.h"
#include "base/err.h"

/* Who is asking: each role may use its own model (seed 002 §4.1). */
typedef enum model_llm_role {
    MODEL_LLM_WORKER = 0,
    MODEL_LLM_PLANNER,
    MODEL_LLM_ORCHESTRATOR,
    MODEL_LLM_ROLE_COUNT
} model_llm_role;

/* The name of r: "worker", "planner", "orchestrator" ("?" when out of
 * range). A static string. Pure; any thread. */
const char *model_llm_role_name(model_llm_role r);

typedef struct model_llm_config {
    const char *base_url;           /* http(s)://host/v1 (…/chat/completions is appended) */
    const char *api_key;            /* NULL = no Authorization header (local servers) */
    const char *model;              /* the worker's model, and every role's default */
    const char *planner_model;      /* NULL = model */
    const char *orchestrator_model; /* NULL = model */
    int timeout_ms;                 /* per attempt; default 120000 */
    int max_retries;                /* default 3 */
    int first_byte_ms;              /* no byte of the answer by then: the attempt fails
                                       ("no first byte in N s"); default 90000, 0 = off */
    int stall_ms;                   /* the answer stops for this long: the attempt fails
                                       ("no byte for N s"); default 30000, 0 = off */
    int call_limit_ms;              /* a call without its own deadline (the request's
                                       deadline_ms) ends by then, retries and waits
                                       included; default 240000 */
    int stream;                     /* 1 (default): ask for a streamed answer (SSE) with the
                                       usage in its last chunk; 0: one JSON body */
    long context_tokens;            /* the server's context window: 0 (default) = ask the
                                       server before the first call (model/context.h), > 0 =
                                       this many tokens, -1 = unknown, never asked */
} model_llm_config;

/* Sets c to the defaults: no endpoint, model "gpt-4o-mini", 120 s per
 * attempt, 3 retries, first byte 90 s, stall 30 s, 240 s per call, streamed. c is the caller's. Any thread; cannot fail. */
void model_llm_config_init(model_llm_config *c);

/* Reads FOVEA_LLM_BASE_URL, FOVEA_LLM_API_KEY, FOVEA_LLM_MODEL (each falling
 * back to OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL),
 * FOVEA_PLANNER_MODEL, FOVEA_ORCHESTRATOR_MODEL, FOVEA_LLM_TIMEOUT_MS,
 * FOVEA_LLM_MAX_RETRIES, FOVEA_LLM_FIRST_BYTE_S, FOVEA_LLM_STALL_S,
 * FOVEA_LLM_CALL_LIMIT_S (seconds; 0 turns the first two off),
 * FOVEA_LLM_STREAM (0 or 1) and FOVEA_LLM_CONTEXT (tokens; -1 = never ask)
 * into c. c's strings point into the environment (valid
 * until it changes). Any thread, while nobody changes the environment.
 * Errors: BASE_ENOTFOUND (no base URL, naming the variables), BASE_EINVAL (a
 * number that is not one); c untouched then. */
base_err model_llm_config_from_env(model_llm_config *c, char *err);

typedef struct model_llm model_llm;

/* A client for c's endpoint. Strings copied; *out is the caller's
 * (model_llm_destroy). Any thread. Errors: BASE_EINVAL (URL not http(s), no
 * model, bad limits, a key with a line break), BASE_EIO, BASE_ENOMEM. */
base_err model_llm_create(const model_llm_config *c, model_llm **out, char *err);

/* Frees l (wiping the key). NULL: no-op. The owner's thread. */
void model_llm_destroy(model_llm *l);

/* Cancels (on = 1) the call in flight and every later one until called with
 * on = 0. Any thread. Errors: none. */
void model_llm_cancel(model_llm *l, int on);

/* The model role r uses. Borrowed (the client's, valid until
 * model_llm_destroy). On the client's thread; cannot fail. */
const char *model_llm_model(const model_llm *l, model_llm_role r);

/* 1 once the endpoint refused response_format (answers then come as JSON
 * in text), else 0. On the client's thread. */
int model_llm_schema_fallback(const model_llm *l);

/* The wire fallbacks (MODEL_WIRE_SYSTEM_IN_USER, MODEL_WIRE_TOOLS_IN_TEXT of
 * model/normalize.h) the endpoint asked for so far: a 400 (or 5xx) whose
 * message says it has no tool calling or no system role turns one on for
 * the client's lifetime and the request is sent again at once. On the
 * client's thread. */
unsigned model_llm_wire_fallbacks(const model_llm *l);

/* One request. Everything is borrowed for the call. */
typedef struct model_llm_request {
    model_llm_role role;
    const char *model;       /* NULL = the role's model */
    const cJSON *messages;   /* the conversation (array, at least one message) */
    const cJSON *tools;      /* NULL = none; else an OpenAI "tools" array */
    const char *tool_choice; /* NULL = "auto" when tools are given; "required", "none" */
    /* Checks a call the model made to one of `tools` (params: the
     * "parameters" that were sent for it; args parsed, may be NULL for {}):
     * BASE_OK, or an error with words for the model in why
     * (BASE_ERRBUF_SIZE). NULL = against params (base/json_schema.h). The
     * tool layer passes tool_check_call. Runs on the calling thread. */
    base_err (*check_call)(const char *name, const cJSON *params, const cJSON *args, char *why,
                           void *user);
    void *check_user;
    const cJSON *schema;     /* JSON Schema (object) the answer must follow; NULL = free text */
    const char *schema_name; /* its name for response_format ([A-Za-z0-9_-]); NULL = "answer" */
    int max_tokens;          /* 0 = what the budget has left after the prompt (the server's
                                default without a limited budget); else at most that */
    double temperature;      /* < 0 = the server's default */
    double deadline_ms;      /* absolute, base_monotime_ms() (the step's); 0 = the client's
                                call_limit_ms from now */
    model_budget *budget;    /* NULL = unlimited; checked before, charged after (model/budget.h) */
} model_llm_request;

/* One tool call the model asked for. */
typedef struct model_llm_call {
    char *id;        /* the model's tool_call id (a tool result must name it) */
    char *name;      /* the function name */
    char *arguments; /* the arguments as the model wrote them (JSON text) */
    cJSON *args;     /* parsed and checked, NULL when error is set */
    base_err error;  /* BASE_OK, or why the call cannot run: */
    char why[256];   /* "unknown tool 'clik_at' (known: click_at, ...)", "click_at: 'target'
                        is required", "arguments are not valid JSON: ..." — for the model */
} model_llm_call;

typedef struct model_llm_reply {
    char *content;      /* the assistant's text, NULL when none */
    char *reasoning;    /* reasoning_content / reasoning when the server sends it, or NULL */
    cJSON *json;        /* the answer to request.schema, parsed and checked; NULL otherwise */
    int json_in_text;   /* 1 when json was read out of free text (fallback or a lax server) */
    model_llm_call *calls;
    int n_calls;
    int n_bad_calls;    /* calls with error set */
    char finish_reason[32];
    int truncated;      /* finish_reason "length": the answer was cut off */
    cJSON *message;     /* the assistant message to append to the conversation (owned) */
    char model[128];    /* the model that answered (as the server names it) */
    model_budget_usage usage; /* reported by the server (estimated when it sent none) */
    long estimate;      /* the request's estimated prompt tokens (model/budget.h) */
    /* What was sent, for the prompt cache (issue 22): the prompt's tokens by
     * model/tokens.h alone (no learned ratio), its bytes as a cache meets
     * them (the tools' JSON, then the messages', as sent), and how many of
     * those bytes repeat the same role's previous request from its start
     * (-1: the role's first request, or unknown). */
    long sent_tokens;
    long prompt_bytes;
    long prefix_bytes;
    double ms;          /* wall time of the call (all attempts and waits) */
    double server_ms;   /* time inside HTTP transfers: the server's and the network's */
    double wait_ms;     /* backoff between attempts (Retry-After, 5xx) */
    int attempts;       /* HTTP requests sent (retries and the schema fallback count) */
} model_llm_reply;

/* Frees what r holds and zeroes it; r itself stays the caller's. NULL:
 * no-op. The thread that owns r. */
void model_llm_reply_fini(model_llm_reply *r);

/* One chat-completions call (see the file comment). The budget, when given,
 * is checked before any request with the request's estimated tokens, and
 * charged with the usage after. Tool calls are checked against the tools sent
 * (an unknown name, arguments that are not a JSON object or that fail the
 * tool's schema set that call's error; the call itself still succeeds so that
 * the agent can tell the model). *out is the caller's (model_llm_reply_fini),
 * filled on BASE_OK only. On the client's thread. Errors (one line, scrubbed
 * of the key): BASE_ETOOBIG "cost_cap_exceeded: ..." (nothing was sent),
 * BASE_EINVAL (bad request fields), the transport's (BASE_EREMOTE,
 * BASE_ETIMEDOUT, BASE_EIO, BASE_ECANCELED), BASE_EPROTO (a body that is not
 * a chat completion, a truncated body, a JSON answer that is missing, invalid
 * or fails the schema; the message quotes the model), BASE_ENOMEM. */
base_err model_llm_chat(model_llm *l, const model_llm_request *req, model_llm_reply *out,
                        char *err);

/* ---- messages ------------------------------------------------------------------- */

/* Appends {"role": role, "content": text} to messages. text copied. Errors:
 * BASE_EINVAL, BASE_ENOMEM. Any thread. */
base_err model_llm_add_message(cJSON *messages, const char *role, const char *text);

/* Appends a tool result {"role": "tool", "tool_call_id": id, "content": text}
 * (text: the tool's outcome, or an model_llm_call's why). Errors:
 * BASE_EINVAL, BASE_ENOMEM. Any thread. */
base_err model_llm_add_tool_result(cJSON *messages, const char *id, const char *text);

/* Appends a copy of the reply's assistant message (with its tool calls) to
 * messages. Errors: BASE_EINVAL, BASE_ENOMEM. Any thread. */
base_err model_llm_add_reply(cJSON *messages, const model_llm_reply *r);

/* ---- parsing (pure; tests/fuzz/fuzz_llm_reply.c) ------------------------------------ */

/* Largest response body or model text parsed (bytes). */
#define MODEL_LLM_BODY_MAX (8u << 20)

/* Reads a chat-completions response body into out: content, reasoning, tool
 * calls (ids, names, raw arguments; args parsed when they are a JSON object,
 * else error set), finish_reason, usage (prompt, completion, cached from
 * prompt_tokens_details.cached_tokens) and the assistant message. Nothing is
 * checked against tools or schemas here. body borrowed; *out filled on
 * BASE_OK only. Any thread. Errors: BASE_EINVAL, BASE_ETOOBIG, BASE_EREMOTE
 * (an error envelope: the server's message), BASE_EPROTO (not JSON or
 * truncated, quoting the end; no choices; no message), BASE_ENOMEM. */
base_err model_llm_parse_reply(const char *body, size_t len, model_llm_reply *out, char *err);

/* The first JSON object in a model's text: the whole text, else inside ```
 * fences, else the first balanced {...} that parses. *out is the caller's
 * (cJSON_Delete), set on BASE_OK only. Any thread. Errors: BASE_EINVAL,
 * BASE_ETOOBIG, BASE_EPROTO ("no JSON object in the answer (starts with
 * ...)", "the JSON answer is cut off"), BASE_ENOMEM. */
base_err model_llm_json_from_text(const char *text, size_t len, cJSON **out, char *err);

#endif
