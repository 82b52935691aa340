/* tests/agent/plan/test_andor.c: the AND/OR tree engine (agent/plan/andor.h), pure.
 *
 * The operators are deterministic and scripted per node id (see `sc_rule`):
 * what each expansion answers, each execute attempt's outcome, each
 * completion check's yes/no, each repair's and each update's edit. Every
 * operator call is logged ("E1" expand 1, "X1.1#0" execute attempt 0,
 * "M" summarize, "U" update, "C" complete, "R" repair, "B" rollback), every
 * step's popped (node, state) is logged ("1.2e", "x" exiting, "f" failed,
 * a "-" suffix when the entry was skipped), and the stack can be printed
 * after each step, so a case asserts the exact sequence the algorithms
 * must produce.
 *
 * figure3 / counterfactual: seed 001's worked example (§3.3, its Figure 3
 *   trace) step for step, and the seed's "had 1.2 exhausted both
 *   alternatives" variant: 1.2 fails, 1.3 is deleted, the root is repaired
 *   within its budget (and pruned once the budget is spent).
 * action_*, and_*, or_*, repair_*, skip_*, expand_*, stop_*, budget_*:
 *   each branch of Algorithms 1-10 (see each case's comment).
 * random_runs / random_edits: seeded random operators over many runs; the
 *   invariants the engine promises (finishes within the budget, no closed
 *   node pushed ENTERING, no pruned/deleted node executed, no action
 *   executed again after an attempt that reached the page, events replay
 *   to the final statuses, unique well-formed ids, a finished run leaves no
 *   node half-done).
 * inject_* / replace_* / remove_*: a person's edits between steps.
 * text_json: the prompt text (local view, collapsing) and the JSON.
 * oom: every allocation of a whole run failing in turn gives BASE_ENOMEM.
 */
#include "check.h"

#include "agent/plan/andor.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_alloc.h"
#include "base/rng.h"

/* ---- scripted operators --------------------------------------------------- */

/* One rule: kind ('E' expand, 'X' execute, 'C' complete, 'R' repair,
 * 'U' update), the node's dotted id, and the answers, one per call,
 * separated by ';' (the last repeats). For X and C the answers are single
 * characters, one per call, without separators.
 *   E: "AND a|b" "ANDU a|b" (unordered) "OR a@0.9|b@0.5" "ACT tool {json}"
 *      "FAIL" (operator gave up) "STOP" "EMPTY" (OK but nothing usable)
 *      "NOTOOL" (an ACTION without a tool) "BADARGS" (args not an object)
 *      unscripted: ACT click {}
 *   X: o ok, n ok note, x failed before reaching the page, X failed after
 *      reaching it, F operator failed, S stop; unscripted: o
 *   C: y, n, F (operator failed), S; unscripted: y
 *   R: items "+text" / "+text@score" add, "-ID" prune (an unknown id is
 *      sent as index 9999), "!" prune self, "F" operator failed, "S" stop,
 *      "0" nothing; separated by '|'; unscripted: nothing
 *   U: items "-ID" prune, "~ID=text" rewrite, "S" stop, "0" nothing */
typedef struct sc_rule {
    char kind;
    const char *id;
    const char *spec;
} sc_rule;

typedef struct sc {
    const sc_rule *rules;
    int n_rules;
    int calls[256][5]; /* per node index, per kind: calls so far */
    base_buf log;      /* operator calls */
    int rollback_ok;
    char url_at_exec[256][64]; /* the engine's URL when a node executed */
    const char *exec_url[256]; /* URL an execute reports, by node index */
} sc;

static const char *rule_for(const sc *s, char kind, const char *id)
{
    for (int k = 0; k < s->n_rules; k++)
        if (s->rules[k].kind == kind && strcmp(s->rules[k].id, id) == 0)
            return s->rules[k].spec;
    return NULL;
}

/* The n-th ';'-separated item of spec into out (the last repeats). */
static void nth_item(const char *spec, int n, char *out, size_t cap)
{
    const char *p = spec;
    for (int k = 0; k < n; k++) {
        const char *semi = strchr(p, ';');
        if (!semi)
            break;
        p = semi + 1;
    }
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len >= cap)
        len = cap - 1;
    memcpy(out, p, len);
    out[len] = 0;
}

static void sc_log(sc *s, char op, const char *id)
{
    base_buf_printf(&s->log, "%s%c%s", s->log.len ? " " : "", op, id);
}

static const char *idof(const agent_andor_tree *t, int node)
{
    return agent_andor_node_at(t, node)->id;
}

/* Adds '|'-separated children "text@score" to e. */
static void add_children(agent_andor_edit *e, const char *list)
{
    const char *p = list;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char item[256];
        if (len >= sizeof item)
            len = sizeof item - 1;
        memcpy(item, p, len);
        item[len] = 0;
        double score = 0;
        char *at = strchr(item, '@');
        if (at) {
            *at = 0;
            score = strtod(at + 1, NULL);
        }
        agent_andor_edit_add(e, item, score);
        p = bar ? bar + 1 : p + len;
    }
}

static agent_andor_op_status sc_expand(void *ctx, const agent_andor_tree *t, int node,
                                       agent_andor_edit *out)
{
    sc *s = ctx;
    const char *id = idof(t, node);
    sc_log(s, 'E', id);
    const char *spec = rule_for(s, 'E', id);
    char item[512] = "ACT click {}";
    if (spec)
        nth_item(spec, s->calls[node][0], item, sizeof item);
    s->calls[node][0]++;
    snprintf(out->reasoning, sizeof out->reasoning, "scripted %.400s", item);
    if (strcmp(item, "FAIL") == 0)
        return AGENT_ANDOR_OP_FAILED;
    if (strcmp(item, "STOP") == 0)
        return AGENT_ANDOR_OP_STOP;
    if (strcmp(item, "EMPTY") == 0) {
        out->type = AGENT_ANDOR_AND;
        return AGENT_ANDOR_OP_OK;
    }
    if (strcmp(item, "NOTOOL") == 0) {
        out->type = AGENT_ANDOR_ACTION;
        return AGENT_ANDOR_OP_OK;
    }
    if (strcmp(item, "BADARGS") == 0) {
        out->type = AGENT_ANDOR_ACTION;
        out->tool = base_strdup("click");
        out->args = base_strdup("[1, 2]");
        return AGENT_ANDOR_OP_OK;
    }
    if (strncmp(item, "ACT ", 4) == 0) {
        out->type = AGENT_ANDOR_ACTION;
        const char *sp = strchr(item + 4, ' ');
        out->tool = sp ? base_strndup(item + 4, (size_t)(sp - item - 4)) : base_strdup(item + 4);
        out->args = sp ? base_strdup(sp + 1) : NULL;
        return AGENT_ANDOR_OP_OK;
    }
    if (strncmp(item, "ANDU ", 5) == 0) {
        out->type = AGENT_ANDOR_AND;
        out->unordered = 1;
        add_children(out, item + 5);
    } else if (strncmp(item, "AND ", 4) == 0) {
        out->type = AGENT_ANDOR_AND;
        add_children(out, item + 4);
    } else if (strncmp(item, "OR ", 3) == 0) {
        out->type = AGENT_ANDOR_OR;
        add_children(out, item + 3);
    }
    return AGENT_ANDOR_OP_OK;
}

static agent_andor_op_status sc_execute(void *ctx, const agent_andor_tree *t, int node, int attempt,
                                        agent_andor_exec *out)
{
    sc *s = ctx;
    const char *id = idof(t, node);
    if (s->log.len)
        base_buf_append_str(&s->log, " ");
    base_buf_printf(&s->log, "X%s#%d", id, attempt);
    if (node < 256)
        snprintf(s->url_at_exec[node], sizeof s->url_at_exec[node], "%s", agent_andor_url(t));
    const char *spec = rule_for(s, 'X', id);
    int n = s->calls[node][1]++;
    char c = 'o';
    if (spec && *spec)
        c = spec[(size_t)n < strlen(spec) ? (size_t)n : strlen(spec) - 1];
    snprintf(out->result, sizeof out->result, "outcome %c", c);
    if (node < 256 && s->exec_url[node])
        snprintf(out->url, sizeof out->url, "%s", s->exec_url[node]);
    switch (c) {
    case 'n':
        out->note = 1;
        out->ok = 1;
        return AGENT_ANDOR_OP_OK;
    case 'x':
        return AGENT_ANDOR_OP_OK;
    case 'X':
        out->reached_page = 1;
        return AGENT_ANDOR_OP_OK;
    case 'F':
        return AGENT_ANDOR_OP_FAILED;
    case 'S':
        return AGENT_ANDOR_OP_STOP;
    default:
        out->ok = 1;
        out->reached_page = 1;
        return AGENT_ANDOR_OP_OK;
    }
}

static agent_andor_op_status sc_summarize(void *ctx, const agent_andor_tree *t, int node)
{
    sc_log(ctx, 'M', idof(t, node));
    return AGENT_ANDOR_OP_OK;
}

static int resolve(const agent_andor_tree *t, const char *id)
{
    int i = agent_andor_find(t, id);
    return i < 0 ? 9999 : i;
}

/* Applies '|'-separated R/U items to e. Returns the op status. */
static agent_andor_op_status apply_items(const agent_andor_tree *t, const char *item,
                                         agent_andor_edit *e)
{
    const char *p = item;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char one[256];
        if (len >= sizeof one)
            len = sizeof one - 1;
        memcpy(one, p, len);
        one[len] = 0;
        p = bar ? bar + 1 : p + len;
        if (one[0] == 'F')
            return AGENT_ANDOR_OP_FAILED;
        if (one[0] == 'S')
            return AGENT_ANDOR_OP_STOP;
        if (one[0] == '!')
            e->prune_self = 1;
        else if (one[0] == '+')
            add_children(e, one + 1);
        else if (one[0] == '-')
            agent_andor_edit_prune(e, resolve(t, one + 1));
        else if (one[0] == '~') {
            char *eq = strchr(one, '=');
            if (eq) {
                *eq = 0;
                agent_andor_edit_rewrite(e, resolve(t, one + 1), eq + 1);
            }
        }
    }
    return AGENT_ANDOR_OP_OK;
}

static agent_andor_op_status sc_update(void *ctx, const agent_andor_tree *t, int node,
                                       agent_andor_edit *out)
{
    sc *s = ctx;
    const char *id = idof(t, node);
    sc_log(s, 'U', id);
    const char *spec = rule_for(s, 'U', id);
    char item[512] = "0";
    if (spec)
        nth_item(spec, s->calls[node][4], item, sizeof item);
    s->calls[node][4]++;
    return apply_items(t, item, out);
}

static agent_andor_op_status sc_complete(void *ctx, const agent_andor_tree *t, int node, int *yes,
                                         char *why, size_t cap)
{
    sc *s = ctx;
    const char *id = idof(t, node);
    sc_log(s, 'C', id);
    const char *spec = rule_for(s, 'C', id);
    int n = s->calls[node][2]++;
    char c = 'y';
    if (spec && *spec)
        c = spec[(size_t)n < strlen(spec) ? (size_t)n : strlen(spec) - 1];
    snprintf(why, cap, "scripted %c", c);
    *yes = c == 'y';
    if (c == 'S')
        return AGENT_ANDOR_OP_STOP;
    return c == 'F' ? AGENT_ANDOR_OP_FAILED : AGENT_ANDOR_OP_OK;
}

