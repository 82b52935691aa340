/* base/err.c: error strings and the first-error-wins buffer.
 *
 * The buffer discipline follows curl's: the innermost failure knows the most,
 * so it writes first and the outer layers, which only know that "something
 * below failed", must not overwrite it.
 */
#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *base_strerror(base_err e)
{
    switch (e) {
    case BASE_OK:
        return "success";
    case BASE_ENOMEM:
        return "out of memory";
    case BASE_EINVAL:
        return "invalid argument";
    case BASE_EIO:
        return "input/output error";
    case BASE_ETIMEDOUT:
        return "timed out";
    case BASE_EPROTO:
        return "protocol error";
    case BASE_EDECODE:
        return "decode error";
    case BASE_ECANCELED:
        return "cancelled";
    case BASE_ECLOSED:
        return "connection closed";
    case BASE_ENOTFOUND:
        return "not found";
    case BASE_ETOOBIG:
        return "input too large";
    case BASE_EREMOTE:
        return "remote error";
    case BASE_EBUSY:
        return "busy";
    case BASE_EUNSUPPORTED:
        return "unsupported";
    }
    return "unknown error";
}

base_err base_verrf(char *errbuf, base_err e, const char *fmt, va_list ap)
{
    if (!errbuf || errbuf[0] != '\0')
        return e;
    vsnprintf(errbuf, BASE_ERRBUF_SIZE, fmt, ap);
    /* Messages are single lines by contract; fold any newline a peer sent. */
    for (char *p = errbuf; *p; p++) {
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    }
    return e;
}

base_err base_errf(char *errbuf, base_err e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_verrf(errbuf, e, fmt, ap);
    va_end(ap);
    return e;
}

void base_errclear(char *errbuf)
{
    if (errbuf)
        errbuf[0] = '\0';
}

void base__assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "fovea: assertion failed: %s (%s:%d)\n", expr, file, line);
    abort();
}
