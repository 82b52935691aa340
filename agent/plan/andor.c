/* agent/plan/andor.c: the AND/OR planning tree and its modified greedy DFS
 * (seed 001 §3.2, Appendix D, Algorithms 1-10); the contract and the
 * transition table are in agent/plan/andor.h.
 *
 * Design. Nodes live in one growable array and are named by their index,
 * so a node never moves for its readers (only the array does) and children
 * are index lists. A child is never removed from its parent's list: pruned
 * and deleted children stay, closed, which is what keeps dotted ids unique
 * (a new child is always number n_children + 1). The DFS stack is an array
 * of (node, state) entries. Every status change during a step goes through
 * set_status, which records it in the step's event, so the report can replay
 * a run from its events alone.
 *
 * Beyond the public node, each node keeps three private flags:
 *   reached  an execute attempt may have taken effect: the ACTION is never
 *            executed again, whatever its retry budget says;
 *   lost     closed by failure (pruned as a failed node, or deleted because
 *            an earlier ordered sibling failed) as opposed to dropped on
 *            purpose (a global update or a repair pruning it as irrelevant,
 *            a person removing it). A lost child keeps its AND parent from
 *            succeeding; a dropped one is simply no longer part of the plan
 *            (the seed's "valid = unpruned, undeleted" children for success,
 *            and its Table 6 "an AND fails when a child fails or is pruned"
 *            for failure, both hold this way);
 *   checked  the EXITING completion check of this AND just answered no, so
 *            the FAILED pass does not ask the same question again at once.
 */
#include "agent/plan/andor.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Descriptions come from a model or a person: a cap keeps one runaway
 * answer from flooding every later prompt that shows the tree. */
#define DESC_MAX 1024
#define RESULT_MAX 512

typedef struct node_rec {
    agent_andor_node n; /* first, so &rec->n and the record coincide */
    int reached;
    int lost;
    int checked;
    int purge; /* marked for purge_marked */
} node_rec;

typedef struct stack_entry {
    int node;
    agent_andor_state state;
} stack_entry;

struct agent_andor_tree {
    agent_andor_config cfg; /* defaults filled in */
    char *task;
    node_rec *nodes;
    int n_nodes, cap_nodes;
    stack_entry *stack;
    int n_stack, cap_stack;
    char *url;
    int iter;
    int stop;
    agent_andor_event *ev; /* the step in progress, or NULL (a person's edit) */
};

/* ---- names -------------------------------------------------------------- */

const char *agent_andor_type_name(agent_andor_type t)
{
    switch (t) {
    case AGENT_ANDOR_AND:
        return "and";
    case AGENT_ANDOR_OR:
        return "or";
    case AGENT_ANDOR_ACTION:
        return "action";
    case AGENT_ANDOR_UNKNOWN:
        break;
    }
    return "unknown";
}

const char *agent_andor_status_name(agent_andor_status s)
{
    switch (s) {
    case AGENT_ANDOR_UNVISITED:
        return "unvisited";
    case AGENT_ANDOR_VISITED:
        return "visited";
    case AGENT_ANDOR_SUCCESS:
        return "success";
    case AGENT_ANDOR_FAIL:
        return "fail";
    case AGENT_ANDOR_PRUNED:
        return "pruned";
    case AGENT_ANDOR_DELETED:
        return "deleted";
    }
    return "unknown";
}

const char *agent_andor_state_name(agent_andor_state s)
{
    switch (s) {
    case AGENT_ANDOR_ENTERING:
        return "entering";
    case AGENT_ANDOR_EXITING:
        return "exiting";
    case AGENT_ANDOR_FAILED:
        return "failed";
    }
    return "unknown";
}

const char *agent_andor_scope_name(agent_andor_check_scope s)
{
    switch (s) {
    case AGENT_ANDOR_CHECK_ROOT:
        return "root";
    case AGENT_ANDOR_CHECK_ALL:
        return "all";
    case AGENT_ANDOR_CHECK_NONE:
        return "none";
    }
    return "unknown";
}

base_err agent_andor_scope_parse(const char *text, agent_andor_check_scope *out, char *err)
{
    if (!text || !out)
        return base_errf(err, BASE_EINVAL, "completion check: expected root, all or none");
    if (strcmp(text, "root") == 0)
        *out = AGENT_ANDOR_CHECK_ROOT;
    else if (strcmp(text, "all") == 0)
        *out = AGENT_ANDOR_CHECK_ALL;
    else if (strcmp(text, "none") == 0)
        *out = AGENT_ANDOR_CHECK_NONE;
    else
        return base_errf(err, BASE_EINVAL,
                         "completion check: \"%.40s\" is not one of root, all, none", text);
    return BASE_OK;
}

void agent_andor_config_init(agent_andor_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->max_revisions = AGENT_ANDOR_MAX_REVISIONS;
    c->max_retries = AGENT_ANDOR_MAX_RETRIES;
    c->max_children = AGENT_ANDOR_MAX_CHILDREN;
    c->max_depth = AGENT_ANDOR_MAX_DEPTH;
    c->budget = AGENT_ANDOR_BUDGET;
    c->scope = AGENT_ANDOR_CHECK_ROOT;
}

/* ---- edits -------------------------------------------------------------- */

void agent_andor_edit_fini(agent_andor_edit *e)
{
    if (!e)
        return;
    base_free(e->tool);
    base_free(e->args);
    base_free(e->description);
    for (int i = 0; i < e->n_add; i++)
        base_free(e->add[i].description);
    base_free(e->add);
    base_free(e->prune);
    for (int i = 0; i < e->n_rewrite; i++)
        base_free(e->rewrite_text[i]);
    base_free(e->rewrite_node);
    base_free(e->rewrite_text);
    memset(e, 0, sizeof *e);
}

