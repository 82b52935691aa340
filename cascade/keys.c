/* cascade/keys.c: key presses and chords ("Enter", "Shift+Tab",
 * "Control+A") as trusted CDP key events.
 *
 * A chord parses (pure) into the fields Input.dispatchKeyEvent wants: the
 * DOM key and code, the Windows virtual key code, the text a printable key
 * inserts and the modifier mask, on a US layout. Pressing it sends the
 * modifiers' rawKeyDown, the key's keyDown (with text: Chromium then fires
 * keypress and inserts it) or rawKeyDown (no text), its keyUp and the
 * modifiers' keyUp in reverse, the way a keyboard does. Blink's own editing
 * key bindings turn Control+A / C / X / V / Z into their commands on Linux
 * and Windows, so no "commands" are sent (they would run twice).
 *
 * Effects are watched like a click's (observe.c): the page half takes a
 * baseline of the document, its fields, the focus and the selection, and a
 * trusted keydown listener in the isolated world names the element the keys
 * reached.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"
#include "cascade/input.h"

void cascade__ascii_key(char c, char *code, size_t n, int *vk, int *shift)
{
    static const char shifted_digits[] = ")!@#$%^&*(";
    static const struct {
        char plain, shifted;
        const char *code;
        int vk;
    } punct[] = {
        {'-', '_', "Minus", 189},       {'=', '+', "Equal", 187},     {'[', '{', "BracketLeft", 219},
        {']', '}', "BracketRight", 221}, {'\\', '|', "Backslash", 220}, {';', ':', "Semicolon", 186},
        {'\'', '"', "Quote", 222},      {',', '<', "Comma", 188},     {'.', '>', "Period", 190},
        {'/', '?', "Slash", 191},       {'`', '~', "Backquote", 192},
    };
    *shift = 0;
    if (c >= 'a' && c <= 'z') {
        snprintf(code, n, "Key%c", c - 32);
        *vk = c - 32;
        return;
    }
    if (c >= 'A' && c <= 'Z') {
        snprintf(code, n, "Key%c", c);
        *vk = c;
        *shift = 1;
        return;
    }
    if (c >= '0' && c <= '9') {
        snprintf(code, n, "Digit%c", c);
        *vk = c;
        return;
    }
    if (c == ' ') {
        snprintf(code, n, "Space");
        *vk = 32;
        return;
    }
    const char *sd = c ? strchr(shifted_digits, c) : NULL;
    if (sd) {
        snprintf(code, n, "Digit%d", (int)(sd - shifted_digits));
        *vk = '0' + (int)(sd - shifted_digits);
        *shift = 1;
        return;
    }
    for (size_t i = 0; i < sizeof punct / sizeof punct[0]; i++) {
        if (c == punct[i].plain || c == punct[i].shifted) {
            snprintf(code, n, "%s", punct[i].code);
            *vk = punct[i].vk;
            *shift = c == punct[i].shifted;
            return;
        }
    }
    code[0] = '\0';
    *vk = 0;
}

/* Named keys: canonical name (= DOM key), code, virtual key, text. */
typedef struct named_key {
    const char *name, *code;
    int vk;
    const char *text;
} named_key;

static const named_key NAMED[] = {
    {"Enter", "Enter", 13, "\r"},     {"Tab", "Tab", 9, NULL},
    {"Escape", "Escape", 27, NULL},   {"Backspace", "Backspace", 8, NULL},
    {"Delete", "Delete", 46, NULL},   {"Insert", "Insert", 45, NULL},
    {"ArrowUp", "ArrowUp", 38, NULL}, {"ArrowDown", "ArrowDown", 40, NULL},
    {"ArrowLeft", "ArrowLeft", 37, NULL}, {"ArrowRight", "ArrowRight", 39, NULL},
    {"Home", "Home", 36, NULL},       {"End", "End", 35, NULL},
    {"PageUp", "PageUp", 33, NULL},   {"PageDown", "PageDown", 34, NULL},
    {"F1", "F1", 112, NULL},          {"F2", "F2", 113, NULL},
    {"F3", "F3", 114, NULL},          {"F4", "F4", 115, NULL},
    {"F5", "F5", 116, NULL},          {"F6", "F6", 117, NULL},
    {"F7", "F7", 118, NULL},          {"F8", "F8", 119, NULL},
    {"F9", "F9", 120, NULL},          {"F10", "F10", 121, NULL},
    {"F11", "F11", 122, NULL},        {"F12", "F12", 123, NULL},
    {"CapsLock", "CapsLock", 20, NULL}, {"ContextMenu", "ContextMenu", 93, NULL},
    {"Pause", "Pause", 19, NULL},     {"PrintScreen", "PrintScreen", 44, NULL},
};

