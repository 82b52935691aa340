/* perception/model_json.h: parsing what a vision model answers.
 *
 * Two layers. model_chat_reply_parse (model/chat_json.h) reads an OpenAI-compatible
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

/* Parses a model's text answer (see the file comment). max_boxes caps the
 * boxes kept (<= 0 or above PERC_MODEL_BOXES_MAX: that maximum); the rest
 * count as dropped. text is borrowed; *out is filled on BASE_OK only and
 * released with perc_model_reply_fini. An empty "boxes" list is a success
 * with n = 0. Any thread. Errors: BASE_EINVAL (NULL arguments), BASE_ETOOBIG
 * (len > PERC_MODEL_TEXT_MAX), BASE_EPROTO with a message quoting the start
 * of the text when it holds no JSON or no box list, BASE_ENOMEM. */
base_err perc_model_reply_parse(const char *text, size_t len, int max_boxes, perc_model_reply *out,
                                char *err);

/* Frees the boxes and zeroes *r; r itself stays the caller's. NULL-safe.
 * The thread that owns r. */
void perc_model_reply_fini(perc_model_reply *r);

#endif
