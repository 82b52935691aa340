/* cascade/cascade.h: the hand — three-tier click, typing, drag, per-domain
 * learnings (seed 002 §6.3–6.4, Algorithms 5 and 6).
 *
 * A cascade_hand belongs to one page and tracks its cursor position and the
 * dead-click guard. All functions: the thread that owns the hand (not the cdp
 * service thread).
 */
#ifndef FOVEA_CASCADE_CASCADE_H
#define FOVEA_CASCADE_CASCADE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"

typedef struct cascade_hand cascade_hand;

typedef struct cascade_opts {
    int humanize;          /* 1 (default): Bezier path, hesitation, press/release timing */
    int allow_untrusted;   /* tier 3 (el.click()) allowed; default 0 */
    uint64_t seed;         /* motion/typing seed */
    int wait_ms;           /* tier 2 wait for the element; default 5000 */
    const char *learnings_path; /* per-domain learnings file, NULL = none */
    /* Added by the hand (compatible: set by cascade_opts_init). */
    int effect_ms;         /* how long a tier waits for the page to react; default 1000 */
    int settle_ms;         /* bound on waiting for a scrolled element to stop; default 500 */
    int typos;             /* cascade_type may simulate typos (never for passwords); default 1 */
} cascade_opts;

/* Fills o with the defaults above (humanize on, untrusted off, seed 0, wait
 * 5000 ms, no learnings file). Caller-owned; any thread; cannot fail. */
void cascade_opts_init(cascade_opts *o);

/* A hand for page (borrowed; must outlive the hand) with options o (NULL:
 * defaults; copied, the learnings path too). Loads the learnings file when
 * o->learnings_path is set (a missing file is an empty store). *out is the
 * caller's; free with cascade_hand_destroy. Errors: BASE_EINVAL (NULL
 * page/out), BASE_EDECODE (learnings file is not valid learnings JSON; err
 * names it), BASE_EIO, BASE_ENOMEM. */
base_err cascade_hand_create(cdp_page *page, const cascade_opts *o, cascade_hand **out, char *err);
/* Frees the hand (not the page). NULL is a no-op. */
void cascade_hand_destroy(cascade_hand *h);
/* Last known cursor position (top-viewport CSS px). */
base_point cascade_hand_cursor(const cascade_hand *h);

/* What to act on. Either an element (xpath within frame_id, as perc_snap
 * gives it) with the point to press, or a bare point. */
typedef struct cascade_target {
    const char *xpath;    /* NULL/"" = bare point */
    const char *frame_id; /* NULL/"" = top document */
    base_point pt;        /* top-viewport CSS px; used when set (have_pt) */
    int have_pt;
    const char *label;    /* for messages */
    base_point origin;    /* frame_id's viewport origin in top-viewport px, when the
                             caller knows it (perc_snap.frame_offset); saves two
                             round trips per frame level */
    int have_origin;
    /* What the caller expects of the page after a delivered press (added by
     * the hand; 0 when the target is zeroed): 0 = wait up to effect_ms, and a
     * press delivered without a visible effect is a success with reason
     * CASCADE_NO_VISIBLE_EFFECT; 1 = an effect is required (delivered without
     * one: CASCADE_NO_EFFECT, never pressed again); -1 = no effect expected,
     * no wait at all (the verdict is the delivery alone). */
    int expect_effect;
} cascade_target;

typedef enum cascade_reason {
    CASCADE_OK = 0,
    CASCADE_NOT_FOUND,
    CASCADE_DISABLED,
    CASCADE_INVISIBLE,
    CASCADE_COVERED,
    CASCADE_AMBIGUOUS,
    CASCADE_NO_EFFECT,     /* every tier ran, nothing changed */
    CASCADE_DEAD_CLICK,    /* refused: same target twice without mutation */
    CASCADE_BOT_PROTECTED, /* tier 3 refused on this domain */
    CASCADE_ERROR,         /* transport or page error (see message) */
    /* Success (out->success 1): the press was delivered to the target (its
     * listeners received it) and the page showed no effect within effect_ms
     * (a listener that only logs or counts). Not repeated by any tier. */
    CASCADE_NO_VISIBLE_EFFECT,
} cascade_reason;

const char *cascade_reason_name(cascade_reason r);

typedef struct cascade_try {
    int tier;          /* 1, 2, 3 */
    int success;
    double ms;
    char outcome[96];  /* "mutation", "url changed", "no effect", "covered by ..." */
} cascade_try;

