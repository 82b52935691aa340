/* tests/tools/test_cmd_batch.c: `fovea batch` as a user runs it (the built
 * binary), on its own browsers and on a real browserless pool.
 *
 * local: three task files without --cdp, two at once: each launches its own
 * Chromium; the passing ones pass, the failing one is reported as failed
 * after one attempt (a task failure is never retried), the exit status is 1,
 * OUT/results.jsonl has a line per task and OUT/index.html a row linking each
 * report; --resume then runs nothing and exits 0 only for recorded passes.
 * interrupt: SIGINT stops the batch: the running tasks finish their reports
 * and are recorded as interrupted, no new task starts, the index is written,
 * the exit status is 130. crash: a `fovea run` killed by SIGKILL is an
 * infrastructure failure naming the signal, not a task failure.
 * pool: scripts/pool.sh installs browserless from npm (once) and starts it on
 * loopback with a token (CONCURRENT=2, QUEUED=8, 60 s per session); six tasks
 * with --workers 6 all pass, and the pool's log shows connections waiting in
 * its queue; a wrong token is an error naming the refused token, not
 * retried. A pool with one browser, held by the test, and QUEUED=0: the
 * task gets 429, is asked again within --cdp-wait, retried once by the batch
 * and reported as "the pool is full". A pool with an 8 s
 * session limit cuts a 20 s task: reported as "the pool closed the session
 * after N s", not retried once its step had started.
 * words: tasks for a model in one batch with a scripted file: two tasks in
 * words and a goal file, each carried out by `fovea run` against a REPLAY of
 * recorded chat-completions answers (tests/harness/replay.h: a loopback
 * server speaking the OpenAI protocol, not a model; each answer is matched to
 * its task by the e-mail address in the task, so the concurrent runs get
 * their own conversations). Two pass (the page really shows the
 * subscription), the goal file's Worker never calls a tool and is stopped as
 * failed, not retried; each result line carries the model's tokens; the
 * scripted task gets --overlays and the model's runs get --url, each only
 * its own kind's options. A task in words without --url is refused before
 * anything starts.
 * llm_flags: --llm-first-byte, --llm-stall, --llm-call-limit and
 * --answer-schema reach each model run (its log states the timers; a
 * REPLAYED server that never starts answering fails after 1 s, not 90; a
 * valid answer lands in the task folder's answer.json).
 * When npm cannot install browserless the pool case is skipped (a failure
 * under CI=true).
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <sys/wait.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "cdp/browser.h"
#include "replay.h"
#include "svc_util.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define OUT FOVEA_BINARY_DIR "/tests/tools/out/batch"
#define TASKS FOVEA_SOURCE_DIR "/tests/tools/tasks"
#define SITE FOVEA_SOURCE_DIR "/tests/fixtures/pages"
#define POOL FOVEA_SOURCE_DIR "/scripts/pool.sh"
#define KEY "sk-test-batch-words-31c9"

/* Runs a shell command; returns its exit status or -1. */
static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole file (malloc'd, NUL-terminated; "" when missing). */
/* The results.jsonl line of task folder `name` (the last one), or NULL. */
static cJSON *result_of(const char *out, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/results.jsonl", out);
    char *text = svc_slurp(path);
    cJSON *found = NULL;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        cJSON *j = cJSON_Parse(line);
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "name"));
        if (n && strcmp(n, name) == 0) {
            cJSON_Delete(found);
            found = j;
        } else {
            cJSON_Delete(j);
        }
        line = nl ? nl + 1 : NULL;
    }
    base_free(text);
    return found;
}

static const char *str(const cJSON *j, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, k));
    return s ? s : "";
}

static int num(const cJSON *j, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
    return cJSON_IsNumber(v) ? v->valueint : -1;
}

