/* agent/session/tool.h: the tool layer — every action a person, a script or a model
 * can take on a page, behind one call (seed 002 §4.4 and Appendix A).
 *
 * A fovea_session holds what every action needs: the browser page(s), the
 * vision prefetcher and its epochs, the hand (cascade), the learnings, the
 * secrets, the variables of the run and, when it has an output folder, the
 * trace and the overlays. tool_call(session, name, args) runs one tool:
 * its arguments are checked against the tool's JSON Schema first (an
 * unknown, missing or mistyped argument is TOOL_BAD_ARGS naming it, and
 * nothing runs), then the tool runs and fills a tool_result: success, a
 * reason code, a one-line message, the cascade tiers tried with their
 * timings, concrete alternatives, what changed and per-stage timings.
 *
 * The same table of tools serves scripted task files (every tool is a task
 * verb: {"action": "send_keys", "keys": "Control+A"}) and the model (each
 * tool's schema goes out as a function definition: tool_functions_json).
 *
 * A session and its tool calls belong to one thread (the runner's or the
 * agent's), never the cdp service thread.
 */
#ifndef FOVEA_AGENT_SESSION_TOOL_H
#define FOVEA_AGENT_SESSION_TOOL_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/session/trace.h"
#include "base/err.h"
#include "cdp/browser.h"

typedef struct fovea_session fovea_session;

/* Why a tool call ended as it did. A code, never a string to search. */
typedef enum tool_reason {
    TOOL_OK = 0,
    TOOL_BAD_ARGS,        /* the arguments fail the tool's schema; nothing ran */
    TOOL_UNKNOWN_TOOL,    /* no tool by that name; nothing ran */
    TOOL_NOT_FOUND,       /* target, text, element or option not there */
    TOOL_AMBIGUOUS,       /* several equally good targets */
    TOOL_DISABLED,        /* the element is disabled */
    TOOL_INVISIBLE,       /* the element is hidden or has no size */
    TOOL_COVERED,         /* something else would receive the press */
    TOOL_NO_EFFECT,       /* delivered, and the page must react but did not */
    TOOL_DEAD_CLICK,      /* refused: same target again with no change between */
    TOOL_BOT_PROTECTED,   /* the scripted tier is refused on this domain */
    TOOL_TIMEOUT,         /* the condition did not hold within the time */
    TOOL_ASSERT_FAILED,   /* an assertion does not hold */
    TOOL_PATTERN_LIMIT,   /* a regular expression hit its bounds */
    TOOL_BLOCKED,         /* a guard refused: off-site, search pivot, opt-in tool */
    TOOL_HTTP_ERROR,      /* the navigation landed on a 4xx/5xx page */
    TOOL_CHALLENGE,       /* a captcha / anti-bot / geo wall is in the way */
    TOOL_DIALOG,          /* a JavaScript dialog was not as the task expected */
    TOOL_PAGE_GONE,       /* the tab crashed or closed */
    TOOL_NOT_RESPONDING,  /* the page stopped answering */
    TOOL_VISION,          /* the vision endpoint failed (timeout, refusal) */
    TOOL_INTERRUPTED,     /* a stop signal (Ctrl-C) */
    TOOL_ERROR,           /* transport or internal error (message says which) */
    TOOL_REASON_COUNT
} tool_reason;

/* Lower-case snake name of r ("not_found"); "?" out of range. A static
 * string. Any thread. */
const char *tool_reason_name(tool_reason r);

/* The reason for a record's reason name (the cascade's and the runner's
 * names, "ok", "page_gone", ...); TOOL_ERROR for an unknown name. Pure; any
 * thread. */
tool_reason tool_reason_from_name(const char *name);

/* What a call changed on the browser side. */
typedef struct tool_changes {
    char url_before[512], url_after[512]; /* secrets masked */
    int url_changed;
    int new_tab;       /* a tab opened (and, for a popup, was followed: rec.new_tab) */
    int dialog;        /* a JavaScript dialog showed (rec.dialog says which, how answered) */
    unsigned effects;  /* the hand's CASCADE_FX_* bits for the action, 0 when none ran */
} tool_changes;

