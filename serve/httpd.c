/* serve/httpd.c: loopback HTTP/1.1 server (libc + pthreads).
 *
 * Design: one accept thread polls the listening socket and a wake pipe; each
 * accepted connection gets its own joinable thread, tracked in a list under
 * the server mutex. A connection thread reads a whole request into a capped
 * base_buf (head, then Content-Length body), offers it to the user handler,
 * falls back to the static root, writes the response and loops for
 * keep-alive; bytes past the current request stay in the buffer, so
 * pipelining works too. Shutdown must be prompt even when clients idle on
 * keep-alive connections or stall mid-request: destroy() sets `stopping`,
 * shutdown()s every connection socket under the mutex (which wakes blocked
 * recv/send calls), signals the condition variable that handler delays wait
 * on, and wakes the accept thread through the pipe. A connection closes its
 * own fd under the same mutex, so destroy never shuts down a reused fd.
 * SO_RCVTIMEO/SO_SNDTIMEO bound how long a stalled peer holds a thread.
 *
 * Static paths are percent-decoded, ".." segments are refused, and the final
 * realpath() must stay under the realpath of the root, which also blocks
 * symlinks that point outside it.
 */
/* realpath() is an XSI function; this asks for it without leaving POSIX 2008. */
#define _XOPEN_SOURCE 700

#include "serve/httpd.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/text.h"

#define HTTPD_DEFAULT_HEADER_MAX (16u * 1024u)
#define HTTPD_DEFAULT_BODY_MAX (8u * 1024u * 1024u)
#define HTTPD_DEFAULT_TIMEOUT_MS 10000
#define HTTPD_DEFAULT_MAX_CONN 64
#define HTTPD_RESP_BODY_MAX ((size_t)64 * 1024 * 1024)
#define HTTPD_MAX_HEADERS 100
#define HTTPD_RECV_CHUNK 16384

typedef struct conn {
    struct conn *next;
    struct serve_httpd *srv;
    pthread_t thread;
    int fd;   /* -1 once closed; guarded by srv->mu */
    int done; /* the thread has finished; guarded by srv->mu */
} conn;

struct serve_httpd {
    serve_httpd_opts o;
    char *root; /* realpath of opts.root, or NULL */
    size_t root_len;
    int lfd;
    int wake[2];
    int port;
    pthread_t accept_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* broadcast when stopping, to cut delays short */
    int stopping;      /* guarded by mu */
    conn *conns;       /* guarded by mu */
    int nconns;        /* guarded by mu */
};

/* Parsed head of one request; the strings point into the connection buffer. */
typedef struct req_priv {
    const char *names[HTTPD_MAX_HEADERS];
    const char *values[HTTPD_MAX_HEADERS];
    int n;
} req_priv;

const char *serve_http_mime_type(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {"html", "text/html; charset=utf-8"},
        {"htm", "text/html; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"},
        {"mjs", "text/javascript; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"json", "application/json"},
        {"png", "image/png"},
        {"jpg", "image/jpeg"},
        {"jpeg", "image/jpeg"},
        {"gif", "image/gif"},
        {"webp", "image/webp"},
        {"svg", "image/svg+xml"},
        {"ico", "image/x-icon"},
        {"woff2", "font/woff2"},
        {"woff", "font/woff"},
        {"ttf", "font/ttf"},
        {"txt", "text/plain; charset=utf-8"},
        {"xml", "application/xml"},
        {"wasm", "application/wasm"},
        {"pdf", "application/pdf"},
    };
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (dot) {
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
            if (strcasecmp(dot + 1, types[i].ext) == 0)
                return types[i].type;
        }
    }
    return "application/octet-stream";
}

const char *serve_http_request_header(const serve_http_request *req, const char *name)
{
    const req_priv *p = req ? req->priv : NULL;
    if (!p || !name)
        return NULL;
    for (int i = 0; i < p->n; i++) {
        if (strcasecmp(p->names[i], name) == 0)
            return p->values[i];
    }
    return NULL;
}

