/* tests/agent/plan/test_andor_run.c: `fovea run "TASK" --planner andor` end to
 * end — the built binary on the demo site (assets/site, its deals pages) in
 * a real headless Chromium, the AND/OR planner's runner (agent/plan/andor_run.c)
 * with the model-backed operators (agent/plan/andor_ops.c).
 *
 * THE MODEL IS A REPLAY: tests/harness/replay.h serves answers scripted
 * here, in the operators' JSON schemas (agent/plan/andor_run.h), each matched
 * to its request by what the prompt says (the node an expansion is for,
 * the action a summary follows). It is not a model. What the tests check
 * is what fovea did with those answers: the tree and its statuses, the
 * candidate table, the real pages visited, the prompts fovea built, the
 * trace, andor.json, report.html and the exit status.
 *
 * constraint: "a non-stop deal under $400": the table (constraints from
 *   the task) ranks TP 101 first, its deal page shows "1 stop via Madrid"
 *   (the table row turns rejected with that evidence), the check of it
 *   fails, its AND node is checked, repaired (pruned), the OR above it
 *   has no alternative left and its repair — whose prompt carries the
 *   table's top K, FR 202 now above TP 101 — adds FR 202, which is tried
 *   after a rollback to the deals page and succeeds; the root's completion
 *   check passes and the answer names FR 202. Tree shape and statuses,
 *   the table's rows and cells, the trace lines and the report are checked.
 * intervene: a line appended to the --intervene file while the run waits
 *   on a (delayed) model answer injects a subgoal under the root; the root
 *   picks it up after its other children, expands and executes it (a real
 *   tool call on the page) before its completion check.
 * intervene_rewrite: the --intervene file rewritten in place (shorter)
 *   mid-run is read again from its start: the inject it had applied is
 *   skipped, not applied twice, and its new line is read.
 * intervene_stdin: with --intervene - the lines come from standard input
 *   (without blocking the run): a bad one is refused, a replace of the root
 *   before its expansion changes what the expansion is asked for.
 * intervene_endless: --intervene - on a pipe that never stops writing
 *   (`yes`): the run still ends, done (each look reads a bounded amount).
 * secrets: a password typed by an ACTION and repeated by the model in
 *   notes, progress, a rewrite, a judgement and the answer is masked in
 *   andor.json, the trace, report.html, the progress lines and the summary.
 * scope_none: --completion-check none asks for no check; --candidates on
 *   keeps the table for a task auto would not.
 * stops: --max-steps and the token budget end the run as the default
 *   planner's do (max_steps, cost_cap_exceeded; exit 1), the plan left in
 *   andor.json.
 * interrupt: Ctrl-C while an operator waits on the model ends the run
 *   (exit 130) with the tree as it stood in the end line and andor.json.
 * usage: bad values of the planner's flags exit 2 with a message (a FIFO
 *   as --intervene at once, without waiting for a writer), and --resume
 *   is refused with --planner andor.
 * figures: calls and tokens of --planner andor next to --planner loop on
 *   the same tasks (the constraint task and a simple one), both replayed
 *   (`test_andor_run figures` prints the table of bench/RESULTS.md).
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "cdp/browser.h"
#include "harness.h"
#include "replay.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define OUT FOVEA_BINARY_DIR "/tests/agent/plan/out_andor"
#define SITE FOVEA_SOURCE_DIR "/assets/site"
#define KEY "sk-test-andor-5d1c0b"

#define CONSTRAINT_TASK                                                                            \
    "Find a flight to Lisbon that is non-stop and under $400 on the deals page and tell me its "   \
    "flight number"
#define SIMPLE_TASK "Open the FR 202 deal and tell me its baggage allowance"

static char *slurp(const char *path)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    if (base_read_file(path, &buf, &n, 64u << 20, NULL) != BASE_OK)
        return base_strdup("");
    return (char *)buf;
}

static replay *start_replay(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE];
    if (replay_start(&r, err) != BASE_OK) {
        fprintf(stderr, "replay: %s\n", err);
        return NULL;
    }
    replay_set_chat(r, 1);
    replay_require_key(r, KEY);
    setenv("FOVEA_LLM_BASE_URL", replay_base_url(r), 1);
    setenv("FOVEA_LLM_API_KEY", KEY, 1);
    setenv("FOVEA_LLM_MODEL", "gpt-4o-mini", 1);
    setenv("FOVEA_LLM_MAX_RETRIES", "0", 1);
    unsetenv("FOVEA_TOKEN_BUDGET");
    return r;
}

/* For the figures: answers carry no usage, so fovea's estimate of each
 * request stays its own (the budget learns no ratio from a replay's made-up
 * prompt counts), and the completion tokens of the scripted answers are
 * counted here (tokens.h's rule: 4 bytes a token). */
static int no_usage;
static long scripted_out;

/* A chat.completion body without usage: content, or tool_calls (JSON). */
static char *bare_body(const char *content, const char *tool_calls)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "id", "chatcmpl-scripted");
    cJSON_AddStringToObject(b, "object", "chat.completion");
    cJSON_AddNumberToObject(b, "created", 1763940000);
    cJSON_AddStringToObject(b, "model", "gpt-4o-mini");
    cJSON *ch = cJSON_AddArrayToObject(b, "choices");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddItemToArray(ch, c);
    cJSON_AddNumberToObject(c, "index", 0);
    cJSON *m = cJSON_AddObjectToObject(c, "message");
    cJSON_AddStringToObject(m, "role", "assistant");
    if (tool_calls) {
        cJSON_AddNullToObject(m, "content");
        cJSON_AddItemToObject(m, "tool_calls", cJSON_Parse(tool_calls));
    } else {
        cJSON_AddStringToObject(m, "content", content);
    }
    cJSON_AddStringToObject(c, "finish_reason", tool_calls ? "tool_calls" : "stop");
    char *s = cJSON_PrintUnformatted(b);
    cJSON_Delete(b);
    return s;
}

/* One scripted answer for the request whose prompt contains match. */
static void answer(replay *r, const char *match, const char *content, int delay_ms)
{
    replay_reply rep = {.content = content, .match = match, .delay_ms = delay_ms};
    char *body = no_usage ? bare_body(content, NULL) : NULL;
    if (body) {
        rep.content = NULL;
        rep.body = body;
    }
    scripted_out += (long)(strlen(content) + 3) / 4;
    CHECK_OK(replay_push(r, &rep));
    cJSON_free(body);
}

/* A Worker turn of the default planner: one tool call. */
static void worker(replay *r, const char *id, const char *name, const char *args)
{
    char calls[1024];
    char *s = replay_tool_call(id, name, args);
    snprintf(calls, sizeof calls, "%s", s ? s : "[]");
    cJSON_free(s);
    replay_reply rep = {.tool_calls = calls, .require_tools = 1, .completion_tokens = 30};
    char *body = no_usage ? bare_body(NULL, calls) : NULL;
    if (body) {
        rep.tool_calls = NULL;
        rep.body = body;
    }
    scripted_out += (long)(strlen(calls) + 3) / 4;
    CHECK_OK(replay_push(r, &rep));
    cJSON_free(body);
}

static const char *fovea_args(void)
{
    return "--site '" SITE "' --no-humanize --token-budget 0";
}