/* Grows an array of elem-sized items to hold one more; *cap doubles. */
static int grow(void **p, int *cap, int n, size_t elem)
{
    if (n < *cap)
        return 1;
    if (*cap > (1 << 24))
        return 0;
    int nc = *cap ? *cap * 2 : 8;
    void *q = base_realloc(*p, (size_t)nc * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

base_err agent_andor_edit_add(agent_andor_edit *e, const char *description, double score)
{
    if (!e || !description || !*description)
        return BASE_EINVAL;
    if (!grow((void **)&e->add, &e->cap_add, e->n_add, sizeof *e->add))
        return BASE_ENOMEM;
    char *d = base_strdup(description);
    if (!d)
        return BASE_ENOMEM;
    e->add[e->n_add].description = d;
    e->add[e->n_add].score = score;
    e->n_add++;
    return BASE_OK;
}

base_err agent_andor_edit_prune(agent_andor_edit *e, int node)
{
    if (!e)
        return BASE_EINVAL;
    for (int i = 0; i < e->n_prune; i++)
        if (e->prune[i] == node)
            return BASE_OK; /* named twice: pruned once */
    if (!grow((void **)&e->prune, &e->cap_prune, e->n_prune, sizeof *e->prune))
        return BASE_ENOMEM;
    e->prune[e->n_prune++] = node;
    return BASE_OK;
}

base_err agent_andor_edit_rewrite(agent_andor_edit *e, int node, const char *text)
{
    if (!e || !text || !*text)
        return BASE_EINVAL;
    /* Both arrays grow together; the second realloc may fail after the
     * first succeeded, which only leaves spare room in the first. */
    int cap = e->cap_rewrite;
    if (!grow((void **)&e->rewrite_node, &cap, e->n_rewrite, sizeof *e->rewrite_node))
        return BASE_ENOMEM;
    int cap2 = e->cap_rewrite;
    if (!grow((void **)&e->rewrite_text, &cap2, e->n_rewrite, sizeof *e->rewrite_text))
        return BASE_ENOMEM;
    e->cap_rewrite = cap < cap2 ? cap : cap2;
    char *d = base_strdup(text);
    if (!d)
        return BASE_ENOMEM;
    e->rewrite_node[e->n_rewrite] = node;
    e->rewrite_text[e->n_rewrite] = d;
    e->n_rewrite++;
    return BASE_OK;
}

/* ---- tree basics -------------------------------------------------------- */

/* A copy of s cut to at most max bytes on a UTF-8 character boundary. */
static char *dup_capped(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    return base_strndup(s, n);
}

/* The seed's CLOSED_STATUSES: a node in one of them is never processed
 * again (FAIL is not closed: a failing node still goes through FAILED). */
static int is_closed(agent_andor_status s)
{
    return s == AGENT_ANDOR_SUCCESS || s == AGENT_ANDOR_PRUNED || s == AGENT_ANDOR_DELETED;
}

/* Pointers into the node array move whenever a node is added (realloc), so
 * code that may add nodes looks a node up again by index afterwards rather
 * than holding one of these across the call. */
static node_rec *rec_at(agent_andor_tree *t, int i)
{
    return &t->nodes[i];
}

static agent_andor_node *node_mut(agent_andor_tree *t, int i)
{
    return &t->nodes[i].n;
}

static void node_free(node_rec *r)
{
    base_free(r->n.description);
    base_free(r->n.tool);
    base_free(r->n.args);
    base_free(r->n.children);
    base_free(r->n.url);
    base_free(r->n.reasoning);
    base_free(r->n.result);
}

/* Appends a node (UNKNOWN, UNVISITED) under parent (-1: the root). Its id is
 * the parent's followed by the next child number. Returns its index, or -1
 * (no memory, or the id would not fit). The parent's child list is not
 * touched: link_child places it. */
static int node_new(agent_andor_tree *t, int parent, const char *description, double score)
{
    char id[AGENT_ANDOR_ID_MAX];
    if (parent < 0) {
        snprintf(id, sizeof id, "1");
    } else {
        const agent_andor_node *p = &t->nodes[parent].n;
        int w = snprintf(id, sizeof id, "%s.%d", p->id, p->n_children + 1);
        if (w < 0 || (size_t)w >= sizeof id)
            return -1;
    }
    if (!grow((void **)&t->nodes, &t->cap_nodes, t->n_nodes, sizeof *t->nodes))
        return -1;
    node_rec *r = &t->nodes[t->n_nodes];
    memset(r, 0, sizeof *r);
    r->n.description = dup_capped(description, DESC_MAX);
    if (!r->n.description)
        return -1;
    memcpy(r->n.id, id, sizeof id);
    r->n.index = t->n_nodes;
    r->n.type = AGENT_ANDOR_UNKNOWN;
    r->n.status = AGENT_ANDOR_UNVISITED;
    r->n.score = isfinite(score) ? (score < 0 ? 0 : score > 1 ? 1 : score) : 0;
    r->n.parent = parent;
    r->n.depth = parent < 0 ? 0 : t->nodes[parent].n.depth + 1;
    r->n.ordered = 1;
    r->n.first_iter = r->n.last_iter = -1;
    return t->n_nodes++;
}

/* Inserts child into parent's list at pos (clamped to the list). On
 * failure the node stays in the array, unlinked, and is rolled back by the
 * caller with node_unnew. */
static int link_child(agent_andor_tree *t, int parent, int child, int pos)
{
    agent_andor_node *p = node_mut(t, parent);
    int *c = base_realloc(p->children, (size_t)(p->n_children + 1) * sizeof *c);
    if (!c)
        return 0;
    p->children = c;
    if (pos < 0 || pos > p->n_children)
        pos = p->n_children;
    memmove(c + pos + 1, c + pos, (size_t)(p->n_children - pos) * sizeof *c);
    c[pos] = child;
    p->n_children++;
    return 1;
}

/* Takes back the last node_new when it could not be linked. */
static void node_unnew(agent_andor_tree *t, int i)
{
    if (i == t->n_nodes - 1) {
        node_free(&t->nodes[i]);
        t->n_nodes--;
    }
}

/* A new child of parent at pos (< 0: the end). Returns its index or -1. */
static int add_child(agent_andor_tree *t, int parent, const char *description, double score,
                     int pos)
{
    int c = node_new(t, parent, description, score);
    if (c < 0)
        return -1;
    if (!link_child(t, parent, c, pos)) {
        node_unnew(t, c);
        return -1;
    }
    return c;
}

/* Pushes an entry. Inside a step the room was reserved before the pop
 * (reserve_stack), so this cannot fail there; the count goes to the event. */
static int push(agent_andor_tree *t, int node, agent_andor_state state)
{
    if (!grow((void **)&t->stack, &t->cap_stack, t->n_stack, sizeof *t->stack))
        return 0;
    t->stack[t->n_stack].node = node;
    t->stack[t->n_stack].state = state;
    t->n_stack++;
    if (t->ev)
        t->ev->pushed++;
    return 1;
}

base_err agent_andor_tree_create(const char *task, const agent_andor_config *cfg,
                                 agent_andor_tree **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "andor: no output handle");
    if (!task || !*task)
        return base_errf(err, BASE_EINVAL, "andor: the task is empty");
    agent_andor_tree *t = base_calloc(1, sizeof *t);
    if (!t)
        goto fail;
    agent_andor_config_init(&t->cfg);
    if (cfg) {
        /* 0 keeps the default; a negative revision budget means none. */
        if (cfg->max_revisions)
            t->cfg.max_revisions = cfg->max_revisions < 0 ? -1 : cfg->max_revisions;
        if (cfg->max_retries > 0)
            t->cfg.max_retries = cfg->max_retries;
        if (cfg->max_children > 0)
            t->cfg.max_children = cfg->max_children;
        if (cfg->max_depth > 0)
            t->cfg.max_depth = cfg->max_depth;
        if (cfg->budget > 0)
            t->cfg.budget = cfg->budget;
        if (cfg->scope >= AGENT_ANDOR_CHECK_ROOT && cfg->scope <= AGENT_ANDOR_CHECK_NONE)
            t->cfg.scope = cfg->scope;
    }
    t->task = base_strdup(task);
    t->url = base_strdup("");
    if (!t->task || !t->url)
        goto fail;
    if (node_new(t, -1, task, 0) != 0)
        goto fail;
    if (!push(t, 0, AGENT_ANDOR_ENTERING))
        goto fail;
    *out = t;
    return BASE_OK;
fail:
    agent_andor_tree_destroy(t);
    return base_errf(err, BASE_ENOMEM, "andor: out of memory creating the tree");
}

void agent_andor_tree_destroy(agent_andor_tree *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_nodes; i++)
        node_free(&t->nodes[i]);
    base_free(t->nodes);
    base_free(t->stack);
    base_free(t->task);
    base_free(t->url);
    base_free(t);
}

/* Finished also covers the budget and a stop, so a caller's loop needs no
 * other test; the stack length and the outcome tell the reasons apart. */
int agent_andor_finished(const agent_andor_tree *t)
{
    return !t || t->n_stack == 0 || t->iter >= t->cfg.budget || t->stop;
}

agent_andor_status agent_andor_outcome(const agent_andor_tree *t)
{
    return t && t->n_nodes > 0 ? t->nodes[0].n.status : AGENT_ANDOR_UNVISITED;
}

int agent_andor_iterations(const agent_andor_tree *t)
{
    return t ? t->iter : 0;
}

const agent_andor_config *agent_andor_tree_config(const agent_andor_tree *t)
{
    return t ? &t->cfg : NULL;
}

const char *agent_andor_task(const agent_andor_tree *t)
{
    return t ? t->task : "";
}

int agent_andor_node_count(const agent_andor_tree *t)
{
    return t ? t->n_nodes : 0;
}

const agent_andor_node *agent_andor_node_at(const agent_andor_tree *t, int i)
{
    if (!t || i < 0 || i >= t->n_nodes)
        return NULL;
    return &t->nodes[i].n;
}