/* What the page did after an action: a bit set in cascade_result.effects. */
enum {
    CASCADE_FX_MUTATION = 1 << 0,  /* DOM mutation in the document (light DOM) */
    CASCADE_FX_URL = 1 << 1,       /* the URL changed (navigation or history) */
    CASCADE_FX_VALUE = 1 << 2,     /* an input's value changed */
    CASCADE_FX_CHECKED = 1 << 3,   /* checked / selected / aria-pressed / aria-checked changed */
    CASCADE_FX_FOCUS = 1 << 4,     /* focus moved */
    CASCADE_FX_SELECTION = 1 << 5, /* the text selection changed */
    CASCADE_FX_SHADOW = 1 << 6,    /* a mutation inside a shadow root */
    CASCADE_FX_REQUEST = 1 << 7,   /* the page sent a network request */
    CASCADE_FX_NEW_TAB = 1 << 8,   /* a new tab/popup opened (new_target_id) */
    CASCADE_FX_DIALOG = 1 << 9,    /* a JavaScript dialog opened (dialog_*) */
    CASCADE_FX_SHOWN = 1 << 10,    /* a hover changed the rendered text (a CSS :hover flyout) */
};

/* The name of one effect bit (a single CASCADE_FX_* value): "mutation", "url",
 * "value", "checked", "focus", "selection", "shadow", "request", "new_tab",
 * "dialog", "shown" (the page half's names, and what the tool layer and fovea
 * snap print); NULL for anything else. Static string. Any thread. Errors:
 * none. */
const char *cascade_effect_name(unsigned bit);

typedef struct cascade_result {
    int success;
    cascade_reason reason;
    unsigned effects;          /* CASCADE_FX_* observed after the delivered action */
    char new_target_id[64];    /* CASCADE_FX_NEW_TAB: the new tab's target id */
    char dialog_type[16];      /* CASCADE_FX_DIALOG: "alert", "confirm", "prompt", "beforeunload" */
    char dialog_message[256];  /* CASCADE_FX_DIALOG: its text (UTF-8, truncated) */
    /* 1 once the action reached the verified target (a press whose events
     * the target received or, when the page hid them, a press at a point
     * whose hit-target check passed; keys typed into the focused field; a
     * scripted click). A delivered action is never repeated: not by a later
     * tier, and not by a caller's retry (it may have submitted). */
    int delivered;
    cascade_try tried[3];
    int n_tried;
    char message[256];        /* one human line */
    char alternatives[4][160]; /* concrete suggestions, e.g. "close button 'Accept' at (640,700)" */
    int n_alternatives;
    base_point clicked_at;    /* where the press happened */
    base_point path[256];     /* cursor path replayed (for overlays), up to 256 points */
    int n_path;
    double ms;                /* the whole call */
    double motion_ms;         /* of which replaying cursor paths (0 without humanization) */
} cascade_result;

/* The result as JSON, the one form every writer uses (the `fovea snap`
 * protocol's "click", trace.jsonl's "cascade"): {"success", "reason" ("ok" on
 * success, else cascade_reason_name), "message", "tried" [{tier, success, ms,
 * outcome}], "alternatives", "effects" [names], "new_target" (with
 * CASCADE_FX_NEW_TAB), "dialog" {type, message} (with CASCADE_FX_DIALOG),
 * "clicked_at" [x, y] (when a tier ran), "path_points", "ms"}; times rounded
 * to 0.001 ms, points to 0.1 CSS px. Returns a new object the caller frees; r
 * is borrowed. Any thread. NULL for a NULL r or when out of memory (also when
 * any member could not be added: never a partial object). */
cJSON *cascade_result_json(const cascade_result *r);

/* The three actions below share one contract. Act on t and say precisely what
 * happened in *out (always filled, also on failure: reason, message, tiers
 * tried, alternatives). Returns BASE_OK whenever the action ran to a verdict,
 * including a refusal or a failed click (out->success == 0, out->reason says
 * why); an error code only for bad arguments (BASE_EINVAL: NULL
 * hand/target/out, a target with neither xpath nor point, invalid UTF-8 text)
 * and transport failures (BASE_ECLOSED, BASE_ETIMEDOUT, ...; out->reason ==
 * CASCADE_ERROR). t and text are borrowed for the call. On the thread that owns
 * the hand. Nothing typed into a password field is ever logged. */

