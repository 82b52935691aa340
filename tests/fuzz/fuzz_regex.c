/* tests/fuzz/fuzz_regex.c: the bounded regex wrapper (base/regex.h) on
 * arbitrary patterns and subjects. The first byte picks the flags, the
 * bytes up to the first newline are the pattern and the rest is the
 * subject, so one input exercises compile and match. A compile that
 * succeeds must match within the limits (ETOOBIG is a fine answer); any
 * crash, hang or unbounded allocation is a bug. Input capped at 64 KiB.
 */
#include "fuzz.h"

#include <string.h>

#include "base/regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 1 || n > (64u << 10))
        return 0;
    unsigned flags = d[0] & (BASE_REGEX_MULTILINE | BASE_REGEX_CASELESS);
    const char *p = (const char *)d + 1;
    size_t rest = n - 1;
    const char *nl = memchr(p, '\n', rest);
    size_t plen = nl ? (size_t)(nl - p) : rest;
    const char *subject = nl ? nl + 1 : "";
    size_t slen = nl ? rest - plen - 1 : 0;
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_regex_compile(p, plen, flags, &re, err) != BASE_OK)
        return 0;
    int m = 0;
    base_regex_match(re, subject, slen, &m, err);
    base_regex_destroy(re);
    return 0;
}
