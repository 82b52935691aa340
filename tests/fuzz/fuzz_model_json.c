/* tests/fuzz/fuzz_model_json.c: vision model output (perception/model_json.h).
 * The input is tried both as a chat-completions response body (envelope,
 * then the content it carries) and as the model's text directly, with a
 * box cap taken from the first byte. Input capped at 256 KiB. Every box that
 * comes back must satisfy the repaired-box invariants.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/chat_json.h"
#include "perception/model_json.h"

static void check_reply(const perc_model_reply *r, int cap)
{
    if (r->n < 0 || r->n > cap)
        abort();
    for (int i = 0; i < r->n; i++) {
        const perc_model_box *b = &r->boxes[i];
        if (!(b->ymin >= 0 && b->xmin >= 0 && b->ymax <= 1000 && b->xmax <= 1000 &&
              b->ymin < b->ymax && b->xmin < b->xmax && b->confidence >= 0 && b->confidence <= 1))
            abort();
        if (memchr(b->label, '\0', sizeof b->label) == NULL)
            abort();
    }
}

static void parse_text(const char *t, size_t n, int cap)
{
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    if (perc_model_reply_parse(t, n, cap, &r, err) == BASE_OK) {
        check_reply(&r, cap);
        perc_model_reply_fini(&r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    int cap = n > 0 ? 1 + d[0] % 64 : 40;
    char err[BASE_ERRBUF_SIZE] = "";
    char *content = NULL;
    int cut = 0;
    if (model_chat_reply_parse((const char *)d, n, &content, &cut, err) == BASE_OK) {
        parse_text(content, strlen(content), cap);
        base_free(content);
    }
    char msg[64];
    model_chat_error_message((const char *)d, n, msg, sizeof msg);
    parse_text((const char *)d, n, cap);
    return 0;
}
