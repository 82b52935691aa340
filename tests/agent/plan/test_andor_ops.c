/* tests/agent/plan/test_andor_ops.c: the model-backed operators of the AND/OR
 * planner (agent/plan/andor_ops.c, agent/plan/andor_run.h) on a real page.
 *
 * THE MODEL IS A REPLAY: tests/harness/replay.h, in chat mode, serves the
 * answers queued by each case below (written by hand for these cases), in
 * order, with scripted token usage. It is not a model; it checks each
 * request's shape as the API does and records it, so the cases can check
 * what fovea sent (the page's outline, the error quoted after a bad answer)
 * and what it did with each answer. The page is a fixture shop
 * (tests/fixtures/pages/andor/) in the harness's headless Chromium; the
 * engine (agent/plan/andor.c) applies the operators' edits where a case steps
 * the tree.
 *
 * expand_action: an ACTION answer ("click", an alias) becomes click_at with
 *   compact arguments; the request carried the page's outline (the real
 *   prices) and the tool list; one engine step expands, executes (the page
 *   moves to the product), summarizes (progress and notes kept) and
 *   updates; on_call reports each call's scripted tokens, cached ones too.
 * expand_children: AND children in order (ordered false kept), OR
 *   alternatives with scores; a score of 1.5 is refused and asked again
 *   with the error quoted, then accepted.
 * depth_limit: a node at the depth limit is told so, and an AND answer
 *   for it is refused and asked again until it is an action.
 * no_response_format: against a server that refuses response_format, the
 *   schema goes into the system message and the JSON is read out of the
 *   text around it; the answer is checked and applied the same way.
 * retries: a schema-violating answer, an unknown tool, bad arguments: each
 *   next request quotes the previous error; after 1 + AGENT_ANDOR_OP_RETRIES
 *   requests the operator FAILS, on_call says so with the last error.
 * repair_update_ids: repair prunes only the node's own open children (an
 *   unknown id, a grandchild, a child already pruned are refused), adds
 *   only new children; update never prunes the root or the path to the
 *   node that ran; rewrites are applied.
 * repair_reason: through the engine, an AND whose first child's click finds
 *   nothing (tried twice, never reached the page) fails, and its repair
 *   request names the failed child and what the tool said.
 * complete_answer: the completion check's "no" and its reason reach the
 *   engine's buffer; the final answer is written.
 * table_modes: --candidates on: one constraints call, columns from it, the
 *   summarizer's candidate rows applied, the request offers "candidates";
 *   off: no constraints call, no table, and an answer carrying candidates
 *   is refused; auto: a constraint-heavy task keeps it, a procedure not.
 * cost_cap: a budget too small for the request: OP_STOP, nothing sent,
 *   stop reason cost_cap_exceeded.
 * execute_once: an action that reached the page (a navigation that landed
 *   on a 404) is never executed again; one that did not (an element not
 *   there) is tried again up to the retry limit; a press that reached the
 *   button while the page showed no change (an order sent in the
 *   background) failed and is not pressed again (the page counts one). A
 *   note action adds a note and touches nothing.
 * rollback: to the OR node's URL only when the page moved on (a navigate
 *   call then), not when it is already there, never to a masked URL.
 * step_timeout: the expansion's model call gets the step's deadline: a
 *   reply slower than --step-timeout ends the run (OP_STOP) in time.
 * interrupted: after a stop signal an operator sends nothing and stops the
 *   run as interrupted, naming the signal.
 * utf8_cuts: an error quoting a model's text cut inside a character still
 *   goes out as valid UTF-8, in the next request and in the log line.
 * page_dies: the renderer crashes: the next operator reads a dead page and
 *   stops the run as an error, with no model call.
 * secrets: a secret typed into the page never reaches a prompt (the
 *   outline is scrubbed), and a model's answer that repeats it is masked
 *   in the error line on_call hands to the runner's log.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <string.h>

#include "agent/plan/andor_run.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/utf8.h"
#include "cdp/cdp.h"
#include "harness.h"
#include "replay.h"

#define MAX_CALLS 32

typedef struct rec_call {
    agent_andor_opkind kind;
    char node[AGENT_ANDOR_ID_MAX];
    model_budget_usage usage;
    long estimate;
    int attempts, ok;
    char why[256];
} rec_call;

typedef struct fx {
    replay *r;
    model_llm *l;
    cdp_page *p;
    fovea_session *s;
    agent_andor_tree *t;
    agent_andor_opctx *c;
    agent_andor_ops ops;
    model_budget budget;
    rec_call calls[MAX_CALLS];
    int n_calls;
    int tools; /* tool calls the operators ran */
    char last_tool[64];
    char err[BASE_ERRBUF_SIZE];
} fx;

static void on_call(void *user, const agent_andor_call *c)
{
    fx *f = user;
    if (f->n_calls >= MAX_CALLS)
        return;
    rec_call *r = &f->calls[f->n_calls++];
    r->kind = c->kind;
    snprintf(r->node, sizeof r->node, "%s", c->node_id ? c->node_id : "");
    r->usage = c->usage;
    r->estimate = c->estimate;
    r->attempts = c->attempts;
    r->ok = c->ok;
    snprintf(r->why, sizeof r->why, "%s", c->why ? c->why : "");
}

static void on_tool(void *user, const tool_result *r)
{
    fx *f = user;
    f->tools++;
    snprintf(f->last_tool, sizeof f->last_tool, "%s", r->rec.action);
}

/* A page on path, a session, a replay in chat mode, a client, a tree for
 * task and the operators (budget limit 0 = unlimited, counting). */
