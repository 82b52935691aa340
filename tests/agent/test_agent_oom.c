/* tests/agent/test_agent_oom.c: allocation failures in the agent's JSON paths
 * (cJSON allocates through base_malloc, base/json_alloc.h). Every allocation
 * of the path is failed in turn; no crash, no leak (ASan at exit). */
#include <string.h>

#include "agent/secrets.h"
#include "base/alloc.h"
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

static const check_case cases[] = {{"secrets_json_all_or_none", secrets_json_all_or_none},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
