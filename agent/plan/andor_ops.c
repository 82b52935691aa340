/* agent/plan/andor_ops.c: the model-backed operators of the AND/OR planner (the
 * operator half of agent/plan/andor_run.h).
 *
 * Every operator is one chat call (model_llm_chat) with a JSON Schema for
 * its answer. The call is built fresh each time — a system message (a
 * common part that explains the tree, then the operator's own instructions;
 * both byte-stable during a run, so a server's prompt cache can keep them)
 * and one user message holding what the operator needs: the task, the
 * constraints, the progress and notes, the page's outline, the tree around
 * the node, the candidate table's best rows. The seed's operators each see
 * a local view, never a conversation: a plan kept by the framework needs no
 * chat history, and each call costs what its view costs.
 *
 * An answer is checked twice. The client checks the schema; this file then
 * checks what a schema cannot say (check_* below): ids that exist and are
 * the node's own children, a tool that exists with arguments its own schema
 * accepts, scores in 0..1, no child proposed twice. A failed check, or an
 * answer the client refused (EPROTO), is asked again with the error quoted
 * in a new user message, up to AGENT_ANDOR_OP_RETRIES more times; then the
 * operator reports AGENT_ANDOR_OP_FAILED. What ends the run instead
 * (AGENT_ANDOR_OP_STOP): the budget refusing a call (nothing is sent), a
 * stop signal, an endpoint that keeps failing after the client's own
 * retries, the page dying, max steps.
 *
 * Execution is tool_call on the session. Whether the call may have reached
 * the page decides whether the engine may ever run it again, so that is
 * computed generously (delivered, the URL changed, a tab or dialog opened,
 * or a page-changing tool succeeded). A "note" action never touches the
 * page: its text joins the notes. Rollback navigates to the OR node's URL
 * only when the page is somewhere else, and never to a URL with a masked
 * secret in it (it would not be the page that was visited).
 *
 * Secrets: every page-derived text comes through tool_call, which scrubs
 * it; the error lines handed to on_call are scrubbed here too.
 */
#define _POSIX_C_SOURCE 200809L

#include "agent/plan/andor_run.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent/plan/answer.h"
#include "agent/session/permit.h"
#include "agent/session/secrets.h"
#include "agent/session/outline.h"
#include "agent/session/session.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/json_get.h"
#include "base/utf8.h"

/* Characters of the page outline per prompt: each operator's call is built
 * afresh (no earlier read in its context, so nothing may collapse), which is
 * seed 003's budget for a page seen for the first time. */
#define OUTLINE_MAX AGENT_OL_CAP_FIRST
#define NOTE_MAX 600      /* bytes of one note */
#define NOTES_MAX 80      /* notes kept (the oldest go first) */
#define PROGRESS_MAX 4000 /* bytes of the progress summary */
#define DATA_MAX 3000     /* bytes of a tool's output shown to the summarizer */
#define TABLE_ROWS 8      /* rows shown in full where a prompt gets "the whole table" */
#define PROMPT_MAX (1u << 20)

/* ---- prompts (fovea's own words) ------------------------------------------------------------- */

static const char COMMON[] =
    "You help a web agent whose plan is an AND/OR tree kept by the program. An AND node lists "
    "subgoals that must all succeed (in order unless it is marked unordered). An OR node lists "
    "alternative strategies, each with a score from 0 to 1 for its chance of success: only the "
    "best untried one is attempted, the next one only if it fails. An ACTION node is one tool call "
    "on the page, or a note (tool \"note\" with args {\"text\": ...}) that records a fact for the "
    "final answer without touching the page. Statuses: UNVISITED (not started), VISITED (in "
    "progress), SUCCESS, FAIL, PRUNED (given up), DELETED. You are asked for one local decision at "
    "a time. Answer with one JSON object as the schema says and nothing else. Use only what the "
    "task, the notes and the page show: never invent element names, prices or facts.\n\n";

static const char EXPAND[] =
    "Your job now: decide what the node marked \"<-\" in the tree is, and break it down if it is "
    "not a single call.\n- \"action\": the node is done by ONE tool call on the current page, or "
    "it is a fact to record (tool \"note\"). Give \"tool\" and \"args\", the tool's arguments as "
    "a JSON object, for example {\"target\": \"Search\"}. Name elements as the page outline "
    "shows them (their visible name or [Vn]).\n- \"and\": the node needs several steps; give "
    "\"children\" as short imperative subgoals in order (at most 10). Set \"ordered\" to false "
    "only when any order works.\n- \"or\": there are different ways to the node's goal and the "
    "first may fail; give \"children\" as alternatives, each with a \"score\" from 0 to 1, the "
    "most likely first.\nDo not repeat what the tree already holds, stay within the node's own "
    "goal and prefer the fewest steps. A node at the depth limit must be an action. "
    "\"description\" may restate the node more precisely. Justify briefly in "
    "\"reasoning\".\n\nTools, as name(argument: type, optional?: type): purpose\n";

static const char REPAIR[] =
    "Your job now: the node marked \"<-\" failed; repair it. Prune its children that cannot work "
    "any more (ids of its own children that have not succeeded; in an AND node also the failed "
    "ones you give up on, so that they stop blocking it) and add children that were not "
    "tried before: for an OR node new alternatives with a score from 0 to 1, for an AND node the "
    "missing subgoals (they go after the existing ones). Never add again a child the tree already "
    "has, done or pruned. When the node's goal cannot be reached from here, answer \"decision\": "
    "\"prune\". The reason for the repair, when known, is given.";

static const char UPDATE[] =
    "Your job now: an action just ran and the page changed. Review the whole tree against what the "
    "page, the progress and the notes now show: prune open nodes that are no longer needed or "
    "repeat others, and rewrite the description of open nodes whose intent stays but whose details "
    "are now known better. Use only ids in the tree; never the root, nodes that succeeded or were "
    "pruned, nor the node that just ran and the nodes above it. Usually nothing needs changing: "
    "then answer empty lists.";

static const char COMPLETE[] =
    "Your job now: every child of the AND node marked \"<-\" reports success. Decide whether the "
    "node's goal is really met, from its children, the progress and the notes. For the root the "
    "whole task must be done: when it asks for items that meet constraints, each item in the "
    "answer must meet every constraint the task states (and only those), with evidence in the "
    "notes or the candidate table. Answer \"complete\": false when something the goal needs is "
    "missing, and say what in \"reasoning\".";

static const char SUMMARIZE[] =
    "Your job now: an action just ran. Update the agent's memory from the current page.\n- "
    "\"progress\": what has been done towards the task, which requirements are met and which are "
    "open, and what should come next (a few sentences; it replaces the previous progress).\n- "
    "\"observation\": what the current page shows that matters for the task.\n- \"notes\": NEW "
    "facts from this page that the final answer may need (names, prices, values with their units), "
    "one line each; never repeat an earlier note; empty when there is none.";

static const char SUMMARIZE_TABLE[] =
    "\n- \"candidates\": changes to the candidate table from this page only. \"rows\": one per "
    "item seen, named as the page names it, with \"cells\": for a constraint column \"value\" yes, "
    "no or unknown and a short quote as \"evidence\"; for an attribute column the value itself. "
    "\"status\" rejected for an item that fails a constraint, to_explore for one worth opening. "
    "\"new_columns\" only for a constraint or attribute the table lacks. Empty lists when the page "
    "shows no items.";

static const char CONSTRAINTS[] =
    "Your job now: read the task and list what an item must satisfy to be a valid answer. "
    "\"constraints\": each with a short \"name\" and a \"description\" of what satisfies it (name "
    "\"price\", description \"under $500\"). \"attributes\": further facts worth recording to "
    "compare items (\"rating\"). Only what the task states or clearly implies; empty lists when "
    "the task asks for no items.";

static const char ANSWER[] =
    "Your job now: the plan is finished. Write the final answer to the task from the notes, the "
    "progress and the candidate table only: the items or values the task asks for, with the "
    "details it asks for. Say plainly what could not be found. Add no fact that is not in the "
    "notes.";

/* ---- schemas --------------------------------------------------------------------------------- */

#define S_STR "{\"type\": \"string\"}"
#define S_TEXT "{\"type\": \"string\", \"maxLength\": 8000}"
/* A tool's arguments are free-form (each tool has its own schema, checked
 * after the answer's): no "type", which the checker reads as "anything";
 * the answer may give the object, or the object written as a string. */
#define S_ARGS "{\"description\": \"the tool's arguments: a JSON object\"}"
#define S_CHILD                                                                                    \
    "{\"type\": \"object\", \"properties\": {\"description\": {\"type\": \"string\", "             \
    "\"minLength\": 1, \"maxLength\": 1000}, \"score\": {\"type\": \"number\"}}, \"required\": "   \
    "[\"description\"], \"additionalProperties\": false}"