int agent_andor_find(const agent_andor_tree *t, const char *id)
{
    if (!t || !id)
        return -1;
    for (int i = 0; i < t->n_nodes; i++)
        if (strcmp(t->nodes[i].n.id, id) == 0)
            return i;
    return -1;
}

int agent_andor_stack_len(const agent_andor_tree *t)
{
    return t ? t->n_stack : 0;
}

int agent_andor_stack_at(const agent_andor_tree *t, int i, agent_andor_state *state)
{
    if (!t || i < 0 || i >= t->n_stack)
        return -1;
    if (state)
        *state = t->stack[i].state;
    return t->stack[i].node;
}

const char *agent_andor_url(const agent_andor_tree *t)
{
    return t && t->url ? t->url : "";
}

base_err agent_andor_set_url(agent_andor_tree *t, const char *url)
{
    if (!t)
        return BASE_EINVAL;
    char *u = base_strdup(url ? url : "");
    if (!u)
        return BASE_ENOMEM;
    base_free(t->url);
    t->url = u;
    return BASE_OK;
}

/* ---- text and JSON ------------------------------------------------------ */

static int is_ancestor(const agent_andor_tree *t, int a, int n)
{
    for (int p = n; p >= 0; p = t->nodes[p].n.parent)
        if (p == a)
            return 1;
    return 0;
}

static int subtree_size(const agent_andor_tree *t, int i)
{
    const agent_andor_node *n = &t->nodes[i].n;
    int s = 0;
    for (int k = 0; k < n->n_children; k++)
        s += 1 + subtree_size(t, n->children[k]);
    return s;
}

static const char *upper_type(agent_andor_type ty)
{
    switch (ty) {
    case AGENT_ANDOR_AND:
        return "AND";
    case AGENT_ANDOR_OR:
        return "OR";
    case AGENT_ANDOR_ACTION:
        return "ACTION";
    case AGENT_ANDOR_UNKNOWN:
        break;
    }
    return "UNKNOWN";
}

/* One node's line: what a prompt needs to place it (id, type, status,
 * description), an alternative's score and whether it was tried, an
 * action's call and outcome. Two spaces of indent per level. */
static void text_line(const agent_andor_tree *t, int i, int focus, base_buf *b)
{
    const agent_andor_node *n = &t->nodes[i].n;
    const agent_andor_node *p = n->parent >= 0 ? &t->nodes[n->parent].n : NULL;
    base_buf_printf(b, "%*s%s [%s, %s] %s", 2 * n->depth, "", n->id, upper_type(n->type),
                    agent_andor_status_name(n->status), n->description);
    if (p && p->type == AGENT_ANDOR_OR)
        base_buf_printf(b, " (score %.2g%s)", n->score, n->tried ? ", tried" : "");
    if (n->type == AGENT_ANDOR_AND && !n->ordered)
        base_buf_append_str(b, " (any order)");
    if (n->type == AGENT_ANDOR_ACTION && n->tool)
        base_buf_printf(b, " => %s %s", n->tool, n->args ? n->args : "{}");
    if (n->result && *n->result)
        base_buf_printf(b, " -> %s", n->result);
    if (i == focus)
        base_buf_append_str(b, " <-");
    base_buf_append_str(b, "\n");
}

/* One node and, unless it is closed and the focus is not inside it, its
 * subtree. A closed subtree collapses to its own line plus a count: the
 * prompt needs to know it is done, not how. */
static void text_subtree(const agent_andor_tree *t, int i, int focus, base_buf *b)
{
    const agent_andor_node *n = &t->nodes[i].n;
    text_line(t, i, focus, b);
    if (n->n_children == 0)
        return;
    if (is_closed(n->status) && !(focus >= 0 && focus != i && is_ancestor(t, i, focus))) {
        base_buf_printf(b, "%*s(%d more below, %s)\n", 2 * (n->depth + 1), "", subtree_size(t, i),
                        agent_andor_status_name(n->status));
        return;
    }
    for (int k = 0; k < n->n_children; k++)
        text_subtree(t, n->children[k], focus, b);
}

char *agent_andor_tree_text(const agent_andor_tree *t, int focus, int local)
{
    if (!t)
        return NULL;
    if (focus >= t->n_nodes)
        focus = -1;
    base_buf b;
    base_buf_init(&b, (size_t)1 << 24);
    if (focus < 0 || !local) {
        text_subtree(t, 0, focus, &b);
    } else {
        /* The seed's LOCAL TREE INFORMATION: the path from the root, the
         * focus's siblings (collapsed) and its whole subtree. */
        int path[256];
        int np = 0;
        for (int p = t->nodes[focus].n.parent; p >= 0 && np < 256; p = t->nodes[p].n.parent)
            path[np++] = p;
        for (int k = np - 1; k >= 0; k--)
            text_line(t, path[k], focus, &b);
        int parent = t->nodes[focus].n.parent;
        if (parent < 0) {
            text_subtree(t, focus, focus, &b);
        } else {
            const agent_andor_node *p = &t->nodes[parent].n;
            for (int k = 0; k < p->n_children; k++) {
                int c = p->children[k];
                if (c == focus)
                    text_subtree(t, c, focus, &b);
                else
                    text_line(t, c, focus, &b);
            }
        }
    }
    size_t len = 0;
    return base_buf_steal(&b, &len);
}

/* Adds key: s (or null). cJSON leaves the item with the caller when the
 * key cannot be copied, so it is freed here rather than leaked. */
static void add_str_or_null(cJSON *o, const char *key, const char *s)
{
    cJSON *item = s ? cJSON_CreateString(s) : cJSON_CreateNull();
    if (item && !cJSON_AddItemToObject(o, key, item))
        cJSON_Delete(item);
}

/* Ids rather than indices everywhere in the JSON: the report and the
 * intervention file speak the seed's dotted ids. */
cJSON *agent_andor_tree_json(const agent_andor_tree *t)
{
    if (!t)
        return NULL;
    unsigned long f0 = base_alloc_thread_failures();
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "task", t->task);
    cJSON_AddStringToObject(j, "outcome", agent_andor_status_name(agent_andor_outcome(t)));
    cJSON_AddNumberToObject(j, "iterations", t->iter);
    cJSON *nodes = cJSON_AddArrayToObject(j, "nodes");
    for (int i = 0; nodes && i < t->n_nodes; i++) {
        const agent_andor_node *n = &t->nodes[i].n;
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(nodes, o);
        cJSON_AddStringToObject(o, "id", n->id);
        cJSON_AddStringToObject(o, "type", agent_andor_type_name(n->type));
        cJSON_AddStringToObject(o, "status", agent_andor_status_name(n->status));
        cJSON_AddStringToObject(o, "description", n->description);
        add_str_or_null(o, "tool", n->tool);
        add_str_or_null(o, "args", n->args);
        cJSON_AddNumberToObject(o, "score", n->score);
        add_str_or_null(o, "parent", n->parent >= 0 ? t->nodes[n->parent].n.id : NULL);
        cJSON *ch = cJSON_AddArrayToObject(o, "children");
        for (int k = 0; ch && k < n->n_children; k++)
            cJSON_AddItemToArray(ch, cJSON_CreateString(t->nodes[n->children[k]].n.id));
        cJSON_AddNumberToObject(o, "depth", n->depth);
        cJSON_AddBoolToObject(o, "ordered", n->ordered != 0);
        cJSON_AddNumberToObject(o, "executions", n->execution_count);
        cJSON_AddNumberToObject(o, "retries", n->retry_count);
        cJSON_AddNumberToObject(o, "revisions", n->revision_count);
        cJSON_AddBoolToObject(o, "tried", n->tried != 0);
        add_str_or_null(o, "url", n->url);
        add_str_or_null(o, "reasoning", n->reasoning);
        add_str_or_null(o, "result", n->result);
        cJSON_AddNumberToObject(o, "first_iter", n->first_iter);
        cJSON_AddNumberToObject(o, "last_iter", n->last_iter);
    }
    cJSON *st = cJSON_AddArrayToObject(j, "stack");
    for (int i = 0; st && i < t->n_stack; i++) {
        cJSON *e = cJSON_CreateArray();
        if (!e)
            break;
        cJSON_AddItemToArray(st, e);
        cJSON_AddItemToArray(e, cJSON_CreateString(t->nodes[t->stack[i].node].n.id));
        cJSON_AddItemToArray(e, cJSON_CreateString(agent_andor_state_name(t->stack[i].state)));
    }
    /* A member cJSON could not allocate is silently missing: drop the whole
     * document rather than hand out an incomplete tree. */
    if (base_alloc_thread_failures() != f0) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

