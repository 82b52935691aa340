/* tests/tools/test_cmd_agent.c: `fovea run "TASK" --answer-schema FILE` as a
 * user runs it (the built binary), on a book page of the fixture site
 * (tests/fixtures/pages/answer/book.html) in a real headless Chromium.
 *
 * THE MODEL IS A REPLAY: tests/harness/replay.h is a loopback server
 * speaking the OpenAI chat-completions protocol that answers with the
 * replies queued below, written by hand for these conversations. It is not
 * a model. What the tests check is what fovea did with those answers: what
 * it sent next, the exit status, OUT/answer.json.
 *
 * valid: the Worker calls done with the JSON, the Planner answers done with
 *   an object that validates: exit 0, OUT/answer.json holds it; the schema
 *   is in the Worker's task message and the Planner's system prompt, and the
 *   Planner's request carries the page's price (the answer is read, not
 *   made up).
 * again: the Planner's first answer gives the price as a string: refused,
 *   the next request (the Planner's, at once) quotes the error "'price' must
 *   be a number"; its second answer, the object written as a string of
 *   JSON, is accepted: exit 0, answer.json has the number.
 * refused: three answers with a placeholder ISBN ("N/A"): each refused
 *   (seed 003's partial-extraction rule), no fourth request, exit 1 with
 *   "answer refused" and the reason on stdout, no answer.json.
 * meaningful: without a schema, a done whose answer is "null" is refused by
 *   the meaningful-output check and asked again; the second answer ends it.
 * andor: --planner andor holds its answer operator to the same schema: the
 *   first final answer (price as text) is refused inside the operator's
 *   retries with the error quoted, the second is written to answer.json.
 * bad_schema: a schema file that is not JSON, one that is not a schema
 *   fovea can enforce ($ref) and a missing one: exit 2 before anything
 *   starts (no request, no trace), the reason on stderr; `fovea batch`
 *   refuses the same file with exit 2 too.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "replay.h"
#include "svc_util.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define OUT FOVEA_BINARY_DIR "/tests/tools/out/agent"
#define SITE FOVEA_SOURCE_DIR "/tests/fixtures/pages"
#define KEY "sk-test-answer-schema-5d21"
#define TASK "'Read the title, price and ISBN of the book' --url /answer/book.html"

#define SCHEMA                                                                                     \
    "{\"type\": \"object\", \"properties\": {\"title\": {\"type\": \"string\", \"minLength\": "    \
    "1}, \"price\": {\"type\": \"number\", \"exclusiveMinimum\": 0}, \"currency\": {\"enum\": "    \
    "[\"GBP\", \"EUR\", \"USD\"]}, \"isbn\": {\"type\": \"string\"}}, \"required\": [\"title\", "  \
    "\"price\"]}"

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A replay in chat mode; the environment the child inherits points at it. */
static replay *start_replay(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE];
    return replay_start_chat(KEY, &r, err) == BASE_OK ? r : NULL;
}

/* The Worker's turn: done with text. */
static void worker_done(replay *r, const char *text)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "text", text);
    cJSON_AddBoolToObject(a, "success", 1);
    char *args = cJSON_PrintUnformatted(a);
    char *calls = replay_tool_call("call_done1", "done", args);
    replay_reply rep = {.tool_calls = calls, .require_tools = 1};
    CHECK_OK(replay_push(r, &rep));
    cJSON_free(calls);
    cJSON_free(args);
    cJSON_Delete(a);
}

/* The Planner's reply (content: its JSON), times requests. */
static void planner(replay *r, const char *content, int times)
{
    replay_reply rep = {.content = content, .times = times,
                        .match = "The Worker says the task is complete"};
    CHECK_OK(replay_push(r, &rep));
}

/* Writes the schema file name under OUT with text. */
static void schema_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", OUT, name);
    CHECK_OK(base_write_file(path, (const uint8_t *)text, strlen(text), NULL));
}

/* `fovea run TASK --answer-schema OUT/<schema> --out OUT/<name>`; stdout and
 * stderr in *out, *errs. schema NULL: no schema. */