static const char EXPAND_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {\"type\": {\"type\": \"string\", \"enum\": [\"and\", "
    "\"or\", \"action\"]}, \"description\": " S_STR
    ", \"ordered\": {\"type\": \"boolean\"}, \"children\": {\"type\": \"array\", "
    "\"items\": " S_CHILD "}, \"tool\": " S_STR ", \"args\": " S_ARGS ", \"reasoning\": " S_TEXT
    "}, \"required\": [\"type\", \"reasoning\"], \"additionalProperties\": false}";

static const char REPAIR_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {\"decision\": {\"type\": \"string\", \"enum\": "
    "[\"repair\", \"prune\"]}, \"prune\": {\"type\": \"array\", \"items\": " S_STR
    "}, \"add\": {\"type\": \"array\", \"items\": " S_CHILD "}, \"reasoning\": " S_TEXT
    "}, \"required\": [\"decision\", \"reasoning\"], \"additionalProperties\": false}";

static const char UPDATE_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {\"prune\": {\"type\": \"array\", \"items\": " S_STR
    "}, \"rewrite\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": "
    "{\"id\": " S_STR ", \"description\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": "
    "1000}}, \"required\": [\"id\", \"description\"], \"additionalProperties\": "
    "false}}, \"reasoning\": " S_TEXT
    "}, \"required\": [\"prune\", \"rewrite\", \"reasoning\"], \"additionalProperties\": false}";

static const char COMPLETE_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {\"complete\": {\"type\": \"boolean\"}, "
    "\"reasoning\": " S_TEXT
    "}, \"required\": [\"complete\", \"reasoning\"], \"additionalProperties\": false}";

#define S_CANDIDATES                                                                               \
    "{\"type\": \"object\", \"properties\": {\"new_columns\": {\"type\": \"array\", \"items\": "   \
    "{\"type\": \"object\", \"properties\": {\"name\": " S_STR ", \"description\": " S_STR         \
    ", \"constraint\": {\"type\": \"boolean\"}}, \"required\": [\"name\"], "                       \
    "\"additionalProperties\": false}}, \"rows\": {\"type\": \"array\", \"items\": {\"type\": "    \
    "\"object\", \"properties\": {\"name\": " S_STR                                                \
    ", \"status\": {\"type\": \"string\", \"enum\": [\"candidate\", \"to_explore\", "              \
    "\"rejected\"]}, \"note\": " S_STR ", \"cells\": {\"type\": \"array\", \"items\": {\"type\": " \
    "\"object\", \"properties\": {\"column\": " S_STR ", \"value\": " S_STR                        \
    ", \"evidence\": " S_STR                                                                       \
    "}, \"required\": [\"column\", \"value\"], \"additionalProperties\": false}}}, \"required\": " \
    "[\"name\"], \"additionalProperties\": false}}}, \"additionalProperties\": false}"

#define SUMMARIZE_PROPS                                                                            \
    "\"progress\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 8000}, "                \
    "\"observation\": " S_TEXT                                                                     \
    ", \"notes\": {\"type\": \"array\", \"items\": {\"type\": \"string\", \"maxLength\": 2000}}"

static const char SUMMARIZE_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {" SUMMARIZE_PROPS
    "}, \"required\": [\"progress\", \"observation\", \"notes\"], \"additionalProperties\": false}";

static const char SUMMARIZE_TABLE_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {" SUMMARIZE_PROPS ", \"candidates\": " S_CANDIDATES
    "}, \"required\": [\"progress\", \"observation\", \"notes\"], \"additionalProperties\": false}";

#define S_NAMED                                                                                    \
    "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {\"name\": "          \
    "{\"type\": \"string\", \"minLength\": 1}, \"description\": " S_STR                            \
    "}, \"required\": [\"name\"], \"additionalProperties\": false}}"

static const char CONSTRAINTS_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {\"constraints\": " S_NAMED ", \"attributes\": " S_NAMED
    "}, \"required\": [\"constraints\", \"attributes\"], \"additionalProperties\": false}";

static const char ANSWER_SCHEMA[] =
    "{\"type\": \"object\", \"properties\": {\"answer\": {\"type\": \"string\", \"minLength\": 1, "
    "\"maxLength\": 8000}, \"reasoning\": " S_TEXT
    "}, \"required\": [\"answer\", \"reasoning\"], \"additionalProperties\": false}";

/* The operators' names for schema names and messages (the runner owns
 * agent_andor_opkind_name). */
static const char *const op_names[AGENT_ANDOR_OPK_COUNT] = {
    "expand", "repair", "update", "complete", "summarize", "constraints", "answer"};

/* ---- the context ----------------------------------------------------------------------------- */

struct agent_andor_opctx {
    fovea_session *s;
    agent_andor_ops_opts o;
    int keep; /* the candidate table is kept */
    agent_cand_table table;
    char *progress;    /* owned, "" at first */
    char *observation; /* the summarizer's last page summary */
    char **notes;
    int n_notes;
    char *notes_text; /* newline-joined */
    int steps;        /* tool calls of ACTION nodes */
    int page_moves;   /* every tool call incl. rollbacks: the outline cache key */
    char *outline;    /* the last outline read, and at which page_moves */
    int outline_at;
    char outline_url[1024];
    char *shot;      /* the screenshot's data: URL for --screenshot, and at which page_moves */
    int shot_at;
    char *last_action;                    /* what the last ACTION did, for the summarizer */
    uint64_t nonce;                       /* the untrusted-text frame's (permit.h) */
    char *sys[AGENT_ANDOR_OPK_COUNT + 1]; /* system messages; [COUNT] = summarize + table */
    cJSON *schema[AGENT_ANDOR_OPK_COUNT + 1];
    agent_goal_end stop_end;
    char stop_why[512];
    double step_deadline; /* the expansion's step ends here (base_monotime_ms), 0 = none */
    cJSON *answer_value;  /* the last accepted final answer (agent_answer_check's) */
};

/* ---- small helpers --------------------------------------------------------------------------- */

/* A line for a log or the trace: secrets masked, and valid UTF-8 (a
 * precision-cut "%.60s" of a model's text may end inside a character). */
static void safe_line(const agent_andor_opctx *c, char *dst, size_t cap, const char *src)
{
    char tmp[1024];
    agent_secrets_scrub_copy(fovea_session_secrets(c->s), tmp, sizeof tmp, src);
    base_utf8_copy(dst, cap, tmp);
}

/* A copy of a prompt with any cut or invalid UTF-8 replaced (the request
 * body must be valid UTF-8 JSON). NULL on no memory. */
static char *utf8_dup(const char *s)
{
    size_t n = strlen(s);
    char *d = base_malloc(BASE_UTF8_REPAIR_CAP(n));
    if (d)
        base_utf8_repair(s, n, d, BASE_UTF8_REPAIR_CAP(n));
    return d;
}

static agent_andor_op_status stopf(agent_andor_opctx *c, agent_goal_end end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static agent_andor_op_status stopf(agent_andor_opctx *c, agent_goal_end end, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    c->stop_end = end;
    safe_line(c, c->stop_why, sizeof c->stop_why, line);
    return AGENT_ANDOR_OP_STOP;
}

/* *dst = a copy of src cut at max bytes on a character boundary, invalid
 * UTF-8 replaced (the texts go to the trace and andor.json, which stay
 * valid UTF-8). Returns 0 on no memory (*dst untouched). */
static int set_text(char **dst, const char *src, size_t max)
{
    size_t n = strlen(src);
    char *d = base_malloc(max + 1);
    if (!d)
        return 0;
    base_utf8_repair(src, n, d, max + 1);
    base_free(*dst);
    *dst = d;
    return 1;
}

static int node_closed(agent_andor_status s)
{
    return s == AGENT_ANDOR_SUCCESS || s == AGENT_ANDOR_PRUNED || s == AGENT_ANDOR_DELETED;
}

static const char *upper_type(agent_andor_type t)
{
    switch (t) {
    case AGENT_ANDOR_AND:
        return "AND";
    case AGENT_ANDOR_OR:
        return "OR";
    case AGENT_ANDOR_ACTION:
        return "ACTION";
    case AGENT_ANDOR_UNKNOWN:
        break;
    }
    return "not expanded";
}

/* Case-insensitive, space-folding equality of two child descriptions: a
 * model re-proposing "Open the deals page" as "open the Deals page" is
 * proposing the same child. */
static int same_text(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '.')
            a++;
        while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '.')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
        a++;
        b++;
    }
}

/* ---- notes ----------------------------------------------------------------------------------- */

static int notes_join(agent_andor_opctx *c)
{
    base_buf b;
    base_buf_init(&b, NOTES_MAX * (NOTE_MAX + 2) + 16);
    base_err e = BASE_OK;
    for (int i = 0; i < c->n_notes && !e; i++)
        e = base_buf_printf(&b, "%s%s", i ? "\n" : "", c->notes[i]);
    char *s = e ? NULL : base_buf_steal(&b, NULL);
    base_buf_fini(&b);
    if (!s)
        return 0;
    base_free(c->notes_text);
    c->notes_text = s;
    return 1;
}

/* Appends one note (cut at NOTE_MAX; duplicates ignored; the oldest dropped
 * past NOTES_MAX). Returns 0 on no memory. */
static int note_add(agent_andor_opctx *c, const char *text)
{
    while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '-')
        text++;
    if (!*text)
        return 1;
    for (int i = 0; i < c->n_notes; i++)
        if (same_text(c->notes[i], text))
            return 1;
    char *n = NULL;
    if (!set_text(&n, text, NOTE_MAX))
        return 0;
    for (char *p = n; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (c->n_notes == NOTES_MAX) {
        base_free(c->notes[0]);
        memmove(c->notes, c->notes + 1, (size_t)(NOTES_MAX - 1) * sizeof *c->notes);
        c->n_notes--;
    }
    c->notes[c->n_notes++] = n;
    return notes_join(c);
}

/* ---- create / destroy ------------------------------------------------------------------------ */

/* One argument's type in short: "string", "up|down" (an enum), "string or
 * {label, index}" (oneOf), "string[]". */
static base_err sig_type(const cJSON *p, base_buf *b, int depth)
{
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "enum");
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(p, "oneOf");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(p, "type");
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(p, "properties");
    const cJSON *x = NULL;
    base_err e = BASE_OK;
    int k = 0;
    if (depth > 3)
        return base_buf_append_str(b, "...");
    if (cJSON_IsArray(en)) {
        cJSON_ArrayForEach(x, en)
        {
            if (!e && cJSON_IsString(x))
                e = base_buf_printf(b, "%s%s", k++ ? "|" : "", x->valuestring);
            else if (!e && cJSON_IsNumber(x))
                e = base_buf_printf(b, "%s%g", k++ ? "|" : "", x->valuedouble);
        }
        return e;
    }
    if (cJSON_IsArray(one)) {
        cJSON_ArrayForEach(x, one)
        {
            if (!e && k++)
                e = base_buf_append_str(b, " or ");
            if (!e)
                e = sig_type(x, b, depth + 1);
        }
        return e;
    }
    if (cJSON_IsObject(props)) {
        e = base_buf_append_str(b, "{");
        cJSON_ArrayForEach(x, props)
        {
            if (!e)
                e = base_buf_printf(b, "%s%s", k++ ? ", " : "", x->string);
        }
        return e ? e : base_buf_append_str(b, "}");
    }
    if (cJSON_IsString(type) && strcmp(type->valuestring, "array") == 0) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(p, "items");
        e = items ? sig_type(items, b, depth + 1) : base_buf_append_str(b, "any");
        return e ? e : base_buf_append_str(b, "[]");
    }
    if (cJSON_IsString(type))
        return base_buf_append_str(b, type->valuestring);
    cJSON_ArrayForEach(x, type)
    {
        if (!e && cJSON_IsString(x))
            e = base_buf_printf(b, "%s%s", k++ ? "|" : "", x->valuestring);
    }
    return k ? e : base_buf_append_str(b, "any");
}

/* The tools an ACTION may name, for the expansion prompt, one line each as
 * a signature: "- click_at(target: string or {label, index}, verb?:
 * string): Click ...". The full JSON Schemas would be ~20 KB (~5k tokens)
 * in every expansion, most of the expansion's prompt; the signatures are
 * ~7.5 KB and the tool's own schema still checks every answer (a wrong
 * argument is quoted back, see check_call). */
static base_err tools_text(const fovea_session *s, base_buf *b)
{
    base_err e = base_buf_append_str(
        b, "- note(text: string): record a fact for the final answer (the page is not touched)\n");
    for (int i = 0; i < tool_count() && !e; i++) {
        const tool_def *t = tool_at(i);
        if (!t || strcmp(t->name, "done") == 0 || strcmp(t->name, "get_outline") == 0)
            continue;
        if (tool_permit_needed(t) && !(fovea_session_permits(s) & tool_permit_needed(t)))
            continue;
        cJSON *sch = cJSON_Parse(t->schema);
        if (!sch)
            return BASE_ENOMEM; /* the table's schemas are valid JSON (test_tool) */
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(sch, "required");
        const cJSON *p = NULL;
        int k = 0;
        e = base_buf_printf(b, "- %s(", t->name);
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sch, "properties"))
        {
            int required = 0;
            const cJSON *r = NULL;
            cJSON_ArrayForEach(r, req) required |=
                cJSON_IsString(r) && strcmp(r->valuestring, p->string) == 0;
            if (!e)
                e = base_buf_printf(b, "%s%s%s: ", k++ ? ", " : "", p->string, required ? "" : "?");
            if (!e)
                e = sig_type(p, b, 0);
        }
        cJSON_Delete(sch);
        if (!e)
            e = base_buf_printf(b, "): %s\n", t->description);
    }
    return e;
}

base_err agent_andor_ops_create(fovea_session *s, const agent_andor_ops_opts *o,
                                agent_andor_opctx **out, char *err)
{
    if (!s || !o || !o->llm || !out)
        return base_errf(err, BASE_EINVAL, "andor operators: a session and a model client");
    agent_andor_opctx *c = base_calloc(1, sizeof *c);
    if (!c)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    c->s = s;
    c->o = *o;
    if (c->o.top_k <= 0)
        c->o.top_k = AGENT_CAND_TOP_K;
    if (c->o.max_steps <= 0)
        c->o.max_steps = AGENT_GOAL_MAX_STEPS;
    agent_cand_init(&c->table);
    c->outline_at = -1;
    c->shot_at = -1;
    c->notes = base_calloc(NOTES_MAX, sizeof *c->notes);
    c->progress = base_strdup("");
    c->observation = base_strdup("");
    c->notes_text = base_strdup("");
    if (!c->notes || !c->progress || !c->observation || !c->notes_text)
        goto nomem;
    c->nonce = agent_untrusted_nonce();
    static const char *const own[AGENT_ANDOR_OPK_COUNT + 1] = {
        EXPAND, REPAIR, UPDATE, COMPLETE, SUMMARIZE, CONSTRAINTS, ANSWER, SUMMARIZE};
    static const char *const schemas[AGENT_ANDOR_OPK_COUNT + 1] = {
        EXPAND_SCHEMA,    REPAIR_SCHEMA,      UPDATE_SCHEMA, COMPLETE_SCHEMA,
        SUMMARIZE_SCHEMA, CONSTRAINTS_SCHEMA, ANSWER_SCHEMA, SUMMARIZE_TABLE_SCHEMA};
    for (int k = 0; k <= AGENT_ANDOR_OPK_COUNT; k++) {
        base_buf b;
        base_buf_init(&b, PROMPT_MAX);
        base_err e = base_buf_append_str(&b, COMMON);
        if (!e)
            e = base_buf_append_str(&b, own[k]);
        /* How page text is framed, in every operator's prompt. */
        if (!e)
            e = base_buf_printf(&b, "\n%s\n", agent_untrusted_rule);
        if (!e && k == AGENT_ANDOR_OPK_EXPAND)
            e = tools_text(s, &b);
        if (!e && k == AGENT_ANDOR_OPK_COUNT)
            e = base_buf_append_str(&b, SUMMARIZE_TABLE);
        /* The answer's shape (--answer-schema) ends the answer prompt. */
        char *shape = NULL;
        if (!e && k == AGENT_ANDOR_OPK_ANSWER && o->answer_schema) {
            shape = agent_answer_schema_prompt(o->answer_schema);
            e = shape ? base_buf_printf(&b, "%s\n", shape) : BASE_ENOMEM;
        }
        base_free(shape);
        c->sys[k] = e ? NULL : base_buf_steal(&b, NULL);
        base_buf_fini(&b);
        c->schema[k] = cJSON_Parse(schemas[k]);
        if (!c->sys[k] || !c->schema[k])
            goto nomem;
        if (k == AGENT_ANDOR_OPK_ANSWER && o->answer_schema) {
            /* Any JSON value: agent_answer_check holds it to the user's
             * schema and its error is quoted back like the other checks'. */
            cJSON *any = cJSON_CreateObject();
            if (!any || !cJSON_AddStringToObject(any, "description",
                                                 "the final answer: a JSON value matching the "
                                                 "ANSWER SCHEMA")) {
                cJSON_Delete(any);
                goto nomem;
            }
            cJSON_ReplaceItemInObjectCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(c->schema[k], "properties"), "answer", any);
        }
    }
    *out = c;
    return BASE_OK;
nomem:
    agent_andor_ops_destroy(c);
    return base_errf(err, BASE_ENOMEM, "out of memory");
}

