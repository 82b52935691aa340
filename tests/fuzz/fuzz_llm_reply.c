/* tests/fuzz/fuzz_llm_reply.c: what a chat-completions endpoint answers the
 * agent (model/llm.h): the envelope with tool calls and usage, and the
 * loose JSON reader for answers in text. Input capped at 256 KiB. Whatever
 * parses must hold the parser's invariants: every tool call has an id and
 * a name; args is an object exactly when error is unset; cached tokens
 * never exceed prompt tokens; the history message re-parses.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "model/llm.h"
#include "base/alloc.h"

static void check_reply(const model_llm_reply *r)
{
    if (r->n_calls < 0 || r->n_bad_calls < 0 || r->n_bad_calls > r->n_calls || !r->message)
        abort();
    for (int i = 0; i < r->n_calls; i++) {
        const model_llm_call *c = &r->calls[i];
        if (!c->id || !c->id[0] || !c->name || !c->arguments)
            abort();
        if ((c->error == BASE_OK) != (c->args != NULL))
            abort();
        if (c->args && !cJSON_IsObject(c->args))
            abort();
    }
    if (r->usage.cached < 0 || r->usage.cached > r->usage.prompt || r->usage.completion < 0)
        abort();
    char *s = cJSON_PrintUnformatted(r->message);
    if (!s)
        return; /* out of memory is allowed */
    cJSON *back = cJSON_Parse(s);
    if (!back)
        abort();
    cJSON_Delete(back);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    char err[BASE_ERRBUF_SIZE] = "";
    model_llm_reply r;
    if (model_llm_parse_reply((const char *)d, n, &r, err) == BASE_OK) {
        check_reply(&r);
        if (r.content) {
            cJSON *v = NULL;
            if (model_llm_json_from_text(r.content, strlen(r.content), &v, err) == BASE_OK) {
                if (!cJSON_IsObject(v))
                    abort();
                cJSON_Delete(v);
            }
        }
        model_llm_reply_fini(&r);
    }
    if (memchr(err, '\0', sizeof err) == NULL)
        abort();
    cJSON *v = NULL;
    if (model_llm_json_from_text((const char *)d, n, &v, err) == BASE_OK) {
        if (!cJSON_IsObject(v))
            abort();
        cJSON_Delete(v);
    }
    return 0;
}