cJSON *agent_andor_event_json(const agent_andor_tree *t, const agent_andor_event *ev)
{
    if (!t || !ev)
        return NULL;
    static const char *const op_names[] = {"expand",   "execute", "summarize", "update",
                                           "complete", "repair",  "rollback"};
    unsigned long f0 = base_alloc_thread_failures();
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    const agent_andor_node *n = agent_andor_node_at(t, ev->node);
    cJSON_AddNumberToObject(j, "iter", ev->iter);
    cJSON_AddStringToObject(j, "node", n ? n->id : "");
    cJSON_AddStringToObject(j, "state", agent_andor_state_name(ev->state));
    cJSON_AddBoolToObject(j, "skipped", ev->skipped != 0);
    cJSON *ops = cJSON_AddArrayToObject(j, "ops");
    for (unsigned k = 0; ops && k < sizeof op_names / sizeof op_names[0]; k++)
        if (ev->ops & (1u << k))
            cJSON_AddItemToArray(ops, cJSON_CreateString(op_names[k]));
    cJSON_AddNumberToObject(j, "pushed", ev->pushed);
    cJSON_AddNumberToObject(j, "purged", ev->purged);
    cJSON *ch = cJSON_AddArrayToObject(j, "changes");
    int nc = ev->n_changes < AGENT_ANDOR_EVENT_CHANGES ? ev->n_changes : AGENT_ANDOR_EVENT_CHANGES;
    for (int k = 0; ch && k < nc; k++) {
        cJSON *c = cJSON_CreateObject();
        if (!c)
            break;
        cJSON_AddItemToArray(ch, c);
        const agent_andor_node *cn = agent_andor_node_at(t, ev->changes[k].node);
        cJSON_AddStringToObject(c, "node", cn ? cn->id : "");
        cJSON_AddStringToObject(c, "from", agent_andor_status_name(ev->changes[k].from));
        cJSON_AddStringToObject(c, "to", agent_andor_status_name(ev->changes[k].to));
    }
    if (ev->n_changes > nc)
        cJSON_AddNumberToObject(j, "changes_total", ev->n_changes);
    cJSON_AddBoolToObject(j, "stop", ev->stop != 0);
    if (base_alloc_thread_failures() != f0) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* ---- status changes and the stack --------------------------------------- */

/* Every status change of a step goes through here so the step's event
 * lists it; a person's edits (no step in progress) are not events. */
static void set_status(agent_andor_tree *t, int i, agent_andor_status to)
{
    agent_andor_node *n = node_mut(t, i);
    if (n->status == to)
        return;
    agent_andor_event *ev = t->ev;
    if (ev) {
        if (ev->n_changes < AGENT_ANDOR_EVENT_CHANGES) {
            ev->changes[ev->n_changes].node = i;
            ev->changes[ev->n_changes].from = n->status;
            ev->changes[ev->n_changes].to = to;
        }
        ev->n_changes++;
    }
    n->status = to;
}

/* Closes node i and its subtree as `to` (PRUNED or DELETED). Descendants
 * that already succeeded keep their status unless `all` (a person's edit
 * discards the whole subtree); nodes already pruned or deleted keep theirs.
 * `lost` says whether this is a failure (see the file comment); `mark`
 * flags the nodes for purge_marked. */
static void close_subtree(agent_andor_tree *t, int i, agent_andor_status to, int lost, int mark,
                          int all)
{
    node_rec *r = rec_at(t, i);
    agent_andor_status s = r->n.status;
    if ((all || !is_closed(s)) && s != AGENT_ANDOR_PRUNED && s != AGENT_ANDOR_DELETED) {
        set_status(t, i, to);
        r->lost = lost;
        r->checked = 0;
    }
    if (mark)
        r->purge = 1;
    for (int k = 0; k < r->n.n_children; k++)
        close_subtree(t, r->n.children[k], to, lost, mark, all);
}

/* PURGE_STACK: drops the entries of every marked node and clears the marks. */
static void purge_marked(agent_andor_tree *t)
{
    int w = 0;
    for (int k = 0; k < t->n_stack; k++) {
        if (t->nodes[t->stack[k].node].purge) {
            if (t->ev)
                t->ev->purged++;
            continue;
        }
        t->stack[w++] = t->stack[k];
    }
    t->n_stack = w;
    for (int i = 0; i < t->n_nodes; i++)
        t->nodes[i].purge = 0;
}

/* Algorithm 5, BACKTRACK_FAILURE: in an ordered AND parent, the siblings
 * after the failed node cannot meet the conjunction any more; they and
 * their subtrees become DELETED (lost) and leave the stack. Siblings that
 * already succeeded or closed keep their status. */
static void backtrack(agent_andor_tree *t, int i)
{
    int p = t->nodes[i].n.parent;
    if (p < 0)
        return;
    const agent_andor_node *pn = &t->nodes[p].n;
    if (pn->type != AGENT_ANDOR_AND || !pn->ordered)
        return;
    int after = 0;
    int any = 0;
    for (int k = 0; k < pn->n_children; k++) {
        int c = pn->children[k];
        if (c == i) {
            after = 1;
            continue;
        }
        if (after && !is_closed(t->nodes[c].n.status)) {
            close_subtree(t, c, AGENT_ANDOR_DELETED, 1, 1, 0);
            any = 1;
        }
    }
    if (any)
        purge_marked(t);
}

/* RECURSIVELY_MARK_SUCCESS after a partial completion check said yes: the
 * node and the descendants still in progress (VISITED or FAIL) succeed;
 * alternatives never tried stay UNVISITED (they did not run). */
static void mark_success(agent_andor_tree *t, int i, int top)
{
    agent_andor_node *n = node_mut(t, i);
    if (top || n->status == AGENT_ANDOR_VISITED || n->status == AGENT_ANDOR_FAIL)
        set_status(t, i, AGENT_ANDOR_SUCCESS);
    for (int k = 0; k < n->n_children; k++)
        mark_success(t, n->children[k], 0);
}

/* ---- predicates over children ------------------------------------------- */

/* IS_SUCCESSFUL_AND: every child that is still part of the plan succeeded
 * (children dropped on purpose do not count; lost ones do), and at least
 * one did. */
static int and_succeeded(const agent_andor_tree *t, int i)
{
    const agent_andor_node *n = &t->nodes[i].n;
    int ok = 0;
    for (int k = 0; k < n->n_children; k++) {
        const node_rec *c = &t->nodes[n->children[k]];
        if (c->n.status == AGENT_ANDOR_SUCCESS)
            ok++;
        else if (!is_closed(c->n.status) || c->lost)
            return 0;
    }
    return ok > 0;
}

/* IS_VALID_AND: some child is not closed (still to process). */
static int has_open_child(const agent_andor_tree *t, int i)
{
    const agent_andor_node *n = &t->nodes[i].n;
    for (int k = 0; k < n->n_children; k++)
        if (!is_closed(t->nodes[n->children[k]].n.status))
            return 1;
    return 0;
}

/* A child not processed to an outcome yet (a person's injection, or one
 * whose entry is gone): the AND in EXITING goes round again for it. */
static int has_pending_child(const agent_andor_tree *t, int i)
{
    const agent_andor_node *n = &t->nodes[i].n;
    for (int k = 0; k < n->n_children; k++) {
        agent_andor_status s = t->nodes[n->children[k]].n.status;
        if (s == AGENT_ANDOR_UNVISITED || s == AGENT_ANDOR_VISITED)
            return 1;
    }
    return 0;
}

static int has_success_child(const agent_andor_tree *t, int i)
{
    const agent_andor_node *n = &t->nodes[i].n;
    for (int k = 0; k < n->n_children; k++)
        if (t->nodes[n->children[k]].n.status == AGENT_ANDOR_SUCCESS)
            return 1;
    return 0;
}

/* FIND_NEXT_PROMISING: the best-scored alternative never chosen and still
 * open; ties go to the earlier one. -1 when none is left (IS_VALID_OR). */
static int best_untried(const agent_andor_tree *t, int i)
{
    const agent_andor_node *n = &t->nodes[i].n;
    int best = -1;
    for (int k = 0; k < n->n_children; k++) {
        const agent_andor_node *c = &t->nodes[n->children[k]].n;
        if (c->tried || is_closed(c->status))
            continue;
        if (best < 0 || c->score > t->nodes[best].n.score)
            best = n->children[k];
    }
    return best;
}

static int rev_limit(const agent_andor_tree *t)
{
    return t->cfg.max_revisions < 0 ? 0 : t->cfg.max_revisions;
}

static int in_scope(const agent_andor_tree *t, int i)
{
    switch (t->cfg.scope) {
    case AGENT_ANDOR_CHECK_ALL:
        return 1;
    case AGENT_ANDOR_CHECK_NONE:
        return 0;
    case AGENT_ANDOR_CHECK_ROOT:
        break;
    }
    return t->nodes[i].n.parent < 0;
}

/* ---- applying operators' edits ------------------------------------------ */

static int set_str(char **dst, const char *s, size_t max)
{
    char *d = dup_capped(s ? s : "", max);
    if (!d)
        return 0;
    base_free(*dst);
    *dst = d;
    return 1;
}

/* The tool's arguments as compact JSON object text, or NULL when they are
 * not an object (the expansion is unusable). *oom is set on no memory. */
static char *args_compact(const char *args, int *oom)
{
    if (!args || !*args)
        return base_strdup("{}");
    cJSON *j = cJSON_ParseWithOpts(args, NULL, 1); /* nothing may follow the object */
    if (!j) {
        *oom = base_json_parse_error(args, strlen(args), NULL) == BASE_ENOMEM;
        return NULL;
    }
    char *s = NULL;
    if (cJSON_IsObject(j)) {
        char *p = cJSON_PrintUnformatted(j);
        if (p) {
            s = base_strdup(p);
            cJSON_free(p);
        }
        if (!s)
            *oom = 1;
    }
    cJSON_Delete(j);
    return s;
}

/* Applies an expansion. Returns 1 when the node got a type (and children or
 * a call), 0 when nothing usable was in it (the node stays UNKNOWN: a
 * failed expansion), -1 on no memory. */
static int apply_expand(agent_andor_tree *t, int i, agent_andor_edit *e)
{
    e->reasoning[sizeof e->reasoning - 1] = 0;
    if (e->reasoning[0] && !set_str(&node_mut(t, i)->reasoning, e->reasoning, sizeof e->reasoning))
        return -1;
    if (e->description && *e->description &&
        !set_str(&node_mut(t, i)->description, e->description, DESC_MAX))
        return -1;
    if (e->type == AGENT_ANDOR_ACTION) {
        if (!e->tool || !*e->tool)
            return 0;
        int oom = 0;
        char *args = args_compact(e->args, &oom);
        if (!args)
            return oom ? -1 : 0;
        char *tool = base_strdup(e->tool);
        if (!tool) {
            base_free(args);
            return -1;
        }
        agent_andor_node *n = node_mut(t, i);
        base_free(n->tool);
        base_free(n->args);
        n->tool = tool;
        n->args = args;
        n->type = AGENT_ANDOR_ACTION;
        return 1;
    }
    if (e->type != AGENT_ANDOR_AND && e->type != AGENT_ANDOR_OR)
        return 0;
    /* Below the depth limit only a concrete call is accepted, so a model
     * that keeps decomposing cannot grow the tree without end. */
    if (t->nodes[i].n.depth >= t->cfg.max_depth)
        return 0;
    int usable = 0;
    for (int k = 0; k < e->n_add; k++)
        if (e->add[k].description && *e->add[k].description)
            usable++;
    if (usable == 0)
        return 0;
    int added = 0;
    for (int k = 0; k < e->n_add && added < t->cfg.max_children; k++) {
        if (!e->add[k].description || !*e->add[k].description)
            continue;
        if (add_child(t, i, e->add[k].description, e->add[k].score, -1) < 0)
            return -1;
        added++;
    }
    agent_andor_node *n = node_mut(t, i);
    n->type = e->type;
    n->ordered = e->type == AGENT_ANDOR_AND ? !e->unordered : 1;
    return 1;
}

/* Applies a repair of node i. The node may prune only its own children:
 * open ones (they close as dropped and leave the stack) and, in an AND,
 * ones already lost (the repair gives up on them, so they stop blocking
 * the AND's success). Additions go at the end, up to max_children in all
 * for an AND and max_children per repair for an OR. Returns -1 on no
 * memory, else 0 with *added / *pruned counted. */
static int apply_repair(agent_andor_tree *t, int i, agent_andor_edit *e, int *added, int *pruned)
{
    *added = *pruned = 0;
    e->reasoning[sizeof e->reasoning - 1] = 0;
    agent_andor_node *n = node_mut(t, i);
    if (e->reasoning[0] && !set_str(&n->reasoning, e->reasoning, sizeof e->reasoning))
        return -1;
    if (e->prune_self)
        return 0;
    if (e->description && *e->description && !set_str(&n->description, e->description, DESC_MAX))
        return -1;
    for (int k = 0; k < e->n_prune; k++) {
        int c = e->prune[k];
        n = node_mut(t, i);
        int mine = 0;
        for (int m = 0; m < n->n_children; m++)
            if (n->children[m] == c)
                mine = 1;
        if (!mine)
            continue;
        node_rec *cr = rec_at(t, c);
        if (!is_closed(cr->n.status)) {
            close_subtree(t, c, AGENT_ANDOR_PRUNED, 0, 1, 0);
            (*pruned)++;
        } else if (n->type == AGENT_ANDOR_AND && cr->lost) {
            cr->lost = 0;
            (*pruned)++;
        }
    }
    purge_marked(t);
    int room = t->cfg.max_children;
    if (node_mut(t, i)->type == AGENT_ANDOR_AND)
        room -= node_mut(t, i)->n_children;
    for (int k = 0; k < e->n_add && *added < room; k++) {
        if (!e->add[k].description || !*e->add[k].description)
            continue;
        if (add_child(t, i, e->add[k].description, e->add[k].score, -1) < 0)
            return -1;
        (*added)++;
    }
    return 0;
}

/* Applies a global update: prunes open nodes other than the root (as
 * dropped: their stack entries stay, and popping them backtracks as the
 * seed's Algorithm 1 does) and rewrites open nodes' descriptions. Anything
 * naming the root, a closed node or no node is dropped. */
static int apply_update(agent_andor_tree *t, agent_andor_edit *e)
{
    for (int k = 0; k < e->n_prune; k++) {
        int c = e->prune[k];
        if (c <= 0 || c >= t->n_nodes || is_closed(t->nodes[c].n.status))
            continue;
        close_subtree(t, c, AGENT_ANDOR_PRUNED, 0, 0, 0);
    }
    for (int k = 0; k < e->n_rewrite; k++) {
        int c = e->rewrite_node[k];
        if (c <= 0 || c >= t->n_nodes || is_closed(t->nodes[c].n.status) || !e->rewrite_text[k] ||
            !*e->rewrite_text[k])
            continue;
        if (!set_str(&node_mut(t, c)->description, e->rewrite_text[k], DESC_MAX))
            return -1;
    }
    return 0;
}

/* ---- the algorithms ------------------------------------------------------ */

/* What a process_* function tells the step. */
enum { GO_ON = 0, GO_STOP = 1, GO_NOMEM = 2 };

static int op_update(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    if (!ops->update)
        return GO_ON;
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    t->ev->ops |= AGENT_ANDOR_CALLED_UPDATE;
    agent_andor_op_status st = ops->update(ops->ctx, t, i, &e);
    int rc = GO_ON;
    if (st == AGENT_ANDOR_OP_STOP)
        rc = GO_STOP;
    else if (st == AGENT_ANDOR_OP_OK && apply_update(t, &e) < 0)
        rc = GO_NOMEM;
    agent_andor_edit_fini(&e);
    return rc;
}

/* NODE COMPLETION CHECK; a missing operator answers yes. */
static int op_complete(agent_andor_tree *t, const agent_andor_ops *ops, int i, int *yes)
{
    *yes = 1;
    if (!ops->complete)
        return GO_ON;
    char why[512] = "";
    t->ev->ops |= AGENT_ANDOR_CALLED_COMPLETE;
    int y = 0;
    agent_andor_op_status st = ops->complete(ops->ctx, t, i, &y, why, sizeof why);
    if (st == AGENT_ANDOR_OP_STOP)
        return GO_STOP;
    /* An operator that could not judge has not confirmed anything. */
    *yes = st == AGENT_ANDOR_OP_OK && y;
    why[sizeof why - 1] = 0;
    if (why[0] && !set_str(&node_mut(t, i)->reasoning, why, sizeof why))
        return GO_NOMEM;
    return GO_ON;
}

static int op_repair(agent_andor_tree *t, const agent_andor_ops *ops, int i, int *added,
                     int *pruned, int *self)
{
    *added = *pruned = *self = 0;
    if (!ops->repair)
        return GO_ON;
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    t->ev->ops |= AGENT_ANDOR_CALLED_REPAIR;
    agent_andor_op_status st = ops->repair(ops->ctx, t, i, &e);
    int rc = GO_ON;
    if (st == AGENT_ANDOR_OP_STOP) {
        rc = GO_STOP;
    } else if (st == AGENT_ANDOR_OP_OK) {
        *self = e.prune_self != 0;
        if (apply_repair(t, i, &e, added, pruned) < 0)
            rc = GO_NOMEM;
    }
    agent_andor_edit_fini(&e);
    return rc;
}

/* Algorithm 6, PROCESS_ACTION_NODE. */
static int process_action(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    push(t, i, AGENT_ANDOR_EXITING);
    node_rec *r = rec_at(t, i);
    int ok = 0;
    int note = 0;
    /* Never again once an attempt may have taken effect: a retry is for a
     * call that did not reach the page (no element found, a timeout before
     * dispatch), not for one whose outcome was merely unclear. */
    while (!r->reached && r->n.retry_count < t->cfg.max_retries) {
        agent_andor_exec x;
        memset(&x, 0, sizeof x);
        t->ev->ops |= AGENT_ANDOR_CALLED_EXECUTE;
        agent_andor_op_status st = ops->execute(ops->ctx, t, i, r->n.retry_count, &x);
        r = rec_at(t, i);
        r->n.retry_count++;
        if (x.reached_page)
            r->reached = 1;
        x.result[sizeof x.result - 1] = 0;
        x.url[sizeof x.url - 1] = 0;
        if (x.result[0] && !set_str(&r->n.result, x.result, RESULT_MAX))
            return GO_NOMEM;
        if (x.url[0] && agent_andor_set_url(t, x.url) != BASE_OK)
            return GO_NOMEM;
        if (st == AGENT_ANDOR_OP_STOP)
            return GO_STOP;
        if (st == AGENT_ANDOR_OP_OK && x.ok) {
            ok = 1;
            note = x.note || (r->n.tool && strcmp(r->n.tool, "note") == 0);
            break;
        }
    }
    if (!ok) {
        set_status(t, i, AGENT_ANDOR_FAIL);
        return GO_ON;
    }
    set_status(t, i, AGENT_ANDOR_SUCCESS);
    if (note)
        return GO_ON;
    /* The page changed: refresh the summaries, then let the global update
     * prune and rewrite with what the page now shows. */
    if (ops->summarize) {
        t->ev->ops |= AGENT_ANDOR_CALLED_SUMMARIZE;
        if (ops->summarize(ops->ctx, t, i) == AGENT_ANDOR_OP_STOP)
            return GO_STOP;
    }
    return op_update(t, ops, i);
}

/* Algorithm 7, PROCESS_AND_NODE: the AND is re-pushed EXITING first so
 * control comes back to it once every child pushed above it is done. */
static int process_and(agent_andor_tree *t, int i)
{
    push(t, i, AGENT_ANDOR_EXITING);
    if (and_succeeded(t, i)) {
        set_status(t, i, AGENT_ANDOR_SUCCESS);
    } else if (!has_open_child(t, i)) {
        set_status(t, i, AGENT_ANDOR_FAIL);
    } else {
        /* Reversed, so that the first open child is on top. */
        const agent_andor_node *n = &t->nodes[i].n;
        for (int k = n->n_children - 1; k >= 0; k--)
            if (!is_closed(t->nodes[n->children[k]].n.status))
                push(t, n->children[k], AGENT_ANDOR_ENTERING);
    }
    return GO_ON;
}

/* Algorithm 8, PROCESS_OR_NODE: greedy, only one alternative at a time; the
 * others wait until this one fails (Algorithm 10 comes back here). */
static int process_or(agent_andor_tree *t, int i)
{
    push(t, i, AGENT_ANDOR_EXITING);
    int best = best_untried(t, i);
    if (has_success_child(t, i)) {
        set_status(t, i, AGENT_ANDOR_SUCCESS);
    } else if (best < 0) {
        set_status(t, i, AGENT_ANDOR_FAIL);
    } else {
        node_mut(t, best)->tried = 1;
        push(t, best, AGENT_ANDOR_ENTERING);
    }
    return GO_ON;
}

/* Algorithm 2, PROCESS_NODE_ENTERING. */
static int process_entering(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    int p = t->nodes[i].n.parent;
    const agent_andor_node *cur = &t->nodes[i].n;
    if (p >= 0 && t->nodes[p].n.type == AGENT_ANDOR_OR && ops->rollback &&
        (cur->execution_count == 0 || cur->type == AGENT_ANDOR_UNKNOWN)) {
        /* Each alternative starts from the page its OR node started on.
         * Only when it starts (or starts afresh after a person replaced
         * it): the seed rolls back on every entering, but an alternative
         * re-entered after its repair continues from where its succeeded
         * children left the page, which is the page the repair planned
         * its new children on. */
        t->ev->ops |= AGENT_ANDOR_CALLED_ROLLBACK;
        if (ops->rollback(ops->ctx, t, p) && t->nodes[p].n.url &&
            agent_andor_set_url(t, t->nodes[p].n.url) != BASE_OK)
            return GO_NOMEM;
    }
    agent_andor_node *n = node_mut(t, i);
    if (!n->url && !set_str(&n->url, t->url, 4096))
        return GO_NOMEM;
    n->execution_count++;
    if (n->type == AGENT_ANDOR_UNKNOWN) {
        agent_andor_edit e;
        memset(&e, 0, sizeof e);
        t->ev->ops |= AGENT_ANDOR_CALLED_EXPAND;
        agent_andor_op_status st = ops->expand(ops->ctx, t, i, &e);
        int got = 0;
        if (st == AGENT_ANDOR_OP_OK)
            got = apply_expand(t, i, &e);
        agent_andor_edit_fini(&e);
        if (st == AGENT_ANDOR_OP_STOP) {
            /* Put the entry back so the stack still shows where the run
             * stood when it ended. */
            push(t, i, AGENT_ANDOR_ENTERING);
            return GO_STOP;
        }
        if (got < 0)
            return GO_NOMEM;
        if (got == 0) {
            /* A failed expansion: FAILED treats the UNKNOWN node as a
             * failed ACTION (pruned, later ordered siblings deleted). */
            set_status(t, i, AGENT_ANDOR_FAIL);
            push(t, i, AGENT_ANDOR_FAILED);
            return GO_ON;
        }
    }
    set_status(t, i, AGENT_ANDOR_VISITED);
    switch (t->nodes[i].n.type) {
    case AGENT_ANDOR_ACTION:
        return process_action(t, ops, i);
    case AGENT_ANDOR_AND:
        return process_and(t, i);
    case AGENT_ANDOR_OR:
        return process_or(t, i);
    case AGENT_ANDOR_UNKNOWN:
        break;
    }
    return GO_ON;
}

/* Algorithm 3, PROCESS_NODE_EXITING: everything pushed above the node is
 * done; judge it. A failure goes to FAILED rather than being handled here,
 * so repair and pruning have one place each. */
static int process_exiting(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    node_rec *r = rec_at(t, i);
    switch (r->n.type) {
    case AGENT_ANDOR_AND:
        if (and_succeeded(t, i)) {
            if (in_scope(t, i) && r->n.revision_count < rev_limit(t)) {
                int yes = 1;
                int rc = op_complete(t, ops, i, &yes);
                if (rc != GO_ON)
                    return rc;
                if (yes) {
                    set_status(t, i, AGENT_ANDOR_SUCCESS);
                } else {
                    set_status(t, i, AGENT_ANDOR_FAIL);
                    rec_at(t, i)->checked = 1;
                    push(t, i, AGENT_ANDOR_FAILED);
                }
            } else {
                set_status(t, i, AGENT_ANDOR_SUCCESS);
            }
        } else if (has_pending_child(t, i)) {
            push(t, i, AGENT_ANDOR_ENTERING);
        } else {
            set_status(t, i, AGENT_ANDOR_FAIL);
            push(t, i, AGENT_ANDOR_FAILED);
        }
        return GO_ON;
    case AGENT_ANDOR_OR:
        if (has_success_child(t, i)) {
            set_status(t, i, AGENT_ANDOR_SUCCESS);
        } else {
            set_status(t, i, AGENT_ANDOR_FAIL);
            push(t, i, AGENT_ANDOR_FAILED);
        }
        return GO_ON;
    case AGENT_ANDOR_ACTION:
    case AGENT_ANDOR_UNKNOWN:
        break;
    }
    if (r->n.status == AGENT_ANDOR_FAIL || r->n.type == AGENT_ANDOR_UNKNOWN)
        push(t, i, AGENT_ANDOR_FAILED);
    else
        set_status(t, i, AGENT_ANDOR_SUCCESS);
    return GO_ON;
}

/* Closes a node that cannot be repaired: it and its open subtree are
 * pruned as lost and leave the stack, and the failure backtracks. */
static void prune_failed(agent_andor_tree *t, int i)
{
    close_subtree(t, i, AGENT_ANDOR_PRUNED, 1, 1, 0);
    purge_marked(t);
    backtrack(t, i);
}

/* Algorithm 9, PROCESS_FAILED_AND_NODE. */
static int process_failed_and(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    int valid = has_open_child(t, i);
    int revised = 0;
    if (!valid) {
        if (has_success_child(t, i)) {
            if (rec_at(t, i)->checked) {
                /* The EXITING check just said no for these same children:
                 * asking again would cost a call for the same answer. */
            } else {
                int yes = 0;
                int rc = op_complete(t, ops, i, &yes);
                if (rc != GO_ON)
                    return rc;
                if (yes) {
                    mark_success(t, i, 1);
                    return GO_ON;
                }
            }
        }
        rec_at(t, i)->checked = 0;
        set_status(t, i, AGENT_ANDOR_FAIL);
        const agent_andor_node *n = &t->nodes[i].n;
        if (n->n_children < t->cfg.max_children && n->revision_count < rev_limit(t)) {
            int added = 0;
            int pruned = 0;
            int self = 0;
            int rc = op_repair(t, ops, i, &added, &pruned, &self);
            if (rc != GO_ON)
                return rc;
            if (!self && (added || pruned)) {
                revised = 1;
                node_mut(t, i)->revision_count++;
            }
        }
    }
    rec_at(t, i)->checked = 0;
    if (revised || valid) {
        set_status(t, i, AGENT_ANDOR_VISITED);
        push(t, i, AGENT_ANDOR_ENTERING);
    } else {
        prune_failed(t, i);
    }
    return GO_ON;
}

/* Algorithm 10, PROCESS_FAILED_OR_NODE. */
static int process_failed_or(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    if (best_untried(t, i) >= 0) {
        set_status(t, i, AGENT_ANDOR_VISITED);
        push(t, i, AGENT_ANDOR_ENTERING);
        return GO_ON;
    }
    int revised = 0;
    if (t->nodes[i].n.revision_count < rev_limit(t)) {
        int added = 0;
        int pruned = 0;
        int self = 0;
        int rc = op_repair(t, ops, i, &added, &pruned, &self);
        if (rc != GO_ON)
            return rc;
        if (!self && added) {
            revised = 1;
            node_mut(t, i)->revision_count++;
        }
    }
    if (revised) {
        set_status(t, i, AGENT_ANDOR_VISITED);
        push(t, i, AGENT_ANDOR_ENTERING);
    } else {
        prune_failed(t, i);
    }
    return GO_ON;
}

/* Algorithm 4, PROCESS_NODE_FAILED. A failed ACTION (or a node whose
 * expansion failed) is not repaired: it is pruned as lost, and its ordered
 * later siblings go with it. */
static int process_failed(agent_andor_tree *t, const agent_andor_ops *ops, int i)
{
    switch (t->nodes[i].n.type) {
    case AGENT_ANDOR_AND:
        return process_failed_and(t, ops, i);
    case AGENT_ANDOR_OR:
        return process_failed_or(t, ops, i);
    case AGENT_ANDOR_ACTION:
    case AGENT_ANDOR_UNKNOWN:
        break;
    }
    set_status(t, i, AGENT_ANDOR_PRUNED);
    rec_at(t, i)->lost = 1;
    backtrack(t, i);
    return GO_ON;
}

/* Room on the stack for everything one step may push, reserved before the
 * pop so that a step never fails half-way for want of stack. */
static int reserve_stack(agent_andor_tree *t, int extra)
{
    int need = t->n_stack + extra;
    if (need <= t->cap_stack)
        return 1;
    stack_entry *s = base_realloc(t->stack, (size_t)need * sizeof *s);
    if (!s)
        return 0;
    t->stack = s;
    t->cap_stack = need;
    return 1;
}

base_err agent_andor_step(agent_andor_tree *t, const agent_andor_ops *ops, agent_andor_event *ev,
                          char *err)
{
    agent_andor_event local;
    if (!ev)
        ev = &local;
    memset(ev, 0, sizeof *ev);
    ev->node = -1;
    if (!t || !ops || !ops->expand || !ops->execute)
        return base_errf(err, BASE_EINVAL, "andor: step needs a tree and expand/execute operators");
    if (t->stop)
        return base_errf(err, BASE_EINVAL, "andor: the run was stopped");
    if (t->n_stack == 0)
        return base_errf(err, BASE_EINVAL, "andor: the stack is empty");
    if (t->iter >= t->cfg.budget)
        return base_errf(err, BASE_EINVAL, "andor: the iteration budget (%d) is spent",
                         t->cfg.budget);
    int top = t->stack[t->n_stack - 1].node;
    if (!reserve_stack(t, t->nodes[top].n.n_children + t->cfg.max_children + 4))
        return base_errf(err, BASE_ENOMEM, "andor: out of memory");
    stack_entry e = t->stack[--t->n_stack];
    int i = e.node;
    ev->iter = t->iter++;
    ev->node = i;
    ev->state = e.state;
    t->ev = ev;
    agent_andor_node *n = node_mut(t, i);
    if (n->first_iter < 0)
        n->first_iter = ev->iter;
    n->last_iter = ev->iter;
    int rc = GO_ON;
    /* Algorithm 1's skips. A node that succeeded is also never entered
     * again, whatever its revision count: entering it would run its action
     * or its subtree a second time. */
    if (n->status == AGENT_ANDOR_DELETED ||
        (n->status == AGENT_ANDOR_SUCCESS &&
         (n->revision_count >= rev_limit(t) || e.state == AGENT_ANDOR_ENTERING))) {
        ev->skipped = 1;
    } else if (n->status == AGENT_ANDOR_PRUNED) {
        ev->skipped = 1;
        backtrack(t, i);
    } else if (e.state == AGENT_ANDOR_ENTERING) {
        rc = process_entering(t, ops, i);
    } else if (e.state == AGENT_ANDOR_EXITING) {
        rc = process_exiting(t, ops, i);
    } else {
        rc = process_failed(t, ops, i);
    }
    t->ev = NULL;
    if (rc == GO_STOP) {
        t->stop = 1;
        ev->stop = 1;
    } else if (rc == GO_NOMEM) {
        /* The tree stays readable but may be half-edited: the run ends. */
        t->stop = 1;
        ev->stop = 1;
        return base_errf(err, BASE_ENOMEM, "andor: out of memory in step %d", ev->iter);
    }
    return BASE_OK;
}

/* ---- a person's edits ---------------------------------------------------- */

static base_err closed_error(const agent_andor_tree *t, int i, char *err)
{
    const agent_andor_node *n = &t->nodes[i].n;
    const char *what = n->status == AGENT_ANDOR_SUCCESS  ? "already succeeded"
                       : n->status == AGENT_ANDOR_PRUNED ? "was pruned"
                                                         : "was deleted";
    return base_errf(err, BASE_EINVAL, "%s %s", n->id, what);
}

/* A node has at most one entry at a time (every push follows the pop of
 * that node's previous entry, or is a child's first); searched from the top,
 * where the work in progress is. */
static int find_entry(const agent_andor_tree *t, int node)
{
    for (int k = t->n_stack - 1; k >= 0; k--)
        if (t->stack[k].node == node)
            return k;
    return -1;
}

base_err agent_andor_inject(agent_andor_tree *t, const char *parent_id, const char *description,
                            int position, double score, int *new_index, char *err)
{
    if (!t || !parent_id)
        return base_errf(err, BASE_EINVAL, "inject: no tree or parent id");
    int p = agent_andor_find(t, parent_id);
    if (p < 0)
        return base_errf(err, BASE_ENOTFOUND, "inject: no node \"%.*s\"", 48, parent_id);
    if (!description || !*description)
        return base_errf(err, BASE_EINVAL, "inject under %s: the subgoal's text is empty",
                         t->nodes[p].n.id);
    agent_andor_node *pn = node_mut(t, p);
    if (is_closed(pn->status))
        return closed_error(t, p, err);
    if (pn->type == AGENT_ANDOR_ACTION)
        return base_errf(err, BASE_EINVAL, "%s is an action: subgoals go under an AND or OR node",
                         pn->id);
    char probe[AGENT_ANDOR_ID_MAX];
    int w = snprintf(probe, sizeof probe, "%s.%d", pn->id, pn->n_children + 1);
    if (w < 0 || (size_t)w >= sizeof probe)
        return base_errf(err, BASE_EINVAL, "inject under %s: the tree is too deep", pn->id);
    /* The stack entry, if any, is placed without allocating afterwards. */
    if (!reserve_stack(t, 1))
        return base_errf(err, BASE_ENOMEM, "inject: out of memory");
    int pos = -1;
    if (pn->type != AGENT_ANDOR_OR) {
        /* After every child already processed (or in progress); a person
         * cannot rewrite what has happened. */
        int minpos = 0;
        for (int k = 0; k < pn->n_children; k++)
            if (t->nodes[pn->children[k]].n.status != AGENT_ANDOR_UNVISITED)
                minpos = k + 1;
        pos = position < 0 || position < minpos ? minpos : position;
        if (pos > pn->n_children)
            pos = pn->n_children;
    }
    int c = add_child(t, p, description, score, pos);
    if (c < 0)
        return base_errf(err, BASE_ENOMEM, "inject: out of memory");
    pn = node_mut(t, p);
    if (pn->type == AGENT_ANDOR_UNKNOWN) {
        pn->type = AGENT_ANDOR_AND;
        pn->ordered = 1;
    }
    if (pn->type == AGENT_ANDOR_AND) {
        /* An AND in progress has its open children on the stack above its
         * EXITING entry; the new one goes just above the entry of the child
         * it precedes (or of the AND itself when it comes last), so it runs
         * in its place in the order. */
        int pe = find_entry(t, p);
        if (pe >= 0 && t->stack[pe].state == AGENT_ANDOR_EXITING) {
            int at = pe;
            for (int k = pos + 1; k < pn->n_children; k++) {
                int se = find_entry(t, pn->children[k]);
                if (se > pe) {
                    at = se;
                    break;
                }
            }
            memmove(t->stack + at + 2, t->stack + at + 1,
                    (size_t)(t->n_stack - at - 1) * sizeof *t->stack);
            t->stack[at + 1].node = c;
            t->stack[at + 1].state = AGENT_ANDOR_ENTERING;
            t->n_stack++;
        }
    }
    if (new_index)
        *new_index = c;
    return BASE_OK;
}

base_err agent_andor_replace(agent_andor_tree *t, const char *id, const char *description,
                             char *err)
{
    if (!t || !id)
        return base_errf(err, BASE_EINVAL, "replace: no tree or id");
    int i = agent_andor_find(t, id);
    if (i < 0)
        return base_errf(err, BASE_ENOTFOUND, "replace: no node \"%.*s\"", 48, id);
    if (!description || !*description)
        return base_errf(err, BASE_EINVAL, "replace %s: the new text is empty", t->nodes[i].n.id);
    if (is_closed(t->nodes[i].n.status))
        return closed_error(t, i, err);
    char *d = dup_capped(description, DESC_MAX);
    if (!d)
        return base_errf(err, BASE_ENOMEM, "replace: out of memory");
    node_rec *r = rec_at(t, i);
    for (int k = 0; k < r->n.n_children; k++)
        close_subtree(t, r->n.children[k], AGENT_ANDOR_DELETED, 0, 1, 1);
    purge_marked(t);
    r = rec_at(t, i);
    agent_andor_node *n = &r->n;
    base_free(n->description);
    n->description = d;
    base_free(n->tool);
    base_free(n->args);
    base_free(n->result);
    base_free(n->reasoning);
    base_free(n->url);
    n->tool = n->args = n->result = n->reasoning = n->url = NULL;
    n->type = AGENT_ANDOR_UNKNOWN;
    n->status = AGENT_ANDOR_UNVISITED;
    n->ordered = 1;
    n->execution_count = n->retry_count = n->revision_count = 0;
    r->reached = r->lost = r->checked = 0;
    for (int k = 0; k < t->n_stack; k++)
        if (t->stack[k].node == i)
            t->stack[k].state = AGENT_ANDOR_ENTERING;
    return BASE_OK;
}

base_err agent_andor_remove(agent_andor_tree *t, const char *id, char *err)
{
    if (!t || !id)
        return base_errf(err, BASE_EINVAL, "remove: no tree or id");
    int i = agent_andor_find(t, id);
    if (i < 0)
        return base_errf(err, BASE_ENOTFOUND, "remove: no node \"%.*s\"", 48, id);
    if (i == 0)
        return base_errf(err, BASE_EINVAL, "remove: the root (the task itself) cannot be removed");
    if (is_closed(t->nodes[i].n.status))
        return closed_error(t, i, err);
    close_subtree(t, i, AGENT_ANDOR_DELETED, 0, 1, 1);
    purge_marked(t);
    return BASE_OK;
}
