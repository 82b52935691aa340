/* agent/plan/andor.h: the AND/OR planning tree and its modified greedy DFS
 * (seed 001 §3.2 and Appendix D, Algorithms 1-10) — the engine behind
 * `fovea run "TASK" --planner andor`.
 *
 * The framework keeps the plan; the model is asked only for local
 * operations, each behind one callback of agent_andor_ops (the model-backed
 * ones are agent/plan/andor_ops.h, tests plug in deterministic ones):
 *   expand    NODE EXPANSION: the node's type, and its children (AND: ordered
 *             subgoals; OR: ranked alternatives with scores) or its one tool
 *             call (ACTION);
 *   execute   PERFORM_ACTION: runs an ACTION node's tool call;
 *   summarize OBSERVATION SUMMARIZER, after an action that changed the page;
 *   update    GLOBAL TREE UPDATE: prune subtrees, rewrite descriptions;
 *   complete  NODE COMPLETION CHECK of an AND node;
 *   repair    NODE REPAIR of a failed AND/OR node;
 *   rollback  PERFORM_ROLLBACK: the browser back at an OR node's URL before
 *             one of its alternatives starts.
 *
 * Nodes and states are the seed's. Status (Table 6): UNVISITED, VISITED,
 * SUCCESS, FAIL, PRUNED, DELETED. A node sits on the DFS stack in one of
 * three states: ENTERING (not processed yet, or children left to process),
 * EXITING (its children / its action are done: judge it), FAILED (repair,
 * try the next alternative, or prune and propagate). One call of
 * agent_andor_step pops one stack entry and processes it as Algorithm 1
 * does:
 *   - a popped DELETED node, or a SUCCESS node whose revisions reached the
 *     limit (or popped ENTERING: nothing runs twice), is skipped; a popped
 *     PRUNED node backtracks (Alg. 5) and is skipped;
 *   - ENTERING (Alg. 2): rollback when the parent is an OR and the node starts
 *     (first entering, or afresh after a replace), not on re-entry after a
 *     repair; execution_count
 *     +1; an UNKNOWN node is expanded (a failed expansion, after the
 *     operator's own retries, makes the node FAIL and pushes it FAILED, where
 *     it is treated as a failed ACTION); status VISITED; then
 *       ACTION (Alg. 6): re-push EXITING, execute; success: SUCCESS, and
 *         unless it was a note action summarize + update; failure: FAIL;
 *       AND (Alg. 7): re-push EXITING; all valid children succeeded: SUCCESS;
 *         no open child: FAIL; else push every open child ENTERING so that
 *         the first is on top;
 *       OR (Alg. 8): re-push EXITING; a child succeeded: SUCCESS; no
 *         untried alternative: FAIL; else push the best-scored untried one;
 *   - EXITING (Alg. 3): ACTION: FAIL/PRUNED -> push FAILED, else SUCCESS.
 *     AND: all valid children succeeded (valid: not pruned/deleted on
 *     purpose by an update, a repair or a person; a child closed by failure
 *     counts against the AND) -> the completion check when the
 *     node is in the check's scope and its revisions are under the limit
 *     (yes: SUCCESS; no: FAIL, push FAILED), otherwise SUCCESS; some child
 *     not succeeded: when a child is still UNVISITED (a person injected it)
 *     push ENTERING again, else FAIL and push FAILED.
 *     OR: a child succeeded -> SUCCESS, else FAIL and push FAILED;
 *   - FAILED (Alg. 4): ACTION (and an UNKNOWN node whose expansion failed):
 *     PRUNED, then backtrack (Alg. 5: in an ordered AND parent the later
 *     siblings and their subtrees become DELETED and leave the stack).
 *     AND (Alg. 9): no open child but one succeeded -> completion check
 *     unless the EXITING check just said no (yes: SUCCESS for the node and
 *     its subtree in progress); else FAIL and, under
 *     max_children and max_revisions, repair (children the repair prunes
 *     leave the stack; added or pruned children count one revision); then
 *     revised or an open child left -> VISITED, push ENTERING; otherwise
 *     prune the subtree and backtrack.
 *     OR (Alg. 10): an untried alternative -> VISITED, push ENTERING; else
 *     repair within max_revisions (added alternatives count one revision)
 *     -> push ENTERING; otherwise prune the subtree and backtrack.
 * A node's failure reaches its parent through the parent's EXITING entry
 * below it on the stack. The run ends when the stack is empty (the root's
 * status is the outcome), when the iteration budget is spent, or when an
 * operator asks to stop (token budget, max steps, a stop signal, a dead
 * page).
 *
 * Ids are the seed's dotted paths: the root is "1", its children "1.1",
 * "1.2", ... in creation order (an injected or repaired child takes the
 * next free number, so ids are never reused).
 *
 * The tree is pure data: no I/O, no model, no page. A tree and its ops belong
 * to one thread (the session's); nothing here is shared. Every function that
 * takes a tree runs on that thread ("the tree's thread" below); the names,
 * agent_andor_scope_parse and the edit lists (filled by the operators on the
 * same thread) touch no tree. Failures are a base_err (BASE_ENOMEM,
 * BASE_EINVAL, BASE_ENOTFOUND) with err saying why.
 */