void agent_andor_ops_destroy(agent_andor_opctx *c)
{
    if (!c)
        return;
    agent_cand_fini(&c->table);
    for (int i = 0; i < c->n_notes; i++)
        base_free(c->notes[i]);
    base_free(c->notes);
    base_free(c->notes_text);
    base_free(c->progress);
    base_free(c->observation);
    base_free(c->outline);
    base_free(c->shot);
    base_free(c->last_action);
    cJSON_Delete(c->answer_value);
    for (int k = 0; k <= AGENT_ANDOR_OPK_COUNT; k++) {
        base_free(c->sys[k]);
        cJSON_Delete(c->schema[k]);
    }
    base_free(c);
}

const agent_cand_table *agent_andor_ops_table(const agent_andor_opctx *c)
{
    return c && c->keep ? &c->table : NULL;
}

const char *agent_andor_ops_progress(const agent_andor_opctx *c)
{
    return c && c->progress ? c->progress : "";
}

const char *agent_andor_ops_notes(const agent_andor_opctx *c)
{
    return c && c->notes_text ? c->notes_text : "";
}

int agent_andor_ops_steps(const agent_andor_opctx *c)
{
    return c ? c->steps : 0;
}

agent_goal_end agent_andor_ops_stop_reason(const agent_andor_opctx *c, const char **why)
{
    if (why)
        *why = c ? c->stop_why : "";
    return c ? c->stop_end : AGENT_GOAL_ERROR;
}

/* ---- the page -------------------------------------------------------------------------------- */

/* The page's outline (cached until a tool call may have changed the page)
 * into *out (borrowed). Returns OP_STOP when the page is gone. */