base_err serve_http_response_header(serve_http_response *resp, const char *name,
                                   const char *value)
{
    if (!resp || !name || !value || !name[0] || strpbrk(name, "\r\n:") ||
        strpbrk(value, "\r\n"))
        return BASE_EINVAL;
    size_t used = strlen(resp->extra_headers);
    size_t need = strlen(name) + 2 + strlen(value) + 2;
    if (need >= sizeof resp->extra_headers - used)
        return BASE_ETOOBIG;
    snprintf(resp->extra_headers + used, sizeof resp->extra_headers - used, "%s: %s\r\n", name,
             value);
    return BASE_OK;
}

/* ---- socket helpers ---------------------------------------------------- */

/* Writes everything or fails; MSG_NOSIGNAL keeps a vanished peer from
 * raising SIGPIPE. */
static int send_all(int fd, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static void set_timeouts(int fd, int ms)
{
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int server_stopping(serve_httpd *s)
{
    pthread_mutex_lock(&s->mu);
    int st = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* ---- responses --------------------------------------------------------- */

/* Sends a status line, the standard headers and (unless head_only) body. */
static int send_response(int fd, int status, const char *ctype, const char *extra,
                         const void *body, size_t len, int head_only, int keep_alive)
{
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\n%s%s%sContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nConnection: %s\r\n%s\r\n",
                     status, base_http_reason(status), ctype && ctype[0] ? "Content-Type: " : "",
                     ctype && ctype[0] ? ctype : "", ctype && ctype[0] ? "\r\n" : "", len,
                     keep_alive ? "keep-alive" : "close", extra ? extra : "");
    if (n < 0 || (size_t)n >= sizeof head)
        return -1;
    if (send_all(fd, head, (size_t)n) != 0)
        return -1;
    if (head_only || len == 0 || status == 204 || status == 304)
        return 0;
    return send_all(fd, body, len);
}

/* A response being streamed (serve_http_stream_write): the handler's side. */
typedef struct stream_state {
    int fd;
    int head_only;
    int keep_alive;
    int begun;  /* the head went out */
    int failed; /* a send failed: the client went away */
} stream_state;

base_err serve_http_stream_write(serve_http_response *resp, const void *p, size_t n)
{
    if (!resp || !resp->stream || (n && !p))
        return BASE_EINVAL;
    stream_state *st = resp->stream;
    if (st->failed)
        return BASE_EIO;
    if (!st->begun) {
        int status = resp->status >= 100 && resp->status <= 999 ? resp->status : 500;
        size_t el = strnlen(resp->extra_headers, sizeof resp->extra_headers - 1);
        resp->extra_headers[el] = '\0';
        char head[1024];
        int k = snprintf(head, sizeof head,
                         "HTTP/1.1 %d %s\r\n%s%s%sTransfer-Encoding: chunked\r\n"
                         "Cache-Control: no-store\r\nConnection: %s\r\n%s\r\n",
                         status, base_http_reason(status), resp->content_type[0] ? "Content-Type: " : "",
                         resp->content_type, resp->content_type[0] ? "\r\n" : "",
                         st->keep_alive && !resp->close ? "keep-alive" : "close",
                         resp->extra_headers);
        st->begun = 1;
        if (resp->close)
            st->keep_alive = 0;
        if (k < 0 || (size_t)k >= sizeof head || send_all(st->fd, head, (size_t)k) != 0) {
            st->failed = 1;
            return BASE_EIO;
        }
    }
    if (st->head_only || n == 0)
        return st->head_only && n ? BASE_EINVAL : BASE_OK;
    char len[24];
    int k = snprintf(len, sizeof len, "%zx\r\n", n);
    if (send_all(st->fd, len, (size_t)k) != 0 || send_all(st->fd, p, n) != 0 ||
        send_all(st->fd, "\r\n", 2) != 0) {
        st->failed = 1;
        return BASE_EIO;
    }
    return BASE_OK;
}

/* A short plain-text error page such as "404 Not Found". */
static int send_error(int fd, int status, const char *extra, int head_only, int keep_alive)
{
    char body[96];
    int n = snprintf(body, sizeof body, "%d %s\n", status, base_http_reason(status));
    return send_response(fd, status, "text/plain; charset=utf-8", extra, body, (size_t)n,
                         head_only, keep_alive);
}

/* ---- request parsing --------------------------------------------------- */

/* Length of the head including its blank line, or 0 when incomplete. */
static size_t find_head_end(const uint8_t *d, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (d[i] != '\n')
            continue;
        if (i + 1 < len && d[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && d[i + 1] == '\r' && d[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Percent-decodes src[0..n) into dst (room for n + 1). Refuses bad escapes
 * and NUL bytes, which could truncate the path seen by open(). */
static int percent_decode(const char *src, size_t n, char *dst)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)src[i];
        if (c == '%') {
            if (n - i < 3)
                return -1;
            int h = base_hex_digit((unsigned char)src[i + 1]);
            int l = base_hex_digit((unsigned char)src[i + 2]);
            if (h < 0 || l < 0)
                return -1;
            c = h * 16 + l;
            i += 2;
        }
        if (c == 0)
            return -1;
        dst[o++] = (char)c;
    }
    dst[o] = '\0';
    return 0;
}

/* Parses a Content-Length value strictly (digits only, overflow-checked). */
static int parse_length(const char *v, size_t *out)
{
    if (!*v)
        return -1;
    size_t n = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9')
            return -1;
        if (n > (SIZE_MAX - 9) / 10)
            return -1;
        n = n * 10 + (size_t)(*v - '0');
    }
    *out = n;
    return 0;
}

/* True when the comma-separated header value lists token (case-insensitive). */
static int has_token(const char *v, const char *token)
{
    size_t tl = strlen(token);
    while (v && *v) {
        while (*v == ' ' || *v == ',' || *v == '\t')
            v++;
        size_t n = strcspn(v, ", \t");
        if (n == tl && strncasecmp(v, token, tl) == 0)
            return 1;
        v += n;
    }
    return 0;
}

/* ---- static files ------------------------------------------------------ */

static int under_root(const serve_httpd *s, const char *real)
{
    return strncmp(real, s->root, s->root_len) == 0 &&
           (real[s->root_len] == '/' || real[s->root_len] == '\0');
}

/* Serves path (decoded) from the root; raw_path/query build redirects.
 * Returns the status sent, or -1 when the connection must close. */
static int serve_static(serve_httpd *s, int fd, const char *path, const char *raw_path,
                        const char *query, int head_only, int keep_alive)
{
    /* Refuse ".." segments outright; realpath below catches the rest. */
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return send_error(fd, 404, NULL, head_only, keep_alive) ? -1 : 404;
        p += n;
    }
    size_t plen = strlen(path);
    size_t full_len = s->root_len + plen + sizeof "/index.html";
    char *full = base_malloc(full_len);
    char *real = base_malloc(PATH_MAX);
    int status = -1;
    int file = -1;
    if (!full || !real) {
        status = send_error(fd, 500, NULL, head_only, 0) ? -1 : 500;
        goto done;
    }
    snprintf(full, full_len, "%s%s", s->root, path);
    struct stat st;
    if (!realpath(full, real) || !under_root(s, real) || stat(real, &st) != 0) {
        status = send_error(fd, 404, NULL, head_only, keep_alive) ? -1 : 404;
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        if (plen == 0 || path[plen - 1] != '/') {
            /* Redirect so that relative links inside index.html resolve. */
            char extra[600];
            int n = snprintf(extra, sizeof extra, "Location: %s/%s%s\r\n", raw_path,
                             query[0] ? "?" : "", query);
            if (n < 0 || (size_t)n >= sizeof extra) {
                status = send_error(fd, 414, NULL, head_only, 0) ? -1 : 414;
                goto done;
            }
            status = send_error(fd, 301, extra, head_only, keep_alive) ? -1 : 301;
            goto done;
        }
        snprintf(full, full_len, "%s%sindex.html", s->root, path);
        if (!realpath(full, real) || !under_root(s, real) || stat(real, &st) != 0) {
            status = send_error(fd, 404, NULL, head_only, keep_alive) ? -1 : 404;
            goto done;
        }
    }
    file = S_ISREG(st.st_mode) ? open(real, O_RDONLY | O_CLOEXEC) : -1;
    if (file < 0 || fstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        status = send_error(fd, 404, NULL, head_only, keep_alive) ? -1 : 404;
        goto done;
    }
    size_t size = (size_t)st.st_size;
    if (send_response(fd, 200, serve_http_mime_type(real), NULL, NULL, size, 1, keep_alive))
        goto done;
    status = 200;
    if (!head_only) {
        /* Stream in chunks; a file that shrinks underneath us forces a close,
         * because the promised Content-Length can no longer be met. */
        char chunk[65536];
        size_t left = size;
        while (left > 0) {
            ssize_t r = read(file, chunk, left < sizeof chunk ? left : sizeof chunk);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0 || send_all(fd, chunk, (size_t)r) != 0) {
                status = -1;
                break;
            }
            left -= (size_t)r;
        }
    }
done:
    if (file >= 0)
        close(file);
    base_free(full);
    base_free(real);
    return status;
}