#ifndef FOVEA_AGENT_PLAN_ANDOR_H
#define FOVEA_AGENT_PLAN_ANDOR_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

typedef enum agent_andor_type {
    AGENT_ANDOR_UNKNOWN = 0, /* not expanded yet */
    AGENT_ANDOR_AND,
    AGENT_ANDOR_OR,
    AGENT_ANDOR_ACTION
} agent_andor_type;

typedef enum agent_andor_status {
    AGENT_ANDOR_UNVISITED = 0,
    AGENT_ANDOR_VISITED,
    AGENT_ANDOR_SUCCESS,
    AGENT_ANDOR_FAIL,
    AGENT_ANDOR_PRUNED,
    AGENT_ANDOR_DELETED
} agent_andor_status;

typedef enum agent_andor_state {
    AGENT_ANDOR_ENTERING = 0,
    AGENT_ANDOR_EXITING,
    AGENT_ANDOR_FAILED
} agent_andor_state;

/* Where the strict completion check of AND nodes in EXITING runs (the seed
 * found checking every AND node too strict and checked only the root). */
typedef enum agent_andor_check_scope {
    AGENT_ANDOR_CHECK_ROOT = 0, /* default: the root only (the seed's choice) */
    AGENT_ANDOR_CHECK_ALL,      /* every AND node */
    AGENT_ANDOR_CHECK_NONE      /* never: all children succeeded is enough */
} agent_andor_check_scope;

/* "and", "or", "action", "unknown"; "unvisited", ...; "entering", ...;
 * "root", "all", "none". Static strings. Pure; any thread. */
const char *agent_andor_type_name(agent_andor_type t);
const char *agent_andor_status_name(agent_andor_status s);
const char *agent_andor_state_name(agent_andor_state s);
const char *agent_andor_scope_name(agent_andor_check_scope s);
/* Parses "root" | "all" | "none". Errors: BASE_EINVAL. Pure. */
base_err agent_andor_scope_parse(const char *text, agent_andor_check_scope *out, char *err);

#define AGENT_ANDOR_ID_MAX 48
#define AGENT_ANDOR_MAX_REVISIONS 2  /* MAX_REVISION_COUNT */
#define AGENT_ANDOR_MAX_RETRIES 2    /* MAX_RETRY_COUNT: execute attempts of one ACTION */
#define AGENT_ANDOR_MAX_CHILDREN 10  /* MAX_CHILDREN: an AND is not repaired past this */
#define AGENT_ANDOR_MAX_DEPTH 6      /* an expansion deeper than this must be an ACTION */
#define AGENT_ANDOR_BUDGET 400       /* BUDGET: stack pops per run */

typedef struct agent_andor_config {
    int max_revisions;           /* 0 = AGENT_ANDOR_MAX_REVISIONS; < 0 = none allowed */
    int max_retries;             /* 0 = AGENT_ANDOR_MAX_RETRIES */
    int max_children;            /* 0 = AGENT_ANDOR_MAX_CHILDREN */
    int max_depth;               /* 0 = AGENT_ANDOR_MAX_DEPTH */
    int budget;                  /* 0 = AGENT_ANDOR_BUDGET */
    agent_andor_check_scope scope;
} agent_andor_config;

/* Fills c with the defaults (the AGENT_ANDOR_* limits above, scope ROOT). c
 * is the caller's. Any thread. Errors: none. */
void agent_andor_config_init(agent_andor_config *c);

/* One node (Table 9). Read through agent_andor_node_at; changed only by the
 * engine and the edit functions below. Strings are the tree's. */
