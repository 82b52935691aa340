/* agent/plan/goal.c: the agent loop (agent/plan/goal.h) — Worker turns,
 * the Planner, and the memory, budget and loop safeguards around them. */
#include "agent/plan/goal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/plan/answer.h"
#include "agent/plan/evict.h"
#include "agent/plan/ledger.h"
#include "agent/plan/loop.h"
#include "agent/session/permit.h"
#include "agent/plan/orchestrator.h"
#include "agent/session/outline.h"
#include "agent/session/session.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_get.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/utf8.h"
#include "agent/session/secrets.h"

/* The outline's own budget (seed 003: AGENT_OL_CAP_FIRST for a page the
 * reader has not seen, AGENT_OL_CAP_SAME for the same page again,
 * AGENT_OL_CAP_PLANNER for the Planner) bounds an observation; this cut only
 * stops a page of thousands of region headers (always kept). */
#define OUTLINE_MAX (2 * AGENT_OL_CAP_FIRST)

/* What the Worker's tools read, handed to the Planner (issue 22): the
 * newest GOAL_RESULTS reads, each cut at GOAL_RESULT_CHARS, newest first
 * within GOAL_RESULTS_CHARS (the Planner's page view is the larger part of
 * its budget). */
#define GOAL_RESULTS 8
#define GOAL_RESULT_CHARS 2000
#define GOAL_RESULTS_CHARS 8000
#define UNCHANGED_MAX 3  /* Worker observations in a row that may say "unchanged" */
#define UNCHANGED_NOTE                                                                             \
    "[page unchanged: same URL and outline as the last element list above]"

const char *agent_goal_end_name(agent_goal_end e)
{
    static const char *const n[] = {"done",  "gave_up", AGENT_LOOP_STOPPED, "cost_cap_exceeded",
                                    "max_steps", "error", "interrupted"};
    return (unsigned)e < sizeof n / sizeof n[0] ? n[e] : "?";
}

void agent_goal_opts_init(agent_goal_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_steps = AGENT_GOAL_MAX_STEPS;
    o->planner_every = AGENT_GOAL_PLANNER_EVERY;
}

/* The byte-stable prefixes: never changed during a run (prompt cache). */
static const char WORKER_PROMPT[] =
    "You are the Worker of a web agent. Each turn you get the page as an outline: landmark "
    "regions, headings and the interactive elements as [n]<tag>name</tag>, where [n] is the "
    "mark [Vn] (target \"[Vn]\" or the element's visible name). Carry out the current subgoal "
    "with the tools: up to 5 calls per turn; a call that changes the page ends the turn, and "
    "you get a new outline. Tool results are JSON with ok, reason and message. Never repeat a "
    "call that failed unchanged: try another element, scroll, or read the page. When you "
    "believe the whole task is complete, call done with a short summary: the Planner checks it "
    "and gives the final answer. Facts, dead ends and the plan are in the [LEDGER] blocks.";

static const char PLANNER_PROMPT[] =
    "You are the Planner of a web agent. You see the task, the ledger (plan, recent steps, "
    "facts, dead ends) and the current page. Answer with a JSON object: done (true only when "
    "the page shows the task is complete), give_up (true when it cannot be done), answer (the "
    "final answer for the user when done, with its evidence), plan (the remaining subgoals, "
    "short imperative sentences), subgoal (index of the current one) and guidance (one line for "
    "the Worker). Do not declare done on the Worker's word: check the page.";

/* %s: the answer's schema — a string, or with --answer-schema no type (any
 * JSON value: agent_answer_check holds it to the user's schema, and quotes
 * its error back, which the client's own check could not). */
#define PLANNER_SCHEMA_FMT                                                                         \
    "{\"type\": \"object\", \"properties\": {\"done\": {\"type\": \"boolean\"}, \"give_up\": "  \
    "{\"type\": \"boolean\"}, \"answer\": %s, \"plan\": {\"type\": "                            \
    "\"array\", \"items\": {\"type\": \"string\"}}, \"subgoal\": {\"type\": \"integer\"}, "     \
    "\"guidance\": {\"type\": \"string\"}}, \"required\": [\"done\"]}"
#define ANSWER_TEXT "{\"type\": \"string\"}"
#define ANSWER_ANY                                                                                 \
    "{\"description\": \"the final answer: a JSON value matching the ANSWER SCHEMA\"}"

typedef struct goal_run {
    fovea_session *s;
    const agent_goal_opts *o;
    agent_goal_result *res;
    FILE *out;
    agent_ledger *l;
    agent_loop lp;
    cJSON *wmsgs;           /* the Worker's conversation */
    cJSON *pmsgs;           /* the Planner's */
    cJSON *tools;           /* what the Worker is offered: the brief list (+ more_tools') */
    int more_added;         /* more_tools' list was appended to tools */
    cJSON *schema;
    char nudge[1024];       /* loop nudge for the next observation */
    char guidance[768];     /* the Planner's line for the Worker */
    char worker_claim[768]; /* the Worker's done summary, for the Planner */
    char outline_fp_text[64];
    uint64_t page_fp;
    uint64_t wshown_fp;     /* url + outline the Worker last got in full (0 = none) */
    int wnotes;             /* Worker observations since then that said "unchanged" */
    int step;               /* the ledger's step counter */
    int since_planner;
    char *outline;          /* last outline text (owned) */
    agent_orch orch;        /* the Orchestrator: routing, breaker, search worker */
    char subgoal[512];      /* the Planner's active subgoal (re-routed when it changes) */
    int replanned;          /* the last Planner call moved to another subgoal */
    const char *search_text; /* the search worker's text for the next Planner call */
    const char *search_from; /* the URL it came from */
    double step_deadline;   /* this Worker step's end (base_monotime_ms), 0 = none */
    uint64_t nonce;         /* the untrusted-text frame's nonce (agent/session/permit.h) */
    /* The Planner's own last outline read (fovea_session_outline_swap), so
     * its reads never change what the Worker's next one collapses against. */
    struct agent_outline_sig *planner_ol;
    int obs_collapsed;      /* regions the Worker's newest observation collapsed */
    int wshown_collapsed;   /* regions the Worker's last shown outline collapsed */
    int wshown_whole;       /* the Worker's last shown outline was not cut by the budget */
    struct goal_read {
        int step;
        char tool[48];
        char *value;        /* owned, cut at GOAL_RESULT_CHARS */
    } reads[GOAL_RESULTS];  /* what the Worker's tools read, oldest first */
    int n_reads;
} goal_run;

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The ledger's write, timed (fsync dominates the agent layer's own cost). */
static base_err timed_sync(goal_run *g, char *err)
{
    double t0 = base_monotime_ms();
    base_err e = agent_ledger_sync(g->l, err);
    g->res->ledger_ms += base_monotime_ms() - t0;
    return e;
}

/* ---- observation ---------------------------------------------------------- */

/* Appends the observation (a user message) to msgs: page state, outline,
 * extra text; the screenshot as an image part when asked. */