/* ---- one connection ---------------------------------------------------- */

/* Waits up to ms or until the server stops. Returns 1 when stopping. */
static int delay_or_stop(serve_httpd *s, int ms)
{
    struct timespec ts;
    base_deadline_ts(&ts, ms);
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT)
            break;
    }
    int st = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* Runs the handler, then the static root. Returns 0 to keep the connection,
 * -1 to close it. */
static int dispatch(serve_httpd *s, int fd, serve_http_request *req, const char *raw_path,
                    int keep_alive)
{
    int head_only = strcmp(req->method, "HEAD") == 0;
    if (s->o.handler) {
        serve_http_response resp;
        memset(&resp, 0, sizeof resp);
        resp.status = 200;
        snprintf(resp.content_type, sizeof resp.content_type, "text/plain; charset=utf-8");
        base_buf_init(&resp.body, HTTPD_RESP_BODY_MAX);
        stream_state st = {fd, head_only, keep_alive && !server_stopping(s), 0, 0};
        resp.stream = &st;
        int handled = s->o.handler(req, &resp, s->o.user);
        int rc = 0;
        if (handled && st.begun) {
            /* A streamed response: the rest of the body, then the end. */
            if (resp.body.len)
                serve_http_stream_write(&resp, resp.body.data, resp.body.len);
            if (!st.failed && !head_only && send_all(fd, "0\r\n\r\n", 5) != 0)
                st.failed = 1;
            rc = st.failed || !st.keep_alive || resp.close ? -1 : 0;
            base_log(BASE_LOG_BASE, BASE_LOG_DEBUG, "httpd %s %s -> %d (handler, streamed)",
                     req->method, req->path, resp.status);
        } else if (handled) {
            if (resp.delay_ms > 0 && delay_or_stop(s, resp.delay_ms)) {
                rc = -1;
            } else if (resp.raw) {
                if (resp.body.len)
                    send_all(fd, resp.body.data, resp.body.len);
                rc = -1;
            } else {
                int status = resp.status >= 100 && resp.status <= 999 ? resp.status : 500;
                int ka = keep_alive && !resp.close;
                /* Terminate the header block at a line end even when the
                 * handler wrote a partial line by hand. */
                size_t el = strnlen(resp.extra_headers, sizeof resp.extra_headers - 1);
                resp.extra_headers[el] = '\0';
                if (send_response(fd, status, resp.content_type, resp.extra_headers,
                                  resp.body.data, resp.body.len, head_only, ka) != 0 ||
                    !ka)
                    rc = -1;
                base_log(BASE_LOG_BASE, BASE_LOG_DEBUG, "httpd %s %s -> %d (handler)",
                         req->method, req->path, status);
            }
        }
        base_buf_fini(&resp.body);
        if (handled)
            return rc;
    }
    int status;
    if (!head_only && strcmp(req->method, "GET") != 0) {
        status = send_error(fd, 405, "Allow: GET, HEAD\r\n", 0, keep_alive) ? -1 : 405;
    } else if (!s->root) {
        status = send_error(fd, 404, NULL, head_only, keep_alive) ? -1 : 404;
    } else {
        status = serve_static(s, fd, req->path, raw_path, req->query, head_only, keep_alive);
    }
    base_log(BASE_LOG_BASE, BASE_LOG_DEBUG, "httpd %s %s -> %d", req->method, req->path,
             status);
    return status < 0 || !keep_alive ? -1 : 0;
}