static int fx_start(fx *f, const char *path, const char *task, agent_cand_mode mode, long limit)
{
    memset(f, 0, sizeof *f);
    f->p = harness_open(1280, 800, 1, path);
    if (!f->p)
        return 0;
    fovea_session_opts so;
    fovea_session_opts_init(&so);
    so.humanize = 0;
    so.overlays = AGENT_OVERLAYS_NONE;
    if (fovea_session_create(f->p, &so, &f->s, f->err) != BASE_OK ||
        replay_start(&f->r, f->err) != BASE_OK) {
        fprintf(stderr, "setup: %s\n", f->err);
        return 0;
    }
    replay_set_chat(f->r, 1);
    model_llm_config lc;
    model_llm_config_init(&lc);
    lc.base_url = replay_base_url(f->r);
    lc.model = "replayed-model";
    lc.max_retries = 0;
    lc.timeout_ms = 20000;
    model_budget_init(&f->budget, limit);
    if (model_llm_create(&lc, &f->l, f->err) != BASE_OK ||
        agent_andor_tree_create(task, NULL, &f->t, f->err) != BASE_OK) {
        fprintf(stderr, "setup: %s\n", f->err);
        return 0;
    }
    char url[512];
    harness_url(0, path, url, sizeof url);
    agent_andor_set_url(f->t, url);
    agent_andor_ops_opts o;
    memset(&o, 0, sizeof o);
    o.llm = f->l;
    o.budget = &f->budget;
    o.candidates = mode;
    o.on_call = on_call;
    o.on_tool = on_tool;
    o.user = f;
    if (agent_andor_ops_create(f->s, &o, &f->c, f->err) != BASE_OK) {
        fprintf(stderr, "ops: %s\n", f->err);
        return 0;
    }
    agent_andor_ops_bind(f->c, &f->ops);
    return 1;
}

static void fx_end(fx *f)
{
    agent_andor_ops_destroy(f->c);
    agent_andor_tree_destroy(f->t);
    model_llm_destroy(f->l);
    replay_destroy(f->r);
    fovea_session_destroy(f->s);
    if (f->p)
        cdp_page_close(f->p);
}

/* Queues one answer (JSON text) with scripted usage. */
static void answer(fx *f, const char *json, long prompt, long completion, long cached)
{
    replay_reply r;
    memset(&r, 0, sizeof r);
    r.content = json;
    r.prompt_tokens = prompt;
    r.completion_tokens = completion;
    r.cached_tokens = cached;
    replay_push(f->r, &r);
}

/* Request i's body (base_free), "" when none. */
static char *body(fx *f, int i)
{
    replay_seen s;
    if (replay_request(f->r, i, &s) != BASE_OK)
        return base_strdup("");
    char *b = base_strdup(s.body ? s.body : "");
    replay_seen_fini(&s);
    return b;
}

static int body_has(fx *f, int i, const char *needle)
{
    char *b = body(f, i);
    int yes = b && strstr(b, needle) != NULL;
    base_free(b);
    return yes;
}

static char *page_url(fx *f)
{
    cJSON *v = NULL;
    char *u = NULL;
    if (cdp_page_evaluate(f->p, "location.href", &v, 3000, NULL) == BASE_OK && cJSON_IsString(v))
        u = base_strdup(v->valuestring);
    cJSON_Delete(v);
    return u ? u : base_strdup("");
}

static int step(fx *f)
{
    agent_andor_event ev;
    return agent_andor_step(f->t, &f->ops, &ev, f->err) == BASE_OK;
}

#define START(f, path, task, mode, limit)                                                          \
    fx f;                                                                                          \
    if (!fx_start(&f, path, task, mode, limit)) {                                                  \
        fx_end(&f);                                                                                \
        CHECK_MSG(0, "fixture: %s", f.err);                                                        \
    }

static void expand_action(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the details of the Lumo X2 projector", AGENT_CAND_OFF, 0);
    answer(&f,
           "{\"type\": \"action\", \"tool\": \"click\", \"args\": \"{ \\\"target\\\": "
           "\\\"Lumo X2 details\\\" }\", \"reasoning\": \"the link is on the page\"}",
           1234, 56, 100);
    answer(&f,
           "{\"progress\": \"Opened the Lumo X2 page.\", \"observation\": \"Lumo X2 costs "
           "$649.00.\", \"notes\": [\"Lumo X2: $649.00, 100-inch\", \"  \"]}",
           900, 40, 0);
    answer(&f, "{\"prune\": [], \"rewrite\": [], \"reasoning\": \"nothing to change\"}", 700, 20,
           0);
    CHECK_EQ(agent_andor_ops_start(f.c, f.t, f.err), AGENT_ANDOR_OP_OK);
    CHECK_EQ(replay_count(f.r), 0); /* no table: no constraints call */
    CHECK(agent_andor_ops_table(f.c) == NULL);
    CHECK(step(&f));
    const agent_andor_node *n = agent_andor_node_at(f.t, 0);
    CHECK_EQ(n->type, AGENT_ANDOR_ACTION);
    CHECK_STR(n->tool, "click_at"); /* the alias resolved */
    CHECK_STR(n->args, "{\"target\":\"Lumo X2 details\"}");
    CHECK_EQ(n->status, AGENT_ANDOR_SUCCESS);
    CHECK_EQ(replay_count(f.r), 3);
    /* The expansion saw the real page and the tools; the summarizer the
     * page the click led to. */
    CHECK(body_has(&f, 0, "$649.00"));
    CHECK(body_has(&f, 0, "Lumo X2 details"));
    CHECK(body_has(&f, 0, "- click_at(target: string or {label, index}, verb?: string"));
    CHECK(body_has(&f, 0, "- note(text: string)"));
    CHECK(!body_has(&f, 0, "- done(")); /* the tree decides when the task is done */
    CHECK(body_has(&f, 0, "\"json_schema\""));
    CHECK(body_has(&f, 1, "Image size"));
    /* What the action did is quoted page content (issue 23's frame). */
    CHECK(body_has(&f, 1, "LAST ACTION: 1 (quoted below)\\n<<<UNTRUSTED action result nonce="));
    CHECK(body_has(&f, 1, ">>>\\n1 "));
    char *u = page_url(&f);
    CHECK_MSG(strstr(u, "/andor/lumo.html"), "page at %s", u);
    CHECK(strstr(agent_andor_url(f.t), "/andor/lumo.html"));
    base_free(u);
    CHECK_EQ(agent_andor_ops_steps(f.c), 1);
    CHECK_EQ(f.tools, 1);
    CHECK_STR(agent_andor_ops_progress(f.c), "Opened the Lumo X2 page.");
    CHECK_STR(agent_andor_ops_notes(f.c), "Lumo X2: $649.00, 100-inch"); /* blank note dropped */
    /* on_call: one line per operator call, with the replay's usage. */
    CHECK_EQ(f.n_calls, 3);
    CHECK_EQ(f.calls[0].kind, AGENT_ANDOR_OPK_EXPAND);
    CHECK_STR(f.calls[0].node, "1");
    CHECK_EQ(f.calls[0].usage.prompt, 1234);
    CHECK_EQ(f.calls[0].usage.completion, 56);
    CHECK_EQ(f.calls[0].usage.cached, 100);
    CHECK(f.calls[0].estimate > 100);
    CHECK_EQ(f.calls[0].attempts, 1);
    CHECK_EQ(f.calls[0].ok, 1);
    CHECK_EQ(f.calls[1].kind, AGENT_ANDOR_OPK_SUMMARIZE);
    CHECK_EQ(f.calls[1].usage.prompt, 900);
    CHECK_EQ(f.calls[2].kind, AGENT_ANDOR_OPK_UPDATE);
    CHECK_EQ(f.budget.total.prompt, 1234 + 900 + 700);
    fx_end(&f);
}

