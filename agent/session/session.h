/* agent/session/session.h: the session as a runner sees it.
 *
 * A runner — the scripted runner (agent/script/run.c) or a planner
 * (agent/plan/) — opens a session (agent/session/tool.h:
 * fovea_session_create), numbers the calls it makes, gives the session its
 * trace, and reads back what it needs for its own output (the page URL, the
 * screenshot for a model, progress lines). This header is all a runner may
 * use of a session; the struct itself stays private to agent/session/.
 *
 * Every function here runs on the session's thread (the runner's), like
 * tool_call, unless it says otherwise.
 */
#ifndef FOVEA_AGENT_SESSION_SESSION_H
#define FOVEA_AGENT_SESSION_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include "agent/session/secrets.h"
#include "agent/session/tool.h"
#include "agent/session/trace.h"
#include "base/err.h"
#include "perception/prefetch.h"

/* The call a runner is about to make, as it numbers it, for the trace,
 * progress lines and overlays. */
typedef struct fovea_step_info {
    int index;          /* 1-based; 0 = tool_call numbers calls itself (a model's session) */
    int total;          /* how many steps the runner may take (0 = unknown) */
    int attempt;        /* 1-based */
    int pass_budget_ms; /* a vision pass may take this long (0 = leave as it is) */
    const char *action; /* the task file's word for the tool ("click"); NULL/"" = the tool's name */
    const char *desc;   /* one line describing the call (copied, cut at 199 bytes); NULL = "" */
} fovea_step_info;

/* The call that follows is st (copied). Errors: none. */
void fovea_session_set_step(fovea_session *s, const fovea_step_info *st);

/* The trace the session writes each call's record and overlay into (NULL =
 * none). The session borrows t; the runner closes it after
 * fovea_session_set_trace(s, NULL) or after destroying the session. */
void fovea_session_set_trace(fovea_session *s, agent_trace *t);
/* The trace set last (borrowed; NULL = none). */
agent_trace *fovea_session_trace(fovea_session *s);

/* The session's secrets (agent/session/secrets.h): the one masking facility
 * every output goes through. Borrowed for the session's life. */
agent_secrets *fovea_session_secrets(fovea_session *s);

/* Where progress lines go (the options' progress file, or stderr).
 * Borrowed: the session never closes it. */
FILE *fovea_session_progress(fovea_session *s);

/* The options the session was created with (read-only, borrowed). */
const fovea_session_opts *fovea_session_options(const fovea_session *s);

/* 1 when the last call's action reached its element (it must never be
 * repeated), else 0. */
int fovea_session_delivered(const fovea_session *s);

/* The page's URL with secrets masked, into buf (n bytes); "" when the page
 * does not answer. */
void fovea_session_page_url(fovea_session *s, char *buf, size_t n);

/* The page's screenshot with Set-of-Marks ([Vn] boxes of a fresh vision pass,
 * the numbers get_outline shows as [n]) as a JPEG data: URL; a plain capture
 * when no pass arrives within 5 s. The caller's (base_free). Errors: NULL
 * when the session holds a secret (a model must never see a typed password)
 * or on failure. */
char *fovea_session_shot_data_url(fovea_session *s);

/* Schedules a vision pass for subgoal (copied; may be NULL), its deadline
 * now + the pass budget. Does not wait. Errors: none (a pass that fails
 * publishes no epoch; fovea_session_wait_epoch then returns NULL). */
void fovea_session_schedule(fovea_session *s, const char *subgoal);

/* Waits up to timeout_ms for the last scheduled vision pass, in 50 ms slices
 * (a stop signal is seen at once). The epoch is acquired for the caller
 * (perc_epoch_release). Errors: NULL on timeout. */
perc_epoch *fovea_session_wait_epoch(fovea_session *s, int timeout_ms);

/* source runs before the page's own scripts on every later page load of every
 * tab the session opens or follows, and now on the open tabs when
 * on_current_pages. source is copied. Errors: BASE_ETOOBIG past 8 scripts,
 * BASE_ENOMEM, CDP errors (err says which). */
base_err fovea_session_add_init_script(fovea_session *s, const char *source, int on_current_pages,
                                       char *err);

/* What the next get_outline collapses against is the last read's region
 * signatures (agent/session/outline.h). A runner with two readers of the
 * page (the Worker's conversation and the Planner's) keeps one set per
 * reader: it swaps its own in before its read and back after, so the
 * Planner's read never makes the Worker's next one collapse against text
 * the Worker did not get. *sig (NULL: none yet) and the session's set trade
 * places. Cannot fail. On the runner's thread. */
struct agent_outline_sig;
void fovea_session_outline_swap(fovea_session *s, struct agent_outline_sig **sig);

/* A copy of the session's set into *sig (NULL when there is none yet or no
 * memory: the caller then has nothing to restore). *sig is the caller's
 * (fovea_session_outline_free). On the runner's thread. */
void fovea_session_outline_copy(fovea_session *s, struct agent_outline_sig **sig);

/* The next get_outline collapses no region against the session's set (its
 * regions are marked as not shown whole) while the set's URL still makes
 * it a same-page read (AGENT_OL_CAP_SAME). For a reader whose last read was
 * cut by the budget: keeping that read in context for the few regions a
 * later read would collapse costs more than it saves. Cannot fail. On the
 * runner's thread. */
void fovea_session_outline_hold(fovea_session *s);

/* Frees a set fovea_session_outline_swap handed out (NULL: no-op). */
void fovea_session_outline_free(struct agent_outline_sig *sig);

/* A progress line on f (a run's stderr or --progress file), flushed at once
 * so a person watching sees each step as it ends. Any thread that owns f. */
void agent_progressf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