/* Reads more bytes into in. Returns >0 on data, 0 on EOF/timeout/error. */
static ssize_t recv_more(int fd, base_buf *in)
{
    size_t room = in->max - in->len;
    if (room == 0 || base_buf_reserve(in, room < HTTPD_RECV_CHUNK ? room : HTTPD_RECV_CHUNK))
        return 0;
    for (;;) {
        ssize_t r = recv(fd, in->data + in->len, room < HTTPD_RECV_CHUNK ? room : HTTPD_RECV_CHUNK,
                         0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        in->len += (size_t)r;
        in->data[in->len] = '\0';
        return r;
    }
}


/* Drops the first n bytes of in, keeping any pipelined remainder. */
static void consume(base_buf *in, size_t n)
{
    if (n == 0)
        return;
    memmove(in->data, in->data + n, in->len - n);
    in->len -= n;
    in->data[in->len] = '\0';
}

/* Parses the head (a private NUL-terminated copy) into method, target,
 * version and headers. Returns 0 or the HTTP status to fail with. */
static int parse_head(char *head, char **method, char **target, int *http10, req_priv *pv)
{
    char *line_end = strchr(head, '\n');
    if (line_end)
        *line_end = '\0';
    char *reqline = trim(head);
    char *sp1 = strchr(reqline, ' ');
    char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2 || sp1 == reqline || sp2 == sp1 + 1)
        return 400;
    *sp1 = '\0';
    *sp2 = '\0';
    for (const char *m = reqline; *m; m++) {
        if (*m < 'A' || *m > 'Z')
            return 400;
    }
    const char *version = sp2 + 1;
    *http10 = strcmp(version, "HTTP/1.0") == 0;
    if (!*http10 && strcmp(version, "HTTP/1.1") != 0)
        return strncmp(version, "HTTP/", 5) == 0 ? 505 : 400;
    *method = reqline;
    *target = sp1 + 1;

    pv->n = 0;
    char *line = line_end ? line_end + 1 : head + strlen(head);
    while (*line) {
        char *next = strchr(line, '\n');
        if (next)
            *next = '\0';
        char *l = line;
        line = next ? next + 1 : line + strlen(line);
        size_t ll = strlen(l);
        if (ll > 0 && l[ll - 1] == '\r')
            l[--ll] = '\0';
        if (ll == 0)
            continue;
        char *colon = strchr(l, ':');
        /* Obsolete line folding and names with blanks are refused (RFC 9112 5). */
        if (l[0] == ' ' || l[0] == '\t' || !colon || colon == l ||
            strcspn(l, " \t") < (size_t)(colon - l))
            return 400;
        if (pv->n == HTTPD_MAX_HEADERS)
            return 431;
        *colon = '\0';
        pv->names[pv->n] = l;
        pv->values[pv->n] = trim(colon + 1);
        pv->n++;
    }
    return 0;
}