typedef struct agent_andor_node {
    int index;                   /* position in the tree (stable) */
    char id[AGENT_ANDOR_ID_MAX]; /* "1.2.1" */
    agent_andor_type type;
    agent_andor_status status;
    char *description;
    char *tool;                  /* ACTION: the tool's name ("note" = a note action) */
    char *args;                  /* ACTION: the tool's arguments, compact JSON object */
    double score;                /* an OR alternative's estimated chance, 0..1 */
    int parent;                  /* index, -1 for the root */
    int *children;               /* indices in order */
    int n_children;
    int depth;                   /* root 0 */
    int ordered;                 /* AND: children in order (default 1) */
    int execution_count, retry_count, revision_count;
    int tried;                   /* OR alternative: was chosen once (never chosen again) */
    char *url;                   /* the page's URL when the node was first entered */
    char *reasoning;             /* the last operator's why (expansion, check, repair) */
    char *result;                /* ACTION: the tool's one-line outcome */
    int first_iter, last_iter;   /* iterations it was first / last popped (-1 = never) */
} agent_andor_node;

typedef struct agent_andor_tree agent_andor_tree;

/* What an operator answered. */
typedef enum agent_andor_op_status {
    AGENT_ANDOR_OP_OK = 0,
    AGENT_ANDOR_OP_FAILED,       /* gave no usable answer after its retries: the node fails */
    AGENT_ANDOR_OP_STOP          /* the run must end now (budget, steps, signal, dead page) */
} agent_andor_op_status;

/* A child an operator proposes. */
typedef struct agent_andor_child {
    char *description;           /* owned by the edit */
    double score;                /* OR alternatives; ignored for AND */
} agent_andor_child;

/* One operator's answer (expansion, repair, global update). Filled by the
 * operator with the agent_andor_edit_* functions; the engine applies it and
 * frees it (agent_andor_edit_fini). */
typedef struct agent_andor_edit {
    agent_andor_type type;       /* expand: the node's type (AND, OR or ACTION) */
    char *tool, *args;           /* expand of an ACTION: the call (args: JSON object text) */
    char *description;           /* expand/repair: the node's description rewritten, or NULL */
    int unordered;               /* expand of an AND: the children may run in any order */
    agent_andor_child *add;      /* expand: the children; repair: children to add */
    int n_add, cap_add;
    int *prune;                  /* repair: its children to prune; update: any nodes to prune */
    int n_prune, cap_prune;
    int *rewrite_node;           /* update: nodes whose description changes ... */
    char **rewrite_text;         /* ... to these texts (owned) */
    int n_rewrite, cap_rewrite;
    int prune_self;              /* repair: the node cannot be repaired: prune it */
    char reasoning[512];
} agent_andor_edit;

/* Frees what e holds and zeroes it. NULL: no-op. Any thread. */
void agent_andor_edit_fini(agent_andor_edit *e);
/* Appends a proposed child (description copied). On the thread that owns e.
 * Errors: BASE_EINVAL (empty description), BASE_ENOMEM. */
base_err agent_andor_edit_add(agent_andor_edit *e, const char *description, double score);
/* Appends a node index to prune (one already listed is not added again). On
 * the thread that owns e. Errors: BASE_ENOMEM. */
base_err agent_andor_edit_prune(agent_andor_edit *e, int node);
/* Appends a description rewrite (text copied). On the thread that owns e.
 * Errors: BASE_EINVAL, BASE_ENOMEM. */
base_err agent_andor_edit_rewrite(agent_andor_edit *e, int node, const char *text);

/* What executing an ACTION did. */
typedef struct agent_andor_exec {
    int ok;                      /* the tool call succeeded */
    int reached_page;            /* the call may have taken effect: never executed again */
    int note;                    /* a note action: the page did not change */
    char url[2048];              /* the page's URL afterwards ("" = unknown / unchanged) */
    char result[512];            /* one line: what happened (the tool's message) */
} agent_andor_exec;

/* The operators. Every callback gets the tree read-only and the node's
 * index; ctx is the caller's. A NULL callback means: expand -> required;
 * execute -> required; summarize, update -> nothing to do; complete ->
 * "yes"; repair -> nothing added (the node is pruned); rollback -> the
 * browser is assumed to be where it was. */
