/* agent/plan/evict.c: Algorithm 3's six passes and the ledger block (evict.h). */
#include "agent/plan/evict.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/permit.h"
#include "model/tokens.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_get.h"

void agent_evict_opts_default(agent_evict_opts *o)
{
    memset(o, 0, sizeof *o);
    o->keep_screenshots = 2;
    o->keep_failures = 1;
    o->keep_state_turns = 2;
    o->keep_thinking = 3;
    o->gut_above = 30;
    o->gut_keep_turns = 5;
    o->keep_element_lists = 1;
    o->keep_tool_data = 1;
    o->role = AGENT_ROLE_WORKER;
}

static const char *role_of(const cJSON *m)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "role");
    return cJSON_IsString(r) ? r->valuestring : "";
}

static int is_role(const cJSON *m, const char *role)
{
    return strcmp(role_of(m), role) == 0;
}

static int is_ledger_block(const cJSON *m)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    return is_role(m, "system") && cJSON_IsString(c) && strncmp(c->valuestring, "[LEDGER", 7) == 0;
}

/* Replaces a string item's text (cJSON has no portable setter for this). */
static int set_text(cJSON *s, const char *text, size_t n)
{
    char *c = cJSON_malloc(n + 1);
    if (!c)
        return -1;
    memcpy(c, text, n);
    c[n] = 0;
    cJSON_free(s->valuestring);
    s->valuestring = c;
    return 0;
}

/* Replaces member old of obj by rep under name; -1 (rep deleted, obj
 * unchanged) when the name cannot be copied. cJSON's own
 * ReplaceItemInObject inserts a nameless member when that copy fails. */
static int replace_member(cJSON *obj, cJSON *old, const char *name, cJSON *rep)
{
    char *key = cJSON_malloc(strlen(name) + 1);
    if (!key) {
        cJSON_Delete(rep);
        return -1;
    }
    memcpy(key, name, strlen(name) + 1);
    rep->string = key;
    cJSON_ReplaceItemViaPointer(obj, old, rep);
    return 0;
}

/* The text items of a message: its string content, or its text parts. */
typedef struct texts {
    cJSON *item[64];
    int n;
} texts;

static void texts_of(cJSON *m, texts *t)
{
    t->n = 0;
    cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (cJSON_IsString(c)) {
        t->item[t->n++] = c;
        return;
    }
    if (!cJSON_IsArray(c))
        return;
    for (cJSON *p = c->child; p && t->n < 64; p = p->next) {
        cJSON *tx = cJSON_GetObjectItemCaseSensitive(p, "text");
        if (cJSON_IsString(tx))
            t->item[t->n++] = tx;
    }
}

/* A turn starts at a user message, or at an assistant message that does
 * not follow one (system messages do not count as "following"). */
static int starts_turn(const cJSON *m, const cJSON *prev)
{
    return is_role(m, "user") || (is_role(m, "assistant") && !(prev && is_role(prev, "user")));
}

/* The index before which messages are older than the newest k turns
 * (0: nothing older; k <= 0: everything is older). */
static int older_than_turns(const cJSON *msgs, int k)
{
    int n = 0;
    int i = 0;
    const cJSON *prev = NULL;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        if (i > 0 && starts_turn(m, prev))
            n++;
        if (!is_role(m, "system"))
            prev = m;
    }
    if (k <= 0)
        return i;
    if (n <= k)
        return 0;
    int want = n - k; /* the index of the first kept turn among the starts */
    n = 0;
    i = 0;
    prev = NULL;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        if (i > 0 && starts_turn(m, prev) && n++ == want)
            return i;
        if (!is_role(m, "system"))
            prev = m;
    }
    return 0;
}

/* ---- blocks inside texts ---- */

typedef struct blockspan {
    size_t at;
    size_t end;
} blockspan;

/* The next block opening with `open` at or after from; 0 when none. */
static int next_block(const char *s, size_t from, const char *open, const char *close,
                      blockspan *b)
{
    const char *p = strstr(s + from, open);
    if (!p)
        return 0;
    b->at = (size_t)(p - s);
    const char *q = strstr(p + strlen(open), close);
    b->end = q ? (size_t)(q - s) + strlen(close) : strlen(s);
    return 1;
}

