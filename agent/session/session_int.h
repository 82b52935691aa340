/* agent/session/session_int.h: the session's insides, shared by the files of
 * agent/session/ (private: runners use agent/session/session.h).
 *
 * A tool's run function gets the session, its checked arguments and the
 * result to fill. It grounds targets with agent__ground, acts through the
 * hand (s->hand, cascade/cascade.h), brackets page-changing actions with
 * agent__watch_begin / agent__watch_end (settles a navigation the action
 * started and schedules the next vision pass), and reports failures with
 * agent__failf(&r->rec, "reason_name", ...). Everything here runs on the
 * session's thread.
 */
#ifndef FOVEA_AGENT_SESSION_SESSION_INT_H
#define FOVEA_AGENT_SESSION_SESSION_INT_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "agent/session/secrets.h"
#include "agent/session/session.h"
#include "agent/session/step.h"
#include "agent/session/tool.h"
#include "agent/session/trace.h"
#include "agent/session/watchdog_int.h"
#include "base/buf.h"
#include "cdp/browser.h"
#include "cascade/cascade.h"
#include "perception/prefetch.h"
#include "perception/probe.h"
#include "perception/vision.h"

#define AGENT__MAX_MASKS 16
#define AGENT__MAX_TABS 8
#define AGENT__MAX_VARS 64

/* The result of grounding one target. */
typedef struct agent__grounded {
    perc_epoch *epoch; /* acquired; agent__grounded_fini releases */
    int box;           /* index into epoch->boxes, -1 = none */
    perc_snap snap;
} agent__grounded;

void agent__grounded_fini(agent__grounded *g);

struct fovea_session {
    cdp_page *page;          /* acted on now (home, a followed popup, a switched tab) */
    cdp_page *home;          /* the caller's page, where the session started */
    fovea_session_opts o;
    FILE *out;               /* progress lines (o.progress or stderr) */
    perc_vision *vision;
    perc_prefetch *pf;
    cascade_hand *hand;
    agent_trace *trace;      /* NULL = no trace, no overlays */
    uint64_t ticket;         /* of the last scheduled prefetch */
    uint64_t last_epoch;     /* id of the epoch the previous call used */
    agent_secrets *sec;
    base_rect masks[AGENT__MAX_MASKS];
    int n_masks;
    char mask_url[1024];
    const perc_epoch *shot_ep;
    base_rect shot_masks[AGENT__MAX_MASKS + 64];
    int n_shot_masks;
    char shot_url[1024];
    char main_frame[64];
    char start_url[1024];    /* the session's first URL (navigation guards pin its site) */
    char last_url[512];      /* the URL the previous call ended on (a call's url_before:
                                no round trip on the step's path) */
    agent__watchdog *wd;
    uint64_t dialogs_seen, popups_seen;
    int pass_budget_ms;      /* a vision pass may take this long */
    char fx_tab[64];         /* the hand's CASCADE_FX_NEW_TAB target of this call */
    cdp_page *tabs[AGENT__MAX_TABS]; /* tabs the session opened or followed (closed at the end) */
    int n_tabs;
    int delivered;           /* this call's action reached its element: never repeated */
    unsigned effects;        /* CASCADE_FX_* of this call's hand actions */
    char *var_name[AGENT__MAX_VARS], *var_value[AGENT__MAX_VARS];
    int n_vars;
    /* The call in progress, as the runner numbers it (0 = tool_call counts
     * calls itself: a model's session). */
    int step_index, step_total, attempt;
    int n_calls;
    int n_blocked;          /* calls refused as blocked (fovea_session_blocked) */
    char last_blocked[256]; /* the last one's message */
    char step_desc[200];
    char step_action[32];    /* the task's word for the tool ("click"), "" = the tool's name */
    /* What the call in progress grounded on: the overlay draws its epoch.
     * A tool that grounds uses &s->call_g (tool_call releases it). */
    agent__grounded call_g;
    struct agent__nav *nav;  /* agent/session/tools_nav.c: pin, visits, init scripts, network watchers */
    struct agent_outline_sig *ol_prev; /* tools_outline.c: the last outline's regions */
};

/* Sets r's failure: reason name (first one wins over "ok"/"") and a
 * one-line outcome. */
__attribute__((format(printf, 3, 4))) void agent__failf(agent_step_record *r, const char *reason,
                                                        const char *fmt, ...);

/* Marks r successful with a one-line outcome. */
__attribute__((format(printf, 2, 3))) void agent__okf(agent_step_record *r, const char *fmt, ...);

/* 1 (and r marked "interrupted") once a stop signal arrived. */
int agent__stopped(agent_step_record *r);

/* 0 once the page crashed, closed or stopped answering. */
int agent__page_ok(fovea_session *s);

/* Settling around a page-changing action: begin registers the navigation
 * waiters before the action, end waits for a navigation it started (one
 * round trip when none) and schedules the next vision pass. */