static base_err observe(goal_run *g, cJSON *msgs, const char *extra, int with_shot, char *err)
{
    double t0 = base_monotime_ms();
    char url[1024];
    fovea_session_page_url(g->s, url, sizeof url);
    tool_result r;
    memset(&r, 0, sizeof r);
    /* Reading the page is not a step of the task: the session numbers it. */
    fovea_session_set_step(g->s, &(fovea_step_info){0});
    agent_trace *tr = fovea_session_trace(g->s); /* not a step: no trace line, no overlay */
    fovea_session_set_trace(g->s, NULL);
    /* The Worker reads with the tool's own budget (24k chars for a new page,
     * 8k for the same page) and regions unchanged since its previous read
     * collapse (that read stays in its context: model_call). The Planner
     * reads whole within its 24k, with its own previous-read slot. */
    int planner = msgs == g->pmsgs;
    struct agent_outline_sig *shown_sig = NULL;
    if (planner) {
        char pargs[64];
        snprintf(pargs, sizeof pargs, "{\"fresh\": true, \"max_chars\": %d}",
                 AGENT_OL_CAP_PLANNER);
        fovea_session_outline_swap(g->s, &g->planner_ol);
        tool_call(g->s, "get_outline", pargs, &r);
        fovea_session_outline_swap(g->s, &g->planner_ol);
    } else {
        /* What the next read collapses against is the read the Worker got:
         * a read replaced by the "unchanged" note below is not one, so the
         * set it leaves in the session is swapped back for this copy. */
        if (g->wshown_fp)
            fovea_session_outline_copy(g->s, &shown_sig);
        /* After a read the budget cut (a long page), nothing collapses
         * against it: the regions it showed whole are a page's small ones
         * (a nav bar), and keeping that read in context beside the new one
         * for them costs more than they save (issue 22). On a page that
         * fits, reads collapse as they did. */
        if (g->wshown_fp && !g->wshown_whole)
            fovea_session_outline_hold(g->s);
        tool_call(g->s, "get_outline", "{}", &r);
        const cJSON *nc = cJSON_GetObjectItemCaseSensitive(r.data, "collapsed");
        g->obs_collapsed = r.success && cJSON_IsNumber(nc) ? nc->valueint : 0;
    }
    const cJSON *kl = cJSON_GetObjectItemCaseSensitive(r.data, "kept_lines");
    const cJSON *nl = cJSON_GetObjectItemCaseSensitive(r.data, "lines");
    int whole = r.success && cJSON_IsNumber(kl) && cJSON_IsNumber(nl) && kl->valueint >= nl->valueint;
    fovea_session_set_trace(g->s, tr);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    const char *ol = r.success && cJSON_IsString(v) ? v->valuestring : "";
    base_free(g->outline);
    g->outline = base_strdup(ol);
    /* The page, not the view of it: reads of one page differ as regions
     * collapse or not (loop detection compares pages). */
    const cJSON *dg = cJSON_GetObjectItemCaseSensitive(r.data, "digest");
    g->page_fp = fnv(fnv(1469598103934665603ULL, url), cJSON_IsString(dg) ? dg->valuestring : ol);
    /* The page's words are quoted, untrusted content: framed with the
     * run's nonce, which the page cannot know and so cannot close. */
    char *cut = base_malloc(OUTLINE_MAX + sizeof r.message + 1);
    if (cut)
        snprintf(cut, OUTLINE_MAX + sizeof r.message + 1, "%.*s%s", OUTLINE_MAX,
                 r.success ? ol : "", r.success ? "" : r.message);
    char *framed = cut ? agent_untrusted_wrap(g->nonce, "page outline", cut) : NULL;
    base_free(cut);
    size_t cap = (framed ? strlen(framed) : 0) + strlen(url) + (extra ? strlen(extra) : 0) + 512;
    char *text = framed ? base_malloc(cap) : NULL;
    if (!text || !g->outline) {
        base_free(text);
        base_free(framed);
        tool_result_fini(&r);
        fovea_session_outline_free(shown_sig);
        return base_errf(err, BASE_ENOMEM, "out of memory for the observation");
    }
    /* The Worker's page has not changed since the outline it last got (a
     * call that only read, waited or checked; the digest covers every
     * line's text and the elements' numbers): it is told so in one line,
     * and that outline stays in its context (the newest element list is
     * kept), so the request repeats the previous one's bytes up to the new
     * turn (issue 22). A few in a row at most: the outline must not fall
     * out of the memory hook's window. The read made now is not the
     * Worker's: the session's collapse set goes back to the shown read's
     * (shown_sig), so the next read never collapses a region against text
     * the Worker did not get (and after a cut shown read it collapses
     * nothing: the hold above). Without that copy (no memory) the note is
     * not given. */
    int unchanged = msgs == g->wmsgs && !with_shot && r.success && g->wshown_fp == g->page_fp &&
                    shown_sig && g->wnotes < UNCHANGED_MAX;
    if (unchanged)
        fovea_session_outline_swap(g->s, &shown_sig);
    fovea_session_outline_free(shown_sig);
    shown_sig = NULL;
    if (unchanged)
        snprintf(text, cap, "%s%s%s", UNCHANGED_NOTE, extra && extra[0] ? "\n" : "",
                 extra ? extra : "");
    else
        snprintf(text, cap,
                 "[SESSION_STATE url=%s title=] [/SESSION_STATE]\n[ELEMENTS]\n%s\n[/ELEMENTS]%s%s",
                 url, framed, extra && extra[0] ? "\n" : "", extra ? extra : "");
    if (msgs == g->wmsgs) {
        g->wnotes = unchanged ? g->wnotes + 1 : 0;
        g->wshown_fp = r.success && !with_shot ? g->page_fp : 0;
        /* After a note the newest element list is still the shown read's,
         * and so is what it collapsed against (model_call keeps both). */
        if (unchanged) {
            g->obs_collapsed = g->wshown_collapsed;
        } else {
            g->wshown_collapsed = g->obs_collapsed;
            g->wshown_whole = whole;
        }
    }
    base_free(framed);
    tool_result_fini(&r);
    cJSON *m = cJSON_CreateObject();
    cJSON *content = m ? cJSON_AddArrayToObject(m, "content") : NULL;
    cJSON *part = cJSON_CreateObject();
    int ok = content && part && cJSON_AddStringToObject(m, "role", "user") &&
             cJSON_AddStringToObject(part, "type", "text") &&
             cJSON_AddStringToObject(part, "text", text);
    base_free(text);
    if (ok) {
        cJSON_AddItemToArray(content, part);
        part = NULL;
    }
    if (ok && with_shot) {
        char *du = fovea_session_shot_data_url(g->s);
        cJSON *img = du ? cJSON_CreateObject() : NULL;
        cJSON *iu = img ? cJSON_AddObjectToObject(img, "image_url") : NULL;
        if (iu && cJSON_AddStringToObject(img, "type", "image_url") &&
            cJSON_AddStringToObject(iu, "url", du))
            cJSON_AddItemToArray(content, img);
        else
            cJSON_Delete(img);
        base_free(du);
    }
    cJSON_Delete(part);
    if (!ok) {
        cJSON_Delete(m);
        return base_errf(err, BASE_ENOMEM, "out of memory for the observation");
    }
    cJSON_AddItemToArray(msgs, m);
    g->res->obs_ms += base_monotime_ms() - t0;
    return BASE_OK;
}

/* ---- model calls ---------------------------------------------------------- */