/* The result of one call. rec is the step record the trace writes (tiers
 * tried with timings, alternatives, gate, box, snap, stage timings, the
 * outcome line); data is the tool's output for the caller or the model
 * (extracted lines, options, markdown, a tree...), owned, NULL when none
 * (also when an allocation failed while the tool built it: data is whole or
 * absent, never missing a member). */
typedef struct tool_result {
    int success;
    tool_reason reason;
    char message[256];       /* one line: what happened, or why not (= rec.outcome) */
    int delivered;           /* an action reached the page: never repeat the call */
    tool_changes changed;
    cJSON *data;             /* owned; tool_result_fini frees it */
    agent_step_record rec;
} tool_result;

/* Releases r->data (r itself is the caller's). NULL: no-op. Any thread. */
void tool_result_fini(tool_result *r);

/* Tool flags. */
enum {
    TOOL_MUTATES = 1u << 0,  /* may change the page: settles after, ends a model's batch */
    TOOL_OPT_IN = 1u << 1,   /* refused unless the session allows scripts (evaluate_script) */
    TOOL_TARGETED = 1u << 2, /* takes a "target" (label and/or [Vn] index) */
    TOOL_UPLOADS = 1u << 3,  /* hands local files to the page: a model's files come only
                                from the upload folder (agent/session/permit.h) */
};

/* What a run permits beyond reading and pressing (agent/session/permit.h):
 * bits of a permit set. */
enum {
    TOOL_PERMIT_SCRIPTS = 1u << 0, /* --allow-scripts: tools that run page JavaScript */
    TOOL_PERMIT_UPLOAD = 1u << 1,  /* --upload-dir: upload_file */
};

/* One tool: its name, a description for the model, the JSON Schema of its
 * arguments (an object schema, as JSON text) and what it does. run fills
 * r->rec (through agent__failf for failures) and may set r->data; tool_call
 * does the rest (reason, message, changes, secrets scrub, trace). */
typedef struct tool_def {
    const char *name;
    const char *description;
    const char *schema;
    unsigned flags;
    int (*run)(fovea_session *s, const cJSON *args, tool_result *r);
    /* Checks beyond the schema (one of several modes, a field that needs
     * another), run by tool_args_check after the schema: NULL = none.
     * Errors: BASE_EINVAL / BASE_EPROTO naming the argument, BASE_ENOMEM. */
    base_err (*check)(const cJSON *args, char *err);
} tool_def;

/* The permit t needs (one TOOL_PERMIT_* bit, 0 when none). Pure; any thread. */
unsigned tool_permit_needed(const tool_def *t);

/* The name of the permit t needs, as the tool table shows it: "none",
 * "allow-scripts" or "upload-dir". A static string. Pure; any thread. */
const char *tool_permit_name(const tool_def *t);

/* The tools, in table order: tool_count() of them; tool_at gives the i-th
 * (static, never freed) or NULL out of range. Any thread. */
int tool_count(void);
const tool_def *tool_at(int i);

/* The tool named name, or NULL. Task-file aliases ("click" for click_at,
 * "type" for type_at, ...) resolve too. Static, never freed. Any thread. */
const tool_def *tool_find(const char *name);

/* Checks args (NULL = {}) against t's schema, and the common step keys every
 * tool takes (timeout_ms, retries, critical, note, save_as). Errors:
 * BASE_EINVAL with "click_at: argument 'targte' is not known (target, verb,
 * ...)" / "send_keys: 'keys' must be a string". Any thread; pure. */
base_err tool_args_check(const tool_def *t, const cJSON *args, char *err);

/* The model client's check of a call the model made
 * (model_llm_request.check_call): a tool of the registry by its exact name
 * through tool_args_check, any other function against params (the parameters
 * that were sent) plus the common step keys. user is unused. Errors: as
 * tool_args_check, words for the model in why. Any thread; pure. */
base_err tool_check_call(const char *name, const cJSON *params, const cJSON *args, char *why,
                         void *user);