typedef struct alias {
    const char *alias, *name;
} alias;

static const alias ALIASES[] = {
    {"Esc", "Escape"},    {"Del", "Delete"},       {"Return", "Enter"},  {"Up", "ArrowUp"},
    {"Down", "ArrowDown"}, {"Left", "ArrowLeft"},  {"Right", "ArrowRight"}, {"PgUp", "PageUp"},
    {"PgDn", "PageDown"}, {"Ins", "Insert"},       {"Menu", "ContextMenu"},
};

typedef struct modifier {
    const char *name, *code;
    int vk, bit;
} modifier;

static const modifier MODS[] = {
    {"Alt", "AltLeft", 18, CASCADE_MOD_ALT},
    {"Control", "ControlLeft", 17, CASCADE_MOD_CTRL},
    {"Meta", "MetaLeft", 91, CASCADE_MOD_META},
    {"Shift", "ShiftLeft", 16, CASCADE_MOD_SHIFT},
};

static const alias MOD_ALIASES[] = {
    {"Ctrl", "Control"}, {"Cmd", "Meta"},     {"Command", "Meta"}, {"Super", "Meta"},
    {"Win", "Meta"},     {"Option", "Alt"},   {"Opt", "Alt"},
};

static const modifier *mod_find(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof MODS / sizeof MODS[0]; i++)
        if (strlen(MODS[i].name) == n && strncasecmp(MODS[i].name, s, n) == 0)
            return &MODS[i];
    for (size_t i = 0; i < sizeof MOD_ALIASES / sizeof MOD_ALIASES[0]; i++)
        if (strlen(MOD_ALIASES[i].alias) == n && strncasecmp(MOD_ALIASES[i].alias, s, n) == 0)
            return mod_find(MOD_ALIASES[i].name, strlen(MOD_ALIASES[i].name));
    return NULL;
}

static const named_key *named_find(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++)
        if (strlen(NAMED[i].name) == n && strncasecmp(NAMED[i].name, s, n) == 0)
            return &NAMED[i];
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (strlen(ALIASES[i].alias) == n && strncasecmp(ALIASES[i].alias, s, n) == 0)
            return named_find(ALIASES[i].name, strlen(ALIASES[i].name));
    return NULL;
}

/* Edit distance of a (n bytes) and b, case folded, capped at 9. */
static int edit_distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > 31 || m > 31)
        return 9;
    int d[32][32];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + c;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            d[i][j] = v;
        }
    return d[n][m] > 9 ? 9 : d[n][m];
}

/* "closest: Enter, End, Escape": the known names nearest to s (a name that
 * starts with s counts as near). */
static void closest_names(const char *s, size_t n, char *buf, size_t cap)
{
    const char *names[64];
    int dist[64], k = 0;
    for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0] && k < 64; i++)
        names[k++] = NAMED[i].name;
    for (size_t i = 0; i < sizeof MODS / sizeof MODS[0] && k < 64; i++)
        names[k++] = MODS[i].name;
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0] && k < 64; i++)
        names[k++] = ALIASES[i].alias;
    for (int i = 0; i < k; i++) {
        dist[i] = edit_distance(s, n, names[i]);
        if (n >= 2 && strncasecmp(names[i], s, n) == 0 && dist[i] > 1)
            dist[i] = 1;
    }
    size_t w = 0;
    buf[0] = '\0';
    int shown = 0;
    for (int lim = 0; lim <= 4 && shown < 4; lim++)
        for (int i = 0; i < k && shown < 4; i++) {
            if (dist[i] != lim)
                continue;
            int r = snprintf(buf + w, cap - w, "%s%s", shown ? ", " : "", names[i]);
            if (r < 0 || (size_t)r >= cap - w)
                return;
            w += (size_t)r;
            shown++;
        }
    if (!shown)
        snprintf(buf, cap, "Enter, Tab, Escape, ArrowDown, Control+A, a single character");
}

