/* agent/plan/answer.h: the task's final answer — checked before a run may end
 * done, and written to OUT/answer.json when the user gave its shape
 * (`fovea run "TASK" --answer-schema FILE`).
 *
 * Both planners (goal.c's Planner, andor_ops.c's answer operator) call
 * agent_answer_check on the answer they are about to end the run with; a
 * refused answer is quoted back to the model ("Your final answer was not
 * accepted: ...") up to AGENT_ANSWER_RETRIES more times, then the run ends
 * as an error naming the last reason. The check:
 *   1. with a schema: the answer validates (base/json_schema.h, objects open
 *      as JSON Schema says). An answer the model wrote as a string holding
 *      JSON (code fences and blanks around it are fine) is read as that
 *      JSON, since models often write it so;
 *   2. the meaningful-output check of seed 003 (agent_text_meaningful,
 *      agent/session/outline.h): not empty, not null-like, not an empty JSON
 *      shell, not boilerplate;
 *   3. with a schema, seed 003's partial-extraction rule: no null and no
 *      placeholder string ("", "null", "undefined", "n/a", "TBD" ...) at
 *      any depth, unless the schema allows it right there (a "null" type, an
 *      enum or const holding the value): such a field is a value the page
 *      did not give, and "any null = retry".
 */
#ifndef FOVEA_AGENT_PLAN_ANSWER_H
#define FOVEA_AGENT_PLAN_ANSWER_H

#include <cjson/cJSON.h>

#include "agent/session/secrets.h"
#include "base/err.h"

#define AGENT_ANSWER_RETRIES 2                /* extra asks after a refused final answer */
#define AGENT_ANSWER_SCHEMA_MAX (256u << 10)  /* bytes of an --answer-schema file */
#define AGENT_ANSWER_DEPTH_MAX 64             /* nesting the partial-value walk follows */

/* Reads the JSON Schema file path (at most AGENT_ANSWER_SCHEMA_MAX bytes),
 * parses it and checks it is a schema fovea can enforce in full
 * (base_json_schema_valid). *out is the caller's (cJSON_Delete); untouched
 * on failure. Any thread. Errors: BASE_EIO (cannot read: err names the file
 * and why), BASE_EINVAL (not JSON: err gives the byte offset; not a schema:
 * err names the place and the keyword), BASE_ENOMEM. */
base_err agent_answer_schema_load(const char *path, cJSON **out, char *err);

/* Checks a final answer (see the file comment). schema NULL: only the
 * meaningful-output check, on the answer's text. answer is the value the
 * model gave (a string or any JSON value; NULL = none). On success *value
 * (may be NULL when not wanted) is the accepted answer as JSON, the
 * caller's (cJSON_Delete). Borrows the rest. Any thread; pure. Errors:
 * BASE_EINVAL with the reason in why (BASE_ERRBUF_SIZE bytes), worded for
 * the model to act on ("the answer does not match the answer schema:
 * answer: 'price' must be a number"); BASE_ENOMEM. */
base_err agent_answer_check(const cJSON *schema, const cJSON *answer, cJSON **value, char *why);

/* The instructions that tell a model the answer's shape: "ANSWER SCHEMA:
 * ... <the schema as compact JSON>". A base_malloc'd string the caller
 * frees; NULL on ENOMEM. Any thread. */
char *agent_answer_schema_prompt(const cJSON *schema);

/* Writes value, pretty-printed and with every secret of sec masked, to
 * out_dir/answer.json atomically (base_write_file: temp, fsync, rename);
 * a failed write is recorded as lost output (base_out_lost), which fails
 * the run. out_dir NULL: nothing written, BASE_OK. Borrows everything. On
 * the run's thread. Errors: BASE_EIO (the write; err names the file),
 * BASE_ENOMEM. */
base_err agent_answer_write(const char *out_dir, const cJSON *value, const agent_secrets *sec,
                            char *err);

#endif
