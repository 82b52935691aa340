/* agent/plan/andor_run.h: `fovea run "TASK" --planner andor` — a task carried
 * out by the AND/OR tree planner (agent/plan/andor.h) whose operators are model
 * calls, with the candidate table (agent/plan/candidates.h) as its memory.
 *
 * Two parts:
 *
 * 1. The operators (agent/plan/andor_ops.c). Each is one chat call through
 *    model/llm.h with a strict JSON Schema for its answer; the answer is
 *    parsed, checked (the schema, then what the schema cannot say: ids that
 *    exist, a tool that exists with arguments its schema accepts, scores in
 *    0..1), and on a bad answer asked again with the error quoted, up to
 *    AGENT_ANDOR_OP_RETRIES more times; then the operator reports
 *    AGENT_ANDOR_OP_FAILED and the engine fails the node. A refused budget,
 *    a stop signal or a dead page is AGENT_ANDOR_OP_STOP. The answers:
 *      expand     {"type": "and"|"or"|"action", "description"?, "ordered"?,
 *                  "children": [{"description", "score"}], "tool"?, "args"?,
 *                  "reasoning"} — an ACTION names one tool of the tool table
 *                  (agent/session/tool.h) or "note" ({"text"}: a fact kept in the
 *                  notes, the page untouched), with arguments as its schema
 *                  wants ("args": the arguments object, or that object
 *                  written as a JSON string); expansion sees the page's outline (get_outline),
 *                  the task, its constraints, the progress and notes, the
 *                  local tree and, when kept, the top-K candidates;
 *      repair     {"decision": "repair"|"prune", "prune": [ids of its
 *                  children], "add": [{"description", "score"}], "reasoning"}
 *      update     {"prune": [ids], "rewrite": [{"id", "description"}],
 *                  "reasoning"}
 *      complete   {"complete": bool, "reasoning"}
 *      summarize  {"progress", "observation", "notes": [strings],
 *                  "candidates"?: an agent_cand_apply update} (candidates
 *                  only when the table is kept)
 *      constraints{"constraints": [{"name", "description"}], "attributes":
 *                  [{"name", "description"}]} — once, at the start, when the
 *                  table is kept
 *      answer     {"answer", "reasoning"} — once, at the end, when the root
 *                  succeeded: the task's final answer from the notes.
 *    Execution is tool_call (never repeated once a call may have reached
 *    the page); rollback navigates back to an OR node's URL (a GET of a page
 *    already visited) when the page has moved on.
 *
 * 2. The runner (agent/plan/andor_run.c): steps the tree until it finishes, the
 *    token budget refuses a call (cost_cap_exceeded), max steps (tool calls)
 *    are spent, a stop signal arrives or the page dies. Between steps it
 *    reads the intervention file (see below) and rewrites OUT/andor.json
 *    (the tree, the stack, the candidate table), so a person can watch the
 *    plan while it runs. Progress: one stderr line per step (iteration n,
 *    node id and state, what happened, tokens, ms) and one per operator
 *    call. OUT/trace.jsonl gets a "task" line, one "andor_op" line per
 *    operator call (op, node, model, prompt/completion/cached tokens, the
 *    request's estimated tokens, attempts, ms, ok), one "andor_event" line
 *    per step (agent_andor_event_json), the tool "step" lines, and an "end"
 *    line carrying the final tree and table; report.html draws them.
 *
 * Intervention (--intervene FILE, or "-" for standard input): JSON lines, one
 * edit each, read as they are appended (between steps, never mid-step):
 *   {"op": "inject", "parent": "1.2", "description": "...", "position": N,
 *    "score": 0.95}
 *   {"op": "replace", "node": "1.3", "description": "..."}
 *   {"op": "remove", "node": "1.2.2"}
 * Each is applied through agent/plan/andor.h; a bad line is reported on stderr
 * and in the trace, and the run goes on. A file that shrinks (rewritten in
 * place) is read again from its start, and its lines read before are not
 * applied again.
 *
 * Everything here runs on the session's thread unless it says otherwise.
 * A run that cannot go on ends with an agent_goal_end and one line saying
 * why; only a failure to start (no client, no memory) is a base_err.
 */