/* Runs fovea; out/err in OUT/<name>.{stdout,stderr}. */
static int run(const char *name, const char *args, char **out, char **errs)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && rm -rf '%s/%s' && '%s' run %s %s --out '%s/%s' > '%s/%s.stdout' "
             "2> '%s/%s.stderr' < /dev/null",
             OUT, OUT, name, FOVEA, fovea_args(), args, OUT, name, OUT, name, OUT, name);
    int st = system(cmd);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.stdout", OUT, name);
    *out = slurp(path);
    snprintf(path, sizeof path, "%s/%s.stderr", OUT, name);
    *errs = slurp(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The request (0-based) whose prompt contains needle, or -1. */
static int request_with(replay *r, const char *needle)
{
    for (int i = 0; i < replay_count(r); i++) {
        replay_seen s;
        if (replay_request(r, i, &s) != BASE_OK)
            continue;
        int yes = s.prompt && strstr(s.prompt, needle) != NULL;
        replay_seen_fini(&s);
        if (yes)
            return i;
    }
    return -1;
}

static char *request_prompt(replay *r, int i)
{
    replay_seen s;
    if (i < 0 || replay_request(r, i, &s) != BASE_OK)
        return base_strdup("");
    char *p = base_strdup(s.prompt ? s.prompt : "");
    replay_seen_fini(&s);
    return p;
}

/* "id:type:status" of every node of andor.json's tree, space-separated. */
static void tree_shape(const cJSON *tree, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t n = 0;
    const cJSON *nd = NULL;
    cJSON_ArrayForEach(nd, cJSON_GetObjectItemCaseSensitive(tree, "nodes"))
    {
        int w = snprintf(buf + n, cap - n, "%s%s:%s:%s", n ? " " : "",
                         cJSON_GetStringValue(cJSON_GetObjectItem(nd, "id")),
                         cJSON_GetStringValue(cJSON_GetObjectItem(nd, "type")),
                         cJSON_GetStringValue(cJSON_GetObjectItem(nd, "status")));
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
    }
}

static const cJSON *node_by_id(const cJSON *tree, const char *id)
{
    const cJSON *nd = NULL;
    cJSON_ArrayForEach(nd, cJSON_GetObjectItemCaseSensitive(tree, "nodes"))
    {
        const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(nd, "id"));
        if (x && strcmp(x, id) == 0)
            return nd;
    }
    return NULL;
}

/* A candidate row's cell under column col: "value" or "value|evidence". */
static void cand_cell(const cJSON *cands, const char *row, const char *col, char *buf, size_t cap)
{
    snprintf(buf, cap, "(none)");
    int ci = -1, k = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cands, "columns"))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
        if (name && strcmp(name, col) == 0)
            ci = k;
        k++;
    }
    const cJSON *rw = NULL;
    cJSON_ArrayForEach(rw, cJSON_GetObjectItemCaseSensitive(cands, "rows"))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(rw, "name"));
        if (!name || strcmp(name, row) != 0 || ci < 0)
            continue;
        const cJSON *cell = cJSON_GetArrayItem(cJSON_GetObjectItem(rw, "cells"), ci);
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(cell, "value"));
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(cell, "text"));
        const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(cell, "evidence"));
        snprintf(buf, cap, "%s%s%s", t ? t : v ? v : "?", e ? "|" : "", e ? e : "");
    }
}

static const char *row_status(const cJSON *cands, const char *row)
{
    const cJSON *rw = NULL;
    cJSON_ArrayForEach(rw, cJSON_GetObjectItemCaseSensitive(cands, "rows"))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(rw, "name"));
        if (name && strcmp(name, row) == 0)
            return cJSON_GetStringValue(cJSON_GetObjectItem(rw, "status"));
    }
    return "(none)";
}

/* ---- the scripted answers ------------------------------------------------ */

#define UPDATE_NONE "{\"prune\": [], \"rewrite\": [], \"reasoning\": \"Nothing to change.\"}"

/* The constraint task, as a model would answer each operator. */
static void script_constraint(replay *r)
{
    answer(r, "List the task's constraints",
           "{\"constraints\": [{\"name\": \"non-stop\", \"description\": \"the flight has no "
           "stops\"}, {\"name\": \"under $400\", \"description\": \"the fare is below $400\"}], "
           "\"attributes\": [{\"name\": \"price\", \"description\": \"the fare\"}]}",
           0);
    answer(r, "NODE 1 [not expanded",
           "{\"type\": \"and\", \"children\": [{\"description\": \"Read the deals listed on the "
           "page\"}, {\"description\": \"Pick a deal that is non-stop and under $400\"}], "
           "\"reasoning\": \"First see the deals, then check them against the constraints.\"}",
           0);
    answer(r, "NODE 1.1 [not expanded",
           "{\"type\": \"action\", \"tool\": \"extract_markdown\", \"args\": \"{}\", "
           "\"reasoning\": \"The list is on this page.\"}",
           0);
    answer(r, "LAST ACTION: 1.1 ",
           "{\"progress\": \"The deals page lists three Lisbon fares; stops are on each deal's "
           "page.\", \"observation\": \"TP 101 $289, FR 202 $342, BA 303 $455.\", \"notes\": "
           "[\"TP 101 costs $289\", \"FR 202 costs $342\", \"BA 303 costs $455\"], "
           "\"candidates\": {\"rows\": [{\"name\": \"TP 101\", \"status\": \"to_explore\", "
           "\"cells\": [{\"column\": \"under $400\", \"value\": \"yes\", \"evidence\": \"$289\"}, "
           "{\"column\": \"price\", \"value\": \"$289\"}]}, {\"name\": \"FR 202\", \"status\": "
           "\"to_explore\", \"cells\": [{\"column\": \"under $400\", \"value\": \"yes\", "
           "\"evidence\": \"$342\"}, {\"column\": \"price\", \"value\": \"$342\"}]}, {\"name\": "
           "\"BA 303\", \"status\": \"rejected\", \"note\": \"over $400\", \"cells\": "
           "[{\"column\": \"under $400\", \"value\": \"no\", \"evidence\": \"$455\"}, "
           "{\"column\": \"price\", \"value\": \"$455\"}]}]}}",
           0);
    answer(r, "The node marked <- just ran", UPDATE_NONE, 0);
    answer(r, "NODE 1.2 [not expanded",
           "{\"type\": \"or\", \"children\": [{\"description\": \"Check TP 101, the first "
           "candidate under $400\", \"score\": 0.7}], \"reasoning\": \"TP 101 leads the candidate "
           "table; its stops are unknown.\"}",
           0);
    answer(r, "NODE 1.2.1 [not expanded",
           "{\"type\": \"and\", \"children\": [{\"description\": \"Open the TP 101 deal\"}, "
           "{\"description\": \"Confirm TP 101 is non-stop\"}], \"reasoning\": \"Its page shows "
           "the stops.\"}",
           0);
    answer(r, "NODE 1.2.1.1 [not expanded",
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": \"{\\\"target\\\": \\\"View "
           "TP 101 deal\\\"}\", \"reasoning\": \"The deal's link.\"}",
           0);
    answer(r, "LAST ACTION: 1.2.1.1 ",
           "{\"progress\": \"TP 101's deal page is open: it has a stop.\", \"observation\": "
           "\"Stops: 1 stop via Madrid (2h 10m layover).\", \"notes\": [\"TP 101 has 1 stop via "
           "Madrid\"], \"candidates\": {\"rows\": [{\"name\": \"TP 101\", \"status\": "
           "\"rejected\", \"note\": \"1 stop\", \"cells\": [{\"column\": \"non-stop\", \"value\": "
           "\"no\", \"evidence\": \"1 stop via Madrid (2h 10m layover)\"}]}]}}",
           0);
    answer(r, "The node marked <- just ran", UPDATE_NONE, 0);
    answer(r, "NODE 1.2.1.2 [not expanded",
           "{\"type\": \"action\", \"tool\": \"assert_text\", \"args\": \"{\\\"text\\\": "
           "\\\"Non-stop\\\", \\\"timeout_ms\\\": 300}\", \"reasoning\": \"A non-stop deal says "
           "so on its page.\"}",
           0);
    answer(r, "Is this node's goal met?",
           "{\"complete\": false, \"reasoning\": \"TP 101 has 1 stop via Madrid: it fails the "
           "non-stop constraint.\"}",
           0);
    answer(r, "NODE 1.2.1 [AND, fail]",
           "{\"decision\": \"prune\", \"prune\": [], \"add\": [], \"reasoning\": \"TP 101 can "
           "never be non-stop.\"}",
           0);
    answer(r, "NODE 1.2 [OR, fail]",
           "{\"decision\": \"repair\", \"prune\": [], \"add\": [{\"description\": \"Check FR 202, "
           "the best candidate left in the table\", \"score\": 0.8}], \"reasoning\": \"The table "
           "now ranks FR 202 first: under $400, stops unknown; TP 101 is rejected.\"}",
           0);
    answer(r, "NODE 1.2.2 [not expanded",
           "{\"type\": \"and\", \"children\": [{\"description\": \"Open the FR 202 deal\"}, "
           "{\"description\": \"Confirm FR 202 is non-stop\"}], \"reasoning\": \"As for TP "
           "101.\"}",
           0);
    answer(r, "NODE 1.2.2.1 [not expanded",
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": \"{\\\"target\\\": \\\"View "
           "FR 202 deal\\\"}\", \"reasoning\": \"The deal's link.\"}",
           0);
    answer(r, "LAST ACTION: 1.2.2.1 ",
           "{\"progress\": \"FR 202's deal page is open: non-stop, $342.\", \"observation\": "
           "\"Stops: Non-stop; 2h 35m.\", \"notes\": [\"FR 202 is non-stop (2h 35m)\"], "
           "\"candidates\": {\"rows\": [{\"name\": \"FR 202\", \"status\": \"candidate\", "
           "\"cells\": [{\"column\": \"non-stop\", \"value\": \"yes\", \"evidence\": "
           "\"Non-stop\"}]}]}}",
           0);
    answer(r, "The node marked <- just ran", UPDATE_NONE, 0);
    answer(r, "NODE 1.2.2.2 [not expanded",
           "{\"type\": \"action\", \"tool\": \"assert_text\", \"args\": \"{\\\"text\\\": "
           "\\\"Non-stop\\\"}\", \"reasoning\": \"Check it on the page.\"}",
           0);
    answer(r, "LAST ACTION: 1.2.2.2 ",
           "{\"progress\": \"FR 202 meets both constraints.\", \"observation\": \"The page says "
           "Non-stop.\", \"notes\": [], \"candidates\": {\"rows\": []}}",
           0);
    answer(r, "The node marked <- just ran", UPDATE_NONE, 0);
    answer(r, "Is the whole task done",
           "{\"complete\": true, \"reasoning\": \"FR 202 is non-stop and $342.\"}", 0);
    answer(r, "Write the final answer.",
           "{\"answer\": \"FR 202 (London Stansted to Lisbon, $342) is non-stop and under "
           "$400.\", \"reasoning\": \"From the notes and the table.\"}",
           0);
}