static void local(void)
{
    char cmd[4096];
    const char *out = OUT "/local";
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '" OUT "' && '%s' batch '%s/batch_ok.json' '%s/batch_fail.json' "
             "'%s/batch_ok.json' --site '%s' --workers 2 --out '%s' --overlays none "
             "2> '%s.stderr'",
             out, FOVEA, TASKS, TASKS, TASKS, SITE, out, out);
    CHECK_EQ(sh(cmd), 1);
    char path[1024];
    snprintf(path, sizeof path, "%s.stderr", out);
    char *err = svc_slurp(path);
    CHECK_MSG(strstr(err, "each on its own Chromium") != NULL, "stderr: %s", err);
    /* One progress line per finished task. */
    int lines = 0;
    for (const char *p = err; (p = strstr(p, "fovea batch: [")) != NULL; p++)
        lines++;
    CHECK_EQ(lines, 3);
    base_free(err);
    const char *names[3] = {"batch_ok", "batch_fail", "batch_ok-2"};
    for (int i = 0; i < 3; i++) {
        cJSON *r = result_of(out, names[i]);
        CHECK_MSG(r != NULL, "no result for %s", names[i]);
        if (i == 1) {
            CHECK_STR(str(r, "outcome"), "failed");
            CHECK_EQ(num(r, "attempts"), 1);
            CHECK_EQ(num(r, "failed_step"), 1);
            CHECK_MSG(strstr(str(r, "reason"), "Unsubscribed") != NULL, "reason: %s",
                      str(r, "reason"));
        } else {
            CHECK_STR(str(r, "outcome"), "passed");
            CHECK_EQ(num(r, "steps_passed"), 3);
            CHECK_EQ(num(r, "steps"), 3);
        }
        CHECK_MSG(num(r, "max_rss_kb") > 0, "no memory figure for %s", names[i]);
        cJSON_Delete(r);
        snprintf(path, sizeof path, "%s/%s/report.html", out, names[i]);
        char *rep = svc_slurp(path);
        CHECK_MSG(rep[0] != '\0', "no report for %s", names[i]);
        base_free(rep);
    }
    snprintf(path, sizeof path, "%s/index.html", out);
    char *index = svc_slurp(path);
    CHECK(strstr(index, "2 of 3 tasks passed") != NULL);
    CHECK(strstr(index, "href=\"batch_fail/report.html\"") != NULL);
    CHECK(strstr(index, "href=\"batch_ok-2/report.html\"") != NULL);
    base_free(index);
    /* --resume: every task is recorded (passed or failed): nothing runs. */
    snprintf(cmd, sizeof cmd,
             "'%s' batch '%s/batch_ok.json' '%s/batch_fail.json' '%s/batch_ok.json' --site '%s' "
             "--out '%s' --resume 2> '%s.stderr2'",
             FOVEA, TASKS, TASKS, TASKS, SITE, out, out);
    CHECK_EQ(sh(cmd), 1);
    snprintf(path, sizeof path, "%s.stderr2", out);
    err = svc_slurp(path);
    CHECK_MSG(strstr(err, "3 of 3 tasks already recorded") != NULL, "stderr: %s", err);
    CHECK_MSG(strstr(err, "fovea batch: [") == NULL, "a recorded task ran again: %s", err);
    base_free(err);
}

static void interrupt(void)
{
    /* Two 20 s tasks and a third waiting for a worker; SIGINT after 4 s:
     * the running two finish their reports, the third never starts, the
     * index lists what finished and the exit status is 130. */
    char cmd[4096];
    const char *out = OUT "/interrupt";
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s' && ('%s' batch '%s/batch_slow.json' "
             "'%s/batch_slow.json' '%s/batch_ok.json' --site '%s' --workers 2 --out '%s' "
             "--overlays none 2> '%s.stderr' & pid=$!; sleep 4; kill -INT $pid; wait $pid; "
             "exit $?)",
             out, out, FOVEA, TASKS, TASKS, TASKS, SITE, out, out);
    CHECK_EQ(sh(cmd), 130);
    const char *names[2] = {"batch_slow", "batch_slow-2"};
    for (int i = 0; i < 2; i++) {
        cJSON *r = result_of(out, names[i]);
        CHECK_MSG(r != NULL, "no result for %s", names[i]);
        CHECK_STR(str(r, "outcome"), "interrupted");
        CHECK_EQ(num(r, "attempts"), 1);
        cJSON_Delete(r);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/report.html", out, names[i]);
        char *rep = svc_slurp(path);
        CHECK_MSG(rep[0] != '\0', "no report for %s", names[i]);
        base_free(rep);
    }
    cJSON *r = result_of(out, "batch_ok");
    CHECK_MSG(r == NULL, "a task started after the signal");
    cJSON_Delete(r);
    char path[1024];
    snprintf(path, sizeof path, "%s/index.html", out);
    char *index = svc_slurp(path);
    CHECK(strstr(index, "0 of 2 tasks passed") != NULL);
    base_free(index);
}

