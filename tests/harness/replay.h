/* tests/harness/replay.h: a REPLAY of recorded chat-completions responses.
 *
 * This is not a model. It is a loopback HTTP server (serve/httpd.h) that
 * speaks the OpenAI-compatible POST /v1/chat/completions protocol well
 * enough for a client to be tested against it: it checks the request's shape
 * as the real API does (a model, messages with roles and content, an
 * image_url part holding a data: URL of a JPEG or PNG) and answers 400 with
 * an OpenAI-style error envelope when the shape is wrong, optionally
 * requires a bearer key (401 otherwise, echoing the key it got, as real
 * endpoints do, so that clients can be tested for leaking it), and then
 * answers with the next queued reply: a recorded response body (files under
 * tests/fixtures/replay/), or model text it wraps in a chat.completion
 * envelope. A reply can also be a fault: a delay, a 429 with Retry-After, a
 * 500, garbage bytes, or a connection closed in the middle of the body.
 *
 * Multi-turn conversations with tools (replay_set_chat): text-only requests
 * are accepted, a reply can be an assistant message carrying tool_calls,
 * and the conversation is checked as the API checks it: every "tool"
 * message answers a tool_call_id of the assistant message before it, every
 * tool call is answered before the conversation goes on, a "tools" array
 * holds functions with names (400 otherwise, with the API's wording). The
 * server can refuse response_format with a 400 (replay_refuse_format), as
 * servers without structured outputs do, and a reply can require the
 * request to carry tools. Usage can be scripted, cached tokens included.
 *
 * Every request is recorded (model, prompt text, decoded image bytes, and in
 * chat mode the whole body) so tests can check what the client sent. Test thread for the API; the
 * handler runs on server threads and is thread-safe.
 */
#ifndef FOVEA_TESTS_REPLAY_H
#define FOVEA_TESTS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct replay replay;

/* One queued reply. Strings are copied by replay_push. */
typedef struct replay_reply {
    int status;                /* 0 = 200 */
    const char *content;       /* model text, wrapped in a chat.completion envelope */
    const char *body;          /* or the whole response body, sent verbatim */
    const char *finish_reason; /* for content; NULL = "stop" */
    const char *retry_after;   /* Retry-After header value, NULL = none */
    int delay_ms;              /* wait before answering */
    int garbage;               /* answer 200 with bytes that are not JSON */
    int close_mid_body;        /* promise a long body, send part of it, close */
    const char *match;         /* only for a request whose prompt contains this */
    int times;                 /* requests this reply answers: 0 = 1, -1 = all */
    /* Chat mode (replay_set_chat): */
    const char *tool_calls;    /* JSON array of OpenAI tool_calls for the assistant message
                                  (content then null unless given, finish_reason "tool_calls") */
    int require_tools;         /* 400 unless the request carries a non-empty "tools" array */
    long prompt_tokens;        /* usage; 0 = 800 */
    long completion_tokens;    /* 0 = content bytes / 4 */
    long cached_tokens;        /* usage.prompt_tokens_details.cached_tokens (sent when > 0) */
} replay_reply;

/* What the server received in one request (copies; replay_seen_fini). */
typedef struct replay_seen {
    int status;     /* what it answered */
    char *model;    /* "" when absent */
    char *prompt;   /* text parts of the user messages, joined by newlines */
    char *auth;     /* the Authorization header value, "" when absent */
    uint8_t *image; /* the first image's decoded bytes, NULL when none */
    size_t image_len;
    char *body;     /* chat mode: the request body as sent, NULL otherwise */
} replay_seen;

/* Starts a replay server on a random loopback port. Errors: those of
 * serve_httpd_start, BASE_ENOMEM. */
base_err replay_start(replay **out, char *err);
/* Stops the server and frees everything. NULL is a no-op. */
void replay_destroy(replay *r);
/* "http://127.0.0.1:PORT/v1" (the base URL clients append
 * /chat/completions to). Valid until destroy. */
const char *replay_base_url(const replay *r);

/* Queues a reply. Errors: BASE_ENOMEM. */
base_err replay_push(replay *r, const replay_reply *rep);
/* The tool_calls JSON of one OpenAI function call (id, name, arguments as a
 * JSON text), for replay_reply.tool_calls. The caller frees it with
 * cJSON_free; NULL on allocation failure. */