/* The simple task; delay_ms > 0 makes the expansion of 1.2 wait (the
 * intervention test appends its line meanwhile) and scripts the injected
 * node 1.3. */
static void script_simple_at(replay *r, int delay_ms, int delay13_ms);
static void script_simple(replay *r, int delay_ms)
{
    script_simple_at(r, delay_ms, 0);
}

/* As script_simple; delay13_ms > 0 also makes the injected node's
 * expansion wait. */
static void script_simple_at(replay *r, int delay_ms, int delay13_ms)
{
    answer(r, "NODE 1 [not expanded",
           "{\"type\": \"and\", \"children\": [{\"description\": \"Open the FR 202 deal\"}, "
           "{\"description\": \"Record its baggage allowance\"}], \"reasoning\": \"Open, then "
           "read.\"}",
           0);
    answer(r, "NODE 1.1 [not expanded",
           "{\"type\": \"action\", \"tool\": \"click_at\", \"args\": \"{\\\"target\\\": \\\"View "
           "FR 202 deal\\\"}\", \"reasoning\": \"The deal's link.\"}",
           0);
    answer(r, "LAST ACTION: 1.1 ",
           "{\"progress\": \"FR 202's deal page is open.\", \"observation\": \"Baggage: cabin bag "
           "and one checked bag.\", \"notes\": [\"FR 202 baggage: cabin bag and one checked "
           "bag\"]}",
           0);
    answer(r, "The node marked <- just ran", UPDATE_NONE, 0);
    answer(r, "NODE 1.2 [not expanded",
           "{\"type\": \"action\", \"tool\": \"note\", \"args\": \"{\\\"text\\\": \\\"FR 202 "
           "allows a cabin bag and one checked bag\\\"}\", \"reasoning\": \"It is on the "
           "page.\"}",
           delay_ms);
    if (delay_ms > 0) {
        answer(r, "NODE 1.3 [not expanded",
               "{\"type\": \"action\", \"tool\": \"assert_text\", \"args\": \"{\\\"text\\\": "
               "\\\"09:40\\\"}\", \"reasoning\": \"The departure time is on the page.\"}",
               delay13_ms);
        answer(r, "LAST ACTION: 1.3 ",
               "{\"progress\": \"Baggage and departure time known.\", \"observation\": "
               "\"Departs 09:40.\", \"notes\": [\"FR 202 departs Fri 12 Jun 2026 at 09:40\"]}",
               0);
        answer(r, "The node marked <- just ran", UPDATE_NONE, 0);
    }
    answer(r, "Is the whole task done",
           "{\"complete\": true, \"reasoning\": \"The allowance is noted.\"}", 0);
    answer(r, "Write the final answer.",
           delay_ms > 0 ? "{\"answer\": \"FR 202 allows a cabin bag and one checked bag; it "
                          "departs at 09:40.\", \"reasoning\": \"Notes.\"}"
                        : "{\"answer\": \"FR 202 allows a cabin bag and one checked bag.\", "
                          "\"reasoning\": \"Notes.\"}",
           0);
}

/* ---- the tests ----------------------------------------------------------- */

/* The constraint run's report.html in Chromium: the tree with its final
 * statuses, one timeline row per node and a cell per iteration, one row
 * per operator call, the table's rows, the answer. */