static int count_blocks(const char *s, const char *open, const char *close)
{
    int n = 0;
    blockspan b;
    size_t from = 0;
    while (next_block(s, from, open, close, &b)) {
        n++;
        from = b.end > b.at ? b.end : b.at + 1;
    }
    return n;
}

/* Rewrites the blocks of one text: keep(ctx, block, len) says which stay;
 * the others become mark. Returns the number replaced, -1 on ENOMEM. */
static int rewrite_blocks(cJSON *item, const char *open, const char *close, const char *mark,
                          int (*keep)(void *ctx, const char *block, size_t len), void *ctx)
{
    const char *s = item->valuestring;
    blockspan b;
    size_t from = 0;
    int replaced = 0;
    base_buf out;
    base_buf_init(&out, (size_t)1 << 30);
    while (next_block(s, from, open, close, &b)) {
        if (!keep(ctx, s + b.at, b.end - b.at)) {
            if (base_buf_append(&out, s + from, b.at - from) != BASE_OK ||
                base_buf_append_str(&out, mark) != BASE_OK) {
                base_buf_fini(&out);
                return -1;
            }
            replaced++;
        } else if (base_buf_append(&out, s + from, b.end - from) != BASE_OK) {
            base_buf_fini(&out);
            return -1;
        }
        from = b.end > b.at ? b.end : b.at + 1;
    }
    if (replaced) {
        if (base_buf_append_str(&out, s + from) != BASE_OK ||
            set_text(item, (const char *)out.data, out.len) != 0) {
            base_buf_fini(&out);
            return -1;
        }
    }
    base_buf_fini(&out);
    return replaced;
}

/* "[SESSION_STATE url=U title=T]": U and T (copied, cut to cap). */
static void state_header(const char *block, size_t len, char *url, size_t ucap, char *title,
                         size_t tcap)
{
    url[0] = 0;
    title[0] = 0;
    const char *eoh = memchr(block, ']', len);
    size_t hl = eoh ? (size_t)(eoh - block) : len;
    const char *u = NULL;
    const char *t = NULL;
    for (size_t i = 0; i + 4 <= hl; i++) {
        if (!u && memcmp(block + i, "url=", 4) == 0)
            u = block + i + 4;
        if (i + 6 <= hl && memcmp(block + i, "title=", 6) == 0)
            t = block + i + 6;
    }
    if (u) {
        size_t ul = (size_t)((t && t > u ? t - 6 : block + hl) - u);
        while (ul > 0 && u[ul - 1] == ' ')
            ul--;
        snprintf(url, ucap, "%.*s", (int)ul, u);
    }
    if (t)
        snprintf(title, tcap, "%.*s", (int)(block + hl - t), t);
}

#define STATE_OPEN "[SESSION_STATE"
#define STATE_CLOSE "[/SESSION_STATE]"
#define ELEMENTS_OPEN "[ELEMENTS"
#define DATA_MARK AGENT_EVICT_DATA_MARK
#define DATA_SMALL 400 /* a tool result's data this short (JSON bytes) is never dropped */
#define ELEMENTS_CLOSE "[/ELEMENTS]"

int agent_evict_current_page(const cJSON *msgs, char *url, size_t url_cap, char *title,
                             size_t title_cap)
{
    url[0] = 0;
    title[0] = 0;
    if (!cJSON_IsArray(msgs))
        return 0;
    int found = 0;
    for (const cJSON *m = msgs->child; m; m = m->next) {
        texts t;
        texts_of((cJSON *)(uintptr_t)m, &t);
        for (int i = 0; i < t.n; i++) {
            const char *s = t.item[i]->valuestring;
            blockspan b;
            size_t from = 0;
            while (next_block(s, from, STATE_OPEN, STATE_CLOSE, &b)) {
                state_header(s + b.at, b.end - b.at, url, url_cap, title, title_cap);
                found = 1;
                from = b.end > b.at ? b.end : b.at + 1;
            }
        }
    }
    return found;
}

/* ---- the passes ---- */