base_err cascade_key_parse(const char *chord, cascade_key *out, char *err)
{
    if (!chord || !out)
        return base_errf(err, BASE_EINVAL, "cascade_key_parse: NULL chord");
    memset(out, 0, sizeof *out);
    size_t len = strlen(chord);
    if (len == 0)
        return base_errf(err, BASE_EINVAL, "empty key name");
    if (len > 64)
        return base_errf(err, BASE_EINVAL, "key name too long: '%.40s...'", chord);
    int mods = 0;
    const char *p = chord;
    const char *end = chord + len;
    /* Modifiers: every part before the last '+'; "Control++" and "+" press
     * the plus key itself. */
    for (;;) {
        const char *plus = memchr(p, '+', (size_t)(end - p));
        if (!plus || plus == end - 1)
            break;
        if (plus == p) { /* "++x" or "+x": an empty modifier */
            return base_errf(err, BASE_EINVAL, "bad key chord '%s': empty part before '+'", chord);
        }
        const modifier *m = mod_find(p, (size_t)(plus - p));
        if (!m) {
            char near[160];
            closest_names(p, (size_t)(plus - p), near, sizeof near);
            return base_errf(err, BASE_EINVAL, "unknown modifier '%.*s' in '%s' (closest: %s)",
                             (int)(plus - p), p, chord, near);
        }
        if (mods & m->bit)
            return base_errf(err, BASE_EINVAL, "bad key chord '%s': %s given twice", chord,
                             m->name);
        mods |= m->bit;
        p = plus + 1;
    }
    size_t kn = (size_t)(end - p);
    char name[48] = "";
    int np = 0;
    const named_key *nk = NULL;
    const modifier *mk = NULL;
    if (kn == 1 && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f) {
        char c = *p;
        int vk = 0, shift = 0;
        cascade__ascii_key(c, out->code, sizeof out->code, &vk, &shift);
        out->vk = vk;
        if (mods & (CASCADE_MOD_CTRL | CASCADE_MOD_ALT | CASCADE_MOD_META)) {
            /* A shortcut: the letter as the layout gives it under the
             * modifiers held (Control+A is key "a"; Control+Shift+A "A"). */
            if (c >= 'A' && c <= 'Z' && !(mods & CASCADE_MOD_SHIFT))
                c = (char)(c + 32);
            else if (c >= 'a' && c <= 'z' && (mods & CASCADE_MOD_SHIFT))
                c = (char)(c - 32);
            out->key[0] = c;
        } else {
            if (shift)
                mods |= CASCADE_MOD_SHIFT;
            else if ((mods & CASCADE_MOD_SHIFT) && c >= 'a' && c <= 'z')
                c = (char)(c - 32); /* "Shift+a" types "A" */
            out->key[0] = c;
            out->text[0] = c;
        }
        snprintf(name, sizeof name, "%c", c == ' ' ? ' ' : c);
        if (c == ' ')
            snprintf(name, sizeof name, "Space");
        np = 1;
    } else if (kn == 5 && strncasecmp(p, "Space", 5) == 0) {
        snprintf(out->key, sizeof out->key, " ");
        snprintf(out->code, sizeof out->code, "Space");
        out->vk = 32;
        if (!(mods & (CASCADE_MOD_CTRL | CASCADE_MOD_ALT | CASCADE_MOD_META)))
            snprintf(out->text, sizeof out->text, " ");
        snprintf(name, sizeof name, "Space");
        np = 1;
    } else if (kn == 4 && strncasecmp(p, "Plus", 4) == 0) {
        int vk, shift;
        cascade__ascii_key('+', out->code, sizeof out->code, &vk, &shift);
        out->vk = vk;
        snprintf(out->key, sizeof out->key, "+");
        if (!(mods & (CASCADE_MOD_CTRL | CASCADE_MOD_ALT | CASCADE_MOD_META))) {
            snprintf(out->text, sizeof out->text, "+");
            mods |= CASCADE_MOD_SHIFT;
        }
        snprintf(name, sizeof name, "Plus");
        np = 1;
    } else if ((nk = named_find(p, kn)) != NULL) {
        snprintf(out->key, sizeof out->key, "%s", nk->name);
        snprintf(out->code, sizeof out->code, "%s", nk->code);
        out->vk = nk->vk;
        if (nk->text && !(mods & (CASCADE_MOD_CTRL | CASCADE_MOD_ALT | CASCADE_MOD_META)))
            snprintf(out->text, sizeof out->text, "%s", nk->text);
        snprintf(name, sizeof name, "%s", nk->name);
        np = 1;
    } else if ((mk = mod_find(p, kn)) != NULL && !mods) {
        /* A modifier alone ("Shift"): pressed and released. */
        snprintf(out->key, sizeof out->key, "%s", mk->name);
        snprintf(out->code, sizeof out->code, "%s", mk->code);
        out->vk = mk->vk;
        snprintf(name, sizeof name, "%s", mk->name);
        np = 1;
    }
    if (!np) {
        char near[160];
        closest_names(p, kn, near, sizeof near);
        return base_errf(err, BASE_EINVAL, "unknown key '%.*s'%s%s%s (closest: %s)", (int)kn, p,
                         p != chord ? " in '" : "", p != chord ? chord : "",
                         p != chord ? "'" : "", near);
    }
    out->modifiers = mods;
    /* The canonical chord, modifiers in a fixed order. */
    size_t w = 0;
    static const int order[] = {CASCADE_MOD_CTRL, CASCADE_MOD_ALT, CASCADE_MOD_META,
                                CASCADE_MOD_SHIFT};
    static const char *const oname[] = {"Control", "Alt", "Meta", "Shift"};
    int typed_shift = out->text[0] && (mods & CASCADE_MOD_SHIFT) && kn == 1;
    for (int i = 0; i < 4; i++) {
        if (!(mods & order[i]) || (order[i] == CASCADE_MOD_SHIFT && typed_shift))
            continue;
        int r = snprintf(out->name + w, sizeof out->name - w, "%s+", oname[i]);
        if (r < 0 || (size_t)r >= sizeof out->name - w)
            break;
        w += (size_t)r;
    }
    snprintf(out->name + w, sizeof out->name - w, "%s", name);
    return BASE_OK;
}