static void expand_children(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Find the cheapest projector and open it", AGENT_CAND_OFF, 0);
    answer(&f,
           "{\"type\": \"and\", \"ordered\": false, \"description\": \"Find and open the "
           "cheapest projector\", \"children\": [{\"description\": \"Find the cheapest "
           "projector\"}, {\"description\": \"Open its details\"}], \"reasoning\": \"two "
           "steps\"}",
           500, 30, 0);
    CHECK(step(&f));
    const agent_andor_node *root = agent_andor_node_at(f.t, 0);
    CHECK_EQ(root->type, AGENT_ANDOR_AND);
    CHECK_EQ(root->ordered, 0);
    CHECK_STR(root->description, "Find and open the cheapest projector");
    CHECK_EQ(root->n_children, 2);
    CHECK_STR(agent_andor_node_at(f.t, root->children[1])->description, "Open its details");
    /* 1.1 next: an OR whose first answer has a score out of range. */
    answer(&f,
           "{\"type\": \"or\", \"children\": [{\"description\": \"Sort by price\", \"score\": "
           "1.5}, {\"description\": \"Read the prices in the list\", \"score\": 0.6}], "
           "\"reasoning\": \"two ways\"}",
           500, 30, 0);
    answer(&f,
           "{\"type\": \"or\", \"children\": [{\"description\": \"Read the prices in the "
           "list\", \"score\": 0.8}, {\"description\": \"Sort by price\", \"score\": 0.5}], "
           "\"reasoning\": \"two ways\"}",
           500, 30, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    int n11 = agent_andor_find(f.t, "1.1");
    CHECK(n11 > 0);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, n11, &e), AGENT_ANDOR_OP_OK);
    CHECK_EQ(e.type, AGENT_ANDOR_OR);
    CHECK_EQ(e.n_add, 2);
    CHECK_STR(e.add[0].description, "Read the prices in the list");
    CHECK_NEAR(e.add[0].score, 0.8, 1e-9);
    CHECK_STR(e.reasoning, "two ways");
    agent_andor_edit_fini(&e);
    CHECK_EQ(replay_count(f.r), 3);
    CHECK(body_has(&f, 2, "has score 1.5: scores are from 0 to 1"));
    CHECK(!body_has(&f, 1, "scores are from 0 to 1"));
    CHECK_EQ(f.calls[1].attempts, 2);
    CHECK_EQ(f.calls[1].usage.prompt, 1000); /* both attempts */
    CHECK_EQ(f.calls[1].ok, 1);
    fx_end(&f);
}

static void depth_limit(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    agent_andor_tree_destroy(f.t);
    agent_andor_config cfg;
    agent_andor_config_init(&cfg);
    cfg.max_depth = 1;
    CHECK_OK(agent_andor_tree_create("Open the Nova 80 details", &cfg, &f.t, f.err));
    int k = -1;
    CHECK_OK(agent_andor_inject(f.t, "1", "Click the Nova 80 link", -1, 0, &k, f.err));
    answer(&f,
           "{\"type\": \"and\", \"children\": [{\"description\": \"Find the link\"}], "
           "\"reasoning\": \"\"}",
           300, 10, 0);
    answer(&f,
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": {\"target\": \"Nova 80 "
           "details\"}, \"reasoning\": \"\"}",
           300, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, k, &e), AGENT_ANDOR_OP_OK);
    CHECK_EQ(e.type, AGENT_ANDOR_ACTION);
    CHECK_STR(e.args, "{\"target\":\"Nova 80 details\"}");
    CHECK(body_has(&f, 0, "at depth 1 (the depth limit: it must be an action)"));
    CHECK(body_has(&f, 1, "node 1.1 is at the depth limit (1): it must be an action"));
    agent_andor_edit_fini(&e);
    fx_end(&f);
}

static void no_response_format(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    replay_refuse_format(f.r, 1);
    answer(&f,
           "Here is my answer:\n```json\n{\"type\": \"action\", \"tool\": \"click_at\", \"args\": "
           "{\"target\": \"Nova 80 details\"}, \"reasoning\": \"the link\"}\n```",
           300, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_OK);
    CHECK_STR(e.tool, "click_at");
    CHECK_STR(e.args, "{\"target\":\"Nova 80 details\"}");
    agent_andor_edit_fini(&e);
    CHECK(model_llm_schema_fallback(f.l));
    /* The schema went into the system message instead. */
    CHECK(body_has(&f, replay_count(f.r) - 1,
                   "\\\"enum\\\":[\\\"and\\\",\\\"or\\\",\\\"action\\\"]"));
    fx_end(&f);
}

/* A tool the run does not permit (evaluate_script without --allow-scripts),
 * asked for anyway, as a page might tell a model to: the answer is refused
 * as blocked, naming the flag, counted with the run's blocked calls, and
 * the script never runs. */
