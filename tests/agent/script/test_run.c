/* tests/agent/script/test_run.c: `fovea run` as a user runs it, on the demo site.
 *
 * demo: assets/tasks/demo.json with --no-humanize must pass every step and
 * leave trace.jsonl (one line per step), the overlays and report.html.
 * covered: a task whose second step clicks a button under the consent wall
 * must exit 1 naming the step, the reason and the alternatives (the consent
 * buttons), and keep the trace,
 * the overlays of both steps and a report that says where it failed.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"

/* Runs fovea run with args; returns the exit status and the output in *log. */
static int run(const char *args, const char *out, char **log)
{
    char cmd[2048], path[1100];
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' run %s --site '%s/assets/site' --out '%s' > '%s' 2>&1",
             out, FOVEA, args, FOVEA_SOURCE_DIR, out, path);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    *log = base_read_file(path, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t *d = NULL;
    size_t n = 0;
    return base_read_file(path, &d, &n, 256u << 20, NULL) == BASE_OK ? (char *)d : NULL;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void demo(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/script/out_demo";
    char *log = NULL;
    /* The learnings file lives outside OUT (run() clears OUT first). */
    const char *learn = FOVEA_BINARY_DIR "/tests/agent/script/demo_learnings.json";
    remove(learn);
    int st = run(FOVEA_SOURCE_DIR "/assets/tasks/demo.json --no-humanize --learnings " FOVEA_BINARY_DIR
                                  "/tests/agent/script/demo_learnings.json",
                 out, &log);
    int ok = st == 0 && log && strstr(log, "passed: 21/21 steps");
    if (!ok)
        fprintf(stderr, "%s\n", log ? log : "(no output)");
    base_free(log);
    CHECK_MSG(ok, "fovea run demo.json exited %d", st);
    char *trace = slurp(out, "trace.jsonl");
    char *report = slurp(out, "report.html");
    int steps = count(trace, "\"type\":\"step\"");
    int secret = trace && strstr(trace, "correct-horse-42") != NULL;
    int rsecret = report && strstr(report, "correct-horse-42") != NULL;
    int images = count(report, "data:image/png;base64,");
    base_free(trace);
    base_free(report);
    CHECK_EQ(steps, 21);
    CHECK_MSG(!secret && !rsecret, "the password reached the trace or the report");
    CHECK_EQ(images, 21);
    /* --learnings reached the cascade: the demo's clicks were recorded for
     * the site's domain (tier 1 won). */
    uint8_t *lj = NULL;
    size_t ln = 0;
    CHECK_OK(base_read_file(learn, &lj, &ln, 1u << 20, NULL));
    cJSON *root = cJSON_Parse((const char *)lj);
    base_free(lj);
    const cJSON *dom = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "domains"), "127.0.0.1");
    const cJSON *wins = cJSON_GetObjectItemCaseSensitive(dom, "wins");
    CHECK_MSG(cJSON_IsArray(wins) && cJSON_GetArrayItem(wins, 0)->valuedouble >= 5,
              "no tier-1 wins recorded for 127.0.0.1");
    cJSON_Delete(root);
}

static void covered(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/script/out_covered";
    char *log = NULL;
    int st = run(FOVEA_SOURCE_DIR "/tests/agent/script/tasks/covered.json --no-humanize", out, &log);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", log ? log : "");
    base_free(log);
    CHECK_MSG(st == 1, "exit %d, output:\n%s", st, copy);
    CHECK_MSG(strstr(copy, "step 2/3 click 'Search flights'") && strstr(copy, "FAILED"),
              "no failing progress line:\n%s", copy);
    /* The dom provider leaves covered elements out, so the button is not
     * among the boxes; the runner says so and names what it does see. */
    CHECK_MSG(strstr(copy, "FAILED at step 2: no box for 'Search flights'"), "no reason:\n%s",
              copy);
    CHECK_MSG(strstr(copy, "try: [V") && strstr(copy, "'Accept all cookies'"),
              "no alternatives naming the consent buttons:\n%s", copy);
    char *trace = slurp(out, "trace.jsonl");
    char *report = slurp(out, "report.html");
    int steps = count(trace, "\"type\":\"step\"");
    int end = trace && strstr(trace, "\"type\":\"end\",\"ok\":false,\"failed_step\":2");
    int shown = report && strstr(report, "failed at step") != NULL;
    base_free(trace);
    base_free(report);
    CHECK_EQ(steps, 2);
    CHECK(end);
    CHECK(shown);
    CHECK(access(FOVEA_BINARY_DIR "/tests/agent/script/out_covered/steps/002.png", R_OK) == 0);
}