static void trace_call(goal_run *g, model_llm_role role, const model_llm_reply *rep,
                       const agent_evict_stats *st, const char *error)
{
    if (!fovea_session_trace(g->s))
        return;
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return;
    cJSON_AddStringToObject(j, "type", "model");
    cJSON_AddStringToObject(j, "role", model_llm_role_name(role));
    cJSON_AddNumberToObject(j, "step", g->step);
    if (rep) {
        cJSON_AddStringToObject(j, "model", rep->model);
        cJSON_AddNumberToObject(j, "prompt_tokens", (double)rep->usage.prompt);
        cJSON_AddNumberToObject(j, "completion_tokens", (double)rep->usage.completion);
        cJSON_AddNumberToObject(j, "cached_tokens", (double)rep->usage.cached);
        cJSON_AddNumberToObject(j, "estimate", (double)rep->estimate);
        /* What was sent, for the prompt cache (issue 22): tokens by
         * model/tokens.h, tokens the server reported (null when it sent no
         * usage), and the share of the prompt's bytes that repeat the same
         * role's previous request from its start (null on the first). */
        cJSON_AddNumberToObject(j, "sent_tokens", (double)rep->sent_tokens);
        if (rep->usage.reported)
            cJSON_AddNumberToObject(j, "reported_tokens", (double)rep->usage.prompt);
        else
            cJSON_AddNullToObject(j, "reported_tokens");
        cJSON_AddNumberToObject(j, "prompt_bytes", (double)rep->prompt_bytes);
        if (rep->prefix_bytes >= 0 && rep->prompt_bytes > 0) {
            cJSON_AddNumberToObject(j, "prefix_bytes", (double)rep->prefix_bytes);
            cJSON_AddNumberToObject(j, "prefix_share",
                                    (double)rep->prefix_bytes / (double)rep->prompt_bytes);
        } else {
            cJSON_AddNullToObject(j, "prefix_share");
        }
        cJSON_AddNumberToObject(j, "ms", rep->ms);
        cJSON_AddNumberToObject(j, "attempts", rep->attempts);
        cJSON_AddStringToObject(j, "finish_reason", rep->finish_reason);
        /* The decision and its reasoning, for report.html; scrubbed like the
         * arguments below and capped so one chatty reply cannot swell the
         * trace. */
        char text[4096];
        if (rep->content && rep->content[0]) {
            agent_secrets_scrub_copy(fovea_session_secrets(g->s), text, sizeof text, rep->content);
            cJSON_AddStringToObject(j, "content", text);
        }
        if (rep->reasoning && rep->reasoning[0]) {
            agent_secrets_scrub_copy(fovea_session_secrets(g->s), text, sizeof text, rep->reasoning);
            cJSON_AddStringToObject(j, "reasoning", text);
        }
        if (g->l->subgoal >= 0 && g->l->subgoal < g->l->n_plan)
            cJSON_AddStringToObject(j, "subgoal", g->l->plan[g->l->subgoal]);
        cJSON *calls = cJSON_AddArrayToObject(j, "tool_calls");
        for (int i = 0; calls && i < rep->n_calls; i++) {
            cJSON *c = cJSON_CreateObject();
            if (!c)
                break;
            cJSON_AddStringToObject(c, "name", rep->calls[i].name ? rep->calls[i].name : "");
            /* A secret the run knows (a typed password) is masked here as in
             * every other record. */
            char args[2048];
            agent_secrets_scrub_copy(fovea_session_secrets(g->s), args, sizeof args,
                                     rep->calls[i].arguments ? rep->calls[i].arguments : "");
            cJSON_AddStringToObject(c, "arguments", args);
            if (rep->calls[i].error)
                cJSON_AddStringToObject(c, "error", rep->calls[i].why);
            cJSON_AddItemToArray(calls, c);
        }
    }
    if (st) {
        cJSON_AddNumberToObject(j, "context_tokens_before", (double)st->tokens_before);
        cJSON_AddNumberToObject(j, "context_tokens_after", (double)st->tokens_after);
        cJSON_AddNumberToObject(j, "dead_ends_added", st->dead_ends);
    }
    if (error)
        cJSON_AddStringToObject(j, "error", error);
    agent_trace_line(fovea_session_trace(g->s), j, NULL);
}

/* Sets how the run ended from a failed call. */
static void call_failed(goal_run *g, base_err e, const char *why)
{
    g->res->end = e == BASE_ETOOBIG && strstr(why, "cost_cap_exceeded") ? AGENT_GOAL_COST_CAP
                  : e == BASE_ECANCELED || base_interrupted()         ? AGENT_GOAL_INTERRUPTED
                                                                       : AGENT_GOAL_ERROR;
    snprintf(g->res->reason, sizeof g->res->reason, "%s", why);
}

/* Evicts, sends the wire copy, appends the reply. Returns 0 and sets the
 * run's end on failure. */
static int model_call(goal_run *g, model_llm_role role, cJSON *msgs, model_llm_reply *rep,
                      char *err)
{
    agent_evict_opts eo;
    agent_evict_opts_default(&eo);
    eo.role = role == MODEL_LLM_PLANNER ? AGENT_ROLE_PLANNER : AGENT_ROLE_WORKER;
    eo.step = g->step;
    /* A collapsed region stands for its text in the previous observation:
     * that one's element list stays too (never more: a region collapses
     * only against the read that showed it whole). */
    if (role == MODEL_LLM_WORKER && g->obs_collapsed > 0 && eo.keep_element_lists < 2)
        eo.keep_element_lists = 2;
    agent_evict_stats st;
    double te = base_monotime_ms();
    base_err e = agent_evict(msgs, g->l, &eo, &st, err);
    cJSON *wire = e ? NULL : agent_evict_wire(msgs);
    g->res->evict_ms += base_monotime_ms() - te;
    if (!e && !wire)
        e = base_errf(err, BASE_ENOMEM, "out of memory for the request");
    if (e) {
        call_failed(g, e, err);
        return 0;
    }
    model_llm_request rq;
    memset(&rq, 0, sizeof rq);
    rq.role = role;
    rq.messages = wire;
    rq.temperature = -1;
    rq.budget = g->o->budget;
    if (role == MODEL_LLM_WORKER)
        rq.deadline_ms = g->step_deadline; /* 0 = the client's own timeouts */
    if (role == MODEL_LLM_PLANNER) {
        rq.schema = g->schema;
        rq.schema_name = "planner";
    } else {
        rq.tools = g->tools;
        rq.check_call = tool_check_call;
    }
    memset(rep, 0, sizeof *rep);
    double t0 = base_monotime_ms();
    e = model_llm_chat(g->o->llm, &rq, rep, err);
    double ms = base_monotime_ms() - t0;
    cJSON_Delete(wire);
    g->res->model_ms += ms;
    g->res->calls[role]++;
    if (e) {
        trace_call(g, role, NULL, &st, err);
        agent_progressf(g->out, "call %s FAILED: %s\n", model_llm_role_name(role), err);
        call_failed(g, e, err);
        return 0;
    }
    g->res->usage.prompt += rep->usage.prompt;
    g->res->usage.completion += rep->usage.completion;
    g->res->usage.cached += rep->usage.cached;
    trace_call(g, role, rep, &st, NULL);
    char cost[48] = "";
    double usd = g->o->budget ? model_budget_cost(g->o->budget, &rep->usage) : -1;
    if (usd >= 0)
        snprintf(cost, sizeof cost, " $%.4f", usd);
    agent_progressf(g->out, "call %s tokens in=%ld out=%ld cached=%ld context=%zu->%zu %.0f ms%s\n",
              model_llm_role_name(role), rep->usage.prompt, rep->usage.completion,
              rep->usage.cached, st.tokens_before, st.tokens_after, rep->ms, cost);
    if (model_llm_add_reply(msgs, rep) != BASE_OK) {
        call_failed(g, BASE_ENOMEM, "out of memory appending the reply");
        return 0;
    }
    return 1;
}

