/* agent/plan/ledger.h: the agent's declarative memory (seed 002 §5.2), persisted.
 *
 * One ledger per task. Its slots: the goal (immutable), the plan (subgoals
 * the Planner sets and revises) and the active subgoal, the three most
 * recent step outcomes (older ones live only in steps.jsonl), facts (key,
 * value, category, confidence, source step, last step that referred to
 * them), dead ends (what failed, where, and a cause tag), checkpoints
 * (progress landmarks, each with the step and tool call that reached it)
 * and episodic notes.
 *
 * Changes are made in memory (pure, so the eviction can call them) and
 * written by agent_ledger_sync into the run's folder:
 *   ledger.json    the whole ledger, rewritten atomically (temp file,
 *                  fsync, rename, directory fsync) on every sync;
 *   steps.jsonl    one line per finished step (append-only, fsync'ed);
 *   facts.jsonl    one line per fact set or changed (append-only);
 *   episodic.jsonl one line per note (append-only).
 * Every string goes through the run's secrets scrub before it is held and
 * again before it is written (a secret learned later is masked too).
 *
 * Resume. A step that may have reached the page must never run twice. The
 * runner brackets every tool call with agent_ledger_step_begin (records the
 * step, tool and tool call id as "pending" in ledger.json BEFORE the call)
 * and agent_ledger_step_end (appends the outcome to steps.jsonl, fsync'ed,
 * THEN rewrites ledger.json with last_step/last_call_id and no pending).
 * steps.jsonl is the commit record: agent_ledger_load reconciles the two,
 * so after a crash at any point:
 *   - a step in steps.jsonl is done (even if ledger.json still says
 *     pending: the crash fell between the two writes);
 *   - a pending step not in steps.jsonl is "uncertain": it may or may not
 *     have taken effect; the resumed run must look at the page and must
 *     not repeat it blindly (agent_ledger_resume_point reports it);
 *   - the next step number is last_step + 1.
 * A torn last line of a JSONL file (a crash mid-append) is ignored; any
 * other malformed line is an error naming file and line.
 *
 * Not thread-safe: one ledger belongs to the thread running the agent loop,
 * and every function taking one runs there unless it says otherwise (the
 * names and agent_cause_from_reason take no ledger: pure, any thread).
 * Failures are a base_err; the functions that take err say there why (a
 * load names the file and the position).
 */
#ifndef FOVEA_AGENT_PLAN_LEDGER_H
#define FOVEA_AGENT_PLAN_LEDGER_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/session/secrets.h"
#include "base/err.h"

#define AGENT_LEDGER_RECENT 3          /* step outcomes kept in the ledger */
#define AGENT_LEDGER_MAX_FILE (8u << 20)     /* largest ledger.json read */
#define AGENT_LEDGER_MAX_JOURNAL (64u << 20)  /* largest steps.jsonl read at resume */

typedef enum agent_fact_cat {
    AGENT_FACT_OBSERVATION = 0,
    AGENT_FACT_CONSTRAINT,
    AGENT_FACT_PREFERENCE,
    AGENT_FACT_IDENTITY,
    AGENT_FACT_CREDENTIAL,
    AGENT_FACT_DERIVED,
    AGENT_FACT_COUNT
} agent_fact_cat;

typedef enum agent_cause {
    AGENT_CAUSE_NETWORK = 0,
    AGENT_CAUSE_BOT_BLOCK,
    AGENT_CAUSE_STALE_SELECTOR,
    AGENT_CAUSE_POSTCONDITION_MISS,
    AGENT_CAUSE_POLICY_BLOCK,
    AGENT_CAUSE_RATE_LIMIT,
    AGENT_CAUSE_HANDOFF_TIMEOUT,
    AGENT_CAUSE_GENERIC,
    AGENT_CAUSE_COUNT
} agent_cause;