#ifndef FOVEA_AGENT_PLAN_ANDOR_RUN_H
#define FOVEA_AGENT_PLAN_ANDOR_RUN_H

#include <stdio.h>

#include "agent/plan/goal.h"
#include "agent/plan/andor.h"
#include "model/budget.h"
#include "agent/plan/candidates.h"
#include "model/llm.h"
#include "agent/session/tool.h"
#include "agent/session/trace.h"
#include "base/err.h"

#define AGENT_ANDOR_OP_RETRIES 2 /* extra asks after an answer that fails its checks */

/* The operators, for the counts below and the trace ("expand", ...). */
typedef enum agent_andor_opkind {
    AGENT_ANDOR_OPK_EXPAND = 0,
    AGENT_ANDOR_OPK_REPAIR,
    AGENT_ANDOR_OPK_UPDATE,
    AGENT_ANDOR_OPK_COMPLETE,
    AGENT_ANDOR_OPK_SUMMARIZE,
    AGENT_ANDOR_OPK_CONSTRAINTS,
    AGENT_ANDOR_OPK_ANSWER,
    AGENT_ANDOR_OPK_COUNT
} agent_andor_opkind;

/* "expand", "repair", "update", "complete", "summarize", "constraints",
 * "answer". A static string. Pure; any thread. */
const char *agent_andor_opkind_name(agent_andor_opkind k);

/* One operator call as the runner logs it. */
typedef struct agent_andor_call {
    agent_andor_opkind kind;
    const char *node_id;        /* "" for constraints / answer */
    const char *model;
    model_budget_usage usage;   /* all attempts of the call */
    long estimate;              /* estimated prompt tokens, summed over attempts */
    int attempts;               /* model requests (1 + retries) */
    int ok;                     /* 1: a valid answer was used */
    double ms;
    const char *why;            /* when !ok: the last error, one line */
} agent_andor_call;

/* ---- the operators -------------------------------------------------------- */

typedef struct agent_andor_ops_opts {
    model_llm *llm;             /* required, borrowed */
    model_budget *budget;       /* NULL = unlimited, borrowed */
    agent_cand_mode candidates; /* AUTO decides with agent_cand_task_wants */
    int top_k;                  /* 0 = AGENT_CAND_TOP_K */
    int max_steps;              /* tool calls in all; 0 = AGENT_GOAL_MAX_STEPS */
    int step_timeout_ms;        /* a model call's deadline and no tool call after it; 0 = none */
    int screenshot;             /* 1: every call that shows the page's outline (expand, repair,
                                   update, summarize) also carries its screenshot with the
                                   outline's [n] marks drawn, for vision models; never while
                                   the session holds a secret */
    /* The final answer's JSON Schema (--answer-schema, borrowed; NULL =
     * none): the answer operator's answer must pass agent_answer_check
     * (agent/plan/answer.h), checked with the operators' other checks. The
     * answer call also runs the meaningful-output check without one. */
    const cJSON *answer_schema;
    /* Called after every operator call (the runner's trace and progress). */
    void (*on_call)(void *user, const agent_andor_call *call);
    /* Called after every tool call an ACTION ran (rec is the tool_result's). */
    void (*on_tool)(void *user, const tool_result *r);
    void *user;
} agent_andor_ops_opts;

typedef struct agent_andor_opctx agent_andor_opctx;

/* The model-backed operators for one run on session s. Everything in o
 * borrowed (must outlive the context); *out is the caller's
 * (agent_andor_ops_destroy). On the session's thread. Errors: BASE_EINVAL (no
 * client), BASE_ENOMEM. */
base_err agent_andor_ops_create(fovea_session *s, const agent_andor_ops_opts *o,
                                agent_andor_opctx **out, char *err);
/* Frees the operators' context (memory, table, prompts). NULL: no-op. c is
 * consumed. On the session's thread. Errors: none. */
void agent_andor_ops_destroy(agent_andor_opctx *c);
/* Fills ops (the caller's) with c's callbacks (ops->ctx = c, borrowed).
 * Cannot fail. */