static void report_check(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *page = harness_open(1100, 900, 1, NULL);
    CHECK(page);
    if (!page)
        return;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_navigate(page, "file://" OUT "/constraint/report.html", 20000, err);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *v = NULL;
    e = cdp_page_evaluate(
        page,
        "JSON.stringify({ tree: [...document.querySelectorAll('#andor-tree li')].map((li) =>"
        "   li.dataset.id + ':' + li.querySelector('.st').dataset.status).join(' '),"
        " rows: document.querySelectorAll('#andor-timeline tr[data-id]').length,"
        " cells: document.querySelectorAll('#andor-timeline tr[data-id=\"1\"] td[data-k]').length,"
        " ops: document.querySelectorAll('#andor-ops tbody tr').length,"
        " repair: [...document.querySelectorAll('#andor-op-totals tr[data-op=\"repair\"] > *')]"
        "   .map((c) => c.textContent).slice(0, 2).join('|'),"
        " cands: [...document.querySelectorAll('#andor-cands tbody tr')].map((tr) =>"
        "   tr.dataset.name + ':' + tr.className).join(' '),"
        " answer: document.getElementById('final-answer').innerText })",
        &v, 10000, err);
    cdp_page_close(page);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *r = cJSON_Parse(cJSON_GetStringValue(v));
    cJSON_Delete(v);
#define S(k)                                                                                       \
    (cJSON_GetStringValue(cJSON_GetObjectItem(r, k))                                               \
         ? cJSON_GetStringValue(cJSON_GetObjectItem(r, k))                                         \
         : "")
    CHECK_MSG(strcmp(S("tree"), "1:success 1.1:success 1.2:success 1.2.1:pruned 1.2.1.1:success "
                                "1.2.1.2:pruned 1.2.2:success 1.2.2.1:success "
                                "1.2.2.2:success") == 0,
              "%s", S("tree"));
    CHECK_EQ(cJSON_GetObjectItem(r, "rows")->valueint, 9);
    CHECK_EQ(cJSON_GetObjectItem(r, "cells")->valueint, 23);
    CHECK_EQ(cJSON_GetObjectItem(r, "ops")->valueint, 23);
    CHECK_MSG(strcmp(S("repair"), "repair|2") == 0, "%s", S("repair"));
    CHECK_MSG(strcmp(S("cands"), "FR 202:candidate TP 101:rejected BA 303:rejected") == 0, "%s",
              S("cands"));
    CHECK_MSG(strstr(S("answer"), "FR 202 (London Stansted"), "%s", S("answer"));
#undef S
    cJSON_Delete(r);
}

static void constraint(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_constraint(r);
    if (check__failed)
        return;
    char *out = NULL, *errs = NULL;
    int st = run("constraint", "'" CONSTRAINT_TASK "' --url /deals.html --planner andor", &out,
                 &errs);
    if (st != 0)
        fprintf(stderr, "stdout: %s\nstderr: %s\n", out, errs);
    CHECK_EQ(st, 0);
    CHECK_MSG(strstr(out, "agent done in 6 steps") && strstr(out, "FR 202 (London Stansted"),
              "%s", out);
    /* Every scripted answer was asked for, each once, and nothing else. */
    CHECK_EQ(replay_count(r), 23);
    CHECK_EQ(replay_pending(r), 0);
    /* The table's top K went to the expansion of the OR (TP 101 first:
     * both under $400, TP 101 seen first) and to its repair after TP 101
     * failed (FR 202 first now, TP 101 below it with its "no"). */
    char *exp = request_prompt(r, request_with(r, "NODE 1.2 [not expanded"));
    const char *c0 = strstr(exp, "CANDIDATES (");
    CHECK_MSG(c0 && strstr(c0, "TP 101") && strstr(c0, "FR 202") &&
                  strstr(c0, "TP 101") < strstr(c0, "FR 202"),
              "%s", exp);
    char *rep = request_prompt(r, request_with(r, "NODE 1.2 [OR, fail]"));
    const char *c1 = strstr(rep, "CANDIDATES (");
    CHECK_MSG(c1 && strstr(c1, "FR 202") && strstr(c1, "TP 101") &&
                  strstr(c1, "FR 202") < strstr(c1, "TP 101") &&
                  strstr(c1, "1 stop via Madrid") && strstr(rep, "Repair this node"),
              "%s", rep);
    /* The constraints extracted at the start are in every expansion. */
    CHECK_MSG(strstr(exp, "non-stop (constraint)") && strstr(exp, "under $400 (constraint)"),
              "%s", exp);
    base_free(exp);
    base_free(rep);
    /* The plan: root AND [read, OR [TP 101 (pruned), FR 202 (success)]]. */
    char *aj = slurp(OUT "/constraint/andor.json");
    cJSON *a = cJSON_Parse(aj);
    const cJSON *tree = cJSON_GetObjectItem(a, "tree");
    char shape[2048];
    tree_shape(tree, shape, sizeof shape);
    CHECK_MSG(strcmp(shape, "1:and:success 1.1:action:success 1.2:or:success "
                            "1.2.1:and:pruned 1.2.1.1:action:success 1.2.1.2:action:pruned "
                            "1.2.2:and:success 1.2.2.1:action:success "
                            "1.2.2.2:action:success") == 0,
              "%s", shape);
    CHECK_MSG(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(tree, "outcome")), "success") == 0,
              "%s", aj);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(tree, "stack")), 0);
    const cJSON *n = node_by_id(tree, "1.2.1.2");
    CHECK_MSG(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(n, "tool")), "assert_text") == 0 &&
                  cJSON_GetObjectItem(n, "retries")->valueint == 2,
              "%s", aj);
    n = node_by_id(tree, "1.2.2");
    CHECK(cJSON_GetObjectItem(n, "score")->valuedouble > 0.79);
    CHECK_MSG(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(n, "url")), "/deals.html"), "%s",
              aj);
    /* The table: rows, statuses, cells with their evidence. */
    const cJSON *cands = cJSON_GetObjectItem(a, "candidates");
    char cell[512];
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(cands, "rows")), 3);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(cands, "columns")), 3);
    cand_cell(cands, "TP 101", "non-stop", cell, sizeof cell);
    CHECK_MSG(strcmp(cell, "no|1 stop via Madrid (2h 10m layover)") == 0, "%s", cell);
    cand_cell(cands, "FR 202", "non-stop", cell, sizeof cell);
    CHECK_MSG(strcmp(cell, "yes|Non-stop") == 0, "%s", cell);
    cand_cell(cands, "FR 202", "under $400", cell, sizeof cell);
    CHECK_MSG(strcmp(cell, "yes|$342") == 0, "%s", cell);
    cand_cell(cands, "BA 303", "price", cell, sizeof cell);
    CHECK_MSG(strcmp(cell, "$455") == 0, "%s", cell);
    CHECK_MSG(strcmp(row_status(cands, "TP 101"), "rejected") == 0, "%s", aj);
    CHECK_MSG(strcmp(row_status(cands, "FR 202"), "candidate") == 0, "%s", aj);
    CHECK_MSG(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(a, "notes")),
                     "TP 101 has 1 stop via Madrid"),
              "%s", aj);
    cJSON_Delete(a);
    base_free(aj);
    /* The trace: the task line, one andor_op per operator call (23), one
     * andor_event per iteration, the tool steps (6 numbered, the rollback
     * to the deals page besides), the end line with the final tree, table
     * and answer; never the key. */
    char *trace = slurp(OUT "/constraint/trace.jsonl");
    CHECK_EQ(count(trace, "\"type\":\"task\""), 1);
    CHECK_EQ(count(trace, "\"type\":\"andor_op\""), 23);
    CHECK_EQ(count(trace, "\"op\":\"expand\""), 9);
    CHECK_EQ(count(trace, "\"op\":\"repair\""), 2);
    CHECK_EQ(count(trace, "\"op\":\"complete\""), 2);
    CHECK_EQ(count(trace, "\"op\":\"summarize\""), 4);
    CHECK_EQ(count(trace, "\"op\":\"update\""), 4);
    CHECK(strstr(trace, "\"prompt_tokens\":800") != NULL);
    CHECK_EQ(count(trace, "\"type\":\"step\""), 7);
    CHECK_EQ(count(trace, "\"action\":\"navigate\""), 1);
    CHECK(strstr(trace, "deals.html") != NULL);
    /* One event per stack pop: 23 (its progress line says which). */
    CHECK_EQ(count(trace, "\"type\":\"andor_event\""), 23);
    CHECK_MSG(
        strstr(errs, "andor: done after 23 iterations, 9 nodes, 6 tool calls, 23 model calls"),
        "%s", errs);
    CHECK(strstr(trace, "\"type\":\"end\",\"ok\":true") != NULL);
    const char *end = strstr(trace, "\"type\":\"end\"");
    CHECK_MSG(end && strstr(end, "\"andor\":{\"tree\"") && strstr(end, "\"candidates\"") &&
                  strstr(end, "\"answer\":\"FR 202 (London Stansted"),
              "%s", end ? end : "");
    /* The OR's second alternative started after a rollback. */
    CHECK_MSG(strstr(trace, "\"node\":\"1.2.2\",\"state\":\"entering\"") &&
                  strstr(trace, "\"rollback\""),
              "%s", trace);
    /* Its step line is one attempt of its own, although the action before
     * it (1.2.1.2) took two. */
    const char *rb = strstr(trace, "\"desc\":\"rollback to 1.2\"");
    CHECK_MSG(rb && strstr(rb, "\"attempts\":1,") &&
                  strstr(rb, "\"attempts\":1,") < strstr(rb, "\n"),
              "%.400s", rb ? rb : trace);
    CHECK(strstr(trace, KEY) == NULL && strstr(out, KEY) == NULL && strstr(errs, KEY) == NULL);
    /* Progress: one line per step and per operator call. */
    CHECK_EQ(count(errs, "\n  op "), 23);
    CHECK_MSG(strstr(errs, "iter 1 node 1 entering [and, visited]: expand; 1 unvisited->visited"),
              "%s", errs);
    CHECK(strstr(errs, "  op repair 1.2 tokens in=800") != NULL);
    CHECK(strstr(errs, "  tool assert_text assert_failed") != NULL);
    /* The report draws the tree and the table. */
    char *html = slurp(OUT "/constraint/report.html");
    CHECK(strstr(html, "\"andor_events\":[") && strstr(html, "1 stop via Madrid") &&
          !strstr(html, KEY));
    base_free(html);
    report_check();
    base_free(trace);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* The `fovea run` child, in its own process group (its browser with it). */
