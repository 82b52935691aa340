/* perception/model_json.h: parsing what a vision model answers.
 *
 * Two layers. perc_chat_reply_parse reads an OpenAI-compatible
 * chat-completions response body (the envelope) and hands back the
 * assistant's text, or the endpoint's own error message. perc_model_reply_parse
 * reads that text, which a model writes loosely: JSON inside code fences,
 * prose around it, a bare array instead of an object, output cut off by a
 * token limit, coordinates swapped, out of range or written as strings,
 * labels missing. Whatever can be recovered is returned as boxes in the
 * model's own normalised space ([ymin, xmin, ymax, xmax] in 0..1000); what
 * cannot is reported as a clear error. Neither function ever trusts its
 * input: sizes are capped before parsing and every field is type-checked.
 *
 * Pure functions; any thread.
 */
#ifndef FOVEA_PERCEPTION_MODEL_JSON_H
#define FOVEA_PERCEPTION_MODEL_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"
#include "perception/vision.h"

/* Largest model text or response body parsed (bytes). */
#define PERC_MODEL_TEXT_MAX (4u << 20)
/* Hard cap on boxes kept from one reply, whatever the caller asks. */
#define PERC_MODEL_BOXES_MAX 1000

/* One box as the model gave it, after repair: ymin <= ymax, xmin <= xmax,
 * all in 0..1000, positive area. */
typedef struct perc_model_box {
    float ymin, xmin, ymax, xmax;
    char label[PERC_LABEL_MAX]; /* "" when the model gave none */
    char kind[24];              /* "" when the model gave none */
    int intent_relevant;        /* 1, 0, or -1 when absent/unreadable */
    float confidence;           /* 0..1; PERC_MODEL_DEFAULT_CONFIDENCE when absent */
} perc_model_box;

#define PERC_MODEL_DEFAULT_CONFIDENCE 0.8f

/* A parsed model answer. Caller-owned: perc_model_reply_fini. */
typedef struct perc_model_reply {
    perc_model_box *boxes;
    int n;
    char page_type[32]; /* "" when absent */
    int truncated;      /* the JSON was cut off; boxes before the cut were kept */
    int dropped;        /* boxes discarded (unreadable, empty, far out of range, over cap) */
    int repaired;       /* boxes kept after swapping or clamping coordinates */
    char note[160];     /* the first drop reason, e.g. "boxes[3]: box_2d has 3 values" */
} perc_model_reply;

/* Purpose: parses a model's text answer (see the file comment). max_boxes
 * caps the boxes kept (<= 0 or above PERC_MODEL_BOXES_MAX: that maximum);
 * the rest count as dropped. Ownership: text is borrowed; *out is filled on
 * BASE_OK only and released with perc_model_reply_fini. An empty "boxes"
 * list is a success with n = 0. Thread: any. Errors: BASE_EINVAL (NULL
 * arguments), BASE_ETOOBIG (len > PERC_MODEL_TEXT_MAX), BASE_EPROTO with a
 * message quoting the start of the text when it holds no JSON or no box list,
 * BASE_ENOMEM. */
base_err perc_model_reply_parse(const char *text, size_t len, int max_boxes, perc_model_reply *out,
                                char *err);

/* Frees the boxes and zeroes *r. NULL-safe. */
void perc_model_reply_fini(perc_model_reply *r);

/* Purpose: reads a chat-completions response body. On success *content is
 * the first choice's message text (string content, or the text parts of an
 * array content joined), a new string the caller frees with base_free, and
 * *cut (may be NULL) is 1 when finish_reason was "length". When the body is
 * an error envelope ({"error": {"message": ...}}) the result is BASE_EREMOTE
 * and err holds the endpoint's message. Thread: any. Errors: BASE_EINVAL,
 * BASE_ETOOBIG, BASE_EPROTO (not JSON, no choices, no text; the message
 * quotes the start of the body), BASE_EREMOTE, BASE_ENOMEM. Out-params are
 * untouched on failure. */
base_err perc_chat_reply_parse(const char *body, size_t len, char **content, int *cut, char *err);

/* Purpose: the text of a chat message's content: the string itself, or the
 * "text" of each part of an array content joined with newlines (image and
 * other parts skipped), at most max bytes. Ownership: c borrowed; *out is
 * the caller's (base_free), NULL when there is no text. Thread: any.
 * Errors: BASE_EINVAL (out NULL), BASE_ENOMEM (also past max). */
base_err perc_chat_content_text(const cJSON *c, size_t max, char **out);

/* Purpose: copies the endpoint's error message out of an error envelope
 * ({"error": {"message": "..."}} or {"error": "..."} or {"message": "..."})
 * into out (size n, NUL-terminated, control characters replaced). Returns 1
 * when one was found, else 0 with out = "". Thread: any. */
int perc_chat_error_message(const char *body, size_t len, char *out, size_t n);

#endif