/* ---- tool calls ----------------------------------------------------------- */

/* Appends a tool result to the Worker's conversation. What a tool returns
 * carries page text (extracted lines, messages quoting the page), so it goes
 * in the untrusted frame too. */
static base_err add_result(goal_run *g, const char *id, cJSON *j)
{
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    char *framed = s ? agent_untrusted_wrap(g->nonce, "tool result", s) : NULL;
    cJSON_free(s);
    if (!framed)
        return BASE_ENOMEM;
    base_err e = model_llm_add_tool_result(g->wmsgs, id, framed);
    base_free(framed);
    return e;
}

/* A tool result for the model; url NULL leaves it out (a call that
 * succeeded where the page already was: the observation names the page, and
 * the URL on every result was ~25 tokens a step). */
static cJSON *result_json(int ok, const char *reason, const char *message, const char *url,
                          int step)
{
    cJSON *j = cJSON_CreateObject();
    if (j && (!cJSON_AddBoolToObject(j, "ok", ok) ||
              !cJSON_AddStringToObject(j, "reason", reason) ||
              !cJSON_AddStringToObject(j, "message", message) ||
              (url && !cJSON_AddStringToObject(j, "url", url)) ||
              !cJSON_AddNumberToObject(j, "step", step))) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

/* The answer to more_tools: the rest of the tools the run permits is
 * appended to the Worker's list once (the request's prefix changes that one
 * time, and is stable again after), and the result names them. Not a step
 * of the task. Errors: BASE_ENOMEM. */
static base_err more_tools(goal_run *g, const model_llm_call *c)
{
    cJSON *more = g->more_added ? NULL : tool_functions_more_json(fovea_session_permits(g->s));
    if (!g->more_added && !more)
        return BASE_ENOMEM;
    if (more) {
        while (more->child)
            cJSON_AddItemToArray(g->tools, cJSON_DetachItemViaPointer(more, more->child));
        cJSON_Delete(more);
        g->more_added = 1;
    }
    base_buf b;
    base_buf_init(&b, 4096);
    base_buf_append_str(&b, "callable now (their schemas are in your tool list):");
    int i = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, g->tools)
    {
        const cJSON *n =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "function"), "name");
        if (cJSON_IsString(n) && !tool_brief_schema(n->valuestring) &&
            strcmp(n->valuestring, TOOL_MORE_TOOLS) != 0)
            base_buf_printf(&b, "%s %s", i++ ? "," : "", n->valuestring);
    }
    cJSON *j = b.data ? result_json(1, "ok", (const char *)b.data, NULL, g->step) : NULL;
    base_buf_fini(&b);
    agent_progressf(g->out, "step %d worker more_tools: %d more tools offered\n", g->step, i);
    return j ? add_result(g, c->id, j) : BASE_ENOMEM;
}

/* Keeps what a reading tool returned for the Planner (the page outline
 * reads aside: the Planner reads the page itself; a full slot drops the
 * oldest). Scrubbed like every record. No memory: the read is not kept. */
static void keep_read(goal_run *g, int step, const char *tool, const char *value)
{
    static const char *const PAGE_READS[] = {"get_outline", "focus_region", "list_headings",
                                             "done"};
    for (size_t i = 0; i < sizeof PAGE_READS / sizeof PAGE_READS[0]; i++)
        if (strcmp(tool, PAGE_READS[i]) == 0)
            return;
    if (!value[0])
        return;
    char *cut = base_malloc(GOAL_RESULT_CHARS + 1);
    if (!cut)
        return;
    agent_secrets_scrub_copy(fovea_session_secrets(g->s), cut, GOAL_RESULT_CHARS + 1, value);
    /* The cut may split a character: the request must stay UTF-8. */
    cut[base_utf8_check(cut, strlen(cut))] = '\0';
    if (!cut[0]) {
        base_free(cut);
        return;
    }
    if (g->n_reads == GOAL_RESULTS) {
        base_free(g->reads[0].value);
        memmove(g->reads, g->reads + 1, (GOAL_RESULTS - 1) * sizeof g->reads[0]);
        g->n_reads--;
    }
    struct goal_read *rd = &g->reads[g->n_reads++];
    rd->step = step;
    snprintf(rd->tool, sizeof rd->tool, "%s", tool);
    rd->value = cut;
}

/* The Worker's reads as text for the Planner, newest first within
 * GOAL_RESULTS_CHARS; NULL when there are none (or no memory). */
static char *reads_text(const goal_run *g)
{
    if (!g->n_reads)
        return NULL;
    base_buf b;
    base_buf_init(&b, GOAL_RESULTS_CHARS + 4096);
    for (int i = g->n_reads - 1; i >= 0; i--) {
        const struct goal_read *rd = &g->reads[i];
        size_t need = strlen(rd->value) + strlen(rd->tool) + 32;
        if (b.len + need > GOAL_RESULTS_CHARS) {
            base_buf_printf(&b, "(%d older read%s left out)\n", i + 1, i ? "s" : "");
            break;
        }
        base_buf_printf(&b, "- step %d %s: %s\n", rd->step, rd->tool, rd->value);
    }
    return b.data ? (char *)base_buf_steal(&b, NULL) : NULL;
}

/* Runs one of the Worker's calls as a step. Returns 1 when the batch goes
 * on, 0 when it ends (a page-changing call, a stop), -1 on an error that
 * ends the run. *claimed_done is set by `done`. */