/* One finished step (a StepOutcome). Strings are the ledger's. */
typedef struct agent_step_outcome {
    int step;           /* 1-based */
    char *role;         /* "worker", "planner"... */
    char *tool;         /* tool name */
    char *call_id;      /* the model's tool call id (may be "") */
    char *args;         /* the call's arguments, compact JSON text */
    int ok;             /* 1 success, 0 failure */
    int delivered;      /* 1 when an input reached the page */
    char *reason;       /* tool reason name ("ok", "not_found"...) */
    char *summary;      /* one line for the model */
    char *url;          /* page URL after the step */
} agent_step_outcome;

/* What the runner reports when a step finishes (agent_ledger_step_end copies
 * it; NULL strings read as ""). Same fields as agent_step_outcome. */
typedef struct agent_step_report {
    int step;
    const char *role;
    const char *tool;
    const char *call_id;
    const char *args;
    int ok;
    int delivered;
    const char *reason;
    const char *summary;
    const char *url;
} agent_step_report;

typedef struct agent_fact {
    char *key;
    char *value;
    agent_fact_cat cat;
    double confidence;  /* 0..1 */
    int source_step;
    int ref_step;       /* last step that set or referred to it */
    long seq;           /* insertion order, ties in rendering */
} agent_fact;

typedef struct agent_dead_end {
    char *what;         /* one line */
    char *url;
    agent_cause cause;
    int step;
} agent_dead_end;

typedef struct agent_checkpoint {
    int step;
    char *kind;         /* navigation, login, filter, cart... */
    char *label;
    char *url;
    char *call_id;      /* the tool call that reached it */
} agent_checkpoint;

typedef struct agent_note {
    int step;
    char *text;
} agent_note;

/* The ledger. Fields are read-only to callers; change them through the
 * functions below (they scrub, bound and journal). */
typedef struct agent_ledger {
    char *goal;
    char **plan;
    int n_plan;
    int subgoal;                 /* index into plan, -1 = none */
    agent_step_outcome recent[AGENT_LEDGER_RECENT]; /* oldest first */
    int n_recent;
    agent_fact *facts;
    int n_facts;
    agent_dead_end *dead_ends;
    int n_dead_ends;
    agent_checkpoint *checkpoints;
    int n_checkpoints;
    agent_note *episodic;
    int n_episodic;
    int last_step;               /* last finished step (0: none) */
    char *last_call_id;          /* its tool call id */
    int pending_step;            /* a begun, unfinished step (0: none) */
    char *pending_tool;
    char *pending_call_id;
    char *pending_args;
    /* private: persistence */
    char *dir;
    const agent_secrets *secrets;
    long next_seq;
    cJSON *owed[3];              /* journal lines not yet appended: steps, facts, episodic */
} agent_ledger;

/* A new ledger for goal. dir (may be NULL: memory only) is the run's output
 * folder, created if missing; secrets (may be NULL) is borrowed and must
 * outlive the ledger. Nothing is written until agent_ledger_sync. *out is the
 * caller's (agent_ledger_destroy). On the agent loop's thread. Errors:
 * BASE_EINVAL (NULL goal or out), BASE_ENOMEM, BASE_EIO (dir cannot be
 * created). */
base_err agent_ledger_create(const char *goal, const char *dir, const agent_secrets *secrets,
                             agent_ledger **out, char *err);

/* Frees l (NULL: no-op). Nothing is written. On the owner's thread. */
void agent_ledger_destroy(agent_ledger *l);

/* Restores the ledger of a run folder (ledger.json, reconciled with
 * steps.jsonl as described above; facts and notes come from ledger.json).
 * Strict: a missing, truncated or malformed file, a wrong type or an unknown
 * key is an error naming the file and the position (line and column, or the
 * JSON path such as facts[2].confidence); never a crash. *out is the
 * caller's; untouched on failure; secrets as in agent_ledger_create. Any
 * thread. Errors: BASE_ENOTFOUND (no ledger.json), BASE_EPROTO (malformed),
 * BASE_EIO, BASE_ENOMEM, BASE_ETOOBIG (over AGENT_LEDGER_MAX_FILE). */