/* Phase 1: the newest k image parts stay; older ones become a text part. */
static int pass_screenshots(cJSON *msgs, const agent_evict_opts *o)
{
    int seen = 0;
    int changed = 0;
    for (cJSON *m = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1); m; m = m->prev) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (cJSON_IsArray(c) && c->child) {
            for (cJSON *p = cJSON_GetArrayItem(c, cJSON_GetArraySize(c) - 1); p;) {
                cJSON *before = p == c->child ? NULL : p->prev;
                const cJSON *type = cJSON_GetObjectItemCaseSensitive(p, "type");
                if (cJSON_IsString(type) && strcmp(type->valuestring, "image_url") == 0 &&
                    ++seen > o->keep_screenshots) {
                    cJSON *t = cJSON_CreateObject();
                    if (!t || !cJSON_AddStringToObject(t, "type", "text") ||
                        !cJSON_AddStringToObject(t, "text", AGENT_EVICT_SCREENSHOT_MARK)) {
                        cJSON_Delete(t);
                        return -1;
                    }
                    cJSON_ReplaceItemViaPointer(c, p, t);
                    changed++;
                }
                p = before;
            }
        }
        if (m == msgs->child)
            break;
    }
    return changed;
}

/* The failure a tool message reports, or NULL (caller deletes); *nomem
 * is set when the parse ran out of memory (then "not a failure" would be
 * a guess). */
static cJSON *failure_of(const cJSON *m, int *nomem)
{
    if (!is_role(m, "tool"))
        return NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (!cJSON_IsString(c))
        return NULL;
    /* Tool results are quoted in the untrusted-text frame (permit.h). */
    size_t n = 0;
    const char *in = agent_untrusted_inner(c->valuestring, &n);
    if (n == 0 || in[0] != '{')
        return NULL;
    unsigned long failures = base_alloc_thread_failures();
    cJSON *j = cJSON_ParseWithLength(in, n);
    if (!j && base_alloc_thread_failures() != failures)
        *nomem = 1;
    if (!cJSON_IsObject(j) || !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "ok"))) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* The tool name and arguments of the call a tool message answers. */
static void call_of(const cJSON *msgs, const cJSON *tool_msg, const char **name, const char **args)
{
    *name = "tool";
    *args = "";
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(tool_msg, "tool_call_id");
    if (!cJSON_IsString(id))
        return;
    for (const cJSON *m = msgs->child; m && m != tool_msg; m = m->next) {
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
        for (const cJSON *c = cJSON_IsArray(calls) ? calls->child : NULL; c; c = c->next) {
            const cJSON *cid = cJSON_GetObjectItemCaseSensitive(c, "id");
            if (cJSON_IsString(cid) && strcmp(cid->valuestring, id->valuestring) == 0) {
                const cJSON *fn = cJSON_GetObjectItemCaseSensitive(c, "function");
                const cJSON *nm = cJSON_GetObjectItemCaseSensitive(fn, "name");
                const cJSON *ar = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
                if (cJSON_IsString(nm))
                    *name = nm->valuestring;
                if (cJSON_IsString(ar))
                    *args = ar->valuestring;
            }
        }
    }
}

/* A string member, "" when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), "")

/* Phase 2: the newest k failed results stay verbatim; older ones become one
 * line and a dead end. */
static int pass_failures(cJSON *msgs, agent_ledger *l, const agent_evict_opts *o,
                         agent_evict_stats *st)
{
    int seen = 0;
    int changed = 0;
    for (cJSON *m = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1); m; m = m->prev) {
        int nomem = 0;
        cJSON *f = failure_of(m, &nomem);
        if (nomem)
            return -1;
        if (f && ++seen > o->keep_failures) {
            const char *tool = NULL;
            const char *args = NULL;
            call_of(msgs, m, &tool, &args);
            const char *reason = *jstr(f, "reason") ? jstr(f, "reason") : "error";
            const char *msg = jstr(f, "message");
            const char *url = jstr(f, "url");
            const cJSON *sj = cJSON_GetObjectItemCaseSensitive(f, "step");
            int step = cJSON_IsNumber(sj) ? sj->valueint : o->step;
            char what[400];
            snprintf(what, sizeof what, "%s(%.80s) failed: %s%s%.160s", tool, args, reason,
                     *msg ? ": " : "", msg);
            char line[700];
            snprintf(line, sizeof line, "[earlier failure, kept as a dead end: %s%s%.200s]",
                     what, *url ? " @ " : "", url);
            base_err e = l ? agent_ledger_dead_end(l, what, url,
                                                   agent_cause_from_reason(reason, msg), step)
                           : BASE_OK;
            cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
            cJSON_Delete(f);
            if (e != BASE_OK || set_text(c, line, strlen(line)) != 0)
                return -1;
            changed++;
            if (st && l)
                st->dead_ends++;
        } else {
            cJSON_Delete(f);
        }
        if (m == msgs->child)
            break;
    }
    return changed;
}

