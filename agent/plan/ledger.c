/* agent/plan/ledger.c: the ledger's slots, its JSON form, its journal and its
 * role-sliced renders (see ledger.h). */
#define _POSIX_C_SOURCE 200809L
#include "agent/plan/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json_alloc.h"
#include "base/json_check.h"

enum { OWED_STEPS = 0, OWED_FACTS, OWED_NOTES };
static const char *const owed_file[3] = {"steps.jsonl", "facts.jsonl", "episodic.jsonl"};

static const char *const cat_names[AGENT_FACT_COUNT] = {
    "observation", "constraint", "preference", "identity", "credential", "derived"};
static const char *const cause_names[AGENT_CAUSE_COUNT] = {
    "network",     "bot_block",  "stale_selector",  "postcondition_miss",
    "policy_block", "rate_limit", "handoff_timeout", "generic"};

const char *agent_fact_cat_name(agent_fact_cat c)
{
    return (unsigned)c < AGENT_FACT_COUNT ? cat_names[c] : "?";
}

const char *agent_cause_name(agent_cause c)
{
    return (unsigned)c < AGENT_CAUSE_COUNT ? cause_names[c] : "?";
}

int agent_fact_cat_from_name(const char *name)
{
    for (int i = 0; name && i < AGENT_FACT_COUNT; i++)
        if (strcmp(name, cat_names[i]) == 0)
            return i;
    return -1;
}

int agent_cause_from_name(const char *name)
{
    for (int i = 0; name && i < AGENT_CAUSE_COUNT; i++)
        if (strcmp(name, cause_names[i]) == 0)
            return i;
    return -1;
}

