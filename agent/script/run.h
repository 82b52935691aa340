/* agent/script/run.h: runs a scripted task on a live page through the real
 * grounding path (ARCHITECTURE.md "One step, as data").
 *
 * Every step that names a target goes gate -> (prefetched) vision epoch ->
 * the box chosen by index and/or label -> perc_snap_box -> cascade_* -> a
 * prefetch scheduled after mutating actions. Text steps (wait_for,
 * assert_text, extract without target) read the rendered text of every
 * frame. Each finished step is written to OUT/trace.jsonl with its overlay
 * OUT/steps/NNN.png and one progress line on stderr; the first failing step
 * ends the run with the cascade's reason and alternatives, keeping
 * everything written so far. The caller writes report.html afterwards
 * (agent_report_write) so that it covers failed runs too.
 *
 * A run makes blocking CDP calls on the caller's thread (never the cdp
 * service thread). A failing step is not an error of agent_run: it is
 * reported in the result; only a run that cannot start returns a base_err.
 */
#ifndef FOVEA_AGENT_SCRIPT_RUN_H
#define FOVEA_AGENT_SCRIPT_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "agent/script/task.h"
#include "agent/session/tool.h"
#include "agent/session/trace.h"
#include "cdp/browser.h"

typedef struct agent_run_opts {
    /* The tool layer's options (vision, humanize, seed, overlays, progress,
     * allow_scripts, allow_hosts, procedural, page_text, ...: agent/session/
     * tool.h), passed down to the session the run opens. */
    fovea_session_opts session;
    const char *out_dir;   /* default "out/run" */
    const char *task_file; /* for the trace, may be NULL */
    const char *browser;   /* product string for the trace, may be NULL */
    int no_summary;        /* 1: no summary table on stdout at the end */
    /* Called on the runner's thread after each step's last attempt, with its
     * finished record (borrowed for the call; scrubbed of secrets). */
    void (*on_step)(const agent_step_record *r, void *user);
    void *on_step_user;
    /* Before each step after the first, wait up to think_ms for the vision
     * pass the last step scheduled, as a model's time between steps would
     * let it finish (`fovea bench steps --think MS`). The wait is not part
     * of any step's time. 0 (default): the next step starts at once. */
    int think_ms;
} agent_run_opts;

/* Sets o (the caller's) to the defaults: out/run, and the session's
 * defaults (fovea_session_opts_init). Any thread; cannot fail. */
void agent_run_opts_init(agent_run_opts *o);

typedef struct agent_run_result {
    int ok;              /* every step passed */
    int steps_done;      /* steps that passed */
    int failed_step;     /* 1-based, 0 when none failed */
    char reason[256];    /* "step 4: covered: ..." when !ok */
    int interrupted;     /* the stop signal (SIGINT, ...) that ended the run, or 0
                          * (base/interrupt.h; reason says "interrupted by SIGINT ...") */
    double total_ms;
} agent_run_result;

/* Runs task on page (already navigated to the task's start URL). Borrows page
 * and task; *res is the caller's and always filled. On the caller's thread
 * (not the cdp service thread); one run per page. Returns BASE_OK when the
 * run happened, whether or not every step passed (res->ok); an error when it
 * could not run at all. Errors: BASE_EINVAL (a NULL argument), those of
 * fovea_session_create (vision provider not configured, page gone), of the
 * task's secrets and init script, of agent_trace_open (BASE_EIO: output
 * folder not writable), BASE_ENOMEM; err says which. */
base_err agent_run(cdp_page *page, const agent_task *task, const agent_run_opts *o,
                   agent_run_result *res, char *err);

#endif