typedef cascade_settle agent__settle;
void agent__watch_begin(fovea_session *s, agent__settle *w);
void agent__watch_end(fovea_session *s, agent__settle *w, agent_step_record *r,
                      const char *subgoal);

/* The [Vn] of the smallest vision box of e whose centre lies in rect, 0 when
 * none (or e is NULL). Borrows both; the session's thread; no errors. */
int agent__mark_of(const perc_epoch *e, base_rect rect);

/* The tool data of an ambiguous grounding: {"candidates":[{name, role, mark
 * "[Vn]" when a vision box of e lies on it, rect, point}..]} in the
 * snapper's reading order. The caller owns the result: NULL on allocation
 * failure, or members missing (tool_call drops data built while an
 * allocation failed). The session's thread. */
cJSON *agent__ambiguous_json(const perc_snap *sn, const perc_epoch *e);

/* What a verb asks of a toggle (issue 21, class 5): "check"/"tick" 1,
 * "uncheck"/"untick" 0, "toggle" 2, anything else (NULL too) -1. Pure. */
int agent__toggle_want(const char *verb);

/* Gate, box, snap for target t of step st (its timeout, critical). With a
 * toggle verb (agent__toggle_want >= 0) a target named by the text beside a
 * checkbox, radio or switch grounds on that control (the one on the text's
 * row, nearest it, no other control between them). do_snap
 * 0 stops after the box. Returns 1 with *g filled, 0 with r's failure set
 * (g may still hold the epoch for the overlay). */
int agent__ground(fovea_session *s, const agent_step *st, const agent_target *t,
                  snap_intent_kind kind, int do_snap, agent_step_record *r, agent__grounded *g);

/* Grounds the target a tool's argument `key` names ("target", "within", ...: a
 * label, "[V4]", "[V4] label" or {label, index}) the way click_at does: the
 * step keys (timeout_ms, retries, critical, verb) read by the task parser's
 * rules, then gate, box and (do_snap) snap into s->call_g, which the overlay
 * draws and tool_call releases. timeout_ms > 0 replaces the call's; verb (NULL
 * = any intent) is the default intent verb when the call gives none. rec gets
 * the target's label and index. *st (may be NULL) keeps the parsed step
 * (agent_step_fini after; a cascade target's label points into it). Returns 1,
 * or 0 with rec's failure set (bad_args for a missing or malformed target). */
int agent__ground_arg(fovea_session *s, const cJSON *args, const char *key, const char *tool,
                      const char *verb, int timeout_ms, int do_snap, agent_step_record *rec,
                      agent_step *st);

/* The cascade target of a grounded element. */
cascade_target agent__target_of(const agent__grounded *g, const char *label);

/* Copies a cascade call's outcome into r (tiers, alternatives, path, reason);
 * a transport error with no tier tried becomes an "error" failure. Returns
 * the call's success. */
int agent__cascade_outcome(fovea_session *s, agent_step_record *r, base_err e,
                           const cascade_result *c, const char *err);

/* The rendered text of the page and its frames, one line per line. */
base_err agent__page_text(fovea_session *s, base_buf *out, char *err);

/* read_search.js (dom_search's script) with query q in the top document
 * (its shadow roots and same-origin frames) and then each cross-origin
 * frame through its session, until max matches: appends to matches a copy
 * of each (with "index", 1-based, and for a cross-origin frame "frame_url"
 * and "box_in_frame": true) and sets *total to all matches counted. A
 * cross-origin frame that fails (gone meanwhile) is skipped. Errors:
 * BASE_EINVAL when the page refused q's selector ("not a valid selector"),
 * the top document's evaluate error (err set), BASE_ENOMEM. The caller
 * words the failure (agent/session/tools_read.c). */
base_err agent__search_frames(fovea_session *s, const cJSON *q, int max, cJSON *matches,
                              int *total, char *err);

/* Moves the hand, prefetcher and fingerprint state to np (which has the
 * fingerprint observer installed). On failure nothing changes. */
base_err agent__move_to(fovea_session *s, cdp_page *np, char *err);

/* Arguments, once tool_args_check passed: the string (NULL when absent),
 * the integer / number / boolean (dflt when absent). */
const char *agent__arg_str(const cJSON *args, const char *key);
int agent__arg_int(const cJSON *args, const char *key, int dflt);
double agent__arg_num(const cJSON *args, const char *key, double dflt);
int agent__arg_bool(const cJSON *args, const char *key, int dflt);

/* ---- the rest of the session's shared helpers (agent/session/session.c, ground.c,
 * faults.c); all on the session's thread ---------------------------------- */

/* snprintf(dst, n, "%s", src or ""). */
void agent__copy(char *dst, size_t n, const char *src);

/* A vision pass that must end by deadline_ms (base_monotime_ms; 0 = none). */
void agent__schedule_until(fovea_session *s, const char *subgoal, double deadline_ms);