void agent_andor_ops_bind(agent_andor_opctx *c, agent_andor_ops *ops);
/* The start of a run: decides whether the table is kept and, if so, extracts
 * the task's constraints (one "constraints" call). Errors: as model_llm_chat
 * when the run must stop (cost cap, signal); a bad answer is not an error
 * (the table starts without columns). */
agent_andor_op_status agent_andor_ops_start(agent_andor_opctx *c, const agent_andor_tree *t,
                                            char *err);
/* The final answer (one "answer" call) into answer (cap bytes): the text,
 * or with an answer schema its compact JSON (cut to fit). */
agent_andor_op_status agent_andor_ops_answer(agent_andor_opctx *c, const agent_andor_tree *t,
                                             char *answer, size_t cap, char *err);
/* The last answer agent_andor_ops_answer accepted, as JSON (borrowed from c,
 * valid until the next answer call or agent_andor_ops_destroy); NULL before.
 * Cannot fail. */
const cJSON *agent_andor_ops_answer_value(const agent_andor_opctx *c);
/* Reading the operators' state, all borrowed from c (valid until the next
 * operator call or agent_andor_ops_destroy); none can fail. The memory: NULL
 * when the table is not kept. */
const agent_cand_table *agent_andor_ops_table(const agent_andor_opctx *c);
const char *agent_andor_ops_progress(const agent_andor_opctx *c); /* "" at first */
const char *agent_andor_ops_notes(const agent_andor_opctx *c);    /* newline-joined */
int agent_andor_ops_steps(const agent_andor_opctx *c);            /* tool calls run */
/* Why the last AGENT_ANDOR_OP_STOP happened: the agent_goal_end to report
 * and one line in *why (may be NULL; borrowed from c). */
agent_goal_end agent_andor_ops_stop_reason(const agent_andor_opctx *c, const char **why);

/* ---- the runner ----------------------------------------------------------- */

typedef struct agent_andor_run_opts {
    const char *goal;           /* the task in words (required) */
    model_llm *llm;             /* required, borrowed */
    model_budget *budget;       /* NULL = unlimited */
    const char *out_dir;        /* NULL = memory only */
    int max_steps;              /* tool calls; 0 = AGENT_GOAL_MAX_STEPS */
    int step_timeout_ms;
    int screenshot;             /* as agent_andor_ops_opts.screenshot (`--screenshot`) */
    agent_andor_config tree;    /* revisions, retries, budget, completion-check scope */
    agent_cand_mode candidates;
    const char *intervene;      /* a file path, "-" = stdin, NULL = none */
    FILE *progress;             /* NULL = stderr */
    const agent_trace_info *trace; /* as agent_goal_opts.trace */
    /* As agent_goal_opts.answer_schema: the answer call is held to it and
     * the accepted answer is written to out_dir/answer.json. */
    const cJSON *answer_schema;
} agent_andor_run_opts;

/* o zeroed with the defaults (max_steps AGENT_GOAL_MAX_STEPS, the tree's
 * defaults, candidates AUTO). o is the caller's. Any thread. Errors: none. */
void agent_andor_run_opts_init(agent_andor_run_opts *o);

typedef struct agent_andor_run_result {
    agent_goal_end end;         /* DONE (root SUCCESS and an answer), GAVE_UP (root failed), ... */
    char reason[1024];
    char answer[2048];
    int steps;                  /* tool calls */
    int iterations;             /* stack pops */
    int nodes;                  /* nodes created */
    int interventions;          /* edits applied from --intervene */
    int calls[AGENT_ANDOR_OPK_COUNT];
    int model_calls;            /* requests sent, retries included */
    model_budget_usage usage;
    long estimate;              /* estimated prompt tokens of every request */
    double total_ms, model_ms, tool_ms;
} agent_andor_run_result;

/* Runs o->goal on s with the AND/OR planner (see the file comment).
 * Everything borrowed; res filled always. On the session's thread. Errors:
 * BASE_EINVAL (missing goal/client, a bad intervention path), BASE_EIO (the
 * output folder), BASE_ENOMEM; how the task ended is res->end. */
base_err agent_andor_run(fovea_session *s, const agent_andor_run_opts *o,
                         agent_andor_run_result *res, char *err);

#endif