/* The OpenAI "tools" array (type function, name, description, parameters =
 * the schema) of every tool a run offers a model: a tool that needs a permit
 * only when permits (TOOL_PERMIT_* bits; fovea_session_permits) holds it.
 * Caller's (cJSON_Delete). Errors: NULL on allocation failure. Any thread. */
cJSON *tool_functions_json(unsigned permits);

/* The function a model calls to get the rest of the tools (not a registry
 * tool: the runner answers it; agent/session/tool_brief.c). */
#define TOOL_MORE_TOOLS "more_tools"

/* The model's brief tool list (issue 22): the everyday tools with one-line
 * descriptions and narrow schemas (each narrower than its registry schema;
 * calls are still checked by tool_check_call), those permits allow, then
 * TOOL_MORE_TOOLS. Caller's (cJSON_Delete). Errors: NULL on allocation
 * failure. Any thread. */
cJSON *tool_functions_brief_json(unsigned permits);

/* The rest: tool_functions_json(permits) without the brief tools, full
 * descriptions and schemas, in table order; what a TOOL_MORE_TOOLS call
 * adds to the tools sent (appended once, so the request's prefix is stable
 * again after). Caller's. Errors: NULL on allocation failure. Any thread. */
cJSON *tool_functions_more_json(unsigned permits);

/* The brief list's size, its i-th tool's name (NULL out of range), and a
 * tool's brief schema as JSON text (NULL when the tool is not in the brief
 * list). Static strings. Pure; any thread. */
int tool_brief_count(void);
const char *tool_brief_name(int i);
const char *tool_brief_schema(const char *name);

/* Which steps get an overlay (OUT/steps/NNN.png). Drawing and encoding
 * one costs ~100-200 ms, so benchmarks turn them off. */
typedef enum agent_overlays {
    AGENT_OVERLAYS_ALL = 0, /* every step (default) */
    AGENT_OVERLAYS_FAILURES, /* failed attempts only */
    AGENT_OVERLAYS_NONE,
} agent_overlays;

/* Parses "all", "failures" or "none" into *out; returns 0, or -1 for
 * anything else (*out untouched). Pure; any thread. */
int agent_overlays_parse(const char *s, agent_overlays *out);

/* How a procedural step (the gate found the page equal to the vision epoch)
 * finds its element. */
typedef enum agent_proc_mode {
    AGENT_PROC_EPOCH = 0, /* the epoch's element after one check (perception/procedural.h);
                             the snapper only when the check fails (default) */
    AGENT_PROC_SNAPPER,   /* always probe the box with the snapper (the path before) */
    AGENT_PROC_BOTH,      /* one of the two per procedural step, drawn from the run's
                             seed: `fovea bench steps --procedural both` times both
                             on the same page states in one run */
} agent_proc_mode;

enum { AGENT_PAGE_TEXT_OUTLINE = 0, AGENT_PAGE_TEXT_FLAT = 1 };

/* What a session is asked to be: the tool layer's own options. A runner
 * (the scripted runner, the planners, the CLI) fills them and passes them
 * down; fovea_session_opts_init gives the defaults. */