static agent_andor_op_status sc_repair(void *ctx, const agent_andor_tree *t, int node,
                                       agent_andor_edit *out)
{
    sc *s = ctx;
    const char *id = idof(t, node);
    sc_log(s, 'R', id);
    const char *spec = rule_for(s, 'R', id);
    char item[512] = "0";
    if (spec)
        nth_item(spec, s->calls[node][3], item, sizeof item);
    s->calls[node][3]++;
    snprintf(out->reasoning, sizeof out->reasoning, "repair %.400s", item);
    return apply_items(t, item, out);
}

static int sc_rollback(void *ctx, const agent_andor_tree *t, int or_node)
{
    sc *s = ctx;
    sc_log(s, 'B', idof(t, or_node));
    return s->rollback_ok;
}

static void sc_init(sc *s, agent_andor_ops *ops, const sc_rule *rules, int n)
{
    memset(s, 0, sizeof *s);
    s->rules = rules;
    s->n_rules = n;
    s->rollback_ok = 1;
    base_buf_init(&s->log, 1 << 20);
    memset(ops, 0, sizeof *ops);
    ops->ctx = s;
    ops->expand = sc_expand;
    ops->execute = sc_execute;
    ops->summarize = sc_summarize;
    ops->update = sc_update;
    ops->complete = sc_complete;
    ops->repair = sc_repair;
    ops->rollback = sc_rollback;
}

static const char *sc_text(sc *s)
{
    return s->log.data ? (const char *)s->log.data : "";
}

/* ---- running -------------------------------------------------------------- */

typedef struct run_log {
    base_buf pops;   /* "1e 1.1e 1.1x ..." */
    base_buf stacks; /* the stack after each step: "1x 1.3e|1x|..." */
} run_log;

static char state_ch(agent_andor_state s)
{
    return s == AGENT_ANDOR_ENTERING ? 'e' : s == AGENT_ANDOR_EXITING ? 'x' : 'f';
}

static void stack_str(const agent_andor_tree *t, base_buf *b)
{
    for (int k = 0; k < agent_andor_stack_len(t); k++) {
        agent_andor_state st;
        int n = agent_andor_stack_at(t, k, &st);
        base_buf_printf(b, "%s%s%c", k ? " " : "", idof(t, n), state_ch(st));
    }
}

static char *stack_now(const agent_andor_tree *t)
{
    base_buf b;
    base_buf_init(&b, 1 << 16);
    stack_str(t, &b);
    size_t len;
    return base_buf_steal(&b, &len);
}

/* One step, logged. Returns the step's error. */
static base_err step_log(agent_andor_tree *t, const agent_andor_ops *ops, run_log *rl,
                         agent_andor_event *ev)
{
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_andor_step(t, ops, ev, err);
    if (e != BASE_OK)
        return e;
    if (rl) {
        base_buf_printf(&rl->pops, "%s%s%c%s", rl->pops.len ? " " : "", idof(t, ev->node),
                        state_ch(ev->state), ev->skipped ? "-" : "");
        if (rl->stacks.len)
            base_buf_append_str(&rl->stacks, "|");
        stack_str(t, &rl->stacks);
    }
    return BASE_OK;
}

/* Runs to the end (at most 1000 steps). Returns the steps taken or -1. */
static int run_all(agent_andor_tree *t, const agent_andor_ops *ops, run_log *rl)
{
    int n = 0;
    while (!agent_andor_finished(t) && n < 1000) {
        agent_andor_event ev;
        if (step_log(t, ops, rl, &ev) != BASE_OK)
            return -1;
        n++;
    }
    return n;
}

static void rl_init(run_log *rl)
{
    base_buf_init(&rl->pops, 1 << 20);
    base_buf_init(&rl->stacks, 1 << 20);
}

static void rl_fini(run_log *rl)
{
    base_buf_fini(&rl->pops);
    base_buf_fini(&rl->stacks);
}

static const char *bstr(const base_buf *b)
{
    return b->data ? (const char *)b->data : "";
}

static agent_andor_status st_of(const agent_andor_tree *t, const char *id)
{
    int i = agent_andor_find(t, id);
    return i < 0 ? (agent_andor_status)-1 : agent_andor_node_at(t, i)->status;
}

static const agent_andor_node *nd(const agent_andor_tree *t, const char *id)
{
    return agent_andor_node_at(t, agent_andor_find(t, id));
}

#define S_UNV AGENT_ANDOR_UNVISITED
#define S_VIS AGENT_ANDOR_VISITED
#define S_OK AGENT_ANDOR_SUCCESS
#define S_FAIL AGENT_ANDOR_FAIL
#define S_PRU AGENT_ANDOR_PRUNED
#define S_DEL AGENT_ANDOR_DELETED

#define NRULES(r) ((int)(sizeof(r) / sizeof((r)[0])))

/* A scripted run set up in one go; the case frees it with fx_fini. */
typedef struct fx {
    sc s;
    agent_andor_ops ops;
    agent_andor_tree *t;
    run_log rl;
} fx;

static int fx_init(fx *f, const char *task, const agent_andor_config *cfg, const sc_rule *rules,
                   int n)
{
    sc_init(&f->s, &f->ops, rules, n);
    rl_init(&f->rl);
    f->t = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    return agent_andor_tree_create(task, cfg, &f->t, err) == BASE_OK;
}

static void fx_fini(fx *f)
{
    agent_andor_tree_destroy(f->t);
    base_buf_fini(&f->s.log);
    rl_fini(&f->rl);
}

/* ---- the seed's worked example ------------------------------------------- */

static const sc_rule fig3_rules[] = {
    {'E', "1", "AND type query|select recipe|note recipe"},
    {'E', "1.1", "ACT type {\"text\":\"vegan chocolate brownie\"}"},
    {'E', "1.2", "OR Select Recipe A@1.0|Select Recipe B@0.95"},
    {'E', "1.2.1", "ACT click {\"mark\":3}"},
    {'E', "1.2.2", "ACT click {\"mark\":4}"},
    {'E', "1.3", "ACT note {\"text\":\"Recipe A, 4.7 stars\"}"},
    {'X', "1.3", "n"},
};

/* Figure 3: root AND with 1.1 type query, 1.2 an OR whose best alternative
 * 1.2.1 (score 1.0) succeeds so 1.2.2 (0.95) is never entered, 1.3 note.
 * Steps 1-2: the root expands to an AND (re-pushed EXITING, children pushed
 * in order, 1.1 on top); 1.1 is an ACTION, executes, succeeds and passes
 * through EXITING. Steps 3-4: 1.2 expands to an OR, only 1.2.1 is pushed;
 * it is entered (rollback to 1.2's page), executed; 1.2 succeeds. Steps
 * 5-6: 1.3 executes (a note action: Algorithm 6 skips the summarizer and
 * the update for it, which the contract follows; the seed's prose says
 * they ran after 1.3 too), the root's completion check confirms, the stack
 * empties with SUCCESS. The summarizer and the update (which changes
 * nothing) ran after each page-changing ACTION. */
static void figure3(void)
{
    fx f;
    CHECK(fx_init(&f, "Find a vegan chocolate brownie recipe with 4+ rating on allrecipes.com",
                  NULL, fig3_rules, NRULES(fig3_rules)));
    CHECK_OK(agent_andor_set_url(f.t, "https://www.allrecipes.com/"));
    f.s.exec_url[1] = "https://www.allrecipes.com/search?q=vegan+chocolate+brownie";
    char *s0 = stack_now(f.t);
    CHECK_STR(s0, "1e");
    base_free(s0);
    CHECK_EQ(run_all(f.t, &f.ops, &f.rl), 10);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.2e 1.2.1e 1.2.1x 1.2x 1.3e 1.3x 1x");
    CHECK_STR(bstr(&f.rl.stacks), "1x 1.3e 1.2e 1.1e"
                                  "|1x 1.3e 1.2e 1.1x"
                                  "|1x 1.3e 1.2e"
                                  "|1x 1.3e 1.2x 1.2.1e"
                                  "|1x 1.3e 1.2x 1.2.1x"
                                  "|1x 1.3e 1.2x"
                                  "|1x 1.3e"
                                  "|1x 1.3x"
                                  "|1x"
                                  "|");
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 E1.2 B1.2 E1.2.1 X1.2.1#0 M1.2.1 U1.2.1 "
                             "E1.3 X1.3#0 C1");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    CHECK_EQ(agent_andor_iterations(f.t), 10);
    CHECK_EQ(nd(f.t, "1")->type, AGENT_ANDOR_AND);
    CHECK_EQ(nd(f.t, "1.2")->type, AGENT_ANDOR_OR);
    CHECK_EQ(nd(f.t, "1.1")->type, AGENT_ANDOR_ACTION);
    CHECK_STR(nd(f.t, "1.1")->tool, "type");
    CHECK_STR(nd(f.t, "1.1")->args, "{\"text\":\"vegan chocolate brownie\"}");
    const char *ids[] = {"1", "1.1", "1.2", "1.2.1", "1.3"};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(st_of(f.t, ids[k]) == S_OK, "%s not success", ids[k]);
    /* 1.2.2 was never entered. */
    CHECK_EQ(st_of(f.t, "1.2.2"), S_UNV);
    CHECK_EQ(nd(f.t, "1.2.2")->execution_count, 0);
    CHECK_EQ(nd(f.t, "1.2.2")->first_iter, -1);
    CHECK_EQ(nd(f.t, "1.2.2")->tried, 0);
    CHECK_EQ(nd(f.t, "1.2.1")->tried, 1);
    CHECK_NEAR(nd(f.t, "1.2.2")->score, 0.95, 1e-9);
    /* Each node popped where the trace says. */
    CHECK_EQ(nd(f.t, "1")->first_iter, 0);
    CHECK_EQ(nd(f.t, "1")->last_iter, 9);
    CHECK_EQ(nd(f.t, "1.2.1")->first_iter, 4);
    /* The OR's URL is the page after 1.1; 1.2.1 executed there. */
    CHECK_STR(nd(f.t, "1.2")->url, "https://www.allrecipes.com/search?q=vegan+chocolate+brownie");
    CHECK_STR(f.s.url_at_exec[4], "https://www.allrecipes.com/search?q=vegan+chocolate+brownie");
    CHECK_STR(nd(f.t, "1")->reasoning, "scripted y");
    CHECK(agent_andor_finished(f.t));
    char err[BASE_ERRBUF_SIZE] = "";
    agent_andor_event ev;
    CHECK_EQ(agent_andor_step(f.t, &f.ops, &ev, err), BASE_EINVAL);
    fx_fini(&f);
}

