/* perception/model_json.c: recovering boxes from loosely written model output.
 *
 * A vision model is asked for one JSON object, but what comes back is
 * often JSON wrapped in a ```json fence, a sentence of prose before or
 * after it, a bare array, or an answer cut off by a token limit in the
 * middle of a box. The parser therefore works in two stages. First it tries
 * every '{' or '[' in the text (a bounded number of them) as the start of a
 * complete JSON value and keeps the first one that holds a box list; cJSON
 * stops at the end of the value, so fences and trailing prose need no
 * special handling. When no complete value parses, it looks for the start of
 * the box array ("boxes": [ or a bare [{) and scans its elements one by one
 * with a string-aware brace matcher, keeping every complete element before
 * the cut.
 *
 * Each element is then repaired rather than rejected where the intent is
 * clear: numbers written as strings are read, swapped corners are swapped
 * back, small overshoots are clamped into 0..1000, and a box written in
 * 0..1 fractions is scaled up. Elements whose meaning is unclear (no box,
 * three coordinates, far outside the range, zero area) are dropped and the
 * first reason is kept in reply->note for the log. Nothing here allocates
 * per character, and every loop is bounded by the (capped) input length.
 */
#include "perception/model_json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_get.h"
#include "base/text.h"

/* How many '{' / '[' positions are tried as the start of a complete value:
 * enough for prose with a few brackets, bounded so that hostile input of
 * many brackets stays linear-ish. */
#define MAX_STARTS 48
/* A coordinate further than this outside 0..1000 means the model used some
 * other coordinate system (pixels, say); clamping would only invent a box. */
#define OVERSHOOT 100.0

void perc_model_reply_fini(perc_model_reply *r)
{
    if (!r)
        return;
    base_free(r->boxes);
    memset(r, 0, sizeof *r);
}

static void note(perc_model_reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(perc_model_reply *r, const char *fmt, ...)
{
    if (r->note[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
}

/* Reads a number or a numeric string ("12", " 3.5 "). Returns 1 on success. */
static int read_num(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return 1;
    }
    if (!cJSON_IsString(v) || !v->valuestring)
        return 0;
    const char *s = v->valuestring;
    char *end = NULL;
    double d = strtod(s, &end);
    if (end == s)
        return 0;
    while (*end && isspace((unsigned char)*end))
        end++;
    if (*end)
        return 0;
    *out = d;
    return 1;
}

/* The first member of o named by one of keys (NULL-terminated list). */
static const cJSON *member(const cJSON *o, const char *const *keys)
{
    for (int i = 0; keys[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
        if (v && !cJSON_IsNull(v))
            return v;
    }
    return NULL;
}

/* Reads the four coordinates of a box value: an array of 4 numbers or
 * numeric strings, a string such as "[10, 20, 30, 40]", or an object with
 * ymin/xmin/ymax/xmax. Returns 1 on success, else 0 with a note. */
static int read_coords(const cJSON *v, int i, double c[4], perc_model_reply *r)
{
    if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v);
        if (n != 4) {
            note(r, "boxes[%d]: box_2d has %d values, expected 4", i, n);
            return 0;
        }
        for (int k = 0; k < 4; k++) {
            if (!read_num(cJSON_GetArrayItem(v, k), &c[k])) {
                note(r, "boxes[%d].box_2d[%d]: not a number", i, k);
                return 0;
            }
        }
        return 1;
    }
    if (cJSON_IsString(v) && v->valuestring) {
        const char *s = v->valuestring;
        int k = 0;
        while (*s && k < 5) {
            if (*s == '-' || *s == '+' || *s == '.' || isdigit((unsigned char)*s)) {
                char *end = NULL;
                double d = strtod(s, &end);
                if (end == s) {
                    s++;
                    continue;
                }
                if (k < 4)
                    c[k] = d;
                k++;
                s = end;
            } else {
                s++;
            }
        }
        if (k != 4) {
            note(r, "boxes[%d]: box_2d string does not hold 4 numbers", i);
            return 0;
        }
        return 1;
    }
    if (cJSON_IsObject(v)) {
        static const char *const names[4] = {"ymin", "xmin", "ymax", "xmax"};
        for (int k = 0; k < 4; k++) {
            if (!read_num(cJSON_GetObjectItemCaseSensitive(v, names[k]), &c[k])) {
                note(r, "boxes[%d].box_2d.%s: missing or not a number", i, names[k]);
                return 0;
            }
        }
        return 1;
    }
    note(r, "boxes[%d]: box_2d is neither an array nor an object", i);
    return 0;
}

/* Text of a label-like member: a string, or a number printed. */
static void read_label(const cJSON *v, char *dst, size_t dn)
{
    dst[0] = '\0';
    if (!v)
        return;
    if (cJSON_IsString(v) && v->valuestring)
        base_text_line(dst, dn, v->valuestring, strlen(v->valuestring));
    else if (cJSON_IsNumber(v))
        snprintf(dst, dn, "%g", v->valuedouble);
}

static int read_bool(const cJSON *v)
{
    if (!v)
        return -1;
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? 1 : 0;
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0 ? 1 : 0;
    if (cJSON_IsString(v) && v->valuestring) {
        const char *s = v->valuestring;
        if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes") || !strcmp(s, "1"))
            return 1;
        if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "no") || !strcmp(s, "0"))
            return 0;
    }
    return -1;
}