static void bad_task(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/script/out_bad_task";
    char *log = NULL;
    int st = run(FOVEA_SOURCE_DIR "/tests/fuzz/corpus/task/bad_regex", out, &log);
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", log ? log : "");
    base_free(log);
    CHECK_EQ(st, 2);
    CHECK_MSG(strstr(copy, "bad_regex: steps[0].pattern: bad regular expression"), "%s", copy);
}

/* A pattern that backtracks catastrophically on the page text fails its
 * step at once, naming the regex limit, well inside the step's 8 s timeout
 * (glibc's matcher had no limit; a bounded one that only returned "no
 * match" would wait out the timeout). */
static void backtracking(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/script/out_backtracking";
    char *log = NULL;
    int st = run(FOVEA_SOURCE_DIR "/tests/agent/script/tasks/backtracking.json --no-humanize", out, &log);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", log ? log : "");
    base_free(log);
    CHECK_MSG(st == 1, "exit %d, output:\n%s", st, copy);
    CHECK_MSG(strstr(copy, "backtracking steps"), "no limit named:\n%s", copy);
    /* retries 2, yet one attempt: a pattern that hit its limit is not retried. */
    CHECK_MSG(strstr(copy, "retrying") == NULL, "retried:\n%s", copy);
    char *trace = slurp(out, "trace.jsonl");
    cJSON *step = NULL;
    for (char *save = NULL, *line = trace ? strtok_r(trace, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(line);
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
        if (type && strcmp(type, "step") == 0 && !step)
            step = j;
        else
            cJSON_Delete(j);
    }
    base_free(trace);
    CHECK(step != NULL);
    const char *reason = cJSON_GetStringValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(step, "cascade"), "reason"));
    double ms = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(step, "ms"), "total"));
    char r[64];
    snprintf(r, sizeof r, "%s", reason ? reason : "(none)");
    cJSON_Delete(step);
    CHECK_STR(r, "pattern_limit");
    CHECK_MSG(ms < 4000, "the step took %.0f ms", ms);
}

/* An unreadable learnings file is a usage error (exit 2) before any
 * browser starts: here a directory stands for it (root reads mode-000
 * files). No browser is needed, and none must start: it would take far
 * longer than the second allowed. */
static void bad_learnings(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/script/out_bad_learnings";
    const char *dir = FOVEA_BINARY_DIR "/tests/agent/script/learnings_is_a_dir";
    mkdir(dir, 0700);
    char *log = NULL;
    double t0 = base_monotime_ms();
    int st = run(FOVEA_SOURCE_DIR "/assets/tasks/demo.json --learnings " FOVEA_BINARY_DIR
                                  "/tests/agent/script/learnings_is_a_dir",
                 out, &log);
    double ms = base_monotime_ms() - t0;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", log ? log : "");
    base_free(log);
    rmdir(dir);
    CHECK_MSG(st == 2, "exit %d: %s", st, copy);
    CHECK_MSG(strstr(copy, "fovea run: --learnings: learnings: cannot read"), "%s", copy);
    CHECK_MSG(ms < 1500, "took %.0f ms", ms);
}

static const check_case cases[] = {
    {"bad_task", bad_task},
    {"bad_learnings", bad_learnings},
    {"backtracking", backtracking},
    {"covered", covered},
    {"demo", demo},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    if (access(FOVEA, X_OK) != 0) {
        fprintf(stderr, "test_run: %s is not built\n", FOVEA);
        return 1;
    }
    return check_main(argc, argv, cases);
}