typedef struct state_ctx {
    int recent;        /* this message is within the kept turns */
    const char *url;   /* current page */
    const char *title;
} state_ctx;

static int keep_state(void *ctx, const char *block, size_t len)
{
    state_ctx *c = ctx;
    if (c->recent)
        return 1;
    char url[1024];
    char title[512];
    state_header(block, len, url, sizeof url, title, sizeof title);
    /* The same page as now: the "you are stuck here" signal stays. */
    return *c->url && strcmp(url, c->url) == 0 && strcmp(title, c->title) == 0;
}

/* Phase 3: state blocks older than the newest k turns go, except those of
 * the current page. */
static int pass_state(cJSON *msgs, const agent_evict_opts *o)
{
    char url[1024];
    char title[512];
    agent_evict_current_page(msgs, url, sizeof url, title, sizeof title);
    int cut = older_than_turns(msgs, o->keep_state_turns);
    int i = 0;
    int changed = 0;
    for (cJSON *m = msgs->child; m; m = m->next, i++) {
        if (i == 0 || is_ledger_block(m))
            continue;
        state_ctx c = {i >= cut, url, title};
        texts t;
        texts_of(m, &t);
        for (int k = 0; k < t.n; k++) {
            int r = rewrite_blocks(t.item[k], STATE_OPEN, STATE_CLOSE, AGENT_EVICT_STATE_MARK,
                                   keep_state, &c);
            if (r < 0)
                return -1;
            changed += r;
        }
    }
    return changed;
}

/* Phase 4: reasoning leaves all but the newest k assistant messages. */
static int pass_thinking(cJSON *msgs, const agent_evict_opts *o)
{
    static const char *const keys[] = {"reasoning_content", "reasoning", "thinking",
                                       "thinking_blocks"};
    int seen = 0;
    int changed = 0;
    for (cJSON *m = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1); m; m = m->prev) {
        if (is_role(m, "assistant") && ++seen > o->keep_thinking)
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (cJSON_GetObjectItemCaseSensitive(m, keys[k])) {
                    cJSON_DeleteItemFromObjectCaseSensitive(m, keys[k]);
                    changed++;
                }
        if (m == msgs->child)
            break;
    }
    return changed;
}

/* Phase 5: over gut_above messages, bodies older than the newest
 * gut_keep_turns turns become "[archived]" (tool calls and ids stay). */
static int pass_gut(cJSON *msgs, agent_ledger *l, const agent_evict_opts *o)
{
    if (cJSON_GetArraySize(msgs) <= o->gut_above)
        return 0;
    int cut = older_than_turns(msgs, o->gut_keep_turns);
    int i = 0;
    int changed = 0;
    for (cJSON *m = msgs->child; m && i < cut; m = m->next, i++) {
        if (i == 0 || is_role(m, "system") || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "_archived")))
            continue;
        cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        cJSON *mark = cJSON_CreateString(AGENT_EVICT_ARCHIVED_MARK);
        cJSON *flag = cJSON_CreateTrue();
        if (!mark || !flag || !cJSON_AddItemToObject(m, "_archived", flag)) {
            cJSON_Delete(mark);
            cJSON_Delete(flag);
            return -1;
        }
        /* Both or neither: a message is archived whole. */
        if (c && !cJSON_IsNull(c)) {
            if (replace_member(m, c, "content", mark) != 0) {
                cJSON_DeleteItemFromObjectCaseSensitive(m, "_archived");
                return -1;
            }
        } else {
            cJSON_Delete(mark);
        }
        for (size_t k = 0; k < 4; k++) {
            static const char *const keys[] = {"reasoning_content", "reasoning", "thinking",
                                               "thinking_blocks"};
            cJSON_DeleteItemFromObjectCaseSensitive(m, keys[k]);
        }
        changed++;
    }
    if (changed && l) {
        char note[160];
        snprintf(note, sizeof note,
                 "archived %d messages at step %d; the ledger remains authoritative", changed,
                 o->step);
        if (agent_ledger_note(l, o->step, note) != BASE_OK)
            return -1;
    }
    return changed;
}