/* Figure 3's events: each step's status changes, in order. */
static void figure3_events(void)
{
    fx f;
    CHECK(fx_init(&f, "brownie", NULL, fig3_rules, NRULES(fig3_rules)));
    const char *want[] = {
        "1:unvisited>visited",   "1.1:unvisited>visited 1.1:visited>success",     "",
        "1.2:unvisited>visited", "1.2.1:unvisited>visited 1.2.1:visited>success", "",
        "1.2:visited>success",   "1.3:unvisited>visited 1.3:visited>success",     "",
        "1:visited>success",
    };
    for (int k = 0; k < 10; k++) {
        agent_andor_event ev;
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
        char got[512] = "";
        size_t o = 0;
        for (int c = 0; c < ev.n_changes; c++)
            o += (size_t)snprintf(got + o, sizeof got - o, "%s%s:%s>%s", c ? " " : "",
                                  idof(f.t, ev.changes[c].node),
                                  agent_andor_status_name(ev.changes[c].from),
                                  agent_andor_status_name(ev.changes[c].to));
        CHECK_MSG(strcmp(got, want[k]) == 0, "step %d: \"%s\" != \"%s\"", k, got, want[k]);
        CHECK_EQ(ev.iter, k);
        if (k == 0) {
            CHECK_EQ(ev.ops, AGENT_ANDOR_CALLED_EXPAND);
            CHECK_EQ(ev.pushed, 4);
        }
        if (k == 4)
            CHECK_EQ(ev.ops, AGENT_ANDOR_CALLED_ROLLBACK | AGENT_ANDOR_CALLED_EXPAND |
                                 AGENT_ANDOR_CALLED_EXECUTE | AGENT_ANDOR_CALLED_SUMMARIZE |
                                 AGENT_ANDOR_CALLED_UPDATE);
        if (k == 9) {
            CHECK_EQ(ev.ops, AGENT_ANDOR_CALLED_COMPLETE);
            cJSON *j = agent_andor_event_json(f.t, &ev);
            CHECK(j != NULL);
            char *txt = cJSON_PrintUnformatted(j);
            CHECK_STR(txt, "{\"iter\":9,\"node\":\"1\",\"state\":\"exiting\",\"skipped\":false,"
                           "\"ops\":[\"complete\"],\"pushed\":0,\"purged\":0,\"changes\":[{"
                           "\"node\":\"1\",\"from\":\"visited\",\"to\":\"success\"}],"
                           "\"stop\":false}");
            cJSON_free(txt);
            cJSON_Delete(j);
        }
    }
    CHECK(agent_andor_finished(f.t));
    fx_fini(&f);
}

/* The seed's counterfactual: both alternatives of 1.2 fail (each attempt
 * reached the page, so neither is retried), 1.2 has no repair, is pruned,
 * its unexecuted sibling 1.3 is deleted (never entered), and the failure
 * reaches the root: the partial completion check says no (1.1 alone is
 * not the task), the root is repaired (revision 1 of 2) with two new
 * subgoals, which run, and the root succeeds after the check. The second
 * alternative starts from 1.2's page (rollback). */
static void counterfactual(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND type query|select recipe|note recipe"},
        {'E', "1.2", "OR Select Recipe A@1.0|Select Recipe B@0.95"},
        {'X', "1.2.1", "X"},
        {'X', "1.2.2", "X"},
        {'C', "1", "ny"},
        {'R', "1", "+search again with the rating filter|+note the recipe"},
    };
    fx f;
    CHECK(fx_init(&f, "brownie", NULL, rules, NRULES(rules)));
    CHECK_OK(agent_andor_set_url(f.t, "https://a.example/"));
    f.s.exec_url[1] = "https://a.example/results";
    f.s.exec_url[4] = "https://a.example/recipe-a";
    CHECK(run_all(f.t, &f.ops, &f.rl) > 0);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.2e 1.2.1e 1.2.1x 1.2.1f 1.2x 1.2f 1.2e 1.2.2e "
                                "1.2.2x 1.2.2f 1.2x 1.2f 1x 1f 1e 1.4e 1.4x 1.5e 1.5x 1x 1f");
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 E1.2 B1.2 E1.2.1 X1.2.1#0 B1.2 E1.2.2 "
                             "X1.2.2#0 R1.2 C1 R1 E1.4 X1.4#0 M1.4 U1.4 E1.5 X1.5#0 M1.5 U1.5 C1");
    /* 1.2.2 ran on 1.2's page, not on the page 1.2.1 left. */
    CHECK_STR(f.s.url_at_exec[5], "https://a.example/results");
    CHECK_EQ(st_of(f.t, "1.2.1"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.2.2"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.2"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.3"), S_DEL);
    CHECK_EQ(nd(f.t, "1.3")->first_iter, -1);
    CHECK_EQ(nd(f.t, "1.2")->execution_count, 2);
    CHECK_EQ(nd(f.t, "1")->revision_count, 1);
    CHECK_EQ(nd(f.t, "1.2.1")->retry_count, 1);
    CHECK_STR(nd(f.t, "1.4")->description, "search again with the rating filter");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* An OR's alternative is rolled back to the OR's page when it starts, not
 * when it is entered again after its repair: the repaired AND's new child
 * runs on the page its succeeded sibling left (the page the repair planned
 * on). The seed's Algorithm 2 rolls back on every entering; this is the
 * engine's documented choice. */
static void rollback_only_on_start(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "OR plan A@0.9|plan B@0.5"},
        {'E', "1.1", "AND open the details|check the fact"},
        {'X', "1.1.2", "X"},
        {'C', "1.1", "n"},
        {'R', "1.1", "-1.1.2|+check it another way"},
    };
    fx f;
    CHECK(fx_init(&f, "find a fact", NULL, rules, NRULES(rules)));
    CHECK_OK(agent_andor_set_url(f.t, "https://a.example/"));
    f.s.exec_url[3] = "https://a.example/details";
    CHECK(run_all(f.t, &f.ops, &f.rl) > 0);
    CHECK_EQ(nd(f.t, "1.1")->revision_count, 1);
    CHECK_EQ(nd(f.t, "1.1")->execution_count, 2);
    CHECK_EQ(st_of(f.t, "1.1.3"), S_OK);
    CHECK_EQ(st_of(f.t, "1.1"), S_OK);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    CHECK_STR(f.s.url_at_exec[agent_andor_find(f.t, "1.1.3")], "https://a.example/details");
    /* One rollback, when plan A started; plan B never ran. */
    const char *log = sc_text(&f.s);
    const char *b = strstr(log, "B1 ");
    CHECK_MSG(b && !strstr(b + 1, "B1 "), "rollbacks: %s", log);
    CHECK_EQ(nd(f.t, "1.2")->execution_count, 0);
    fx_fini(&f);
}

/* The counterfactual with the root's budget spent: every repair adds one
 * subgoal that fails again; after max_revisions (2) repairs the root is
 * pruned and the run ends with the stack empty and the outcome PRUNED. */
static void counterfactual_budget(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND type query|select recipe|note recipe"},
        {'E', "1.2", "OR Select Recipe A@1.0|Select Recipe B@0.95"},
        {'X', "1.2.1", "X"},
        {'X', "1.2.2", "X"},
        {'X', "1.4", "X"},
        {'X', "1.5", "X"},
        {'C', "1", "n"},
        {'R', "1", "+try another site;+try a third site"},
    };
    fx f;
    CHECK(fx_init(&f, "brownie", NULL, rules, NRULES(rules)));
    CHECK(run_all(f.t, &f.ops, &f.rl) > 0);
    CHECK_EQ(agent_andor_stack_len(f.t), 0);
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    CHECK_EQ(nd(f.t, "1")->revision_count, 2);
    CHECK_EQ(f.s.calls[0][3], 2); /* two repairs of the root, no third */
    CHECK_EQ(f.s.calls[0][2], 3); /* a partial check before each repair and the last prune */
    CHECK_EQ(st_of(f.t, "1.4"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.5"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.1"), S_OK); /* what happened stays */
    fx_fini(&f);
}

/* ---- ACTION (Algorithm 6, Algorithm 3/4 for ACTION) ------------------------ */

/* A failure that did not reach the page is retried (attempt 1) and then
 * succeeds; retry_count counts both attempts. */
static void action_retry(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a"}, {'X', "1.1", "xo"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 X1.1#1 M1.1 U1.1 C1");
    CHECK_EQ(nd(f.t, "1.1")->retry_count, 2);
    CHECK_STR(nd(f.t, "1.1")->result, "outcome o");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* A failure after the call reached the page is never retried, even with
 * retries left: the ACTION fails, is pruned, and the AND fails. The same
 * for an operator failure reported as having reached the page: 'X'. An
 * operator failure that did not reach it ('F') is retried. */
