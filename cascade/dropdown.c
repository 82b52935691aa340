/* cascade/dropdown.c: reading and choosing the options of a dropdown — a
 * native <select> or an ARIA combobox / listbox.
 *
 * A native select's popup is drawn by the browser outside the page, so its
 * options are read from the element and the choice is made by script
 * (selectOption in the page half, tier 3 with the events a user's choice
 * fires). A custom dropdown is what the page draws: it is opened with a
 * trusted click (cascade_click: a covered or disabled control is refused),
 * its visible [role=option]s are read fresh from the DOM (each with its
 * xpath), and the chosen option is pressed with cascade_click too; a list
 * opened only to be read is closed again with Escape.
 *
 * Matching the asked text: exact, then equal ignoring case and folded
 * whitespace, then prefix; several candidates at the best level are
 * ambiguous and nothing is chosen.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"
#include "cascade/input.h"

void cascade_options_fini(cascade_options *o)
{
    if (!o)
        return;
    for (int i = 0; i < o->n; i++) {
        base_free(o->v[i].text);
        base_free(o->v[i].value);
        base_free(o->v[i].xpath);
    }
    base_free(o->v);
    memset(o, 0, sizeof *o);
}

/* Folds s into buf: whitespace runs to one space, ends trimmed, ASCII
 * lower-cased when lower. */
static void fold(const char *s, int lower, char *buf, size_t cap)
{
    size_t w = 0;
    int space = 0;
    while (*s && isspace((unsigned char)*s))
        s++;
    for (; *s && w + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (isspace(c)) {
            space = 1;
            continue;
        }
        if (space && w + 2 < cap)
            buf[w++] = ' ';
        space = 0;
        buf[w++] = lower ? (char)tolower(c) : (char)c;
    }
    buf[w] = '\0';
}

int cascade_option_match(const char *const *texts, int n, const char *want, int *idx, int *level)
{
    *idx = -1;
    *level = CASCADE_MATCH_NONE;
    if (!texts || !want || n < 1)
        return 0;
    char w_exact[512], w_low[512];
    fold(want, 0, w_exact, sizeof w_exact);
    fold(want, 1, w_low, sizeof w_low);
    if (!w_low[0])
        return 0;
    size_t wl = strlen(w_low);
    int count[4] = {0, 0, 0, 0}, first[4] = {-1, -1, -1, -1};
    for (int i = 0; i < n; i++) {
        if (!texts[i])
            continue;
        char t_exact[512], t_low[512];
        fold(texts[i], 0, t_exact, sizeof t_exact);
        fold(texts[i], 1, t_low, sizeof t_low);
        int lv = strcmp(texts[i], want) == 0 || strcmp(t_exact, w_exact) == 0 ? CASCADE_MATCH_EXACT
                 : strcmp(t_low, w_low) == 0                               ? CASCADE_MATCH_CASE
                 : strncmp(t_low, w_low, wl) == 0                          ? CASCADE_MATCH_PREFIX
                                                                           : CASCADE_MATCH_NONE;
        if (!lv)
            continue;
        if (!count[lv]++)
            first[lv] = i;
    }
    for (int lv = CASCADE_MATCH_EXACT; lv >= CASCADE_MATCH_PREFIX; lv--) {
        if (count[lv]) {
            *idx = first[lv];
            *level = lv;
            return count[lv];
        }
    }
    return 0;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "");
    char *d = base_malloc(n + 1);
    if (d)
        memcpy(d, s ? s : "", n + 1);
    return d;
}

/* Fills o from the page half's listOptions reply. */
static base_err options_from(const cJSON *v, cascade_options *o, char *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(v, "options");
    int n = cJSON_GetArraySize(arr);
    o->native = cascade__bool(v, "native");
    const char *d = cascade__str(v, "desc");
    snprintf(o->desc, sizeof o->desc, "%s", d ? d : "");
    if (n <= 0)
        return BASE_OK;
    o->v = base_calloc((size_t)n, sizeof *o->v);
    if (!o->v)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        cascade_option *op = &o->v[o->n];
        op->text = dup_str(cascade__str(it, "text"));
        op->value = dup_str(cascade__str(it, "value"));
        const char *xp = cascade__str(it, "xpath");
        op->xpath = xp ? dup_str(xp) : NULL;
        op->index = (int)cascade__num(it, "index", o->n);
        op->selected = cascade__bool(it, "selected");
        op->disabled = cascade__bool(it, "disabled");
        o->n++;
        if (!op->text || !op->value || (xp && !op->xpath))
            return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    return BASE_OK;
}