typedef struct elem_ctx {
    int ordinal; /* blocks seen so far */
    int keep_from;
} elem_ctx;

static int keep_elements(void *ctx, const char *block, size_t len)
{
    (void)block;
    (void)len;
    elem_ctx *c = ctx;
    return c->ordinal++ >= c->keep_from;
}

/* Phase 6: only the newest k element lists stay. */
static int pass_elements(cJSON *msgs, const agent_evict_opts *o)
{
    int total = 0;
    for (cJSON *m = msgs->child; m; m = m->next) {
        texts t;
        texts_of(m, &t);
        for (int k = 0; k < t.n; k++)
            total += count_blocks(t.item[k]->valuestring, ELEMENTS_OPEN, ELEMENTS_CLOSE);
    }
    elem_ctx c = {0, total - o->keep_element_lists};
    int changed = 0;
    int i = 0;
    for (cJSON *m = msgs->child; m && c.keep_from > 0; m = m->next, i++) {
        if (i == 0 || is_ledger_block(m))
            continue;
        texts t;
        texts_of(m, &t);
        for (int k = 0; k < t.n; k++) {
            int r = rewrite_blocks(t.item[k], ELEMENTS_OPEN, ELEMENTS_CLOSE,
                                   AGENT_EVICT_ELEMENTS_MARK, keep_elements, &c);
            if (r < 0)
                return -1;
            changed += r;
        }
    }
    return changed;
}

/* Tool result m's content without its "data" member (what the tool read:
 * extracted lines, Markdown, options), which becomes a marker saying how
 * much it held. Returns 1 when m changed, 0 when it had no data (or holds
 * the marker already), -1 when out of memory. */
static int drop_data(cJSON *m)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (!cJSON_IsString(c))
        return 0;
    size_t n = 0;
    const char *in = agent_untrusted_inner(c->valuestring, &n);
    if (n == 0 || in[0] != '{')
        return 0;
    unsigned long failures = base_alloc_thread_failures();
    cJSON *j = cJSON_ParseWithLength(in, n);
    if (!j)
        return base_alloc_thread_failures() != failures ? -1 : 0;
    cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "data");
    if (!d || (cJSON_IsString(d) && strncmp(d->valuestring, DATA_MARK, strlen(DATA_MARK)) == 0)) {
        cJSON_Delete(j);
        return 0;
    }
    char *was = cJSON_PrintUnformatted(d);
    if (!was) {
        cJSON_Delete(j);
        return -1; /* out of memory: the data is not measured, so not dropped */
    }
    if (strlen(was) <= DATA_SMALL) {
        /* A few numbers (a scroll's position) cost less than the prefix a
         * prompt cache would lose by rewriting them. */
        cJSON_free(was);
        cJSON_Delete(j);
        return 0;
    }
    char mark[96];
    snprintf(mark, sizeof mark, DATA_MARK " %zu characters]", strlen(was));
    cJSON_free(was);
    cJSON *rep = cJSON_CreateString(mark);
    char *inner = NULL;
    if (rep && replace_member(j, d, "data", rep) == 0)
        inner = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!inner)
        return -1;
    /* The frame's lines around it stay as they were. */
    size_t pre = (size_t)(in - c->valuestring), ni = strlen(inner);
    const char *post = in + n;
    base_buf b;
    base_buf_init(&b, (size_t)1 << 30);
    int r = base_buf_append(&b, c->valuestring, pre) == BASE_OK &&
                    base_buf_append(&b, inner, ni) == BASE_OK &&
                    base_buf_append_str(&b, post) == BASE_OK
                ? (set_text(c, (const char *)b.data, b.len) == 0 ? 1 : -1)
                : -1;
    cJSON_free(inner);
    base_buf_fini(&b);
    return r;
}