base_err cascade_keys_parse(const char *spec, cascade_key *out, int max, int *n, char *err)
{
    if (!spec || !out || !n || max < 1)
        return base_errf(err, BASE_EINVAL, "cascade_keys_parse: bad arguments");
    *n = 0;
    const char *p = spec;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t' && *q != '\n')
            q++;
        char one[80];
        if ((size_t)(q - p) >= sizeof one)
            return base_errf(err, BASE_EINVAL, "key name too long: '%.40s...'", p);
        memcpy(one, p, (size_t)(q - p));
        one[q - p] = '\0';
        if (*n >= max)
            return base_errf(err, BASE_EINVAL, "too many keys (at most %d)", max);
        base_err e = cascade_key_parse(one, &out[*n], err);
        if (e)
            return e;
        (*n)++;
        p = q;
    }
    if (!*n)
        return base_errf(err, BASE_EINVAL, "no keys given");
    return BASE_OK;
}

/* ---------- dispatch ---------- */

cJSON *cascade__key_event(const char *type, const char *key, const char *code, int vk,
                          const char *text, int modifiers)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "type", type) ||
        !cJSON_AddStringToObject(pa, "key", key) ||
        (code && code[0] && !cJSON_AddStringToObject(pa, "code", code)) ||
        (vk && (!cJSON_AddNumberToObject(pa, "windowsVirtualKeyCode", vk) ||
                !cJSON_AddNumberToObject(pa, "nativeVirtualKeyCode", vk))) ||
        (text && text[0] &&
         (!cJSON_AddStringToObject(pa, "text", text) ||
          !cJSON_AddStringToObject(pa, "unmodifiedText", text))) ||
        (modifiers && !cJSON_AddNumberToObject(pa, "modifiers", modifiers))) {
        cJSON_Delete(pa);
        return NULL;
    }
    return pa;
}

/* The events of one press of k (at most 10): modifiers down, key down, key
 * up, modifiers up. Returns how many. */
