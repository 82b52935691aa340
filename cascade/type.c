/* cascade/type.c: typing into a field (seed 002 §6.4).
 *
 * cascade_type focuses the field the way a person does (a click on it, with
 * the same probe as a click: found, enabled, visible, not covered), selects
 * what is there so the new text replaces it, then plays a typing plan from
 * motion/typing.h as trusted key events: keyDown/keyUp with the real key,
 * code and virtual key code for ASCII, Input.insertText for other Unicode,
 * Backspace for the plan's corrected typos. Before that, the text-fix
 * pre-pass (textfix.c) rewrites dates and amounts into the field's format.
 * Afterwards the value is read back; when the keys did not reach the field
 * (a frame that swallows them, a widget that rebuilds itself) the value is
 * set through the prototype's native setter with input/change events and a
 * change event on every shadow host (the page half's setValue). A mismatch
 * that survives is reported. Password text is never typed with typos and
 * never appears in a log line or a message.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/num.h"
#include "cascade/cascade_int.h"
#include "motion/typing.h"

#define BATCH 128

static base_err oom(char *err)
{
    return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
}

/* The CDP calls for one plan event (1 or 2). */
static int key_calls(const motion_key *k, const char **methods, cJSON **params)
{
    static const char *const DK = "Input.dispatchKeyEvent";
    if (k->kind == MOTION_KEY_BACKSPACE) {
        methods[0] = methods[1] = DK;
        params[0] = cascade__key_event("rawKeyDown", "Backspace", "Backspace", 8, NULL, 0);
        params[1] = cascade__key_event("keyUp", "Backspace", "Backspace", 8, NULL, 0);
        return 2;
    }
    char c = k->utf8[0];
    if (k->len == 1 && (c == '\n' || c == '\r')) {
        methods[0] = methods[1] = DK;
        params[0] = cascade__key_event("keyDown", "Enter", "Enter", 13, "\r", 0);
        params[1] = cascade__key_event("keyUp", "Enter", "Enter", 13, NULL, 0);
        return 2;
    }
    if (k->len == 1 && c >= 0x20 && c < 0x7f) {
        char code[24];
        int vk, shift;
        cascade__ascii_key(c, code, sizeof code, &vk, &shift);
        methods[0] = methods[1] = DK;
        params[0] = cascade__key_event("keyDown", k->utf8, code, vk, k->utf8, shift ? 8 : 0);
        params[1] = cascade__key_event("keyUp", k->utf8, code, vk, NULL, shift ? 8 : 0);
        return 2;
    }
    /* Other Unicode (and control characters such as tab): committed text,
     * the way an input method delivers it. */
    methods[0] = "Input.insertText";
    params[0] = cJSON_CreateObject();
    if (params[0] && !cJSON_AddStringToObject(params[0], "text", k->utf8)) {
        cJSON_Delete(params[0]);
        params[0] = NULL; /* the pipeline then sends nothing */
    }
    return 1;
}

/* Plays the plan: humanized (each event after its delay) or pipelined in
 * batches. */
static base_err play(cascade_hand *h, const motion_typing *plan, int humanize, char *err)
{
    const char *methods[BATCH + 2];
    cJSON *params[BATCH + 2];
    int n = 0;
    double t = base_monotime_ms();
    for (int i = 0; i < plan->n; i++) {
        if (humanize) {
            t += plan->keys[i].delay_ms;
            double now = base_monotime_ms();
            if (t > now)
                base_sleep_ms(t - now);
        }
        n += key_calls(&plan->keys[i], methods + n, params + n);
        if (humanize || n >= BATCH || i == plan->n - 1) {
            base_err e = cascade__pipeline(h, methods, params, n, err);
            n = 0;
            if (e)
                return e;
        }
    }
    return BASE_OK;
}

/* Date editors (<input type=date>) take the digits of the locale's order;
 * Chromium's en-US editor is MM DD YYYY. */