static base_err list_call(cascade_hand *h, const cascade_target *t, cJSON **v, char *err)
{
    cJSON *a = cascade__xpath_arg(t->xpath);
    if (!a)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    return cascade__call(h, t->frame_id ? t->frame_id : "", "listOptions", a, 1, v, 10000, err);
}

/* Presses Escape on whatever has focus (the opened combobox). */
static void close_with_escape(cascade_hand *h)
{
    cascade_key esc;
    cascade_result r;
    if (cascade_key_parse("Escape", &esc, NULL) == BASE_OK)
        (void)cascade_keys(h, NULL, &esc, 1, 1, &r, NULL);
}

/* The open / read part of both calls: opts filled; *native_xpath (owned,
 * may be NULL) the <select>'s own xpath. Returns BASE_OK with res telling
 * whether options could be had (res->success). */
static base_err read_options(cascade_hand *h, const cascade_target *t, cascade_options *opts,
                             char **native_xpath, cascade_result *res, char *err)
{
    const char *label = t->label && t->label[0] ? t->label : t->xpath;
    cJSON *v = NULL;
    base_err e = list_call(h, t, &v, err);
    if (e) {
        cascade__msg(res, CASCADE_ERROR, "could not read the options of %s: %s", label,
                     err && err[0] ? err : base_strerror(e));
        return e;
    }
    if (!cascade__bool(v, "found")) {
        cJSON_Delete(v);
        cascade__msg(res, CASCADE_NOT_FOUND, "%s was not found (take a fresh look)", label);
        return BASE_OK;
    }
    if (!cascade__bool(v, "native") && !cascade__bool(v, "open")) {
        /* A custom dropdown, closed: open it like a person does. */
        const char *role = cascade__str(v, "role");
        char desc[128];
        snprintf(desc, sizeof desc, "%s", cascade__str(v, "desc") ? cascade__str(v, "desc") : "?");
        int dropdownish = role && (!strcmp(role, "combobox") || !strcmp(role, "listbox") ||
                                   !strcmp(role, "button"));
        cJSON_Delete(v);
        v = NULL;
        cascade_target ct = *t;
        ct.expect_effect = 0;
        e = cascade_click(h, &ct, res, err);
        if (e)
            return e;
        if (!res->delivered) {
            char m[200];
            snprintf(m, sizeof m, "%.199s", res->message);
            cascade__msg(res, res->reason, "could not open %.60s: %.180s", label, m);
            return BASE_OK;
        }
        opts->opened = 1;
        /* The list renders within a frame or two, or after an animation. */
        double t0 = base_monotime_ms();
        for (;;) {
            cJSON_Delete(v);
            v = NULL;
            e = list_call(h, t, &v, err);
            if (e)
                return e;
            if (cascade__bool(v, "open") || base_monotime_ms() - t0 > h->o.effect_ms + 500)
                break;
            base_sleep_ms(50);
        }
        if (!cascade__bool(v, "open")) {
            cJSON_Delete(v);
            res->success = 0;
            cascade__msg(res, CASCADE_NO_EFFECT,
                         "%s (%s) was clicked but no listbox opened%s", label, desc,
                         dropdownish ? "" : " (is it a dropdown? no combobox/listbox role)");
            cascade__alt(res, "take a fresh look: the options may be links or menu items to click");
            return BASE_OK;
        }
    }
    if (native_xpath) {
        const char *nx = cascade__str(v, "xpath");
        *native_xpath = nx && cascade__bool(v, "native") ? dup_str(nx) : NULL;
    }
    e = options_from(v, opts, err);
    const char *dis = cascade__str(v, "disabled");
    int disabled = dis && dis[0];
    cJSON_Delete(v);
    if (e) {
        cascade__msg(res, CASCADE_ERROR, "%s", err && err[0] ? err : "out of memory");
        return e;
    }
    opts->disabled = disabled && opts->native;
    res->success = 1;
    cascade__msg(res, CASCADE_OK, "%d option%s in %s%s", opts->n, opts->n == 1 ? "" : "s",
                 opts->desc, opts->opened ? " (opened)" : opts->disabled ? " (disabled)" : "");
    return BASE_OK;
}