static pid_t spawn(const char *name, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && rm -rf '%s/%s' && exec '%s' run %s %s --out '%s/%s' > "
             "'%s/%s.stdout' 2> '%s/%s.stderr' < /dev/null",
             OUT, OUT, name, FOVEA, fovea_args(), args, OUT, name, OUT, name, OUT, name);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits for the spawned child until 120 s after t0 (then kills it: its
 * status then says killed, never a clean exit), and kills its process
 * group (the browser, if anything is left); returns the wait status. */
static int wait_child(pid_t pid, double t0)
{
    int ws = 0;
    pid_t done = 0;
    while ((done = waitpid(pid, &ws, WNOHANG)) == 0 && base_monotime_ms() - t0 < 120000)
        base_sleep_ms(100);
    if (done != pid) {
        kill(-pid, SIGKILL);
        waitpid(pid, &ws, 0);
    }
    kill(-pid, SIGKILL);
    return ws;
}

static void intervene(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_simple(r, 2500);
    const char *file = OUT "/intervene.jsonl";
    system("mkdir -p '" OUT "'");
    CHECK_OK(base_write_file(file, (const uint8_t *)"", 0, NULL));
    pid_t pid = spawn("intervene", "'" SIMPLE_TASK "' --url /deals.html --planner andor "
                                   "--candidates off --intervene '" OUT "/intervene.jsonl'");
    CHECK(pid > 0);
    /* Wait for the (delayed) expansion of 1.2: the run is inside that
     * step; the line appended now is read before the next one. */
    double t0 = base_monotime_ms();
    int at = -1;
    while (at < 0 && base_monotime_ms() - t0 < 60000) {
        base_sleep_ms(50);
        at = request_with(r, "NODE 1.2 [not expanded");
    }
    CHECK_MSG(at == 4, "the expansion of 1.2 was request %d", at);
    FILE *f = fopen(file, "a");
    CHECK(f != NULL);
    if (f) {
        fputs("# a person's edits\n"
              "{\"op\": \"remove\", \"node\": \"9.9\"}\n"
              "{\"op\": \"inject\", \"parent\": \"1\", \"description\": \"Also check the "
              "departure time of FR 202\"}\n",
              f);
        fclose(f);
    }
    int ws = wait_child(pid, t0);
    char *out = slurp(OUT "/intervene.stdout");
    char *errs = slurp(OUT "/intervene.stderr");
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(strstr(out, "it departs at 09:40"), "%s", out);
    CHECK_EQ(replay_pending(r), 0);
    /* The bad line was refused and said so; the good one applied. */
    CHECK_MSG(strstr(errs, "intervention refused (") && strstr(errs, "9.9"), "%s", errs);
    CHECK_MSG(strstr(errs, "andor: intervention inject 1.3 applied"), "%s", errs);
    /* The injected subgoal was expanded and its tool call ran on the page
     * before the root's completion check. */
    int i13 = request_with(r, "NODE 1.3 [not expanded");
    int ifin = request_with(r, "Is the whole task done");
    CHECK_MSG(i13 > at && ifin > i13, "1.3 at %d, check at %d", i13, ifin);
    char *aj = slurp(OUT "/intervene/andor.json");
    cJSON *a = cJSON_Parse(aj);
    const cJSON *tree = cJSON_GetObjectItem(a, "tree");
    char shape[1024];
    tree_shape(tree, shape, sizeof shape);
    CHECK_MSG(strcmp(shape, "1:and:success 1.1:action:success 1.2:action:success "
                            "1.3:action:success") == 0,
              "%s", shape);
    const cJSON *n = node_by_id(tree, "1.3");
    CHECK_MSG(n && strstr(cJSON_GetStringValue(cJSON_GetObjectItem(n, "description")),
                          "departure time"),
              "%s", aj);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(a, "candidates"))); /* --candidates off */
    char *trace = slurp(OUT "/intervene/trace.jsonl");
    CHECK_EQ(count(trace, "\"type\":\"andor_intervene\""), 2);
    CHECK(strstr(trace, "\"op\":\"inject\",\"node\":\"1.3\",\"ok\":true") != NULL);
    CHECK_MSG(strstr(trace, "\"action\":\"assert_text\"") && strstr(trace, "\"interventions\":1"),
              "%s", trace);
    cJSON_Delete(a);
    base_free(aj);
    base_free(trace);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* Waits (up to 60 s) for the replay to see a request containing needle;
 * returns its index or -1. */
static int wait_request(replay *r, const char *needle)
{
    double t0 = base_monotime_ms();
    int at = -1;
    while (at < 0 && base_monotime_ms() - t0 < 60000) {
        base_sleep_ms(50);
        at = request_with(r, needle);
    }
    return at;
}

/* The --intervene file rewritten in place while the run goes on (an
 * editor saving it, or `>` where `>>` was meant): the runner reads it
 * again from its start, and the inject it had applied already is not
 * applied a second time (that would add and run the subgoal twice); the
 * line that is new is read. */
