/* model/tokens.h: one token estimator for everything the agent sends a model.
 *
 * The agent needs a token count before a call (the budget check, the
 * eviction's measurements) and no tokenizer ships with fovea, so this is an
 * estimate, the same everywhere (the LLM client's budget and the memory's
 * bench use these functions):
 *   - text: ASCII bytes at 4 per token (the usual figure for English and
 *     JSON with BPE vocabularies such as cl100k/o200k), rounded up per
 *     string, plus one token per non-ASCII code point (CJK and accented
 *     letters cost about one token each: an upper estimate);
 *   - an image part: OpenAI's published tile rule for detail "high" (scale
 *     into 2048x2048, then the short side to 768, 170 tokens per 512-pixel
 *     tile plus 85), 85 for detail "low"; the size is read from a PNG or
 *     JPEG data URL's header, or assumed 1280x800 when it cannot be read;
 *   - a message: 4 tokens of framing, plus its role, content (string or
 *     parts), tool calls (name, arguments and 8 of framing each) and
 *     tool_call_id.
 * Real counts come from the server's usage figures; this estimate is for
 * decisions made before a call. All functions are pure and thread-safe.
 */
#ifndef FOVEA_MODEL_TOKENS_H
#define FOVEA_MODEL_TOKENS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Tokens of an image whose size is unknown: a 1280x800 screenshot, high detail. */
#define MODEL_TOKENS_IMAGE_DEFAULT 1105

/* Estimated tokens of n bytes of UTF-8 text (NULL: 0). Pure; any thread. */
size_t model_tokens_text(const char *s, size_t n);

/* Estimated tokens of a w x h image at detail "high" (w or h <= 0:
 * MODEL_TOKENS_IMAGE_DEFAULT). Pure; any thread. */
size_t model_tokens_image(int w, int h);

/* The pixel size of a "data:image/png;base64,..." or JPEG data URL from its
 * header bytes; 0 when it cannot be read (then *w, *h untouched). Pure, no
 * allocation. */
int model_tokens_data_url_size(const char *url, int *w, int *h);

/* Estimated tokens of one OpenAI-style chat message (an object with role,
 * content, tool_calls, tool_call_id; other keys such as reasoning_content
 * count as text). Pure; NULL: 0. */
size_t model_tokens_message(const cJSON *msg);

/* The sum of model_tokens_message over an array of messages. Pure; any thread. */
size_t model_tokens_messages(const cJSON *msgs);

#endif