base_err cascade_dropdown_options(cascade_hand *h, const cascade_target *t, int keep_open,
                                  cascade_options *opts, cascade_result *res, char *err)
{
    cascade_result local;
    if (!res)
        res = &local;
    cascade__result_init(res);
    if (opts)
        memset(opts, 0, sizeof *opts);
    if (!h || !t || !(t->xpath && t->xpath[0]) || !opts) {
        cascade__msg(res, CASCADE_ERROR, "invalid arguments: a dropdown needs an element's xpath");
        return base_errf(err, BASE_EINVAL, "cascade_dropdown_options: bad hand, target or out");
    }
    double t0 = base_monotime_ms();
    base_err e = read_options(h, t, opts, NULL, res, err);
    if (!e && opts->opened && !keep_open) {
        close_with_escape(h);
        res->delivered = 1;
    }
    res->ms = base_monotime_ms() - t0;
    return e;
}

/* "'Apple', 'Apricot', ..." of the options at index list idx (or all). */
static void list_texts(const cascade_options *o, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->n; i++) {
        int r = snprintf(buf + w, cap - w, "%s'%.40s'", i ? ", " : "", o->v[i].text);
        if (r < 0 || (size_t)r >= cap - w) {
            if (cap > 4)
                snprintf(buf + cap - 4, 4, "...");
            return;
        }
        w += (size_t)r;
    }
}