static int run_call(goal_run *g, const model_llm_call *c, int *claimed_done, char *err)
{
    char url0[1024], url1[1024];
    fovea_session_page_url(g->s, url0, sizeof url0);
    const tool_def *nt = c->error == BASE_ENOTFOUND ? tool_find(c->name) : NULL;
    if (nt && strcmp(nt->name, c->name) == 0 && tool_permit_needed(nt) &&
        !(fovea_session_permits(g->s) & tool_permit_needed(nt))) {
        /* A tool the run does not permit (so not offered) that the model
         * calls anyway, told to by a page perhaps: the tool layer refuses
         * it as blocked, says why, and counts it for the run's end. */
        tool_result br;
        tool_call(g->s, nt->name, NULL, &br);
        cJSON *j = result_json(0, tool_reason_name(br.reason), br.message, url0, g->step);
        agent_progressf(g->out, "  blocked: %s\n", br.message);
        tool_result_fini(&br);
        return add_result(g, c->id, j) == BASE_OK ? 1 : -1;
    }
    if (strcmp(c->name, TOOL_MORE_TOOLS) == 0)
        return more_tools(g, c) == BASE_OK ? 1 : -1;
    if (nt && strcmp(nt->name, c->name) == 0) {
        /* A tool of the run that sits behind more_tools, called by its
         * name: its arguments are checked as the registry's and it runs. */
        model_llm_call cc = *c;
        cc.args = cJSON_Parse(c->arguments && c->arguments[0] ? c->arguments : "{}");
        char why[BASE_ERRBUF_SIZE] = "";
        cc.error = !cc.args ? BASE_EINVAL : tool_args_check(nt, cc.args, why);
        if (cc.error)
            snprintf(cc.why, sizeof cc.why, "%s",
                     cc.args ? why : "arguments are not valid JSON");
        int k = run_call(g, &cc, claimed_done, err);
        cJSON_Delete(cc.args);
        return k;
    }
    if (c->error) {
        cJSON *j = result_json(0, "bad_args", c->why, url0, g->step);
        return add_result(g, c->id, j) == BASE_OK ? 1 : -1;
    }
    char *args = cJSON_PrintUnformatted(c->args);
    if (!args)
        return base_errf(err, BASE_ENOMEM, "out of memory"), -1;
    int step = ++g->step;
    base_err e = agent_ledger_step_begin(g->l, step, c->name, c->id, args);
    if (!e)
        e = timed_sync(g, err);
    if (e) {
        cJSON_free(args);
        snprintf(g->res->reason, sizeof g->res->reason, "ledger: %s", err);
        g->res->end = AGENT_GOAL_ERROR;
        return -1;
    }
    const tool_def *t = tool_find(c->name);
    tool_result r;
    memset(&r, 0, sizeof r);
    double t0 = base_monotime_ms();
    char desc[200];
    snprintf(desc, sizeof desc, "%s %.150s", c->name, args);
    fovea_session_set_step(g->s, &(fovea_step_info){step, g->o->max_steps, 1, 0, NULL, desc});
    int ok = tool_call_json(g->s, c->name, c->args, &r);
    double ms = base_monotime_ms() - t0;
    g->res->tool_ms += ms;
    g->res->steps++;
    g->since_planner++;
    fovea_session_page_url(g->s, url1, sizeof url1);
    if (strcmp(c->name, "done") == 0) {
        *claimed_done = 1;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
        snprintf(g->worker_claim, sizeof g->worker_claim, "%s",
                 cJSON_IsString(v) ? v->valuestring : "");
    }
    /* The step's line: what ran, how it ended. */
    agent_progressf(g->out, "step %d worker %s %.120s %s %.0f ms%s%s\n", step, c->name, args,
              ok ? "ok" : "FAILED", ms, ok ? "" : " reason: ", ok ? "" : r.message);
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    const char *save_as = base_json_str(c->args, "save_as", NULL);
    agent_step_report rep = {step, "worker", c->name, c->id, args, ok, r.delivered,
                             tool_reason_name(r.reason), r.message, url1};
    agent_ingest in = {&rep, url0, ok && save_as && cJSON_IsString(sv) ? save_as : NULL,
                       ok && save_as && cJSON_IsString(sv) ? sv->valuestring : NULL};
    e = agent_ledger_ingest(g->l, &in);
    if (!e)
        e = timed_sync(g, err);
    /* The result for the model: the outcome, and what the tool read. */
    cJSON *j = result_json(ok, tool_reason_name(r.reason), r.message,
                           ok && strcmp(url0, url1) == 0 ? NULL : url1, step);
    if (j && r.data) {
        cJSON *d = cJSON_Duplicate(r.data, 1);
        if (d)
            cJSON_AddItemToObject(j, "data", d);
    }
    if (j && strcmp(c->name, "done") == 0)
        cJSON_AddStringToObject(j, "note", "the Planner checks the page before the task ends");
    /* A value saved with save_as is a ledger fact, which the Planner sees. */
    if (ok && t && !(t->flags & TOOL_MUTATES) && cJSON_IsString(sv) && !save_as)
        keep_read(g, step, c->name, sv->valuestring);
    base_err e2 = add_result(g, c->id, j);
    /* Loop detection on the action and the page it ran on. */
    agent_loop_verdict v;
    const char *alt = r.rec.hand.n_alternatives > 0 ? r.rec.hand.alternatives[0]
                      : r.rec.n_alternatives > 0    ? r.rec.alternatives[0]
                                                    : NULL;
    agent_loop_observe(&g->lp, step, c->name, args, g->page_fp, alt, &v);
    cJSON_free(args);
    /* A page-changing call that acted (some, like a native select, change the
     * page without a pointer press): the rest of the batch was planned on the
     * old page. */
    int mutates = t && (t->flags & TOOL_MUTATES) && (ok || r.delivered || r.changed.url_changed);
    tool_result_fini(&r);
    if (e || e2) {
        g->res->end = AGENT_GOAL_ERROR;
        snprintf(g->res->reason, sizeof g->res->reason, "%s", e ? err : "out of memory");
        return -1;
    }
    if (v.level == AGENT_LOOP_STOP) {
        g->res->end = AGENT_GOAL_LOOP;
        snprintf(g->res->reason, sizeof g->res->reason, "%s", v.message);
        agent_progressf(g->out, "%s\n", v.message);
        return -1;
    }
    if (v.level != AGENT_LOOP_OK) {
        snprintf(g->nudge, sizeof g->nudge, "%s", v.message);
        agent_progressf(g->out, "  nudge: %s\n", v.message);
    }
    if (base_interrupted()) {
        g->res->end = AGENT_GOAL_INTERRUPTED;
        snprintf(g->res->reason, sizeof g->res->reason, "interrupted by %s after step %d",
                 base_signal_name(base_interrupted()), step);
        return -1;
    }
    return mutates ? 0 : 1;
}

/* ---- the Planner ---------------------------------------------------------- */

/* The Planner says done with answer ans: agent_answer_check decides. 0:
 * accepted (*value is the caller's). 1: refused, the reason quoted in a new
 * user message so the Planner answers again. 2: refused once too often, the
 * run's end is set. -1: out of memory (the run's end is set). */
static int check_answer(goal_run *g, const cJSON *ans, cJSON **value)
{
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_answer_check(g->o->answer_schema, ans, value, why);
    if (e == BASE_OK)
        return 0;
    if (e == BASE_ENOMEM) {
        call_failed(g, BASE_ENOMEM, why);
        return -1;
    }
    int n = ++g->res->answer_refusals;
    char line[BASE_ERRBUF_SIZE + 64];
    agent_secrets_scrub_copy(fovea_session_secrets(g->s), line, sizeof line, why);
    agent_progressf(g->out, "step %d planner answer refused (%d of %d): %s\n", g->step, n,
                    AGENT_ANSWER_RETRIES + 1, line);
    char note[sizeof line + 32];
    snprintf(note, sizeof note, "final answer refused: %s", line);
    agent_ledger_note(g->l, g->step, note);
    timed_sync(g, NULL);
    if (n > AGENT_ANSWER_RETRIES) {
        g->res->end = AGENT_GOAL_ERROR;
        snprintf(g->res->reason, sizeof g->res->reason,
                 "answer refused: the Planner's final answer was refused %d times; the last "
                 "time: %s",
                 n, line);
        return 2;
    }
    char again[sizeof why + 200];
    snprintf(again, sizeof again,
             "Your final answer was not accepted: %s\nAnswer again with the whole JSON object: "
             "done true with a corrected answer, or done false with the plan to find what is "
             "missing.",
             why);
    if (model_llm_add_message(g->pmsgs, "user", again) != BASE_OK) {
        call_failed(g, BASE_ENOMEM, "out of memory");
        return -1;
    }
    return 1;
}

/* One Planner call (and its repeats while its final answer is refused).
 * Returns 1 when the run ends (done / gave up / an answer refused too
 * often), 0 to go on, -1 when the call failed (the run's end is set). */