/* Phase 6, second half: what tools read (a result's "data") stays in the
 * newest keep_tool_data tool results only; older ones keep their outcome
 * line (ok, reason, message) and say how much data they held (data of at
 * most DATA_SMALL bytes stays). A value
 * the run must keep goes into the ledger (save_as, facts), which is never
 * evicted. keep_tool_data <= 0: nothing is dropped. */
static int pass_tool_data(cJSON *msgs, const agent_evict_opts *o)
{
    if (o->keep_tool_data <= 0)
        return 0;
    int total = 0;
    for (cJSON *m = msgs->child; m; m = m->next)
        total += is_role(m, "tool");
    int older = total - o->keep_tool_data, changed = 0;
    for (cJSON *m = msgs->child; m && older > 0; m = m->next) {
        if (!is_role(m, "tool"))
            continue;
        older--;
        int r = drop_data(m);
        if (r < 0)
            return -1;
        changed += r;
    }
    return changed;
}

base_err agent_evict_pass(cJSON *msgs, int pass, agent_ledger *l, const agent_evict_opts *o,
                          agent_evict_stats *st, char *err)
{
    agent_evict_opts def;
    if (!o) {
        agent_evict_opts_default(&def);
        o = &def;
    }
    if (!cJSON_IsArray(msgs) || pass < 1 || pass > AGENT_EVICT_PASSES)
        return base_errf(err, BASE_EINVAL, "evict: bad message list or pass %d", pass);
    int r = 0;
    switch (pass) {
    case 1:
        r = pass_screenshots(msgs, o);
        break;
    case 2:
        r = pass_failures(msgs, l, o, st);
        break;
    case 3:
        r = pass_state(msgs, o);
        break;
    case 4:
        r = pass_thinking(msgs, o);
        break;
    case 5:
        r = pass_gut(msgs, l, o);
        break;
    default:
        r = pass_elements(msgs, o);
        if (r >= 0) {
            int d = pass_tool_data(msgs, o);
            r = d < 0 ? -1 : r + d;
        }
        break;
    }
    if (r < 0)
        return base_errf(err, BASE_ENOMEM, "evict: out of memory in pass %d", pass);
    if (st)
        st->changed[pass] += r;
    return BASE_OK;
}

#define NOW_OPEN "[LEDGER_NOW"
#define NOW_CLOSE "[/LEDGER_NOW]"

/* The string s without its [LEDGER_NOW] block (and the blank line before
 * it); NULL when it has none. base_malloc'd. */
static char *without_now(const char *s, int *nomem)
{
    const char *p = strstr(s, NOW_OPEN);
    if (!p)
        return NULL;
    const char *q = strstr(p, NOW_CLOSE);
    const char *end = q ? q + strlen(NOW_CLOSE) : p + strlen(p);
    const char *from = p;
    if (from - s >= 2 && from[-1] == '\n' && from[-2] == '\n')
        from -= 2;
    size_t n = (size_t)(from - s) + strlen(end);
    char *out = base_malloc(n + 1);
    if (!out) {
        *nomem = 1;
        return NULL;
    }
    memcpy(out, s, (size_t)(from - s));
    memcpy(out + (from - s), end, strlen(end) + 1);
    return out;
}

static int is_now_part(const cJSON *p)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "text");
    return cJSON_IsString(t) && strncmp(t->valuestring, NOW_OPEN, strlen(NOW_OPEN)) == 0;
}

/* Takes the [LEDGER_NOW] block out of m; returns 1 when it had one, -1 on
 * ENOMEM. */
static int strip_now(cJSON *m)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (cJSON_IsString(c)) {
        int nomem = 0;
        char *w = without_now(c->valuestring, &nomem);
        if (nomem)
            return -1;
        if (!w)
            return 0;
        int r = set_text(c, w, strlen(w)) == 0 ? 1 : -1;
        base_free(w);
        return r;
    }
    int changed = 0;
    if (cJSON_IsArray(c))
        for (cJSON *p = c->child; p;) {
            cJSON *next = p->next;
            if (is_now_part(p)) {
                cJSON_Delete(cJSON_DetachItemViaPointer(c, p));
                changed = 1;
            }
            p = next;
        }
    return changed;
}