static void blocked_tool(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    for (int i = 0; i <= AGENT_ANDOR_OP_RETRIES; i++)
        answer(&f,
               "{\"type\": \"action\", \"tool\": \"evaluate_script\", \"args\": "
               "\"{\\\"expression\\\": \\\"document.title = 'owned'\\\"}\", \"reasoning\": \"\"}",
               400, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_FAILED);
    CHECK(e.tool == NULL);
    CHECK_MSG(body_has(&f, 1, "blocked: "), "the refusal says blocked");
    CHECK(body_has(&f, 1, "--allow-scripts"));
    CHECK(!body_has(&f, 1, "unknown tool"));
    const char *last = NULL;
    CHECK_EQ(fovea_session_blocked(f.s, &last), AGENT_ANDOR_OP_RETRIES + 1);
    cJSON *t = NULL;
    CHECK_OK(cdp_page_evaluate(f.p, "document.title", &t, 5000, f.err));
    CHECK(cJSON_IsString(t) && strcmp(t->valuestring, "owned") != 0);
    cJSON_Delete(t);
    fx_end(&f);
}

static void retries(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    answer(&f, "{\"type\": \"maybe\", \"reasoning\": \"?\"}", 400, 10, 0);
    answer(&f,
           "{\"type\": \"action\", \"tool\": \"teleport\", \"args\": \"{}\", \"reasoning\": \"\"}",
           400, 10, 0);
    answer(
        &f,
        "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": \"{\\\"targte\\\": \\\"Nova 80 "
        "details\\\"}\", \"reasoning\": \"\"}",
        400, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_FAILED);
    CHECK_EQ(e.n_add, 0);
    CHECK(e.tool == NULL);
    CHECK_EQ(replay_count(f.r), 1 + AGENT_ANDOR_OP_RETRIES);
    CHECK_EQ(replay_pending(f.r), 0);
    CHECK(!body_has(&f, 0, "not accepted"));
    CHECK(body_has(&f, 1, "Your answer was not accepted"));
    CHECK(body_has(&f, 1, "must be one of: and, or, action"));
    CHECK(body_has(&f, 2, "unknown tool 'teleport'"));
    CHECK_EQ(f.n_calls, 1);
    CHECK_EQ(f.calls[0].ok, 0);
    CHECK_EQ(f.calls[0].attempts, 3);
    CHECK_MSG(strstr(f.calls[0].why, "argument 'targte' is not known"), "why: %s", f.calls[0].why);
    CHECK_EQ(f.calls[0].usage.prompt, 1200);
    /* The engine fails the node whose expansion failed. */
    answer(&f, "{\"type\": \"or\", \"children\": [], \"reasoning\": \"\"}", 400, 10, 0);
    answer(&f,
           "{\"type\": \"and\", \"children\": [{\"description\": \"a\"}, {\"description\": "
           "\" A. \"}], \"reasoning\": \"\"}",
           400, 10, 0);
    answer(&f, "{\"type\": \"action\", \"tool\": \"note\", \"args\": 5, \"reasoning\": \"\"}", 400,
           10, 0);
    CHECK(step(&f));
    CHECK_EQ(agent_andor_node_at(f.t, 0)->status, AGENT_ANDOR_FAIL);
    CHECK(body_has(&f, 4, "needs at least one child"));
    CHECK_MSG(strstr(f.calls[1].why, "\"args\" must be a JSON object"), "why: %s", f.calls[1].why);
    CHECK(body_has(&f, 5, "children 1 and 2 are the same"));
    CHECK_EQ(f.tools, 0); /* nothing ran */
    fx_end(&f);
}