static void action_no_retry_reached(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b"}, {'X', "1.1", "Xo"}};
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.max_retries = 5;
    fx f;
    CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 R1");
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.1f 1x 1f");
    CHECK_EQ(st_of(f.t, "1.1"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);

    static const sc_rule rules2[] = {{'E', "1", "AND a"}, {'X', "1.1", "Fo"}};
    CHECK(fx_init(&f, "t", NULL, rules2, NRULES(rules2)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 X1.1#1 M1.1 U1.1 C1");
    fx_fini(&f);
}

/* The retry budget: two attempts that do not reach the page and the
 * ACTION fails (no third attempt). */
static void action_retry_budget(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a"}, {'X', "1.1", "xxo"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 X1.1#1 R1");
    CHECK_EQ(st_of(f.t, "1.1"), S_PRU);
    fx_fini(&f);
}

/* A note action (the tool is "note", or execute says note) changes no page:
 * no summarizer, no update. */
static void action_note(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND a|b"}, {'E', "1.1", "ACT note {\"text\":\"x\"}"}, {'X', "1.2", "n"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 E1.2 X1.2#0 C1");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* ---- AND (Algorithms 7, 3, 9) ---------------------------------------------- */

/* Ordered AND: a failed child deletes its later siblings (they leave the
 * stack: purged 2) and they never run; an unordered AND runs them. */
static void and_ordered_vs_unordered(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b|c"}, {'X', "1.1", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 4; k++)
        CHECK_OK(step_log(f.t, &f.ops, &f.rl, &ev));
    CHECK_EQ(ev.state, AGENT_ANDOR_FAILED);
    CHECK_EQ(ev.purged, 2);
    CHECK_EQ(ev.n_changes, 3); /* 1.1 pruned, 1.2 and 1.3 deleted */
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(bstr(&f.rl.stacks), "1x 1.3e 1.2e 1.1e|1x 1.3e 1.2e 1.1x|1x 1.3e 1.2e 1.1f|1x|1f|");
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(st_of(f.t, "1.3"), S_DEL);
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);

    static const sc_rule rules2[] = {{'E', "1", "ANDU a|b|c"}, {'X', "1.1", "X"}, {'C', "1", "y"}};
    CHECK(fx_init(&f, "t", NULL, rules2, NRULES(rules2)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_EQ(nd(f.t, "1")->ordered, 0);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 E1.2 X1.2#0 M1.2 U1.2 E1.3 X1.3#0 M1.3 U1.3 C1");
    CHECK_EQ(st_of(f.t, "1.3"), S_OK);
    /* 1.1 failed: not all succeeded; the partial check says yes. */
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.1f 1.2e 1.2x 1.3e 1.3x 1x 1f");
    fx_fini(&f);
}

/* Completion-check scope. root (default): only the root is checked; all:
 * every AND; none: never (all children succeeded is enough). Nested AND
 * 1.1 of two actions. */
static void and_check_scope(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND group|last"}, {'E', "1.1", "AND a|b"}};
    const char *want[] = {"E1 E1.1 E1.1.1 X1.1.1#0 M1.1.1 U1.1.1 E1.1.2 X1.1.2#0 M1.1.2 U1.1.2 "
                          "E1.2 X1.2#0 M1.2 U1.2 C1",
                          "E1 E1.1 E1.1.1 X1.1.1#0 M1.1.1 U1.1.1 E1.1.2 X1.1.2#0 M1.1.2 U1.1.2 "
                          "C1.1 E1.2 X1.2#0 M1.2 U1.2 C1",
                          "E1 E1.1 E1.1.1 X1.1.1#0 M1.1.1 U1.1.1 E1.1.2 X1.1.2#0 M1.1.2 U1.1.2 "
                          "E1.2 X1.2#0 M1.2 U1.2"};
    for (int sc_i = 0; sc_i < 3; sc_i++) {
        agent_andor_config c;
        agent_andor_config_init(&c);
        c.scope = (agent_andor_check_scope)sc_i;
        fx f;
        CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
        run_all(f.t, &f.ops, NULL);
        CHECK_STR(sc_text(&f.s), want[sc_i]);
        CHECK_EQ(agent_andor_outcome(f.t), S_OK);
        fx_fini(&f);
    }
    agent_andor_check_scope s;
    CHECK_OK(agent_andor_scope_parse("all", &s, NULL));
    CHECK_EQ(s, AGENT_ANDOR_CHECK_ALL);
    CHECK_OK(agent_andor_scope_parse("none", &s, NULL));
    CHECK_EQ(s, AGENT_ANDOR_CHECK_NONE);
    CHECK_OK(agent_andor_scope_parse("root", &s, NULL));
    CHECK_EQ(s, AGENT_ANDOR_CHECK_ROOT);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_andor_scope_parse("some", &s, err), BASE_EINVAL);
    CHECK(strstr(err, "root, all, none") != NULL);
    CHECK_STR(agent_andor_scope_name(AGENT_ANDOR_CHECK_NONE), "none");
}

/* The EXITING check says no: the root FAILs; the FAILED pass does not ask
 * the same question again (one C1 before the repair), repairs, and the
 * new child runs; the next check says yes. A check whose operator fails is
 * a no. */
static void and_check_no(void)
{
    static const sc_rule r2[] = {{'E', "1", "AND a"}, {'C', "1", "ny"}, {'R', "1", "+b"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, r2, NRULES(r2)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 C1 R1 E1.2 X1.2#0 M1.2 U1.2 C1");
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1x 1f 1e 1.2e 1.2x 1x");
    CHECK_EQ(nd(f.t, "1")->revision_count, 1);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);

    static const sc_rule r3[] = {{'E', "1", "AND a"}, {'C', "1", "F"}};
    CHECK(fx_init(&f, "t", NULL, r3, NRULES(r3)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 C1 R1");
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);
}

/* Once an AND has used its revisions, EXITING with all children succeeded
 * skips the check (Algorithm 3's else branch): SUCCESS. max_revisions 1:
 * the check says no, the repair adds b (revision 1), b succeeds, no
 * second check. */
static void and_check_after_revisions(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a"}, {'C', "1", "n"}, {'R', "1", "+b"}};
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.max_revisions = 1;
    fx f;
    CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 C1 R1 E1.2 X1.2#0 M1.2 U1.2");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* Partial completion (Algorithm 9): no open child, one succeeded. yes: the
 * AND succeeds (the failed child stays pruned); no: repair. Non-root AND
 * 1.1 with children a (ok), b (fails), under scope root. */
static void and_partial_completion(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND sub"}, {'E', "1.1", "AND a|b"}, {'X', "1.1.2", "X"}, {'C', "1.1", "y"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 E1.1.1 X1.1.1#0 M1.1.1 U1.1.1 E1.1.2 X1.1.2#0 C1.1 C1");
    CHECK_EQ(st_of(f.t, "1.1"), S_OK);
    CHECK_EQ(st_of(f.t, "1.1.2"), S_PRU);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);

    static const sc_rule r2[] = {{'E', "1", "AND sub"},
                                 {'E', "1.1", "AND a|b"},
                                 {'X', "1.1.2", "X"},
                                 {'C', "1.1", "n"},
                                 {'R', "1.1", "-1.1.2|+b done differently"}};
    CHECK(fx_init(&f, "t", NULL, r2, NRULES(r2)));
    run_all(f.t, &f.ops, &f.rl);
    /* The repair dropped the failed b and added 1.1.3: the AND succeeds
     * without another check (not in scope), the root's check confirms. */
    CHECK_STR(sc_text(&f.s), "E1 E1.1 E1.1.1 X1.1.1#0 M1.1.1 U1.1.1 E1.1.2 X1.1.2#0 C1.1 R1.1 "
                             "E1.1.3 X1.1.3#0 M1.1.3 U1.1.3 C1");
    CHECK_EQ(nd(f.t, "1.1")->revision_count, 1);
    CHECK_EQ(st_of(f.t, "1.1"), S_OK);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* An AND whose children all failed (none succeeded): no completion check,
 * straight to repair. */
static void and_no_success_no_check(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a"}, {'X', "1.1", "X"}, {'R', "1", "0"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 R1");
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);
}

/* Algorithm 7's "no open child" branch: the repair only drops the failed
 * child (a revision, nothing added); entered again, the AND has no child
 * left to run and none succeeded: FAIL in ENTERING, then EXITING pushes
 * FAILED, and the second repair (nothing) prunes it. */
static void and_enter_no_open_child(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b"}, {'X', "1.1", "X"}, {'R', "1", "-1.1;0"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 6; k++)
        CHECK_OK(step_log(f.t, &f.ops, &f.rl, &ev));
    CHECK_EQ(nd(f.t, "1")->revision_count, 1);
    CHECK_OK(step_log(f.t, &f.ops, &f.rl, &ev));
    CHECK_EQ(ev.state, AGENT_ANDOR_ENTERING);
    CHECK_EQ(ev.pushed, 1); /* only its own EXITING entry */
    CHECK_EQ(ev.n_changes, 1);
    CHECK_EQ(ev.changes[0].to, S_FAIL);
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.1f 1x 1f 1e 1x 1f");
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 R1 R1");
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);
}

/* ---- repair ------------------------------------------------------------- */

/* prune_self wins over additions in the same answer; an operator failure
 * adds nothing; a prune naming a node that is not the AND's child (the
 * root itself, a grandchild, an unknown id) is dropped, so nothing is
 * revised and the AND is pruned. */
static void repair_prune_self_and_bad_prunes(void)
{
    const char *specs[] = {"!|+b", "F", "-1|-9.9|-1.1.1.1", "S"};
    for (int k = 0; k < 4; k++) {
        sc_rule rules[] = {{'E', "1", "AND sub"},
                           {'E', "1.1", "AND a"},
                           {'E', "1.1.1", "OR x@0.5"},
                           {'X', "1.1.1.1", "X"},
                           {'R', "1.1", specs[k]}};
        fx f;
        CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
        run_all(f.t, &f.ops, NULL);
        CHECK_EQ(nd(f.t, "1.1")->revision_count, 0);
        CHECK_EQ(nd(f.t, "1.1")->n_children, 1);
        if (k == 3) {
            /* The repair asked to stop: the run ends there. */
            CHECK(agent_andor_finished(f.t));
            CHECK(agent_andor_stack_len(f.t) > 0);
            CHECK_EQ(st_of(f.t, "1.1"), S_FAIL);
        } else {
            CHECK_EQ(st_of(f.t, "1.1"), S_PRU);
            CHECK_EQ(st_of(f.t, "1.1.1"), S_PRU);
            CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
        }
        fx_fini(&f);
    }
}

/* A failed OR's repair: prunes naming alternatives already closed (both
 * failed) are dropped, an untried one it prunes is never tried, the
 * additions count one revision and the best new one (d, 0.7) goes first. */
static void repair_or_prunes_and_adds(void)
{
    static const sc_rule r2[] = {{'E', "1", "OR a@0.9|b@0.8"},
                                 {'X', "1.1", "X"},
                                 {'X', "1.2", "X"},
                                 {'R', "1", "-1.1|-1.2|+c@0.3|+d@0.7|+e@0.6"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, r2, NRULES(r2)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(sc_text(&f.s), "E1 B1 E1.1 X1.1#0 B1 E1.2 X1.2#0 R1 B1 E1.4 X1.4#0 M1.4 U1.4");
    CHECK_EQ(nd(f.t, "1")->revision_count, 1);
    CHECK_EQ(st_of(f.t, "1.3"), S_UNV);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);

    /* Two repairs; the second one's prune names a failed alternative. */
    static const sc_rule r3[] = {{'E', "1", "OR a@0.9"},
                                 {'X', "1.1", "X"},
                                 {'X', "1.2", "X"},
                                 {'X', "1.3", "X"},
                                 {'R', "1", "+b@0.7|+c@0.6;-1.3|+d@0.1"}};
    CHECK(fx_init(&f, "t", NULL, r3, NRULES(r3)));
    run_all(f.t, &f.ops, &f.rl);
    /* a fails, repair 1 adds b and c, b fails, c (still untried) is tried
     * before any second repair, fails; repair 2 prunes c (closed: dropped)
     * and adds d, which succeeds. */
    CHECK_STR(sc_text(&f.s), "E1 B1 E1.1 X1.1#0 R1 B1 E1.2 X1.2#0 B1 E1.3 X1.3#0 R1 B1 E1.4 "
                             "X1.4#0 M1.4 U1.4");
    CHECK_EQ(nd(f.t, "1")->revision_count, 2);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* The revision budget of an OR: each repair adds an alternative that
 * fails; after two repairs the OR is pruned (no third repair). */
static void repair_or_budget(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND pick|after"}, {'E', "1.1", "OR a@0.9"},
                                    {'X', "1.1.1", "X"},          {'X', "1.1.2", "X"},
                                    {'X', "1.1.3", "X"},          {'R', "1.1", "+b@0.5;+c@0.5"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_EQ(f.s.calls[1][3], 2);
    CHECK_EQ(nd(f.t, "1.1")->revision_count, 2);
    CHECK_EQ(st_of(f.t, "1.1"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(nd(f.t, "1.1")->execution_count, 3); /* entered for a, then after each repair */
    fx_fini(&f);
}

/* max_children: an AND with as many children as the limit is not repaired
 * (no repair call), and an expansion beyond the limit is cut to it. */
static void repair_max_children(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b|c|d|e"}, {'X', "1.1", "X"}};
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.max_children = 3;
    fx f;
    CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_EQ(nd(f.t, "1")->n_children, 3);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0");
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);

    /* Repairs add only up to the limit: 2 children, limit 3, +x|+y|+z. */
    static const sc_rule r2[] = {{'E', "1", "AND a|b"}, {'X', "1.1", "X"}, {'R', "1", "+x|+y|+z"}};
    CHECK(fx_init(&f, "t", &c, r2, NRULES(r2)));
    run_all(f.t, &f.ops, NULL);
    CHECK_EQ(nd(f.t, "1")->n_children, 3);
    CHECK_STR(nd(f.t, "1.3")->description, "x");
    fx_fini(&f);
}

/* No revisions allowed (max_revisions < 0): no repair is asked for. */
static void repair_none_allowed(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a"}, {'X', "1.1", "X"}, {'R', "1", "+b"}};
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.max_revisions = -1;
    fx f;
    CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0");
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);
}

/* ---- OR (Algorithms 8, 10) ---------------------------------------------- */

/* The OR tries alternatives best score first (ties: the earlier one),
 * each once, with a rollback before each; when all fail and no repair
 * helps, it is pruned and the failure backtracks into its ordered AND
 * parent (the later sibling is deleted). */
static void or_order_and_exhaustion(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND choose|after"},
                                    {'E', "1.1", "OR low@0.2|high@0.9|mid@0.5|mid2@0.5"},
                                    {'X', "1.1.1", "X"},
                                    {'X', "1.1.2", "X"},
                                    {'X', "1.1.3", "X"},
                                    {'X', "1.1.4", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 B1.1 E1.1.2 X1.1.2#0 B1.1 E1.1.3 X1.1.3#0 B1.1 E1.1.4 "
                             "X1.1.4#0 B1.1 E1.1.1 X1.1.1#0 R1.1 R1");
    CHECK_EQ(st_of(f.t, "1.1"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);
}

/* OR success on the second alternative: the first failed (pruned), the
 * second succeeded, the OR succeeds; the third is never tried. A rollback
 * that fails leaves the engine's URL where it was. */
static void or_next_promising(void)
{
    static const sc_rule rules[] = {{'E', "1", "OR a@0.9|b@0.8|c@0.7"}, {'X', "1.1", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    f.s.rollback_ok = 0;
    CHECK_OK(agent_andor_set_url(f.t, "https://start.example/"));
    f.s.exec_url[1] = "https://moved.example/";
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.1f 1x 1f 1e 1.2e 1.2x 1x");
    CHECK_STR(f.s.url_at_exec[2], "https://moved.example/");
    CHECK_EQ(st_of(f.t, "1.3"), S_UNV);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* Algorithm 8's "no untried alternative" branch on entering: after a
 * failed, the OR goes back to ENTERING for b, and a person removes b
 * before that entry is popped; the OR fails there, and with no repair it
 * is pruned. */
static void or_enter_no_valid(void)
{
    static const sc_rule rules[] = {{'E', "1", "OR a@0.9|b@0.5"}, {'X', "1.1", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 6; k++)
        CHECK_OK(step_log(f.t, &f.ops, &f.rl, &ev));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1e");
    base_free(s);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_andor_remove(f.t, "1.2", err));
    CHECK_OK(step_log(f.t, &f.ops, &f.rl, &ev));
    CHECK_EQ(ev.n_changes, 1); /* visited (since its FAILED pass) -> fail */
    CHECK_EQ(ev.changes[0].to, S_FAIL);
    CHECK_EQ(ev.pushed, 1);
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.1f 1x 1f 1e 1x 1f");
    CHECK_STR(sc_text(&f.s), "E1 B1 E1.1 X1.1#0 R1");
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(agent_andor_outcome(f.t), S_PRU);
    fx_fini(&f);
}

/* ---- Algorithm 1's skips ------------------------------------------------- */

/* A PRUNED entry: the update after 1.1 prunes 1.2 (open, on the stack in
 * ENTERING); popping it backtracks (1.3, later in the ordered AND, is
 * deleted and purged) and is skipped, never expanded. The root then has a
 * lost child: it fails, the partial check (1.1 succeeded) says yes. */
static void skip_pruned_entry(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b|c"}, {'U', "1.1", "-1.2"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 4; k++)
        CHECK_OK(step_log(f.t, &f.ops, &f.rl, &ev));
    CHECK_EQ(ev.skipped, 1);
    CHECK_EQ(ev.purged, 1);
    CHECK_EQ(ev.ops, 0);
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.2e- 1x 1f");
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 C1");
    CHECK_EQ(st_of(f.t, "1.2"), S_PRU);
    CHECK_EQ(st_of(f.t, "1.3"), S_DEL);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* A SUCCESS entry whose revisions reached the limit is skipped: with
 * max_revisions 1, the root's b fails, the partial check says no, the
 * repair drops b (revision 1); re-entered, the AND has all its remaining
 * children succeeded (SUCCESS in Algorithm 7) and its EXITING entry is
 * then skipped without a second check. */
static void skip_success_max_revisions(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND a|b"}, {'X', "1.2", "X"}, {'C', "1", "n"}, {'R', "1", "-1.2"}};
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.max_revisions = 1;
    fx f;
    CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.2e 1.2x 1.2f 1x 1f 1e 1x-");
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 E1.2 X1.2#0 C1 R1");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* ---- expansion ---------------------------------------------------------- */

/* A failed expansion (operator failed, nothing usable, an ACTION without a
 * tool, arguments that are not one JSON object, an AND/OR at the depth
 * limit) makes the node FAIL, FAILED, then PRUNED like a failed action:
 * its later sibling is deleted. */
static void expand_failures(void)
{
    const char *specs[] = {"FAIL",    "EMPTY",   "NOTOOL",
                           "BADARGS", "AND x|y", "ACT click {\"m\":1} junk"};
    for (int k = 0; k < 6; k++) {
        sc_rule rules[] = {{'E', "1", "AND a|b"}, {'E', "1.1", specs[k]}};
        agent_andor_config c;
        agent_andor_config_init(&c);
        c.max_depth = 1;
        fx f;
        CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
        run_all(f.t, &f.ops, &f.rl);
        CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1f 1x 1f");
        CHECK_STR(sc_text(&f.s), "E1 E1.1 R1");
        CHECK_EQ(nd(f.t, "1.1")->type, AGENT_ANDOR_UNKNOWN);
        CHECK_EQ(st_of(f.t, "1.1"), S_PRU);
        CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
        CHECK_EQ(nd(f.t, "1.1")->n_children, 0);
        fx_fini(&f);
    }
}

/* Expansion details: an AND/OR description rewrite is applied, scores are
 * clamped to 0..1, arguments are stored as compact JSON, a missing args is
 * "{}", reasoning is kept. */
static void expand_details(void)
{
    static const sc_rule rules[] = {{'E', "1", "OR a@1.7|b@-2"},
                                    {'E', "1.1", "ACT type {  \"text\" : \"x\" ,\"n\":1 }"},
                                    {'E', "1.2", "ACT scroll"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_NEAR(nd(f.t, "1.1")->score, 1.0, 0);
    CHECK_NEAR(nd(f.t, "1.2")->score, 0.0, 0);
    CHECK_STR(nd(f.t, "1.1")->args, "{\"text\":\"x\",\"n\":1}");
    CHECK_STR(nd(f.t, "1")->reasoning, "scripted OR a@1.7|b@-2");
    fx_fini(&f);
}

/* ---- stops and budgets --------------------------------------------------- */

/* An operator's STOP ends the run at once: expand (the entry is put back),
 * execute, summarize, complete. Steps after it are refused. */
static void stop_ops(void)
{
    static const sc_rule r1[] = {{'E', "1", "AND a|b"}, {'E', "1.2", "STOP"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, r1, NRULES(r1)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK(agent_andor_finished(f.t));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1x 1.2e");
    base_free(s);
    CHECK_STR(bstr(&f.rl.pops), "1e 1.1e 1.1x 1.2e");
    agent_andor_event ev;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_andor_step(f.t, &f.ops, &ev, err), BASE_EINVAL);
    CHECK(strstr(err, "stopped") != NULL);
    fx_fini(&f);

    static const sc_rule r2[] = {{'E', "1", "AND a|b"}, {'X', "1.1", "S"}};
    CHECK(fx_init(&f, "t", NULL, r2, NRULES(r2)));
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    CHECK_EQ(ev.stop, 1);
    CHECK(agent_andor_finished(f.t));
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0");
    fx_fini(&f);

    static const sc_rule r3[] = {{'E', "1", "AND a"}, {'C', "1", "S"}};
    CHECK(fx_init(&f, "t", NULL, r3, NRULES(r3)));
    run_all(f.t, &f.ops, NULL);
    CHECK(agent_andor_finished(f.t));
    CHECK_EQ(agent_andor_outcome(f.t), S_VIS);
    fx_fini(&f);
}

/* The iteration budget: the run ends after `budget` pops even though the
 * stack is not empty; step refuses afterwards. */
static void budget_ends_run(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b|c"}};
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.budget = 4;
    fx f;
    CHECK(fx_init(&f, "t", &c, rules, NRULES(rules)));
    CHECK_EQ(run_all(f.t, &f.ops, NULL), 4);
    CHECK(agent_andor_finished(f.t));
    CHECK(agent_andor_stack_len(f.t) > 0);
    CHECK_EQ(agent_andor_iterations(f.t), 4);
    CHECK_EQ(agent_andor_tree_config(f.t)->budget, 4);
    agent_andor_event ev;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_andor_step(f.t, &f.ops, &ev, err), BASE_EINVAL);
    CHECK(strstr(err, "budget") != NULL);
    fx_fini(&f);
}

/* Failure propagates up several levels: 1 AND > 1.1 AND > 1.1.1 OR >
 * 1.1.1.1 ACTION (fails). With no repairs each level is pruned in turn and
 * each repair is asked exactly once, innermost first; the ordered siblings
 * after each failed level are deleted. */
static void failure_propagation(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND l1|after1"},
                                    {'E', "1.1", "AND l2|after2"},
                                    {'E', "1.1.1", "OR leaf@0.5"},
                                    {'X', "1.1.1.1", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, &f.rl);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 E1.1.1 B1.1.1 E1.1.1.1 X1.1.1.1#0 R1.1.1 R1.1 R1");
    CHECK_STR(bstr(&f.rl.pops),
              "1e 1.1e 1.1.1e 1.1.1.1e 1.1.1.1x 1.1.1.1f 1.1.1x 1.1.1f 1.1x 1.1f 1x 1f");
    const char *pr[] = {"1", "1.1", "1.1.1", "1.1.1.1"};
    for (int k = 0; k < 4; k++)
        CHECK_MSG(st_of(f.t, pr[k]) == S_PRU, "%s not pruned", pr[k]);
    CHECK_EQ(st_of(f.t, "1.1.2"), S_DEL);
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(agent_andor_stack_len(f.t), 0);
    fx_fini(&f);
}

/* The global update's edits are validated: pruning the root, a closed
 * node (the action just done) or no node, and rewriting the root or a
 * closed node are dropped; rewriting an open node applies. */
static void update_validation(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND a|b"}, {'U', "1.1", "-1|-1.1|-7.7|~1=new task|~1.1=x|~1.2=b rewritten"}};
    fx f;
    CHECK(fx_init(&f, "task", NULL, rules, NRULES(rules)));
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(nd(f.t, "1")->description, "task");
    CHECK_STR(nd(f.t, "1.1")->description, "a");
    CHECK_STR(nd(f.t, "1.2")->description, "b rewritten");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* ---- a person's edits ----------------------------------------------------- */

/* An AND in progress picks up an injected child in its place: after 1.1
 * ran, "fix" is injected before the first unprocessed child (1.2), and a
 * second one at the end; the order of execution is 1.1, 1.4, 1.2, 1.3, 1.5. */
static void inject_and_in_progress(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b|c"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 3; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    int idx = -1;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_andor_inject(f.t, "1", "fix", -1, 0, &idx, err));
    CHECK_STR(idof(f.t, idx), "1.4");
    CHECK_OK(agent_andor_inject(f.t, "1", "last", 99, 0, NULL, err));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1x 1.5e 1.3e 1.2e 1.4e");
    base_free(s);
    const agent_andor_node *r = nd(f.t, "1");
    CHECK_EQ(r->n_children, 5);
    CHECK_STR(idof(f.t, r->children[1]), "1.4");
    CHECK_STR(idof(f.t, r->children[4]), "1.5");
    /* A position inside the processed ones is clamped after them. */
    CHECK_OK(agent_andor_inject(f.t, "1", "early", 0, 0, &idx, err));
    CHECK_STR(idof(f.t, nd(f.t, "1")->children[1]), "1.6");
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 E1.6 X1.6#0 M1.6 U1.6 E1.4 X1.4#0 M1.4 "
                             "U1.4 E1.2 X1.2#0 M1.2 U1.2 E1.3 X1.3#0 M1.3 U1.3 E1.5 X1.5#0 M1.5 "
                             "U1.5 C1");
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* An injected child of an AND with no entries of its children on the
 * stack (the AND's EXITING is next): the EXITING pass sees it unvisited
 * and enters the AND again. Also: injecting under the UNKNOWN root makes
 * it an AND without an expansion call. */
static void inject_exiting_and_unknown(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 3; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    /* Stack: 1x. Inject goes right above it. */
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_andor_inject(f.t, "1", "b", -1, 0, NULL, err));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1x 1.2e");
    base_free(s);
    run_all(f.t, &f.ops, NULL);
    CHECK_EQ(st_of(f.t, "1.2"), S_OK);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);

    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    CHECK_OK(agent_andor_inject(f.t, "1", "only", -1, 0, NULL, err));
    CHECK_EQ(nd(f.t, "1")->type, AGENT_ANDOR_AND);
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1.1 X1.1#0 M1.1 U1.1 C1");
    fx_fini(&f);
}

/* An OR uses an injected alternative when its current one fails: 1.1
 * (0.9) is in progress when "z" (0.95) is injected; 1.1 fails, z is tried
 * next (before 1.2 at 0.8). */
static void inject_or_alternative(void)
{
    static const sc_rule rules[] = {{'E', "1", "OR a@0.9|b@0.8"}, {'X', "1.1", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    char err[BASE_ERRBUF_SIZE] = "";
    int idx = -1;
    CHECK_OK(agent_andor_inject(f.t, "1", "z", 5, 0.95, &idx, err));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1x 1.1e"); /* the OR's stack is untouched */
    base_free(s);
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 B1 E1.1 X1.1#0 B1 E1.3 X1.3#0 M1.3 U1.3");
    CHECK_EQ(st_of(f.t, "1.2"), S_UNV);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    fx_fini(&f);
}

/* Inject refuses with clear errors: no such id, empty text, closed parent
 * ("1.1 already succeeded", pruned, deleted), an ACTION parent. */
static void inject_errors(void)
{
    static const sc_rule rules[] = {
        {'E', "1", "AND a|b|c"}, {'E', "1.2", "AND x"}, {'X', "1.2.1", "X"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 3; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_andor_inject(f.t, "1.9", "x", -1, 0, NULL, err), BASE_ENOTFOUND);
    CHECK(strstr(err, "1.9") != NULL);
    err[0] = 0;
    CHECK_EQ(agent_andor_inject(f.t, "1", "", -1, 0, NULL, err), BASE_EINVAL);
    CHECK(strstr(err, "empty") != NULL);
    err[0] = 0;
    CHECK_EQ(agent_andor_inject(f.t, "1.1", "x", -1, 0, NULL, err), BASE_EINVAL);
    CHECK_STR(err, "1.1 already succeeded");
    int n0 = agent_andor_node_count(f.t);
    /* Run until 1.2.1 has failed and 1.3 is deleted. */
    for (int k = 0; k < 5; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    CHECK_EQ(st_of(f.t, "1.2.1"), S_PRU);
    err[0] = 0;
    CHECK_EQ(agent_andor_inject(f.t, "1.2.1", "x", -1, 0, NULL, err), BASE_EINVAL);
    CHECK_STR(err, "1.2.1 was pruned");
    run_all(f.t, &f.ops, NULL);
    err[0] = 0;
    CHECK_EQ(agent_andor_inject(f.t, "1.3", "x", -1, 0, NULL, err), BASE_EINVAL);
    CHECK_STR(err, "1.3 was deleted");
    CHECK_EQ(agent_andor_node_count(f.t), n0 + 1); /* only 1.2.1 was added */
    fx_fini(&f);

    static const sc_rule r2[] = {{'E', "1", "AND a|b"}};
    CHECK(fx_init(&f, "t", NULL, r2, NRULES(r2)));
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    err[0] = 0;
    /* 1.1 is an action that already succeeded: closed first. */
    CHECK_EQ(agent_andor_inject(f.t, "1.1", "x", -1, 0, NULL, err), BASE_EINVAL);
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev)); /* 1.2 entered: executed, EXITING */
    static const sc_rule r3[] = {{'E', "1", "AND a"}, {'X', "1.1", "xx"}};
    fx g;
    CHECK(fx_init(&g, "t", NULL, r3, NRULES(r3)));
    CHECK_OK(step_log(g.t, &g.ops, NULL, &ev));
    CHECK_OK(step_log(g.t, &g.ops, NULL, &ev));
    CHECK_EQ(st_of(g.t, "1.1"), S_FAIL); /* open, but an action */
    err[0] = 0;
    CHECK_EQ(agent_andor_inject(g.t, "1.1", "x", -1, 0, NULL, err), BASE_EINVAL);
    CHECK(strstr(err, "is an action") != NULL);
    fx_fini(&g);
    fx_fini(&f);
}

/* Replace of an in-progress node: 1.2 (an OR whose first alternative is on
 * the stack) gets a new description; its subtree is deleted and leaves the
 * stack, its EXITING entry becomes ENTERING, it is expanded afresh and its
 * new children take new ids (1.2.3, never 1.2.1 again). */
static void replace_in_progress(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b"},
                                    {'E', "1.2", "OR old1@0.9|old2@0.5;AND new1|new2"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 4; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1x 1.2x 1.2.1e");
    base_free(s);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_andor_replace(f.t, "1.2", "b, done another way", err));
    s = stack_now(f.t);
    CHECK_STR(s, "1x 1.2e");
    base_free(s);
    CHECK_EQ(st_of(f.t, "1.2.1"), S_DEL);
    CHECK_EQ(st_of(f.t, "1.2.2"), S_DEL);
    CHECK_EQ(st_of(f.t, "1.2"), S_UNV);
    CHECK_EQ(nd(f.t, "1.2")->type, AGENT_ANDOR_UNKNOWN);
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(nd(f.t, "1.2")->description, "b, done another way");
    CHECK_EQ(nd(f.t, "1.2")->type, AGENT_ANDOR_AND);
    CHECK_EQ(st_of(f.t, "1.2.3"), S_OK);
    CHECK_EQ(st_of(f.t, "1.2.4"), S_OK);
    CHECK_EQ(f.s.calls[0][1], 0);
    CHECK(strstr(sc_text(&f.s), "E1.2.1") == NULL);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    /* Closed nodes are refused. */
    err[0] = 0;
    CHECK_EQ(agent_andor_replace(f.t, "1.1", "x", err), BASE_EINVAL);
    CHECK_STR(err, "1.1 already succeeded");
    CHECK_EQ(agent_andor_replace(f.t, "1.7", "x", err), BASE_ENOTFOUND);
    CHECK_EQ(agent_andor_replace(f.t, "1", "", err), BASE_EINVAL);
    fx_fini(&f);
}

/* Remove: a pending node is deleted (not a failure: the AND still
 * succeeds, no backtracking, no repair); the root and closed nodes are
 * refused. */
static void remove_node(void)
{
    static const sc_rule rules[] = {{'E', "1", "AND a|b|c"}};
    fx f;
    CHECK(fx_init(&f, "t", NULL, rules, NRULES(rules)));
    agent_andor_event ev;
    for (int k = 0; k < 3; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_andor_remove(f.t, "1.2", err));
    char *s = stack_now(f.t);
    CHECK_STR(s, "1x 1.3e");
    base_free(s);
    run_all(f.t, &f.ops, NULL);
    CHECK_STR(sc_text(&f.s), "E1 E1.1 X1.1#0 M1.1 U1.1 E1.3 X1.3#0 M1.3 U1.3 C1");
    CHECK_EQ(st_of(f.t, "1.2"), S_DEL);
    CHECK_EQ(agent_andor_outcome(f.t), S_OK);
    err[0] = 0;
    CHECK_EQ(agent_andor_remove(f.t, "1", err), BASE_EINVAL);
    CHECK(strstr(err, "root") != NULL);
    CHECK_EQ(agent_andor_remove(f.t, "1.3", err), BASE_EINVAL);
    CHECK_EQ(agent_andor_remove(f.t, "2", err), BASE_ENOTFOUND);
    fx_fini(&f);
}

/* ---- text and JSON -------------------------------------------------------- */

static void text_json(void)
{
    fx f;
    CHECK(fx_init(&f, "brownie", NULL, fig3_rules, NRULES(fig3_rules)));
    agent_andor_event ev;
    for (int k = 0; k < 5; k++)
        CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    char *txt = agent_andor_tree_text(f.t, -1, 0);
    CHECK_STR(txt, "1 [AND, visited] brownie\n"
                   "  1.1 [ACTION, success] type query => type {\"text\":\"vegan chocolate "
                   "brownie\"} -> outcome o\n"
                   "  1.2 [OR, visited] select recipe\n"
                   "    1.2.1 [ACTION, success] Select Recipe A (score 1, tried) => click "
                   "{\"mark\":3} -> outcome o\n"
                   "    1.2.2 [UNKNOWN, unvisited] Select Recipe B (score 0.95)\n"
                   "  1.3 [UNKNOWN, unvisited] note recipe\n");
    base_free(txt);
    int f12 = agent_andor_find(f.t, "1.2.2");
    txt = agent_andor_tree_text(f.t, f12, 1);
    CHECK_STR(txt, "1 [AND, visited] brownie\n"
                   "  1.2 [OR, visited] select recipe\n"
                   "    1.2.1 [ACTION, success] Select Recipe A (score 1, tried) => click "
                   "{\"mark\":3} -> outcome o\n"
                   "    1.2.2 [UNKNOWN, unvisited] Select Recipe B (score 0.95) <-\n");
    base_free(txt);
    run_all(f.t, &f.ops, NULL);
    /* Closed subtrees collapse. */
    txt = agent_andor_tree_text(f.t, 0, 0);
    CHECK_STR(txt, "1 [AND, success] brownie <-\n  (5 more below, success)\n");
    base_free(txt);
    /* ...except on the way to the focus. */
    txt = agent_andor_tree_text(f.t, agent_andor_find(f.t, "1.2.1"), 1);
    CHECK_STR(txt, "1 [AND, success] brownie\n"
                   "  1.2 [OR, success] select recipe\n"
                   "    1.2.1 [ACTION, success] Select Recipe A (score 1, tried) => click "
                   "{\"mark\":3} -> outcome o <-\n"
                   "    1.2.2 [UNKNOWN, unvisited] Select Recipe B (score 0.95)\n");
    base_free(txt);

    cJSON *j = agent_andor_tree_json(f.t);
    CHECK(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "outcome")->valuestring, "success");
    CHECK_EQ(cJSON_GetObjectItem(j, "iterations")->valueint, 10);
    cJSON *nodes = cJSON_GetObjectItem(j, "nodes");
    CHECK_EQ(cJSON_GetArraySize(nodes), 6);
    cJSON *n2 = NULL;
    cJSON *it;
    cJSON_ArrayForEach(it, nodes)
    {
        if (strcmp(cJSON_GetObjectItem(it, "id")->valuestring, "1.2") == 0)
            n2 = it;
    }
    CHECK(n2 != NULL);
    CHECK_STR(cJSON_GetObjectItem(n2, "type")->valuestring, "or");
    CHECK_STR(cJSON_GetObjectItem(n2, "parent")->valuestring, "1");
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(n2, "children")), 2);
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(n2, "children"), 1)->valuestring, "1.2.2");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(n2, "tool")));
    CHECK_EQ(cJSON_GetObjectItem(n2, "executions")->valueint, 1);
    CHECK_EQ(cJSON_GetObjectItem(n2, "first_iter")->valueint, 3);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(j, "stack")), 0);
    cJSON_Delete(j);
    fx_fini(&f);

    /* The stack as JSON pairs. */
    CHECK(fx_init(&f, "t", NULL, fig3_rules, NRULES(fig3_rules)));
    CHECK_OK(step_log(f.t, &f.ops, NULL, &ev));
    j = agent_andor_tree_json(f.t);
    char *p = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "stack"));
    CHECK_STR(p, "[[\"1\",\"exiting\"],[\"1.3\",\"entering\"],[\"1.2\",\"entering\"],[\"1.1\","
                 "\"entering\"]]");
    cJSON_free(p);
    cJSON_Delete(j);
    fx_fini(&f);

    char err[BASE_ERRBUF_SIZE] = "";
    agent_andor_tree *t = NULL;
    CHECK_EQ(agent_andor_tree_create("", NULL, &t, err), BASE_EINVAL);
    CHECK(t == NULL);
    agent_andor_tree_destroy(NULL);
    CHECK_STR(agent_andor_status_name(AGENT_ANDOR_DELETED), "deleted");
    CHECK_STR(agent_andor_type_name(AGENT_ANDOR_OR), "or");
    CHECK_STR(agent_andor_state_name(AGENT_ANDOR_FAILED), "failed");
}

/* Edit helpers. */
static void edit_helpers(void)
{
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(agent_andor_edit_add(&e, "", 0), BASE_EINVAL);
    CHECK_EQ(agent_andor_edit_add(&e, NULL, 0), BASE_EINVAL);
    for (int k = 0; k < 40; k++) {
        CHECK_OK(agent_andor_edit_add(&e, "child", k / 40.0));
        CHECK_OK(agent_andor_edit_prune(&e, k));
        CHECK_OK(agent_andor_edit_rewrite(&e, k, "text"));
    }
    CHECK_EQ(agent_andor_edit_rewrite(&e, 1, ""), BASE_EINVAL);
    CHECK_EQ(e.n_add, 40);
    CHECK_EQ(e.n_prune, 40);
    CHECK_OK(agent_andor_edit_prune(&e, 7)); /* listed already: not again */
    CHECK_EQ(e.n_prune, 40);
    CHECK_EQ(e.n_rewrite, 40);
    CHECK_EQ(e.rewrite_node[39], 39);
    CHECK_STR(e.rewrite_text[39], "text");
    agent_andor_edit_fini(&e);
    CHECK_EQ(e.n_add, 0);
    CHECK(e.add == NULL);
    agent_andor_edit_fini(NULL);
}

/* ---- random operators ----------------------------------------------------- */

typedef struct rnd {
    base_rng rng;
    int executed[4096]; /* execute calls per node */
    int reached[4096];  /* an attempt reached the page */
    int violations;
    char what[256];
    int edits; /* person's edits between steps */
} rnd;

static void violation(rnd *r, const char *what, const char *id)
{
    if (!r->violations)
        snprintf(r->what, sizeof r->what, "%s (node %s)", what, id);
    r->violations++;
}

static agent_andor_op_status rnd_expand(void *ctx, const agent_andor_tree *t, int node,
                                        agent_andor_edit *out)
{
    rnd *r = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, node);
    double u = base_rng_unit(&r->rng);
    if (u < 0.03)
        return AGENT_ANDOR_OP_FAILED;
    if (u < 0.04) {
        out->type = AGENT_ANDOR_AND; /* nothing usable */
        return AGENT_ANDOR_OP_OK;
    }
    /* Deeper nodes lean to actions; sometimes an AND/OR beyond the depth
     * limit is proposed (it must be refused). */
    double p_act = 0.05 + 0.22 * n->depth;
    if (base_rng_unit(&r->rng) < p_act) {
        out->type = AGENT_ANDOR_ACTION;
        out->tool = base_strdup(base_rng_chance(&r->rng, 0.2) ? "note" : "click");
        out->args = base_strdup(base_rng_chance(&r->rng, 0.05) ? "oops" : "{\"m\":1}");
        return AGENT_ANDOR_OP_OK;
    }
    out->type = base_rng_chance(&r->rng, 0.5) ? AGENT_ANDOR_AND : AGENT_ANDOR_OR;
    out->unordered = base_rng_chance(&r->rng, 0.2);
    /* Now and then far more children than max_children, and scores no
     * model should send (NaN, infinite, negative): cut and clamped. */
    int k = base_rng_chance(&r->rng, 0.03) ? 40 : 1 + (int)base_rng_below(&r->rng, 4);
    for (int c = 0; c < k; c++) {
        double score = base_rng_unit(&r->rng);
        if (base_rng_chance(&r->rng, 0.02))
            score = base_rng_chance(&r->rng, 0.5) ? NAN : -INFINITY;
        agent_andor_edit_add(out, "sub", score);
    }
    return AGENT_ANDOR_OP_OK;
}

static agent_andor_op_status rnd_execute(void *ctx, const agent_andor_tree *t, int node,
                                         int attempt, agent_andor_exec *out)
{
    rnd *r = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, node);
    if (n->type != AGENT_ANDOR_ACTION)
        violation(r, "executed a node that is not an action", n->id);
    if (n->status == AGENT_ANDOR_PRUNED || n->status == AGENT_ANDOR_DELETED ||
        n->status == AGENT_ANDOR_SUCCESS)
        violation(r, "executed a closed node", n->id);
    if (node < 4096) {
        if (r->reached[node])
            violation(r, "executed again after an attempt reached the page", n->id);
        if (attempt != r->executed[node])
            violation(r, "attempt number is not the count of earlier attempts", n->id);
        r->executed[node]++;
    }
    double u = base_rng_unit(&r->rng);
    if (u < 0.002)
        return AGENT_ANDOR_OP_STOP;
    if (u < 0.65) {
        out->ok = 1;
        out->reached_page = 1;
    } else if (u < 0.8) {
        out->reached_page = 1;
    } else if (u < 0.85) {
        return AGENT_ANDOR_OP_FAILED;
    }
    if (out->reached_page && node < 4096)
        r->reached[node] = 1;
    return AGENT_ANDOR_OP_OK;
}

static int rnd_node(rnd *r, const agent_andor_tree *t)
{
    if (base_rng_chance(&r->rng, 0.1))
        return (int)base_rng_below(&r->rng, 100000) - 5; /* out of range, negative */
    return (int)base_rng_below(&r->rng, (uint64_t)agent_andor_node_count(t));
}

static agent_andor_op_status rnd_update(void *ctx, const agent_andor_tree *t, int node,
                                        agent_andor_edit *out)
{
    rnd *r = ctx;
    (void)node;
    if (base_rng_chance(&r->rng, 0.15))
        agent_andor_edit_prune(out, rnd_node(r, t));
    if (base_rng_chance(&r->rng, 0.15))
        agent_andor_edit_rewrite(out, rnd_node(r, t), "rewritten");
    return AGENT_ANDOR_OP_OK;
}

static agent_andor_op_status rnd_complete(void *ctx, const agent_andor_tree *t, int node, int *yes,
                                          char *why, size_t cap)
{
    rnd *r = ctx;
    (void)t;
    (void)node;
    snprintf(why, cap, "random");
    *yes = base_rng_chance(&r->rng, 0.6);
    return base_rng_chance(&r->rng, 0.05) ? AGENT_ANDOR_OP_FAILED : AGENT_ANDOR_OP_OK;
}

static agent_andor_op_status rnd_repair(void *ctx, const agent_andor_tree *t, int node,
                                        agent_andor_edit *out)
{
    rnd *r = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, node);
    double u = base_rng_unit(&r->rng);
    if (u < 0.1)
        return AGENT_ANDOR_OP_FAILED;
    if (u < 0.2) {
        out->prune_self = 1;
        return AGENT_ANDOR_OP_OK;
    }
    int k = (int)base_rng_below(&r->rng, 3);
    for (int c = 0; c < k; c++)
        agent_andor_edit_add(out, "repaired", base_rng_unit(&r->rng));
    if (n->n_children && base_rng_chance(&r->rng, 0.3))
        agent_andor_edit_prune(out, n->children[base_rng_below(&r->rng, (uint64_t)n->n_children)]);
    if (base_rng_chance(&r->rng, 0.1))
        agent_andor_edit_prune(out, rnd_node(r, t)); /* maybe not its child */
    return AGENT_ANDOR_OP_OK;
}

static int rnd_rollback(void *ctx, const agent_andor_tree *t, int or_node)
{
    rnd *r = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, or_node);
    if (!n || n->type != AGENT_ANDOR_OR)
        violation(r, "rollback to a node that is not an OR", n ? n->id : "?");
    return base_rng_chance(&r->rng, 0.9);
}

/* Checks ids: unique, the root "1", each child "<parent>.<k>". */
static int ids_ok(const agent_andor_tree *t, char *why, size_t cap)
{
    int n = agent_andor_node_count(t);
    for (int i = 0; i < n; i++) {
        const agent_andor_node *a = agent_andor_node_at(t, i);
        if (!(a->score >= 0 && a->score <= 1)) {
            snprintf(why, cap, "score of %s out of 0..1", a->id);
            return 0;
        }
        if (a->index != i) {
            snprintf(why, cap, "index of %s", a->id);
            return 0;
        }
        if (agent_andor_find(t, a->id) != i) {
            snprintf(why, cap, "duplicate id %s", a->id);
            return 0;
        }
        if (a->parent < 0) {
            if (i != 0 || strcmp(a->id, "1") != 0) {
                snprintf(why, cap, "root id %s", a->id);
                return 0;
            }
            continue;
        }
        const agent_andor_node *p = agent_andor_node_at(t, a->parent);
        size_t pl = strlen(p->id);
        if (strncmp(a->id, p->id, pl) != 0 || a->id[pl] != '.' || a->depth != p->depth + 1) {
            snprintf(why, cap, "id %s under %s", a->id, p->id);
            return 0;
        }
        int found = 0;
        for (int k = 0; k < p->n_children; k++)
            found += p->children[k] == i;
        if (found != 1) {
            snprintf(why, cap, "%s listed %d times", a->id, found);
            return 0;
        }
    }
    return 1;
}

static int is_closed_st(agent_andor_status s)
{
    return s == S_OK || s == S_PRU || s == S_DEL;
}

/* One random run; returns 0 with why on a broken invariant. */
static int random_run(uint64_t seed, int with_edits, int *replayed, char *why, size_t cap)
{
    rnd *r = base_calloc(1, sizeof *r);
    base_rng_seed(&r->rng, seed);
    agent_andor_ops ops = {r,          rnd_expand,   rnd_execute, NULL,
                           rnd_update, rnd_complete, rnd_repair,  rnd_rollback};
    if (base_rng_chance(&r->rng, 0.5))
        ops.summarize = NULL;
    agent_andor_config c;
    agent_andor_config_init(&c);
    c.scope = (agent_andor_check_scope)base_rng_below(&r->rng, 3);
    c.max_depth = 1 + (int)base_rng_below(&r->rng, 6);
    c.max_revisions = (int)base_rng_below(&r->rng, 4) - 1;
    c.max_children = 2 + (int)base_rng_below(&r->rng, 5);
    c.budget = 50 + (int)base_rng_below(&r->rng, 300);
    agent_andor_tree *t = NULL;
    int ok = 1;
    if (agent_andor_tree_create("random task", &c, &t, NULL) != BASE_OK) {
        snprintf(why, cap, "create");
        base_free(r);
        return 0;
    }
    agent_andor_status replay[4096];
    replay[0] = S_UNV;
    int consistent = 1;
    int steps = 0;
    while (!agent_andor_finished(t)) {
        if (with_edits && base_rng_chance(&r->rng, 0.08)) {
            /* A person's edit on a random node; refusals are fine, the
             * engine must stay consistent either way. */
            int n = (int)base_rng_below(&r->rng, (uint64_t)agent_andor_node_count(t));
            const char *id = agent_andor_node_at(t, n)->id;
            char idc[AGENT_ANDOR_ID_MAX];
            snprintf(idc, sizeof idc, "%s", id);
            int which = (int)base_rng_below(&r->rng, 3);
            if (which == 0)
                agent_andor_inject(t, idc, "injected", (int)base_rng_below(&r->rng, 5) - 1,
                                   base_rng_unit(&r->rng), NULL, NULL);
            else if (which == 1)
                agent_andor_replace(t, idc, "replaced", NULL);
            else
                agent_andor_remove(t, idc, NULL);
            for (int i = 0; i < agent_andor_node_count(t) && i < 4096; i++)
                replay[i] = agent_andor_node_at(t, i)->status;
            /* A replaced node is a new one: its old attempts do not count. */
            for (int i = 0; i < agent_andor_node_count(t) && i < 4096; i++) {
                if (agent_andor_node_at(t, i)->type != AGENT_ANDOR_ACTION &&
                    agent_andor_node_at(t, i)->status == S_UNV) {
                    r->reached[i] = 0;
                    r->executed[i] = 0;
                }
            }
            r->edits++;
        }
        int nstack0 = agent_andor_stack_len(t);
        int before[4096];
        int nb = 0;
        for (int k = 0; k < nstack0 && k < 4096; k++) {
            agent_andor_state st;
            int nn = agent_andor_stack_at(t, k, &st);
            before[nb++] = nn * 4 + (int)st;
        }
        int nodes0 = agent_andor_node_count(t);
        agent_andor_event ev;
        char err[BASE_ERRBUF_SIZE] = "";
        if (agent_andor_step(t, &ops, &ev, err) != BASE_OK) {
            snprintf(why, cap, "step failed: %s", err);
            ok = 0;
            break;
        }
        steps++;
        const agent_andor_node *pn = agent_andor_node_at(t, ev.node);
        if (ev.state == AGENT_ANDOR_ENTERING && !ev.skipped && ev.ops == 0 &&
            pn->type == AGENT_ANDOR_UNKNOWN) {
            snprintf(why, cap, "an UNKNOWN node entered without an expansion");
            ok = 0;
            break;
        }
        for (int i = nodes0; i < agent_andor_node_count(t) && i < 4096; i++)
            replay[i] = S_UNV;
        if (ev.n_changes > AGENT_ANDOR_EVENT_CHANGES) {
            consistent = 0;
        } else if (consistent) {
            for (int k = 0; k < ev.n_changes; k++) {
                int nn = ev.changes[k].node;
                if (nn >= 4096)
                    continue;
                if (replay[nn] != ev.changes[k].from) {
                    snprintf(why, cap, "event %d: %s from %s but it was %s", ev.iter,
                             agent_andor_node_at(t, nn)->id,
                             agent_andor_status_name(ev.changes[k].from),
                             agent_andor_status_name(replay[nn]));
                    ok = 0;
                }
                replay[nn] = ev.changes[k].to;
            }
            if (!ok)
                break;
        }
        /* Entries new after this step: none in ENTERING for a closed node;
         * at most one entry per node. */
        int seen[4096];
        memset(seen, 0,
               sizeof(int) *
                   (size_t)(agent_andor_node_count(t) < 4096 ? agent_andor_node_count(t) : 4096));
        for (int k = 0; k < agent_andor_stack_len(t); k++) {
            agent_andor_state st;
            int nn = agent_andor_stack_at(t, k, &st);
            if (nn < 4096 && seen[nn]++) {
                snprintf(why, cap, "two entries for %s", agent_andor_node_at(t, nn)->id);
                ok = 0;
            }
            int key = nn * 4 + (int)st;
            int old = 0;
            for (int b = 0; b < nb && !old; b++)
                old = before[b] == key && !(b == nb - 1);
            agent_andor_status s = agent_andor_node_at(t, nn)->status;
            if (!old && st == AGENT_ANDOR_ENTERING && is_closed_st(s)) {
                snprintf(why, cap, "%s pushed ENTERING while %s", agent_andor_node_at(t, nn)->id,
                         agent_andor_status_name(s));
                ok = 0;
            }
            /* Any ENTERING entry of a closed node must be a pruned one left
             * by an update (popped later as a skip), never a success or a
             * deleted node. */
            if (st == AGENT_ANDOR_ENTERING && (s == S_OK || s == S_DEL)) {
                snprintf(why, cap, "%s on the stack ENTERING while %s",
                         agent_andor_node_at(t, nn)->id, agent_andor_status_name(s));
                ok = 0;
            }
        }
        if (!ok)
            break;
        if (r->violations) {
            snprintf(why, cap, "%s", r->what);
            ok = 0;
            break;
        }
        if (steps > c.budget) {
            snprintf(why, cap, "more steps than the budget");
            ok = 0;
            break;
        }
    }
    if (ok && !ids_ok(t, why, cap))
        ok = 0;
    /* Without a person's injections, no AND grows past max_children and no
     * node other than an ACTION sits at or below max_depth with children. */
    for (int i = 0; ok && !with_edits && i < agent_andor_node_count(t); i++) {
        const agent_andor_node *a = agent_andor_node_at(t, i);
        if (a->type == AGENT_ANDOR_AND && a->n_children > c.max_children) {
            snprintf(why, cap, "%s has %d children (max %d)", a->id, a->n_children, c.max_children);
            ok = 0;
        }
        if (a->depth >= c.max_depth && a->n_children > 0) {
            snprintf(why, cap, "%s at depth %d has children", a->id, a->depth);
            ok = 0;
        }
    }
    if (ok && agent_andor_iterations(t) > c.budget) {
        snprintf(why, cap, "iterations past the budget");
        ok = 0;
    }
    if (ok && consistent) {
        for (int i = 0; i < agent_andor_node_count(t) && i < 4096; i++)
            if (replay[i] != agent_andor_node_at(t, i)->status) {
                snprintf(why, cap, "events replay %s as %s, it is %s",
                         agent_andor_node_at(t, i)->id, agent_andor_status_name(replay[i]),
                         agent_andor_status_name(agent_andor_node_at(t, i)->status));
                ok = 0;
                break;
            }
        if (ok)
            (*replayed)++;
    }
    /* A run that emptied its stack leaves nothing half-done: the root is
     * closed and no node is VISITED or FAIL; a successful action was
     * executed. */
    if (ok && agent_andor_stack_len(t) == 0) {
        agent_andor_status root = agent_andor_outcome(t);
        if (root != S_OK && root != S_PRU && !(with_edits && root == S_DEL)) {
            snprintf(why, cap, "empty stack with the root %s", agent_andor_status_name(root));
            ok = 0;
        }
        for (int i = 0; ok && i < agent_andor_node_count(t) && i < 4096; i++) {
            const agent_andor_node *a = agent_andor_node_at(t, i);
            if (a->status == S_VIS || a->status == S_FAIL) {
                snprintf(why, cap, "%s left %s", a->id, agent_andor_status_name(a->status));
                ok = 0;
            }
            if (!with_edits && a->type == AGENT_ANDOR_ACTION && a->status == S_OK &&
                r->executed[i] == 0) {
                snprintf(why, cap, "%s succeeded without running", a->id);
                ok = 0;
            }
        }
    }
    if (getenv("ANDOR_STATS"))
        fprintf(stderr, "STAT seed=%llu steps=%d nodes=%d outcome=%s stack=%d edits=%d\n",
                (unsigned long long)seed, steps, agent_andor_node_count(t),
                agent_andor_status_name(agent_andor_outcome(t)), agent_andor_stack_len(t),
                r->edits);
    agent_andor_tree_destroy(t);
    base_free(r);
    return ok;
}

static void random_runs(void)
{
    int replayed = 0;
    for (uint64_t seed = 1; seed <= 10000; seed++) {
        char why[256] = "";
        int ok = random_run(seed, 0, &replayed, why, sizeof why);
        CHECK_MSG(ok, "seed %llu: %s", (unsigned long long)seed, why);
    }
    /* Most runs fit the event's change list, so the replay check ran. */
    CHECK_MSG(replayed > 9000, "only %d runs replayed", replayed);
}

static void random_edits(void)
{
    int replayed = 0;
    for (uint64_t seed = 1; seed <= 5000; seed++) {
        char why[256] = "";
        int ok = random_run(seed * 7919, 1, &replayed, why, sizeof why);
        CHECK_MSG(ok, "seed %llu: %s", (unsigned long long)(seed * 7919), why);
    }
}

/* ---- out of memory ---------------------------------------------------------- */

/* Every allocation of the Figure 3 run (tree, steps, text, JSON) failing in
 * turn: a clean BASE_ENOMEM or NULL, never a crash or a leak (ASan). */
static void oom(void)
{
    for (unsigned long n = 1; n < 2000; n++) {
        fx f;
        sc_init(&f.s, &f.ops, fig3_rules, NRULES(fig3_rules));
        base_buf_reserve(&f.s.log, 4096);
        f.t = NULL;
        base_alloc_fail_after(n);
        base_err e = agent_andor_tree_create("brownie", NULL, &f.t, NULL);
        int failed = e != BASE_OK;
        while (e == BASE_OK && !agent_andor_finished(f.t)) {
            agent_andor_event ev;
            e = agent_andor_step(f.t, &f.ops, &ev, NULL);
            if (e != BASE_OK) {
                CHECK_EQ(e, BASE_ENOMEM);
                failed = 1;
            }
        }
        char *txt = f.t ? agent_andor_tree_text(f.t, 2, 1) : NULL;
        cJSON *j = f.t ? agent_andor_tree_json(f.t) : NULL;
        unsigned long used = base_alloc_fail_after(0);
        base_free(txt);
        cJSON_Delete(j);
        agent_andor_tree_destroy(f.t);
        base_buf_fini(&f.s.log);
        if (!failed && used < n && txt && j) {
            /* The whole path ran without reaching the n-th allocation:
             * every allocation before it has failed once. */
            CHECK_MSG(n > 50, "only %lu allocations", n);
            return;
        }
    }
    CHECK_MSG(0, "the run never completed under allocation failures");
}

int main(int argc, char **argv)
{
    base_json_alloc_install();
    static const check_case cases[] = {
        {"figure3", figure3},
        {"figure3_events", figure3_events},
        {"counterfactual", counterfactual},
        {"counterfactual_budget", counterfactual_budget},
        {"rollback_only_on_start", rollback_only_on_start},
        {"action_retry", action_retry},
        {"action_no_retry_reached", action_no_retry_reached},
        {"action_retry_budget", action_retry_budget},
        {"action_note", action_note},
        {"and_ordered_vs_unordered", and_ordered_vs_unordered},
        {"and_check_scope", and_check_scope},
        {"and_check_no", and_check_no},
        {"and_check_after_revisions", and_check_after_revisions},
        {"and_partial_completion", and_partial_completion},
        {"and_no_success_no_check", and_no_success_no_check},
        {"and_enter_no_open_child", and_enter_no_open_child},
        {"repair_prune_self_and_bad_prunes", repair_prune_self_and_bad_prunes},
        {"repair_or_prunes_and_adds", repair_or_prunes_and_adds},
        {"repair_or_budget", repair_or_budget},
        {"repair_max_children", repair_max_children},
        {"repair_none_allowed", repair_none_allowed},
        {"or_order_and_exhaustion", or_order_and_exhaustion},
        {"or_next_promising", or_next_promising},
        {"or_enter_no_valid", or_enter_no_valid},
        {"skip_pruned_entry", skip_pruned_entry},
        {"skip_success_max_revisions", skip_success_max_revisions},
        {"expand_failures", expand_failures},
        {"expand_details", expand_details},
        {"stop_ops", stop_ops},
        {"budget_ends_run", budget_ends_run},
        {"failure_propagation", failure_propagation},
        {"update_validation", update_validation},
        {"inject_and_in_progress", inject_and_in_progress},
        {"inject_exiting_and_unknown", inject_exiting_and_unknown},
        {"inject_or_alternative", inject_or_alternative},
        {"inject_errors", inject_errors},
        {"replace_in_progress", replace_in_progress},
        {"remove_node", remove_node},
        {"text_json", text_json},
        {"edit_helpers", edit_helpers},
        {"random_runs", random_runs},
        {"random_edits", random_edits},
        {"oom", oom},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