agent_cause agent_cause_from_reason(const char *reason, const char *message)
{
    if (!reason)
        return AGENT_CAUSE_GENERIC;
    if (message && (strstr(message, "429") || strstr(message, "rate limit") ||
                    strstr(message, "Too Many Requests")))
        return AGENT_CAUSE_RATE_LIMIT;
    static const struct {
        const char *reason;
        agent_cause cause;
    } map[] = {
        {"not_found", AGENT_CAUSE_STALE_SELECTOR},     {"ambiguous", AGENT_CAUSE_STALE_SELECTOR},
        {"invisible", AGENT_CAUSE_STALE_SELECTOR},     {"covered", AGENT_CAUSE_STALE_SELECTOR},
        {"disabled", AGENT_CAUSE_POSTCONDITION_MISS},  {"no_effect", AGENT_CAUSE_POSTCONDITION_MISS},
        {"dead_click", AGENT_CAUSE_POSTCONDITION_MISS}, {"timeout", AGENT_CAUSE_POSTCONDITION_MISS},
        {"assert_failed", AGENT_CAUSE_POSTCONDITION_MISS},
        {"bot_protected", AGENT_CAUSE_BOT_BLOCK},      {"challenge", AGENT_CAUSE_BOT_BLOCK},
        {"blocked", AGENT_CAUSE_POLICY_BLOCK},         {"http_error", AGENT_CAUSE_NETWORK},
        {"page_gone", AGENT_CAUSE_NETWORK},            {"not_responding", AGENT_CAUSE_NETWORK},
        {"vision", AGENT_CAUSE_HANDOFF_TIMEOUT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(reason, map[i].reason) == 0)
            return map[i].cause;
    return AGENT_CAUSE_GENERIC;
}

/* ---- strings ---- */

/* A copy of s with every known secret masked. The mask ("********") can be
 * longer than what it replaces, so the buffer has room for every byte to
 * become a mask. */
static char *sdup(const agent_secrets *sec, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    if (!sec || agent_secrets_count(sec) == 0)
        return base_strdup(s);
    if (n > ((size_t)-1 - 64) / 9)
        return NULL;
    size_t cap = n * 9 + 64;
    char *b = base_malloc(cap);
    if (!b)
        return NULL;
    memcpy(b, s, n + 1);
    agent_secrets_scrub(sec, b, cap);
    return b;
}

/* Masks every string value in a JSON tree (values, not the fixed keys), so
 * the printed text never shows a secret and stays valid JSON (masking the
 * printed text could split an escape sequence). */
static int scrub_tree(const agent_secrets *sec, cJSON *j)
{
    if (!sec || agent_secrets_count(sec) == 0)
        return 0;
    for (; j; j = j->next) {
        if (cJSON_IsString(j) && j->valuestring) {
            char *m = sdup(sec, j->valuestring);
            if (!m)
                return -1;
            if (strcmp(m, j->valuestring) != 0) {
                char *c = cJSON_malloc(strlen(m) + 1);
                if (!c) {
                    base_free(m);
                    return -1;
                }
                memcpy(c, m, strlen(m) + 1);
                cJSON_free(j->valuestring);
                j->valuestring = c;
            }
            base_free(m);
        }
        if (j->child && scrub_tree(sec, j->child) != 0)
            return -1;
    }
    return 0;
}

static void outcome_fini(agent_step_outcome *o)
{
    base_free(o->role);
    base_free(o->tool);
    base_free(o->call_id);
    base_free(o->args);
    base_free(o->reason);
    base_free(o->summary);
    base_free(o->url);
    memset(o, 0, sizeof *o);
}

static base_err outcome_copy(const agent_secrets *sec, agent_step_outcome *d,
                             const agent_step_report *s)
{
    memset(d, 0, sizeof *d);
    d->step = s->step;
    d->ok = s->ok;
    d->delivered = s->delivered;
    d->role = sdup(sec, s->role ? s->role : "worker");
    d->tool = sdup(sec, s->tool);
    d->call_id = sdup(sec, s->call_id);
    d->args = sdup(sec, s->args ? s->args : "{}");
    d->reason = sdup(sec, s->reason ? s->reason : (s->ok ? "ok" : "error"));
    d->summary = sdup(sec, s->summary);
    d->url = sdup(sec, s->url);
    if (!d->role || !d->tool || !d->call_id || !d->args || !d->reason || !d->summary || !d->url) {
        outcome_fini(d);
        return BASE_ENOMEM;
    }
    return BASE_OK;
}

/* ---- lifetime ---- */

static agent_ledger *ledger_new(const agent_secrets *sec)
{
    agent_ledger *l = base_calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->subgoal = -1;
    l->secrets = sec;
    for (int i = 0; i < 3; i++) {
        l->owed[i] = cJSON_CreateArray();
        if (!l->owed[i]) {
            agent_ledger_destroy(l);
            return NULL;
        }
    }
    return l;
}

void agent_ledger_destroy(agent_ledger *l)
{
    if (!l)
        return;
    base_free(l->goal);
    for (int i = 0; i < l->n_plan; i++)
        base_free(l->plan[i]);
    base_free(l->plan);
    for (int i = 0; i < l->n_recent; i++)
        outcome_fini(&l->recent[i]);
    for (int i = 0; i < l->n_facts; i++) {
        base_free(l->facts[i].key);
        base_free(l->facts[i].value);
    }
    base_free(l->facts);
    for (int i = 0; i < l->n_dead_ends; i++) {
        base_free(l->dead_ends[i].what);
        base_free(l->dead_ends[i].url);
    }
    base_free(l->dead_ends);
    for (int i = 0; i < l->n_checkpoints; i++) {
        base_free(l->checkpoints[i].kind);
        base_free(l->checkpoints[i].label);
        base_free(l->checkpoints[i].url);
        base_free(l->checkpoints[i].call_id);
    }
    base_free(l->checkpoints);
    for (int i = 0; i < l->n_episodic; i++)
        base_free(l->episodic[i].text);
    base_free(l->episodic);
    base_free(l->last_call_id);
    base_free(l->pending_tool);
    base_free(l->pending_call_id);
    base_free(l->pending_args);
    base_free(l->dir);
    for (int i = 0; i < 3; i++)
        cJSON_Delete(l->owed[i]);
    base_free(l);
}

static base_err path_join(char *out, size_t cap, const char *dir, const char *name, char *err);

base_err agent_ledger_create(const char *goal, const char *dir, const agent_secrets *secrets,
                             agent_ledger **out, char *err)
{
    if (!goal || !out)
        return base_errf(err, BASE_EINVAL, "ledger: a goal is required");
    if (dir) {
        base_err e = base_mkdirs(dir, 0, err);
        if (e != BASE_OK)
            return e;
    }
    agent_ledger *l = ledger_new(secrets);
    if (!l)
        goto nomem;
    l->goal = sdup(secrets, goal);
    l->last_call_id = base_strdup("");
    if (!l->goal || !l->last_call_id)
        goto nomem;
    if (dir && !(l->dir = base_strdup(dir)))
        goto nomem;
    /* A fresh run into a folder an earlier run used starts its journals
     * empty (as trace.jsonl does): an old run's steps must not read as this
     * one's (a report, a later --resume). */
    for (int k = 0; dir && k < 3; k++) {
        char path[1024];
        base_err e = path_join(path, sizeof path, dir, owed_file[k], err);
        /* Never through a link planted where the journal goes. */
        int fd = -1;
        if (!e)
            e = base_open_out(path, BASE_OUT_TRUNC, &fd, err);
        if (e) {
            agent_ledger_destroy(l);
            return e;
        }
        close(fd);
    }
    *out = l;
    return BASE_OK;
nomem:
    agent_ledger_destroy(l);
    return base_errf(err, BASE_ENOMEM, "ledger: out of memory");
}

/* ---- journal entries ---- */

static cJSON *outcome_json(const agent_step_outcome *o)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    if (!cJSON_AddNumberToObject(j, "step", o->step) ||
        !cJSON_AddStringToObject(j, "role", o->role) ||
        !cJSON_AddStringToObject(j, "tool", o->tool) ||
        !cJSON_AddStringToObject(j, "call_id", o->call_id) ||
        !cJSON_AddStringToObject(j, "args", o->args) ||
        !cJSON_AddBoolToObject(j, "ok", o->ok) ||
        !cJSON_AddBoolToObject(j, "delivered", o->delivered) ||
        !cJSON_AddStringToObject(j, "reason", o->reason) ||
        !cJSON_AddStringToObject(j, "summary", o->summary) ||
        !cJSON_AddStringToObject(j, "url", o->url)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static cJSON *fact_json(const agent_fact *f)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    if (!cJSON_AddStringToObject(j, "key", f->key) ||
        !cJSON_AddStringToObject(j, "value", f->value) ||
        !cJSON_AddStringToObject(j, "category", agent_fact_cat_name(f->cat)) ||
        !cJSON_AddNumberToObject(j, "confidence", f->confidence) ||
        !cJSON_AddNumberToObject(j, "source_step", f->source_step) ||
        !cJSON_AddNumberToObject(j, "ref_step", f->ref_step)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static cJSON *note_json(const agent_note *n)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    if (!cJSON_AddNumberToObject(j, "step", n->step) ||
        !cJSON_AddStringToObject(j, "text", n->text)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static base_err owe(agent_ledger *l, int which, cJSON *line)
{
    if (!line)
        return BASE_ENOMEM;
    if (!l->dir) { /* memory only: nothing to journal */
        cJSON_Delete(line);
        return BASE_OK;
    }
    if (!cJSON_AddItemToArray(l->owed[which], line)) {
        cJSON_Delete(line);
        return BASE_ENOMEM;
    }
    return BASE_OK;
}

/* ---- changes ---- */

base_err agent_ledger_set_plan(agent_ledger *l, const char *const *subgoals, int n, int active)
{
    if (!l || n < 0 || (n > 0 && !subgoals) || active < -1 || active >= n)
        return BASE_EINVAL;
    char **p = NULL;
    if (n > 0) {
        p = base_calloc((size_t)n, sizeof *p);
        if (!p)
            return BASE_ENOMEM;
        for (int i = 0; i < n; i++) {
            p[i] = sdup(l->secrets, subgoals[i]);
            if (!p[i]) {
                for (int k = 0; k < i; k++)
                    base_free(p[k]);
                base_free(p);
                return BASE_ENOMEM;
            }
        }
    }
    for (int i = 0; i < l->n_plan; i++)
        base_free(l->plan[i]);
    base_free(l->plan);
    l->plan = p;
    l->n_plan = n;
    l->subgoal = active;
    return BASE_OK;
}

base_err agent_ledger_set_subgoal(agent_ledger *l, int index)
{
    if (!l || index < -1 || index >= l->n_plan)
        return BASE_EINVAL;
    l->subgoal = index;
    return BASE_OK;
}

base_err agent_ledger_step_begin(agent_ledger *l, int step, const char *tool, const char *call_id,
                                 const char *args)
{
    if (!l || !tool || step <= l->last_step || l->pending_step)
        return BASE_EINVAL;
    char *t = sdup(l->secrets, tool);
    char *c = sdup(l->secrets, call_id);
    char *a = sdup(l->secrets, args ? args : "{}");
    if (!t || !c || !a) {
        base_free(t);
        base_free(c);
        base_free(a);
        return BASE_ENOMEM;
    }
    l->pending_step = step;
    l->pending_tool = t;
    l->pending_call_id = c;
    l->pending_args = a;
    return BASE_OK;
}

static void clear_pending(agent_ledger *l)
{
    base_free(l->pending_tool);
    base_free(l->pending_call_id);
    base_free(l->pending_args);
    l->pending_tool = l->pending_call_id = l->pending_args = NULL;
    l->pending_step = 0;
}

/* Pushes a copy onto recent, oldest falling off. */
static void push_recent(agent_ledger *l, agent_step_outcome *owned)
{
    if (l->n_recent == AGENT_LEDGER_RECENT) {
        outcome_fini(&l->recent[0]);
        memmove(&l->recent[0], &l->recent[1], sizeof l->recent[0] * (AGENT_LEDGER_RECENT - 1));
        l->n_recent--;
    }
    l->recent[l->n_recent++] = *owned;
}

base_err agent_ledger_step_end(agent_ledger *l, const agent_step_report *o)
{
    if (!l || !o || !l->pending_step || o->step != l->pending_step)
        return BASE_EINVAL;
    agent_step_outcome c;
    if (outcome_copy(l->secrets, &c, o) != BASE_OK)
        return BASE_ENOMEM;
    char *id = base_strdup(c.call_id);
    cJSON *line = outcome_json(&c);
    if (!id || !line) {
        base_free(id);
        cJSON_Delete(line);
        outcome_fini(&c);
        return BASE_ENOMEM;
    }
    if (owe(l, OWED_STEPS, line) != BASE_OK) {
        base_free(id);
        outcome_fini(&c);
        return BASE_ENOMEM;
    }
    push_recent(l, &c);
    l->last_step = o->step;
    base_free(l->last_call_id);
    l->last_call_id = id;
    clear_pending(l);
    return BASE_OK;
}

static agent_fact *find_fact(agent_ledger *l, const char *key)
{
    for (int i = 0; i < l->n_facts; i++)
        if (strcmp(l->facts[i].key, key) == 0)
            return &l->facts[i];
    return NULL;
}

static void *grow(void *p, int n, size_t each)
{
    /* Arrays grow one element at a time: ledgers hold tens of items, and a
     * failed grow leaves the old array intact. */
    if (n >= (1 << 20))
        return NULL;
    return base_realloc(p, (size_t)(n + 1) * each);
}

base_err agent_ledger_set_fact(agent_ledger *l, const char *key, const char *value,
                               agent_fact_cat cat, double confidence, int step)
{
    if (!l || !key || !*key || !value || (unsigned)cat >= AGENT_FACT_COUNT)
        return BASE_EINVAL;
    if (!(confidence >= 0))
        confidence = 0;
    if (confidence > 1)
        confidence = 1;
    char *v = sdup(l->secrets, cat == AGENT_FACT_CREDENTIAL ? "********" : value);
    if (!v)
        return BASE_ENOMEM;
    /* The journal line is built before the ledger changes, so an ENOMEM
     * leaves both as they were. */
    agent_fact *f = find_fact(l, key);
    if (f) {
        if (strcmp(f->value, v) == 0 && f->cat == cat && f->confidence == confidence) {
            base_free(v);
            if (step > f->ref_step)
                f->ref_step = step;
            return BASE_OK;
        }
        agent_fact t = *f;
        t.value = v;
        t.cat = cat;
        t.confidence = confidence;
        if (strcmp(f->value, v) != 0)
            t.source_step = step;
        if (step > t.ref_step)
            t.ref_step = step;
        base_err e = owe(l, OWED_FACTS, fact_json(&t));
        if (e != BASE_OK) {
            base_free(v);
            return e;
        }
        base_free(f->value);
        *f = t;
        return BASE_OK;
    }
    char *k = sdup(l->secrets, key);
    agent_fact *nf = k ? grow(l->facts, l->n_facts, sizeof *nf) : NULL;
    if (!nf) {
        base_free(k);
        base_free(v);
        return BASE_ENOMEM;
    }
    l->facts = nf;
    agent_fact t = {k, v, cat, confidence, step, step, l->next_seq};
    base_err e = owe(l, OWED_FACTS, fact_json(&t));
    if (e != BASE_OK) {
        base_free(k);
        base_free(v);
        return e;
    }
    l->next_seq++;
    l->facts[l->n_facts++] = t;
    return BASE_OK;
}

/* Same page: equal up to the fragment. */
static int same_url(const char *a, const char *b)
{
    size_t na = strcspn(a, "#");
    size_t nb = strcspn(b, "#");
    return na == nb && memcmp(a, b, na) == 0;
}

base_err agent_ledger_ingest(agent_ledger *l, const agent_ingest *in)
{
    if (!l || !in || !in->step)
        return BASE_EINVAL;
    const agent_step_report *o = in->step;
    base_err e = agent_ledger_step_end(l, o);
    if (e != BASE_OK)
        return e;
    if (o->ok && o->url && *o->url && in->prev_url && !same_url(o->url, in->prev_url)) {
        char label[160];
        snprintf(label, sizeof label, "%s: %.120s", o->tool ? o->tool : "?",
                 o->summary && *o->summary ? o->summary : o->url);
        e = agent_ledger_checkpoint(l, o->step, "navigation", label, o->url, o->call_id);
        if (e != BASE_OK)
            return e;
    }
    if (o->ok && in->saved_name && *in->saved_name && in->saved_value)
        e = agent_ledger_set_fact(l, in->saved_name, in->saved_value, AGENT_FACT_DERIVED, 1.0,
                                  o->step);
    return e;
}

int agent_ledger_touch_fact(agent_ledger *l, const char *key, int step)
{
    agent_fact *f = l && key ? find_fact(l, key) : NULL;
    if (!f)
        return 0;
    if (step > f->ref_step)
        f->ref_step = step;
    return 1;
}

base_err agent_ledger_dead_end(agent_ledger *l, const char *what, const char *url,
                               agent_cause cause, int step)
{
    if (!l || !what || (unsigned)cause >= AGENT_CAUSE_COUNT)
        return BASE_EINVAL;
    char *w = sdup(l->secrets, what);
    char *u = sdup(l->secrets, url);
    if (!w || !u)
        goto nomem;
    for (int i = 0; i < l->n_dead_ends; i++) {
        agent_dead_end *d = &l->dead_ends[i];
        if (d->cause == cause && strcmp(d->what, w) == 0 && strcmp(d->url, u) == 0) {
            base_free(w);
            base_free(u);
            return BASE_OK;
        }
    }
    agent_dead_end *nd = grow(l->dead_ends, l->n_dead_ends, sizeof *nd);
    if (!nd)
        goto nomem;
    l->dead_ends = nd;
    l->dead_ends[l->n_dead_ends++] = (agent_dead_end){w, u, cause, step};
    return BASE_OK;
nomem:
    base_free(w);
    base_free(u);
    return BASE_ENOMEM;
}

base_err agent_ledger_checkpoint(agent_ledger *l, int step, const char *kind, const char *label,
                                 const char *url, const char *call_id)
{
    if (!l || !kind)
        return BASE_EINVAL;
    agent_checkpoint c = {step, sdup(l->secrets, kind), sdup(l->secrets, label),
                          sdup(l->secrets, url), sdup(l->secrets, call_id)};
    agent_checkpoint *nc = c.kind && c.label && c.url && c.call_id
                               ? grow(l->checkpoints, l->n_checkpoints, sizeof *nc)
                               : NULL;
    if (!nc) {
        base_free(c.kind);
        base_free(c.label);
        base_free(c.url);
        base_free(c.call_id);
        return BASE_ENOMEM;
    }
    l->checkpoints = nc;
    l->checkpoints[l->n_checkpoints++] = c;
    return BASE_OK;
}

base_err agent_ledger_note(agent_ledger *l, int step, const char *text)
{
    if (!l || !text)
        return BASE_EINVAL;
    char *t = sdup(l->secrets, text);
    agent_note *nn = t ? grow(l->episodic, l->n_episodic, sizeof *nn) : NULL;
    if (!nn) {
        base_free(t);
        return BASE_ENOMEM;
    }
    l->episodic = nn;
    l->episodic[l->n_episodic] = (agent_note){step, t};
    base_err e = owe(l, OWED_NOTES, note_json(&l->episodic[l->n_episodic]));
    if (e != BASE_OK) {
        base_free(t);
        return e;
    }
    l->n_episodic++;
    return BASE_OK;
}

void agent_ledger_resume_point(const agent_ledger *l, int *next_step, int *uncertain)
{
    if (next_step)
        *next_step = l ? l->last_step + 1 : 1;
    if (uncertain)
        *uncertain = l ? l->pending_step : 0;
}

/* ---- the document ---- */

cJSON *agent_ledger_to_json(const agent_ledger *l)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON *plan = cJSON_AddArrayToObject(j, "plan");
    cJSON *recent = cJSON_AddArrayToObject(j, "recent");
    cJSON *facts = cJSON_AddArrayToObject(j, "facts");
    cJSON *dead = cJSON_AddArrayToObject(j, "dead_ends");
    cJSON *cps = cJSON_AddArrayToObject(j, "checkpoints");
    cJSON *notes = cJSON_AddArrayToObject(j, "episodic");
    if (!cJSON_AddNumberToObject(j, "version", 1) || !cJSON_AddStringToObject(j, "goal", l->goal) ||
        !plan || !cJSON_AddNumberToObject(j, "subgoal", l->subgoal) || !recent || !facts ||
        !dead || !cps || !notes || !cJSON_AddNumberToObject(j, "last_step", l->last_step) ||
        !cJSON_AddStringToObject(j, "last_call_id", l->last_call_id ? l->last_call_id : ""))
        goto fail;
    for (int i = 0; i < l->n_plan; i++)
        if (!cJSON_AddItemToArray(plan, cJSON_CreateString(l->plan[i])))
            goto fail;
    for (int i = 0; i < l->n_recent; i++)
        if (!cJSON_AddItemToArray(recent, outcome_json(&l->recent[i])))
            goto fail;
    for (int i = 0; i < l->n_facts; i++)
        if (!cJSON_AddItemToArray(facts, fact_json(&l->facts[i])))
            goto fail;
    for (int i = 0; i < l->n_dead_ends; i++) {
        const agent_dead_end *d = &l->dead_ends[i];
        cJSON *o = cJSON_CreateObject();
        if (!cJSON_AddItemToArray(dead, o) || !cJSON_AddStringToObject(o, "what", d->what) ||
            !cJSON_AddStringToObject(o, "url", d->url) ||
            !cJSON_AddStringToObject(o, "cause", agent_cause_name(d->cause)) ||
            !cJSON_AddNumberToObject(o, "step", d->step)) {
            if (o && !o->prev) /* not added */
                cJSON_Delete(o);
            goto fail;
        }
    }
    for (int i = 0; i < l->n_checkpoints; i++) {
        const agent_checkpoint *c = &l->checkpoints[i];
        cJSON *o = cJSON_CreateObject();
        if (!cJSON_AddItemToArray(cps, o) || !cJSON_AddNumberToObject(o, "step", c->step) ||
            !cJSON_AddStringToObject(o, "kind", c->kind) ||
            !cJSON_AddStringToObject(o, "label", c->label) ||
            !cJSON_AddStringToObject(o, "url", c->url) ||
            !cJSON_AddStringToObject(o, "call_id", c->call_id)) {
            if (o && !o->prev)
                cJSON_Delete(o);
            goto fail;
        }
    }
    for (int i = 0; i < l->n_episodic; i++)
        if (!cJSON_AddItemToArray(notes, note_json(&l->episodic[i])))
            goto fail;
    if (l->pending_step) {
        cJSON *p = cJSON_AddObjectToObject(j, "pending");
        if (!p || !cJSON_AddNumberToObject(p, "step", l->pending_step) ||
            !cJSON_AddStringToObject(p, "tool", l->pending_tool) ||
            !cJSON_AddStringToObject(p, "call_id", l->pending_call_id) ||
            !cJSON_AddStringToObject(p, "args", l->pending_args))
            goto fail;
    } else if (!cJSON_AddNullToObject(j, "pending")) {
        goto fail;
    }
    if (scrub_tree(l->secrets, j->child) != 0)
        goto fail;
    return j;
fail:
    cJSON_Delete(j);
    return NULL;
}

static base_err path_join(char *out, size_t cap, const char *dir, const char *name, char *err)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap)
        return base_errf(err, BASE_EINVAL, "ledger: folder path too long: %.80s", dir);
    return BASE_OK;
}

/* Appends every owed line of one journal in one write, then fsyncs. */
static base_err flush_owed(agent_ledger *l, int which, char *err)
{
    cJSON *arr = l->owed[which];
    if (!arr->child)
        return BASE_OK;
    char path[1100];
    base_err e = path_join(path, sizeof path, l->dir, owed_file[which], err);
    if (e != BASE_OK)
        return e;
    base_buf b;
    base_buf_init(&b, AGENT_LEDGER_MAX_FILE);
    for (cJSON *it = arr->child; it; it = it->next) {
        if (scrub_tree(l->secrets, it->child) != 0) {
            base_buf_fini(&b);
            return base_errf(err, BASE_ENOMEM, "ledger: out of memory");
        }
        char *s = cJSON_PrintUnformatted(it);
        e = s ? base_buf_append_str(&b, s) : BASE_ENOMEM;
        if (e == BASE_OK)
            e = base_buf_append(&b, "\n", 1);
        cJSON_free(s);
        if (e != BASE_OK) {
            base_buf_fini(&b);
            return base_errf(err, e, "ledger: cannot build %s lines", owed_file[which]);
        }
    }
    int fd = -1;
    base_err oe = base_open_out(path, BASE_OUT_APPEND, &fd, err);
    if (oe) {
        base_buf_fini(&b);
        base_out_lost(path, err);
        return oe;
    }
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = write(fd, b.data + off, b.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int er = errno;
            close(fd);
            base_buf_fini(&b);
            base_out_lost(path, strerror(er));
            return base_errf(err, BASE_EIO, "ledger: cannot append to %s: %s", path, strerror(er));
        }
        off += (size_t)w;
    }
    int bad = fsync(fd) != 0;
    int er = errno;
    close(fd);
    base_buf_fini(&b);
    if (bad) {
        base_out_lost(path, strerror(er));
        return base_errf(err, BASE_EIO, "ledger: cannot fsync %s: %s", path, strerror(er));
    }
    while (arr->child)
        cJSON_Delete(cJSON_DetachItemViaPointer(arr, arr->child));
    return BASE_OK;
}