/* Puts now into m (as the last text part, or after a blank line of a
 * string content); returns 1 when m changed, -1 on ENOMEM. */
static int put_now(cJSON *m, const char *now)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (cJSON_IsArray(c)) {
        cJSON *last = c->child ? c->child->prev : NULL;
        if (last && is_now_part(last)) {
            cJSON *t = cJSON_GetObjectItemCaseSensitive(last, "text");
            if (strcmp(t->valuestring, now) == 0)
                return 0;
        }
        int r = strip_now(m);
        if (r < 0)
            return -1;
        cJSON *part = cJSON_CreateObject();
        if (!part || !cJSON_AddStringToObject(part, "type", "text") ||
            !cJSON_AddStringToObject(part, "text", now) || !cJSON_AddItemToArray(c, part)) {
            cJSON_Delete(part);
            return -1;
        }
        return 1;
    }
    const char *old = cJSON_IsString(c) ? c->valuestring : "";
    int nomem = 0;
    char *base = without_now(old, &nomem);
    if (nomem)
        return -1;
    const char *keep = base ? base : old;
    base_buf b;
    base_buf_init(&b, (size_t)1 << 30);
    if ((*keep && (base_buf_append_str(&b, keep) != BASE_OK ||
                   base_buf_append_str(&b, "\n\n") != BASE_OK)) ||
        base_buf_append_str(&b, now) != BASE_OK) {
        base_free(base);
        base_buf_fini(&b);
        return -1;
    }
    base_free(base);
    if (strcmp((const char *)b.data, old) == 0) {
        base_buf_fini(&b);
        return 0;
    }
    int r = 1;
    if (cJSON_IsString(c)) {
        r = set_text(c, (const char *)b.data, b.len) == 0 ? 1 : -1;
    } else {
        cJSON *str = cJSON_CreateString((const char *)b.data);
        if (!str)
            r = -1;
        else if (c)
            r = replace_member(m, c, "content", str) == 0 ? 1 : -1;
        else if (!cJSON_AddItemToObject(m, "content", str)) {
            cJSON_Delete(str);
            r = -1;
        }
    }
    base_buf_fini(&b);
    return r;
}

/* The [LEDGER] block at index 1 holds text; returns 1 when it changed. */
static int put_block(cJSON *msgs, const char *text)
{
    cJSON *second = msgs->child->next;
    if (second && is_ledger_block(second)) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(second, "content");
        if (strcmp(c->valuestring, text) == 0)
            return 0;
        return set_text(c, text, strlen(text)) == 0 ? 1 : -1;
    }
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", "system") ||
        !cJSON_AddStringToObject(m, "content", text)) {
        cJSON_Delete(m);
        return -1;
    }
    /* Linked in by hand: cJSON_InsertItemInArray of some cJSON releases
     * (Debian's 1.7.15) refuses to insert. The array's first item's prev
     * points at its last item. */
    cJSON *first = msgs->child;
    m->prev = first;
    m->next = second;
    first->next = m;
    if (second)
        second->prev = m;
    else
        first->prev = m;
    return 1;
}

base_err agent_evict_refresh_ledger(cJSON *msgs, const agent_ledger *l, agent_role role,
                                    const char *url, int *changed, char *err)
{
    if (changed)
        *changed = 0;
    if (!cJSON_IsArray(msgs) || !msgs->child || !l)
        return base_errf(err, BASE_EINVAL, "evict: no prefix message to put the ledger after");
    char *stable = NULL;
    char *now = NULL;
    if (agent_ledger_render_split(l, role, url, &stable, &now) != BASE_OK)
        return base_errf(err, BASE_ENOMEM, "evict: out of memory rendering the ledger");
    int any = put_block(msgs, stable);
    /* The per-step part goes into the newest observation (or tool result),
     * which is new every step anyway, so the older messages stay the same
     * bytes from call to call. */
    cJSON *target = NULL;
    int i = 0;
    for (cJSON *m = msgs->child; m; m = m->next, i++)
        if (i >= 2 && (is_role(m, "user") || is_role(m, "tool")))
            target = m;
    i = 0;
    for (cJSON *m = msgs->child; m && any >= 0; m = m->next, i++) {
        if (i < 2)
            continue;
        int r = m == target ? put_now(m, now) : strip_now(m);
        any = r < 0 ? -1 : any | r;
    }
    base_free(stable);
    base_free(now);
    if (any < 0)
        return base_errf(err, BASE_ENOMEM, "evict: out of memory");
    if (changed)
        *changed = any;
    return BASE_OK;
}