static void crash(void)
{
    /* The `fovea run` of a task dies (SIGKILL, as the OOM killer would): no
     * verdict on the task; with --retries 0 it is reported as an
     * infrastructure failure naming the signal. The kill goes by parent
     * pid to the batch's own child only. */
    char cmd[4096];
    const char *out = OUT "/crash";
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s' && ('%s' batch '%s/batch_slow.json' --site '%s' "
             "--out '%s' --retries 0 --overlays none 2> '%s.stderr' & pid=$!; sleep 3; "
             "pkill -KILL -P $pid; wait $pid; exit $?)",
             out, out, FOVEA, TASKS, SITE, out, out);
    CHECK_EQ(sh(cmd), 1);
    cJSON *r = result_of(out, "batch_slow");
    CHECK(r != NULL);
    CHECK_STR(str(r, "outcome"), "infrastructure");
    CHECK_MSG(strstr(str(r, "reason"), "fovea run died of signal 9") != NULL, "reason: %s",
              str(r, "reason"));
    cJSON_Delete(r);
}

/* Starts a pool in dir; fills endpoint. 0 ok, 3 npm cannot install, else failed. */
static int pool_start(const char *dir, const char *opts, char *endpoint, size_t n)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' stop --dir '%s'; '%s' start --dir '%s' %s > '%s.ep'", POOL,
             dir, POOL, dir, opts, dir);
    int rc = sh(cmd);
    if (rc != 0)
        return rc;
    char path[1024];
    snprintf(path, sizeof path, "%s.ep", dir);
    char *ep = svc_slurp(path);
    ep[strcspn(ep, "\n")] = '\0';
    snprintf(endpoint, n, "%s", ep);
    base_free(ep);
    return endpoint[0] ? 0 : 1;
}

static void pool_stop(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' stop --dir '%s'", POOL, dir);
    sh(cmd);
}

/* Runs one task file through `fovea batch` on endpoint ep with the extra
 * options; stores the exit status and returns its results line (caller
 * frees; NULL when there is none). */
static cJSON *batch_one(const char *out, const char *taskfile, const char *ep, const char *extra,
                        int *rc)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s' batch '%s/%s.json' --site '%s' --out '%s' --cdp '%s' %s "
             "2> '%s.stderr'",
             out, FOVEA, TASKS, taskfile, SITE, out, ep, extra, out);
    *rc = sh(cmd);
    return result_of(out, taskfile);
}

