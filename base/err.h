/* base/err.h: the one error enum of fovea and the first-error buffer.
 *
 * Every fallible fovea function returns a base_err. Values never change
 * meaning once released; new codes are appended. Handles keep a 256-byte
 * error buffer in which the first error wins, so the root cause survives the
 * cascade of failures it usually triggers.
 */
#ifndef FOVEA_BASE_ERR_H
#define FOVEA_BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum base_err {
    BASE_OK = 0,
    BASE_ENOMEM = 1,     /* an allocation failed */
    BASE_EINVAL = 2,     /* a caller passed an invalid argument or input */
    BASE_EIO = 3,        /* an operating-system I/O call failed */
    BASE_ETIMEDOUT = 4,  /* a deadline passed before the operation completed */
    BASE_EPROTO = 5,     /* a peer broke its protocol (malformed frame, bad JSON) */
    BASE_EDECODE = 6,    /* an image or encoded payload could not be decoded */
    BASE_ECANCELED = 7,  /* the operation was cancelled by its owner */
    BASE_ECLOSED = 8,    /* the connection or browser is gone */
    BASE_ENOTFOUND = 9,  /* a looked-up thing does not exist */
    BASE_ETOOBIG = 10,   /* an input exceeds a configured cap */
    BASE_EREMOTE = 11,   /* the remote side answered with an error of its own */
    BASE_EBUSY = 12,     /* a resource is in use */
    BASE_EUNSUPPORTED = 13, /* the operation is not available here */
} base_err;

/* Short, stable, human-readable description of an error code. Never NULL;
 * unknown codes give "unknown error". Any thread. */
const char *base_strerror(base_err e);

#define BASE_ERRBUF_SIZE 256

/* Writes a formatted message into errbuf (BASE_ERRBUF_SIZE bytes) unless it
 * already holds one: the first error wins. errbuf may be NULL (no-op).
 * Newlines in the message are replaced by spaces. Any thread, but callers
 * must serialise access to one buffer. Returns `e` so callers can write
 * `return base_errf(buf, BASE_EINVAL, "...")`. */
base_err base_errf(char *errbuf, base_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
base_err base_verrf(char *errbuf, base_err e, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Clears errbuf so that the next error is recorded. NULL is a no-op. */
void base_errclear(char *errbuf);

/* Invariant check; never for input validation. Aborts with file:line. */
#define BASE_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (!(cond))                                                                       \
            base__assert_fail(#cond, __FILE__, __LINE__);                                  \
    } while (0)
_Noreturn void base__assert_fail(const char *expr, const char *file, int line);

#endif