static agent_andor_op_status observe(agent_andor_opctx *c, const char **out, const char **url)
{
    if (c->outline && c->outline_at == c->page_moves) {
        *out = c->outline;
        *url = c->outline_url;
        return AGENT_ANDOR_OP_OK;
    }
    fovea_session_page_url(c->s, c->outline_url, sizeof c->outline_url);
    char outline_args[64];
    snprintf(outline_args, sizeof outline_args, "{\"fresh\": true, \"max_chars\": %d}",
             OUTLINE_MAX);
    tool_result r;
    memset(&r, 0, sizeof r);
    /* Reading the page is not a step of the task: no trace line, no
     * overlay, no step number (as the agent loop does). */
    agent_trace *tr = fovea_session_trace(c->s);
    fovea_session_set_trace(c->s, NULL);
    fovea_session_set_step(c->s, &(fovea_step_info){0});
    tool_call(c->s, "get_outline", outline_args, &r);
    fovea_session_set_trace(c->s, tr);
    if (r.reason == TOOL_PAGE_GONE || r.reason == TOOL_NOT_RESPONDING) {
        agent_andor_op_status st = stopf(c, AGENT_GOAL_ERROR, "the page died: %s", r.message);
        tool_result_fini(&r);
        return st;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    char line[400];
    snprintf(line, sizeof line, "(the page could not be read: %s)", r.message);
    /* OUTLINE_MAX characters were asked for; a byte cap of four times that
     * never cuts them, and never cuts a character either. */
    char *text = NULL;
    int ok =
        set_text(&text, r.success && cJSON_IsString(v) ? v->valuestring : line, 4 * OUTLINE_MAX);
    tool_result_fini(&r);
    if (!ok)
        return stopf(c, AGENT_GOAL_ERROR, "out of memory reading the page");
    base_free(c->outline);
    c->outline = text;
    c->outline_at = c->page_moves;
    *out = c->outline;
    *url = c->outline_url;
    return AGENT_ANDOR_OP_OK;
}

/* ---- prompts --------------------------------------------------------------------------------- */

enum {
    CTX_CONSTRAINTS = 1 << 0,
    CTX_MEMORY = 1 << 1,     /* progress, notes, last page summary */
    CTX_CANDIDATES = 1 << 2, /* the best top_k rows */
    CTX_TABLE = 1 << 3,      /* the whole table */
    CTX_PAGE = 1 << 4,
    CTX_LOCAL = 1 << 5, /* the tree around the node */
    CTX_TREE = 1 << 6,  /* the whole tree */
    CTX_NODE = 1 << 7,
    CTX_ACTION = 1 << 8, /* what the last action did */
};

/* The user message of one operator call (base_free), or NULL with *st set
 * (STOP: the page died or no memory). */
static char *build_prompt(agent_andor_opctx *c, const agent_andor_tree *t, int node, unsigned what,
                          const char *extra, agent_andor_op_status *st)
{
    *st = AGENT_ANDOR_OP_OK;
    const char *outline = NULL, *url = NULL;
    if (what & CTX_PAGE) {
        *st = observe(c, &outline, &url);
        if (*st != AGENT_ANDOR_OP_OK)
            return NULL;
    }
    base_buf b;
    base_buf_init(&b, PROMPT_MAX);
    base_err e = base_buf_printf(&b, "TASK: %s\n", agent_andor_task(t));
    if (!e && (what & CTX_CONSTRAINTS) && c->keep && c->table.n_cols > 0) {
        e = base_buf_append_str(&b, "\nCONSTRAINTS AND ATTRIBUTES (from the task):\n");
        for (int i = 0; i < c->table.n_cols && !e; i++) {
            const agent_cand_column *col = &c->table.cols[i];
            e = base_buf_printf(
                &b, "- %s (%s)%s%s\n", col->name, col->constraint ? "constraint" : "attribute",
                col->description ? ": " : "", col->description ? col->description : "");
        }
    }
    if (!e && (what & CTX_MEMORY)) {
        e = base_buf_printf(&b, "\nPROGRESS: %s\n", c->progress[0] ? c->progress : "(none yet)");
        if (!e)
            e = base_buf_printf(&b, "\nNOTES:\n%s%s\n", c->notes_text[0] ? "" : "(none yet)",
                                c->notes_text);
        if (!e && c->observation[0])
            e = base_buf_printf(&b, "\nLAST PAGE SUMMARY: %s\n", c->observation);
    }
    if (!e && (what & (CTX_CANDIDATES | CTX_TABLE)) && c->keep) {
        int k = (what & CTX_TABLE) ? TABLE_ROWS : c->o.top_k;
        char *md = agent_cand_text(&c->table, k);
        if (!md)
            e = BASE_ENOMEM;
        else if (md[0])
            e = base_buf_printf(&b, "\nCANDIDATES (%s %d of %d, best first):\n%s",
                                k < c->table.n_rows ? "the best" : "all",
                                k < c->table.n_rows ? k : c->table.n_rows, c->table.n_rows, md);
        else
            e = base_buf_append_str(&b, "\nCANDIDATES: none recorded yet\n");
        base_free(md);
        /* The rest by name only: enough not to add them twice, without a
         * full table's ~100 KB in every prompt. */
        if (!e && (what & CTX_TABLE) && c->table.n_rows > k) {
            int order[AGENT_CAND_MAX_ROWS];
            int n = agent_cand_top(&c->table, AGENT_CAND_MAX_ROWS, order);
            e = base_buf_append_str(&b, "Also in the table (names only): ");
            for (int i = k; i < n && !e; i++)
                e = base_buf_printf(&b, "%s%s", i > k ? "; " : "", c->table.rows[order[i]].name);
            if (!e)
                e = base_buf_append_str(&b, "\n");
        }
    }
    /* What the page said (an action's result quotes it, the outline is
     * it) is quoted, untrusted content in the run's frame. */
    if (!e && (what & CTX_ACTION) && c->last_action) {
        /* The node's id (the tree's, not the page's) heads the line. */
        char *f = agent_untrusted_wrap(c->nonce, "action result", c->last_action);
        int idn = (int)strcspn(c->last_action, " ");
        e = f ? base_buf_printf(&b, "\nLAST ACTION: %.*s (quoted below)\n%s\n", idn,
                                c->last_action, f)
              : BASE_ENOMEM;
        base_free(f);
    }
    if (!e && (what & (CTX_LOCAL | CTX_TREE))) {
        char *tt = agent_andor_tree_text(t, node, (what & CTX_LOCAL) ? 1 : 0);
        if (!tt)
            e = BASE_ENOMEM;
        else
            e = base_buf_printf(&b, "\n%s:\n%s\n", (what & CTX_LOCAL) ? "LOCAL TREE" : "TREE", tt);
        base_free(tt);
    }
    const agent_andor_node *n = agent_andor_node_at(t, node);
    if (!e && (what & CTX_NODE) && n) {
        const agent_andor_config *cfg = agent_andor_tree_config(t);
        int max_depth = cfg && cfg->max_depth > 0 ? cfg->max_depth : AGENT_ANDOR_MAX_DEPTH;
        e = base_buf_printf(&b, "\nNODE %s [%s, %s] at depth %d%s: %s\n", n->id,
                            upper_type(n->type), agent_andor_status_name(n->status), n->depth,
                            n->depth >= max_depth ? " (the depth limit: it must be an action)" : "",
                            n->description ? n->description : "");
    }
    if (!e && extra && extra[0])
        e = base_buf_printf(&b, "\n%s\n", extra);
    if (!e && outline) {
        char *f = agent_untrusted_wrap(c->nonce, "page outline", outline);
        e = f ? base_buf_printf(&b, "\nPAGE: %s\n[ELEMENTS]\n%s\n[/ELEMENTS]\n", url, f)
              : BASE_ENOMEM;
        base_free(f);
    }
    char *s = e ? NULL : base_buf_steal(&b, NULL);
    base_buf_fini(&b);
    if (!s)
        *st = stopf(c, AGENT_GOAL_ERROR, "out of memory building an operator's prompt");
    return s;
}

/* ---- one operator call ----------------------------------------------------------------------- */

/* --screenshot: turns the user message (msgs' last, its content a string)
 * into [text, image] with the page's screenshot, taken once per page state
 * (page_moves). No picture (a secret is held, the capture failed) leaves
 * the message as it was: the outline alone. BASE_ENOMEM only. */
static base_err attach_shot(agent_andor_opctx *c, cJSON *msgs)
{
    if (c->shot_at != c->page_moves) {
        base_free(c->shot);
        c->shot = fovea_session_shot_data_url(c->s);
        c->shot_at = c->page_moves;
    }
    if (!c->shot)
        return BASE_OK;
    cJSON *m = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
    cJSON *text = m ? cJSON_DetachItemFromObjectCaseSensitive(m, "content") : NULL;
    cJSON *content = cJSON_CreateArray(), *tp = cJSON_CreateObject(), *ip = cJSON_CreateObject();
    cJSON *iu = ip ? cJSON_AddObjectToObject(ip, "image_url") : NULL;
    int ok = text && cJSON_IsString(text) && content && tp && iu &&
             cJSON_AddStringToObject(tp, "type", "text") &&
             cJSON_AddStringToObject(tp, "text", text->valuestring) &&
             cJSON_AddStringToObject(ip, "type", "image_url") &&
             cJSON_AddStringToObject(iu, "url", c->shot);
    if (ok) {
        cJSON_AddItemToArray(content, tp);
        cJSON_AddItemToArray(content, ip);
        cJSON_AddItemToObject(m, "content", content);
        cJSON_Delete(text);
        return BASE_OK;
    }
    cJSON_Delete(content);
    cJSON_Delete(tp);
    cJSON_Delete(ip);
    if (text)
        cJSON_AddItemToObject(m, "content", text);
    return BASE_ENOMEM;
}

/* Checks an answer beyond its schema and fills the operator's output; on
 * failure writes why (BASE_ERRBUF_SIZE) and leaves out empty. BASE_ENOMEM
 * stops the run. */
typedef base_err (*check_fn)(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                             const cJSON *answer, void *out, char *why);

/* shot: the prompt shows the page, so --screenshot adds its picture. */
static agent_andor_op_status op_call(agent_andor_opctx *c, agent_andor_opkind kind, int sys,
                                     const agent_andor_tree *t, int node, const char *prompt,
                                     int shot, check_fn check, void *out)
{
    agent_andor_call call;
    memset(&call, 0, sizeof call);
    call.kind = kind;
    const agent_andor_node *n = node >= 0 ? agent_andor_node_at(t, node) : NULL;
    call.node_id = n ? n->id : "";
    /* Planning decisions go to the planner's model; the summarizer only
     * reads a page, the worker's (often cheaper) model does. */
    model_llm_role role = kind == AGENT_ANDOR_OPK_SUMMARIZE ? MODEL_LLM_WORKER : MODEL_LLM_PLANNER;
    call.model = model_llm_model(c->o.llm, role);
    char why[512] = "";
    agent_andor_op_status st = AGENT_ANDOR_OP_FAILED;
    double t0 = base_monotime_ms();
    /* Usage is read back from the budget when there is one (see below). */
    model_budget_usage before = c->o.budget ? c->o.budget->total : (model_budget_usage){0};
    cJSON *msgs = cJSON_CreateArray();
    char *user = utf8_dup(prompt);
    if (!msgs || !user || model_llm_add_message(msgs, "system", c->sys[sys]) != BASE_OK ||
        model_llm_add_message(msgs, "user", user) != BASE_OK ||
        (c->o.screenshot && shot && attach_shot(c, msgs) != BASE_OK)) {
        base_free(user);
        cJSON_Delete(msgs);
        return stopf(c, AGENT_GOAL_ERROR, "out of memory building the %s request", op_names[kind]);
    }
    base_free(user);
    for (int attempt = 0; attempt <= AGENT_ANDOR_OP_RETRIES; attempt++) {
        if (base_interrupted()) {
            st = stopf(c, AGENT_GOAL_INTERRUPTED, "interrupted by %s",
                       base_signal_name(base_interrupted()));
            snprintf(why, sizeof why, "%s", c->stop_why);
            break;
        }
        model_llm_request rq;
        memset(&rq, 0, sizeof rq);
        rq.role = role;
        rq.messages = msgs;
        rq.schema = c->schema[sys];
        rq.schema_name = op_names[kind];
        rq.temperature = -1;
        rq.budget = c->o.budget;
        rq.deadline_ms = c->o.step_timeout_ms > 0 ? base_monotime_ms() + c->o.step_timeout_ms : 0;
        if (kind == AGENT_ANDOR_OPK_EXPAND && c->step_deadline > 0)
            rq.deadline_ms = c->step_deadline; /* the step's, as the Worker's call in the loop */
        /* The client reports its estimate only with a reply; an attempt it
         * refused still cost about this much. */
        long est = model_budget_estimate(c->o.budget, msgs, NULL, rq.schema);
        model_llm_reply rep;
        memset(&rep, 0, sizeof rep);
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = model_llm_chat(c->o.llm, &rq, &rep, err);
        if (e == BASE_ETOOBIG && strstr(err, "cost_cap_exceeded")) {
            /* Nothing was sent: not an attempt. */
            st = stopf(c, AGENT_GOAL_COST_CAP, "%s", err);
            snprintf(why, sizeof why, "%s", c->stop_why);
            break;
        }
        call.attempts++;
        if (e == BASE_ECANCELED || (e && base_interrupted())) {
            st = stopf(c, AGENT_GOAL_INTERRUPTED, "%s: %s", op_names[kind], err);
            snprintf(why, sizeof why, "%s", c->stop_why);
            break;
        }
        /* EPROTO is the model's answer failing its JSON or schema: asked
         * again below like any bad answer. */
        if (e && e != BASE_EPROTO) {
            /* The endpoint failed after the client's own retries. */
            st = stopf(c, AGENT_GOAL_ERROR, "%s: %s", op_names[kind], err);
            snprintf(why, sizeof why, "%s", c->stop_why);
            break;
        }
        if (e) {
            call.estimate += est;
            snprintf(why, sizeof why, "%s", err);
        } else {
            call.estimate += rep.estimate;
            if (!c->o.budget) {
                call.usage.prompt += rep.usage.prompt;
                call.usage.completion += rep.usage.completion;
                call.usage.cached += rep.usage.cached;
            }
            why[0] = '\0';
            base_err ce = check(c, t, node, rep.json, out, why);
            if (ce == BASE_OK) {
                st = AGENT_ANDOR_OP_OK;
                model_llm_reply_fini(&rep);
                break;
            }
            if (ce == BASE_ENOMEM) {
                model_llm_reply_fini(&rep);
                st = stopf(c, AGENT_GOAL_ERROR, "out of memory checking the %s answer",
                           op_names[kind]);
                snprintf(why, sizeof why, "%s", c->stop_why);
                break;
            }
            /* The bad answer stays in the conversation, so the model sees
             * what it wrote next to why it was refused. */
            if (model_llm_add_reply(msgs, &rep) != BASE_OK) {
                model_llm_reply_fini(&rep);
                st = stopf(c, AGENT_GOAL_ERROR, "out of memory");
                break;
            }
        }
        model_llm_reply_fini(&rep);
        if (attempt == AGENT_ANDOR_OP_RETRIES)
            break;
        /* Ask again, the error quoted: the model can fix what it sees. */
        char again[sizeof why + 100], fixed[sizeof again];
        snprintf(again, sizeof again,
                 "Your answer was not accepted: %s\nAnswer again with the whole JSON object.", why);
        base_utf8_copy(fixed, sizeof fixed, again);
        if (model_llm_add_message(msgs, "user", fixed) != BASE_OK) {
            st = stopf(c, AGENT_GOAL_ERROR, "out of memory");
            break;
        }
    }
    cJSON_Delete(msgs);
    if (c->o.budget) {
        /* The budget saw every attempt, also those whose answer the client
         * refused (their usage never reaches a reply). */
        call.usage.prompt = c->o.budget->total.prompt - before.prompt;
        call.usage.completion = c->o.budget->total.completion - before.completion;
        call.usage.cached = c->o.budget->total.cached - before.cached;
    }
    call.ok = st == AGENT_ANDOR_OP_OK;
    call.ms = base_monotime_ms() - t0;
    char line[BASE_ERRBUF_SIZE];
    safe_line(c, line, sizeof line, why);
    call.why = call.ok ? NULL : line;
    if (c->o.on_call)
        c->o.on_call(c->o.user, &call);
    return st;
}

/* ---- checks beyond the schema ---------------------------------------------------------------- */

/* The children of an answer (expand's "children", repair's "add") into e:
 * descriptions non-empty and not proposed twice nor already in the node,
 * scores in 0..1 and required for OR alternatives. */
static base_err check_children(const agent_andor_tree *t, int node, const cJSON *arr, int is_or,
                               agent_andor_edit *e, char *why)
{
    const agent_andor_node *n = agent_andor_node_at(t, node);
    int i = 0;
    const cJSON *ch = NULL;
    cJSON_ArrayForEach(ch, arr)
    {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(ch, "description");
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(ch, "score");
        /* A child must be new to the node: re-proposing one it has (done,
         * failed or pruned) would loop the repair. */
        const char *text = cJSON_IsString(d) ? d->valuestring : "";
        while (*text == ' ')
            text++;
        if (!*text)
            return base_errf(why, BASE_EINVAL, "child %d has an empty description", i + 1);
        double score = 0;
        if (is_or) {
            if (!cJSON_IsNumber(sc))
                return base_errf(why, BASE_EINVAL,
                                 "alternative %d (\"%.60s\") needs a score from 0 to 1", i + 1,
                                 text);
            score = sc->valuedouble;
            if (!(score >= 0 && score <= 1))
                return base_errf(why, BASE_EINVAL,
                                 "alternative %d (\"%.60s\") has score %g: scores are from 0 to 1",
                                 i + 1, text, score);
        }
        for (int k = 0; k < e->n_add; k++)
            if (same_text(e->add[k].description, text))
                return base_errf(why, BASE_EINVAL, "children %d and %d are the same (\"%.60s\")",
                                 k + 1, i + 1, text);
        for (int k = 0; n && k < n->n_children; k++) {
            const agent_andor_node *x = agent_andor_node_at(t, n->children[k]);
            if (x && x->description && same_text(x->description, text))
                return base_errf(why, BASE_EINVAL,
                                 "\"%.60s\" is already child %s (%s): propose something new", text,
                                 x->id, agent_andor_status_name(x->status));
        }
        base_err r = agent_andor_edit_add(e, text, score);
        if (r != BASE_OK)
            return r == BASE_ENOMEM ? BASE_ENOMEM : base_errf(why, r, "child %d is invalid", i + 1);
        i++;
    }
    return BASE_OK;
}

/* An ACTION's tool and arguments: "note" with {"text"}, or a tool of the
 * table the session offers with arguments its schema accepts. *tool_out
 * is the tool's own name (aliases resolved); *args_out the compact JSON
 * (base_free). */
static base_err check_call(agent_andor_opctx *c, const char *tool, const cJSON *args_in,
                           const char **tool_out, char **args_out, char *why)
{
    if (!tool || !tool[0])
        return base_errf(why, BASE_EINVAL, "an action needs \"tool\"");
    cJSON *args = NULL;
    if (cJSON_IsObject(args_in)) {
        args = cJSON_Duplicate(args_in, 1);
    } else if (cJSON_IsString(args_in) && args_in->valuestring[0]) {
        args = cJSON_Parse(args_in->valuestring);
        if (!cJSON_IsObject(args)) {
            cJSON_Delete(args);
            return base_errf(why, BASE_EINVAL, "\"args\" must be a JSON object (got '%.80s')",
                             args_in->valuestring);
        }
    } else if (!args_in || cJSON_IsNull(args_in) || cJSON_IsString(args_in)) {
        args = cJSON_CreateObject();
    } else {
        return base_errf(why, BASE_EINVAL, "\"args\" must be a JSON object");
    }
    if (!args)
        return BASE_ENOMEM;
    base_err r = BASE_OK;
    /* A note takes exactly {"text"}: the seed's note action. Any other tool
     * must be one the session would run (done and get_outline are the
     * tree's and the prompt's business; opt-in tools only when allowed),
     * with arguments its own schema accepts: tool_call would refuse the
     * same call later, and then the node would fail for a typo. */
    if (strcmp(tool, "note") == 0) {
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(args, "text");
        if (!cJSON_IsString(tx) || !tx->valuestring[0] || cJSON_GetArraySize(args) != 1)
            r = base_errf(why, BASE_EINVAL, "note: args must be {\"text\": \"the fact\"}");
        *tool_out = "note";
    } else {
        const tool_def *d = tool_find(tool);
        if (d && strcmp(d->name, tool) == 0 && tool_permit_needed(d) &&
            !(fovea_session_permits(c->s) & tool_permit_needed(d))) {
            /* A tool the run does not permit (not listed), asked for anyway,
             * told to by a page perhaps: the tool layer refuses it as
             * blocked, counts it for the run's end and says which flag the
             * operator would have to give; it never runs. */
            tool_result br;
            tool_call(c->s, d->name, NULL, &br);
            r = base_errf(why, BASE_EINVAL, "blocked: %s", br.message);
            tool_result_fini(&br);
        } else if (!d || strcmp(d->name, "done") == 0 || strcmp(d->name, "get_outline") == 0) {
            r = base_errf(why, BASE_EINVAL,
                          "unknown tool '%.60s': use one of the tools listed, or \"note\"", tool);
        } else {
            char e2[BASE_ERRBUF_SIZE] = "";
            r = tool_args_check(d, args, e2);
            if (r == BASE_ENOMEM)
                return cJSON_Delete(args), BASE_ENOMEM;
            if (r)
                r = base_errf(why, BASE_EINVAL, "bad arguments: %s", e2);
            *tool_out = d->name;
        }
    }
    if (r == BASE_OK) {
        char *s = cJSON_PrintUnformatted(args);
        *args_out = s ? base_strdup(s) : NULL;
        cJSON_free(s);
        if (!*args_out)
            r = BASE_ENOMEM;
    }
    cJSON_Delete(args);
    return r;
}

static void copy_reasoning(agent_andor_edit *e, const cJSON *answer)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(answer, "reasoning");
    snprintf(e->reasoning, sizeof e->reasoning, "%s", cJSON_IsString(r) ? r->valuestring : "");
}