static void repair_update_ids(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Compare the projectors", AGENT_CAND_OFF, 0);
    int a = -1, b = -1, c = -1;
    CHECK_OK(agent_andor_inject(f.t, "1", "Open the Lumo X2", -1, 0, &a, f.err));
    CHECK_OK(agent_andor_inject(f.t, "1", "Open the Nova 80", -1, 0, &b, f.err));
    CHECK_OK(agent_andor_inject(f.t, "1.1", "Read its price", -1, 0, &c, f.err));
    CHECK_OK(agent_andor_remove(f.t, "1.1.1", f.err)); /* closed: cannot be pruned again */
    answer(&f, "{\"decision\": \"repair\", \"prune\": [\"1.9\"], \"add\": [], \"reasoning\": \"\"}",
           300, 10, 0);
    answer(&f,
           "{\"decision\": \"repair\", \"prune\": [\"1.1.1\"], \"add\": [], \"reasoning\": \"\"}",
           300, 10, 0);
    answer(&f,
           "{\"decision\": \"repair\", \"prune\": [\"1.2\"], \"add\": [{\"description\": \"open "
           "the lumo x2.\"}], \"reasoning\": \"\"}",
           300, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.repair(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_FAILED);
    CHECK(body_has(&f, 1, "there is no node '1.9' in the tree"));
    CHECK(body_has(&f, 2, "1.1.1 is not a child of 1"));
    CHECK_MSG(strstr(f.calls[0].why, "is already child 1.1"), "why: %s", f.calls[0].why);
    agent_andor_edit_fini(&e);
    /* Valid: prune 1.2, add a new child; the repair's reason was given. */
    answer(&f,
           "{\"decision\": \"repair\", \"prune\": [\"1.2\", \"1.2\"], \"add\": [{\"description\": "
           "\"Use the search box\"}], \"reasoning\": \"the Nova page is gone\"}",
           300, 10, 0);
    CHECK_EQ(f.ops.repair(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_OK);
    CHECK_EQ(e.n_prune, 1);
    CHECK_EQ(e.prune[0], b);
    CHECK_EQ(e.n_add, 1);
    CHECK_STR(e.add[0].description, "Use the search box");
    CHECK_EQ(e.prune_self, 0);
    CHECK(body_has(&f, 3, "REASON FOR REPAIR"));
    agent_andor_edit_fini(&e);
    answer(&f, "{\"decision\": \"prune\", \"reasoning\": \"hopeless\"}", 300, 10, 0);
    CHECK_EQ(f.ops.repair(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_OK);
    CHECK_EQ(e.prune_self, 1);
    agent_andor_edit_fini(&e);
    /* An AND may give up on a child that is already closed by failure or
     * removal (it stops blocking the AND); the answer is accepted. */
    answer(&f,
           "{\"decision\": \"repair\", \"prune\": [\"1.1.1\"], \"add\": [{\"description\": "
           "\"Read the price on the list\"}], \"reasoning\": \"\"}",
           300, 10, 0);
    CHECK_EQ(f.ops.repair(f.ops.ctx, f.t, a, &e), AGENT_ANDOR_OP_OK);
    CHECK_EQ(e.n_prune, 1);
    CHECK_EQ(e.prune[0], c);
    agent_andor_edit_fini(&e);
    /* Update after 1.2 ran: not the root, not 1.2 itself, not unknown. */
    int before = replay_count(f.r);
    answer(&f, "{\"prune\": [\"1\"], \"rewrite\": [], \"reasoning\": \"\"}", 300, 10, 0);
    answer(&f, "{\"prune\": [\"1.2\"], \"rewrite\": [], \"reasoning\": \"\"}", 300, 10, 0);
    answer(&f,
           "{\"prune\": [\"1.1\"], \"rewrite\": [{\"id\": \"1.2\", \"description\": \"Open the "
           "Nova 80 page from the list\"}], \"reasoning\": \"1.1 is not needed\"}",
           300, 10, 0);
    CHECK_EQ(f.ops.update(f.ops.ctx, f.t, b, &e), AGENT_ANDOR_OP_OK);
    CHECK(body_has(&f, before + 1, "the root cannot be pruned"));
    CHECK(body_has(&f, before + 2, "1.2 holds the node that just ran"));
    CHECK(body_has(&f, before, "TREE:")); /* the whole tree */
    CHECK_EQ(e.n_prune, 1);
    CHECK_EQ(e.prune[0], a);
    CHECK_EQ(e.n_rewrite, 1);
    CHECK_EQ(e.rewrite_node[0], b);
    CHECK_STR(e.rewrite_text[0], "Open the Nova 80 page from the list");
    agent_andor_edit_fini(&e);
    fx_end(&f);
}

static void repair_reason(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Compare the first two projectors", AGENT_CAND_OFF, 0);
    answer(&f,
           "{\"type\": \"and\", \"children\": [{\"description\": \"Press the Compare "
           "button\"}, {\"description\": \"Read the comparison\"}], \"reasoning\": \"two "
           "steps\"}",
           300, 10, 0);
    answer(&f,
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": {\"target\": \"Compare "
           "selected\", \"timeout_ms\": 800}, \"reasoning\": \"\"}",
           300, 10, 0);
    answer(&f, "{\"decision\": \"prune\", \"reasoning\": \"no compare feature\"}", 300, 10, 0);
    /* Step until the plan ends: 1.1 fails (not found, tried twice), 1.2 is
     * deleted with it, the root fails and asks for its repair. */
    for (int i = 0; i < 12 && !agent_andor_finished(f.t); i++)
        CHECK(step(&f));
    CHECK(agent_andor_finished(f.t));
    CHECK_EQ(replay_count(f.r), 3);
    CHECK_EQ(f.tools, AGENT_ANDOR_MAX_RETRIES);
    CHECK_EQ(f.calls[2].kind, AGENT_ANDOR_OPK_REPAIR);
    CHECK(body_has(&f, 2, "REASON FOR REPAIR: children that failed: 1.1 pruned, "));
    CHECK(body_has(&f, 2, "Compare selected"));
    CHECK(agent_andor_outcome(f.t) != AGENT_ANDOR_SUCCESS);
    fx_end(&f);
}

static void complete_answer(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Find a projector under $500", AGENT_CAND_OFF, 0);
    answer(&f, "{\"complete\": false, \"reasoning\": \"no price was noted\"}", 300, 10, 0);
    int yes = 1;
    char why[64] = "";
    CHECK_EQ(f.ops.complete(f.ops.ctx, f.t, 0, &yes, why, sizeof why), AGENT_ANDOR_OP_OK);
    CHECK_EQ(yes, 0);
    CHECK_STR(why, "no price was noted");
    CHECK(body_has(&f, 0, "this is the root"));
    CHECK(!body_has(&f, 0, "[ELEMENTS]")); /* the check needs no page */
    answer(&f, "{\"complete\": true, \"reasoning\": \"noted\"}", 300, 10, 0);
    CHECK_EQ(f.ops.complete(f.ops.ctx, f.t, 0, &yes, why, sizeof why), AGENT_ANDOR_OP_OK);
    CHECK_EQ(yes, 1);
    answer(&f, "{\"answer\": \"  \", \"reasoning\": \"\"}", 300, 10, 0);
    answer(&f, "{\"answer\": \"The Nova 80 costs $449.00.\", \"reasoning\": \"from the notes\"}",
           300, 10, 0);
    char ans[128];
    CHECK_EQ(agent_andor_ops_answer(f.c, f.t, ans, sizeof ans, f.err), AGENT_ANDOR_OP_OK);
    CHECK_STR(ans, "The Nova 80 costs $449.00.");
    CHECK(body_has(&f, 3, "no meaningful content (only whitespace)"));
    CHECK_STR(f.calls[f.n_calls - 1].node, "");
    CHECK_EQ(f.calls[f.n_calls - 1].kind, AGENT_ANDOR_OPK_ANSWER);
    fx_end(&f);
}

static const char *const heavy_task =
    "Find a projector under $500 with at least an 80-inch image and 4+ stars";

static void table_modes(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    {
        START(f, "/andor/list.html", heavy_task, AGENT_CAND_ON, 0);
        answer(&f,
               "{\"constraints\": [{\"name\": \"price\", \"description\": \"under $500\"}, "
               "{\"name\": \"image size\", \"description\": \"80 inch or more\"}, {\"name\": "
               "\"rating\", \"description\": \"4 stars or more\"}], \"attributes\": [{\"name\": "
               "\"reviews\"}]}",
               300, 10, 0);
        CHECK_EQ(agent_andor_ops_start(f.c, f.t, f.err), AGENT_ANDOR_OP_OK);
        const agent_cand_table *t = agent_andor_ops_table(f.c);
        CHECK(t);
        CHECK_EQ(t->n_cols, 4);
        CHECK_EQ(t->cols[3].constraint, 0);
        CHECK_EQ(f.calls[0].kind, AGENT_ANDOR_OPK_CONSTRAINTS);
        answer(&f,
               "{\"progress\": \"Read the list.\", \"observation\": \"three projectors\", "
               "\"notes\": [], \"candidates\": {\"rows\": [{\"name\": \"Lumo X2\", \"status\": "
               "\"rejected\", \"cells\": [{\"column\": \"price\", \"value\": \"no\", "
               "\"evidence\": \"$649.00\"}]}, {\"name\": \"Nova 80\", \"cells\": [{\"column\": "
               "\"price\", \"value\": \"yes\", \"evidence\": \"$449.00\"}, {\"column\": \"Image "
               "Size\", \"value\": \"yes\"}, {\"column\": \"rating\", \"value\": \"yes\"}, "
               "{\"column\": \"reviews\", \"value\": \"98\"}]}]}}",
               300, 10, 0);
        CHECK_EQ(f.ops.summarize(f.ops.ctx, f.t, 0), AGENT_ANDOR_OP_OK);
        CHECK_EQ(t->n_rows, 2);
        CHECK_EQ(agent_cand_row_yes(t, 1), 3);
        CHECK_EQ(t->rows[0].status, AGENT_CAND_REJECTED);
        CHECK_STR(t->rows[1].cells[3].text, "98");
        CHECK(body_has(&f, 1, "\"candidates\""));
        CHECK(body_has(&f, 1, "under $500"));
        /* The next expansion sees the table's best rows. */
        answer(&f,
               "{\"type\": \"action\", \"tool\": \"note\", \"args\": \"{\\\"text\\\": \\\"Nova "
               "80 meets all\\\"}\", \"reasoning\": \"\"}",
               300, 10, 0);
        agent_andor_edit e;
        memset(&e, 0, sizeof e);
        CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_OK);
        CHECK(body_has(&f, 2, "| 1 | Nova 80 | candidate | 3 | 0 |"));
        CHECK_STR(e.tool, "note");
        agent_andor_edit_fini(&e);
        /* Ten more rows: prompts that get the whole table show the best
         * eight in full and the rest by name. */
        answer(&f,
               "{\"progress\": \"p\", \"observation\": \"o\", \"notes\": [], \"candidates\": "
               "{\"rows\": [{\"name\": \"P0\"}, {\"name\": \"P1\"}, {\"name\": \"P2\"}, "
               "{\"name\": \"P3\"}, {\"name\": \"P4\"}, {\"name\": \"P5\"}, {\"name\": "
               "\"P6\"}, {\"name\": \"P7\"}, {\"name\": \"P8\"}, {\"name\": \"P9\"}]}}",
               300, 10, 0);
        answer(&f, "{\"progress\": \"p\", \"observation\": \"o\", \"notes\": []}", 300, 10, 0);
        CHECK_EQ(f.ops.summarize(f.ops.ctx, f.t, 0), AGENT_ANDOR_OP_OK);
        CHECK_EQ(t->n_rows, 12);
        CHECK_EQ(f.ops.summarize(f.ops.ctx, f.t, 0), AGENT_ANDOR_OP_OK);
        CHECK(body_has(&f, 4, "CANDIDATES (the best 8 of 12, best first)"));
        /* Ranked: Nova 80 first, then P0..P9 as first seen, the rejected Lumo X2 last. */
        CHECK(body_has(&f, 4, "Also in the table (names only): P7; P8; P9; Lumo X2\\n"));
        fx_end(&f);
    }
    {
        START(f, "/andor/list.html", heavy_task, AGENT_CAND_OFF, 0);
        CHECK_EQ(agent_andor_ops_start(f.c, f.t, f.err), AGENT_ANDOR_OP_OK);
        CHECK_EQ(replay_count(f.r), 0);
        CHECK(agent_andor_ops_table(f.c) == NULL);
        answer(&f,
               "{\"progress\": \"p\", \"observation\": \"o\", \"notes\": [], \"candidates\": "
               "{\"rows\": []}}",
               300, 10, 0);
        answer(&f, "{\"progress\": \"p2\", \"observation\": \"o\", \"notes\": []}", 300, 10, 0);
        CHECK_EQ(f.ops.summarize(f.ops.ctx, f.t, 0), AGENT_ANDOR_OP_OK);
        CHECK(!body_has(&f, 0, "\"candidates\""));
        CHECK(body_has(&f, 1, "not accepted"));
        CHECK_STR(agent_andor_ops_progress(f.c), "p2");
        fx_end(&f);
    }
    {
        START(f, "/andor/list.html", heavy_task, AGENT_CAND_AUTO, 0);
        answer(&f, "{\"constraints\": [], \"attributes\": []}", 300, 10, 0);
        CHECK_EQ(agent_andor_ops_start(f.c, f.t, f.err), AGENT_ANDOR_OP_OK);
        CHECK_EQ(replay_count(f.r), 1);
        CHECK(agent_andor_ops_table(f.c) != NULL);
        fx_end(&f);
    }
    {
        START(f, "/andor/list.html", "Open the help page", AGENT_CAND_AUTO, 0);
        CHECK_EQ(agent_andor_ops_start(f.c, f.t, f.err), AGENT_ANDOR_OP_OK);
        CHECK_EQ(replay_count(f.r), 0);
        CHECK(agent_andor_ops_table(f.c) == NULL);
        fx_end(&f);
    }
}

static void cost_cap(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 50);
    answer(&f, "{\"type\": \"and\", \"children\": [{\"description\": \"x\"}], \"reasoning\": \"\"}",
           300, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_STOP);
    CHECK_EQ(replay_count(f.r), 0); /* nothing sent */
    const char *why = NULL;
    CHECK_EQ(agent_andor_ops_stop_reason(f.c, &why), AGENT_GOAL_COST_CAP);
    CHECK(strstr(why, "cost_cap_exceeded"));
    CHECK_EQ(f.n_calls, 1);
    CHECK_EQ(f.calls[0].attempts, 0);
    CHECK_EQ(f.calls[0].ok, 0);
    /* Through the engine: the run ends, the root stays where it was. */
    agent_andor_event ev;
    CHECK_OK(agent_andor_step(f.t, &f.ops, &ev, f.err));
    CHECK(ev.stop);
    CHECK(agent_andor_finished(f.t));
    CHECK_EQ(replay_count(f.r), 0);
    fx_end(&f);
}

static void execute_once(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the missing page", AGENT_CAND_OFF, 0);
    char url[512], args[700];
    harness_url(0, "/andor/missing.html", url, sizeof url);
    snprintf(args, sizeof args,
             "{\"type\": \"action\", \"tool\": \"navigate\", \"args\": \"{\\\"url\\\": "
             "\\\"%s\\\"}\", \"reasoning\": \"\"}",
             url);
    answer(&f, args, 300, 10, 0);
    CHECK(step(&f));
    /* The navigation landed on a 404: it failed, it reached the page, it
     * ran once. */
    const agent_andor_node *n = agent_andor_node_at(f.t, 0);
    CHECK_EQ(n->type, AGENT_ANDOR_ACTION);
    CHECK_EQ(n->status, AGENT_ANDOR_FAIL);
    CHECK_EQ(f.tools, 1);
    CHECK_EQ(n->retry_count, 1);
    CHECK_EQ(replay_count(f.r), 1); /* no summary of a failed action */
    fx_end(&f);

    START(g, "/andor/list.html", "Press the Compare button", AGENT_CAND_OFF, 0);
    answer(&g,
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": \"{\\\"target\\\": "
           "\\\"Compare selected\\\", \\\"timeout_ms\\\": 800}\", \"reasoning\": \"\"}",
           300, 10, 0);
    CHECK(step(&g));
    n = agent_andor_node_at(g.t, 0);
    CHECK_EQ(n->status, AGENT_ANDOR_FAIL);
    /* Not found: it never reached the page, so it was tried again. */
    CHECK_EQ(g.tools, AGENT_ANDOR_MAX_RETRIES);
    CHECK_EQ(agent_andor_ops_steps(g.c), AGENT_ANDOR_MAX_RETRIES);
    fx_end(&g);

    START(k, "/andor/list.html", "Note the price of the Nova 80", AGENT_CAND_OFF, 0);
    answer(&k,
           "{\"type\": \"action\", \"tool\": \"note\", \"args\": {\"text\": \"Nova 80 costs "
           "$449.00\"}, \"reasoning\": \"it is on the page\"}",
           300, 10, 0);
    CHECK(step(&k));
    CHECK_EQ(agent_andor_node_at(k.t, 0)->status, AGENT_ANDOR_SUCCESS);
    CHECK_EQ(k.tools, 0);
    CHECK_EQ(agent_andor_ops_steps(k.c), 0);
    CHECK_STR(agent_andor_ops_notes(k.c), "Nova 80 costs $449.00");
    CHECK_EQ(replay_count(k.r), 1); /* a note is not followed by a summary */
    fx_end(&k);

    /* The press reached the button but the page showed nothing in time
     * (an order sent in the background): a failure that may have taken
     * effect, with no URL change and no success to go by. Pressed once. */
    START(o, "/andor/order.html", "Place the order", AGENT_CAND_OFF, 0);
    answer(&o,
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": {\"target\": \"Place "
           "order\", \"expect_effect\": true}, \"reasoning\": \"\"}",
           300, 10, 0);
    CHECK(step(&o));
    n = agent_andor_node_at(o.t, 0);
    CHECK_EQ(n->status, AGENT_ANDOR_FAIL);
    CHECK_EQ(o.tools, 1);
    CHECK_EQ(n->retry_count, 1);
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate(o.p, "window.ordersPlaced", &v, 3000, NULL));
    CHECK(cJSON_IsNumber(v) && v->valuedouble == 1);
    cJSON_Delete(v);
    fx_end(&o);
}