base_err agent_ledger_sync(agent_ledger *l, char *err)
{
    if (!l)
        return base_errf(err, BASE_EINVAL, "ledger: NULL");
    if (!l->dir)
        return BASE_OK;
    /* Journals first: steps.jsonl is the record that a step finished, and
     * must be on disk before ledger.json stops calling the step pending. */
    for (int i = 0; i < 3; i++) {
        base_err e = flush_owed(l, i, err);
        if (e != BASE_OK)
            return e;
    }
    cJSON *j = agent_ledger_to_json(l);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return base_errf(err, BASE_ENOMEM, "ledger: out of memory");
    char path[1100];
    base_err e = path_join(path, sizeof path, l->dir, "ledger.json", err);
    if (e == BASE_OK)
        e = base_write_file(path, (const uint8_t *)text, strlen(text), err);
    if (e == BASE_EIO)
        base_out_lost(path, err);
    cJSON_free(text);
    return e;
}

/* ---- strict loading ---- */

typedef struct rd {
    const char *name; /* file name for messages */
    char *err;
    base_err e;
} rd;

static int bad(rd *r, base_err e, const char *path, const char *what)
{
    if (r->e == BASE_OK)
        r->e = base_errf(r->err, e, "%s: %s: %s", r->name, path, what);
    return -1;
}