static int planner(goal_run *g, int claimed, char *err)
{
    /* The fetched page's text is untrusted like the browser's. */
    char *framed_search =
        g->search_text ? agent_untrusted_wrap(g->nonce, "search result", g->search_text) : NULL;
    /* What the Worker read (extracted values, matches, script results), so
     * the Planner can check a value before it declares done. */
    char *reads = reads_text(g);
    char *framed_reads = reads ? agent_untrusted_wrap(g->nonce, "worker results", reads) : NULL;
    base_free(reads);
    size_t xcap = strlen(g->o->goal) + 1400 +
                  (framed_search ? strlen(framed_search) + strlen(g->search_from) + 400 : 0) +
                  (framed_reads ? strlen(framed_reads) + 200 : 0);
    char *extra = (!g->search_text || framed_search) ? base_malloc(xcap) : NULL;
    if (!extra) {
        base_free(framed_search);
        base_free(framed_reads);
        call_failed(g, BASE_ENOMEM, "out of memory for the planner's observation");
        return -1;
    }
    if (g->search_text)
        snprintf(extra, xcap,
                 "TASK: %s\nThe Orchestrator routed this to the search worker, which fetched "
                 "%s; its readable text is below. If it answers the task, declare done with "
                 "the answer and quote the text as evidence; if not, plan the browser steps.\n"
                 "[SEARCH_RESULT]\n%s\n[/SEARCH_RESULT]",
                 g->o->goal, g->search_from, framed_search);
    else
        snprintf(extra, xcap, "TASK: %s\n%s%.700s", g->o->goal,
                 claimed ? "The Worker says the task is complete: " : "Periodic check.",
                 claimed ? g->worker_claim : "");
    if (framed_reads) {
        size_t u = strlen(extra);
        snprintf(extra + u, xcap - u,
                 "\n[WORKER_RESULTS] what the Worker's tools read, newest first:\n%s\n"
                 "[/WORKER_RESULTS]",
                 framed_reads);
    }
    base_free(framed_search);
    base_free(framed_reads);
    base_err oe = observe(g, g->pmsgs, extra, 0, err);
    base_free(extra);
    if (oe != BASE_OK) {
        call_failed(g, BASE_ENOMEM, err);
        return -1;
    }
    model_llm_reply rep;
    cJSON *accepted = NULL; /* the final answer agent_answer_check accepted */
again:
    if (!model_call(g, MODEL_LLM_PLANNER, g->pmsgs, &rep, err))
        return -1;
    g->since_planner = 0;
    const cJSON *j = rep.json;
    int done = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "done"));
    int give_up = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "give_up"));
    const cJSON *ans = cJSON_GetObjectItemCaseSensitive(j, "answer");
    if (done) {
        int r = check_answer(g, ans, &accepted);
        if (r != 0) {
            model_llm_reply_fini(&rep);
            if (r < 0)
                return r;
            if (r == 2)
                return 1; /* refused too often: the run ended */
            goto again;
        }
    }
    const cJSON *gd = cJSON_GetObjectItemCaseSensitive(j, "guidance");
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(j, "plan");
    const cJSON *sg = cJSON_GetObjectItemCaseSensitive(j, "subgoal");
    int n = cJSON_IsArray(plan) ? cJSON_GetArraySize(plan) : 0;
    if (n > 0 && n <= 32) {
        const char *items[32];
        int k = 0;
        for (const cJSON *it = plan->child; it && k < 32; it = it->next)
            if (cJSON_IsString(it))
                items[k++] = it->valuestring;
        int active = cJSON_IsNumber(sg) && sg->valueint >= 0 && sg->valueint < k ? sg->valueint
                                                                                 : (k ? 0 : -1);
        if (k)
            agent_ledger_set_plan(g->l, items, k, active);
        timed_sync(g, NULL);
        /* A new active subgoal is a re-plan: the Orchestrator routes it. */
        if (active >= 0 && strcmp(items[active], g->subgoal) != 0) {
            snprintf(g->subgoal, sizeof g->subgoal, "%s", items[active]);
            g->replanned = 1;
        }
    }
    snprintf(g->guidance, sizeof g->guidance, "%s",
             cJSON_IsString(gd) ? gd->valuestring : "");
    agent_progressf(g->out, "step %d planner %s%s%.200s\n", g->step,
              done ? "done" : give_up ? "gave up" : "continue", cJSON_IsString(ans) ? ": " : "",
              cJSON_IsString(ans) ? ans->valuestring : "");
    int end = 0;
    if (done && accepted && !cJSON_IsString(accepted)) {
        /* The schema's answer: answer.json holds it whole, the result line
         * its compact JSON. */
        g->res->end = AGENT_GOAL_DONE;
        char *compact = cJSON_PrintUnformatted(accepted);
        snprintf(g->res->answer, sizeof g->res->answer, "%s", compact ? compact : "");
        cJSON_free(compact);
        snprintf(g->res->reason, sizeof g->res->reason, "done by the planner after %d steps",
                 g->step);
        end = 1;
    } else if (done || give_up) {
        g->res->end = done ? AGENT_GOAL_DONE : AGENT_GOAL_GAVE_UP;
        snprintf(g->res->answer, sizeof g->res->answer, "%s",
                 done && cJSON_IsString(accepted) ? accepted->valuestring
                 : cJSON_IsString(ans)            ? ans->valuestring
                                                  : "");
        snprintf(g->res->reason, sizeof g->res->reason, "%s by the planner after %d steps",
                 done ? "done" : "gave up", g->step);
        end = 1;
    } else if (claimed) {
        /* The Worker's claim was refused: it hears why next turn. */
        snprintf(g->nudge, sizeof g->nudge,
                 "The Planner checked the page: the task is NOT complete yet. %s",
                 g->guidance);
    }
    if (end && done && g->o->answer_schema && g->o->out_dir &&
        agent_answer_write(g->o->out_dir, accepted, fovea_session_secrets(g->s), err) != BASE_OK)
        agent_progressf(g->out, "answer: %s\n", err);
    cJSON_Delete(accepted);
    model_llm_reply_fini(&rep);
    return end;
}

/* ---- the Orchestrator ----------------------------------------------------- */

/* One trace line for a routing decision (the text scrubbed of secrets). */
static void trace_route(goal_run *g, const char *when, const char *text,
                        const agent_orch_decision *d)
{
    if (!fovea_session_trace(g->s))
        return;
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return;
    char t[600];
    agent_secrets_scrub_copy(fovea_session_secrets(g->s), t, sizeof t, text);
    cJSON_AddStringToObject(j, "type", "route");
    cJSON_AddNumberToObject(j, "step", g->step);
    cJSON_AddStringToObject(j, "when", when);
    cJSON_AddStringToObject(j, "text", t);
    cJSON_AddStringToObject(j, "route", d->route.kind == AGENT_ROUTE_SEARCH ? "search" : "browser");
    cJSON_AddStringToObject(j, "worker", d->worker == AGENT_ROUTE_SEARCH ? "search" : "browser");
    cJSON_AddNumberToObject(j, "browser_score", d->route.browser);
    cJSON_AddNumberToObject(j, "search_score", d->route.search);
    cJSON_AddBoolToObject(j, "from_learning", d->route.from_learning);
    cJSON_AddStringToObject(j, "breaker", d->breaker == AGENT_BREAKER_ANSWERED  ? "answered"
                                          : d->breaker == AGENT_BREAKER_TRIPPED ? "tripped"
                                                                                : "allow");
    if (d->fetched[0])
        cJSON_AddStringToObject(j, "fetched", d->fetched);
    cJSON_AddStringToObject(j, "why", d->why);
    agent_trace_line(fovea_session_trace(g->s), j, NULL);
}