/* Handles the request at the front of in: reads it whole, answers it and
 * consumes its bytes. Returns 0 to keep the connection, -1 to close it. */
static int handle_one(serve_httpd *s, int fd, base_buf *in)
{
    /* Skip blank lines a client may send between requests (RFC 9112 2.2). */
    size_t skip = 0;
    while (skip < in->len && (in->data[skip] == '\r' || in->data[skip] == '\n'))
        skip++;
    consume(in, skip);
    size_t head_len;
    for (;;) {
        head_len = find_head_end(in->data, in->len);
        if (head_len)
            break;
        if (in->len > s->o.max_header_bytes) {
            send_error(fd, 431, NULL, 0, 0);
            return -1;
        }
        if (recv_more(fd, in) <= 0)
            return -1;
    }
    if (head_len > s->o.max_header_bytes) {
        send_error(fd, 431, NULL, 0, 0);
        return -1;
    }
    /* The head is copied out so that the body can grow the buffer (and move
     * it) without invalidating the parsed strings. */
    char *head = base_strndup((const char *)in->data, head_len);
    char *path = base_malloc(head_len + 1);
    int rc = -1;
    if (!head || !path) {
        send_error(fd, 500, NULL, 0, 0);
        goto done;
    }
    consume(in, head_len);

    char *method = NULL;
    char *target = NULL;
    int http10 = 0;
    req_priv pv;
    int bad = parse_head(head, &method, &target, &http10, &pv);
    if (bad) {
        send_error(fd, bad, NULL, 0, 0);
        goto done;
    }
    serve_http_request req;
    memset(&req, 0, sizeof req);
    req.method = method;
    req.priv = &pv;

    /* Body framing: Content-Length only; duplicates must agree. */
    size_t clen = 0;
    int have_len = 0;
    for (int i = 0; i < pv.n; i++) {
        if (strcasecmp(pv.names[i], "Content-Length") != 0)
            continue;
        size_t v;
        if (parse_length(pv.values[i], &v) != 0 || (have_len && v != clen)) {
            send_error(fd, 400, NULL, 0, 0);
            goto done;
        }
        clen = v;
        have_len = 1;
    }
    if (serve_http_request_header(&req, "Transfer-Encoding")) {
        send_error(fd, 501, NULL, 0, 0);
        goto done;
    }
    if (clen > s->o.max_body_bytes) {
        send_error(fd, 413, NULL, 0, 0);
        goto done;
    }
    const char *connection = serve_http_request_header(&req, "Connection");
    int keep_alive =
        http10 ? has_token(connection, "keep-alive") : !has_token(connection, "close");

    if (in->len < clen) {
        /* curl asks before sending large bodies; answer so it does not wait. */
        const char *expect = serve_http_request_header(&req, "Expect");
        if (expect && strcasecmp(expect, "100-continue") == 0) {
            static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
            if (send_all(fd, cont, sizeof cont - 1) != 0)
                goto done;
        }
        while (in->len < clen) {
            if (recv_more(fd, in) <= 0)
                goto done;
        }
    }

    /* Only origin-form targets ("/path?query") are served. */
    if (target[0] != '/') {
        send_error(fd, 400, NULL, 0, 0);
        goto done;
    }
    char *q = strchr(target, '?');
    req.query = q ? q + 1 : "";
    if (q)
        *q = '\0';
    if (percent_decode(target, strlen(target), path) != 0) {
        send_error(fd, 400, NULL, 0, 0);
        goto done;
    }
    req.path = path;

    /* The body sits at the front of in; NUL-terminate it in place for the
     * handler and restore the byte (start of a pipelined request) after. */
    uint8_t saved = in->data ? in->data[clen] : 0;
    static const char empty[1] = "";
    if (in->data)
        in->data[clen] = '\0';
    req.body = in->data ? (const char *)in->data : empty;
    req.body_len = clen;
    rc = dispatch(s, fd, &req, target, keep_alive);
    if (in->data)
        in->data[clen] = saved;
    consume(in, clen);
done:
    base_free(head);
    base_free(path);
    return rc;
}