typedef struct agent_andor_ops {
    void *ctx;
    agent_andor_op_status (*expand)(void *ctx, const agent_andor_tree *t, int node,
                                    agent_andor_edit *out);
    /* attempt is 0, 1, ...: a retry happens only when the previous attempt
     * did not reach the page. */
    agent_andor_op_status (*execute)(void *ctx, const agent_andor_tree *t, int node, int attempt,
                                     agent_andor_exec *out);
    agent_andor_op_status (*summarize)(void *ctx, const agent_andor_tree *t, int node);
    agent_andor_op_status (*update)(void *ctx, const agent_andor_tree *t, int node,
                                    agent_andor_edit *out);
    /* *yes = 1 when the AND node's objective is met; why (cap bytes) says why. */
    agent_andor_op_status (*complete)(void *ctx, const agent_andor_tree *t, int node, int *yes,
                                      char *why, size_t cap);
    agent_andor_op_status (*repair)(void *ctx, const agent_andor_tree *t, int node,
                                    agent_andor_edit *out);
    /* Returns 1 when the browser is back at t's node URL (or already there). */
    int (*rollback)(void *ctx, const agent_andor_tree *t, int or_node);
} agent_andor_ops;

/* Operators called during one step (bit set in agent_andor_event.ops). */
enum {
    AGENT_ANDOR_CALLED_EXPAND = 1 << 0,
    AGENT_ANDOR_CALLED_EXECUTE = 1 << 1,
    AGENT_ANDOR_CALLED_SUMMARIZE = 1 << 2,
    AGENT_ANDOR_CALLED_UPDATE = 1 << 3,
    AGENT_ANDOR_CALLED_COMPLETE = 1 << 4,
    AGENT_ANDOR_CALLED_REPAIR = 1 << 5,
    AGENT_ANDOR_CALLED_ROLLBACK = 1 << 6
};

#define AGENT_ANDOR_EVENT_CHANGES 16

/* What one step did: the popped entry and every status change it made (the
 * first AGENT_ANDOR_EVENT_CHANGES of them; n_changes counts all). */
typedef struct agent_andor_event {
    int iter;                    /* 0-based stack pop counter */
    int node;                    /* the popped node's index */
    agent_andor_state state;     /* the state it was popped in */
    int skipped;                 /* 1: deleted / done / pruned entry, not processed */
    unsigned ops;                /* AGENT_ANDOR_CALLED_* */
    int pushed;                  /* entries pushed */
    int purged;                  /* entries removed from the stack (deleted/pruned nodes) */
    struct {
        int node;
        agent_andor_status from, to;
    } changes[AGENT_ANDOR_EVENT_CHANGES];
    int n_changes;
    int stop;                    /* an operator asked to stop (the run ends) */
} agent_andor_event;

/* A tree whose root "1" (UNKNOWN, UNVISITED) describes the task, on the stack
 * in ENTERING. cfg NULL = defaults. Strings copied; *out is the caller's
 * (agent_andor_tree_destroy). Errors: BASE_EINVAL (empty task), BASE_ENOMEM.
 * Any thread. */
base_err agent_andor_tree_create(const char *task, const agent_andor_config *cfg,
                                 agent_andor_tree **out, char *err);
/* Frees the tree and everything it holds. NULL: no-op. On the tree's
 * thread. */
void agent_andor_tree_destroy(agent_andor_tree *t);

/* One iteration of Algorithm 1 (see the file comment): pops the top entry,
 * processes it through ops, fills ev. The edits the operators fill are
 * applied and freed here. On the tree's thread. Errors: BASE_EINVAL (no
 * expand/execute, the stack is empty, the budget is spent or the run was
 * stopped), BASE_ENOMEM (inside a step the run then ends:
 * agent_andor_finished is 1); an edit that names nodes outside the allowed
 * set (a repair pruning a node that is not its child, an update pruning the
 * root or a node already closed, an expansion with no children or an ACTION
 * without a tool) is not an error: the bad parts are dropped and ev records
 * the rest; an expansion left with nothing usable counts as a failed
 * expansion. */
base_err agent_andor_step(agent_andor_tree *t, const agent_andor_ops *ops, agent_andor_event *ev,
                          char *err);

/* The accessors below run on the tree's thread and cannot fail. */

/* 1 when the run is over: the stack is empty, the budget is spent, or an
 * operator asked to stop. */
int agent_andor_finished(const agent_andor_tree *t);
/* The root's status (SUCCESS = the task is done). */
agent_andor_status agent_andor_outcome(const agent_andor_tree *t);
/* Stack pops so far. */
int agent_andor_iterations(const agent_andor_tree *t);
/* The tree's configuration and task (borrowed for the tree's life; NULL /
 * "" for a NULL tree). */
const agent_andor_config *agent_andor_tree_config(const agent_andor_tree *t);
const char *agent_andor_task(const agent_andor_tree *t);