/* Converts element i into *b. Returns 1 when kept, 0 when dropped (note set). */
static int convert_box(const cJSON *o, int i, perc_model_box *b, perc_model_reply *r)
{
    static const char *const box_keys[] = {"box_2d", "box", "bbox", "bounding_box", "box2d", NULL};
    static const char *const label_keys[] = {"label", "text", "name", NULL};
    static const char *const kind_keys[] = {"kind", "type", "role", NULL};
    static const char *const intent_keys[] = {"intent_relevant", "relevant", NULL};
    static const char *const conf_keys[] = {"confidence", "score", NULL};
    if (!cJSON_IsObject(o)) {
        note(r, "boxes[%d]: not an object", i);
        return 0;
    }
    const cJSON *bv = member(o, box_keys);
    if (!bv) {
        note(r, "boxes[%d]: no box_2d", i);
        return 0;
    }
    double c[4];
    if (!read_coords(bv, i, c, r))
        return 0;
    int repaired = 0;
    int fractions = 1, all_int = 1;
    for (int k = 0; k < 4; k++) {
        if (!isfinite(c[k])) {
            note(r, "boxes[%d]: coordinate %d is not finite", i, k);
            return 0;
        }
        if (c[k] < 0 || c[k] > 1)
            fractions = 0;
        if (c[k] != floor(c[k]))
            all_int = 0;
    }
    /* [0.1, 0.2, 0.3, 0.4] is a box in fractions of the image, not a box
     * a thousandth of the image wide; a box of whole 0s and 1s stays put. */
    if (fractions && !all_int) {
        for (int k = 0; k < 4; k++)
            c[k] *= 1000.0;
        repaired = 1;
    }
    for (int k = 0; k < 4; k++) {
        if (c[k] < -OVERSHOOT || c[k] > 1000.0 + OVERSHOOT) {
            note(r, "boxes[%d]: coordinate %g is outside 0..1000", i, c[k]);
            return 0;
        }
    }
    /* Order [ymin, xmin, ymax, xmax]; repair swapped corners. */
    for (int k = 0; k < 2; k++) {
        if (c[k] > c[k + 2]) {
            double t = c[k];
            c[k] = c[k + 2];
            c[k + 2] = t;
            repaired = 1;
        }
    }
    for (int k = 0; k < 4; k++) {
        double v = c[k] < 0 ? 0 : c[k] > 1000 ? 1000 : c[k];
        if (v != c[k])
            repaired = 1;
        c[k] = v;
    }
    if (c[2] - c[0] <= 0 || c[3] - c[1] <= 0) {
        note(r, "boxes[%d]: empty box [%g, %g, %g, %g]", i, c[0], c[1], c[2], c[3]);
        return 0;
    }
    memset(b, 0, sizeof *b);
    b->ymin = (float)c[0];
    b->xmin = (float)c[1];
    b->ymax = (float)c[2];
    b->xmax = (float)c[3];
    read_label(member(o, label_keys), b->label, sizeof b->label);
    const cJSON *kv = member(o, kind_keys);
    if (kv && cJSON_IsString(kv) && kv->valuestring)
        base_text_line(b->kind, sizeof b->kind, kv->valuestring, strlen(kv->valuestring));
    b->intent_relevant = read_bool(member(o, intent_keys));
    double conf = PERC_MODEL_DEFAULT_CONFIDENCE;
    double cv;
    if (read_num(member(o, conf_keys), &cv) && isfinite(cv)) {
        /* Some models answer in percent. */
        if (cv > 1 && cv <= 100)
            cv /= 100;
        conf = cv < 0 ? 0 : cv > 1 ? 1 : cv;
    }
    b->confidence = (float)conf;
    r->repaired += repaired;
    return 1;
}