static int run(const char *name, const char *schema, char **out, char **errs)
{
    char cmd[4096], opt[1200] = "";
    if (schema)
        snprintf(opt, sizeof opt, "--answer-schema '%s/%s'", OUT, schema);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s/%s' && '%s' run " TASK " %s --site '%s' --no-humanize --out '%s/%s' > "
             "'%s/%s.stdout' 2> '%s/%s.stderr'",
             OUT, name, FOVEA, opt, SITE, OUT, name, OUT, name, OUT, name);
    int st = sh(cmd);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.stdout", OUT, name);
    *out = svc_slurp(path);
    snprintf(path, sizeof path, "%s/%s.stderr", OUT, name);
    *errs = svc_slurp(path);
    return st;
}

/* Request i's body (a copy, "" when missing). */
static char *body(replay *r, int i)
{
    replay_seen s;
    if (replay_request(r, i, &s) != BASE_OK)
        return base_strdup("");
    char *b = base_strdup(s.body ? s.body : "");
    replay_seen_fini(&s);
    return b;
}

/* OUT/<name>/answer.json parsed, NULL when missing. */
static cJSON *answer_of(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s/answer.json", OUT, name);
    if (access(path, F_OK) != 0)
        return NULL;
    char *t = svc_slurp(path);
    cJSON *j = cJSON_Parse(t);
    base_free(t);
    return j;
}

static void setup(void)
{
    CHECK_EQ(sh("mkdir -p '" OUT "'"), 0);
    schema_file("book.schema.json", SCHEMA);
}

