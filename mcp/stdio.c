/* mcp/stdio.c: the stdio transport — one JSON-RPC message per line on
 * stdin, one per line on stdout, logs only on stderr.
 *
 * The main thread reads lines and hands them to the connection, which
 * answers what needs no page at once and queues tool calls for its worker;
 * both threads write answers, so every line is written whole under one
 * lock and flushed. A line over the cap is refused (-32600) and skipped to
 * its end. At EOF the calls already received are answered, then the browser
 * session closes.
 */
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "mcp/mcp.h"

#define LINE_MAX_BYTES (8u << 20)

typedef struct out_sink {
    FILE *f;
    pthread_mutex_t mu;
    int failed;
} out_sink;

static void emit_line(void *user, const char *json, const cJSON *related)
{
    (void)related;
    out_sink *o = user;
    if (!json)
        return; /* a cancelled call: nothing is sent */
    pthread_mutex_lock(&o->mu);
    if (fputs(json, o->f) < 0 || fputc('\n', o->f) == EOF || fflush(o->f) != 0)
        o->failed = 1;
    pthread_mutex_unlock(&o->mu);
}

base_err mcp_stdio_run(const mcp_config *cfg, FILE *in, FILE *out, char *err)
{
    out_sink o = {out, PTHREAD_MUTEX_INITIALIZER, 0};
    mcp_conn *c = NULL;
    base_err e = mcp_conn_create(cfg, emit_line, &o, &c, err);
    if (e)
        return e;
    base_buf line;
    base_buf_init(&line, LINE_MAX_BYTES + 1);
    int over = 0, ch;
    for (;;) {
        ch = getc(in);
        if (ch != EOF && ch != '\n') {
            if (!over && base_buf_append(&line, &(char){(char)ch}, 1) != BASE_OK)
                over = 1;
            continue;
        }
        if (over) {
            emit_line(&o,
                      "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
                      "\"invalid request: a message over 8 MiB\"}}",
                      NULL);
        } else if (line.len > 0) {
            /* Blank lines (and a stray CR) between messages are no message. */
            size_t n = line.len;
            const char *t = (const char *)line.data;
            while (n > 0 && (t[n - 1] == '\r' || t[n - 1] == ' ' || t[n - 1] == '\t'))
                n--;
            size_t k = 0;
            while (k < n && (t[k] == ' ' || t[k] == '\t'))
                k++;
            if (k < n)
                mcp_conn_receive(c, t + k, n - k);
        }
        base_buf_reset(&line);
        over = 0;
        if (ch == EOF || o.failed)
            break;
    }
    base_buf_fini(&line);
    if (!o.failed)
        mcp_conn_drain(c);
    mcp_conn_destroy(c);
    if (o.failed)
        return base_errf(err, BASE_EIO, "mcp: cannot write to stdout");
    return BASE_OK;
}