/* Settling after an action that may navigate (cascade/settle.c). begin
 * registers the main frame's navigation waiters before the action (so a
 * navigation it starts cannot be missed); end waits one round trip to the
 * page, then, only when the action requested or started a navigation of
 * the main frame, until it starts (5 s) and finishes loading (15 s). The
 * struct must stay where it is between the two calls. */
typedef struct cascade_settle {
    cdp_waiter *requested, *started, *stopped;
    char frame[64];
} cascade_settle;

/* Arms w for page's main frame main_frame (CDP frame id). On the thread that
 * owns the page. Errors: none (a waiter that cannot be created is left out:
 * that event is then not waited for). */
void cascade_settle_begin(cdp_page *page, const char *main_frame, cascade_settle *w);

/* Waits as described and frees w's waiters. Returns 0 when no navigation
 * started, 1 when one started and finished, -1 when one started and did not
 * finish loading in time (or a stop signal came). On the thread that owns the
 * page. */
int cascade_settle_end(cdp_page *page, cascade_settle *w);

/* Where a scrolled box stands (cascade_scroll). */
typedef struct cascade_scroll_pos {
    int box;          /* 1: a scroll box under the point; 0: the page */
    double top, max;  /* scroll offset and its maximum, CSS px */
    double view;      /* the box's (or viewport's) visible height */
    char desc[96];    /* "the page", "<div.results> 'Flights'" */
} cascade_scroll_pos;

/* Scrolls what is under `at` (top-viewport CSS px; a scroll box or the page) by
 * dy CSS px (negative = up) the way a person does: the cursor moves there
 * (humanized paths when the hand humanizes), then trusted mouseWheel events in
 * notches of at most 120 px with short pauses, then waits until the position
 * rests (at most ~1 s). page 1 measures the page even when a box is under the
 * point. *before / *after (may be NULL) get the position around the scroll; out
 * gets the cursor path and motion time (its success says whether anything
 * moved). On the thread that owns the hand. Errors: CDP errors (page gone),
 * BASE_EINVAL for a non-finite dy. */
base_err cascade_scroll(cascade_hand *h, base_point at, double dy, int page,
                        cascade_scroll_pos *before, cascade_scroll_pos *after,
                        cascade_result *out, char *err);

/* The position of what a wheel at `at` would scroll, without scrolling. On the
 * thread that owns the hand. Errors: CDP errors. */
base_err cascade_scroll_where(cascade_hand *h, base_point at, int page, cascade_scroll_pos *out,
                              char *err);

/* Algorithm 5: tier 1 (probe, scroll, top-most check, path, press/release),
 * tier 2 (trusted click at the content-quad centre after waiting up to
 * wait_ms), tier 3 (el.click(), only with allow_untrusted on domains not
 * marked bot-protected). A later tier runs only when the earlier press was
 * not delivered to the target (it landed elsewhere, or the element was not
 * found or not visible); a delivered press ends the cascade, with its
 * effects (out->effects) or as CASCADE_NO_VISIBLE_EFFECT (see
 * t->expect_effect). A disabled target is waited for (up to wait_ms) before
 * it is refused. Refuses a repeated click on a target whose last click
 * failed with CASCADE_NO_EFFECT (CASCADE_DEAD_CLICK). */
base_err cascade_click(cascade_hand *h, const cascade_target *t, cascade_result *out, char *err);
/* Focuses t by clicking, selects its content, and types text (after the
 * text-fix pre-pass) with humanized key events; falls back to the native
 * value setter when keys do not reach the field; verifies the final value
 * (out->reason CASCADE_NO_EFFECT and the two values in the message on a
 * mismatch). password: no typos, nothing logged. */
base_err cascade_type(cascade_hand *h, const cascade_target *t, const char *text, int password,
                      cascade_result *out, char *err);
/* Drags from the target (a slider thumb or range input) to `to`, or, for a
 * range input/slider, to value (when have_value). */
base_err cascade_drag(cascade_hand *h, const cascade_target *t, base_point to, double value,
                      int have_value, cascade_result *out, char *err);
/* Chooses the option of the native <select> t whose text (or value) equals
 * option, case and space folded, else the first whose text starts with it;
 * the browser draws a native select's popup outside the page, so this is a
 * scripted choice (tier 3 in tried[]) with the input/change events a user's
 * choice fires, in any frame. No such option: CASCADE_NOT_FOUND with the
 * options as alternatives; disabled: CASCADE_DISABLED. */
