/* model/http_get.h: one plain HTTP GET (the agent's search worker
 * fetches a page's text through it; agent/ does not call curl itself).
 *
 * Each call makes and frees its own curl handle, so any thread may call it
 * and calls never share state. Failures are returned as a base_err with
 * the reason in err; nothing is retried.
 */
#ifndef FOVEA_MODEL_HTTP_GET_H
#define FOVEA_MODEL_HTTP_GET_H

#include <stddef.h>

#include "base/err.h"

/* GETs url (http or https, redirects followed up to 5) within timeout_ms and
 * returns at most max_bytes of the body, NUL-terminated. *body is the
 * caller's (base_free); NULL on failure. Any thread (its own handle). Errors:
 * BASE_EINVAL (NULL/empty url, a scheme other than http/https), BASE_EIO
 * (connection, timeout, an HTTP status >= 400: err names it), BASE_ETOOBIG
 * (the body passed max_bytes), BASE_ENOMEM. */
base_err model_http_get(const char *url, long timeout_ms, size_t max_bytes, char **body,
                       size_t *len, char *err);

#endif