base_err agent_ledger_load(const char *dir, const agent_secrets *secrets, agent_ledger **out,
                           char *err);

/* Parses a ledger.json text (what agent_ledger_load does after reading it;
 * also the fuzz target's entry). name labels errors. No reconciliation with
 * steps.jsonl, no folder. Ownership and errors as agent_ledger_load, minus I/O.
 * Any thread. */
base_err agent_ledger_parse(const char *text, size_t n, const char *name,
                            const agent_secrets *secrets, agent_ledger **out, char *err);

/* Where a resumed run continues: *next_step = last_step + 1; *uncertain = the
 * pending step's number when a step was begun and never finished (it may have
 * reached the page: look before repeating), else 0. Pure. */
void agent_ledger_resume_point(const agent_ledger *l, int *next_step, int *uncertain);

/* The whole ledger as JSON (the ledger.json document, scrubbed). A new cJSON
 * the caller deletes; l is only read. Errors: NULL on ENOMEM. */
cJSON *agent_ledger_to_json(const agent_ledger *l);

/* Writes ledger.json atomically and appends the journal lines owed to
 * steps.jsonl, facts.jsonl and episodic.jsonl (each fsync'ed), JSONL first.
 * No-op without a folder. On the owner's thread. Errors: BASE_EIO (err names
 * the file), BASE_ENOMEM; on an error the lines still owed are kept and
 * written by the next sync. */
base_err agent_ledger_sync(agent_ledger *l, char *err);

/* --- changes (memory only; the next agent_ledger_sync writes them) --- */

/* Replaces the plan with n subgoals (copied) and makes subgoal `active`
 * current (-1: none). Errors: BASE_EINVAL, BASE_ENOMEM (l unchanged). */
base_err agent_ledger_set_plan(agent_ledger *l, const char *const *subgoals, int n, int active);

/* Makes plan[index] the active subgoal (-1: none). Errors: BASE_EINVAL (out
 * of range). */
base_err agent_ledger_set_subgoal(agent_ledger *l, int index);

/* Records that `step` is about to call `tool` (call_id and the compact JSON
 * args may be NULL): the pending step of a resume. Call agent_ledger_sync
 * right after, before the tool runs. Errors: BASE_EINVAL (step <= last_step,
 * another step pending), BASE_ENOMEM. */
base_err agent_ledger_step_begin(agent_ledger *l, int step, const char *tool,
                                 const char *call_id, const char *args);

/* Finishes the pending step with its outcome (o->step must be the pending
 * step's; o's strings are copied): pushed onto recent (the oldest falls off),
 * queued for steps.jsonl, last_step/last_call_id set, pending cleared. Call
 * agent_ledger_sync right after. Errors: BASE_EINVAL, BASE_ENOMEM (l
 * unchanged). */
base_err agent_ledger_step_end(agent_ledger *l, const agent_step_report *o);

/* Algorithm 1's Ingest: what one finished tool call adds to the ledger. */
typedef struct agent_ingest {
    const agent_step_report *step; /* required: the pending step's outcome */
    const char *prev_url;          /* the page before the call (NULL: unknown) */
    const char *saved_name;        /* a save_as variable the call set (NULL: none) */
    const char *saved_value;
} agent_ingest;

/* Finishes the pending step (agent_ledger_step_end), then, when the call
 * succeeded and the page moved to another URL (fragment ignored), adds a
 * "navigation" checkpoint with the step and its call id (what a resume or a
 * regression check looks for), and when it saved a value, a derived fact
 * saved_name = saved_value (confidence 1). Failures are not dead ends here:
 * the memory hook makes them dead ends once a newer failure replaces them in
 * the context. Errors: as agent_ledger_step_end (nothing changed);
 * BASE_ENOMEM after the step was recorded means the checkpoint or fact is
 * missing. */
base_err agent_ledger_ingest(agent_ledger *l, const agent_ingest *in);