static void valid(void)
{
    setup();
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    worker_done(r, "{\"title\": \"The Quiet Harbour\", \"price\": 12.5, \"currency\": \"GBP\"}");
    planner(r,
            "{\"done\": true, \"answer\": {\"title\": \"The Quiet Harbour\", \"price\": 12.5, "
            "\"currency\": \"GBP\", \"isbn\": \"978-1-4028-9462-6\"}, \"guidance\": \"The page "
            "shows £12.50 and the ISBN.\"}",
            1);
    char *out = NULL, *errs = NULL;
    int st = run("valid", "book.schema.json", &out, &errs);
    CHECK_MSG(st == 0, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    CHECK_MSG(strstr(out, "agent done") && strstr(out, "\"price\":12.5"), "stdout: %s", out);
    cJSON *a = answer_of("valid");
    CHECK_MSG(a != NULL, "no answer.json");
    if (a) {
        CHECK_STR(cJSON_GetObjectItem(a, "title")->valuestring, "The Quiet Harbour");
        CHECK(cJSON_GetObjectItem(a, "price")->valuedouble == 12.5);
        CHECK_STR(cJSON_GetObjectItem(a, "isbn")->valuestring, "978-1-4028-9462-6");
    }
    cJSON_Delete(a);
    CHECK_EQ(replay_count(r), 2);
    char *w = body(r, 0), *p = body(r, 1);
    /* The shape is told to both roles; the Planner saw the page's price. */
    CHECK_MSG(strstr(w, "ANSWER SCHEMA") && strstr(w, "exclusiveMinimum"), "worker: %.400s", w);
    CHECK_MSG(strstr(p, "ANSWER SCHEMA") != NULL, "planner: %.400s", p);
    CHECK_MSG(strstr(p, "\xc2\xa3" "12.50") != NULL, "the Planner's request lacks the price");
    CHECK(strstr(out, KEY) == NULL && strstr(errs, KEY) == NULL);
    base_free(w);
    base_free(p);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

static void again(void)
{
    setup();
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    worker_done(r, "The Quiet Harbour, £12.50");
    planner(r, "{\"done\": true, \"answer\": {\"title\": \"The Quiet Harbour\", \"price\": "
               "\"£12.50\"}}",
            1);
    planner(r, "{\"done\": true, \"answer\": \"{\\\"title\\\": \\\"The Quiet Harbour\\\", "
               "\\\"price\\\": 12.5, \\\"currency\\\": \\\"GBP\\\"}\"}",
            1);
    char *out = NULL, *errs = NULL;
    int st = run("again", "book.schema.json", &out, &errs);
    CHECK_MSG(st == 0, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    CHECK_EQ(replay_count(r), 3);
    char *p2 = body(r, 2);
    CHECK_MSG(strstr(p2, "Your final answer was not accepted") &&
                  strstr(p2, "'price' must be a number"),
              "the third request does not quote the error: %.600s", p2);
    CHECK_MSG(strstr(errs, "planner answer refused (1 of 3)") != NULL, "stderr: %s", errs);
    cJSON *a = answer_of("again");
    CHECK_MSG(a && cJSON_IsNumber(cJSON_GetObjectItem(a, "price")) &&
                  cJSON_GetObjectItem(a, "price")->valuedouble == 12.5,
              "answer.json: %s", a ? "price is not 12.5" : "missing");
    cJSON_Delete(a);
    /* The refusal is in the ledger, for a person reading the run. */
    char *ledger = svc_slurp(OUT "/again/ledger.json");
    CHECK_MSG(strstr(ledger, "final answer refused") != NULL, "ledger: %.300s", ledger);
    base_free(ledger);
    base_free(p2);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

static void refused(void)
{
    setup();
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    worker_done(r, "The Quiet Harbour, £12.50");
    planner(r, "{\"done\": true, \"answer\": {\"title\": \"The Quiet Harbour\", \"price\": 12.5, "
               "\"isbn\": \"N/A\"}}",
            3);
    char *out = NULL, *errs = NULL;
    int st = run("refused", "book.schema.json", &out, &errs);
    CHECK_MSG(st == 1, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    CHECK_MSG(strstr(out, "answer refused") && strstr(out, "refused 3 times") &&
                  strstr(out, "'isbn' is the placeholder \"N/A\""),
              "stdout: %s", out);
    CHECK(strstr(out, "agent done") == NULL);
    CHECK_EQ(replay_count(r), 4); /* the Worker, then the Planner three times */
    CHECK_EQ(replay_pending(r), 0);
    cJSON *a = answer_of("refused");
    CHECK_MSG(a == NULL, "answer.json written for a refused answer");
    cJSON_Delete(a);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

static void meaningful(void)
{
    setup();
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    worker_done(r, "null");
    planner(r, "{\"done\": true, \"answer\": \"null\"}", 1);
    planner(r, "{\"done\": true, \"answer\": \"The Quiet Harbour costs £12.50 (ISBN "
               "978-1-4028-9462-6).\"}",
            1);
    char *out = NULL, *errs = NULL;
    int st = run("meaningful", NULL, &out, &errs);
    CHECK_MSG(st == 0, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    CHECK_MSG(strstr(out, "agent done") && strstr(out, "costs £12.50"), "stdout: %s", out);
    char *p = body(r, 2);
    CHECK_MSG(strstr(p, "no meaningful content") != NULL, "request 3: %.500s", p);
    base_free(p);
    /* No schema, no answer.json. */
    cJSON *a = answer_of("meaningful");
    CHECK(a == NULL);
    cJSON_Delete(a);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

/* A reply for the request whose prompt contains match. */
static void reply_to(replay *r, const char *match, const char *content)
{
    replay_reply rep = {.content = content, .match = match};
    CHECK_OK(replay_push(r, &rep));
}

static void andor(void)
{
    setup();
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    reply_to(r, "NODE 1 [not expanded",
             "{\"type\": \"and\", \"children\": [{\"description\": \"Note the book's title, "
             "price and ISBN\"}], \"reasoning\": \"All on the page.\"}");
    reply_to(r, "NODE 1.1 [not expanded",
             "{\"type\": \"action\", \"tool\": \"note\", \"args\": \"{\\\"text\\\": "
             "\\\"The Quiet Harbour, £12.50, ISBN 978-1-4028-9462-6\\\"}\", \"reasoning\": \"The "
             "page shows them.\"}");
    reply_to(r, "Is the whole task done", "{\"complete\": true, \"reasoning\": \"Noted.\"}");
    reply_to(r, "Write the final answer.",
             "{\"answer\": {\"title\": \"The Quiet Harbour\", \"price\": \"12.50\"}, "
             "\"reasoning\": \"From the note.\"}");
    reply_to(r, "Write the final answer.",
             "{\"answer\": {\"title\": \"The Quiet Harbour\", \"price\": 12.5, \"isbn\": "
             "\"978-1-4028-9462-6\"}, \"reasoning\": \"From the note.\"}");
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s/andor' && '%s' run " TASK " --planner andor --candidates off "
             "--answer-schema '%s/book.schema.json' --site '%s' --no-humanize --out '%s/andor' "
             "> '%s/andor.stdout' 2> '%s/andor.stderr'",
             OUT, FOVEA, OUT, SITE, OUT, OUT, OUT);
    int st = sh(cmd);
    char *out = svc_slurp(OUT "/andor.stdout"), *errs = svc_slurp(OUT "/andor.stderr");
    CHECK_MSG(st == 0, "exit %d\nstdout: %s\nstderr: %s", st, out, errs);
    int quoted = 0;
    for (int i = 0; i < replay_count(r); i++) {
        char *b = body(r, i);
        quoted |= strstr(b, "Your answer was not accepted") &&
                  strstr(b, "'price' must be a number") && strstr(b, "ANSWER SCHEMA");
        base_free(b);
    }
    CHECK_MSG(quoted, "no request quoted the schema error");
    CHECK_EQ(replay_pending(r), 0);
    cJSON *a = answer_of("andor");
    CHECK_MSG(a && cJSON_GetObjectItem(a, "price") &&
                  cJSON_GetObjectItem(a, "price")->valuedouble == 12.5,
              "answer.json %s", a ? "without price 12.5" : "missing");
    cJSON_Delete(a);
    base_free(out);
    base_free(errs);
    replay_destroy(r);
}

static void bad_schema(void)
{
    setup();
    replay *r = start_replay();
    if (!r)
        SKIP("replay server");
    schema_file("notjson.json", "{\"type\": \"object\", \"properties\": ");
    schema_file("ref.json", "{\"type\": \"object\", \"properties\": {\"price\": {\"$ref\": "
                            "\"#/$defs/money\"}}}");
    static const struct {
        const char *file, *words;
    } bad[] = {{"notjson.json", "is not JSON"},
               {"ref.json", "'$ref' is not a keyword"},
               {"missing.json", "missing.json"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out = NULL, *errs = NULL;
        int st = run("bad", bad[i].file, &out, &errs);
        CHECK_MSG(st == 2, "%s: exit %d, stderr: %s", bad[i].file, st, errs);
        CHECK_MSG(strstr(errs, "--answer-schema") && strstr(errs, bad[i].words), "%s: %s",
                  bad[i].file, errs);
        /* Nothing started: no browser, no trace. */
        CHECK(access(OUT "/bad/trace.jsonl", F_OK) != 0);
        CHECK_MSG(strstr(errs, "agent on") == NULL, "%s: the run started: %s", bad[i].file, errs);
        base_free(out);
        base_free(errs);
    }
    /* fovea batch checks it once, before any run. */
    CHECK_EQ(sh("'" FOVEA "' batch " TASK " --site '" SITE "' --answer-schema '" OUT
                "/ref.json' --out '" OUT "/badbatch' 2> '" OUT "/badbatch.stderr'"),
             2);
    char *e = svc_slurp(OUT "/badbatch.stderr");
    CHECK_MSG(strstr(e, "fovea batch: --answer-schema") && strstr(e, "'$ref'"), "%s", e);
    base_free(e);
    CHECK_EQ(replay_count(r), 0);
    replay_destroy(r);
}

static const check_case cases[] = {{"valid", valid},
                                   {"again", again},
                                   {"refused", refused},
                                   {"meaningful", meaningful},
                                   {"andor", andor},
                                   {"bad_schema", bad_schema},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
