/* model/chat_json.h: reading a chat-completions response body.
 *
 * model_chat_reply_parse reads an OpenAI-compatible chat-completions response
 * (the envelope) and hands back the assistant's text, or the endpoint's own
 * error message. Pure functions; any thread. The recovery of boxes from a
 * vision model's text is perception/model_json.h.
 */
#ifndef FOVEA_MODEL_CHAT_JSON_H
#define FOVEA_MODEL_CHAT_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

/* Largest response body parsed (bytes). */
#define MODEL_CHAT_BODY_MAX (4u << 20)

/* Reads a chat-completions response body. On success *content is the first
 * choice's message text (string content, or the text parts of an array
 * content joined), a new string the caller frees with base_free, and *cut
 * (may be NULL) is 1 when finish_reason was "length". When the body is an
 * error envelope ({"error": {"message": ...}}) the result is BASE_EREMOTE and
 * err holds the endpoint's message. Any thread. Errors: BASE_EINVAL,
 * BASE_ETOOBIG, BASE_EPROTO (not JSON, no choices, no text; the message
 * quotes the start of the body), BASE_EREMOTE, BASE_ENOMEM. Out-params are
 * untouched on failure. */
base_err model_chat_reply_parse(const char *body, size_t len, char **content, int *cut, char *err);

/* The text of a chat message's content: the string itself, or the "text" of
 * each part of an array content joined with newlines (image and other parts
 * skipped), at most max bytes. c borrowed; *out is the caller's (base_free),
 * NULL when there is no text. Any thread. Errors: BASE_EINVAL (out NULL),
 * BASE_ENOMEM (also past max). */
base_err model_chat_content_text(const cJSON *c, size_t max, char **out);

/* Copies the endpoint's error message out of an error envelope ({"error":
 * {"message": "..."}} or {"error": "..."} or {"message": "..."}) into out
 * (size n, NUL-terminated, control characters replaced). Returns 1 when one
 * was found, else 0 with out = "". Any thread. */
int model_chat_error_message(const char *body, size_t len, char *out, size_t n);

#endif
