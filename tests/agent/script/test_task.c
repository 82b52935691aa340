/* tests/agent/script/test_task.c: the task-file parser.
 *
 * A good task is parsed into every field; each kind of mistake in a task
 * file gets a message naming the step and the field; allocation failures at
 * every point give a clean BASE_ENOMEM; the demo task in assets/ parses.
 */
#include <cjson/cJSON.h>
#include "check.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/script/task.h"
#include "base/alloc.h"
#include "base/clock.h"

static base_err parse(const char *json, agent_task **t, char *err)
{
    err[0] = '\0';
    return agent_task_parse(json, strlen(json), "t.json", t, err);
}

static const char good[] =
    "{\"name\":\"demo\",\"url\":\"/index.html\",\"viewport\":{\"width\":1024,\"height\":700,"
    "\"scale\":2},\"steps\":["
    "{\"action\":\"click\",\"target\":\"Accept cookies\"},"
    "{\"action\":\"click\",\"target\":{\"label\":\"Stops\",\"index\":\"[V4]\"},\"verb\":\"open\","
    "\"critical\":true,\"timeout_ms\":9000,\"retries\":3},"
    "{\"action\":\"type\",\"target\":\"[V7] Password\",\"text\":\"hunter2\",\"password\":true},"
    "{\"action\":\"select\",\"target\":\"Cabin\",\"value\":\"Business\"},"
    "{\"action\":\"drag\",\"target\":\"Max price\",\"value\":450},"
    "{\"action\":\"drag\",\"target\":\"[V2]\",\"to\":{\"x\":10.5,\"y\":20}},"
    "{\"action\":\"scroll\",\"dy\":-300},"
    "{\"action\":\"wait_for\",\"text\":\"results\"},"
    "{\"action\":\"assert_text\",\"pattern\":\"[0-9]+ results\",\"note\":\"count\"},"
    "{\"action\":\"extract\",\"target\":{\"index\":12}}]}";

static void parses_every_field(void)
{
    char err[BASE_ERRBUF_SIZE];
    agent_task *t = NULL;
    CHECK_MSG(parse(good, &t, err) == BASE_OK, "%s", err);
    CHECK_STR(t->name, "demo");
    CHECK_STR(t->url, "/index.html");
    CHECK_EQ(t->width, 1024);
    CHECK_EQ(t->height, 700);
    CHECK_NEAR(t->scale, 2.0, 0);
    CHECK_EQ(t->n_steps, 10);
    agent_step *s = t->steps;
    CHECK_EQ(s[0].action, AGENT_CLICK);
    CHECK_STR(s[0].target.label, "Accept cookies");
    CHECK_EQ(s[0].target.index, 0);
    CHECK_EQ(s[0].timeout_ms, 5000);
    CHECK_EQ(s[0].retries, 1);
    CHECK_EQ(s[1].target.index, 4);
    CHECK_STR(s[1].target.label, "Stops");
    CHECK_STR(s[1].verb, "open");
    CHECK_EQ(s[1].critical, 1);
    CHECK_EQ(s[1].timeout_ms, 9000);
    CHECK_EQ(s[1].retries, 3);
    CHECK_EQ(s[2].action, AGENT_TYPE);
    CHECK_EQ(s[2].target.index, 7);
    CHECK_STR(s[2].target.label, "Password");
    CHECK_EQ(s[2].password, 1);
    CHECK_STR(s[3].value, "Business");
    CHECK_EQ(s[4].have_num_value, 1);
    CHECK_NEAR(s[4].num_value, 450, 0);
    CHECK_EQ(s[5].have_to_pt, 1);
    CHECK_NEAR(s[5].to_x, 10.5, 0);
    CHECK_EQ(s[5].target.index, 2);
    CHECK(s[5].target.label == NULL);
    /* scroll is a registry tool with its own arguments (agent/session/tools_act.c). */
    CHECK_EQ(s[6].action, AGENT_TOOL);
    CHECK_STR(s[6].tool, "scroll");
    CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(s[6].args, "dy")->valuedouble, -300, 0);
    /* Every step is a call of a named tool with its arguments. */
    CHECK_STR(s[0].tool, "click_at");
    CHECK(cJSON_GetObjectItemCaseSensitive(s[0].args, "action") == NULL);
    CHECK_STR(s[7].text, "results");
    CHECK_STR(s[8].pattern, "[0-9]+ results");
    CHECK(s[8].re != NULL); /* compiled once, at load */
    CHECK(s[7].re == NULL);
    CHECK_STR(s[8].note, "count");
    CHECK_EQ(s[9].target.index, 12);

    /* Descriptions used in progress lines and captions never show a password. */
    char d[160];
    agent_step_describe(&s[2], d, sizeof d);
    CHECK_MSG(strstr(d, "hunter2") == NULL, "password shown: %s", d);
    CHECK_STR(d, "type [V7] 'Password' <- ********");
    agent_step_describe(&s[1], d, sizeof d);
    CHECK_STR(d, "click (open) [V4] 'Stops'");
    agent_step_describe(&s[4], d, sizeof d);
    CHECK_STR(d, "drag 'Max price' -> value 450");
    agent_task_free(t);
}