/* Appends the converted element to r unless it is dropped or over the cap. */
static base_err add_box(const cJSON *o, int i, int cap, perc_model_reply *r, int *room)
{
    perc_model_box b;
    if (!convert_box(o, i, &b, r)) {
        r->dropped++;
        return BASE_OK;
    }
    if (r->n >= cap) {
        r->dropped++;
        note(r, "boxes past the cap of %d dropped", cap);
        return BASE_OK;
    }
    if (r->n == *room) {
        int nr = *room ? *room * 2 : 16;
        if (nr > cap)
            nr = cap;
        perc_model_box *nb = base_realloc(r->boxes, (size_t)nr * sizeof *nb);
        if (!nb)
            return BASE_ENOMEM;
        r->boxes = nb;
        *room = nr;
    }
    r->boxes[r->n++] = b;
    return BASE_OK;
}

/* The box list of a parsed value: an array itself, the "boxes" member, a
 * synonym, or else the first member that is an array of objects. */
static const cJSON *box_list(const cJSON *v)
{
    static const char *const list_keys[] = {"boxes",   "elements", "items", "detections",
                                            "objects", "results",  NULL};
    if (cJSON_IsArray(v))
        return v;
    if (!cJSON_IsObject(v))
        return NULL;
    const cJSON *l = member(v, list_keys);
    if (l)
        return cJSON_IsArray(l) ? l : NULL;
    const cJSON *m;
    cJSON_ArrayForEach(m, v)
    {
        if (cJSON_IsArray(m) && cJSON_IsObject(cJSON_GetArrayItem(m, 0)))
            return m;
    }
    return NULL;
}

static void read_page_type(const cJSON *v, perc_model_reply *r)
{
    static const char *const keys[] = {"page_type", "pageType", NULL};
    if (!cJSON_IsObject(v))
        return;
    const cJSON *p = member(v, keys);
    if (p && cJSON_IsString(p) && p->valuestring)
        base_text_line(r->page_type, sizeof r->page_type, p->valuestring, strlen(p->valuestring));
}

/* Stage 1: the first '{'/'[' at which a complete value with a box list
 * parses. Returns the parsed root (caller deletes) and its list, or NULL. */
static cJSON *find_complete(const char *t, size_t len, const cJSON **list)
{
    cJSON *weak = NULL; /* an empty bare array, used only if nothing better */
    int tries = 0;
    for (size_t i = 0; i < len && tries < MAX_STARTS; i++) {
        if (t[i] != '{' && t[i] != '[')
            continue;
        tries++;
        cJSON *v = cJSON_ParseWithLengthOpts(t + i, len - i, NULL, 0);
        if (!v)
            continue;
        const cJSON *l = box_list(v);
        if (l && cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 &&
            !cJSON_IsObject(cJSON_GetArrayItem(v, 0)))
            l = NULL; /* "[1]" or "[V1]"-like prose, not a box list */
        if (l && cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0) {
            if (!weak)
                weak = v;
            else
                cJSON_Delete(v);
            continue;
        }
        if (l) {
            cJSON_Delete(weak);
            *list = l;
            return v;
        }
        cJSON_Delete(v);
    }
    if (weak)
        *list = weak;
    return weak;
}

static const char *find_bytes(const char *t, size_t len, const char *needle)
{
    size_t nl = strlen(needle);
    for (size_t i = 0; i + nl <= len; i++)
        if (memcmp(t + i, needle, nl) == 0)
            return t + i;
    return NULL;
}

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)t[i]))
        i++;
    return i;
}

/* Offset just past the '[' of the box array of a cut-off answer: after
 * "boxes" : [ when present, else the first '[' followed by '{'. len when
 * there is none. */