/* ---- reading the tree (all borrowed, valid until the next change) -------- */
int agent_andor_node_count(const agent_andor_tree *t);
/* NULL when i is out of range. */
const agent_andor_node *agent_andor_node_at(const agent_andor_tree *t, int i);
/* The node with this dotted id, or -1. */
int agent_andor_find(const agent_andor_tree *t, const char *id);
/* Stack entries, bottom first. */
int agent_andor_stack_len(const agent_andor_tree *t);
/* Entry i (0 = bottom): its node index and state. Returns -1 when out of
 * range, else the node index. */
int agent_andor_stack_at(const agent_andor_tree *t, int i, agent_andor_state *state);
/* The page URL the engine last heard of (from execute / set_url); "" before
 * any. Borrowed until the next set_url or step. */
const char *agent_andor_url(const agent_andor_tree *t);
/* Tells the tree the page's current URL (the runner, at start and after a
 * rollback). url is copied (NULL: ""). On the tree's thread. Errors:
 * BASE_EINVAL (NULL t), BASE_ENOMEM; the URL is unchanged then. */
base_err agent_andor_set_url(agent_andor_tree *t, const char *url);

/* The tree as text for an operator's prompt: one line per node ("1.2 [OR,
 * visited] Choose a city (score 0.9)"), indented by depth; focus >= 0 marks
 * that node with "<-" and, when local is 1, shows only its ancestors,
 * siblings and subtree (the seed's LOCAL TREE INFORMATION). Closed subtrees
 * below a SUCCESS node show as one line. The caller's (base_free). Errors:
 * NULL on allocation failure. Pure. */
char *agent_andor_tree_text(const agent_andor_tree *t, int focus, int local);

/* The tree as JSON for the report and the run's files: {"task", "outcome",
 * "iterations", "nodes": [{"id", "type", "status", "description", "tool",
 * "args", "score", "parent", "children": [ids], "depth", "executions",
 * "retries", "revisions", "url", "reasoning", "result", "first_iter",
 * "last_iter"}], "stack": [["1", "exiting"], ...]}. The caller's
 * (cJSON_Delete). NULL on allocation failure. On the tree's thread. */
cJSON *agent_andor_tree_json(const agent_andor_tree *t);
/* One step as JSON: {"iter", "node" (id), "state", "skipped", "ops":
 * ["expand", ...], "pushed", "purged", "changes": [{"node", "from", "to"}],
 * "stop"}. The caller's (cJSON_Delete). NULL on allocation failure. On the
 * tree's thread. */
cJSON *agent_andor_event_json(const agent_andor_tree *t, const agent_andor_event *ev);

/* ---- a person's edits (--intervene), applied between steps ---------------- */

/* Adds a subgoal under parent (any open AND or OR node, or an UNKNOWN node,
 * which becomes an AND). In an AND it goes before the first child not yet
 * processed when position < 0, else at position (0-based, clamped after the
 * processed ones); in an OR it is an alternative with this score (position
 * ignored). It is processed when the DFS reaches it: an AND parent in
 * progress gets its stack entry in its place in the order (without one, the
 * AND picks it up in EXITING), an OR parent tries it when its current
 * alternative fails. text copied. Errors: BASE_ENOTFOUND (no such id),
 * BASE_EINVAL (empty text; a closed parent — "1.1 already succeeded" — or an
 * ACTION parent), BASE_ENOMEM. *new_index (may be NULL) is the new node's
 * index. On the tree's thread. */
base_err agent_andor_inject(agent_andor_tree *t, const char *parent_id, const char *description,
                            int position, double score, int *new_index, char *err);
/* Replaces an open node's description and starts it afresh: its subtree is
 * DELETED and leaves the stack, it becomes UNKNOWN and UNVISITED, and if it
 * was in progress its stack entry becomes ENTERING. Errors: BASE_ENOTFOUND,
 * BASE_EINVAL (empty text, a closed node), BASE_ENOMEM. On the tree's
 * thread. */
base_err agent_andor_replace(agent_andor_tree *t, const char *id, const char *description,
                             char *err);
/* A person removes an open node that is not the root: it and its subtree
 * become DELETED (not a failure: no backtracking) and leave the stack.
 * On the tree's thread. Errors: BASE_ENOTFOUND, BASE_EINVAL (the root, a
 * closed node). */
base_err agent_andor_remove(agent_andor_tree *t, const char *id, char *err);

#endif