static void pool(void)
{
    const char *dir = OUT "/pool-a";
    char ep[512] = "";
    sh("mkdir -p '" OUT "'");
    int rc = pool_start(dir, "--concurrent 2 --queued 8 --timeout-s 60", ep, sizeof ep);
    if (rc == 3)
        SKIP("scripts/pool.sh could not install browserless from npm");
    CHECK_EQ(rc, 0);
    char cmd[8192];
    const char *out = OUT "/pool";
    /* Six tasks, six workers, two browsers: four wait in the pool's queue. */
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s' batch '%s/batch_ok.json' '%s/batch_ok.json' "
             "'%s/batch_ok.json' '%s/batch_ok.json' '%s/batch_ok.json' '%s/batch_ok.json' "
             "--site '%s' --workers 6 --out '%s' --overlays none --cdp '%s' --cdp-wait 120 "
             "2> '%s.stderr'",
             out, FOVEA, TASKS, TASKS, TASKS, TASKS, TASKS, TASKS, SITE, out, ep, out);
    int brc = sh(cmd);
    char path[1024];
    snprintf(path, sizeof path, "%s.stderr", out);
    char *err = svc_slurp(path);
    CHECK_MSG(brc == 0, "batch exit %d: %s", brc, err);
    CHECK_MSG(strstr(err, "6/6 passed") != NULL, "stderr: %s", err);
    /* The token never shows. */
    const char *tok = strstr(ep, "token=");
    CHECK(tok != NULL);
    CHECK_MSG(strstr(err, tok) == NULL, "the token was printed: %s", err);
    base_free(err);
    snprintf(path, sizeof path, "%s/log", dir);
    char *log = svc_slurp(path);
    /* browserless logs "(Running: 2, Pending: N) Adding to queue" when a
     * connection had to wait for a browser. */
    CHECK_MSG(strstr(log, "Running: 2, Pending: ") != NULL, "the queue was not used");
    base_free(log);

    /* A wrong token: a clear error, not retried. */
    char bad[600];
    snprintf(bad, sizeof bad, "%.*stoken=wrong", (int)(tok - ep), ep);
    cJSON *r = batch_one(OUT "/pool-bad", "batch_ok", bad, "--retries 2", &brc);
    CHECK_EQ(brc, 1);
    CHECK(r != NULL);
    CHECK_STR(str(r, "outcome"), "infrastructure");
    CHECK_EQ(num(r, "attempts"), 1);
    CHECK_MSG(strstr(str(r, "reason"), "HTTP 401: the token was refused") != NULL, "reason: %s",
              str(r, "reason"));
    CHECK_MSG(strstr(str(r, "reason"), "wrong") == NULL, "token in the reason: %s",
              str(r, "reason"));
    cJSON_Delete(r);
    pool_stop(dir);

    /* No room in the queue (QUEUED=0) and the only browser held by a
     * connection of this test: the task is asked again within --cdp-wait,
     * retried once by the batch, then reported. */
    dir = OUT "/pool-b";
    CHECK_EQ(pool_start(dir, "--concurrent 1 --queued 0", ep, sizeof ep), 0);
    cdp_attach_opts ao = {NULL, 60000};
    cdp_browser *held = NULL;
    char herr[256] = "";
    CHECK_MSG(cdp_browser_attach_with(ep, &ao, &held, herr) == BASE_OK, "hold: %s", herr);
    r = batch_one(OUT "/pool-full", "batch_ok", ep, "--cdp-wait 1 --retries 1", &brc);
    cdp_browser_destroy(held);
    CHECK_EQ(brc, 1);
    CHECK(r != NULL);
    CHECK_STR(str(r, "outcome"), "infrastructure");
    CHECK_EQ(num(r, "attempts"), 2);
    CHECK_MSG(strstr(str(r, "reason"), "HTTP 429: the pool is full") != NULL &&
                  strstr(str(r, "reason"), "still full after"),
              "reason: %s", str(r, "reason"));
    cJSON_Delete(r);
    pool_stop(dir);

    /* An 8 s session limit and a task that waits 20 s: the pool cuts it and
     * the batch names that. Once its step had started it is not run again;
     * on a machine so loaded (or a sanitizer build so slow) that the cut
     * came before the first step, it is run once more, as a failure before
     * any step is. */
    dir = OUT "/pool-c";
    CHECK_EQ(pool_start(dir, "--concurrent 1 --queued 2 --timeout-s 8", ep, sizeof ep), 0);
    r = batch_one(OUT "/pool-cut", "batch_slow", ep, "--retries 1", &brc);
    CHECK_EQ(brc, 1);
    CHECK(r != NULL);
    CHECK_STR(str(r, "outcome"), "infrastructure");
    const char *why = str(r, "reason");
    CHECK_MSG(strstr(why, "the pool closed the session after") != NULL, "reason: %s", why);
    int acted = strstr(why, "(not retried: steps had acted)") != NULL;
    CHECK_MSG(num(r, "attempts") == (acted ? 1 : 2), "attempts %d, reason: %s",
              num(r, "attempts"), why);
    cJSON_Delete(r);
    pool_stop(dir);
}


/* A Worker turn: one tool call, for the request whose prompt has match. */
static void worker_call(replay *r, const char *match, const char *id, const char *name,
                        const char *args)
{
    char *calls = replay_tool_call(id, name, args);
    replay_reply rep = {.tool_calls = calls, .require_tools = 1, .match = match,
                        .completion_tokens = 30};
    CHECK(calls != NULL);
    CHECK_OK(replay_push(r, &rep));
    cJSON_free(calls);
}

static void text_answer(replay *r, const char *match, const char *content)
{
    replay_reply rep = {.content = content, .match = match};
    CHECK_OK(replay_push(r, &rep));
}

/* One subscription done by the Worker, then the Planner's done. */
static void script_subscribe(replay *r, const char *email)
{
    char args[200], done[300];
    snprintf(args, sizeof args, "{\"target\": \"Email address\", \"text\": \"%s\"}", email);
    worker_call(r, email, "call_t1", "type_at", args);
    worker_call(r, email, "call_c1", "click_at", "{\"target\": \"Subscribe\"}");
    snprintf(args, sizeof args, "{\"text\": \"The page says Subscribed: %s\"}", email);
    worker_call(r, email, "call_d1", "done", args);
    snprintf(done, sizeof done,
             "{\"done\": true, \"answer\": \"Subscribed %s (the page says \\\"Subscribed: %s\\\").\", "
             "\"plan\": [\"Subscribe\"], \"subgoal\": 0}",
             email, email);
    text_answer(r, email, done);
}