/* Each broken task and the message it must produce (a substring). */
static const struct {
    const char *json, *msg;
} bad[] = {
    {"", "t.json: invalid JSON near line 1"},
    {"{\n\"url\": \"/\",\n\"steps\": [,]}",
     "t.json: invalid JSON near line 3, column 11: expected a value (a string, number, object, "
     "array, true, false or null), got ','"},
    /* Load-time validation (issue 11): each is an error naming line,
     * column and what was expected, before any browser starts. */
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"target\":\"b\"}]}",
     "t.json: steps[0].target: duplicated key (each key may appear once)"},
    {"{\"url\":\"/\",\"url\":\"/x\",\"steps\":[{\"action\":\"click\",\"target\":\"a\"}]}",
     "t.json: url: duplicated key"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":{\"index\":1,\"index\":2}}]}",
     "t.json: steps[0].target.index: duplicated key"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\"}]} x",
     "t.json: invalid JSON near line 1, column 55: expected the end of the input after the JSON "
     "value, got 'x'"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\"}]}\n{}",
     "t.json: invalid JSON near line 2, column 1: expected the end of the input"},
    {"{\"url\":\"/\",\n  \"steps\":[{\"action\":\"type\",\"target\":\"a\",\"text\":\"caf\xe9\"}]}",
     "t.json: invalid JSON near line 2, column 53: invalid UTF-8 (byte 0xE9); save the file as "
     "UTF-8"},
    {"{\"url\":\"/\xc0\xaf\"}", "t.json: invalid JSON near line 1, column 10: invalid UTF-8 (byte 0xC0)"},
    {"{\"url\":\"/\xed\xa0\x80\"}", "invalid UTF-8 (byte 0xED)"},
    {"{\"url\":\"/\xf4\x90\x80\x80\"}", "invalid UTF-8 (byte 0xF4)"},
    {"{\"url\":\"/\\u0000x\"}", "column 11: \\u0000 (a NUL character) is not allowed"},
    {"{\"url\" \"/\"}", "column 8: expected ':' after the key, got '\"'"},
    {"{\"url\":\"/\" \"steps\":[]}", "column 12: expected ',' or '}', got '\"'"},
    {"{\"url\":\"/\",}", "column 12: expected a key in double quotes, got '}'"},
    {"{\"steps\":[1,]}", "column 13: expected a value"},
    {"{\"steps\":[01]}", "a number with a leading zero"},
    {"{'url':'/'}", "column 2: expected a key in double quotes, got"},
    {"{\"url\":\"/\ttab\"}", "a control character (byte 0x09) inside a string"},
    {"{\"url\":\"/\\q\"}", "expected an escape"},
    {"{\"url\":tru}", "column 8: expected a value"},
    {"{\"url\":\"/\"", "column 11: expected ',' or '}', got the end of the input"},
    {"{\"url\":\"/", "expected '\"' to close the string, got the end of the input"},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     "nesting deeper than 32 levels"},
    {"[]", "t.json: expected a JSON object at the top"},
    {"{\"steps\":[{\"action\":\"click\",\"target\":\"x\"}]}", "t.json: url: required"},
    {"{\"url\":7,\"steps\":[]}", "t.json: url: expected a string"},
    {"{\"url\":\"/\"}", "t.json: steps: required"},
    {"{\"url\":\"/\",\"steps\":[]}", "t.json: steps: expected a non-empty array"},
    {"{\"url\":\"/\",\"steps\":{}}", "t.json: steps: expected a non-empty array"},
    {"{\"url\":\"/\",\"stpes\":[]}", "t.json: stpes: unknown field"},
    {"{\"url\":\"/\",\"viewport\":[],\"steps\":[1]}", "t.json: viewport: expected {width"},
    {"{\"url\":\"/\",\"viewport\":{\"width\":5},\"steps\":[1]}",
     "t.json: viewport.width: expected an integer in 16..8192"},
    {"{\"url\":\"/\",\"viewport\":{\"height\":800.5},\"steps\":[1]}",
     "t.json: viewport.height: expected an integer"},
    {"{\"url\":\"/\",\"viewport\":{\"scale\":0},\"steps\":[1]}",
     "t.json: viewport.scale: expected a number in 0.25..8"},
    {"{\"url\":\"/\",\"viewport\":{\"dpr\":1},\"steps\":[1]}", "t.json: viewport.dpr: unknown field"},
    {"{\"url\":\"/\",\"steps\":[1]}", "t.json: steps[0]: expected an object"},
    {"{\"url\":\"/\",\"steps\":[{}]}", "t.json: steps[0].action: missing"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":3}]}", "t.json: steps[0].action: expected a string"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"tap\"}]}",
     "t.json: steps[0].action: unknown action 'tap'"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\"},{\"action\":\"click\","
     "\"target\":5}]}",
     "t.json: steps[1].target: expected a string or {label, index}"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"\"}]}",
     "t.json: steps[0].target: expected a string or {label, index} (got an empty string)"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":{}}]}",
     "t.json: steps[0].target: expected a string or {label, index} (neither is set)"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":{\"label\":1}}]}",
     "t.json: steps[0].target.label: expected a string"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":{\"index\":0}}]}",
     "t.json: steps[0].target.index: expected an integer in 1..99999"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":{\"index\":\"V\"}}]}",
     "t.json: steps[0].target.index: expected a vision index"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":{\"idx\":2}}]}",
     "t.json: steps[0].target.idx: unknown field"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\"}]}",
     "t.json: steps[0].target: required for click"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"tagret\":\"a\"}]}",
     "t.json: steps[0].tagret: unknown field"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"type\",\"target\":\"a\"}]}",
     "t.json: steps[0].text: required for type"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"type\",\"target\":\"a\",\"text\":1}]}",
     "t.json: steps[0].text: expected a string"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"type\",\"target\":\"a\",\"text\":\"b\","
     "\"password\":\"yes\"}]}",
     "t.json: steps[0].password: expected true or false"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"type\",\"target\":\"a\",\"text\":\"b\","
     "\"secret\":1}]}",
     "t.json: steps[0].secret: expected true or false"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"select\",\"target\":\"a\"}]}",
     "t.json: steps[0].value: required for select"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"select\",\"target\":\"a\",\"value\":[]}]}",
     "t.json: steps[0].value: expected a string or a number"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"scroll\"}]}",
     "t.json: steps[0]: scroll: needs one of target, dy, direction, to, percent, to_text"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"scroll\",\"dy\":\"down\"}]}",
     "t.json: steps[0]: scroll: 'dy' must be an integer"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"drag\",\"target\":\"a\"}]}",
     "t.json: steps[0].to: drag needs to"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"drag\",\"target\":\"a\",\"to\":{\"x\":1}}]}",
     "t.json: steps[0].to: expected {x, y}"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"drag\",\"target\":\"a\",\"to\":[]}]}",
     "t.json: steps[0].to: expected a string or {label, index}"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"wait_for\"}]}",
     "t.json: steps[0].target: wait_for needs a target, a text or a pattern"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"assert_text\"}]}",
     "t.json: steps[0].text: assert_text needs text or pattern"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"extract\",\"pattern\":\"(a\"}]}",
     "t.json: steps[0].pattern: bad regular expression"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"verb\":false}]}",
     "t.json: steps[0].verb: expected a string"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"critical\":1}]}",
     "t.json: steps[0].critical: expected true or false"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"expect_effect\":\"yes\"}]}",
     "t.json: steps[0].expect_effect: expected true or false"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"timeout_ms\":0}]}",
     "t.json: steps[0].timeout_ms: expected an integer in 1..600000"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"retries\":11}]}",
     "t.json: steps[0].retries: expected an integer in 0..10"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"note\":{}}]}",
     "t.json: steps[0].note: expected a string"},
    /* Registry tools: their schema names the argument; variables must be saved first. */
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"done\",\"txt\":\"x\"}]}",
     "t.json: steps[0]: done: argument 'txt' is not known (text, success"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"${who}\"}]}",
     "t.json: steps[0].target: variable ${who} is not saved by an earlier step"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"${v}\"},"
     "{\"action\":\"extract\",\"pattern\":\"x\",\"save_as\":\"v\"}]}",
     "t.json: steps[0].target: variable ${v} is not saved by an earlier step"},
    {"{\"url\":\"/\",\"steps\":[{\"action\":\"extract\",\"save_as\":\"1x\"}]}",
     "t.json: steps[0]: extract: 'save_as' must be a name"},
};

