/* serve/httpd.h: a small loopback HTTP/1.1 server for fixtures, the demo site
 * and replayed LLM endpoints.
 *
 * One accept thread plus one thread per connection (capped). Requests are
 * read whole (headers capped at 16 KiB, bodies at 8 MiB by default) and then
 * offered to an optional handler; what it declines is served from a static
 * root. Keep-alive, HEAD, Expect: 100-continue and pipelined requests work;
 * chunked request bodies do not (501). Every response carries
 * `Cache-Control: no-store`. Request bodies are never logged.
 *
 *     serve_httpd_opts o = {.root = "tests/fixtures/pages"};
 *     serve_httpd *h;
 *     if (serve_httpd_start(&o, &h, err) == BASE_OK)
 *         printf("http://127.0.0.1:%d/\n", serve_httpd_port(h));
 *     ...
 *     serve_httpd_destroy(h);
 */
#ifndef FOVEA_SERVE_HTTPD_H
#define FOVEA_SERVE_HTTPD_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/http.h"

typedef struct serve_httpd serve_httpd;

/* A parsed request, valid only during the handler call that receives it. */
typedef struct serve_http_request {
    const char *method;  /* as sent, e.g. "GET", "POST" */
    const char *path;    /* percent-decoded path without the query, starts with '/' */
    const char *query;   /* raw text after '?', "" when there is none */
    const char *body;    /* body_len bytes, NUL-terminated one past the end */
    size_t body_len;
    void *priv; /* server-private; do not touch */
} serve_http_request;

/* Value of the first header called `name` (case-insensitive), with leading
 * and trailing blanks trimmed, or NULL. Borrowed from the request. */
const char *serve_http_request_header(const serve_http_request *req, const char *name);

/* What a handler fills in. The server initialises it (status 200,
 * content_type "text/plain; charset=utf-8", empty body capped at 64 MiB,
 * no extra headers, no delay) and frees the body after sending. */
typedef struct serve_http_response {
    int status;               /* 100..999; anything else becomes 500 */
    char content_type[64];    /* "" sends no Content-Type */
    base_buf body;            /* append with base_buf_append / base_buf_printf */
    char extra_headers[512];  /* "Name: value\r\n" lines; see serve_http_response_header */
    int delay_ms;             /* wait this long before answering; cut short by destroy */
    int close;                /* close the connection after this response */
    int raw;                  /* send body bytes verbatim: no status line, no headers,
                               * then close (for simulating a broken server) */
    void *stream;             /* server-private (serve_http_stream_write); do not touch */
} serve_http_response;

/* Streams the response while the handler still runs (server-sent events, a
 * long answer): the first call sends the status line, content_type,
 * extra_headers and "Transfer-Encoding: chunked" (status, type and headers
 * are fixed from then on); each call sends p[0..n) at once as one chunk (n
 * 0: only the head). What the handler leaves in resp->body goes out as a
 * last chunk after it returns, then the end of the stream; delay_ms and raw
 * are ignored once streaming. Only from the handler, on its own thread.
 * Errors: BASE_EINVAL (no resp, or not inside a handler; a HEAD request
 * gets the head only), BASE_EIO (the client went away: stop producing;
 * every later call fails the same way). */
base_err serve_http_stream_write(serve_http_response *resp, const void *p, size_t n);

/* Appends "name: value\r\n" to resp->extra_headers. BASE_EINVAL if either
 * contains CR or LF, BASE_ETOOBIG if it does not fit (nothing appended). */
base_err serve_http_response_header(serve_http_response *resp, const char *name,
                                   const char *value);

/* Returns 1 when it produced the response, 0 to fall through to the static
 * root (or 404/405 without one). Runs on a connection thread, possibly
 * concurrently with other calls: it must be thread-safe. It must not call
 * serve_httpd_destroy. Long waits belong in resp->delay_ms, not in sleep(),
 * so that destroy stays prompt. */
typedef int (*serve_http_handler)(const serve_http_request *req, serve_http_response *resp,
                                 void *user);

/* Zero-initialise, then set what you need; zero fields take defaults. */
typedef struct serve_httpd_opts {
    const char *root;         /* static files directory, or NULL for none */
    int port;                 /* 0 = a random free port */
    const char *bind;         /* numeric address, default "127.0.0.1" */
    serve_http_handler handler; /* optional, see above */
    void *user;               /* passed to handler */
    size_t max_header_bytes;  /* default 16 KiB; larger heads get 431 */
    size_t max_body_bytes;    /* default 8 MiB; larger bodies get 413 */
    int read_timeout_ms;      /* idle/read timeout per connection, default 10000 */
    int max_connections;      /* concurrent connections, default 64; extras get 503 */
} serve_httpd_opts;

/* Binds, listens and starts the accept thread. The options are copied (root
 * is resolved with realpath and must be a directory). On success *out is the
 * server; on failure *out is untouched and err (optional, BASE_ERRBUF_SIZE)
 * says why: BASE_EINVAL (bad bind address, root not a directory), BASE_EIO
 * (socket/bind/listen failed, e.g. port in use), BASE_ENOMEM. Any thread. */
base_err serve_httpd_start(const serve_httpd_opts *o, serve_httpd **out, char *err);

/* The bound TCP port (the random one when opts.port was 0). */
int serve_httpd_port(const serve_httpd *h);

/* Stops accepting, shuts down every open connection (idle keep-alive ones
 * included), interrupts pending delays, joins all threads and frees h.
 * Returns promptly unless a handler itself blocks. NULL is a no-op. Must not
 * be called from a handler. */
void serve_httpd_destroy(serve_httpd *h);

/* MIME type for a file name by extension ("application/octet-stream" when
 * unknown). Static storage. */
const char *serve_http_mime_type(const char *path);

#endif