static void words(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE];
    if (replay_start_chat(KEY, &r, err) != BASE_OK)
        SKIP("replay server");
    script_subscribe(r, "ann@example.org");
    script_subscribe(r, "bob@example.org");
    /* The goal file's Worker answers in prose three times: stopped. */
    const char *idle = "carl@example.org";
    const char *refuse = "{\"done\": false, \"plan\": [\"Subscribe\"], \"subgoal\": 0, "
                         "\"guidance\": \"Use the tools: type the address.\"}";
    text_answer(r, idle, "I have subscribed carl.");
    text_answer(r, idle, refuse);
    text_answer(r, idle, "Carl is subscribed, I am sure.");
    text_answer(r, idle, refuse);
    text_answer(r, idle, "Done."); /* the third prose answer: stopped */

    const char *out = OUT "/words";
    char goal[1024], cmd[4096];
    snprintf(goal, sizeof goal, "%s.goal.json", out);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s' && printf '%%s' '{\"goal\": \"Subscribe "
             "carl@example.org to the digest\", \"url\": \"/batch/index.html\"}' > '%s'",
             out, out, goal);
    CHECK_EQ(sh(cmd), 0);
    /* Words without --url: refused before anything runs. */
    snprintf(cmd, sizeof cmd,
             "'%s' batch 'Subscribe ann@example.org to the digest' --site '%s' --out '%s/nourl' "
             "2> '%s.nourl'",
             FOVEA, SITE, out, out);
    CHECK_EQ(sh(cmd), 2);
    char path[1200];
    snprintf(path, sizeof path, "%s.nourl", out);
    char *e = svc_slurp(path);
    CHECK_MSG(strstr(e, "needs --url") != NULL, "stderr: %s", e);
    base_free(e);
    CHECK_EQ(replay_count(r), 0);

    snprintf(cmd, sizeof cmd,
             "'%s' batch 'Subscribe ann@example.org to the digest' '%s' "
             "'Subscribe bob@example.org to the digest' '%s/batch_ok.json' --site '%s' "
             "--url /batch/index.html --max-steps 12 --overlays none --no-humanize --workers 3 "
             "--out '%s' 2> '%s.stderr'",
             FOVEA, goal, TASKS, SITE, out, out);
    CHECK_EQ(sh(cmd), 1);
    snprintf(path, sizeof path, "%s.stderr", out);
    char *errs = svc_slurp(path);
    CHECK_MSG(strstr(errs, "4 tasks, 3 at once") != NULL, "stderr: %s", errs);
    CHECK(strstr(errs, KEY) == NULL);
    base_free(errs);
    const char *names[2] = {"subscribe_ann_example_org_to_the_digest",
                            "subscribe_bob_example_org_to_the_digest"};
    for (int i = 0; i < 2; i++) {
        cJSON *res = result_of(out, names[i]);
        CHECK_MSG(res != NULL, "no result for %s", names[i]);
        if (!res)
            continue;
        CHECK_MSG(strcmp(str(res, "outcome"), "passed") == 0, "%s: %s (%s)", names[i],
                  str(res, "outcome"), str(res, "reason"));
        CHECK_EQ(num(res, "steps"), 3);
        CHECK_EQ(num(res, "steps_passed"), 3);
        CHECK_MSG(num(res, "tokens") > 0, "no model tokens for %s", names[i]);
        CHECK(strstr(str(res, "task"), "Subscribe ") == str(res, "task"));
        cJSON_Delete(res);
        /* The page really changed: the trace saw the confirmation. */
        snprintf(path, sizeof path, "%s/%s/trace.jsonl", out, names[i]);
        char *trace = svc_slurp(path);
        CHECK_MSG(strstr(trace, i ? "Subscribed: bob@example.org" : "Subscribed: ann@example.org"),
                  "%s: the subscription is not in the trace", names[i]);
        CHECK(strstr(trace, KEY) == NULL);
        base_free(trace);
    }
    cJSON *g = result_of(out, "words.goal");
    CHECK_MSG(g != NULL, "no result for the goal file");
    if (g) {
        CHECK_STR(str(g, "outcome"), "failed");
        CHECK_EQ(num(g, "attempts"), 1);
        CHECK_MSG(strstr(str(g, "reason"), "no tool call") != NULL, "reason: %s",
                  str(g, "reason"));
        cJSON_Delete(g);
    }
    cJSON *sres = result_of(out, "batch_ok");
    CHECK_MSG(sres && strcmp(str(sres, "outcome"), "passed") == 0, "scripted: %s",
              sres ? str(sres, "reason") : "no result");
    CHECK_EQ(sres ? num(sres, "tokens") : -1, 0);
    cJSON_Delete(sres);
    /* Nothing is left for anyone: each run had exactly its own answers. */
    CHECK_EQ(replay_pending(r), 0);
    replay_destroy(r);
    unsetenv("FOVEA_LLM_BASE_URL");
    unsetenv("FOVEA_LLM_API_KEY");
}

