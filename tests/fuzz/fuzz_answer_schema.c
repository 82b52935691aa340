/* tests/fuzz/fuzz_answer_schema.c: an --answer-schema file and a model's
 * answer, both arbitrary bytes. The bytes up to the first newline are the
 * schema, the rest the answer. A schema base_json_schema_valid accepts must
 * then check any value (the answer parsed as JSON, or as a string when it is
 * not JSON) in both object modes, and agent_answer_check must decide it,
 * without a crash, a hang or unbounded recursion: the validity check is what
 * bounds the checker's depth for users' schemas. Input capped at 64 KiB.
 */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "agent/plan/answer.h"
#include "base/json_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (64u << 10))
        return 0;
    const char *p = (const char *)d;
    const char *nl = memchr(p, '\n', n);
    size_t slen = nl ? (size_t)(nl - p) : n;
    cJSON *schema = cJSON_ParseWithLength(p, slen);
    char err[BASE_ERRBUF_SIZE] = "";
    if (!schema || base_json_schema_valid(schema, err) != BASE_OK) {
        cJSON_Delete(schema);
        return 0;
    }
    const char *a = nl ? nl + 1 : "";
    size_t alen = nl ? n - slen - 1 : 0;
    cJSON *answer = cJSON_ParseWithLength(a, alen);
    if (!answer) {
        /* Not JSON: the model's answer as a string (NUL-terminated copy). */
        char buf[4096];
        size_t k = alen < sizeof buf - 1 ? alen : sizeof buf - 1;
        memcpy(buf, a, k);
        buf[k] = '\0';
        answer = cJSON_CreateString(buf);
    }
    for (int open = 0; open < 2; open++) {
        base_json_schema_opts o = {NULL, NULL, BASE_JSON_SCHEMA_TEXT_MAX, open};
        base_json_schema_check("answer", schema, answer, &o, err);
    }
    cJSON *v = NULL;
    if (agent_answer_check(schema, answer, &v, err) == BASE_OK && !v)
        __builtin_trap(); /* an accepted answer always comes back */
    cJSON_Delete(v);
    /* The schema checked against itself: deep values, the schema's depth. */
    base_json_schema_check("schema", schema, schema, NULL, err);
    cJSON_Delete(answer);
    cJSON_Delete(schema);
    return 0;
}
