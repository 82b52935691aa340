/* tests/fuzz/fuzz_ledger.c: the ledger loader (agent_ledger_parse) on
 * arbitrary bytes: every input is either refused with an error naming the
 * file, or parsed into a ledger that renders for every role and converts
 * back to JSON that parses again to an equal document. Input capped at
 * 256 KiB. */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/ledger.h"
#include "base/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    agent_ledger *l = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_ledger_parse((const char *)d, n, "ledger.json", NULL, &l, err) != BASE_OK) {
        if (!strstr(err, "ledger.json"))
            abort(); /* an error that does not name the file */
        return 0;
    }
    for (int r = 0; r < 3; r++)
        base_free(agent_ledger_render(l, (agent_role)r, "https://example.com/"));
    cJSON *j = agent_ledger_to_json(l);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    if (text) {
        agent_ledger *m = NULL;
        if (agent_ledger_parse(text, strlen(text), "again", NULL, &m, NULL) != BASE_OK)
            abort(); /* the ledger's own output must load */
        cJSON *k = agent_ledger_to_json(m);
        if (k && !cJSON_Compare(j, k, 1))
            abort();
        cJSON_Delete(k);
        agent_ledger_destroy(m);
    }
    cJSON_free(text);
    cJSON_Delete(j);
    agent_ledger_destroy(l);
    return 0;
}
