/* agent/task.h: scripted tasks — a URL, a viewport and a list of steps.
 *
 * A task file is JSON:
 *
 *     {"name": "demo", "url": "/index.html",
 *      "viewport": {"width": 1280, "height": 800, "scale": 1},
 *      "steps": [
 *        {"action": "click", "target": "Accept cookies"},
 *        {"action": "click", "target": {"label": "Stops", "index": 4}, "verb": "open"},
 *        {"action": "type", "target": "Password", "text": "hunter2", "password": true},
 *        {"action": "assert_text", "text": "3 results", "timeout_ms": 4000}]}
 *
 * Every step names its target the way an agent would: by label, by vision
 * index ([V4]) or both. The parser checks every field and its error names the
 * step and the field ("demo.json: steps[3].target: expected a string or
 * {label, index}"), so a broken task never reaches a browser. The text must
 * be exactly one JSON object in UTF-8 (a leading byte order mark is
 * skipped); syntax errors name the line, the column and what was expected,
 * and a key given twice in one object is an error. Patterns are PCRE2
 * (base/regex.h), not POSIX ERE as before, compiled once at load with
 * bounded size and matching. Parsing is pure (no I/O except agent_task_load reading the file) and reentrant.
 */
#ifndef FOVEA_AGENT_TASK_H
#define FOVEA_AGENT_TASK_H

#include <stddef.h>

#include "base/err.h"
#include "base/regex.h"

typedef enum agent_action {
    AGENT_CLICK = 0,   /* click target (verb picks the snap intent) */
    AGENT_TYPE,        /* click target, then type text */
    AGENT_SELECT,      /* open target (a dropdown), then choose the option `value` */
    AGENT_SCROLL,      /* scroll target into view, or the page by dy */
    AGENT_DRAG,        /* drag target to `to` (a target or point) or to numeric `value` */
    AGENT_WAIT_FOR,    /* wait until target is seen or `text` is on the page */
    AGENT_ASSERT_TEXT, /* text (or pattern) is on the page, or in target's text */
    AGENT_EXTRACT,     /* read lines of target (or of the page) matching pattern */
    AGENT_DIALOG,      /* how to answer the NEXT JavaScript dialog: accept, prompt_text, expect */
    AGENT_TOOL,        /* any other tool of the registry (agent/tool.h): step->tool, step->args */
    AGENT_ACTION_COUNT
} agent_action;

/* Lower-case action name ("click"); "?" for out-of-range values. */
const char *agent_action_name(agent_action a);

/* A target as an agent names it. label NULL = none; index 0 = none. */
typedef struct agent_target {
    char *label; /* owned */
    int index;   /* n of [Vn], 1-based */
} agent_target;

/* 1 when the target names something (a label or an index). */
int agent_target_set(const agent_target *t);

typedef struct agent_step {
    agent_action action;
    agent_target target;
    char *verb;       /* intent verb ("open", "select", "press"...), NULL = by action */
    char *text;       /* type: text to type; wait_for/assert_text: text to find */
    char *value;      /* select: the option label; drag: numeric value as text */
    char *pattern;    /* assert_text/extract: a PCRE2 regex (base/regex.h; was POSIX ERE) */
    base_regex *re;   /* pattern compiled at load (multiline), owned; NULL = none */
    int password;     /* type: text is a secret ("password" or "secret": true), never written */
    int critical;     /* gate uses the hard timeout (a submit, an unseen page) */
    int expect_effect; /* click: "expect_effect": true = 1 (the page must react, else the
                          step fails), false = -1 (no reaction expected: no effect wait),
                          absent = 0 (no reaction is "delivered, no visible effect", ok) */
    agent_target to;  /* drag: destination element */
    int have_to_pt;   /* drag: `to` was {x, y} in CSS px */
    float to_x, to_y;
    double num_value; /* drag: value parsed from `value` when have_num_value */
    int have_num_value;
    int dy;           /* scroll: CSS px (default 600 when no target) */
    int timeout_ms;   /* per attempt; default 5000 */
    int retries;      /* extra attempts after a failure; default 1 */
    char *note;       /* free text shown in the report */
    /* dialog: answer the next JavaScript dialog with OK (accept 1) or Cancel
     * (0), a prompt with prompt_text; expect = text the dialog must show
     * (otherwise it gets the default answer and that step fails). */
    int accept;
    char *prompt_text;
    char *expect;
    /* Every step is a tool call: tool is the tool's name in the registry
     * ("click_at" for action "click"), args the step's object without
     * "action" (owned), already checked against the tool's schema. */
    char *tool;
    struct cJSON *args;
    char *save_as;    /* the value the tool returns is kept as variable ${save_as} */
} agent_step;

typedef struct agent_task {
    char *name;        /* "name" or the file's base name */
    char *url;         /* absolute, or a path relative to a served --site */
    char *init_script; /* "init_script": JS run before the page's own scripts on every page
                          load (inline; a value naming a .js file is replaced by the file's
                          text by agent_task_load), NULL = none */
    int width, height; /* viewport CSS px, default 1280x800 */
    double scale;      /* device scale factor, default 1 */
    agent_step *steps;
    int n_steps;
} agent_task;

#define AGENT_TASK_MAX_STEPS 1000
#define AGENT_TASK_MAX_BYTES (4u << 20)
#define AGENT_TEXT_MAX 4096 /* longest text/label/pattern accepted */

/* Purpose: parses a task from JSON text (len bytes, no NUL needed). `src`
 * names the input in messages (e.g. "demo.json"; NULL = "task").
 * Ownership: *out is the caller's on success (agent_task_free); untouched on
 * failure. Thread: any. Errors: BASE_EPROTO with "SRC: steps[3].target:
 * expected a string or {label, index}", "SRC: invalid JSON near line L,
 * column C: expected ..., got ...", "SRC: steps[0].target: duplicated key"
 * or "SRC: steps[2].pattern: bad regular expression ..."), BASE_ETOOBIG (input or step count over the caps), BASE_ENOMEM. */
base_err agent_task_parse(const char *json, size_t len, const char *src, agent_task **out,
                          char *err);

/* Purpose: reads and parses a task file; messages use the file's base name.
 * Errors: BASE_EIO (unreadable file, message names the path), as parse. */
base_err agent_task_load(const char *path, agent_task **out, char *err);

/* Purpose: parses a tool's arguments (args: the step's object without
 * "action", borrowed) as a step of action a, by the same rules as task
 * files; src names the call in messages ("click_at: text: expected a
 * string"). Ownership: *out is the caller's (agent_step_fini), zeroed
 * first. Thread: any. Errors: BASE_EPROTO naming the argument, BASE_ENOMEM. */
base_err agent_step_from_args(const struct cJSON *args, agent_action a, const char *src,
                              agent_step *out, char *err);

/* Frees what a step owns (not s itself). NULL: no-op. Any thread. */
void agent_step_fini(agent_step *s);

/* Frees a task (NULL: no-op). Any thread. */
void agent_task_free(agent_task *t);

/* Purpose: one-line description of a step for progress lines and captions,
 * e.g. "click 'Accept cookies'", "type 'Email' <- 'ann@x.org'", "type
 * 'Password' <- ********". Passwords are always masked. Writes at most n
 * bytes (NUL-terminated). Thread: any. */
void agent_step_describe(const agent_step *s, char *buf, size_t n);

#endif
