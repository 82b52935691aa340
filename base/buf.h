/* base/buf.h: capped growable byte buffer.
 *
 * Every buffer has a hard cap so that a peer cannot make fovea allocate
 * without bound (WebSocket frames, base64 payloads, HTTP bodies). The data is
 * always NUL-terminated one byte past len, so text can be used in place.
 * A base_buf is caller-owned: base_buf_init / base_buf_fini.
 */
#ifndef FOVEA_BASE_BUF_H
#define FOVEA_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct base_buf {
    uint8_t *data; /* NULL until the first append */
    size_t len;
    size_t cap;    /* allocated bytes (>= len + 1 once allocated) */
    size_t max;    /* cap on len; appends beyond it fail with BASE_ETOOBIG */
} base_buf;

void base_buf_init(base_buf *b, size_t max);
void base_buf_fini(base_buf *b);
/* Empties the buffer but keeps its memory. */
void base_buf_reset(base_buf *b);
/* Ensures room for `extra` more bytes. BASE_ETOOBIG past max, BASE_ENOMEM. */
base_err base_buf_reserve(base_buf *b, size_t extra);
/* Appends n bytes; on failure the buffer is unchanged. */
base_err base_buf_append(base_buf *b, const void *p, size_t n);
base_err base_buf_append_str(base_buf *b, const char *s);
base_err base_buf_printf(base_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the data to the caller (who frees it with base_free) and empties b.
 * Returns an empty allocated string when b is empty; NULL on ENOMEM. */
char *base_buf_steal(base_buf *b, size_t *len);

#endif