/* Refuses keys outside allowed (a misspelt key would otherwise vanish). */
static int only_keys(rd *r, const cJSON *o, const char *path, const char *const *allowed)
{
    for (const cJSON *f = o->child; f; f = f->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(f->string, allowed[i]) == 0;
        for (const cJSON *g = o->child; g != f; g = g->next)
            if (strcmp(g->string, f->string) == 0) {
                char m[160];
                snprintf(m, sizeof m, "duplicated key \"%.60s\"", f->string);
                return bad(r, BASE_EPROTO, path, m);
            }
        if (!ok) {
            char m[160];
            snprintf(m, sizeof m, "unknown key \"%.60s\"", f->string);
            return bad(r, BASE_EPROTO, path, m);
        }
    }
    return 0;
}

static const cJSON *field(rd *r, const cJSON *o, const char *path, const char *key, int type)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    char p[200];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    if (!f) {
        bad(r, BASE_EPROTO, p, "missing");
        return NULL;
    }
    int okt = (type == cJSON_String && cJSON_IsString(f)) ||
              (type == cJSON_Number && cJSON_IsNumber(f)) ||
              (type == cJSON_True && cJSON_IsBool(f)) ||
              (type == cJSON_Array && cJSON_IsArray(f)) ||
              (type == cJSON_Object && cJSON_IsObject(f));
    if (!okt) {
        static const char *tn[] = {"a string", "a number", "true or false", "an array",
                                   "an object"};
        int k = type == cJSON_String   ? 0
                : type == cJSON_Number ? 1
                : type == cJSON_True   ? 2
                : type == cJSON_Array  ? 3
                                       : 4;
        char m[64];
        snprintf(m, sizeof m, "expected %s", tn[k]);
        bad(r, BASE_EPROTO, p, m);
        return NULL;
    }
    return f;
}