static void intervene_rewrite(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_simple_at(r, 2500, 2500);
    const char *file = OUT "/rewrite.jsonl";
    system("mkdir -p '" OUT "'");
    CHECK_OK(base_write_file(file, (const uint8_t *)"", 0, NULL));
    pid_t pid = spawn("rewrite", "'" SIMPLE_TASK "' --url /deals.html --planner andor "
                                 "--candidates off --intervene '" OUT "/rewrite.jsonl'");
    CHECK(pid > 0);
    const char *inject = "{\"op\": \"inject\", \"parent\": \"1\", \"description\": \"Also "
                         "check the departure time of FR 202\"}\n";
    CHECK_MSG(wait_request(r, "NODE 1.2 [not expanded") == 4, "no expansion of 1.2");
    FILE *f = fopen(file, "a");
    CHECK(f != NULL);
    if (f) {
        fputs("# the departure time was forgotten in the task: add it as a subgoal\n", f);
        fputs(inject, f);
        fclose(f);
    }
    /* Inside the (delayed) expansion of the injected 1.3: the inject was
     * read. The file is rewritten shorter, in place (same inode). */
    CHECK_MSG(wait_request(r, "NODE 1.3 [not expanded") > 4, "no expansion of 1.3");
    f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(inject, f);
        fputs("{\"op\": \"remove\", \"node\": \"7.7\"}\n", f);
        fclose(f);
    }
    int ws = wait_child(pid, base_monotime_ms());
    char *out = slurp(OUT "/rewrite.stdout");
    char *errs = slurp(OUT "/rewrite.stderr");
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(count(errs, "andor: intervention inject") == 1, "%s", errs);
    CHECK_MSG(strstr(errs, "the intervention file shrank"), "%s", errs);
    CHECK_MSG(strstr(errs, "intervention skipped (read before the file was rewritten)"), "%s",
              errs);
    /* The new line was read (and refused: there is no 7.7). */
    CHECK_MSG(strstr(errs, "intervention refused (") && strstr(errs, "7.7"), "%s", errs);
    char *aj = slurp(OUT "/rewrite/andor.json");
    cJSON *a = cJSON_Parse(aj);
    char shape[1024];
    tree_shape(cJSON_GetObjectItem(a, "tree"), shape, sizeof shape);
    CHECK_MSG(strcmp(shape, "1:and:success 1.1:action:success 1.2:action:success "
                            "1.3:action:success") == 0,
              "%s", shape);
    CHECK_EQ(replay_pending(r), 0);
    cJSON_Delete(a);
    base_free(aj);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* --screenshot: every operator call that shows the page's outline also
 * carries its screenshot (a JPEG with the [n] marks), taken once per page
 * state; calls that do not read the page (the constraints, the completion
 * check, the answer) carry none. */
static void screenshot(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_simple(r, 0);
    char *out = NULL, *errs = NULL;
    int st = run("shot", "'" SIMPLE_TASK "' --url /deals.html --planner andor --screenshot", &out,
                 &errs);
    CHECK_MSG(st == 0, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(strstr(errs, "no effect") == NULL, "%s", errs);
    int with_page = 0, shots = 0;
    uint8_t *first = NULL;
    size_t first_len = 0;
    for (int i = 0; i < replay_count(r); i++) {
        replay_seen s;
        CHECK_OK(replay_request(r, i, &s));
        int page = s.prompt && strstr(s.prompt, "[ELEMENTS]") != NULL;
        int jpeg = s.image && s.image_len > 1000 && s.image[0] == 0xFF && s.image[1] == 0xD8;
        with_page += page;
        shots += jpeg;
        CHECK_MSG(page == jpeg, "request %d: page %d, image %zu bytes: %.200s", i, page,
                  s.image_len, s.prompt ? s.prompt : "");
        /* Expanding 1 and 1.1 look at the same page: the same picture. */
        if (jpeg && s.prompt && strstr(s.prompt, "NODE 1 [not expanded")) {
            first = base_malloc(s.image_len);
            if (first)
                memcpy(first, s.image, s.image_len);
            first_len = s.image_len;
        } else if (jpeg && first && strstr(s.prompt, "NODE 1.1 [not expanded")) {
            CHECK(s.image_len == first_len && memcmp(s.image, first, first_len) == 0);
        } else if (jpeg && first && strstr(s.prompt, "LAST ACTION: 1.1 ")) {
            /* After the click: the deal page, a new picture. */
            CHECK(s.image_len != first_len || memcmp(s.image, first, first_len) != 0);
        }
        replay_seen_fini(&s);
    }
    CHECK_MSG(with_page >= 4 && shots == with_page, "%d page calls, %d with a screenshot",
              with_page, shots);
    CHECK(first != NULL);
    base_free(first);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* --intervene -: edits typed on standard input (here a file given as
 * stdin) are read between steps without blocking: a bad line is refused
 * and the run goes on; a replace of the root before its expansion changes
 * what the expansion is asked for. */
static void intervene_stdin(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_simple(r, 0);
    system("mkdir -p '" OUT "'");
    const char *lines = "not json\n"
                        "{\"op\": \"replace\", \"node\": \"1\", \"description\": \"Open the FR "
                        "202 deal and tell me its baggage allowance (typed on stdin)\"}";
    CHECK_OK(base_write_file(OUT "/stdin.jsonl", (const uint8_t *)lines, strlen(lines), NULL));
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s/stdin' && '%s' run '" SIMPLE_TASK "' --url /deals.html --planner andor "
             "--intervene - %s --out '%s/stdin' > '%s/stdin.stdout' 2> '%s/stdin.stderr' < "
             "'%s/stdin.jsonl'",
             OUT, FOVEA, fovea_args(), OUT, OUT, OUT, OUT);
    int st = system(cmd);
    char *out = slurp(OUT "/stdin.stdout");
    char *errs = slurp(OUT "/stdin.stderr");
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(strstr(errs, "intervention refused (not a JSON object): not json"), "%s", errs);
    CHECK_MSG(strstr(errs, "andor: intervention replace 1 applied before iteration 1"), "%s",
              errs);
    char *p = request_prompt(r, request_with(r, "NODE 1 [not expanded"));
    CHECK_MSG(strstr(p, "baggage allowance (typed on stdin)"), "%s", p);
    base_free(p);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* --intervene - fed without end (a chatty pipe, here `yes` writing a bad
 * line over and over, each one refused): each look between steps reads a
 * bounded amount, so the run still makes progress and ends. */
static void intervene_endless(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_simple(r, 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && rm -rf '%s/endless' && yes 'not json' | timeout -s "
             "KILL 60 '%s' run '" SIMPLE_TASK "' --url /deals.html --planner andor --intervene - "
             "%s --out '%s/endless' > '%s/endless.stdout' 2> '%s/endless.stderr'",
             OUT, OUT, FOVEA, fovea_args(), OUT, OUT, OUT);
    int st = system(cmd);
    char *out = slurp(OUT "/endless.stdout");
    char *errs = slurp(OUT "/endless.stderr");
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d\nstdout: %s\nstderr: %.2000s", st,
              out, errs);
    CHECK_MSG(strstr(out, "fovea run: agent done"), "%s", out);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* A password typed by an ACTION (into a field that is a password by its
 * markup) and then repeated by the model in its notes, progress, judgement
 * and answer: the run's every output (andor.json, the trace with its end
 * line, report.html, the progress lines, the summary) shows it masked. */
#define SECRET "Tr0ub4dor-andor-77"
static void secrets(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    answer(r, "NODE 1 [not expanded",
           "{\"type\": \"and\", \"children\": [{\"description\": \"Type the account password\"}, "
           "{\"description\": \"Record that it is set\"}], \"reasoning\": \"Type, then note.\"}",
           0);
    answer(r, "NODE 1.1 [not expanded",
           "{\"type\": \"action\", \"tool\": \"type_at\", \"args\": {\"target\": \"Create a "
           "password\", \"text\": \"" SECRET "\"}, \"reasoning\": \"The password field.\"}",
           0);
    answer(r, "LAST ACTION: 1.1 ",
           "{\"progress\": \"The password " SECRET " is typed.\", \"observation\": \"The field "
           "holds " SECRET ".\", \"notes\": [\"The account password is " SECRET "\"]}",
           0);
    answer(r, "The node marked <- just ran",
           "{\"prune\": [], \"rewrite\": [{\"id\": \"1.2\", \"description\": \"Record that "
           SECRET " is set\"}], \"reasoning\": \"Be precise.\"}",
           0);
    answer(r, "NODE 1.2 [not expanded",
           "{\"type\": \"action\", \"tool\": \"note\", \"args\": {\"text\": \"Password set to "
           SECRET "\"}, \"reasoning\": \"Noted: " SECRET ".\"}",
           0);
    answer(r, "Is the whole task done",
           "{\"complete\": true, \"reasoning\": \"The field holds " SECRET ".\"}", 0);
    answer(r, "Write the final answer.",
           "{\"answer\": \"The password is set to " SECRET ".\", \"reasoning\": \"Notes.\"}", 0);
    char *out = NULL, *errs = NULL;
    int st = run("secrets",
                 "'Set the account password on the passenger page' --url /passenger.html "
                 "--planner andor --candidates off",
                 &out, &errs);
    CHECK_MSG(st == 0, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    CHECK_EQ(replay_pending(r), 0);
    static const char *const files[] = {"andor.json", "trace.jsonl", "report.html"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/secrets/%s", OUT, files[i]);
        char *text = slurp(path);
        CHECK_MSG(text[0] && strstr(text, "********"), "%s: nothing masked", files[i]);
        CHECK_MSG(!strstr(text, SECRET), "%s holds the password", files[i]);
        base_free(text);
    }
    CHECK_MSG(!strstr(errs, SECRET), "%s", errs);
    CHECK_MSG(!strstr(out, SECRET) && strstr(out, "The password is set to ********."), "%s", out);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}
#undef SECRET

/* --completion-check none: the root counts as done when its children
 * succeeded (no check is asked for); --candidates on keeps the table even
 * for a task auto would not keep it for (one constraints call first). */
static void scope_none(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    answer(r, "List the task's constraints", "{\"constraints\": [], \"attributes\": []}", 0);
    script_simple(r, 0);
    char *out = NULL, *errs = NULL;
    int st = run("scope_none",
                 "'" SIMPLE_TASK "' --url /deals.html --planner andor --completion-check none "
                 "--candidates on",
                 &out, &errs);
    CHECK_MSG(st == 0, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(strstr(errs, "completion check none, candidates on"), "%s", errs);
    CHECK_EQ(request_with(r, "Is the whole task done"), -1);
    CHECK_EQ(request_with(r, "List the task's constraints"), 0);
    /* The unused check is the one answer left. */
    CHECK_EQ(replay_pending(r), 1);
    char *aj = slurp(OUT "/scope_none/andor.json");
    cJSON *a = cJSON_Parse(aj);
    CHECK_MSG(cJSON_IsObject(cJSON_GetObjectItem(a, "candidates")) &&
                  strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "tree"),
                                                                  "outcome")),
                         "success") == 0,
              "%s", aj);
    cJSON_Delete(a);
    base_free(aj);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* How a run that cannot finish ends: --max-steps (the third tool call is
 * refused; the plan stays on the stack in andor.json) and the token budget
 * (the first expansion would pass it: nothing sent), both exit 1 with the
 * default planner's end names. */