static base_err check_expand(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                             const cJSON *a, void *out, char *why)
{
    agent_andor_edit *e = out;
    agent_andor_edit_fini(e);
    const agent_andor_node *n = agent_andor_node_at(t, node);
    const agent_andor_config *cfg = agent_andor_tree_config(t);
    int max_depth = cfg && cfg->max_depth > 0 ? cfg->max_depth : AGENT_ANDOR_MAX_DEPTH;
    int max_children = cfg && cfg->max_children > 0 ? cfg->max_children : AGENT_ANDOR_MAX_CHILDREN;
    /* The engine would drop what breaks its rules (no children, past the
     * depth limit); checked here too so the model hears why. */
    const char *type = base_json_str(a, "type", "");
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(a, "children");
    base_err r = BASE_OK;
    if (strcmp(type, "action") == 0) {
        const char *tool = NULL;
        char *args = NULL;
        r = check_call(c, base_json_str(a, "tool", NULL),
                       cJSON_GetObjectItemCaseSensitive(a, "args"), &tool, &args, why);
        if (r == BASE_OK) {
            e->type = AGENT_ANDOR_ACTION;
            e->tool = base_strdup(tool);
            e->args = args;
            if (!e->tool)
                r = BASE_ENOMEM;
        }
    } else {
        int is_or = strcmp(type, "or") == 0;
        int count = cJSON_GetArraySize(children);
        if (n && n->depth >= max_depth)
            r = base_errf(why, BASE_EINVAL,
                          "node %s is at the depth limit (%d): it must be an action", n->id,
                          max_depth);
        else if (count < 1)
            r = base_errf(why, BASE_EINVAL, "an %s node needs at least one child",
                          is_or ? "OR" : "AND");
        else if (count > max_children)
            r = base_errf(why, BASE_EINVAL, "%d children: at most %d", count, max_children);
        else
            r = check_children(t, node, children, is_or, e, why);
        if (r == BASE_OK) {
            e->type = is_or ? AGENT_ANDOR_OR : AGENT_ANDOR_AND;
            e->unordered = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a, "ordered"));
        }
    }
    const char *desc = base_json_str(a, "description", NULL);
    if (r == BASE_OK && desc && desc[0] && !(e->description = base_strdup(desc)))
        r = BASE_ENOMEM;
    if (r != BASE_OK) {
        agent_andor_edit_fini(e);
        return r;
    }
    copy_reasoning(e, a);
    return BASE_OK;
}

