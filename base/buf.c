/* base/buf.c: capped growable buffer (shape after curl's dynbuf). */
#include "base/buf.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

void base_buf_init(base_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void base_buf_fini(base_buf *b)
{
    base_free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void base_buf_reset(base_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

base_err base_buf_reserve(base_buf *b, size_t extra)
{
    if (extra > b->max || b->len > b->max - extra)
        return BASE_ETOOBIG;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return BASE_OK;
    /* Grow geometrically, but never past max + 1. */
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if (ncap > b->max + 1)
        ncap = b->max + 1;
    uint8_t *nd = base_realloc(b->data, ncap);
    if (!nd)
        return BASE_ENOMEM;
    b->data = nd;
    b->cap = ncap;
    return BASE_OK;
}

base_err base_buf_append(base_buf *b, const void *p, size_t n)
{
    base_err e = base_buf_reserve(b, n);
    if (e)
        return e;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return BASE_OK;
}

base_err base_buf_append_str(base_buf *b, const char *s)
{
    return base_buf_append(b, s, strlen(s));
}

base_err base_buf_printf(base_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return BASE_EINVAL;
    base_err e = base_buf_reserve(b, (size_t)n);
    if (e)
        return e;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return BASE_OK;
}

char *base_buf_steal(base_buf *b, size_t *len)
{
    if (!b->data && base_buf_reserve(b, 0) != BASE_OK)
        return NULL;
    if (!b->data)
        return NULL;
    b->data[b->len] = '\0';
    char *d = (char *)b->data;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return d;
}