static void stops(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_constraint(r);
    char *out = NULL, *errs = NULL;
    int st = run("steps_out", "'" CONSTRAINT_TASK "' --url /deals.html --planner andor "
                              "--max-steps 2", &out, &errs);
    CHECK_MSG(st == 1, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(strstr(out, "agent max_steps: 2 tool calls without finishing the plan"), "%s", out);
    char *aj = slurp(OUT "/steps_out/andor.json");
    cJSON *a = cJSON_Parse(aj);
    const cJSON *tree = cJSON_GetObjectItem(a, "tree");
    CHECK_MSG(cJSON_GetArraySize(cJSON_GetObjectItem(tree, "stack")) > 0, "%s", aj);
    const cJSON *n = node_by_id(tree, "1.2.1.2");
    CHECK_MSG(n && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(n, "status")), "visited") == 0,
              "%s", aj);
    cJSON_Delete(a);
    base_free(aj);
    char *trace = slurp(OUT "/steps_out/trace.jsonl");
    CHECK_MSG(strstr(trace, "\"type\":\"end\",\"ok\":false") &&
                  strstr(trace, "\"end\":\"max_steps\""),
              "%s", trace);
    base_free(trace);
    base_free(out);
    base_free(errs);
    replay_destroy(r);

    r = start_replay();
    if (!r)
        SKIP("replay server");
    script_constraint(r);
    char args[512];
    snprintf(args, sizeof args, "'%s' --url /deals.html --planner andor", CONSTRAINT_TASK);
    char cmd[4096];
    /* fovea_args() (before these) says --token-budget 0; the later flag wins. */
    snprintf(cmd, sizeof cmd, "%s --token-budget 2000", args);
    st = run("cost_cap", cmd, &out, &errs);
    CHECK_MSG(st == 1, "stdout: %s\nstderr: %s", out, errs);
    CHECK_MSG(strstr(out, "cost_cap_exceeded"), "%s", out);
    /* The constraints call fit; the root's expansion did not and was not
     * sent. */
    CHECK_EQ(replay_count(r), 1);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* Ctrl-C while an operator waits on the model: the run ends within the
 * client's polling time, exit 130, the end line says interrupted and
 * carries the tree as it stood (the expansion in progress back on the
 * stack), andor.json too. */
static void interrupt(void)
{
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    script_simple(r, 20000);
    pid_t pid = spawn("interrupt", "'" SIMPLE_TASK "' --url /deals.html --planner andor");
    CHECK(pid > 0);
    double t0 = base_monotime_ms();
    int at = -1;
    while (at < 0 && base_monotime_ms() - t0 < 60000) {
        base_sleep_ms(50);
        at = request_with(r, "NODE 1.2 [not expanded");
    }
    CHECK_MSG(at == 4, "the expansion of 1.2 was request %d", at);
    kill(pid, SIGINT);
    double t1 = base_monotime_ms();
    int ws = 0;
    while (waitpid(pid, &ws, WNOHANG) == 0 && base_monotime_ms() - t1 < 15000)
        base_sleep_ms(50);
    double ms = base_monotime_ms() - t1;
    if (!WIFEXITED(ws)) {
        kill(-pid, SIGKILL);
        waitpid(pid, &ws, 0);
    }
    kill(-pid, SIGKILL);
    char *errs = slurp(OUT "/interrupt.stderr");
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 130, "status %d; stderr: %s", ws, errs);
    CHECK_MSG(ms < 10000, "the run took %.0f ms to stop", ms);
    char *trace = slurp(OUT "/interrupt/trace.jsonl");
    const char *end = strstr(trace, "\"type\":\"end\"");
    CHECK_MSG(end && strstr(end, "\"interrupted\":\"SIGINT\"") &&
                  strstr(end, "\"end\":\"interrupted\"") && strstr(end, "\"andor\":{\"tree\""),
              "%s", end ? end : trace);
    char *aj = slurp(OUT "/interrupt/andor.json");
    cJSON *a = cJSON_Parse(aj);
    const cJSON *stack = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "tree"), "stack");
    const cJSON *top = cJSON_GetArrayItem(stack, cJSON_GetArraySize(stack) - 1);
    CHECK_MSG(top && strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(top, 0)), "1.2") == 0 &&
                  strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(top, 1)), "entering") == 0,
              "%s", aj);
    cJSON_Delete(a);
    base_free(aj);
    base_free(trace);
    base_free(errs);
    replay_destroy(r);
}