/* A node id of the answer: its index, or -1 with why set. */
/* Models see ids as the tree text prints them ("1.2.1"). */
static int find_id(const agent_andor_tree *t, const cJSON *id, char *why)
{
    if (!cJSON_IsString(id)) {
        base_errf(why, BASE_EINVAL, "node ids are strings like \"1.2\"");
        return -1;
    }
    int i = agent_andor_find(t, id->valuestring);
    if (i < 0)
        base_errf(why, BASE_EINVAL, "there is no node '%.40s' in the tree", id->valuestring);
    return i;
}

static base_err check_repair(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                             const cJSON *a, void *out, char *why)
{
    (void)c;
    agent_andor_edit *e = out;
    agent_andor_edit_fini(e);
    const agent_andor_node *n = agent_andor_node_at(t, node);
    if (!n)
        return base_errf(why, BASE_EINVAL, "no node to repair");
    copy_reasoning(e, a);
    /* "prune" gives up on the node: the rest of the answer is moot. */
    if (strcmp(base_json_str(a, "decision", ""), "prune") == 0) {
        e->prune_self = 1;
        return BASE_OK;
    }
    base_err r = BASE_OK;
    const cJSON *id = NULL;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(a, "prune"))
    {
        int k = find_id(t, id, why);
        if (k < 0) {
            r = BASE_EINVAL;
            break;
        }
        const agent_andor_node *x = agent_andor_node_at(t, k);
        if (x->parent != node) {
            r = base_errf(why, BASE_EINVAL,
                          "%s is not a child of %s: a repair prunes only the node's own children",
                          x->id, n->id);
            break;
        }
        /* An AND may give up on a child that failed (pruned or deleted by
         * the failure): it then stops blocking the AND's success. An OR's
         * failed alternatives block nothing; only open ones can go. */
        int allowed =
            n->type == AGENT_ANDOR_AND ? x->status != AGENT_ANDOR_SUCCESS : !node_closed(x->status);
        if (!allowed) {
            r = base_errf(why, BASE_EINVAL, "%s is already %s: it cannot be pruned", x->id,
                          agent_andor_status_name(x->status));
            break;
        }
        if ((r = agent_andor_edit_prune(e, k)) != BASE_OK)
            break;
    }
    const cJSON *add = cJSON_GetObjectItemCaseSensitive(a, "add");
    if (r == BASE_OK)
        r = check_children(t, node, add, n->type == AGENT_ANDOR_OR, e, why);
    if (r == BASE_OK && e->n_add == 0 && e->n_prune == 0)
        r = base_errf(why, BASE_EINVAL,
                      "a repair must prune or add children, or answer \"decision\": \"prune\"");
    const agent_andor_config *cfg = agent_andor_tree_config(t);
    int max_children = cfg && cfg->max_children > 0 ? cfg->max_children : AGENT_ANDOR_MAX_CHILDREN;
    if (r == BASE_OK && n->type == AGENT_ANDOR_AND && n->n_children + e->n_add > max_children)
        r = base_errf(why, BASE_EINVAL, "%s has %d children: at most %d more can be added", n->id,
                      n->n_children, max_children - n->n_children);
    if (r == BASE_OK && n->type == AGENT_ANDOR_OR && e->n_add > max_children)
        r = base_errf(why, BASE_EINVAL, "at most %d alternatives per repair", max_children);
    if (r != BASE_OK) {
        agent_andor_edit_fini(e);
        return r;
    }
    return BASE_OK;
}

static base_err check_update(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                             const cJSON *a, void *out, char *why)
{
    (void)c;
    agent_andor_edit *e = out;
    agent_andor_edit_fini(e);
    copy_reasoning(e, a);
    base_err r = BASE_OK;
    /* The nodes on the path to the one that just ran may not go: the run
     * stands inside them. */
    const cJSON *id = NULL;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(a, "prune"))
    {
        int k = find_id(t, id, why);
        if (k < 0) {
            r = BASE_EINVAL;
            break;
        }
        const agent_andor_node *x = agent_andor_node_at(t, k);
        if (x->parent < 0) {
            r = base_errf(why, BASE_EINVAL, "the root cannot be pruned");
            break;
        }
        if (node_closed(x->status)) {
            r = base_errf(why, BASE_EINVAL, "%s is already %s: it cannot be pruned", x->id,
                          agent_andor_status_name(x->status));
            break;
        }
        int above = 0;
        for (int p = node; p >= 0 && !above;) {
            above = p == k;
            const agent_andor_node *q = agent_andor_node_at(t, p);
            p = q ? q->parent : -1;
        }
        if (above) {
            r = base_errf(why, BASE_EINVAL,
                          "%s holds the node that just ran: it cannot be pruned now", x->id);
            break;
        }
        if ((r = agent_andor_edit_prune(e, k)) != BASE_OK)
            break;
    }
    const cJSON *rw = NULL;
    const cJSON *rewrites = r == BASE_OK ? cJSON_GetObjectItemCaseSensitive(a, "rewrite") : NULL;
    cJSON_ArrayForEach(rw, rewrites)
    {
        int k = find_id(t, cJSON_GetObjectItemCaseSensitive(rw, "id"), why);
        if (k < 0) {
            r = BASE_EINVAL;
            break;
        }
        const agent_andor_node *x = agent_andor_node_at(t, k);
        if (node_closed(x->status)) {
            r = base_errf(why, BASE_EINVAL, "%s is already %s: its description stays", x->id,
                          agent_andor_status_name(x->status));
            break;
        }
        const char *text = base_json_str(rw, "description", "");
        if (!text[0]) {
            r = base_errf(why, BASE_EINVAL, "the rewrite of %s is empty", x->id);
            break;
        }
        if ((r = agent_andor_edit_rewrite(e, k, text)) != BASE_OK)
            break;
    }
    if (r != BASE_OK) {
        agent_andor_edit_fini(e);
        return r;
    }
    return BASE_OK;
}

