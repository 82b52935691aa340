/* model/sse.h: a streamed chat completion (Server-Sent Events, the
 * `stream: true` answer of OpenAI, vLLM, llama.cpp's server and Ollama)
 * assembled back into the one chat.completion body the reply parser
 * reads.
 *
 * The stream is `data: {chunk}` events separated by blank lines, ending
 * with `data: [DONE]`; each chunk carries a delta of the first choice
 * (content, reasoning_content or reasoning, tool_calls by index with the
 * id and name in the first delta and the arguments in pieces), the
 * finish_reason in the last one, and, with stream_options.include_usage,
 * the usage in a final chunk without choices. A server that fails
 * mid-stream sends an error object as an event.
 *
 * Pure; any thread. Fuzzed (tests/fuzz/fuzz_sse.c).
 */
#ifndef FOVEA_MODEL_SSE_H
#define FOVEA_MODEL_SSE_H

#include <stddef.h>

#include "base/err.h"

/* 1 when body looks like an event stream (its first non-blank line starts
 * with "data:", "event:", "id:" or ":"), else 0. Pure. */
int model_sse_is_stream(const char *body, size_t len);

/* Assembles the stream body[0..len) into a chat.completion JSON text (*out,
 * base_free) with the first choice's message (content, reasoning_content,
 * tool_calls with their arguments joined), finish_reason and usage. Errors:
 * BASE_EREMOTE (an error event; err has the server's message), BASE_EPROTO
 * (a chunk that is not JSON, no chunk at all, or the stream ended before
 * [DONE] and without a finish_reason: err says which), BASE_ETOOBIG (more
 * than 64 tool calls, or past MODEL_CHAT_BODY_MAX), BASE_ENOMEM. *out
 * untouched on failure. */
base_err model_sse_assemble(const char *body, size_t len, char **out, char *err);

#endif