base_err cascade_dropdown_select(cascade_hand *h, const cascade_target *t, const char *text,
                                 cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_dropdown_select: NULL result");
    cascade__result_init(out);
    if (!h || !t || !(t->xpath && t->xpath[0]) || !text || !text[0]) {
        cascade__msg(out, CASCADE_ERROR, "invalid arguments: give a dropdown and an option text");
        return base_errf(err, BASE_EINVAL, "cascade_dropdown_select: bad hand, target or text");
    }
    double t0 = base_monotime_ms();
    const char *label = t->label && t->label[0] ? t->label : t->xpath;
    cascade_options o;
    memset(&o, 0, sizeof o);
    char *sel_xpath = NULL;
    base_err e = read_options(h, t, &o, &sel_xpath, out, err);
    if (e || !out->success) {
        if (o.opened)
            close_with_escape(h);
        goto end;
    }
    out->success = 0;
    if (o.disabled) {
        cascade__msg(out, CASCADE_DISABLED, "<select> %s is disabled; nothing chosen", label);
        goto end;
    }
    const char **texts = base_calloc((size_t)(o.n ? o.n : 1), sizeof *texts);
    if (!texts) {
        e = base_errf(err, BASE_ENOMEM, "cascade: out of memory");
        cascade__msg(out, CASCADE_ERROR, "out of memory");
        goto end;
    }
    for (int i = 0; i < o.n; i++)
        texts[i] = o.v[i].text;
    int idx = -1, level = 0;
    int cnt = cascade_option_match(texts, o.n, text, &idx, &level);
    char all[200];
    if (cnt == 0) {
        list_texts(&o, all, sizeof all);
        cascade__msg(out, CASCADE_NOT_FOUND, "%s has no option '%.60s' (options: %s)", label,
                     text, o.n ? all : "none");
        for (int i = 0; i < o.n && out->n_alternatives < 4; i++)
            cascade__alt(out, "option '%.120s'", o.v[i].text);
    } else if (cnt > 1) {
        char cands[200];
        size_t w = 0;
        cands[0] = '\0';
        char want_low[256];
        fold(text, 1, want_low, sizeof want_low);
        for (int i = 0; i < o.n; i++) {
            char tl[256];
            fold(o.v[i].text, 1, tl, sizeof tl);
            int same = level == CASCADE_MATCH_PREFIX ? strncmp(tl, want_low, strlen(want_low)) == 0
                       : level == CASCADE_MATCH_CASE ? strcmp(tl, want_low) == 0
                                                     : strcmp(o.v[i].text, o.v[idx].text) == 0;
            if (!same)
                continue;
            int r = snprintf(cands + w, sizeof cands - w, "%s'%.40s'", w ? ", " : "", o.v[i].text);
            if (r > 0 && (size_t)r < sizeof cands - w)
                w += (size_t)r;
            if (out->n_alternatives < 4)
                cascade__alt(out, "option '%.120s'", o.v[i].text);
        }
        cascade__msg(out, CASCADE_AMBIGUOUS, "'%.60s' matches %d options of %s: %s; give the whole text",
                     text, cnt, label, cands);
    } else if (o.v[idx].disabled) {
        cascade__msg(out, CASCADE_DISABLED, "option '%.80s' of %s is disabled; nothing chosen",
                     o.v[idx].text, label);
    }
    base_free(texts);
    if (out->reason != CASCADE_OK) {
        if (o.opened)
            close_with_escape(h);
        goto end;
    }
    cascade_option *op = &o.v[idx];
    if (o.native) {
        cascade_target st = *t;
        if (sel_xpath)
            st.xpath = sel_xpath;
        /* Complete or not sent: without its text or index the page half
         * would choose another option. */
        cJSON *a = cascade__xpath_arg(st.xpath);
        if (!cJSON_AddStringToObject(a, "text", op->text) ||
            !cJSON_AddNumberToObject(a, "index", op->index)) {
            cJSON_Delete(a);
            a = NULL;
        }
        cJSON *v = NULL;
        int asked = a != NULL;
        double tt = base_monotime_ms();
        cascade_try *tr = cascade__try(out, 3);
        e = asked ? cascade__call(h, t->frame_id ? t->frame_id : "", "selectOption", a, 1, &v,
                                  10000, err)
                  : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
        if (e) {
            out->delivered = asked; /* the script may have run */
            cascade__msg(out, CASCADE_ERROR, "choosing in %s failed: %s", label,
                         err && err[0] ? err : base_strerror(e));
            goto end;
        }
        int ok = cascade__bool(v, "ok");
        const char *why = cascade__str(v, "why");
        if (tr) {
            tr->success = ok;
            tr->ms = base_monotime_ms() - tt;
            snprintf(tr->outcome, sizeof tr->outcome, "%.95s",
                     ok ? "native <select> set (scripted)" : why ? why : "failed");
        }
        if (ok) {
            out->success = 1;
            out->delivered = 1;
            out->effects |= op->selected ? 0 : CASCADE_FX_VALUE;
            cascade__msg(out, CASCADE_OK, "chose '%.100s' in <select> %.100s (scripted)",
                         op->text, label);
        } else {
            cascade__msg(out, CASCADE_NOT_FOUND, "<select> %s: %s", label, why ? why : "failed");
        }
        cJSON_Delete(v);
        goto end;
    }
    /* A custom listbox: press the option like a person. */
    cascade_target ot;
    memset(&ot, 0, sizeof ot);
    ot.xpath = op->xpath;
    ot.frame_id = t->frame_id;
    ot.label = op->text;
    cascade_result cr;
    e = cascade_click(h, &ot, &cr, err);
    /* Keep the opening click's tier in tried[] before the option's. */
    cascade_result merged = *out;
    merged.success = cr.success;
    merged.reason = cr.reason;
    merged.delivered = 1;
    merged.effects |= cr.effects;
    for (int i = 0; i < cr.n_tried && merged.n_tried < 3; i++)
        merged.tried[merged.n_tried++] = cr.tried[i];
    merged.clicked_at = cr.clicked_at;
    *out = merged;
    if (cr.success)
        cascade__msg(out, cr.reason, "chose '%.100s' in %.100s (%.80s)", op->text, label,
                     cr.message);
    else
        snprintf(out->message, sizeof out->message, "option '%.60s' of %.60s: %.120s", op->text,
                 label, cr.message);
    if (!cr.delivered && !cr.success)
        close_with_escape(h);

end:
    base_free(sel_xpath);
    cascade_options_fini(&o);
    out->ms = base_monotime_ms() - t0;
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "dropdown %s: %s", label, out->message);
    return e;
}
