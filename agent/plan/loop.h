/* agent/plan/loop.h: loop detection on normalised action + page fingerprint.
 *
 * The agent must not keep repeating an action that changes nothing. Every
 * executed action is fed here with the fingerprint of the page it ran on
 * (the caller's: e.g. a hash of the URL and the perception fingerprint of
 * the prefetched epoch). The action is normalised first (tool name, the
 * arguments with case and spacing folded, bookkeeping keys such as note,
 * timeout_ms and retries dropped, coordinates bucketed to 25 px), so
 * "[V3] Search" and "[v3]  search" are the same action. When the same
 * action meets the same page again within the last AGENT_LOOP_WINDOW
 * actions, the verdict escalates:
 *   2nd time: a nudge naming what was repeated and a concrete alternative;
 *   3rd time: a firmer nudge that says the next repeat ends the run;
 *   4th time: stop — the run ends as "stopped: loop" (never "done").
 * A changed page (another fingerprint) is a fresh start for that action.
 * Pure (no I/O, no allocation): one caller-owned struct per run, used by the
 * thread that owns it; nothing here can fail.
 */
#ifndef FOVEA_AGENT_PLAN_LOOP_H
#define FOVEA_AGENT_PLAN_LOOP_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_LOOP_WINDOW 12        /* actions remembered */
#define AGENT_LOOP_STOP_AT 4        /* repeats that stop the run */
#define AGENT_LOOP_STOPPED "stopped: loop"

typedef enum agent_loop_level {
    AGENT_LOOP_OK = 0,
    AGENT_LOOP_NUDGE,               /* repeated once: tell the model */
    AGENT_LOOP_WARN,                /* repeated twice: the next one stops */
    AGENT_LOOP_STOP                 /* stop the run as AGENT_LOOP_STOPPED */
} agent_loop_level;

typedef struct agent_loop_entry {
    uint64_t key;                   /* hash of normalised action + page fingerprint */
    int step;
} agent_loop_entry;

typedef struct agent_loop {
    agent_loop_entry recent[AGENT_LOOP_WINDOW]; /* ring */
    int n;                          /* entries held (<= window) */
    int head;                       /* next write position */
} agent_loop;

typedef struct agent_loop_verdict {
    agent_loop_level level;
    int repeats;                    /* times this action met this page in the window */
    int first_step;                 /* the earliest of them */
    char message[768];              /* for the model (NUDGE, WARN) or the run's end (STOP) */
} agent_loop_verdict;

/* An empty detector. Pure. */
void agent_loop_init(agent_loop *lp);

/* The normalised form of a call (tool and its compact JSON arguments; args
 * may be NULL or not JSON: then used as text) into out (cap bytes, cut if
 * longer). Pure. Returns the length written. */
size_t agent_loop_normalise(const char *tool, const char *args, char *out, size_t cap);

/* Records that `step` ran tool(args) on a page with fingerprint page_fp, and
 * says whether that makes a loop. alternative (may be NULL) is a concrete
 * next move to name in the nudge (e.g. the tool result's first alternative);
 * without one a move suited to the tool is named. Pure. */
void agent_loop_observe(agent_loop *lp, int step, const char *tool, const char *args,
                        uint64_t page_fp, const char *alternative, agent_loop_verdict *out);

#endif