/* Sets fact key to value (both copied, scrubbed) with its category,
 * confidence (clamped to 0..1) and source step; an existing key is updated
 * (its first source step kept when the value is unchanged). A credential
 * fact's value is never stored: it becomes "********". Errors: BASE_EINVAL,
 * BASE_ENOMEM. */
base_err agent_ledger_set_fact(agent_ledger *l, const char *key, const char *value,
                               agent_fact_cat cat, double confidence, int step);

/* Marks fact key as referred to at step (it renders earlier); returns 1 when
 * the key exists, else 0 (also for NULL l or key). Cannot fail. */
int agent_ledger_touch_fact(agent_ledger *l, const char *key, int step);

/* Adds a dead end unless one with the same what, url and cause is there.
 * Errors: BASE_EINVAL, BASE_ENOMEM. */
base_err agent_ledger_dead_end(agent_ledger *l, const char *what, const char *url,
                               agent_cause cause, int step);

/* Adds a checkpoint (kind, label, url, call_id copied; any but kind may be
 * NULL). Errors: BASE_EINVAL, BASE_ENOMEM. */
base_err agent_ledger_checkpoint(agent_ledger *l, int step, const char *kind, const char *label,
                                 const char *url, const char *call_id);

/* Appends an episodic note. Errors: BASE_EINVAL, BASE_ENOMEM. */
base_err agent_ledger_note(agent_ledger *l, int step, const char *text);

/* --- names --- */

/* Lower-case names ("observation", "stale_selector"); "?" out of range.
 * Static strings. Pure; any thread. */
const char *agent_fact_cat_name(agent_fact_cat c);
const char *agent_cause_name(agent_cause c);
/* The enum of a name; -1 when unknown (or NULL). Pure; any thread. */
int agent_fact_cat_from_name(const char *name);
int agent_cause_from_name(const char *name);

/* The cause tag of a failed tool call, from its tool_reason name ("not_found"
 * -> stale_selector, "challenge" -> bot_block, "blocked" -> policy_block,
 * "timeout" -> postcondition_miss, "http_error" with 429 in message ->
 * rate_limit...). message may be NULL. Pure. */
agent_cause agent_cause_from_reason(const char *reason, const char *message);

/* --- rendering (§5.5 role-sliced views) --- */

typedef enum agent_role {
    AGENT_ROLE_ORCHESTRATOR = 0, /* everything */
    AGENT_ROLE_PLANNER,          /* goal, plan, recent, facts, recent dead ends, checkpoints, last notes */
    AGENT_ROLE_WORKER            /* subgoal, recent 3, 5 facts by last reference, dead ends at url */
} agent_role;

#define AGENT_WORKER_FACTS 5
#define AGENT_PLANNER_DEAD_ENDS 10
#define AGENT_PLANNER_NOTES 5

/* The ledger as text for a model, sliced for role. url is the current page
 * (the Worker sees the dead ends recorded there; NULL: none). Deterministic
 * (same ledger, same text) and ordered stable-first: the goal and plan open
 * the block, the slots that change every step close it, so consecutive
 * renders share a long prefix. A base_malloc'd string the caller frees.
 * Errors: NULL on ENOMEM. Pure. */
char *agent_ledger_render(const agent_ledger *l, agent_role role, const char *url);

/* The same render cut in two for the prompt cache: *stable is "[LEDGER
 * view=...] ... [/LEDGER]" with the slots that change rarely (goal, plan,
 * checkpoints, dead ends, facts, notes), *now is "[LEDGER_NOW view=...] ...
 * [/LEDGER_NOW]" with those that change every step (subgoal, recent steps, an
 * unfinished step). The memory hook puts the first after the prefix and the
 * second into the newest observation. Both base_malloc'd, the caller's;
 * untouched on failure. Errors: BASE_EINVAL, BASE_ENOMEM. Pure. */
base_err agent_ledger_render_split(const agent_ledger *l, agent_role role, const char *url,
                                   char **stable, char **now);

#endif