base_err cascade_select(cascade_hand *h, const cascade_target *t, const char *option,
                        cascade_result *out, char *err);

/* ---- a form field as the page describes it (cascade/field.c) ---- */
typedef struct cascade_field_info {
    int found;             /* the xpath resolved to a field (or a wrapper holding one) */
    char type[32];         /* the input's type ("password", "text", ...; "" for others) */
    char autocomplete[128]; /* its autocomplete attribute, "" when none */
    char *value;           /* its current value (base_malloc'd, may be NULL) */
    int checked;           /* a toggle's state (checkbox, radio, aria-checked/pressed):
                              1 on, 0 off, -1 not a toggle */
} cascade_field_info;

/* Reads t's field (t->xpath in t->frame_id: the input itself, or the editable
 * element inside a wrapper) without touching it: type, autocomplete, value and
 * a toggle's checked state.
 * The runner uses it to learn that a field holds a secret (type=password,
 * autocomplete=cc-number...) before typing, and what the field made of the
 * typed text afterwards. *out is the caller's (cascade_field_info_fini), always
 * initialised. On the thread that owns the hand. Errors: BASE_EINVAL, transport
 * errors (BASE_ETIMEDOUT...). */
base_err cascade_field_read(cascade_hand *h, const cascade_target *t, cascade_field_info *out,
                            char *err);
/* Frees f->value (the only owned member) and zeroes *f, so a second fini is
 * harmless. f itself stays the caller's. Any thread. Errors: none; NULL is a
 * no-op. */
void cascade_field_info_fini(cascade_field_info *f);

/* ---- per-domain learnings (added by the hand) ----
 * Which tier worked on which domain, and which domains are bot-protected.
 * Stored as JSON {"version":1,"domains":{"host":{"wins":[t1,t2,t3],
 * "fails":n,"bot_protected":bool}}}, rewritten atomically on every change
 * (temp file + fsync + rename + fsync of the directory): after a crash the
 * file is the old or the new version, never a torn one. One store per
 * process and path; not for concurrent writers. */
typedef struct cascade_learnings cascade_learnings;

/* Loads path (a missing file is an empty store). *out is the caller's
 * (cascade_learnings_close). Errors: BASE_EINVAL, BASE_EIO, BASE_EDECODE (not
 * learnings JSON), BASE_ENOMEM. Any one thread. */
base_err cascade_learnings_open(const char *path, cascade_learnings **out, char *err);
/* Frees the store (nothing is written). NULL is a no-op. */
void cascade_learnings_close(cascade_learnings *l);
/* Records the outcome of one click on domain (tier 1..3, or 0 = every tier
 * failed) and saves. Errors: BASE_EINVAL, BASE_EIO (the file keeps its old
 * content), BASE_ENOMEM. */
base_err cascade_learnings_record(cascade_learnings *l, const char *domain, int tier, char *err);
/* Marks (on=1) or clears a domain as bot-protected and saves. Same errors. */
base_err cascade_learnings_set_bot_protected(cascade_learnings *l, const char *domain, int on,
                                             char *err);
/* The tier that worked most often on domain (ties: the lower), 0 if none. */
int cascade_learnings_best_tier(const cascade_learnings *l, const char *domain);
int cascade_learnings_bot_protected(const cascade_learnings *l, const char *domain);
/* Writes the store now (what record/set do after each change). */
base_err cascade_learnings_save(cascade_learnings *l, char *err);
/* The hand's store (borrowed), NULL when it has no learnings file. */
cascade_learnings *cascade_hand_learnings(cascade_hand *h);

/* ---- the text-fix pre-pass of cascade_type (pure; any thread) ----
 * Rewrites text for a field described by its input type, pattern and
 * placeholder (any may be NULL): dates into the field's format ("2026-04-23"
 * into MM/DD/YYYY gives "04/23/2026"; into type=date the ISO value
 * "2026-04-23", which cascade_type enters through the date editor), numbers for type=number ("$1,234.50" ->
 * "1234.50"), currency amounts for fields whose placeholder/pattern shows
 * two decimals, digits only for digit patterns. Writes the result (or a copy
 * of text) into out (cap bytes) and a short note of what changed into note
 * (note_n bytes, may be NULL). Returns 1 when text changed, 0 when not, -1
 * when out is too small (out then holds a copy prefix). */
int cascade_text_fix(const char *text, const char *type, const char *pattern,
                     const char *placeholder, char *out, size_t cap, char *note, size_t note_n);

#endif