static int press_events(const cascade_key *k, cJSON **ev)
{
    int n = 0, held = 0;
    for (size_t i = 0; i < sizeof MODS / sizeof MODS[0]; i++) {
        if (!(k->modifiers & MODS[i].bit))
            continue;
        held |= MODS[i].bit;
        ev[n++] =
            cascade__key_event("rawKeyDown", MODS[i].name, MODS[i].code, MODS[i].vk, NULL, held);
    }
    ev[n++] = cascade__key_event(k->text[0] ? "keyDown" : "rawKeyDown", k->key, k->code, k->vk,
                                 k->text, held);
    ev[n++] = cascade__key_event("keyUp", k->key, k->code, k->vk, NULL, held);
    for (int i = (int)(sizeof MODS / sizeof MODS[0]) - 1; i >= 0; i--) {
        if (!(k->modifiers & MODS[i].bit))
            continue;
        held &= ~MODS[i].bit;
        ev[n++] = cascade__key_event("keyUp", MODS[i].name, MODS[i].code, MODS[i].vk, NULL, held);
    }
    return n;
}

/* Sends the events of keys (repeat times). Humanized: each event after a
 * short human delay (a key held 40-90 ms, 60-160 ms between presses);
 * otherwise each press is pipelined. *sent: 1 once any event went out. */
static base_err dispatch_keys(cascade_hand *h, const cascade_key *keys, int n, int repeat,
                              int *sent, char *err)
{
    static const char *const DK[10] = {
        "Input.dispatchKeyEvent", "Input.dispatchKeyEvent", "Input.dispatchKeyEvent",
        "Input.dispatchKeyEvent", "Input.dispatchKeyEvent", "Input.dispatchKeyEvent",
        "Input.dispatchKeyEvent", "Input.dispatchKeyEvent", "Input.dispatchKeyEvent",
        "Input.dispatchKeyEvent"};
    for (int r = 0; r < repeat; r++) {
        for (int i = 0; i < n; i++) {
            cJSON *ev[10] = {0};
            int m = press_events(&keys[i], ev);
            for (int j = 0; j < m; j++)
                if (!ev[j]) {
                    for (int k = 0; k < m; k++)
                        cJSON_Delete(ev[k]);
                    return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
                }
            if (!h->o.humanize) {
                *sent = 1;
                base_err e = cascade__pipeline(h, DK, ev, m, err);
                if (e)
                    return e;
                continue;
            }
            if (r || i)
                base_sleep_ms(60 + (double)base_rng_below(&h->rng, 100));
            for (int j = 0; j < m; j++) {
                /* Modifiers lead the key by a few ms; the key is held. */
                const char *type = cascade__str(ev[j], "type");
                if (j && type && strcmp(type, "keyUp") == 0)
                    base_sleep_ms(40 + (double)base_rng_below(&h->rng, 50));
                else if (j)
                    base_sleep_ms(15 + (double)base_rng_below(&h->rng, 25));
                *sent = 1;
                base_err e = cdp_page_call(h->page, "Input.dispatchKeyEvent", ev[j], NULL, 10000,
                                           err);
                ev[j] = NULL;
                if (e) {
                    for (int k = j + 1; k < m; k++)
                        cJSON_Delete(ev[k]);
                    return e;
                }
            }
        }
    }
    return BASE_OK;
}


/* "Control+A, Delete" (x3): the keys as the message shows them. */
static void keys_label(const cascade_key *keys, int n, int repeat, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int r = snprintf(buf + w, cap - w, "%s%s", i ? ", " : "", keys[i].name);
        if (r < 0 || (size_t)r >= cap - w)
            return;
        w += (size_t)r;
    }
    if (repeat > 1)
        snprintf(buf + w, cap - w, " (x%d)", repeat);
}