/* The model's timers and --answer-schema go through to every model run.
 * Two tasks in words against one REPLAY (a loopback server speaking the
 * OpenAI protocol with queued answers, not a model; each answer matched to
 * its task by the task's words): the slow shelf's server never starts
 * answering (8 s before its first byte), the quick shelf's answers at once.
 * With --llm-first-byte 1 --llm-stall 2 --llm-call-limit 5 each run's log
 * states those timers, the slow run fails naming "no first byte in 1 s"
 * (the default would have waited 90 s), and the quick run's valid answer
 * is in its folder's answer.json. */
static void llm_flags(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE];
    if (replay_start_chat(KEY, &r, err) != BASE_OK)
        SKIP("replay server");
    replay_reply slow = {.content = "Thinking.", .delay_ms = 8000, .match = "Slow shelf"};
    CHECK_OK(replay_push(r, &slow));
    worker_call(r, "Quick shelf", "call_q1", "done",
                "{\"text\": \"{\\\"price\\\": 12.5}\", \"success\": true}");
    text_answer(r, "Quick shelf",
                "{\"done\": true, \"answer\": {\"title\": \"The Quiet Harbour\", \"price\": 12.5}}");
    const char *out = OUT "/llm";
    char cmd[4096], path[1200];
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s' && printf '%%s' '{\"type\": \"object\", "
             "\"properties\": {\"title\": {\"type\": \"string\"}, \"price\": {\"type\": "
             "\"number\"}}, \"required\": [\"price\"]}' > '%s.schema.json'",
             out, out, out);
    CHECK_EQ(sh(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "'%s' batch 'Slow shelf: read the book price' 'Quick shelf: read the book price' "
             "--site '%s' --url /answer/book.html --llm-first-byte 1 --llm-stall 2 "
             "--llm-call-limit 5 --answer-schema '%s.schema.json' --no-humanize --workers 2 "
             "--retries 0 --out '%s' 2> '%s.stderr'",
             FOVEA, SITE, out, out, out);
    CHECK_EQ(sh(cmd), 1);
    const char *names[2] = {"slow_shelf__read_the_book_price", "quick_shelf__read_the_book_price"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s/run.log", out, names[i]);
        char *log = svc_slurp(path);
        CHECK_MSG(strstr(log, "model calls: first byte 1 s, stall 2 s, call limit 5 s, answer "
                              "schema") != NULL,
                  "%s: the timers did not reach the run:\n%s", names[i], log);
        CHECK(strstr(log, KEY) == NULL);
        if (i == 0)
            CHECK_MSG(strstr(log, "no first byte in 1 s") != NULL, "slow run:\n%s", log);
        base_free(log);
    }
    cJSON *sres = result_of(out, names[0]);
    CHECK_MSG(sres && strcmp(str(sres, "outcome"), "failed") == 0, "slow: %s",
              sres ? str(sres, "outcome") : "no result");
    cJSON_Delete(sres);
    cJSON *q = result_of(out, names[1]);
    CHECK_MSG(q && strcmp(str(q, "outcome"), "passed") == 0, "quick: %s (%s)",
              q ? str(q, "outcome") : "no result", q ? str(q, "reason") : "");
    cJSON_Delete(q);
    snprintf(path, sizeof path, "%s/%s/answer.json", out, names[1]);
    char *ans = svc_slurp(path);
    cJSON *a = cJSON_Parse(ans);
    CHECK_MSG(a && cJSON_GetObjectItem(a, "price") &&
                  cJSON_GetObjectItem(a, "price")->valuedouble == 12.5,
              "answer.json: %s", ans);
    cJSON_Delete(a);
    base_free(ans);
    replay_destroy(r);
    unsetenv("FOVEA_LLM_BASE_URL");
    unsetenv("FOVEA_LLM_API_KEY");
}

static const check_case cases[] = {
    {"local", local}, {"words", words},   {"llm_flags", llm_flags}, {"interrupt", interrupt},
    {"crash", crash}, {"pool", pool},     {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
