/* agent/session/step.h: a step — one tool call as an agent names it.
 *
 * A step is a tool of the registry (agent/session/tool.h) with its
 * arguments and the keys every call takes (timeout_ms, retries, critical,
 * note, save_as). Targets are named the way an agent names them: by label,
 * by vision index ([V4]) or both. The nine actions the runner knew before
 * the registry (click, type, select, scroll, drag, wait_for, assert_text,
 * extract, dialog) keep their own field rules. A task file's steps and a
 * model's tool calls are parsed by the same rules (agent/session/step.c);
 * the task file around them is agent/script/task.h.
 *
 * Steps are plain data: parsing and freeing are pure and run on any thread;
 * a parse error is a base_err with err naming the step and the field.
 */
#ifndef FOVEA_AGENT_SESSION_STEP_H
#define FOVEA_AGENT_SESSION_STEP_H

#include <stdarg.h>
#include <stddef.h>

#include "base/err.h"
#include "base/regex.h"

struct cJSON;

#define AGENT_TEXT_MAX 4096 /* longest text/label/pattern accepted */

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
    AGENT_TOOL,        /* any other tool of the registry (agent/session/tool.h): step->tool, step->args */
    AGENT_ACTION_COUNT
} agent_action;

/* Lower-case action name ("click"); "?" for out-of-range values. A static
 * string. Pure; any thread. */
const char *agent_action_name(agent_action a);

/* A target as an agent names it. label NULL = none; index 0 = none. */
typedef struct agent_target {
    char *label; /* owned */
    int index;   /* n of [Vn], 1-based */
} agent_target;

/* 1 when the target names something (a label or an index), else 0. Pure;
 * any thread. */
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

/* Writes a task-file error into err, the way every step and task message
 * reads: "SRC: steps[INDEX].FIELD: MESSAGE" (index >= 0) or "SRC: FIELD:
 * MESSAGE" (index < 0), the message formatted from fmt and ap (cut at 223
 * bytes). Returns BASE_EPROTO. Any thread; err may be NULL. */
base_err agent_step_verrf(char *err, const char *src, int index, const char *field,
                          const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* Parses steps[index] of a task (j: the step's object, with "action" naming a
 * tool or an alias of one) by the task file's rules; src names the input in
 * messages ("demo.json: steps[3].target: expected a string or {label,
 * index}"). *out is the caller's (agent_step_fini, also after a failure: a
 * partial step is freed the same way), zeroed first. Any thread. Errors:
 * BASE_EPROTO naming the field, BASE_ENOMEM. */
base_err agent_step_parse(const struct cJSON *j, const char *src, int index, agent_step *out,
                          char *err);

/* Parses a tool's arguments (args: the step's object without "action",
 * borrowed) as a step of action a, by the same rules as task files; src names
 * the call in messages ("click_at: text: expected a string"). *out is the
 * caller's (agent_step_fini), zeroed first. Any thread. Errors: BASE_EPROTO
 * naming the argument, BASE_ENOMEM. */
base_err agent_step_from_args(const struct cJSON *args, agent_action a, const char *src,
                              agent_step *out, char *err);

/* Frees what a step owns (not s itself). NULL: no-op. Any thread. */
void agent_step_fini(agent_step *s);

/* One-line description of a step for progress lines and captions, e.g. "click
 * 'Accept cookies'", "type 'Email' <- 'ann@x.org'", "type 'Password' <-
 * ********". Passwords are always masked. Writes at most n bytes
 * (NUL-terminated). Any thread. */
void agent_step_describe(const agent_step *s, char *buf, size_t n);

#endif