/* A value saved by one step is usable by a later one; tool steps keep their arguments. */
static void variables_and_tools(void)
{
    static const char j[] =
        "{\"url\":\"/\",\"steps\":[{\"action\":\"extract\",\"pattern\":\"TF-\\\\d+\","
        "\"save_as\":\"ref\"},{\"action\":\"type\",\"target\":\"Booking\",\"text\":\"${ref}\"},"
        "{\"action\":\"done\",\"text\":\"booked ${ref}\",\"timeout_ms\":100,\"retries\":0}]}";
    char err[BASE_ERRBUF_SIZE];
    agent_task *t = NULL;
    CHECK_MSG(parse(j, &t, err) == BASE_OK, "%s", err);
    CHECK_STR(t->steps[0].save_as, "ref");
    CHECK_EQ(t->steps[2].action, AGENT_TOOL);
    CHECK_STR(t->steps[2].tool, "done");
    CHECK_EQ(t->steps[2].timeout_ms, 100);
    CHECK_EQ(t->steps[2].retries, 0);
    char d[200];
    agent_step_describe(&t->steps[2], d, sizeof d);
    CHECK_STR(d, "done text='booked ${ref}'");
    agent_task_free(t);
}

/* expect_effect: true = required (1), false = none expected (-1), absent = 0. */
static void expect_effect_field(void)
{
    static const char j[] =
        "{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"a\",\"expect_effect\":true},"
        "{\"action\":\"click\",\"target\":\"b\",\"expect_effect\":false},"
        "{\"action\":\"click\",\"target\":\"c\"}]}";
    char err[BASE_ERRBUF_SIZE];
    agent_task *t = NULL;
    CHECK_MSG(parse(j, &t, err) == BASE_OK, "%s", err);
    CHECK_EQ(t->steps[0].expect_effect, 1);
    CHECK_EQ(t->steps[1].expect_effect, -1);
    CHECK_EQ(t->steps[2].expect_effect, 0);
    agent_task_free(t);
}