static void rollback(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Find the Nova 80 price", AGENT_CAND_OFF, 0);
    answer(&f,
           "{\"type\": \"or\", \"children\": [{\"description\": \"Open the Nova 80 page\", "
           "\"score\": 0.9}, {\"description\": \"Search for Nova\", \"score\": 0.4}], "
           "\"reasoning\": \"\"}",
           300, 10, 0);
    CHECK(step(&f));
    const agent_andor_node *root = agent_andor_node_at(f.t, 0);
    CHECK_EQ(root->type, AGENT_ANDOR_OR);
    CHECK(root->url && strstr(root->url, "/andor/list.html"));
    /* Already there: nothing is sent to the page. */
    CHECK_EQ(f.ops.rollback(f.ops.ctx, f.t, 0), 1);
    CHECK_EQ(f.tools, 0);
    /* The page moved on: one navigation back. */
    tool_result r;
    memset(&r, 0, sizeof r);
    char url[512], args[600];
    harness_url(0, "/andor/nova.html", url, sizeof url);
    snprintf(args, sizeof args, "{\"url\": \"%s\"}", url);
    CHECK(tool_call(f.s, "navigate", args, &r));
    tool_result_fini(&r);
    CHECK_EQ(f.ops.rollback(f.ops.ctx, f.t, 0), 1);
    CHECK_EQ(f.tools, 1);
    CHECK_STR(f.last_tool, "navigate");
    char *u = page_url(&f);
    CHECK_MSG(strstr(u, "/andor/list.html"), "page at %s", u);
    base_free(u);
    CHECK_EQ(f.ops.rollback(f.ops.ctx, f.t, 0), 1);
    CHECK_EQ(f.tools, 1);
    fx_end(&f);

    /* A URL with a masked secret in it is not where the run was. */
    START(g, "/andor/list.html", "Find the Nova 80 price", AGENT_CAND_OFF, 0);
    agent_andor_set_url(g.t, "http://127.0.0.1:1/login?pw=********");
    answer(&g,
           "{\"type\": \"or\", \"children\": [{\"description\": \"a\", \"score\": 0.9}], "
           "\"reasoning\": \"\"}",
           300, 10, 0);
    CHECK(step(&g));
    CHECK_EQ(g.ops.rollback(g.ops.ctx, g.t, 0), 0);
    CHECK_EQ(g.tools, 0);
    fx_end(&g);
}