static void date_digits(const char *iso, char *buf, size_t n)
{
    if (strlen(iso) == 10 && iso[4] == '-' && iso[7] == '-')
        snprintf(buf, n, "%.2s%.2s%.4s", iso + 5, iso + 8, iso);
    else
        snprintf(buf, n, "%s", iso);
}

static void norm_value(char *s)
{
    /* Contenteditable text comes back with no-break spaces where spaces
     * were typed next to each other; \r\n from some editors. */
    char *w = s;
    for (char *r = s; *r; r++) {
        if ((unsigned char)r[0] == 0xc2 && (unsigned char)r[1] == 0xa0) {
            *w++ = ' ';
            r++;
        } else if (*r != '\r') {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* Whitespace-normalised comparison: no-break and zero-width characters,
 * line breaks, tabs and runs of spaces compare as one space; ends trimmed
 * (a field that shows "a\u00a0b" holds what "a b" asked for). */
static void norm_ws(const char *s, char *out, size_t n)
{
    size_t k = 0;
    int space = 1; /* drop leading spaces */
    for (const unsigned char *r = (const unsigned char *)s; *r && k + 1 < n; r++) {
        int ws = 0, skip = 0;
        if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r' || *r == '\f' || *r == '\v') {
            ws = 1;
        } else if (r[0] == 0xc2 && r[1] == 0xa0) {
            ws = 1;
            r++;
        } else if (r[0] == 0xe2 && r[1] == 0x80 && (r[2] >= 0x8b && r[2] <= 0x8d)) {
            skip = 1; /* zero-width space / non-joiner / joiner */
            r += 2;
        } else if (r[0] == 0xe2 && r[1] == 0x80 && (r[2] == 0xaf || r[2] == 0x89 || r[2] == 0x8a)) {
            ws = 1; /* narrow no-break, thin, hair space */
            r += 2;
        } else if (r[0] == 0xef && r[1] == 0xbb && r[2] == 0xbf) {
            skip = 1; /* zero-width no-break space */
            r += 2;
        }
        if (skip)
            continue;
        if (ws) {
            if (!space)
                out[k++] = ' ';
            space = 1;
            continue;
        }
        out[k++] = (char)*r;
        space = 0;
    }
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
}

static int eq_ws(const char *a, const char *b)
{
    size_t na = strlen(a) + 1, nb = strlen(b) + 1;
    char *x = base_malloc(na), *y = base_malloc(nb);
    int eq = 0;
    if (x && y) {
        norm_ws(a, x, na);
        norm_ws(b, y, nb);
        eq = strcmp(x, y) == 0;
    }
    base_free(x);
    base_free(y);
    return eq;
}

static base_err read_value(cascade_hand *h, const char *fid, const cascade_target *t, char **out,
                           int *inputs, char *err)
{
    cJSON *a = cascade__xpath_arg(t->xpath);
    if (!a)
        return oom(err);
    cJSON *v = NULL;
    base_err e = cascade__call(h, fid, "value", a, 1, &v, 10000, err);
    if (e)
        return e;
    const char *s = cascade__str(v, "value");
    *out = base_strdup(s ? s : "");
    if (inputs)
        *inputs = (int)cascade__num(v, "inputs", 0);
    cJSON_Delete(v);
    if (!*out)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    norm_value(*out);
    return BASE_OK;
}

/* 1 when a field's value is the typed text as the field reformatted it:
 * equal after folding ASCII case and dropping grouping separators (a card
 * field that groups digits in fours, a code field that upper-cases). Typing
 * that landed must not count as failed, or the text would be set again. */
static int same_but_format(const char *got, const char *want)
{
    for (;;) {
        while (*got == ' ' || *got == '-' || *got == '.' || *got == '/')
            got++;
        while (*want == ' ' || *want == '-' || *want == '.' || *want == '/')
            want++;
        if (!*got || !*want)
            return !*got && !*want;
        if (tolower((unsigned char)*got) != tolower((unsigned char)*want))
            return 0;
        got++;
        want++;
    }
}

/* One cascade_type call: what the steps below share. */
typedef struct type_ctx {
    cascade_hand *h;
    const cascade_target *t;
    const char *fid, *label;
    int password;
    cJSON *fld, *p;    /* the page half's field and probe replies (owned) */
    const char *kind;  /* fld's kind: "input", "textarea", "editable", "other" */
    int is_date;
    int maxlen;        /* the field's maxlength, 0 = none */
    int fixed_changed; /* the text fix rewrote the text (note says how) */
    char note[96];
    char *fixed, *got, *want, *before; /* owned */
    int played;        /* key events went out: they may have acted */
    int focused;       /* the field had focus before the keys */
    int reached;       /* the keys reached the field (input events, a changed value) */
    int entered;       /* a single-line field took an Enter: the page took the text */
    motion_typing plan;
} type_ctx;

static void type_ctx_fini(type_ctx *c)
{
    motion_typing_fini(&c->plan);
    base_free(c->fixed);
    base_free(c->got);
    base_free(c->want);
    base_free(c->before);
    cJSON_Delete(c->fld);
    cJSON_Delete(c->p);
}

/* The field, as the page describes it; *stop with out's refusal when it
 * is missing, disabled, read-only or not a text field. */
static base_err read_field(type_ctx *c, cascade_result *out, int *stop, char *err)
{
    cJSON *a = cascade__xpath_arg(c->t->xpath);
    if (!a)
        return oom(err);
    base_err e = cascade__call(c->h, c->fid, "field", a, 1, &c->fld, 10000, err);
    if (e)
        return e;
    *stop = 1;
    if (!cascade__bool(c->fld, "found")) {
        cascade__msg(out, CASCADE_NOT_FOUND, "field %s was not found (take a fresh look)",
                     c->label);
        return BASE_OK;
    }
    c->kind = cascade__str(c->fld, "kind");
    const char *type = cascade__str(c->fld, "type");
    const char *dis = cascade__str(c->fld, "disabled");
    if ((dis && dis[0]) || cascade__bool(c->fld, "readonly")) {
        cascade__msg(out, CASCADE_DISABLED, "field %s is %s; nothing typed", c->label,
                     dis && dis[0] ? dis : "read-only");
        return BASE_OK;
    }
    if (c->kind && strcmp(c->kind, "other") == 0) {
        cascade__msg(out, CASCADE_NOT_FOUND, "%s (%s) is not a text field", c->label,
                     cascade__str(c->fld, "desc") ? cascade__str(c->fld, "desc") : "?");
        cascade__alt(out, "point at the input, textarea or editable area itself");
        return BASE_OK;
    }
    c->is_date = type && strcmp(type, "date") == 0;
    /* The page reports maxlength; a value out of int range means none. */
    if (base_num_to_int(cascade__num(c->fld, "maxlength", 0), INT_MIN, INT_MAX, &c->maxlen))
        c->maxlen = 0;
    *stop = 0;
    return BASE_OK;
}

/* The text-fix pre-pass into c->fixed. */
static base_err fix_text(type_ctx *c, const char *text, char *err)
{
    size_t cap = strlen(text) + 64;
    c->fixed = base_malloc(cap);
    if (!c->fixed)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    int fx = cascade_text_fix(text, cascade__str(c->fld, "type"), cascade__str(c->fld, "pattern"),
                              cascade__str(c->fld, "placeholder"), c->fixed, cap, c->note,
                              sizeof c->note);
    if (fx < 0)
        snprintf(c->fixed, cap, "%s", text);
    c->fixed_changed = fx > 0;
    return BASE_OK;
}

/* Focus by clicking, with the click's probe (a field partly out of its
 * scroll box is scrolled wholly into view first; covered fields are not
 * typed into; *stop with out's refusal). Date editors are clicked on their first
 * segment. Then `prepare` focuses (if the click did not) and selects the
 * content so the text replaces it; c->before is the value then. */
static base_err focus_field(type_ctx *c, cascade_result *out, int *stop, char *err)
{
    cascade_hand *h = c->h;
    base_point origin;
    base_err e = cascade__frame_origin(h, c->t, c->fid, &origin, err);
    if (e)
        return e;
    cJSON *a = cascade__xpath_arg(c->t->xpath);
    /* whole: the field is scrolled wholly into view before it is clicked. */
    if (!cJSON_AddNumberToObject(a, "settle_ms", h->o.settle_ms) ||
        !cJSON_AddNumberToObject(a, "whole", 1)) {
        cJSON_Delete(a);
        return oom(err);
    }
    e = cascade__call(h, c->fid, "probe", a, 1, &c->p, h->o.settle_ms + 15000, err);
    if (e)
        return e;
    const char *cov = cascade__str(c->p, "covered");
    const char *inv = cascade__str(c->p, "invisible");
    if (cov) {
        *stop = 1;
        cascade__msg(out, CASCADE_COVERED, "field %s is covered by %s", c->label, cov);
        const cJSON *al;
        cJSON_ArrayForEach(al, cJSON_GetObjectItemCaseSensitive(c->p, "alternatives"))
        {
            cascade__alt(out, "click %s at (%.0f,%.0f) to dismiss the cover",
                         cascade__str(al, "desc") ? cascade__str(al, "desc") : "?",
                         cascade__num(al, "x", 0) + origin.x, cascade__num(al, "y", 0) + origin.y);
        }
        return BASE_OK;
    }
    if (!(inv && inv[0])) {
        base_point pt = {(float)cascade__num(c->p, "x", 0) + origin.x,
                         (float)cascade__num(c->p, "y", 0) + origin.y};
        const cJSON *rect = cJSON_GetObjectItemCaseSensitive(c->p, "rect");
        if (c->is_date && rect)
            pt.x = (float)cascade__num(rect, "x0", 0) + origin.x + 8;
        e = cascade__press_at(h, pt, h->o.humanize, NULL, NULL, out, err);
        if (e)
            return e;
    }
    cJSON *prep = NULL;
    a = cascade__xpath_arg(c->t->xpath);
    if (!cJSON_AddBoolToObject(a, "clear", !c->is_date)) {
        cJSON_Delete(a);
        return oom(err); /* before any key: nothing typed yet */
    }
    e = cascade__call(h, c->fid, "prepare", a, 1, &prep, 10000, err);
    if (e)
        return e;
    c->focused = cascade__bool(prep, "focused");
    /* In an out-of-process frame the browser must know the focus moved
     * before keys are sent, or they go to the frame focused before. */
    if (c->focused)
        (void)cascade__frame_focus_wait(h, c->fid, 1000);
    const char *pv = cascade__str(prep, "value");
    c->before = base_strdup(pv ? pv : "");
    cJSON_Delete(prep);
    if (!c->before)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    return BASE_OK;
}

/* Plans and plays the keys (tier 1's tried[] entry tr). A text that
 * cannot be typed: BASE_EINVAL-like error with out's message set and
 * *unplannable 1. */
static base_err type_keys(type_ctx *c, cascade_try *tr, double t1, cascade_result *out,
                          int *unplannable, char *err)
{
    cascade_hand *h = c->h;
    char digits[32];
    const char *to_type = c->fixed;
    if (c->is_date) {
        date_digits(c->fixed, digits, sizeof digits);
        to_type = digits;
    }
    unsigned flags = 0;
    if (c->password)
        flags |= MOTION_TYPING_PASSWORD;
    if (!h->o.typos || c->is_date)
        flags |= MOTION_TYPING_NO_TYPOS;
    char perr[BASE_ERRBUF_SIZE] = "";
    base_err e = motion_plan_typing(to_type, strlen(to_type), flags, cascade__seed(h), &c->plan,
                                    perr);
    if (e) {
        *unplannable = 1;
        cascade__msg(out, CASCADE_ERROR, "cannot type this text: %s", perr);
        return base_errf(err, e, "cascade_type: %s", perr);
    }
    if (c->focused) {
        c->played = 1;
        e = play(h, &c->plan, h->o.humanize, err);
        if (e)
            return e;
    }
    if (tr) {
        tr->ms = base_monotime_ms() - t1;
        snprintf(tr->outcome, sizeof tr->outcome, "%s %d chars%s, %d typo%s corrected",
                 c->focused ? "typed" : "not focused, skipped", (int)strlen(to_type),
                 c->password ? " (password)" : "", c->plan.n_typos,
                 c->plan.n_typos == 1 ? "" : "s");
    }
    return BASE_OK;
}

/* Reads the value back and compares it with the text. A single-line field
 * never holds a line break: Enter there submits (a todo list adds the item
 * and clears the field), so the value is compared without it, and keys
 * that reached the field (an input event, or any change of the value) with
 * an Enter among them are the delivered action even when the page then
 * cleared the field. *ok: the field holds the text. */
static base_err verify(type_ctx *c, cascade_result *out, int *ok, char *err)
{
    int has_nl = strpbrk(c->fixed, "\r\n") != NULL;
    int single_line = c->kind && strcmp(c->kind, "input") == 0;
    c->want = base_strdup(c->fixed);
    if (!c->want)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    if (single_line) {
        char *w = c->want;
        for (const char *r = c->fixed; *r; r++)
            if (*r != '\r' && *r != '\n')
                *w++ = *r;
        *w = '\0';
    }
    int inputs = 0;
    base_err e = read_value(c->h, c->fid, c->t, &c->got, &inputs, err);
    if (e)
        return e;
    c->reached = c->focused && (inputs > 0 || strcmp(c->got, c->before) != 0);
    if (c->reached) {
        out->delivered = 1; /* never typed a second time */
        out->effects |= CASCADE_FX_VALUE;
    }
    *ok = eq_ws(c->got, c->want) || same_but_format(c->got, c->want) ||
          (c->maxlen > 0 && strncmp(c->got, c->want, (size_t)c->maxlen) == 0 &&
           (int)strlen(c->got) == c->maxlen);
    c->entered = !*ok && has_nl && single_line && c->reached;
    if (c->entered)
        *ok = 1;
    return BASE_OK;
}

/* The fallback when the keys did not land: the native value setter with
 * input/change (a second tried[] entry, tier 3). *ok: the field holds the
 * text now. */
static base_err set_natively(type_ctx *c, cascade_result *out, int *ok, char *err)
{
    double t2 = base_monotime_ms();
    cascade_try *t3 = cascade__try(out, 3);
    cJSON *a = cascade__xpath_arg(c->t->xpath);
    if (!cJSON_AddStringToObject(a, "value", c->want)) {
        cJSON_Delete(a);
        return oom(err);
    }
    cJSON *sv = NULL;
    base_err e = cascade__call(c->h, c->fid, "setValue", a, 1, &sv, 10000, err);
    cJSON_Delete(sv);
    if (e)
        return e;
    base_free(c->got);
    c->got = NULL;
    e = read_value(c->h, c->fid, c->t, &c->got, NULL, err);
    if (e)
        return e;
    *ok = eq_ws(c->got, c->want);
    if (*ok)
        out->delivered = 1;
    if (t3) {
        t3->success = *ok;
        t3->ms = base_monotime_ms() - t2;
        snprintf(t3->outcome, sizeof t3->outcome,
                 "keys did not land; value set natively + input/change%s",
                 cascade__num(c->fld, "shadow", 0) > 0 ? " + change on shadow host" : "");
    }
    return BASE_OK;
}

/* The message of the verdict. */
static void type_verdict(type_ctx *c, int ok, cascade_result *out)
{
    if (ok && c->entered) {
        out->success = 1;
        cascade__msg(out, CASCADE_OK, "typed into %s and pressed Enter (the page took the text: "
                     "the field now holds %zu chars)", c->label, strlen(c->got));
    } else if (ok) {
        out->success = 1;
        cascade__msg(out, CASCADE_OK, "typed into %s%s%s%s", c->label,
                     c->fixed_changed ? " (" : "", c->fixed_changed ? c->note : "",
                     c->fixed_changed ? ")" : "");
    } else if (c->password) {
        cascade__msg(out, CASCADE_NO_EFFECT,
                     "the password field %s does not hold the typed text afterwards", c->label);
    } else {
        cascade__msg(out, CASCADE_NO_EFFECT, "%s holds \"%.80s\" instead of \"%.80s\"%s",
                     c->label, c->got, c->want,
                     c->reached ? " (the keys reached it; not typed again)" : "");
        cascade__alt(out, "the field may reformat input: check its expected format");
        cascade__alt(out, "take a fresh look: an autocomplete or mask may have changed it");
    }
}

/* field → text fix → focus → keys → verify → fallback → commit → verdict;
 * *stop when a step refused (out says why). */
static base_err type_steps(type_ctx *c, const char *text, cascade_result *out, int *unplannable,
                           char *err)
{
    int stop = 0, ok = 0;
    base_err e = read_field(c, out, &stop, err);
    if (e || stop)
        return e;
    e = fix_text(c, text, err);
    if (e)
        return e;
    e = focus_field(c, out, &stop, err);
    if (e || stop)
        return e;
    double t1 = base_monotime_ms();
    cascade_try *tr = cascade__try(out, 1);
    e = type_keys(c, tr, t1, out, unplannable, err);
    if (e)
        return e;
    e = verify(c, out, &ok, err);
    if (e)
        return e;
    if (tr)
        tr->success = ok;
    char domain[256];
    cascade__domain(c->h, domain, sizeof domain);
    int bot = c->h->learn && cascade_learnings_bot_protected(c->h->learn, domain);
    if (!ok && !bot && !c->reached) {
        e = set_natively(c, out, &ok, err);
        if (e)
            return e;
    }
    if (ok && cascade__num(c->fld, "shadow", 0) > 0 && !(out->n_tried > 1)) {
        cJSON *a = cascade__xpath_arg(c->t->xpath);
        if (!a)
            return oom(err);
        cJSON *cv = NULL;
        e = cascade__call(c->h, c->fid, "commit", a, 1, &cv, 10000, err);
        cJSON_Delete(cv);
        if (e)
            return e;
    }
    type_verdict(c, ok, out);
    return BASE_OK;
}

base_err cascade_type(cascade_hand *h, const cascade_target *t, const char *text, int password,
                      cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_type: NULL result");
    cascade__result_init(out);
    if (!h || !t || !text || !(t->xpath && t->xpath[0])) {
        cascade__msg(out, CASCADE_ERROR, "invalid arguments: typing needs a field's xpath");
        return base_errf(err, BASE_EINVAL, "cascade_type: NULL hand, text or target xpath");
    }
    double t_start = base_monotime_ms();
    type_ctx c;
    memset(&c, 0, sizeof c);
    c.h = h;
    c.t = t;
    c.fid = t->frame_id ? t->frame_id : "";
    c.label = t->label && t->label[0] ? t->label : t->xpath;
    c.password = password;
    int unplannable = 0;
    base_err e = type_steps(&c, text, out, &unplannable, err);
    if (e && !unplannable) {
        if (c.played)
            out->delivered = 1; /* never typed a second time by a caller's retry */
        cascade__msg(out, CASCADE_ERROR, "typing into %s failed: %s", c.label,
                     err && err[0] ? err : base_strerror(e));
    }
    out->ms = base_monotime_ms() - t_start;
    if (!e)
        base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "type into %s: %s, %d bytes, %.1f ms", c.label,
                 cascade_reason_name(out->reason), (int)strlen(text), out->ms);
    type_ctx_fini(&c);
    return e;
}
