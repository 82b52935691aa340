/* tests/agent/plan/test_agent_oom.c: allocation failures in the agent's JSON paths
 * (cJSON allocates through base_malloc, base/json_alloc.h). Every allocation
 * of the path is failed in turn; no crash, no leak (ASan at exit). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/session/secrets.h"
#include "agent/session/trace.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "check.h"

/* The secrets handed to the masking script are all there or none is: a
 * list that lost one would leave that secret unmasked on a screenshot,
 * while NULL makes the caller refuse the screenshot. */
static void secrets_json_all_or_none(void)
{
    agent_secrets *s = NULL;
    char err[256] = "";
    CHECK_OK(agent_secrets_create(&s, err));
    const char *vals[] = {"hunter2-secret", "0123 4567 8901", "p@ss \"quoted\""};
    for (int i = 0; i < 3; i++)
        CHECK_OK(agent_secrets_add(s, vals[i]));
    base_alloc_fail_after(0);
    char *full = agent_secrets_json(s);
    unsigned long total = base_alloc_fail_after(0);
    CHECK(full != NULL);
    size_t full_len = strlen(full);
    base_free(full);
    CHECK(total >= 4);
    int saw_null = 0;
    for (unsigned long k = 1; k <= total; k++) {
        base_alloc_fail_after(k);
        char *j = agent_secrets_json(s);
        base_alloc_fail_after(0);
        if (!j) {
            saw_null = 1;
            continue;
        }
        size_t n = strlen(j);
        int all = strstr(j, "hunter2-secret") && strstr(j, "0123 4567 8901") &&
                  strstr(j, "p@ss \\\"quoted\\\"");
        memset(j, 0, n);
        base_free(j);
        CHECK_MSG(all && n == full_len, "allocation %lu: a partial list (%zu of %zu bytes)", k,
                  n, full_len);
    }
    CHECK(saw_null);
    agent_secrets_destroy(s);
}

/* Every line of trace.jsonl is a whole record or absent: a step line
 * built while an allocation failed is dropped as BASE_ENOMEM, never
 * written without some of its members. */
static void trace_lines_whole(void)
{
    char dir[] = "/tmp/fovea_trace_oom_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    agent_trace_info info = {.task_name = "oom", .task_file = "t.json", .url = "/",
                             .vision = "dom", .browser = "none", .width = 800, .height = 600,
                             .scale = 1};
    agent_trace *t = NULL;
    char err[256] = "";
    CHECK_OK(agent_trace_open(dir, &info, &t, err));
    agent_step_record r;
    memset(&r, 0, sizeof r);
    r.index = 1;
    r.total = 1;
    snprintf(r.action, sizeof r.action, "click");
    snprintf(r.desc, sizeof r.desc, "click 'Save'");
    snprintf(r.target_label, sizeof r.target_label, "Save");
    base_alloc_fail_after(0);
    CHECK_OK(agent_trace_step(t, &r, err));
    unsigned long total = base_alloc_fail_after(0);
    CHECK(total > 20);
    int dropped = 0, written = 1;
    for (unsigned long k = 1; k <= total; k++) {
        base_alloc_fail_after(k);
        base_err e = agent_trace_step(t, &r, err);
        base_alloc_fail_after(0);
        CHECK_MSG(e == BASE_OK || e == BASE_ENOMEM, "allocation %lu: %s", k, base_strerror(e));
        dropped += e == BASE_ENOMEM;
        written += e == BASE_OK;
    }
    agent_trace_close(t, 1, 0, 1.0, "done");
    CHECK(dropped > 0);
    /* Read it back: the task line, `written` step lines of one same shape,
     * the end line. */
    char path[128];
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    uint8_t *text = NULL;
    size_t n = 0;
    CHECK_OK(base_read_file(path, &text, &n, 1 << 24, NULL));
    int steps = 0, members = -1, lines = 0;
    for (char *line = (char *)text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        cJSON *j = cJSON_Parse(line);
        lines++;
        CHECK_MSG(j != NULL, "line %d is not JSON", lines);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
        if (cJSON_IsString(type) && strcmp(type->valuestring, "step") == 0) {
            int m = cJSON_GetArraySize(j);
            if (members < 0)
                members = m;
            steps++;
            CHECK_MSG(m == members, "step line %d has %d members, the first %d", steps, m,
                      members);
        }
        cJSON_Delete(j);
        line = nl ? nl + 1 : NULL;
    }
    base_free(text);
    CHECK_EQ(steps, written);
    CHECK_EQ(lines, written + 2);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ(system(cmd), 0);
}

static const check_case cases[] = {{"secrets_json_all_or_none", secrets_json_all_or_none},
                                   {"trace_lines_whole", trace_lines_whole},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