static void step_timeout(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    agent_andor_ops_destroy(f.c);
    agent_andor_ops_opts o;
    memset(&o, 0, sizeof o);
    o.llm = f.l;
    o.step_timeout_ms = 400;
    o.on_call = on_call;
    o.user = &f;
    CHECK_OK(agent_andor_ops_create(f.s, &o, &f.c, f.err));
    agent_andor_ops_bind(f.c, &f.ops);
    replay_reply r;
    memset(&r, 0, sizeof r);
    r.content =
        "{\"type\": \"and\", \"children\": [{\"description\": \"x\"}], \"reasoning\": \"\"}";
    r.delay_ms = 1500;
    replay_push(f.r, &r);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    double t0 = base_monotime_ms();
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_STOP);
    CHECK_MSG(base_monotime_ms() - t0 < 1300, "%.0f ms", base_monotime_ms() - t0);
    const char *why = NULL;
    CHECK_EQ(agent_andor_ops_stop_reason(f.c, &why), AGENT_GOAL_ERROR);
    CHECK_MSG(strstr(why, "expand"), "why: %s", why);
    CHECK_EQ(f.calls[0].ok, 0);
    CHECK_EQ(f.calls[0].attempts, 1);
    fx_end(&f);
}

static void interrupted(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    answer(&f, "{\"type\": \"and\", \"children\": [{\"description\": \"x\"}], \"reasoning\": \"\"}",
           300, 10, 0);
    base_interrupt_install(NULL);
    raise(SIGINT);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    agent_andor_op_status st = f.ops.expand(f.ops.ctx, f.t, 0, &e);
    const char *why = NULL;
    agent_goal_end end = agent_andor_ops_stop_reason(f.c, &why);
    base_interrupt_reset();
    CHECK_EQ(st, AGENT_ANDOR_OP_STOP);
    CHECK_EQ(end, AGENT_GOAL_INTERRUPTED);
    CHECK_MSG(strstr(why, "SIGINT"), "why: %s", why);
    CHECK_EQ(replay_count(f.r), 0); /* nothing sent once the signal came */
    fx_end(&f);
}