typedef struct complete_out {
    int yes;
    char *why;
    size_t cap;
} complete_out;

static base_err check_complete(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                               const cJSON *a, void *out, char *why)
{
    (void)c;
    (void)t;
    (void)node;
    (void)why;
    complete_out *o = out;
    o->yes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "complete"));
    if (o->why && o->cap)
        snprintf(o->why, o->cap, "%s", base_json_str(a, "reasoning", ""));
    return BASE_OK;
}

static base_err check_summarize(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                                const cJSON *a, void *out, char *why)
{
    (void)t;
    (void)node;
    (void)out;
    /* Progress and the page summary replace the old ones (the model was
     * given them); notes accumulate. */
    const char *progress = base_json_str(a, "progress", "");
    const cJSON *cand = cJSON_GetObjectItemCaseSensitive(a, "candidates");
    if (cand && !c->keep)
        return base_errf(why, BASE_EINVAL, "there is no candidate table: leave out \"candidates\"");
    /* Everything is checked; now the memory changes, all or nothing but
     * for a failed allocation. */
    if (!set_text(&c->progress, progress, PROGRESS_MAX) ||
        !set_text(&c->observation, base_json_str(a, "observation", ""), PROGRESS_MAX))
        return BASE_ENOMEM;
    const cJSON *nt = NULL;
    cJSON_ArrayForEach(nt, cJSON_GetObjectItemCaseSensitive(a, "notes"))
    {
        if (cJSON_IsString(nt) && !note_add(c, nt->valuestring))
            return BASE_ENOMEM;
    }
    if (cand && c->keep) {
        int skipped = 0;
        char e2[BASE_ERRBUF_SIZE];
        base_err r = agent_cand_apply(&c->table, cand, c->steps, &skipped, e2);
        if (r == BASE_ENOMEM)
            return r;
    }
    return BASE_OK;
}

static base_err check_constraints(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                                  const cJSON *a, void *out, char *why)
{
    (void)t;
    (void)node;
    (void)out;
    (void)why;
    /* Limits and empty names are skipped by the table itself; only a
     * failed allocation matters here. */
    static const char *const keys[] = {"constraints", "attributes"};
    for (int k = 0; k < 2; k++) {
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(a, keys[k]))
        {
            char e2[BASE_ERRBUF_SIZE] = "";
            const char *name = base_json_str(it, "name", "");
            if (agent_cand_column_get(&c->table, name, base_json_str(it, "description", NULL),
                                      k == 0, e2) < 0 &&
                strstr(e2, "out of memory"))
                return BASE_ENOMEM;
        }
    }
    return BASE_OK;
}

typedef struct answer_out {
    char *buf;
    size_t cap;
} answer_out;

static base_err check_answer(agent_andor_opctx *c, const agent_andor_tree *t, int node,
                             const cJSON *a, void *out, char *why)
{
    (void)t;
    (void)node;
    answer_out *o = out;
    /* The schema when there is one, and seed 003's meaningful-output check
     * always (agent/plan/answer.h). */
    cJSON *v = NULL;
    base_err e = agent_answer_check(c->o.answer_schema, cJSON_GetObjectItemCaseSensitive(a, "answer"),
                                    &v, why);
    if (e)
        return e;
    if (cJSON_IsString(v)) {
        const char *ans = v->valuestring;
        while (*ans == ' ' || *ans == '\n')
            ans++;
        snprintf(o->buf, o->cap, "%s", ans);
    } else {
        char *compact = cJSON_PrintUnformatted(v);
        if (!compact) {
            cJSON_Delete(v);
            return base_errf(why, BASE_ENOMEM, "out of memory");
        }
        snprintf(o->buf, o->cap, "%s", compact);
        cJSON_free(compact);
    }
    cJSON_Delete(c->answer_value);
    c->answer_value = v;
    return BASE_OK;
}

const cJSON *agent_andor_ops_answer_value(const agent_andor_opctx *c)
{
    return c ? c->answer_value : NULL;
}

/* ---- the operators --------------------------------------------------------------------------- */

/* build_prompt (what, extra) then op_call: one operator call. */
static agent_andor_op_status ask(agent_andor_opctx *c, agent_andor_opkind kind, int sys,
                                 const agent_andor_tree *t, int node, unsigned what,
                                 const char *extra, check_fn check, void *out)
{
    agent_andor_op_status st;
    char *p = build_prompt(c, t, node, what, extra, &st);
    if (!p)
        return st;
    st = op_call(c, kind, sys, t, node, p, (what & CTX_PAGE) != 0, check, out);
    base_free(p);
    return st;
}

static agent_andor_op_status op_expand(void *ctx, const agent_andor_tree *t, int node,
                                       agent_andor_edit *out)
{
    agent_andor_opctx *c = ctx;
    /* An expansion starts the engine step that may execute its action:
     * --step-timeout bounds both, as the agent loop's Worker step. */
    c->step_deadline = c->o.step_timeout_ms > 0 ? base_monotime_ms() + c->o.step_timeout_ms : 0;
    return ask(c, AGENT_ANDOR_OPK_EXPAND, AGENT_ANDOR_OPK_EXPAND, t, node,
               CTX_CONSTRAINTS | CTX_MEMORY | CTX_CANDIDATES | CTX_PAGE | CTX_LOCAL | CTX_NODE,
               "Expand this node.", check_expand, out);
}

static agent_andor_op_status op_repair(void *ctx, const agent_andor_tree *t, int node,
                                       agent_andor_edit *out)
{
    agent_andor_opctx *c = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, node);
    /* The reason: the children that failed (with what their actions
     * reported) and the last judgement on the node (a completion check's
     * "no" lands there). */
    base_buf b;
    base_buf_init(&b, 8192);
    base_err e = base_buf_append_str(&b, "Repair this node. REASON FOR REPAIR:");
    int failed = 0;
    for (int k = 0; n && k < n->n_children && !e; k++) {
        const agent_andor_node *x = agent_andor_node_at(t, n->children[k]);
        if (!x || (x->status != AGENT_ANDOR_FAIL && x->status != AGENT_ANDOR_PRUNED))
            continue;
        e = base_buf_printf(
            &b, "%s %s %s%s%.300s", failed++ ? ";" : " children that failed:", x->id,
            agent_andor_status_name(x->status), x->result ? ", " : "", x->result ? x->result : "");
    }
    if (!e && n && n->reasoning && n->reasoning[0])
        e = base_buf_printf(&b, "%s last judgement: %.600s", failed ? "." : "", n->reasoning);
    else if (!e && !failed)
        e = base_buf_append_str(&b, " its children did not reach its goal");
    char *extra = e ? NULL : base_buf_steal(&b, NULL);
    base_buf_fini(&b);
    if (!extra)
        return stopf(c, AGENT_GOAL_ERROR, "out of memory building the repair prompt");
    agent_andor_op_status st =
        ask(c, AGENT_ANDOR_OPK_REPAIR, AGENT_ANDOR_OPK_REPAIR, t, node,
            CTX_CONSTRAINTS | CTX_MEMORY | CTX_CANDIDATES | CTX_PAGE | CTX_LOCAL | CTX_NODE, extra,
            check_repair, out);
    base_free(extra);
    return st;
}

static agent_andor_op_status op_update(void *ctx, const agent_andor_tree *t, int node,
                                       agent_andor_edit *out)
{
    agent_andor_opctx *c = ctx;
    return ask(c, AGENT_ANDOR_OPK_UPDATE, AGENT_ANDOR_OPK_UPDATE, t, node,
               CTX_MEMORY | CTX_CANDIDATES | CTX_PAGE | CTX_TREE | CTX_ACTION,
               "The node marked <- just ran. Update the tree.", check_update, out);
}

static agent_andor_op_status op_complete(void *ctx, const agent_andor_tree *t, int node, int *yes,
                                         char *why, size_t cap)
{
    agent_andor_opctx *c = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, node);
    int root = n && n->parent < 0;
    complete_out o = {0, why, cap};
    agent_andor_op_status st = ask(
        c, AGENT_ANDOR_OPK_COMPLETE, AGENT_ANDOR_OPK_COMPLETE, t, node,
        CTX_CONSTRAINTS | CTX_MEMORY | (root ? CTX_TABLE : CTX_CANDIDATES) | CTX_LOCAL | CTX_NODE,
        root ? "Is the whole task done (this is the root)?" : "Is this node's goal met?",
        check_complete, &o);
    *yes = st == AGENT_ANDOR_OP_OK && o.yes;
    return st;
}

static agent_andor_op_status op_summarize(void *ctx, const agent_andor_tree *t, int node)
{
    agent_andor_opctx *c = ctx;
    int sys = c->keep ? AGENT_ANDOR_OPK_COUNT : AGENT_ANDOR_OPK_SUMMARIZE;
    return ask(c, AGENT_ANDOR_OPK_SUMMARIZE, sys, t, node,
               CTX_CONSTRAINTS | CTX_MEMORY | CTX_TABLE | CTX_ACTION | CTX_PAGE, NULL,
               check_summarize, NULL);
}