base_err cascade_keys(cascade_hand *h, const cascade_target *t, const cascade_key *keys, int n,
                      int repeat, cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_keys: NULL result");
    cascade__result_init(out);
    if (!h || !keys || n < 1 || repeat < 1 || repeat > 100) {
        cascade__msg(out, CASCADE_ERROR, "invalid arguments: give 1 or more keys, repeat 1..100");
        return base_errf(err, BASE_EINVAL, "cascade_keys: bad hand, keys or repeat");
    }
    double t0 = base_monotime_ms();
    char label[200];
    keys_label(keys, n, repeat, label, sizeof label);
    int has_target = t && ((t->xpath && t->xpath[0]) || t->have_pt);
    const char *fid = has_target && t->frame_id ? t->frame_id : "";
    if (has_target) {
        /* Focus the target the way a person does: a click (refused when
         * covered, disabled or gone, like any click). */
        cascade_target ft = *t;
        ft.expect_effect = -1;
        base_err e = cascade_click(h, &ft, out, err);
        if (e || !out->delivered) {
            char m[256];
            snprintf(m, sizeof m, "%s", out->message);
            cascade__msg(out, out->reason == CASCADE_OK ? CASCADE_NO_EFFECT : out->reason,
                         "keys %s not pressed: could not focus the target: %.180s", label, m);
            out->ms = base_monotime_ms() - t0;
            return e;
        }
        if (ft.xpath && ft.xpath[0]) {
            cJSON *a = cascade__xpath_arg(ft.xpath);
            cJSON *ign = NULL;
            /* A click on a wrapper may leave focus outside the control
             * (best effort: without its argument nothing is asked). */
            if (a)
                (void)cascade__call(h, fid, "focusEl", a, 1, &ign, 10000, NULL);
            cJSON_Delete(ign);
        }
        /* Keys go where the browser holds focus (cascade_int.h). */
        (void)cascade__frame_focus_wait(h, fid, 1000);
        /* The focusing click's tier and effects stay in tried[]; the keys'
         * verdict replaces its message. */
        out->success = 0;
        out->effects = 0;
    }
    cJSON *arm = NULL;
    base_err e = cascade__call(h, fid, "keysArm", NULL, 1, &arm, 10000, err);
    if (e) {
        cascade__msg(out, CASCADE_ERROR, "keys %s not pressed: %s", label,
                     err && err[0] ? err : base_strerror(e));
        out->ms = base_monotime_ms() - t0;
        return e;
    }
    char focus[128];
    const char *f = cascade__str(arm, "focus");
    snprintf(focus, sizeof focus, "%s", f ? f : "");
    cJSON_Delete(arm);
    /* The effect baseline the page half took in keysArm. */
    char url[1024];
    cascade__top_url(h, url, sizeof url);
    cascade__fx_snap fx0;
    cascade__fx_snapshot(h, &fx0);
    cascade_try *tr = cascade__try(out, 1);
    double tk = base_monotime_ms();
    int sent = 0;
    e = dispatch_keys(h, keys, n, repeat, &sent, err);
    if (e) {
        out->delivered = sent; /* some keys went out: they may have acted */
        cascade__msg(out, CASCADE_ERROR, "keys %s failed: %s", label,
                     err && err[0] ? err : base_strerror(e));
        out->ms = base_monotime_ms() - t0;
        return e;
    }
    out->delivered = 1;
    /* The page half compares with the baseline keysArm took (its S.base),
     * so muts and url here are only the fallback it never needs. */
    cascade__watch w = {h, fid, NULL, 0, url, NULL, &fx0, 0, -1};
    cascade__obs o;
    char e2[BASE_ERRBUF_SIZE] = "";
    e = cascade__wait_effect(&w, h->o.effect_ms, &o, e2);
    if (e) {
        cascade__msg(out, CASCADE_ERROR, "keys %s pressed, then the page failed: %s", label, e2);
        out->ms = base_monotime_ms() - t0;
        return base_errf(err, e, "%s", e2);
    }
    cascade__obs_add_browser(&w, &o, out);
    char on[128] = "";
    cJSON *seen = NULL;
    if (!(o.fx & CASCADE_FX_URL) &&
        cascade__call(h, fid, "keysSeen", NULL, 1, &seen, 5000, NULL) == BASE_OK) {
        const char *s = cascade__str(seen, "on");
        snprintf(on, sizeof on, "%s", s ? s : "");
    }
    cJSON_Delete(seen);
    const char *where = on[0] ? on : focus[0] ? focus : "the page";
    tr->success = 1;
    tr->ms = base_monotime_ms() - tk;
    snprintf(tr->outcome, sizeof tr->outcome, "%s", o.what[0] ? o.what : "no visible effect");
    out->success = 1;
    if (o.fx)
        cascade__msg(out, CASCADE_OK, "pressed %s on %s: %s", label, where, o.what);
    else
        cascade__msg(out, CASCADE_NO_VISIBLE_EFFECT, "pressed %s on %s: delivered, no visible effect",
                     label, where);
    out->ms = base_monotime_ms() - t0;
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "keys %s: %s", label, out->message);
    return BASE_OK;
}