static void utf8_cuts(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    /* A 61-byte tool name of two-byte characters after one ASCII byte: the
     * error's '%.60s' cuts it inside a character. */
    char tool[128] = "a", ans[512];
    for (int i = 0; i < 40; i++)
        memcpy(tool + 1 + 2 * i, "\xC3\xA9", 3);
    snprintf(ans, sizeof ans,
             "{\"type\": \"action\", \"tool\": \"%s\", \"args\": {}, \"reasoning\": \"\"}", tool);
    for (int i = 0; i < 1 + AGENT_ANDOR_OP_RETRIES; i++)
        answer(&f, ans, 300, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_FAILED);
    for (int i = 1; i < replay_count(f.r); i++) {
        char *b = body(&f, i);
        CHECK_MSG(base_utf8_check(b, strlen(b)) == strlen(b), "request %d is not valid UTF-8", i);
        CHECK(strstr(b, "unknown tool 'a\xC3\xA9"));
        base_free(b);
    }
    CHECK(strstr(f.calls[0].why, "unknown tool 'a\xC3\xA9"));
    CHECK_EQ(base_utf8_check(f.calls[0].why, strlen(f.calls[0].why)), strlen(f.calls[0].why));
    fx_end(&f);
}

static void ignore_reply(base_err e, const cJSON *res, const char *msg, void *user)
{
    (void)e;
    (void)res;
    (void)msg;
    (void)user;
}

static void page_dies(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Open the Nova 80 details", AGENT_CAND_OFF, 0);
    answer(&f, "{\"type\": \"and\", \"children\": [{\"description\": \"x\"}], \"reasoning\": \"\"}",
           300, 10, 0);
    /* The renderer crashes (Page.crash never answers: it is gone). */
    cdp_call_async(cdp_page_conn(f.p), cdp_page_session(f.p), "Page.crash", NULL, 0, ignore_reply,
                   NULL);
    base_sleep_ms(300);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    double t0 = base_monotime_ms();
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_STOP);
    /* Reading a dead page takes the tool layer a few seconds (~5 s here);
     * the bound only says it ends. */
    CHECK_MSG(base_monotime_ms() - t0 < 20000, "%.0f ms", base_monotime_ms() - t0);
    const char *why = NULL;
    CHECK_EQ(agent_andor_ops_stop_reason(f.c, &why), AGENT_GOAL_ERROR);
    CHECK_MSG(strstr(why, "the page died"), "why: %s", why);
    CHECK_EQ(replay_count(f.r), 0); /* no model call for a dead page */
    fx_end(&f);
}

static void secrets(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    START(f, "/andor/list.html", "Search for the Nova", AGENT_CAND_OFF, 0);
    tool_result r;
    memset(&r, 0, sizeof r);
    CHECK(tool_call(f.s, "type_at",
                    "{\"target\": \"Search projectors\", \"text\": \"open-sesame-4417\", "
                    "\"secret\": true}",
                    &r));
    tool_result_fini(&r);
    for (int i = 0; i < 1 + AGENT_ANDOR_OP_RETRIES; i++)
        answer(&f,
               "{\"type\": \"action\", \"tool\": \"open-sesame-4417\", \"args\": \"{}\", "
               "\"reasoning\": \"\"}",
               300, 10, 0);
    agent_andor_edit e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(f.ops.expand(f.ops.ctx, f.t, 0, &e), AGENT_ANDOR_OP_FAILED);
    /* The page's field holds the secret; the outline in the prompt does not. */
    CHECK(!body_has(&f, 0, "open-sesame-4417"));
    CHECK(body_has(&f, 0, "[ELEMENTS]"));
    /* The error line handed to the runner's log is scrubbed. */
    CHECK_EQ(f.calls[0].ok, 0);
    CHECK_MSG(!strstr(f.calls[0].why, "open-sesame"), "why: %s", f.calls[0].why);
    CHECK(strstr(f.calls[0].why, "unknown tool '********'"));
    fx_end(&f);
}

static const check_case cases[] = {{"expand_action", expand_action},
                                   {"expand_children", expand_children},
                                   {"depth_limit", depth_limit},
                                   {"no_response_format", no_response_format},
                                   {"retries", retries},
                                   {"blocked_tool", blocked_tool},
                                   {"repair_update_ids", repair_update_ids},
                                   {"repair_reason", repair_reason},
                                   {"complete_answer", complete_answer},
                                   {"table_modes", table_modes},
                                   {"cost_cap", cost_cap},
                                   {"execute_once", execute_once},
                                   {"rollback", rollback},
                                   {"secrets", secrets},
                                   {"utf8_cuts", utf8_cuts},
                                   {"step_timeout", step_timeout},
                                   {"interrupted", interrupted},
                                   {"page_dies", page_dies},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