static int get_int(rd *r, const cJSON *o, const char *path, const char *key, int lo, int *out)
{
    const cJSON *f = field(r, o, path, key, cJSON_Number);
    if (!f)
        return -1;
    double v = f->valuedouble;
    if (!(v >= lo && v <= 100000000) || v != (double)(int)v) {
        char p[200];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(r, BASE_EPROTO, p, "expected a whole number in range");
    }
    *out = (int)v;
    return 0;
}

static char *get_str(rd *r, const agent_secrets *sec, const cJSON *o, const char *path,
                     const char *key)
{
    const cJSON *f = field(r, o, path, key, cJSON_String);
    if (!f)
        return NULL;
    char *s = sdup(sec, f->valuestring);
    if (!s)
        bad(r, BASE_ENOMEM, path, "out of memory");
    return s;
}

static int parse_outcome(rd *r, const agent_secrets *sec, const cJSON *o, const char *path,
                         agent_step_outcome *out)
{
    static const char *const keys[] = {"step", "role",    "tool",   "call_id", "args", "ok",
                                       "delivered", "reason", "summary", "url", NULL};
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(o))
        return bad(r, BASE_EPROTO, path, "expected an object");
    if (only_keys(r, o, path, keys) || get_int(r, o, path, "step", 1, &out->step))
        return -1;
    const cJSON *ok = field(r, o, path, "ok", cJSON_True);
    const cJSON *dl = ok ? field(r, o, path, "delivered", cJSON_True) : NULL;
    if (!dl)
        return -1;
    out->ok = cJSON_IsTrue(ok);
    out->delivered = cJSON_IsTrue(dl);
    if (!(out->role = get_str(r, sec, o, path, "role")) ||
        !(out->tool = get_str(r, sec, o, path, "tool")) ||
        !(out->call_id = get_str(r, sec, o, path, "call_id")) ||
        !(out->args = get_str(r, sec, o, path, "args")) ||
        !(out->reason = get_str(r, sec, o, path, "reason")) ||
        !(out->summary = get_str(r, sec, o, path, "summary")) ||
        !(out->url = get_str(r, sec, o, path, "url"))) {
        outcome_fini(out);
        return -1;
    }
    return 0;
}