static size_t truncated_list_start(const char *t, size_t len)
{
    const char *k = find_bytes(t, len, "\"boxes\"");
    if (k) {
        size_t i = skip_ws(t, len, (size_t)(k - t) + 7);
        if (i < len && t[i] == ':') {
            i = skip_ws(t, len, i + 1);
            if (i < len && t[i] == '[')
                return i + 1;
        }
    }
    for (size_t i = 0; i < len; i++) {
        if (t[i] != '[')
            continue;
        size_t j = skip_ws(t, len, i + 1);
        if (j < len && t[j] == '{')
            return i + 1;
    }
    return len;
}

/* page_type of a cut-off answer, when its string value is complete. */
static void truncated_page_type(const char *t, size_t len, perc_model_reply *r)
{
    const char *k = find_bytes(t, len, "\"page_type\"");
    if (!k)
        return;
    size_t i = skip_ws(t, len, (size_t)(k - t) + 11);
    if (i >= len || t[i] != ':')
        return;
    i = skip_ws(t, len, i + 1);
    if (i >= len || t[i] != '"')
        return;
    cJSON *s = cJSON_ParseWithLengthOpts(t + i, len - i, NULL, 0);
    if (s && cJSON_IsString(s) && s->valuestring)
        base_text_line(r->page_type, sizeof r->page_type, s->valuestring, strlen(s->valuestring));
    cJSON_Delete(s);
}

/* Stage 2: every complete element of a cut-off box array. Returns
 * BASE_EPROTO (with err) when there is no array or no complete element. */
static base_err recover_truncated(const char *t, size_t len, int cap, perc_model_reply *r,
                                  char *err)
{
    size_t i = truncated_list_start(t, len);
    char ex[48];
    if (i >= len) {
        base_text_excerpt(t, len, ex, sizeof ex);
        return base_errf(err, BASE_EPROTO,
                         "model reply holds no JSON box list (starts with \"%s\")", ex);
    }
    int room = 0, idx = 0, complete = 0;
    while (i < len) {
        i = skip_ws(t, len, i);
        if (i < len && t[i] == ',')
            i = skip_ws(t, len, i + 1);
        if (i >= len)
            break;
        if (t[i] == ']') {
            complete = 1;
            break;
        }
        if (t[i] != '{')
            break;
        size_t end = base_json_value_end(t, len, i);
        if (end == 0)
            break;
        cJSON *o = cJSON_ParseWithLength(t + i, end - i);
        if (o) {
            base_err e = add_box(o, idx, cap, r, &room);
            cJSON_Delete(o);
            if (e)
                return e;
        } else {
            r->dropped++;
            note(r, "boxes[%d]: malformed JSON", idx);
        }
        idx++;
        i = end;
    }
    truncated_page_type(t, len, r);
    r->truncated = !complete;
    if (r->n == 0 && !complete && idx == 0)
        return base_errf(err, BASE_EPROTO,
                         "model reply was cut off before the first complete box (%zu bytes)", len);
    return BASE_OK;
}

base_err perc_model_reply_parse(const char *text, size_t len, int max_boxes, perc_model_reply *out,
                                char *err)
{
    if (!text || !out)
        return base_errf(err, BASE_EINVAL, "model reply: NULL argument");
    if (len > PERC_MODEL_TEXT_MAX)
        return base_errf(err, BASE_ETOOBIG, "model reply is %zu bytes (limit %u)", len,
                         PERC_MODEL_TEXT_MAX);
    int cap = max_boxes <= 0 || max_boxes > PERC_MODEL_BOXES_MAX ? PERC_MODEL_BOXES_MAX : max_boxes;
    perc_model_reply r;
    memset(&r, 0, sizeof r);
    const cJSON *list = NULL;
    cJSON *root = find_complete(text, len, &list);
    base_err e = BASE_OK;
    if (root) {
        read_page_type(root, &r);
        int room = 0, i = 0;
        const cJSON *el;
        cJSON_ArrayForEach(el, list)
        {
            e = add_box(el, i++, cap, &r, &room);
            if (e)
                break;
        }
        cJSON_Delete(root);
    } else {
        e = recover_truncated(text, len, cap, &r, err);
    }
    if (e) {
        perc_model_reply_fini(&r);
        if (e == BASE_ENOMEM)
            return base_errf(err, e, "model reply: out of memory");
        return e;
    }
    *out = r;
    return BASE_OK;
}
