/* tests/fuzz/fuzz_cdp_msg.c: the CDP message classifier on arbitrary bytes.
 * Every input must either parse into a consistent reply/event or fail with
 * BASE_EPROTO and a message; nothing may crash or leak. */
#include <stdlib.h>
#include <string.h>

#include "cdp/cdp.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (1u << 20))
        return 0;
    cJSON *root = NULL;
    cdp_msg m;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_msg_parse((const char *)d, n, &root, &m, err);
    if (e == BASE_OK) {
        /* A parsed message is self-consistent. */
        if (m.kind == CDP_MSG_EVENT && (!m.method || !root))
            abort();
        if (m.kind == CDP_MSG_REPLY && (m.id < 0 || (!m.result && !m.error_message)))
            abort();
        cJSON_Delete(root);
    } else if (e != BASE_EPROTO || err[0] == '\0') {
        abort();
    }
    return 0;
}