static int parse_doc(rd *r, const cJSON *j, agent_ledger *l)
{
    static const char *const keys[] = {"version", "goal",      "plan",       "subgoal",
                                       "recent",  "facts",     "dead_ends",  "checkpoints",
                                       "episodic", "last_step", "last_call_id", "pending", NULL};
    const agent_secrets *sec = l->secrets;
    char p[200];
    if (!cJSON_IsObject(j))
        return bad(r, BASE_EPROTO, "(top)", "expected an object");
    if (only_keys(r, j, "", keys))
        return -1;
    int version = 0;
    if (get_int(r, j, "", "version", 1, &version))
        return -1;
    if (version != 1)
        return bad(r, BASE_EPROTO, "version", "unsupported version (this fovea reads 1)");
    if (!(l->goal = get_str(r, sec, j, "", "goal")) ||
        !(l->last_call_id = get_str(r, sec, j, "", "last_call_id")) ||
        get_int(r, j, "", "last_step", 0, &l->last_step))
        return -1;
    const cJSON *plan = field(r, j, "", "plan", cJSON_Array);
    if (!plan)
        return -1;
    int n = cJSON_GetArraySize(plan);
    if (n > 0 && !(l->plan = base_calloc((size_t)n, sizeof *l->plan)))
        return bad(r, BASE_ENOMEM, "plan", "out of memory");
    for (const cJSON *it = plan->child; it; it = it->next) {
        snprintf(p, sizeof p, "plan[%d]", l->n_plan);
        if (!cJSON_IsString(it))
            return bad(r, BASE_EPROTO, p, "expected a string");
        if (!(l->plan[l->n_plan] = sdup(sec, it->valuestring)))
            return bad(r, BASE_ENOMEM, p, "out of memory");
        l->n_plan++;
    }
    const cJSON *sg = field(r, j, "", "subgoal", cJSON_Number);
    if (!sg)
        return -1;
    if (sg->valuedouble != (int)sg->valuedouble || sg->valuedouble < -1 ||
        sg->valuedouble >= l->n_plan)
        return bad(r, BASE_EPROTO, "subgoal", "expected -1 or an index into plan");
    l->subgoal = (int)sg->valuedouble;

    const cJSON *rec = field(r, j, "", "recent", cJSON_Array);
    if (!rec)
        return -1;
    if (cJSON_GetArraySize(rec) > AGENT_LEDGER_RECENT)
        return bad(r, BASE_EPROTO, "recent", "more than 3 entries");
    for (const cJSON *it = rec->child; it; it = it->next) {
        snprintf(p, sizeof p, "recent[%d]", l->n_recent);
        if (parse_outcome(r, sec, it, p, &l->recent[l->n_recent]))
            return -1;
        l->n_recent++;
    }

    const cJSON *facts = field(r, j, "", "facts", cJSON_Array);
    if (!facts)
        return -1;
    for (const cJSON *it = facts->child; it; it = it->next) {
        static const char *const fk[] = {"key",         "value",    "category", "confidence",
                                         "source_step", "ref_step", NULL};
        snprintf(p, sizeof p, "facts[%d]", l->n_facts);
        if (!cJSON_IsObject(it))
            return bad(r, BASE_EPROTO, p, "expected an object");
        if (only_keys(r, it, p, fk))
            return -1;
        const cJSON *cat = field(r, it, p, "category", cJSON_String);
        const cJSON *conf = cat ? field(r, it, p, "confidence", cJSON_Number) : NULL;
        if (!conf)
            return -1;
        int c = agent_fact_cat_from_name(cat->valuestring);
        if (c < 0)
            return bad(r, BASE_EPROTO, p, "category: not a fact category");
        if (!(conf->valuedouble >= 0 && conf->valuedouble <= 1))
            return bad(r, BASE_EPROTO, p, "confidence: expected 0..1");
        agent_fact f = {0};
        f.cat = (agent_fact_cat)c;
        f.confidence = conf->valuedouble;
        f.seq = l->next_seq;
        if (get_int(r, it, p, "source_step", 0, &f.source_step) ||
            get_int(r, it, p, "ref_step", 0, &f.ref_step))
            return -1;
        if (!(f.key = get_str(r, sec, it, p, "key")) ||
            !(f.value = get_str(r, sec, it, p, "value"))) {
            base_free(f.key);
            return -1;
        }
        /* Keys are unique: agent_ledger_set_fact updates in place, so a
         * second entry would never be reached. */
        if (!*f.key || find_fact(l, f.key)) {
            base_free(f.key);
            base_free(f.value);
            return bad(r, BASE_EPROTO, p, "key: empty or duplicated");
        }
        agent_fact *nf = grow(l->facts, l->n_facts, sizeof *nf);
        if (!nf) {
            base_free(f.key);
            base_free(f.value);
            return bad(r, BASE_ENOMEM, p, "out of memory");
        }
        l->facts = nf;
        l->facts[l->n_facts++] = f;
        l->next_seq++;
    }

    const cJSON *dead = field(r, j, "", "dead_ends", cJSON_Array);
    if (!dead)
        return -1;
    for (const cJSON *it = dead->child; it; it = it->next) {
        static const char *const dk[] = {"what", "url", "cause", "step", NULL};
        snprintf(p, sizeof p, "dead_ends[%d]", l->n_dead_ends);
        if (!cJSON_IsObject(it))
            return bad(r, BASE_EPROTO, p, "expected an object");
        if (only_keys(r, it, p, dk))
            return -1;
        const cJSON *cause = field(r, it, p, "cause", cJSON_String);
        int step = 0;
        if (!cause || get_int(r, it, p, "step", 0, &step))
            return -1;
        int c = agent_cause_from_name(cause->valuestring);
        if (c < 0)
            return bad(r, BASE_EPROTO, p, "cause: not a cause tag");
        agent_dead_end d = {get_str(r, sec, it, p, "what"), NULL, (agent_cause)c, step};
        if (d.what)
            d.url = get_str(r, sec, it, p, "url");
        agent_dead_end *nd = d.url ? grow(l->dead_ends, l->n_dead_ends, sizeof *nd) : NULL;
        if (!nd) {
            base_free(d.what);
            base_free(d.url);
            return bad(r, BASE_ENOMEM, p, "out of memory");
        }
        l->dead_ends = nd;
        l->dead_ends[l->n_dead_ends++] = d;
    }

    const cJSON *cps = field(r, j, "", "checkpoints", cJSON_Array);
    if (!cps)
        return -1;
    for (const cJSON *it = cps->child; it; it = it->next) {
        static const char *const ck[] = {"step", "kind", "label", "url", "call_id", NULL};
        snprintf(p, sizeof p, "checkpoints[%d]", l->n_checkpoints);
        if (!cJSON_IsObject(it))
            return bad(r, BASE_EPROTO, p, "expected an object");
        agent_checkpoint c = {0};
        if (only_keys(r, it, p, ck) || get_int(r, it, p, "step", 0, &c.step))
            return -1;
        if ((c.kind = get_str(r, sec, it, p, "kind")) &&
            (c.label = get_str(r, sec, it, p, "label")) &&
            (c.url = get_str(r, sec, it, p, "url")))
            c.call_id = get_str(r, sec, it, p, "call_id");
        agent_checkpoint *nc = c.call_id ? grow(l->checkpoints, l->n_checkpoints, sizeof *nc) : NULL;
        if (!nc) {
            base_free(c.kind);
            base_free(c.label);
            base_free(c.url);
            base_free(c.call_id);
            return bad(r, BASE_ENOMEM, p, "out of memory");
        }
        l->checkpoints = nc;
        l->checkpoints[l->n_checkpoints++] = c;
    }

    const cJSON *notes = field(r, j, "", "episodic", cJSON_Array);
    if (!notes)
        return -1;
    for (const cJSON *it = notes->child; it; it = it->next) {
        static const char *const nk[] = {"step", "text", NULL};
        snprintf(p, sizeof p, "episodic[%d]", l->n_episodic);
        if (!cJSON_IsObject(it))
            return bad(r, BASE_EPROTO, p, "expected an object");
        agent_note nt = {0, NULL};
        if (only_keys(r, it, p, nk) || get_int(r, it, p, "step", 0, &nt.step) ||
            !(nt.text = get_str(r, sec, it, p, "text")))
            return -1;
        agent_note *nn = grow(l->episodic, l->n_episodic, sizeof *nn);
        if (!nn) {
            base_free(nt.text);
            return bad(r, BASE_ENOMEM, p, "out of memory");
        }
        l->episodic = nn;
        l->episodic[l->n_episodic++] = nt;
    }

    const cJSON *pend = cJSON_GetObjectItemCaseSensitive(j, "pending");
    if (!pend)
        return bad(r, BASE_EPROTO, "pending", "missing");
    if (!cJSON_IsNull(pend)) {
        static const char *const pk[] = {"step", "tool", "call_id", "args", NULL};
        if (!cJSON_IsObject(pend))
            return bad(r, BASE_EPROTO, "pending", "expected null or an object");
        if (only_keys(r, pend, "pending", pk) ||
            get_int(r, pend, "pending", "step", 1, &l->pending_step))
            return -1;
        if (l->pending_step <= l->last_step)
            return bad(r, BASE_EPROTO, "pending.step", "not after last_step");
        if (!(l->pending_tool = get_str(r, sec, pend, "pending", "tool")) ||
            !(l->pending_call_id = get_str(r, sec, pend, "pending", "call_id")) ||
            !(l->pending_args = get_str(r, sec, pend, "pending", "args")))
            return -1;
    }
    for (int i = 0; i < l->n_recent; i++)
        if (l->recent[i].step > l->last_step || (i && l->recent[i].step <= l->recent[i - 1].step))
            return bad(r, BASE_EPROTO, "recent", "steps out of order or after last_step");
    return 0;
}