typedef struct fovea_session_opts {
    const char *vision;    /* "dom" (default), "openai" (configured from the environment), "pixel" */
    int humanize;          /* Bezier paths and typing cadence (default 1) */
    int allow_untrusted;   /* cascade tier 3 (scripted el.click()) allowed (default 0) */
    const char *learnings; /* per-domain learnings file for the cascade, NULL = none */
    uint64_t seed;
    FILE *progress;        /* progress lines; NULL = stderr */
    agent_overlays overlays; /* default AGENT_OVERLAYS_ALL */
    int allow_scripts;       /* tools that run page script (evaluate_script, run_script,
                                add_init_script) allowed (default 0: refused as blocked) */
    /* upload_file (agent/session/permit.h): the folder a model's files come
     * from (NULL = none: a model's upload is blocked), unless script_paths
     * says the calls come from a task file the operator wrote, whose paths
     * are taken as given (the scripted runner sets it; default 0). */
    const char *upload_dir;
    int script_paths;
    /* Navigation guards (docs/navigation.md): hosts a session may
     * navigate to besides the start page's site (comma-separated, "*" =
     * anywhere), NULL = the start site and the built-in safe-list only. */
    const char *allow_hosts;
    agent_proc_mode procedural; /* default AGENT_PROC_EPOCH */
    /* What get_outline shows by default (issue 14; the agent's --page-text). */
    int page_text;           /* AGENT_PAGE_TEXT_OUTLINE (default) or AGENT_PAGE_TEXT_FLAT */
    /* The first vision pass, scheduled when the session starts (it runs
     * while the caller prepares the first call): what it is for (the
     * task's name or goal; NULL = "start") and how long it may take (0 =
     * 5000 ms; give the first call's timeout). */
    const char *first_subgoal;
    int first_pass_ms;
    /* 1: the caller masks this session's secrets in the process's log
     * lines itself (fovea mcp: one filter over every live session, see
     * fovea_session_secrets); the session neither sets nor clears the log
     * filter. Default 0: the session sets it to its own secrets at create
     * and clears it at destroy. */
    int shared_log_filter;
} fovea_session_opts;

/* Defaults: vision "dom", humanize 1, overlays all, the rest zero. Any thread. */
void fovea_session_opts_init(fovea_session_opts *o);

/* A session on page (already on its start URL): vision provider, prefetcher,
 * hand, secrets, fingerprint observer. The first prefetch is scheduled.
 * Borrows page (the caller closes it after fovea_session_destroy); *out is
 * the caller's. On the caller's thread. Errors: BASE_EINVAL (unknown
 * provider), the provider's configuration errors, BASE_ENOMEM, CDP errors
 * (page gone). */
base_err fovea_session_create(cdp_page *page, const fovea_session_opts *o, fovea_session **out,
                              char *err);

/* Closes the tabs the session opened and frees it; the page given to
 * fovea_session_create stays the caller's. NULL: no-op. On the session's
 * thread. */
void fovea_session_destroy(fovea_session *s);

/* The page the session acts on now (a followed popup, a switched tab).
 * Borrowed until the next tool call. On the session's thread. */
cdp_page *fovea_session_page(fovea_session *s);

/* The permits the session's run holds (TOOL_PERMIT_* bits): scripts with
 * allow_scripts, upload with an upload_dir or script_paths. On any thread
 * that owns s. */
unsigned fovea_session_permits(const fovea_session *s);

/* Calls the guards refused so far (reason blocked: a permit the run lacks, a
 * file outside the upload folder, an off-site hop), and the message of the
 * last one ("" when none; borrowed until the next call). On the session's
 * thread. */
int fovea_session_blocked(const fovea_session *s, const char **last);

/* Runs tool name with args (JSON text, NULL or "" = {}). Always fills *out
 * (tool_result_fini after); returns out->success. Bad JSON, an unknown tool
 * or bad arguments fail with TOOL_BAD_ARGS / TOOL_UNKNOWN_TOOL before
 * anything touches the page. Every string of the result is scrubbed of the
 * session's secrets. On the session's thread. */
int tool_call(fovea_session *s, const char *name, const char *args_json, tool_result *out);

/* Like tool_call with parsed arguments (borrowed). On the session's thread. */
int tool_call_json(fovea_session *s, const char *name, const cJSON *args, tool_result *out);

/* Variables: "${name}" in any string argument is replaced by the value a
 * previous call saved ("save_as": "name" on extract, evaluate_script,
 * get_clipboard, ...). Set one by hand with this (value copied; a secret
 * value should also go through the session's secrets). On the session's
 * thread. Errors: BASE_EINVAL (bad name: [A-Za-z_][A-Za-z0-9_]*),
 * BASE_ENOMEM. */
base_err fovea_session_set_var(fovea_session *s, const char *name, const char *value, char *err);

/* The value of variable name, or NULL. Borrowed until the next set. On the
 * session's thread. */
const char *fovea_session_var(const fovea_session *s, const char *name);

#endif