/* Where the page the epoch's screenshot shows has secrets (for its overlay). */
void agent__shot_masks(fovea_session *s, const perc_epoch *ep);

/* "[V3] label" of b with secrets masked before the cut. */
void agent__mark_name_masked(fovea_session *s, const perc_box *b, char *out, size_t n);

/* Remembers a field that received a secret (painted over while the URL stays). */
void agent__add_mask(fovea_session *s, base_rect r);

/* The deadline a pattern match gets: the call's, but at least 250 ms away. */
double agent__re_deadline(double step_deadline);

/* Does text contain st's text (folded) and match its pattern? 1 yes, 0 no,
 * -1 when the match hit a regex limit (why says which). */
int agent__text_matches(const agent_step *st, const char *text, double deadline, char *why);

/* Moves the session to the popup target_id (followed; closed at the end).
 * 1 on success; r->new_tab says what happened either way. */
int agent__follow_tab(fovea_session *s, const char *target_id, agent_step_record *r);

/* The followed tab closed itself: back to the newest open tab before it,
 * or home. 1 when it moved; r->new_tab says where or why not. */
int agent__back_to_opener(fovea_session *s, agent_step_record *r);

/* After a call: dialogs shown (a mismatch with a dialog step's expectation
 * fails it), a tab the call opened followed, a dead page named as the
 * cause. followable: the call was an input that may open a popup. Returns
 * 1 when the call must not be repeated. agent/session/faults.c. */
int agent__call_faults(fovea_session *s, int followable, agent_step_record *r, int *ok);

/* Every string of r through the session's secrets. */
void agent__scrub_record(fovea_session *s, agent_step_record *r);

/* OUT/steps/NNN.png for r (when the session has a trace and overlays are on). */
void agent__write_overlay(fovea_session *s, agent_step_record *r, const agent__grounded *g);

/* Parses args (a tool's checked arguments) as a step of action a (the task
 * parser's rules: agent/script/task.c). src names the call in messages. *out's
 * strings are the caller's (agent_step_fini). Errors: BASE_EPROTO naming the
 * argument, BASE_ENOMEM. Any thread. */
base_err agent__step_from_args(const cJSON *args, agent_action a, const char *src,
                               agent_step *out, char *err);


/* The task-file action a registry tool implements (AGENT_CLICK for
 * "click_at"), or -1 for tools without one. agent/session/tool.c; any thread. */
int agent__tool_action(const char *tool_name);

/* The tool groups (tool.c concatenates them in this order); each array
 * ends with an entry whose name is NULL. */
/* The JSON Schema of a "target" argument: a label, "[V4]", "[V4] label" or
 * {label, index} (the same text as tools_act.c's). */
#define AGENT__TARGET_SCHEMA                                                                       \
    "{\"description\": \"the element: its label, \\\"[V4]\\\", \\\"[V4] label\\\" or "             \
    "{label, index}\", \"oneOf\": [{\"type\": \"string\", \"minLength\": 1}, {\"type\": "          \
    "\"object\", \"properties\": {\"label\": {\"type\": \"string\"}, \"index\": {\"type\": "       \
    "[\"integer\", \"string\"], \"minimum\": 1, \"maximum\": 99999}}}]}"

/* The rendered text and aria-label of the element g grounded, read again from
 * the page now (assert_text on a target polls with it). A base_malloc'd string
 * the caller frees; NULL when the element is gone or the page does not answer.
 * agent/session/tools_read.c. */
char *agent__target_text(fovea_session *s, const agent__grounded *g);

extern const tool_def agent__tools_act[];     /* agent/session/tools_act.c: click_at, type_at, ... */
extern const tool_def agent__tools_input[];   /* agent/session/tools_input.c: send_keys, hover, ... */
extern const tool_def agent__tools_nav[];     /* agent/session/tools_nav.c: navigate, tabs, waits, ... */

/* agent/session/tools_nav.c's session state (fovea_session.nav). attach starts
 * counting the page's requests (call once the session is on its page);
 * free releases it, BEFORE the session closes its tabs; add_script
 * remembers an init script for every tab opened later and, when
 * on_current_pages, adds it to the open tabs now (Errors: BASE_ETOOBIG past
 * 8 scripts, BASE_ENOMEM, cdp errors). */
typedef struct agent__nav agent__nav;
void agent__nav_attach(fovea_session *s);
/* A tab the session follows (a popup): the init scripts go into it for its
 * later page loads, and its requests are counted from now on. */
void agent__nav_tab_added(fovea_session *s, cdp_page *p);
void agent__nav_free(fovea_session *s);
extern const tool_def agent__tools_read[];    /* agent/session/tools_read.c: extract_markdown, dom_search, ... */
extern const tool_def agent__tools_outline[]; /* agent/session/tools_outline.c: get_outline, focus_region, ... */

/* Frees the session's outline state (agent/session/tools_outline.c). */
void agent__outline_forget(fovea_session *s);

#endif