/* Routes text (the task at start, the new subgoal after a re-plan): records
 * the decision (progress line, ledger note, trace line); on a search
 * delegation the Planner judges the search worker's text, and a re-plan
 * from it is routed again (the breaker bounds the rounds). Returns 1 when
 * the run ended, 0 to go on with the browser Worker, -1 when a call failed
 * (the run's end is set). */
static int orchestrate(goal_run *g, const char *text, const char *when, char *err)
{
    char cur[512];
    snprintf(cur, sizeof cur, "%s", text);
    for (int round = 0; round <= AGENT_BREAKER_MAX_TRIES; round++) {
        char url[1024];
        fovea_session_page_url(g->s, url, sizeof url);
        agent_orch_decision d;
        char why[BASE_ERRBUF_SIZE] = "";
        if (agent_orch_route(&g->orch, cur, url, &d, why) != BASE_OK) {
            /* Routing is advice: the browser Worker can do any task. */
            agent_progressf(g->out, "step %d orchestrator cannot route (%s): the browser Worker goes on\n",
                      g->step, why);
            return 0;
        }
        agent_progressf(g->out, "step %d orchestrator %s: %s (browser %.2f, search %.2f)\n", g->step, when,
                  d.why, d.route.browser, d.route.search);
        char note[900], t[400];
        agent_secrets_scrub_copy(fovea_session_secrets(g->s), t, sizeof t, cur);
        snprintf(note, sizeof note, "orchestrator %s: \"%.300s\": %s", when, t, d.why);
        agent_ledger_note(g->l, g->step, note);
        timed_sync(g, NULL);
        trace_route(g, when, cur, &d);
        if (d.worker != AGENT_ROUTE_SEARCH) {
            agent_orch_decision_fini(&d);
            return 0;
        }
        agent_progressf(g->out, "step %d search GET %s: %zu characters\n", g->step, d.fetched,
                  strlen(d.text));
        g->search_text = d.text;
        g->search_from = d.fetched;
        g->replanned = 0;
        int p = planner(g, 0, err);
        g->search_text = NULL;
        g->search_from = NULL;
        agent_orch_decision_fini(&d);
        if (p != 0 || !g->replanned)
            return p;
        g->replanned = 0;
        snprintf(cur, sizeof cur, "%s", g->subgoal);
        when = "replan";
    }
    return 0;
}

/* ---- the loop ------------------------------------------------------------- */

static int worker_turn(goal_run *g, const char *first_note, char *err)
{
    char extra[2600];
    snprintf(extra, sizeof extra, "%s%s%s%s%s%s", first_note ? first_note : "",
             first_note ? "\n" : "", g->guidance[0] ? "Planner: " : "", g->guidance,
             g->guidance[0] && g->nudge[0] ? "\n" : "", g->nudge);
    g->nudge[0] = '\0';
    g->step_deadline =
        g->o->step_timeout_ms > 0 ? base_monotime_ms() + g->o->step_timeout_ms : 0;
    if (observe(g, g->wmsgs, extra, g->o->screenshot, err) != BASE_OK) {
        call_failed(g, BASE_ENOMEM, err);
        return -1;
    }
    model_llm_reply rep;
    if (!model_call(g, MODEL_LLM_WORKER, g->wmsgs, &rep, err))
        return -1;
    int claimed = 0, stop = 0, ran = 0, rc = 0;
    for (int i = 0; i < rep.n_calls; i++) {
        const model_llm_call *c = &rep.calls[i];
        int late = g->step_deadline > 0 && base_monotime_ms() >= g->step_deadline;
        if (stop || late || ran >= AGENT_GOAL_BATCH || g->step >= g->o->max_steps) {
            /* Every call gets its answer, run or not (the API's rule). */
            cJSON *j = cJSON_CreateObject();
            if (late && !stop)
                agent_progressf(g->out, "step %d worker %s not run: the step's %d ms are spent\n",
                          g->step + 1, c->name, g->o->step_timeout_ms);
            if (j && !cJSON_AddStringToObject(
                         j, "not_run",
                         stop   ? "the turn ended after a call that changed the page: read the "
                                  "new page first"
                         : late ? "the step's time (--step-timeout) was spent before this call"
                                : "over this turn's limit of calls"))
                cJSON_Delete(j), j = NULL;
            if (add_result(g, c->id, j) != BASE_OK) {
                call_failed(g, BASE_ENOMEM, "out of memory");
                rc = -1;
                break;
            }
            continue;
        }
        int k = run_call(g, c, &claimed, err);
        ran++;
        if (k < 0) {
            /* Answer the rest so the conversation stays valid in ledger
             * and trace, then end. */
            for (int m = i + 1; m < rep.n_calls; m++)
                model_llm_add_tool_result(g->wmsgs, rep.calls[m].id, "{\"not_run\": \"run ended\"}");
            rc = -1;
            break;
        }
        if (k == 0)
            stop = 1;
    }
    if (rc == 0 && rep.n_calls == 0) {
        /* Text without a call: the Worker thinks it is finished or is stuck;
         * the Planner decides. */
        claimed = 1;
        snprintf(g->worker_claim, sizeof g->worker_claim, "%.700s",
                 rep.content ? rep.content : "");
    }
    model_llm_reply_fini(&rep);
    if (rc < 0)
        return -1;
    return claimed;
}

/* Opens the run's trace on the session (see agent_goal_opts.trace). */
static base_err open_trace(fovea_session *s, const agent_goal_opts *o, char *err)
{
    if (o->resume) {
        /* This run rewrites trace.jsonl: the earlier part is kept beside
         * it (trace.1.jsonl, trace.2.jsonl...). */
        char from[1200], to[1200];
        snprintf(from, sizeof from, "%s/trace.jsonl", o->out_dir);
        for (int k = 1; k < 1000; k++) {
            snprintf(to, sizeof to, "%s/trace.%d.jsonl", o->out_dir, k);
            if (access(to, F_OK) == 0)
                continue;
            if (access(from, F_OK) == 0 && rename(from, to) != 0)
                return base_errf(err, BASE_EIO, "cannot keep %s as %s: %s", from, to,
                                 strerror(errno));
            break;
        }
    }
    agent_trace *tr = NULL;
    base_err e = agent_trace_open(o->out_dir, o->trace, &tr, err);
    if (!e)
        fovea_session_set_trace(s, tr);
    return e;
}

static void close_trace(fovea_session *s, const agent_goal_result *res)
{
    agent_trace *tr = fovea_session_trace(s);
    if (!tr)
        return;
    fovea_session_set_trace(s, NULL);
    int ok = res->end == AGENT_GOAL_DONE;
    if (res->end == AGENT_GOAL_INTERRUPTED && base_interrupted())
        agent_trace_close_interrupted(tr, res->last_step, res->total_ms, res->reason,
                                      base_signal_name(base_interrupted()));
    else
        agent_trace_close(tr, ok, ok ? 0 : res->last_step, res->total_ms, res->reason);
}