#define LEDGER_MAX_DEPTH 16

base_err agent_ledger_parse(const char *text, size_t n, const char *name,
                            const agent_secrets *secrets, agent_ledger **out, char *err)
{
    if (!text || !out)
        return base_errf(err, BASE_EINVAL, "ledger: NULL argument");
    if (!name)
        name = "ledger.json";
    if (n > AGENT_LEDGER_MAX_FILE)
        return base_errf(err, BASE_ETOOBIG, "%s: larger than %u bytes", name,
                         AGENT_LEDGER_MAX_FILE);
    char why[BASE_ERRBUF_SIZE] = "";
    if (base_json_check(text, n, LEDGER_MAX_DEPTH, why) != BASE_OK)
        return base_errf(err, BASE_EPROTO, "%s: %s", name, why);
    cJSON *j = cJSON_ParseWithLength(text, n);
    if (!j)
        return base_errf(err, BASE_ENOMEM, "%s: out of memory parsing", name);
    agent_ledger *l = ledger_new(secrets);
    if (!l) {
        cJSON_Delete(j);
        return base_errf(err, BASE_ENOMEM, "%s: out of memory", name);
    }
    rd r = {name, err, BASE_OK};
    int rc = parse_doc(&r, j, l);
    cJSON_Delete(j);
    if (rc != 0) {
        agent_ledger_destroy(l);
        return r.e != BASE_OK ? r.e : base_errf(err, BASE_EPROTO, "%s: malformed", name);
    }
    *out = l;
    return BASE_OK;
}

/* Reconciles with steps.jsonl: the steps it holds past ledger.json's
 * last_step finished (the crash fell between the two writes). */
static base_err reconcile_steps(agent_ledger *l, const char *dir, char *err)
{
    char path[1100];
    base_err e = path_join(path, sizeof path, dir, "steps.jsonl", err);
    if (e != BASE_OK)
        return e;
    uint8_t *data = NULL;
    size_t n = 0;
    e = base_read_file(path, &data, &n, AGENT_LEDGER_MAX_JOURNAL, err);
    if (e == BASE_ENOTFOUND) {
        base_errclear(err);
        return BASE_OK;
    }
    if (e != BASE_OK)
        return e;
    const char *s = (const char *)data;
    int line_no = 0;
    size_t pos = 0;
    e = BASE_OK;
    while (pos < n && e == BASE_OK) {
        const char *nl = memchr(s + pos, '\n', n - pos);
        line_no++;
        if (!nl)
            break; /* a torn last line: the append never finished */
        size_t len = (size_t)(nl - (s + pos));
        char name[64];
        snprintf(name, sizeof name, "steps.jsonl line %d", line_no);
        char why[BASE_ERRBUF_SIZE] = "";
        if (len == 0) {
            e = base_errf(err, BASE_EPROTO, "%s: empty line", name);
            break;
        }
        if (base_json_check(s + pos, len, LEDGER_MAX_DEPTH, why) != BASE_OK) {
            e = base_errf(err, BASE_EPROTO, "%s: %s", name, why);
            break;
        }
        cJSON *j = cJSON_ParseWithLength(s + pos, len);
        if (!j) {
            e = base_errf(err, BASE_ENOMEM, "%s: out of memory", name);
            break;
        }
        rd r = {name, err, BASE_OK};
        agent_step_outcome o;
        if (parse_outcome(&r, l->secrets, j, "(line)", &o) != 0) {
            cJSON_Delete(j);
            e = r.e != BASE_OK ? r.e : BASE_EPROTO;
            break;
        }
        cJSON_Delete(j);
        if (o.step > l->last_step) {
            char *id = base_strdup(o.call_id);
            if (!id) {
                outcome_fini(&o);
                e = base_errf(err, BASE_ENOMEM, "ledger: out of memory");
                break;
            }
            base_free(l->last_call_id);
            l->last_call_id = id;
            l->last_step = o.step;
            push_recent(l, &o);
        } else {
            outcome_fini(&o);
        }
        pos += len + 1;
    }
    base_free(data);
    if (e == BASE_OK && l->pending_step && l->pending_step <= l->last_step)
        clear_pending(l);
    return e;
}

/* Cuts a torn last line (a crash mid-append) off a journal, so the next
 * append starts on a line of its own. */
static base_err heal_tail(const char *dir, const char *file, char *err)
{
    char path[1100];
    base_err e = path_join(path, sizeof path, dir, file, err);
    if (e != BASE_OK)
        return e;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? BASE_OK
                               : base_errf(err, BASE_EIO, "ledger: cannot open %s: %s", path,
                                           strerror(errno));
    off_t end = lseek(fd, 0, SEEK_END);
    off_t keep = end;
    char c = 0;
    while (keep > 0) {
        if (pread(fd, &c, 1, keep - 1) != 1)
            break;
        if (c == '\n')
            break;
        keep--;
    }
    int rc = 0;
    if (keep != end)
        rc = ftruncate(fd, keep) != 0 || fsync(fd) != 0;
    close(fd);
    if (rc)
        return base_errf(err, BASE_EIO, "ledger: cannot repair %s", path);
    return BASE_OK;
}

base_err agent_ledger_load(const char *dir, const agent_secrets *secrets, agent_ledger **out,
                           char *err)
{
    if (!dir || !out)
        return base_errf(err, BASE_EINVAL, "ledger: NULL argument");
    char path[1100];
    base_err e = path_join(path, sizeof path, dir, "ledger.json", err);
    if (e != BASE_OK)
        return e;
    uint8_t *data = NULL;
    size_t n = 0;
    e = base_read_file(path, &data, &n, AGENT_LEDGER_MAX_FILE, err);
    if (e != BASE_OK)
        return e;
    agent_ledger *l = NULL;
    e = agent_ledger_parse((const char *)data, n, path, secrets, &l, err);
    base_free(data);
    if (e != BASE_OK)
        return e;
    e = reconcile_steps(l, dir, err);
    for (int i = 0; i < 3 && e == BASE_OK; i++)
        e = heal_tail(dir, owed_file[i], err);
    if (e == BASE_OK && !(l->dir = base_strdup(dir)))
        e = base_errf(err, BASE_ENOMEM, "ledger: out of memory");
    if (e != BASE_OK) {
        agent_ledger_destroy(l);
        return e;
    }
    *out = l;
    return BASE_OK;
}

/* ---- rendering ---- */

/* The URL without its fragment and trailing slash, for "same page". */
static size_t url_key(const char *u, size_t *len)
{
    size_t n = strcspn(u, "#");
    while (n > 0 && u[n - 1] == '/')
        n--;
    *len = n;
    return n;
}

static int same_page(const char *a, const char *b)
{
    size_t na = 0;
    size_t nb = 0;
    url_key(a, &na);
    url_key(b, &nb);
    return na == nb && memcmp(a, b, na) == 0;
}