static void errors_name_step_and_field(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[BASE_ERRBUF_SIZE];
        agent_task *t = (agent_task *)&err; /* must stay untouched */
        base_err e = parse(bad[i].json, &t, err);
        CHECK_MSG(e == BASE_EPROTO, "case %zu: error %d (%s)", i, (int)e, err);
        CHECK_MSG(t == (agent_task *)&err, "case %zu: out-param touched", i);
        CHECK_MSG(strstr(err, bad[i].msg) != NULL, "case %zu: got \"%s\", want \"%s\"", i, err,
                  bad[i].msg);
    }
}

static void caps_and_limits(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    agent_task *t = NULL;
    /* 1001 steps. */
    size_t cap = 64 + 1001 * 40;
    char *big = base_malloc(cap);
    CHECK(big);
    size_t n = (size_t)snprintf(big, cap, "{\"url\":\"/\",\"steps\":[");
    for (int i = 0; i < 1001; i++)
        n += (size_t)snprintf(big + n, cap - n, "%s{\"action\":\"scroll\",\"dy\":1}",
                              i ? "," : "");
    n += (size_t)snprintf(big + n, cap - n, "]}");
    base_err e = agent_task_parse(big, n, "big.json", &t, err);
    base_free(big);
    CHECK_EQ(e, BASE_ETOOBIG);
    CHECK_MSG(strstr(err, "big.json: steps: 1001 steps, at most 1000"), "%s", err);
    err[0] = '\0';
    CHECK_EQ(agent_task_parse("{}", AGENT_TASK_MAX_BYTES + 1, "x", &t, err), BASE_ETOOBIG);
    err[0] = '\0';
    CHECK_EQ(agent_task_parse(NULL, 0, NULL, &t, err), BASE_EINVAL);
    CHECK_STR(err, "task: no input");
    /* A vision index in a label string that is not one stays a label. */
    CHECK_OK(parse("{\"url\":\"/\",\"steps\":[{\"action\":\"click\",\"target\":\"[4] items\"}]}",
                   &t, err));
    CHECK_STR(t->steps[0].target.label, "[4] items");
    CHECK_EQ(t->steps[0].target.index, 0);
    CHECK_STR(t->name, "t.json");
    agent_task_free(t);
    agent_task_free(NULL);
}