base_err agent_goal_run(fovea_session *s, const agent_goal_opts *o, agent_goal_result *res,
                        char *err)
{
    memset(res, 0, sizeof *res);
    res->end = AGENT_GOAL_ERROR;
    if (!s || !o || !o->goal || !o->goal[0] || !o->llm)
        return base_errf(err, BASE_EINVAL, "agent_goal_run: a session, a goal and a client");
    agent_goal_opts oo = *o;
    if (oo.max_steps <= 0)
        oo.max_steps = AGENT_GOAL_MAX_STEPS;
    if (oo.planner_every <= 0)
        oo.planner_every = AGENT_GOAL_PLANNER_EVERY;
    goal_run g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.o = &oo;
    g.res = res;
    g.out = oo.progress ? oo.progress : stderr;
    agent_loop_init(&g.lp);
    double t0 = base_monotime_ms();
    char first[700] = "";
    base_err e = oo.trace && oo.out_dir ? open_trace(s, &oo, err) : BASE_OK;
    if (!e && oo.resume) {
        e = agent_ledger_load(oo.out_dir, fovea_session_secrets(s), &g.l, err);
        if (!e) {
            int next = 0, uncertain = 0;
            agent_ledger_resume_point(g.l, &next, &uncertain);
            g.step = next - 1;
            if (uncertain) {
                /* It may have reached the page: the Worker looks first. The
                 * ledger closes it as uncertain so the numbering goes on. */
                snprintf(first, sizeof first,
                         "RESUMED: the run stopped during step %d (%s %.200s); it may or may "
                         "not have taken effect. Check the page before doing it again.",
                         uncertain, g.l->pending_tool ? g.l->pending_tool : "?",
                         g.l->pending_args ? g.l->pending_args : "");
                agent_step_report rep = {uncertain, "worker", g.l->pending_tool,
                                         g.l->pending_call_id, g.l->pending_args, 0, 1,
                                         "interrupted", "the process died during this step",
                                         ""};
                e = agent_ledger_step_end(g.l, &rep);
                g.step = uncertain;
            } else {
                snprintf(first, sizeof first,
                         "RESUMED after step %d: the steps before are done (see the ledger); "
                         "do not repeat them.",
                         g.step);
            }
            if (!e)
                e = timed_sync(&g, err);
            agent_progressf(g.out, "resume: %s\n", first);
        }
    } else if (!e) {
        e = agent_ledger_create(oo.goal, oo.out_dir, fovea_session_secrets(s), &g.l, err);
        if (!e)
            e = timed_sync(&g, err);
    }
    g.wmsgs = cJSON_CreateArray();
    g.pmsgs = cJSON_CreateArray();
    /* The prompts end with the rule about framed page text; the nonce is
     * in the frames only, so the prefixes stay byte-stable. */
    g.nonce = agent_untrusted_nonce();
    char worker_prompt[sizeof WORKER_PROMPT + 600], planner_prompt[sizeof PLANNER_PROMPT + 600];
    snprintf(worker_prompt, sizeof worker_prompt, "%s %s", WORKER_PROMPT, agent_untrusted_rule);
    snprintf(planner_prompt, sizeof planner_prompt, "%s %s", PLANNER_PROMPT,
             agent_untrusted_rule);
    /* The brief list: the everyday tools in one-line form and more_tools
     * for the rest (agent/session/tool_brief.c); a third of the tokens of
     * the full list on every Worker call. */
    g.tools = tool_functions_brief_json(fovea_session_permits(s));
    char planner_schema[sizeof PLANNER_SCHEMA_FMT + sizeof ANSWER_ANY];
    snprintf(planner_schema, sizeof planner_schema, PLANNER_SCHEMA_FMT,
             oo.answer_schema ? ANSWER_ANY : ANSWER_TEXT);
    g.schema = cJSON_Parse(planner_schema);
    /* The answer's shape, when the user gave one: at the end of the
     * Planner's system prompt and of the Worker's task message, both
     * byte-stable for the run (prompt caches keep them). */
    char *shape = oo.answer_schema ? agent_answer_schema_prompt(oo.answer_schema) : NULL;
    size_t pcap = strlen(planner_prompt) + (shape ? strlen(shape) : 0) + 2;
    char *pprompt = base_malloc(pcap);
    if (pprompt)
        snprintf(pprompt, pcap, "%s%s%s", planner_prompt, shape ? " " : "", shape ? shape : "");
    if (!e)
        e = agent_orch_init(&g.orch, err);
    if (!e && (!g.wmsgs || !g.pmsgs || !g.tools || !g.schema || !pprompt ||
               (oo.answer_schema && !shape) ||
               model_llm_add_message(g.wmsgs, "system", worker_prompt) ||
               model_llm_add_message(g.pmsgs, "system", pprompt)))
        e = base_errf(err, BASE_ENOMEM, "out of memory");
    base_free(pprompt);
    /* The goal opens the Worker's conversation too (after the prefix). */
    size_t tcap = 1200 + (shape ? strlen(shape) + 200 : 0);
    char *task = e ? NULL : base_malloc(tcap);
    if (task)
        snprintf(task, tcap, "TASK: %.1100s%s%s%s", oo.goal, shape ? "\n" : "",
                 shape ? shape : "",
                 shape ? " When you call done, its text is that JSON value." : "");
    if (!e && (!task || model_llm_add_message(g.wmsgs, "user", task) != BASE_OK))
        e = base_errf(err, BASE_ENOMEM, "out of memory");
    base_free(task);
    if (!e) {
        int note = first[0] != 0, idle = 0;
        int routed = orchestrate(&g, oo.goal, "start", err);
        for (; routed == 0;) {
            if (base_interrupted()) {
                res->end = AGENT_GOAL_INTERRUPTED;
                snprintf(res->reason, sizeof res->reason, "interrupted by %s after step %d",
                         base_signal_name(base_interrupted()), g.step);
                break;
            }
            if (g.step >= oo.max_steps) {
                res->end = AGENT_GOAL_STEPS_OUT;
                snprintf(res->reason, sizeof res->reason,
                         "max_steps: %d steps without the planner declaring the task done",
                         g.step);
                break;
            }
            int before = g.step;
            int claimed = worker_turn(&g, note ? first : NULL, err);
            note = 0;
            if (claimed < 0)
                break;
            /* Turns without a tool call do not count as steps: a model
             * that only talks would never reach --max-steps. */
            idle = g.step == before ? idle + 1 : 0;
            if (idle >= 3) {
                res->end = AGENT_GOAL_LOOP;
                snprintf(res->reason, sizeof res->reason,
                         "%s: the Worker made no tool call in %d turns in a row",
                         AGENT_LOOP_STOPPED, idle);
                break;
            }
            if (claimed || g.since_planner >= oo.planner_every) {
                g.replanned = 0;
                int p = planner(&g, claimed, err);
                if (p == 0 && g.replanned) {
                    g.replanned = 0;
                    p = orchestrate(&g, g.subgoal, "replan", err);
                }
                if (p != 0)
                    break;
            }
        }
    }
    if (g.l)
        res->last_step = g.l->last_step;
    res->total_ms = base_monotime_ms() - t0;
    base_free(g.outline);
    for (int i = 0; i < g.n_reads; i++)
        base_free(g.reads[i].value);
    fovea_session_outline_free(g.planner_ol);
    cJSON_Delete(g.wmsgs);
    cJSON_Delete(g.pmsgs);
    cJSON_Delete(g.tools);
    cJSON_Delete(g.schema);
    agent_ledger_destroy(g.l);
    agent_orch_fini(&g.orch);
    base_free(shape);
    if (e)
        snprintf(res->reason, sizeof res->reason, "%s", err);
    if (oo.trace)
        close_trace(s, res);
    return e;
}
