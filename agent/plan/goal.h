/* agent/plan/goal.h: the agent loop — a task in words carried out by a
 * model through the tool layer (seed 002 Algorithm 1, first form).
 *
 * A Worker turn is one model call with the brief tool list
 * (tool_functions_brief_json: the everyday tools in one-line form and
 * more_tools, whose call appends the rest of the tools the run permits once;
 * a tool behind it called by name runs as well) and an observation: the page's outline (get_outline: landmark regions,
 * headings, interactive elements as [n] = the screenshot mark [Vn]) in a
 * [SESSION_STATE]/[ELEMENTS] block, and optionally the screenshot as an
 * image part. The Worker may ask for up to AGENT_GOAL_BATCH tool calls; they
 * run in order through tool_call, and a page-changing call (TOOL_MUTATES)
 * ends the batch (the calls after it are answered "not run", so every tool
 * call keeps its result). Each result goes back as a tool message, JSON
 * with ok, reason, message, url (when the call failed or the page changed),
 * step and the tool's data (the memory hook turns old failures into dead
 * ends, and keeps large data one turn).
 *
 * The Planner is called every planner_every steps and whenever the Worker
 * calls `done`: it answers a JSON object {done, answer, plan, subgoal,
 * guidance}. Only the Planner ends a task as done, with its final answer.
 *
 * The Orchestrator (agent/plan/orchestrator.h) routes the task before the first
 * Worker turn, and each new active subgoal a Planner reply sets: a lookup
 * may go to the search worker (FOVEA_SEARCH_URL), whose text one Planner
 * call judges; one progress line, ledger note and trace "route" line each.
 *
 * Around it: the ledger (ledger.json in the output folder) is synced before
 * and after every tool call; the memory hook (agent_evict) runs before
 * every model call and only agent_evict_wire's copy is sent; loop detection
 * (agent/plan/loop.h) nudges through the next observation and stops the run as
 * "stopped: loop"; the token budget refuses a call that would pass it (the
 * run ends as cost_cap_exceeded, nothing sent); max steps. One progress line
 * per step and per model call; one trace.jsonl line per model call (role,
 * model, tokens, latency, tool calls — never a key — and what was sent:
 * sent_tokens, reported_tokens, prompt_bytes, prefix_share against the
 * role's previous call, model_llm_reply).
 *
 * On the session's thread (one agent loop per session).
 */
#ifndef FOVEA_AGENT_PLAN_GOAL_H
#define FOVEA_AGENT_PLAN_GOAL_H

#include <stdio.h>

#include "model/budget.h"
#include "model/llm.h"
#include "agent/session/tool.h"
#include "agent/session/trace.h"
#include "base/err.h"

#define AGENT_GOAL_BATCH 5        /* tool calls per Worker turn */
#define AGENT_GOAL_PLANNER_EVERY 4
#define AGENT_GOAL_MAX_STEPS 30

/* How a run ended. */
typedef enum agent_goal_end {
    AGENT_GOAL_DONE = 0,          /* the Planner declared the task done */
    AGENT_GOAL_GAVE_UP,           /* the Planner declared it impossible */
    AGENT_GOAL_LOOP,              /* "stopped: loop" */
    AGENT_GOAL_COST_CAP,          /* cost_cap_exceeded */
    AGENT_GOAL_STEPS_OUT,         /* steps exhausted */
    AGENT_GOAL_ERROR,             /* the endpoint failed, the page died, ... */
    AGENT_GOAL_INTERRUPTED        /* a stop signal */
} agent_goal_end;

/* "done", "gave_up", "stopped: loop", "cost_cap_exceeded", "max_steps",
 * "error", "interrupted"; "?" out of range. A static string. Pure; any
 * thread. */
const char *agent_goal_end_name(agent_goal_end e);

typedef struct agent_goal_opts {
    const char *goal;         /* the task in words (required) */
    model_llm *llm;           /* the client (required; borrowed) */
    model_budget *budget;     /* NULL = unlimited (borrowed; spent tokens accumulate there) */
    const char *out_dir;      /* ledger.json, steps.jsonl...; NULL = memory only */
    int max_steps;            /* tool calls in all; 0 = AGENT_GOAL_MAX_STEPS */
    int planner_every;        /* 0 = AGENT_GOAL_PLANNER_EVERY */
    int screenshot;           /* 1: the observation carries the page's screenshot */
    /* A Worker step (its model call and the tool calls of its batch) may
     * take this long: the model call gets it as its deadline, and no tool
     * call of the batch starts after it (each tool keeps its own timeout_ms,
     * so a step ends within this plus one tool's timeout). 0 = no limit
     * beyond the model client's and the tools' own. */
    int step_timeout_ms;
    int resume;               /* 1: continue the ledger in out_dir (agent_ledger_load) */
    FILE *progress;           /* NULL = stderr */
    /* When set (and out_dir is), the run writes out_dir/trace.jsonl: this
     * task line, the tool steps, one line per model call and the end line;
     * on resume the earlier trace is kept as trace.N.jsonl. */
    const agent_trace_info *trace;
} agent_goal_opts;

/* o (the caller's) zeroed with the defaults (max_steps
 * AGENT_GOAL_MAX_STEPS, planner_every AGENT_GOAL_PLANNER_EVERY). Any
 * thread; cannot fail. */
void agent_goal_opts_init(agent_goal_opts *o);

typedef struct agent_goal_result {
    agent_goal_end end;
    char reason[1024];        /* one line: why it ended */
    char answer[2048];        /* the Planner's final answer ("" unless done / gave up) */
    int steps;                /* tool calls run in this process */
    int last_step;            /* the ledger's last finished step */
    int calls[MODEL_LLM_ROLE_COUNT]; /* model calls per role */
    model_budget_usage usage; /* tokens of this run's calls */
    double total_ms;
    double model_ms;          /* time inside model_llm_chat */
    double tool_ms;           /* time inside tool_call */
    double obs_ms;            /* time building observations (outline, screenshot) */
    double ledger_ms;         /* time in agent_ledger_sync (atomic rewrite + fsync'ed journal) */
    double evict_ms;          /* time in agent_evict + agent_evict_wire */
} agent_goal_result;

/* Runs o->goal on session s until the Planner ends it, the budget or the step
 * limit stops it, a loop is detected, the endpoint fails or a stop signal
 * arrives (see the file comment). The session's trace (when it has one) gets
 * the tool steps and one line per model call. Everything borrowed; res filled
 * always. On the session's thread. Errors: BASE_EINVAL (missing goal or
 * client), ledger errors (BASE_EIO, BASE_ENOTFOUND / BASE_EPROTO on
 * --resume), BASE_ENOMEM; how the task ended is res->end, not the return
 * value. */
base_err agent_goal_run(fovea_session *s, const agent_goal_opts *o, agent_goal_result *res,
                        char *err);

#endif