char *replay_tool_call(const char *id, const char *name, const char *args);
/* Queues a recorded response file (served verbatim as the body, status 200,
 * once, for a request whose prompt contains match when match is not NULL).
 * Errors: BASE_EIO (unreadable file), BASE_ENOMEM. */
base_err replay_push_file(replay *r, const char *path, const char *match, char *err);
/* Queues every *.json file of dir in name order. Returns how many (>= 0), or
 * -1 when the directory cannot be read. */
int replay_load_dir(replay *r, const char *dir, char *err);
/* Requires "Authorization: Bearer key" (NULL: no check). */
base_err replay_require_key(replay *r, const char *key);

/* A replay in chat mode that requires key, with fovea's model client in
 * this process and the children it starts pointed at it: sets
 * FOVEA_LLM_BASE_URL, FOVEA_LLM_API_KEY (key), FOVEA_LLM_MODEL (gpt-4o-mini)
 * and FOVEA_LLM_MAX_RETRIES (0), and unsets FOVEA_TOKEN_BUDGET. What the
 * tests of `fovea run "TASK"` and `fovea batch` start with. Errors: those
 * of replay_start, BASE_ENOMEM. */
base_err replay_start_chat(const char *key, replay **out, char *err);

/* Chat mode: text-only requests, tool messages and tool calls (see the
 * file comment). Off by default (the vision replay wants an image). */
void replay_set_chat(replay *r, int on);
/* Answers every request carrying response_format with 400 "Unsupported
 * parameter: 'response_format'" (without consuming a queued reply). */
void replay_refuse_format(replay *r, int on);

/* Every request is checked against the chat-template rules of
 * wire_check.h: a request that breaks one is answered 400 (as a template
 * that raises is) and, unless lax, replay_destroy reports it and aborts, so
 * the test fails. Lax (on): such requests are answered normally and only
 * counted, for tests that send malformed requests on purpose. */
void replay_wire_lax(replay *r, int on);
/* How many requests broke a rule since the last call (the count is then
 * reset), the first one's rule in first (n bytes, may be NULL). */
int replay_wire_violations(replay *r, char *first, size_t n);

/* A server that refuses a feature, answering as vLLM, llama.cpp's server
 * or Ollama do: every request carrying "tools" (REPLAY_REFUSE_TOOLS) or a
 * system message (REPLAY_REFUSE_SYSTEM) gets status and body (verbatim,
 * JSON) without consuming a queued reply. body NULL: off. Errors:
 * BASE_EINVAL, BASE_ENOMEM. */
#define REPLAY_REFUSE_TOOLS 0
#define REPLAY_REFUSE_SYSTEM 1
base_err replay_refuse(replay *r, int what, int status, const char *body);
/* Requests answered by replay_refuse so far. */
int replay_refused(replay *r);

/* What the server says about itself: the JSON body (verbatim) it answers
 * to GET /v1/models (REPLAY_DISC_VLLM: vLLM's max_model_len), GET /props
 * (REPLAY_DISC_LLAMA: llama.cpp's n_ctx) or POST /api/show
 * (REPLAY_DISC_OLLAMA); NULL (the default) answers 404. These requests are
 * not recorded with the model requests. Errors: BASE_EINVAL, BASE_ENOMEM. */
#define REPLAY_DISC_VLLM 0
#define REPLAY_DISC_LLAMA 1
#define REPLAY_DISC_OLLAMA 2
base_err replay_set_discovery(replay *r, int which, const char *body);
/* Discovery requests received so far. */
int replay_discovery_asked(replay *r);

/* Answers sent as a stream (Server-Sent Events): a request with "stream":
 * true gets its content and tool_calls in chunks the way OpenAI and vLLM
 * send them, the usage in a last chunk when stream_options.include_usage
 * (bodies queued verbatim are sent as they are). */
int replay_streamed(replay *r);

/* Requests received so far (valid or not). */
int replay_count(replay *r);
/* Replies still queued (those with times = -1 count once). */
int replay_pending(replay *r);
/* Copies request i (0-based) into *out. Errors: BASE_ENOTFOUND, BASE_ENOMEM. */
base_err replay_request(replay *r, int i, replay_seen *out);
void replay_seen_fini(replay_seen *s);

#endif
