/* tests/harness/slowhttp.c: the misbehaving server of slowhttp.h. Plain
 * sockets rather than serve/httpd.h, because the point is to write a reply
 * slowly, byte by byte or never, which a request/response handler cannot.
 */
#include "slowhttp.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "wire_check.h"

struct slow_server {
    slow_mode mode;
    int interval_ms;
    int lfd;
    pthread_t th;
    atomic_int stop;
    atomic_int requests;
    atomic_int violations;
    char violation[400];
    char url[64];
};

static const char headers[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                              "Cache-Control: no-cache\r\nConnection: close\r\n\r\n";
static const char chunk[] =
    "data: {\"id\":\"slow\",\"object\":\"chat.completion.chunk\",\"model\":\"slow\",\"choices\":"
    "[{\"index\":0,\"delta\":{\"content\":\"la \"},\"finish_reason\":null}]}\n\n";
static const char whole[] =
    "data: {\"id\":\"slow\",\"object\":\"chat.completion.chunk\",\"model\":\"slow\",\"choices\":"
    "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"done, slowly\"},"
    "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

/* Waits ms for the client to go away; 1 when it did (or on stop). */
static int client_gone(slow_server *s, int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, ms);
    if (atomic_load(&s->stop))
        return 1;
    if (r > 0) {
        char b[256];
        ssize_t n = recv(fd, b, sizeof b, MSG_DONTWAIT);
        return n <= 0;
    }
    return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads one request (headers + Content-Length body) and checks it. */
static int read_request(slow_server *s, int fd)
{
    base_buf b;
    base_buf_init(&b, 32u << 20);
    long want = -1;
    size_t head = 0;
    while (!atomic_load(&s->stop)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        char tmp[65536];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0 || base_buf_append(&b, tmp, (size_t)n) != BASE_OK)
            break;
        if (!head && base_buf_append(&b, "", 1) == BASE_OK) {
            b.len--;
            const char *end = strstr((const char *)b.data, "\r\n\r\n");
            if (end) {
                head = (size_t)(end - (const char *)b.data) + 4;
                const char *cl = strstr((const char *)b.data, "Content-Length:");
                want = cl && cl < end ? strtol(cl + 15, NULL, 10) : 0;
            }
        }
        if (head && b.len >= head + (size_t)want) {
            atomic_fetch_add(&s->requests, 1);
            cJSON *root = cJSON_ParseWithLength((const char *)b.data + head, (size_t)want);
            char why[400];
            if (!root || wire_check(root, why, sizeof why) != 0) {
                if (atomic_fetch_add(&s->violations, 1) == 0)
                    snprintf(s->violation, sizeof s->violation, "%s", root ? why : "not JSON");
            }
            cJSON_Delete(root);
            base_buf_fini(&b);
            return 0;
        }
    }
    base_buf_fini(&b);
    return -1;
}

static void serve_one(slow_server *s, int fd)
{
    if (read_request(s, fd))
        return;
    switch (s->mode) {
    case SLOW_SILENT:
        while (!client_gone(s, fd, 50))
            ;
        break;
    case SLOW_STALL:
        if (send_all(fd, headers, strlen(headers)) || send_all(fd, chunk, strlen(chunk)))
            break;
        while (!client_gone(s, fd, 50))
            ;
        break;
    case SLOW_TRICKLE:
        if (send_all(fd, headers, strlen(headers)))
            break;
        for (size_t i = 0; i < strlen(whole); i++)
            if (client_gone(s, fd, s->interval_ms) || send_all(fd, whole + i, 1))
                break;
        break;
    case SLOW_ENDLESS:
        if (send_all(fd, headers, strlen(headers)))
            break;
        while (!client_gone(s, fd, s->interval_ms) && !send_all(fd, chunk, strlen(chunk)))
            ;
        break;
    }
}

static void *run(void *arg)
{
    slow_server *s = arg;
    while (!atomic_load(&s->stop)) {
        struct pollfd p = {.fd = s->lfd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        serve_one(s, fd);
        close(fd);
    }
    return NULL;
}

base_err slow_start(slow_mode mode, int interval_ms, slow_server **out, char *err)
{
    slow_server *s = base_calloc(1, sizeof *s);
    if (!s)
        return base_errf(err, BASE_ENOMEM, "slowhttp: out of memory");
    s->mode = mode;
    s->interval_ms = interval_ms > 0 ? interval_ms : 100;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof a) || listen(s->lfd, 8) ||
        getsockname(s->lfd, (struct sockaddr *)&a, &al)) {
        if (s->lfd >= 0)
            close(s->lfd);
        base_free(s);
        return base_errf(err, BASE_EIO, "slowhttp: cannot listen: %s", strerror(errno));
    }
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d/v1", ntohs(a.sin_port));
    if (pthread_create(&s->th, NULL, run, s)) {
        close(s->lfd);
        base_free(s);
        return base_errf(err, BASE_EIO, "slowhttp: no thread");
    }
    *out = s;
    return BASE_OK;
}

const char *slow_base_url(const slow_server *s)
{
    return s->url;
}

int slow_requests(slow_server *s)
{
    return atomic_load(&s->requests);
}

void slow_destroy(slow_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
    close(s->lfd);
    if (atomic_load(&s->violations) > 0) {
        fprintf(stderr, "slowhttp: %d request(s) broke a chat-template rule; the first: %s\n",
                atomic_load(&s->violations), s->violation);
        abort();
    }
    base_free(s);
}
