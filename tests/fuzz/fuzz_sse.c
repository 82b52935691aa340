/* tests/fuzz/fuzz_sse.c: what a model server streams or answers in error
 * (issue 22): model/sse.c's assembler, the error-body reader of
 * model/chat_json.h (vLLM's {"object":"error","message"}, llama.cpp's
 * {"error":{"code","message","type"}}, Ollama's {"error":"..."}), and the
 * tools-in-text reader of model/normalize.h, the context-window answers
 * of model/context.h. Input capped at 256 KiB.
 * Invariants: an assembled stream is a body the reply parser reads (or
 * refuses cleanly), an error message is NUL-terminated within its buffer,
 * every call read from text has a 9-character id, a name and arguments
 * that parse as a JSON object.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/chat_json.h"
#include "model/context.h"
#include "model/llm.h"
#include "model/normalize.h"
#include "model/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    const char *s = (const char *)d;
    char err[BASE_ERRBUF_SIZE] = "";
    char *out = NULL;
    if (model_sse_assemble(s, n, &out, err) == BASE_OK) {
        if (!out)
            abort();
        model_llm_reply r;
        if (model_llm_parse_reply(out, strlen(out), &r, err) == BASE_OK)
            model_llm_reply_fini(&r);
        base_free(out);
    }
    /* What a server says about its context window: a window or 0. */
    for (int src = MODEL_CONTEXT_VLLM; src <= MODEL_CONTEXT_OLLAMA; src++)
        if (model_context_parse((model_context_src)src, s, n, "m") < 0)
            abort();
    char msg[64];
    memset(msg, 'x', sizeof msg);
    model_chat_error_message(s, n, msg, sizeof msg);
    if (!memchr(msg, '\0', sizeof msg))
        abort();
    /* The text reader wants a C string. */
    char *text = base_malloc(n + 1);
    if (!text)
        return 0;
    memcpy(text, d, n);
    text[n] = '\0';
    cJSON *calls = NULL;
    char *rest = NULL;
    if (model_wire_calls_from_text(text, &calls, &rest, err) == BASE_OK) {
        const cJSON *c;
        cJSON_ArrayForEach(c, calls)
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
            const cJSON *fn = cJSON_GetObjectItemCaseSensitive(c, "function");
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(fn, "name");
            const cJSON *ar = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
            if (!cJSON_IsString(id) || strlen(id->valuestring) != 9 || !cJSON_IsString(nm) ||
                !cJSON_IsString(ar))
                abort();
            cJSON *a = cJSON_Parse(ar->valuestring);
            if (!cJSON_IsObject(a) && a)
                abort();
            cJSON_Delete(a);
        }
        cJSON_Delete(calls);
        base_free(rest);
    }
    base_free(text);
    return 0;
}