static void *conn_main(void *arg)
{
    conn *c = arg;
    serve_httpd *s = c->srv;
    base_buf in;
    /* Room for one maximal head plus one maximal body at a time. */
    base_buf_init(&in, s->o.max_header_bytes + s->o.max_body_bytes + 1);
    while (!server_stopping(s)) {
        if (handle_one(s, c->fd, &in) != 0)
            break;
    }
    base_buf_fini(&in);
    pthread_mutex_lock(&s->mu);
    close(c->fd);
    c->fd = -1;
    c->done = 1;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Joins and frees finished connection threads. Accept thread only. */
static void reap_done(serve_httpd *s)
{
    conn *dead = NULL;
    pthread_mutex_lock(&s->mu);
    for (conn **pp = &s->conns; *pp;) {
        conn *c = *pp;
        if (c->done) {
            *pp = c->next;
            c->next = dead;
            dead = c;
            s->nconns--;
        } else {
            pp = &c->next;
        }
    }
    pthread_mutex_unlock(&s->mu);
    while (dead) {
        conn *c = dead;
        dead = c->next;
        pthread_join(c->thread, NULL);
        base_free(c);
    }
}

static void *accept_main(void *arg)
{
    serve_httpd *s = arg;
    for (;;) {
        struct pollfd pfd[2] = {{.fd = s->lfd, .events = POLLIN}, {.fd = s->wake[0], .events = POLLIN}};
        int pr = poll(pfd, 2, 1000);
        if (pr < 0 && errno != EINTR)
            break;
        reap_done(s);
        if (pfd[1].revents || server_stopping(s))
            break;
        if (pr <= 0 || !(pfd[0].revents & POLLIN))
            continue;
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0) {
            /* EMFILE and friends: back off instead of spinning. */
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                errno != ECONNABORTED)
                base_sleep_ms(20);
            continue;
        }
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        set_timeouts(fd, s->o.read_timeout_ms);
        conn *c = base_calloc(1, sizeof *c);
        pthread_mutex_lock(&s->mu);
        if (!c || s->stopping || s->nconns >= s->o.max_connections) {
            pthread_mutex_unlock(&s->mu);
            if (c)
                send_error(fd, 503, NULL, 0, 0);
            close(fd);
            base_free(c);
            continue;
        }
        c->srv = s;
        c->fd = fd;
        c->next = s->conns;
        s->conns = c;
        s->nconns++;
        if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
            s->conns = c->next;
            s->nconns--;
            pthread_mutex_unlock(&s->mu);
            close(fd);
            base_free(c);
            continue;
        }
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------- */

