/* agent/script/task.h: scripted tasks — a URL, a viewport and a list of steps.
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
 * bounded size and matching. Parsing is pure (no I/O except agent_task_load
 * reading the file) and reentrant: any thread.
 */
#ifndef FOVEA_AGENT_SCRIPT_TASK_H
#define FOVEA_AGENT_SCRIPT_TASK_H

#include <stddef.h>

#include "agent/session/step.h"
#include "base/err.h"

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

/* Parses a task from JSON text (len bytes, no NUL needed). `src` names the
 * input in messages (e.g. "demo.json"; NULL = "task"). *out is the caller's
 * on success (agent_task_free); untouched on failure. Any thread. Errors:
 * BASE_EPROTO with "SRC: steps[3].target: expected a string or {label,
 * index}", "SRC: invalid JSON near line L, column C: expected ..., got ...",
 * "SRC: steps[0].target: duplicated key" or "SRC: steps[2].pattern: bad
 * regular expression ..."), BASE_ETOOBIG (input or step count over the caps),
 * BASE_ENOMEM. */
base_err agent_task_parse(const char *json, size_t len, const char *src, agent_task **out,
                          char *err);

/* Reads and parses a task file; messages use the file's base name. *out is
 * the caller's on success (agent_task_free); untouched on failure. Any
 * thread. Errors: BASE_EIO (unreadable file, message names the path), as
 * parse. */
base_err agent_task_load(const char *path, agent_task **out, char *err);

/* Frees a task (NULL: no-op). Any thread. */
void agent_task_free(agent_task *t);

#endif