static void usage(void)
{
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"--planner tree", "--planner: 'tree' is not a planner (loop or andor)"},
        {"--planner andor --candidates maybe",
         "fovea run: --candidates must be on, off or auto (not 'maybe')\n"},
        {"--planner andor --completion-check some",
         "fovea run: --completion-check must be root, all or none (not 'some')\n"},
        {"--candidates on", "--candidates needs --planner andor"},
        {"--planner andor --resume " OUT "/constraint",
         "--resume is not supported with --planner andor"},
        {"--planner andor --intervene ''", "--intervene: a file path"},
        {"--planner andor --intervene /nonexistent-dir/edits.jsonl",
         "--intervene /nonexistent-dir/edits.jsonl: No such file or directory"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[512], name[32];
        snprintf(args, sizeof args, "'Book a flight' --url /index.html %s", bad[i].args);
        snprintf(name, sizeof name, "usage%zu", i);
        char *out = NULL, *errs = NULL;
        int st = run(name, args, &out, &errs);
        CHECK_MSG(st == 2, "%s: exit %d", bad[i].args, st);
        CHECK_MSG(strstr(errs, bad[i].says), "%s: %s", bad[i].args, errs);
        base_free(out);
        base_free(errs);
    }
    /* A FIFO is refused at once (opening it for reading used to wait for
     * a writer, deaf to Ctrl-C); the kill bounds the test if it hangs. */
    system("mkdir -p '" OUT "' && rm -f '" OUT "/edits.fifo' && mkfifo '" OUT "/edits.fifo'");
    int fst = system("timeout -s KILL 20 '" FOVEA "' run 'Book a flight' --url /index.html "
                     "--planner andor --intervene '" OUT "/edits.fifo' --out '" OUT "/fifo' > '" OUT
                     "/fifo.stdout' 2> '" OUT "/fifo.stderr' < /dev/null");
    char *ferrs = slurp(OUT "/fifo.stderr");
    CHECK_MSG(WIFEXITED(fst) && WEXITSTATUS(fst) == 2, "exit status %d: %s", fst, ferrs);
    CHECK_MSG(strstr(ferrs, "edits.fifo: not a regular file"), "%s", ferrs);
    base_free(ferrs);
    /* The flags are in the usage text. */
    char *out = NULL, *errs = NULL;
    int st = run("usage_help", "'Book a flight' --help", &out, &errs);
    CHECK_EQ(st, 0);
    CHECK_MSG(strstr(out, "--planner NAME     loop (default)") && strstr(out, "andor: the AND/OR") &&
                  strstr(out, "--candidates MODE  on, off or auto") &&
                  strstr(out, "--completion-check SCOPE") &&
                  strstr(out, "root (default), all or none") &&
                  strstr(out, "--intervene FILE") && strstr(out, "on stdin with -") &&
                  strstr(out, "--planner andor: a node's expansion and its action"),
              "%s", out);
    base_free(out);
    base_free(errs);
}

/* ---- figures ------------------------------------------------------------- */

typedef struct fig {
    int calls, requests;
    long est, completion;
} fig;


/* Sums a run's model calls from its trace: prompt tokens as fovea
 * estimated them for the requests it built (the answers carry no usage:
 * see no_usage); completion tokens are the scripted answers' own. */
static fig figures_of(const char *name, const char *type)
{
    fig f = {0, 0, 0, 0};
    char path[1200];
    snprintf(path, sizeof path, "%s/%s/trace.jsonl", OUT, name);
    char *t = slurp(path);
    char *save = NULL;
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(line);
        const char *ty = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
        if (ty && strcmp(ty, type) == 0) {
            f.calls++;
            const cJSON *at = cJSON_GetObjectItem(j, "attempts");
            f.requests += cJSON_IsNumber(at) && at->valueint > 0 ? at->valueint : 1;
            f.est += (long)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "estimate"));
        }
        cJSON_Delete(j);
    }
    base_free(t);
    return f;
}

static void figures(void)
{
    static const char *const tasks[] = {"constraint", "simple"};
    fig res[2][2];
    no_usage = 1;
    for (int ti = 0; ti < 2; ti++) {
        for (int pl = 0; pl < 2; pl++) {
            replay *r = start_replay();
            if (!r)
                SKIP("replay server");
            const char *task = ti == 0 ? CONSTRAINT_TASK : SIMPLE_TASK;
            scripted_out = 0;
            if (pl == 1 && ti == 0)
                script_constraint(r);
            else if (pl == 1)
                script_simple(r, 0);
            else if (ti == 0) {
                /* The default planner on the same task: the Worker opens
                 * TP 101, sees the stop, goes back, opens FR 202, says
                 * done; the Planner checks the page and answers. */
                worker(r, "c1", "click_at", "{\"target\": \"View TP 101 deal\"}");
                worker(r, "c2", "go_back", "{}");
                worker(r, "c3", "click_at", "{\"target\": \"View FR 202 deal\"}");
                worker(r, "c4", "done", "{\"text\": \"FR 202 is non-stop at $342.\"}");
                answer(r, NULL,
                       "{\"done\": true, \"answer\": \"FR 202 (London Stansted to Lisbon, $342) "
                       "is non-stop and under $400.\"}",
                       0);
            } else {
                worker(r, "c1", "click_at", "{\"target\": \"View FR 202 deal\"}");
                worker(r, "c2", "done", "{\"text\": \"Cabin bag and one checked bag.\"}");
                answer(r, NULL,
                       "{\"done\": true, \"answer\": \"FR 202 allows a cabin bag and one "
                       "checked bag.\"}",
                       0);
            }
            char name[64], args[512];
            snprintf(name, sizeof name, "fig_%s_%s", tasks[ti], pl ? "andor" : "loop");
            snprintf(args, sizeof args, "'%s' --url /deals.html --planner %s", task,
                     pl ? "andor" : "loop");
            char *out = NULL, *errs = NULL;
            int st = run(name, args, &out, &errs);
            CHECK_MSG(st == 0, "%s: exit %d\nstdout: %s\nstderr: %s", name, st, out, errs);
            CHECK_MSG(replay_pending(r) == 0, "%s: %d answers left", name, replay_pending(r));
            res[ti][pl] = figures_of(name, pl ? "andor_op" : "model");
            res[ti][pl].completion = scripted_out;
            base_free(out);
            base_free(errs);
            replay_destroy(r);
        }
    }
    printf("| task | planner | model calls | requests | prompt tokens (est.) | completion tokens "
           "| total tokens |\n|---|---|---|---|---|---|---|\n");
    for (int ti = 0; ti < 2; ti++)
        for (int pl = 0; pl < 2; pl++) {
            const fig *f = &res[ti][pl];
            printf("| %s | %s | %d | %d | %ld | %ld | %ld |\n", tasks[ti], pl ? "andor" : "loop",
                   f->calls, f->requests, f->est, f->completion, f->est + f->completion);
        }
    for (int ti = 0; ti < 2; ti++) {
        const fig *l = &res[ti][0], *a = &res[ti][1];
        if (l->calls > 0 && l->est + l->completion > 0)
            printf("%s: andor/loop calls x%.2f, tokens x%.2f\n", tasks[ti],
                   (double)a->calls / l->calls,
                   (double)(a->est + a->completion) / (double)(l->est + l->completion));
    }
    /* Both planners were measured on real requests. */
    CHECK(res[0][0].calls == 5 && res[0][1].calls == 23);
    CHECK(res[1][0].calls == 3 && res[1][1].calls == 7);
    CHECK(res[0][0].est > 0 && res[0][1].est > 0);
    no_usage = 0;
}

static const check_case cases[] = {
    {"usage", usage},
    {"constraint", constraint},
    {"intervene", intervene},
    {"intervene_stdin", intervene_stdin},
    {"screenshot", screenshot},
    {"intervene_rewrite", intervene_rewrite},
    {"intervene_endless", intervene_endless},
    {"secrets", secrets},
    {"scope_none", scope_none},
    {"interrupt", interrupt},
    {"stops", stops},
    {"figures", figures},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