/* Facts by last reference, newest first; insertion order breaks ties. */
static int fact_order(const agent_fact *a, const agent_fact *b)
{
    if (a->ref_step != b->ref_step)
        return a->ref_step > b->ref_step ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void put_outcome(base_buf *b, const agent_step_outcome *o)
{
    base_buf_printf(b, "- step %d %s: %s(%.200s) -> %s", o->step, o->role, o->tool, o->args,
                    o->ok ? "ok" : o->reason);
    if (*o->summary)
        base_buf_printf(b, ": %.300s", o->summary);
    if (*o->url)
        base_buf_printf(b, " @ %.200s", o->url);
    base_buf_append_str(b, "\n");
}

/* part 0: the whole render; 1: the slots that change rarely ([LEDGER]);
 * 2: those that change every step ([LEDGER_NOW]). */
static char *render_part(const agent_ledger *l, agent_role role, const char *url, int part)
{
    if (!l)
        return NULL;
    /* An append that failed for memory may be followed by ones that fit:
     * any failed allocation on the way makes the render void, never a
     * render with a slot missing. */
    unsigned long failures = base_alloc_thread_failures();
    base_buf b;
    base_buf_init(&b, 4u << 20);
    static const char *const role_name[] = {"orchestrator", "planner", "worker"};
    if (part == 2) {
        base_buf_printf(&b, "[LEDGER_NOW view=%s]\n", role_name[role % 3]);
        goto now;
    }
    base_buf_printf(&b, "[LEDGER view=%s]\nGOAL: %s\n", role_name[role % 3], l->goal);
    if (role != AGENT_ROLE_WORKER && l->n_plan) {
        base_buf_append_str(&b, "PLAN:\n");
        for (int i = 0; i < l->n_plan; i++)
            base_buf_printf(&b, "%s%d. %s\n", i == l->subgoal ? "> " : "  ", i + 1, l->plan[i]);
    }
    if (role != AGENT_ROLE_WORKER && l->n_checkpoints) {
        base_buf_append_str(&b, "CHECKPOINTS:\n");
        for (int i = 0; i < l->n_checkpoints; i++) {
            const agent_checkpoint *c = &l->checkpoints[i];
            base_buf_printf(&b, "- step %d %s: %s%s%s\n", c->step, c->kind, c->label,
                            *c->url ? " @ " : "", c->url);
        }
    }
    /* Dead ends: all for the Orchestrator, the latest for the Planner, those
     * at the current page for the Worker. */
    int first = 0;
    if (role == AGENT_ROLE_PLANNER && l->n_dead_ends > AGENT_PLANNER_DEAD_ENDS)
        first = l->n_dead_ends - AGENT_PLANNER_DEAD_ENDS;
    int shown = 0;
    for (int i = first; i < l->n_dead_ends; i++) {
        const agent_dead_end *d = &l->dead_ends[i];
        if (role == AGENT_ROLE_WORKER && (!url || !same_page(d->url, url)))
            continue;
        if (!shown++)
            base_buf_append_str(&b, role == AGENT_ROLE_WORKER ? "DEAD ENDS ON THIS PAGE (do not repeat):\n"
                                                              : "DEAD ENDS (do not repeat):\n");
        base_buf_printf(&b, "- %s [%s, step %d]%s%s\n", d->what, agent_cause_name(d->cause),
                        d->step, *d->url && role != AGENT_ROLE_WORKER ? " @ " : "",
                        role != AGENT_ROLE_WORKER ? d->url : "");
    }
    if (l->n_facts) {
        /* Order by last reference without touching the ledger: a selection
         * of indexes (tens of facts; quadratic is fine). */
        int limit = role == AGENT_ROLE_WORKER ? AGENT_WORKER_FACTS : l->n_facts;
        int *idx = base_malloc(sizeof *idx * (size_t)l->n_facts);
        if (!idx) {
            base_buf_fini(&b);
            return NULL;
        }
        for (int i = 0; i < l->n_facts; i++)
            idx[i] = i;
        for (int i = 1; i < l->n_facts; i++)
            for (int k = i; k > 0 && fact_order(&l->facts[idx[k]], &l->facts[idx[k - 1]]) < 0; k--) {
                int t = idx[k];
                idx[k] = idx[k - 1];
                idx[k - 1] = t;
            }
        base_buf_append_str(&b, "FACTS:\n");
        for (int i = 0; i < l->n_facts && i < limit; i++) {
            const agent_fact *f = &l->facts[idx[i]];
            base_buf_printf(&b, "- %s = %s [%s, %.2f, step %d]\n", f->key, f->value,
                            agent_fact_cat_name(f->cat), f->confidence, f->source_step);
        }
        base_free(idx);
    }
    if (role != AGENT_ROLE_WORKER && l->n_episodic) {
        int from = role == AGENT_ROLE_PLANNER && l->n_episodic > AGENT_PLANNER_NOTES
                       ? l->n_episodic - AGENT_PLANNER_NOTES
                       : 0;
        base_buf_append_str(&b, "NOTES:\n");
        for (int i = from; i < l->n_episodic; i++)
            base_buf_printf(&b, "- step %d: %s\n", l->episodic[i].step, l->episodic[i].text);
    }
    if (part == 1)
        goto close;
    /* The slots that change every step come last (a longer shared prefix
     * between consecutive renders). */
now:
    if (l->subgoal >= 0)
        base_buf_printf(&b, "SUBGOAL: %s\n", l->plan[l->subgoal]);
    if (l->n_recent) {
        base_buf_append_str(&b, "RECENT STEPS:\n");
        for (int i = 0; i < l->n_recent; i++)
            put_outcome(&b, &l->recent[i]);
    }
    if (l->pending_step)
        base_buf_printf(&b, "UNFINISHED: step %d %s(%.200s) may have taken effect; look before repeating it\n",
                        l->pending_step, l->pending_tool, l->pending_args);
close:;
    const char *tail = part == 2 ? "[/LEDGER_NOW]" : "[/LEDGER]";
    base_buf_append_str(&b, tail);
    if (!b.data || b.len == 0) {
        base_buf_fini(&b);
        return NULL;
    }
    size_t n = 0;
    char *s = base_buf_steal(&b, &n);
    /* base_buf_printf may have failed part-way (ENOMEM): a render missing
     * its closing tag is refused rather than sent half. */
    if (!s || n < strlen(tail) || strcmp(s + n - strlen(tail), tail) != 0 ||
        base_alloc_thread_failures() != failures) {
        base_free(s);
        return NULL;
    }
    return s;
}

char *agent_ledger_render(const agent_ledger *l, agent_role role, const char *url)
{
    return render_part(l, role, url, 0);
}

base_err agent_ledger_render_split(const agent_ledger *l, agent_role role, const char *url,
                                   char **stable, char **now)
{
    if (!l || !stable || !now)
        return BASE_EINVAL;
    char *a = render_part(l, role, url, 1);
    char *b = a ? render_part(l, role, url, 2) : NULL;
    if (!b) {
        base_free(a);
        return BASE_ENOMEM;
    }
    *stable = a;
    *now = b;
    return BASE_OK;
}