base_err serve_httpd_start(const serve_httpd_opts *o, serve_httpd **out, char *err)
{
    if (!o || !out || o->port < 0 || o->port > 65535)
        return base_errf(err, BASE_EINVAL, "httpd: invalid options");
    base_err e = BASE_ENOMEM;
    serve_httpd *s = base_calloc(1, sizeof *s);
    if (!s)
        return base_errf(err, BASE_ENOMEM, "httpd: out of memory");
    s->lfd = -1;
    s->wake[0] = s->wake[1] = -1;
    s->o = *o;
    s->o.root = NULL; /* s->root owns the resolved copy */
    if (!s->o.bind)
        s->o.bind = "127.0.0.1";
    if (!s->o.max_header_bytes)
        s->o.max_header_bytes = HTTPD_DEFAULT_HEADER_MAX;
    if (!s->o.max_body_bytes)
        s->o.max_body_bytes = HTTPD_DEFAULT_BODY_MAX;
    if (s->o.read_timeout_ms <= 0)
        s->o.read_timeout_ms = HTTPD_DEFAULT_TIMEOUT_MS;
    if (s->o.max_connections <= 0)
        s->o.max_connections = HTTPD_DEFAULT_MAX_CONN;
    int mu_ok = 0, cv_ok = 0;
    if (pthread_mutex_init(&s->mu, NULL) != 0)
        goto fail;
    mu_ok = 1;
    if (pthread_cond_init(&s->cv, NULL) != 0)
        goto fail;
    cv_ok = 1;

    if (o->root) {
        s->root = base_malloc(PATH_MAX);
        struct stat st;
        if (!s->root)
            goto fail;
        if (!realpath(o->root, s->root) || stat(s->root, &st) != 0 || !S_ISDIR(st.st_mode)) {
            e = base_errf(err, BASE_EINVAL, "httpd: root %s is not a directory", o->root);
            goto fail;
        }
        s->root_len = strlen(s->root);
        /* "/" as root would otherwise yield "//x" paths; keep it as "". */
        if (s->root_len == 1) {
            s->root[0] = '\0';
            s->root_len = 0;
        }
    }

    /* The address is copied into a sockaddr now, so o->bind need not live on. */
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, s->o.bind, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)o->port);
        sl = sizeof *a4;
    } else if (inet_pton(AF_INET6, s->o.bind, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)o->port);
        sl = sizeof *a6;
    } else {
        e = base_errf(err, BASE_EINVAL, "httpd: bind address %s is not numeric", s->o.bind);
        goto fail;
    }
    s->o.bind = NULL;
    s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->lfd < 0) {
        e = base_errf(err, BASE_EIO, "httpd: socket: %s", strerror(errno));
        goto fail;
    }
    int one = 1;
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s->lfd, (struct sockaddr *)&ss, sl) != 0 || listen(s->lfd, 128) != 0) {
        e = base_errf(err, BASE_EIO, "httpd: bind/listen port %d: %s", o->port,
                      strerror(errno));
        goto fail;
    }
    /* Non-blocking so a connection that vanishes between poll and accept
     * cannot park the accept thread. */
    fcntl(s->lfd, F_SETFL, fcntl(s->lfd, F_GETFL) | O_NONBLOCK);
    sl = sizeof ss;
    if (getsockname(s->lfd, (struct sockaddr *)&ss, &sl) != 0) {
        e = base_errf(err, BASE_EIO, "httpd: getsockname: %s", strerror(errno));
        goto fail;
    }
    s->port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
    if (pipe(s->wake) != 0) {
        s->wake[0] = s->wake[1] = -1;
        e = base_errf(err, BASE_EIO, "httpd: pipe: %s", strerror(errno));
        goto fail;
    }
    fcntl(s->wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(s->wake[1], F_SETFD, FD_CLOEXEC);
    if (pthread_create(&s->accept_thread, NULL, accept_main, s) != 0) {
        e = base_errf(err, BASE_EIO, "httpd: cannot start the accept thread");
        goto fail;
    }
    base_log(BASE_LOG_BASE, BASE_LOG_DEBUG, "httpd listening on port %d", s->port);
    *out = s;
    return BASE_OK;

fail:
    if (e == BASE_ENOMEM)
        base_errf(err, BASE_ENOMEM, "httpd: out of memory");
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->wake[0] >= 0) {
        close(s->wake[0]);
        close(s->wake[1]);
    }
    if (cv_ok)
        pthread_cond_destroy(&s->cv);
    if (mu_ok)
        pthread_mutex_destroy(&s->mu);
    base_free(s->root);
    base_free(s);
    return e;
}

int serve_httpd_port(const serve_httpd *h)
{
    return h ? h->port : 0;
}

void serve_httpd_destroy(serve_httpd *h)
{
    if (!h)
        return;
    /* Under the mutex: no new connection is registered after this, and every
     * registered one is woken from recv/send by the shutdown. */
    pthread_mutex_lock(&h->mu);
    h->stopping = 1;
    pthread_cond_broadcast(&h->cv);
    for (conn *c = h->conns; c; c = c->next) {
        if (c->fd >= 0)
            shutdown(c->fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&h->mu);
    ssize_t w;
    do {
        w = write(h->wake[1], "x", 1);
    } while (w < 0 && errno == EINTR);
    pthread_join(h->accept_thread, NULL);

    /* The accept thread is gone, so the list can only shrink; take it whole. */
    pthread_mutex_lock(&h->mu);
    conn *list = h->conns;
    h->conns = NULL;
    h->nconns = 0;
    pthread_mutex_unlock(&h->mu);
    while (list) {
        conn *c = list;
        list = c->next;
        pthread_join(c->thread, NULL);
        base_free(c);
    }
    close(h->lfd);
    close(h->wake[0]);
    close(h->wake[1]);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    base_free(h->root);
    base_free(h);
}