/* Records what an ACTION did, for the summarizer and the global update. */
static void remember_action(agent_andor_opctx *c, const agent_andor_node *n, const tool_result *r)
{
    base_buf b;
    base_buf_init(&b, DATA_MAX + 2048);
    base_err e = base_buf_printf(
        &b, "%s %s (%s %.300s): %s%s%s", n->id, n->description ? n->description : "", n->tool,
        n->args ? n->args : "", r->success ? "ok" : tool_reason_name(r->reason),
        r->message[0] ? ", " : "", r->message);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, "value");
    if (!e && r->data && !(cJSON_IsString(v) && strcmp(n->tool, "get_outline") == 0)) {
        /* What a reading tool returned is what the summarizer must see. */
        char *d = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(r->data);
        const char *text = cJSON_IsString(v) ? v->valuestring : d;
        if (text)
            e = base_buf_printf(&b, "\nIts output:\n%.*s", DATA_MAX, text);
        cJSON_free(d);
    }
    char *s = e ? NULL : base_buf_steal(&b, NULL);
    base_buf_fini(&b);
    if (s) {
        base_free(c->last_action);
        c->last_action = s;
    }
}

static agent_andor_op_status op_execute(void *ctx, const agent_andor_tree *t, int node, int attempt,
                                        agent_andor_exec *out)
{
    agent_andor_opctx *c = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, node);
    if (!n || !n->tool) {
        snprintf(out->result, sizeof out->result, "no action to run");
        return AGENT_ANDOR_OP_OK;
    }
    if (strcmp(n->tool, "note") == 0) {
        /* A note never touches the page: its text joins the notes. */
        cJSON *a = cJSON_Parse(n->args ? n->args : "");
        const char *text = base_json_str(a, "text", "");
        int ok = text[0] != '\0';
        if (ok && !note_add(c, text)) {
            cJSON_Delete(a);
            return stopf(c, AGENT_GOAL_ERROR, "out of memory keeping a note");
        }
        out->ok = ok;
        out->note = 1;
        snprintf(out->result, sizeof out->result, "%s", ok ? "noted" : "an empty note");
        cJSON_Delete(a);
        return AGENT_ANDOR_OP_OK;
    }
    if (base_interrupted())
        return stopf(c, AGENT_GOAL_INTERRUPTED, "interrupted by %s after %d tool calls",
                     base_signal_name(base_interrupted()), c->steps);
    if (c->steps >= c->o.max_steps)
        return stopf(c, AGENT_GOAL_STEPS_OUT, "max_steps: %d tool calls without finishing the plan",
                     c->steps);
    if (c->step_deadline > 0 && base_monotime_ms() >= c->step_deadline) {
        /* No tool call starts after the step's time, as in the agent
         * loop; the engine's immediate retry is refused the same way, so
         * the node fails and its parent's repair decides what next. */
        snprintf(out->result, sizeof out->result,
                 "not run: the step's %d ms (--step-timeout) were spent before this call",
                 c->o.step_timeout_ms);
        return AGENT_ANDOR_OP_OK;
    }
    int step = ++c->steps;
    c->page_moves++;
    char desc[200];
    snprintf(desc, sizeof desc, "%s %s %.150s", n->id, n->tool, n->args ? n->args : "");
    fovea_session_set_step(c->s, &(fovea_step_info){step, c->o.max_steps, attempt + 1, 0, NULL, desc});
    tool_result r;
    memset(&r, 0, sizeof r);
    /* The node's call as the model wrote it; tool_call checks the arguments
     * again and scrubs the result of the session's secrets. */
    int ok = tool_call(c->s, n->tool, n->args, &r);
    if (c->o.on_tool)
        c->o.on_tool(c->o.user, &r);
    const tool_def *d = tool_find(n->tool);
    out->ok = ok;
    /* Generous on purpose: a call that may have taken effect is never run
     * again, so any sign of contact with the page counts. */
    out->reached_page = r.delivered || r.changed.url_changed || r.changed.new_tab ||
                        r.changed.dialog || (ok && d && (d->flags & TOOL_MUTATES));
    snprintf(out->result, sizeof out->result, "%s", r.message);
    /* Where the page is now (a click may have navigated late); a dead page
     * is not asked, its last known URL stands. */
    int dead = r.reason == TOOL_PAGE_GONE || r.reason == TOOL_NOT_RESPONDING;
    char url[sizeof out->url] = "";
    if (!dead)
        fovea_session_page_url(c->s, url, sizeof url);
    snprintf(out->url, sizeof out->url, "%s", url[0] ? url : r.changed.url_after);
    remember_action(c, n, &r);
    agent_andor_op_status st = AGENT_ANDOR_OP_OK;
    if (dead)
        st = stopf(c, AGENT_GOAL_ERROR, "the page died at step %d: %s", step, r.message);
    else if (r.reason == TOOL_INTERRUPTED || base_interrupted())
        st = stopf(c, AGENT_GOAL_INTERRUPTED, "interrupted during step %d", step);
    tool_result_fini(&r);
    return st;
}

static int op_rollback(void *ctx, const agent_andor_tree *t, int or_node)
{
    agent_andor_opctx *c = ctx;
    const agent_andor_node *n = agent_andor_node_at(t, or_node);
    if (!n || !n->url || !n->url[0])
        return 0;
    char now[2048];
    fovea_session_page_url(c->s, now, sizeof now);
    if (strcmp(now, n->url) == 0)
        return 1; /* already there: nothing to undo, nothing sent */
    /* A URL with a masked secret is not the page that was visited. */
    if (strstr(n->url, "********"))
        return 0;
    /* A GET of a page already visited: the rollback the seed describes. It
     * is a tool call like any other (on_tool, the trace), though not one
     * of the task's steps. */
    cJSON *a = cJSON_CreateObject();
    char *args = a && cJSON_AddStringToObject(a, "url", n->url) ? cJSON_PrintUnformatted(a) : NULL;
    cJSON_Delete(a);
    if (!args)
        return 0;
    c->page_moves++;
    /* Its own record: not a step of the task, and one attempt (the session
     * still holds the last ACTION's attempt number, a retry's 2). */
    char desc[200];
    snprintf(desc, sizeof desc, "rollback to %s", n->id);
    fovea_session_set_step(c->s, &(fovea_step_info){0, c->o.max_steps, 1, 0, NULL, desc});
    tool_result r;
    memset(&r, 0, sizeof r);
    int ok = tool_call(c->s, "navigate", args, &r);
    cJSON_free(args);
    if (c->o.on_tool)
        c->o.on_tool(c->o.user, &r);
    tool_result_fini(&r);
    return ok;
}

void agent_andor_ops_bind(agent_andor_opctx *c, agent_andor_ops *ops)
{
    memset(ops, 0, sizeof *ops);
    ops->ctx = c;
    ops->expand = op_expand;
    ops->execute = op_execute;
    ops->summarize = op_summarize;
    ops->update = op_update;
    ops->complete = op_complete;
    ops->repair = op_repair;
    ops->rollback = op_rollback;
}

agent_andor_op_status agent_andor_ops_start(agent_andor_opctx *c, const agent_andor_tree *t,
                                            char *err)
{
    if (!c || !t) {
        base_errf(err, BASE_EINVAL, "andor operators: no context or tree");
        return AGENT_ANDOR_OP_FAILED;
    }
    /* The table is decided once, before the first expansion: the seed
     * found it adds noise to simple tasks. */
    c->keep = c->o.candidates == AGENT_CAND_ON ||
              (c->o.candidates == AGENT_CAND_AUTO && agent_cand_task_wants(agent_andor_task(t)));
    if (!c->keep)
        return AGENT_ANDOR_OP_OK;
    agent_andor_op_status st;
    char *p = build_prompt(c, t, -1, 0, "List the task's constraints and attributes.", &st);
    if (!p) {
        base_errf(err, BASE_ENOMEM, "%s", c->stop_why);
        return st;
    }
    st = op_call(c, AGENT_ANDOR_OPK_CONSTRAINTS, AGENT_ANDOR_OPK_CONSTRAINTS, t, -1, p, 0,
                 check_constraints, NULL);
    base_free(p);
    if (st == AGENT_ANDOR_OP_STOP) {
        base_errf(err, BASE_ECANCELED, "%s", c->stop_why);
        return st;
    }
    /* A bad answer is not an error: the table starts without columns and
     * grows as the summarizer names them. */
    return AGENT_ANDOR_OP_OK;
}

agent_andor_op_status agent_andor_ops_answer(agent_andor_opctx *c, const agent_andor_tree *t,
                                             char *answer, size_t cap, char *err)
{
    if (!c || !t || !answer || cap == 0) {
        base_errf(err, BASE_EINVAL, "andor operators: no context, tree or buffer");
        return AGENT_ANDOR_OP_FAILED;
    }
    answer[0] = '\0';
    agent_andor_op_status st;
    char *p = build_prompt(c, t, -1, CTX_CONSTRAINTS | CTX_MEMORY | CTX_TABLE | CTX_TREE,
                           "Write the final answer.", &st);
    if (!p) {
        base_errf(err, BASE_ENOMEM, "%s", c->stop_why);
        return st;
    }
    answer_out o = {answer, cap};
    st = op_call(c, AGENT_ANDOR_OPK_ANSWER, AGENT_ANDOR_OPK_ANSWER, t, -1, p, 0, check_answer, &o);
    base_free(p);
    if (st == AGENT_ANDOR_OP_STOP)
        base_errf(err, BASE_ECANCELED, "%s", c->stop_why);
    else if (st == AGENT_ANDOR_OP_FAILED)
        base_errf(err, BASE_EPROTO, "no usable final answer after %d attempts",
                  AGENT_ANDOR_OP_RETRIES + 1);
    return st;
}