static void enomem_everywhere(void)
{
    char err[BASE_ERRBUF_SIZE];
    agent_task *t = NULL;
    base_alloc_fail_after(0);
    CHECK_OK(parse(good, &t, err));
    agent_task_free(t);
    unsigned long count = base_alloc_fail_after(0);
    CHECK(count > 10);
    for (unsigned long k = 1; k <= count; k++) {
        t = NULL;
        base_alloc_fail_after(k);
        base_err e = parse(good, &t, err);
        base_alloc_fail_after(0);
        CHECK_MSG(e == BASE_ENOMEM, "allocation %lu: error %d (%s)", k, (int)e, err);
        CHECK(t == NULL);
    }
}

static void demo_task_parses(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    agent_task *t = NULL;
    CHECK_MSG(agent_task_load(FOVEA_SOURCE_DIR "/assets/tasks/demo.json", &t, err) == BASE_OK,
              "%s", err);
    CHECK(t->n_steps >= 10);
    int seen[AGENT_ACTION_COUNT] = {0};
    for (int i = 0; i < t->n_steps; i++)
        seen[t->steps[i].action]++;
    /* The demo exercises every action but scroll-by and extract at least once. */
    CHECK(seen[AGENT_CLICK] && seen[AGENT_TYPE] && seen[AGENT_SELECT] && seen[AGENT_DRAG]);
    CHECK(seen[AGENT_ASSERT_TEXT] && seen[AGENT_WAIT_FOR]);
    agent_task_free(t);
    err[0] = '\0';
    CHECK_EQ(agent_task_load("/nonexistent/x.json", &t, err), BASE_ENOTFOUND);
    CHECK_MSG(strstr(err, "cannot read task /nonexistent/x.json"), "%s", err);
}

/* Bytes strlen cannot carry: a raw NUL, and a byte order mark (skipped:
 * RFC 8259 lets a parser ignore it, and Windows editors write one). */
static void nul_and_bom(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    agent_task *t = NULL;
    static const char nul[] = "{\"url\":\"/\",\n\"name\":\"a\0b\",\"steps\":[{\"action\":\"click\","
                              "\"target\":\"a\"}]}";
    CHECK_EQ(agent_task_parse(nul, sizeof nul - 1, "t.json", &t, err), BASE_EPROTO);
    CHECK(t == NULL);
    CHECK_STR(err, "t.json: invalid JSON near line 2, column 10: a NUL byte (JSON text cannot "
                   "contain one)");
    char bom[512];
    snprintf(bom, sizeof bom, "\xef\xbb\xbf%s", "{\"url\":\"/\",\"steps\":[{\"action\":\"click\","
                                                 "\"target\":\"caf\xc3\xa9\"}]}");
    err[0] = '\0';
    CHECK_MSG(agent_task_parse(bom, strlen(bom), "t.json", &t, err) == BASE_OK, "%s", err);
    CHECK_STR(t->steps[0].target.label, "caf\xc3\xa9");
    agent_task_free(t);
    /* A BOM in the middle is not a BOM: it is a character outside JSON's
     * grammar. */
    snprintf(bom, sizeof bom, "{\"url\":\"/\"}\xef\xbb\xbf");
    err[0] = '\0';
    t = NULL;
    CHECK_EQ(agent_task_parse(bom, strlen(bom), "t.json", &t, err), BASE_EPROTO);
    CHECK_MSG(strstr(err, "expected the end of the input after the JSON value, got byte 0xEF"),
              "%s", err);
}