base_err agent_evict(cJSON *msgs, agent_ledger *l, const agent_evict_opts *o,
                     agent_evict_stats *st, char *err)
{
    agent_evict_opts def;
    if (!o) {
        agent_evict_opts_default(&def);
        o = &def;
    }
    agent_evict_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    st->tokens_before = model_tokens_messages(msgs);
    for (int p = 1; p <= AGENT_EVICT_PASSES; p++) {
        base_err e = agent_evict_pass(msgs, p, l, o, st, err);
        if (e != BASE_OK)
            return e;
    }
    if (l) {
        char url[1024];
        char title[512];
        const char *u = o->url;
        if (!u && agent_evict_current_page(msgs, url, sizeof url, title, sizeof title))
            u = url;
        base_err e = agent_evict_refresh_ledger(msgs, l, o->role, u, &st->ledger_refreshed, err);
        if (e != BASE_OK)
            return e;
    }
    st->tokens_after = model_tokens_messages(msgs);
    return BASE_OK;
}

static cJSON *wire_copy(const cJSON *j)
{
    if (cJSON_IsObject(j)) {
        cJSON *o = cJSON_CreateObject();
        for (const cJSON *f = j->child; o && f; f = f->next) {
            if (f->string && f->string[0] == '_')
                continue;
            cJSON *c = wire_copy(f);
            if (!c || !cJSON_AddItemToObject(o, f->string, c)) {
                cJSON_Delete(c);
                cJSON_Delete(o);
                return NULL;
            }
        }
        return o;
    }
    if (cJSON_IsArray(j)) {
        cJSON *a = cJSON_CreateArray();
        for (const cJSON *f = j->child; a && f; f = f->next) {
            cJSON *c = wire_copy(f);
            if (!c || !cJSON_AddItemToArray(a, c)) {
                cJSON_Delete(c);
                cJSON_Delete(a);
                return NULL;
            }
        }
        return a;
    }
    return cJSON_Duplicate(j, 0);
}

cJSON *agent_evict_wire(const cJSON *msgs)
{
    return msgs ? wire_copy(msgs) : NULL;
}

int agent_evict_pairs_ok(const cJSON *msgs, char *why, size_t cap)
{
    char scratch[8];
    if (!why) {
        why = scratch;
        cap = sizeof scratch;
    }
    if (!cJSON_IsArray(msgs)) {
        snprintf(why, cap, "not an array");
        return 0;
    }
    /* Open calls of the newest assistant message: every one must be
     * answered before the next assistant message. */
    const cJSON *open_calls = NULL;
    int answered[256];
    int n_open = 0;
    int i = 0;
    for (const cJSON *m = msgs->child;; m = m->next, i++) {
        if (!m || is_role(m, "assistant")) {
            for (int k = 0; k < n_open; k++)
                if (answered[k] != 1) {
                    const cJSON *c = cJSON_GetArrayItem(open_calls, k);
                    snprintf(why, cap, "message %d: tool call %.60s answered %d times", i,
                             jstr(c, "id"), answered[k]);
                    return 0;
                }
            if (!m)
                return 1;
            open_calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
            n_open = cJSON_IsArray(open_calls) ? cJSON_GetArraySize(open_calls) : 0;
            if (n_open > 256)
                n_open = 256;
            memset(answered, 0, sizeof answered);
            continue;
        }
        if (is_role(m, "tool")) {
            const char *id = jstr(m, "tool_call_id");
            int found = 0;
            for (int k = 0; k < n_open; k++)
                if (strcmp(jstr(cJSON_GetArrayItem(open_calls, k), "id"), id) == 0) {
                    answered[k]++;
                    found = 1;
                }
            if (!found) {
                snprintf(why, cap, "message %d: tool result %.60s answers no open call", i, id);
                return 0;
            }
        }
    }
}
