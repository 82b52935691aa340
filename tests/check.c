/* tests/check.c: runner for tests/check.h. */
#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json_alloc.h"

int check__failed;
int check__skipped;

void check__fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "  FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    check__failed = 1;
}

void check__skip(const char *file, int line, const char *why)
{
    fprintf(stderr, "  SKIP %s:%d: %s\n", file, line, why);
    check__skipped = 1;
}

static int selected(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0)
            return 1;
    }
    return 0;
}

int check_main(int argc, char **argv, const check_case *cases)
{
    /* Before any test allocates: cJSON's allocations go through base_malloc,
     * so failure injection reaches the JSON code under test. */
    base_json_alloc_install();
    int passed = 0, failed = 0, skipped = 0, ran = 0;
    int in_ci = getenv("CI") != NULL && getenv("CI")[0] != '\0';
    for (const check_case *c = cases; c->name; c++) {
        if (!selected(argc, argv, c->name))
            continue;
        ran++;
        check__failed = 0;
        check__skipped = 0;
        fprintf(stderr, "[ RUN  ] %s\n", c->name);
        c->fn();
        if (check__failed) {
            failed++;
            fprintf(stderr, "[ FAIL ] %s\n", c->name);
        } else if (check__skipped) {
            if (in_ci) {
                failed++;
                fprintf(stderr, "[ FAIL ] %s (skipped, and skips fail in CI)\n", c->name);
            } else {
                skipped++;
                fprintf(stderr, "[ SKIP ] %s  <<<<<<<< SKIPPED\n", c->name);
            }
        } else {
            passed++;
            fprintf(stderr, "[  OK  ] %s\n", c->name);
        }
    }
    if (ran == 0 && argc > 1) {
        fprintf(stderr, "no case named %s\n", argv[1]);
        return 2;
    }
    fflush(stderr);
    if (skipped)
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else
        printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int check_loopback_socket(int listen_too, int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0 || (listen_too && listen(fd, 8) != 0)) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

int check_closed_port(void)
{
    int port = -1;
    int fd = check_loopback_socket(0, &port);
    if (fd < 0)
        return -1;
    close(fd);
    return port;
}

char *check_slurp(const char *path)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    if (base_read_file(path, &buf, &n, 64u << 20, NULL) != BASE_OK)
        return base_strdup("");
    return (char *)buf;
}