/* Patterns that made glibc's regcomp grow without bound (23 GB, then the
 * OOM killer) are load errors naming the step, in milliseconds. Run in a
 * child under a 1 GB address-space ceiling (not in sanitizer builds, whose
 * shadow memory needs far more), so a runaway compile fails the test
 * instead of the machine. */
static void hostile_patterns_body(void)
{
    static const char *const pats[] = {
        "a+++++++++++++++++++++++++",
        "((ab){1000}){1000}",
        ("(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)))))))))))))))))"
         ")))))))))))))))))))))))))))))))))))))))))))))))))))"),
        "(x+x+)+y{1000}(a|b|c){500}[[:alpha:]]{999}(?:(?:(?:z*)*)*)*(?<=a+)",
        "[z-a]",
    };
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"url\":\"/\",\"steps\":[{\"action\":\"extract\",\"pattern\":\"%s\"}]}",
                 pats[i]);
        char err[BASE_ERRBUF_SIZE];
        agent_task *t = NULL;
        double t0 = base_monotime_ms();
        base_err e = parse(json, &t, err);
        double ms = base_monotime_ms() - t0;
        printf("  %.30s... -> %s (%.2f ms)\n", pats[i], err, ms);
        if (e == BASE_OK)
            agent_task_free(t);
        CHECK_EQ(e, BASE_EPROTO);
        CHECK_MSG(strstr(err, "t.json: steps[0].pattern: bad regular expression (PCRE2 syntax): "
                              "regex: ") != NULL,
                  "%s", err);
        CHECK(ms < 500);
    }
}

static void hostile_patterns(void)
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
#ifndef FOVEA_SANITIZED
        struct rlimit rl = {1u << 30, 1u << 30};
        setrlimit(RLIMIT_AS, &rl);
#endif
        alarm(20);
        hostile_patterns_body();
        fflush(stdout);
        _exit(check__failed ? 1 : 0);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status 0x%x)", st);
}

/* "secret": true marks a type step's text secret like "password": true
 * (either flag suffices), and its description masks it. */
static void secret_flag(void)
{
    const char *json =
        "{\"url\":\"/\",\"steps\":["
        "{\"action\":\"type\",\"target\":\"Card\",\"text\":\"4111\",\"secret\":true},"
        "{\"action\":\"type\",\"target\":\"Code\",\"text\":\"9876\",\"secret\":true,"
        "\"password\":false},"
        "{\"action\":\"type\",\"target\":\"Name\",\"text\":\"Ann\",\"secret\":false}]}";
    agent_task *t = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(agent_task_parse(json, strlen(json), "t.json", &t, err) == BASE_OK, "%s", err);
    int a = t->steps[0].password, b = t->steps[1].password, c = t->steps[2].password;
    char d[200];
    agent_step_describe(&t->steps[0], d, sizeof d);
    agent_task_free(t);
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 1);
    CHECK_EQ(c, 0);
    CHECK_MSG(strstr(d, "4111") == NULL, "secret shown: %s", d);
}

static const check_case cases[] = {
    {"secret_flag", secret_flag},
    {"expect_effect_field", expect_effect_field},
    {"parses_every_field", parses_every_field},
    {"errors_name_step_and_field", errors_name_step_and_field},
    {"caps_and_limits", caps_and_limits},
    {"enomem_everywhere", enomem_everywhere},
    {"variables_and_tools", variables_and_tools},
    {"demo_task_parses", demo_task_parses},
    {"hostile_patterns", hostile_patterns},
    {"nul_and_bom", nul_and_bom},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
