/* tests/fuzz/fuzz_task.c: the task-file parser (agent_task_parse) on
 * arbitrary bytes; whatever parses is also described step by step, so the
 * masking and formatting code sees odd strings too. Input capped at 256 KiB.
 */
#include "fuzz.h"

#include "agent/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    agent_task *t = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_task_parse((const char *)d, n, "fuzz.json", &t, err) != BASE_OK)
        return 0;
    char line[200];
    for (int i = 0; i < t->n_steps; i++)
        agent_step_describe(&t->steps[i], line, sizeof line);
    agent_task_free(t);
    return 0;
}
