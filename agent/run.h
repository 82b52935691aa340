/* agent/run.h: runs a scripted task on a live page through the real
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
 */
#ifndef FOVEA_AGENT_RUN_H
#define FOVEA_AGENT_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "agent/task.h"
#include "agent/trace.h"
#include "cdp/browser.h"

/* Which steps get an overlay (OUT/steps/NNN.png). Drawing and encoding
 * one costs ~100-200 ms, so benchmarks turn them off. */
typedef enum agent_overlays {
    AGENT_OVERLAYS_ALL = 0, /* every step (default) */
    AGENT_OVERLAYS_FAILURES, /* failed attempts only */
    AGENT_OVERLAYS_NONE,
} agent_overlays;

/* Parses "all", "failures" or "none"; returns 0, or -1 for anything else. */
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

typedef struct agent_run_opts {
    const char *out_dir;   /* default "out/run" */
    const char *vision;    /* "dom" (default) or "openai" (configured from the environment) */
    const char *task_file; /* for the trace, may be NULL */
    const char *browser;   /* product string for the trace, may be NULL */
    int humanize;          /* Bezier paths and typing cadence (default 1) */
    int allow_untrusted;   /* cascade tier 3 (scripted el.click()) allowed (default 0) */
    const char *learnings; /* per-domain learnings file for the cascade, NULL = none */
    uint64_t seed;
    FILE *progress;        /* progress lines; NULL = stderr */
    /* Added for `fovea bench steps` (zero = previous behaviour). */
    agent_overlays overlays; /* default AGENT_OVERLAYS_ALL */
    int no_summary;        /* 1: no summary table on stdout at the end */
    /* Called on the runner's thread after each step's last attempt, with its
     * finished record (borrowed for the call; scrubbed of secrets). */
    void (*on_step)(const agent_step_record *r, void *user);
    void *on_step_user;
    /* The tool layer's switches (agent/tool.h). */
    int allow_scripts;       /* evaluate_script / run_script allowed (default 0: refused as blocked) */
    /* Navigation guards (docs/navigation.md): hosts a session may
     * navigate to besides the start page's site (comma-separated, "*" =
     * anywhere), NULL = the start site and the built-in safe-list only. */
    const char *allow_hosts;
    agent_proc_mode procedural; /* default AGENT_PROC_EPOCH */
    /* What get_outline shows by default (issue 14; the agent's --page-text). */
    int page_text;           /* AGENT_PAGE_TEXT_OUTLINE (default) or AGENT_PAGE_TEXT_FLAT */
    /* Before each step after the first, wait up to think_ms for the vision
     * pass the last step scheduled, as a model's time between steps would
     * let it finish (`fovea bench steps --think MS`). The wait is not part
     * of any step's time. 0 (default): the next step starts at once. */
    int think_ms;
} agent_run_opts;

enum { AGENT_PAGE_TEXT_OUTLINE = 0, AGENT_PAGE_TEXT_FLAT = 1 };

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

/* Purpose: runs task on page (already navigated to the task's start URL).
 * Ownership: borrows page and task; *res is the caller's and always filled.
 * Thread: the caller's (not the cdp service thread); one run per page.
 * Returns BASE_OK when the run happened, whether or not every step passed
 * (res->ok); an error when it could not run at all (output folder not
 * writable, vision provider not configured, page gone). */
base_err agent_run(cdp_page *page, const agent_task *task, const agent_run_opts *o,
                   agent_run_result *res, char *err);

#endif
