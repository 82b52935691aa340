/* tests/check.h: the small test harness every fovea test executable uses.
 *
 * A test file defines its cases as functions `static void name(void)` and a
 * table, then calls check_main:
 *
 *     static const check_case cases[] = {{"encode", encode}, {NULL, NULL}};
 *     int main(int argc, char **argv) { return check_main(argc, argv, cases); }
 *
 * `test_M` runs every case; `test_M name...` runs only those. A failing
 * CHECK prints both sides and the location, marks the case failed and
 * returns from it. SKIP() marks the case skipped with a loud reason; when the
 * environment variable CI is set, a skip counts as a failure (integration
 * tests must run in CI). The last line printed is "N passed, N failed" (plus
 * ", N skipped"), which CI reads.
 */
#ifndef FOVEA_TESTS_CHECK_H
#define FOVEA_TESTS_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct check_case {
    const char *name;
    void (*fn)(void);
} check_case;

/* State of the running case; tests do not touch it directly. */
extern int check__failed;
extern int check__skipped;

void check__fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void check__skip(const char *file, int line, const char *why);
int check_main(int argc, char **argv, const check_case *cases);

/* A TCP socket bound to 127.0.0.1 on a free port, listening when `listen_too`
 * (backlog 8). Returns the fd and stores the port, or -1. */
int check_loopback_socket(int listen_too, int *port);
/* A loopback port with nobody listening (bound, then closed): connecting to
 * it is refused. Returns the port, or -1. */
int check_closed_port(void);

/* The bytes of the file at path as a NUL-terminated string (base_malloc'd,
 * base_free), "" when it cannot be read (64 MiB at most). */
char *check_slurp(const char *path);

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            check__fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                           \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            check__fail(__FILE__, __LINE__, __VA_ARGS__);                                  \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                                     \
    do {                                                                                   \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
        if (check_a_ != check_b_) {                                                        \
            check__fail(__FILE__, __LINE__, "CHECK_EQ(%s, %s): %lld != %lld", #a, #b,      \
                        check_a_, check_b_);                                               \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                              \
    do {                                                                                   \
        double check_a_ = (double)(a), check_b_ = (double)(b);                             \
        if (!(fabs(check_a_ - check_b_) <= (double)(tol))) {                               \
            check__fail(__FILE__, __LINE__, "CHECK_NEAR(%s, %s, %s): %.6g vs %.6g", #a,    \
                        #b, #tol, check_a_, check_b_);                                     \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_STR(a, b)                                                                    \
    do {                                                                                   \
        const char *check_a_ = (a), *check_b_ = (b);                                       \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                   \
            check__fail(__FILE__, __LINE__, "CHECK_STR(%s, %s): \"%s\" != \"%s\"", #a, #b, \
                        check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");   \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/* Asserts that a base_err-returning expression succeeded. */
#define CHECK_OK(expr)                                                                     \
    do {                                                                                   \
        int check_e_ = (int)(expr);                                                        \
        if (check_e_ != 0) {                                                               \
            check__fail(__FILE__, __LINE__, "CHECK_OK(%s): error %d", #expr, check_e_);    \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define SKIP(why)                                                                          \
    do {                                                                                   \
        check__skip(__FILE__, __LINE__, (why));                                            \
        return;                                                                            \
    } while (0)

#endif
