/* tests/fuzz/fuzz_task.c: the task-file parser (agent_task_parse) on
 * arbitrary bytes; whatever parses is also described step by step, so the
 * masking and formatting code sees odd strings too. Input capped at 256 KiB.
 *
 * It also checks a property between the strict syntax check the parser
 * runs first (base_json_check) and cJSON: whatever the check accepts, cJSON
 * must parse, since the parser reports a cJSON failure after a passed check
 * as out of memory. A disagreement aborts, so the fuzzer keeps the input.
 */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "agent/script/task.h"
#include "base/json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    if (base_json_check((const char *)d, n, 32, NULL) == BASE_OK) {
        cJSON *j = cJSON_ParseWithLength((const char *)d, n);
        if (!j)
            abort(); /* the check accepted what cJSON refuses */
        cJSON_Delete(j);
    }
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
