/* tests/base/test_inputs.c: base's guards for untrusted input: the bounded
 * PCRE2 wrapper (base/regex.h), the checked number conversion (base/num.h)
 * and UTF-8 validation and repair (base/utf8.h).
 *
 * The hostile cases are the ones that took fovea down with glibc's regcomp
 * (a 30-byte pattern grew the process to 23 GB): each must fail with a
 * clear message, quickly, and (outside sanitizer builds, whose shadow memory
 * needs a huge address space) inside a 512 MB address-space ceiling set in
 * a child process, so an unbounded allocation fails the test instead of
 * the machine. */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/num.h"
#include "base/regex.h"
#include "base/utf8.h"
#include "check.h"

static int matches(const char *pat, unsigned flags, const char *subject)
{
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_regex_compile(pat, strlen(pat), flags, &re, err) != BASE_OK) {
        fprintf(stderr, "compile %s: %s\n", pat, err);
        return -1;
    }
    int m = -1;
    if (base_regex_match(re, subject, strlen(subject), &m, err) != BASE_OK) {
        fprintf(stderr, "match %s: %s\n", pat, err);
        m = -1;
    }
    base_regex_destroy(re);
    return m;
}

static void pcre_syntax(void)
{
    CHECK_EQ(matches("\\d+ results", 0, "found 3 results"), 1);
    CHECK_EQ(matches("^Total: [0-9]+$", BASE_REGEX_MULTILINE, "head\nTotal: 42\nfoot"), 1);
    CHECK_EQ(matches("^Total: [0-9]+$", 0, "head\nTotal: 42\nfoot"), 0);
    CHECK_EQ(matches("(?i)sign in", 0, "Please SIGN IN"), 1);
    CHECK_EQ(matches("sign in", BASE_REGEX_CASELESS, "Please SIGN IN"), 1);
    CHECK_EQ(matches("sign in", 0, "Please SIGN IN"), 0);
    /* UTF-8 mode: `.` is one character, even a two-byte one. */
    CHECK_EQ(matches("^caf.$", 0, "caf\xc3\xa9"), 1);
    /* Invalid UTF-8 in the subject (page text) is searched, not an error. */
    CHECK_EQ(matches("ok", 0, "bad \xff\xfe bytes ok"), 1);
    CHECK_EQ(matches("x", 0, "bad \xff\xfe bytes ok"), 0);
}

/* Compiles pat and expects failure with code want and a message naming
 * "regex:", in well under a second. */
static int compile_fails(const char *pat, size_t len, base_err want)
{
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    double t0 = base_monotime_ms();
    base_err e = base_regex_compile(pat, len, 0, &re, err);
    double ms = base_monotime_ms() - t0;
    printf("  /%.40s%s/ -> %d \"%s\" in %.2f ms\n", pat, len > 40 ? "..." : "", e, err, ms);
    if (e == BASE_OK)
        base_regex_destroy(re);
    return e == want && re == NULL && strncmp(err, "regex: ", 7) == 0 && ms < 500;
}

static void hostile_compile_body(void)
{
    CHECK(compile_fails("a+++++++++++++++++++++++++", 26, BASE_EINVAL));
    /* A bounded repeat of a group is compiled as that many copies: a
     * million copies here, far over PCRE2's compiled-size limit. */
    CHECK(compile_fails("((ab){1000}){1000}", 18, BASE_ETOOBIG));
    CHECK(compile_fails("((a{65535}){65535}){65535}", 26, BASE_ETOOBIG));
    CHECK(compile_fails("a{99999}", 8, BASE_EINVAL)); /* over PCRE2's repeat maximum */
    char deep[400];
    memset(deep, '(', 150);
    deep[150] = 'a';
    memset(deep + 151, ')', 150);
    deep[301] = '\0';
    CHECK(compile_fails(deep, 301, BASE_ETOOBIG));
    char big[BASE_REGEX_MAX_PATTERN + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(compile_fails(big, sizeof big - 1, BASE_ETOOBIG));
    CHECK(compile_fails("caf\xc3", 4, BASE_EINVAL)); /* truncated UTF-8 */
    CHECK(compile_fails("a\\C", 3, BASE_EINVAL));   /* \C may split a character */
    /* (a{1000}){1000} is one counted opcode inside a counted group for
     * PCRE2: small and quick to compile; matching it is bounded below. */
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    double t1 = base_monotime_ms();
    CHECK_OK(base_regex_compile("(a{1000}){1000}", 15, 0, &re, err));
    CHECK(base_monotime_ms() - t1 < 500);
    base_regex_destroy(re);
    re = NULL;
    /* Large but legal patterns still compile within the memory cap. */
    CHECK_OK(base_regex_compile("((((a*)*)*)*)*b", 15, 0, &re, err));
    /* Nested quantifiers on a line without the final b: catastrophic for a
     * backtracking engine, stopped by the step limit. */
    char line[4096];
    memset(line, 'a', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    int m = -1;
    double t0 = base_monotime_ms();
    base_err e = base_regex_match(re, line, strlen(line), &m, err);
    double ms = base_monotime_ms() - t0;
    printf("  nested quantifiers on 4095 a's -> %d \"%s\" in %.1f ms\n", e, err, ms);
    base_regex_destroy(re);
    /* PCRE2 may prove "no b, no match" up front; either way it must be fast
     * and never a false match. */
    CHECK(e == BASE_OK ? m == 0 : e == BASE_ETOOBIG);
    CHECK(ms < 5000); /* ~10 ms here; generous for sanitizer builds */
}

static void backtracking_limit_body(void)
{
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    /* (a|aa)+$ defeats PCRE2's start-up optimisations; on 60 a's and an x
     * it has ~1e12 ways to fail. */
    CHECK_OK(base_regex_compile("^(a|aa)+$", 9, 0, &re, err));
    char text[64];
    memset(text, 'a', 60);
    text[60] = 'x';
    text[61] = '\0';
    int m = 7;
    double t0 = base_monotime_ms();
    base_err e = base_regex_match(re, text, 61, &m, err);
    double ms = base_monotime_ms() - t0;
    printf("  ^(a|aa)+$ on a^60 x -> %d \"%s\" in %.1f ms\n", e, err, ms);
    base_regex_destroy(re);
    CHECK_EQ(e, BASE_ETOOBIG);
    CHECK_EQ(m, 7); /* untouched on failure */
    CHECK(strstr(err, "backtrack") != NULL);
    CHECK(ms < 5000);
}

/* Page text: 200 lines of 24 a's and a '!'. PCRE2 restarts its step count
 * at every start position, so (a|aa)+$ without ^, tried at each of the
 * 4800 starts, stays under the per-start limit each time and took 11 s in
 * all; the total budget must stop it. */
static char *many_lines(void)
{
    char *text = base_malloc(200 * 26 + 1);
    if (!text)
        abort();
    for (int i = 0; i < 200; i++) {
        memset(text + i * 26, 'a', 24);
        text[i * 26 + 24] = '!';
        text[i * 26 + 25] = '\n';
    }
    text[200 * 26] = '\0';
    return text;
}

static void total_budget_body(void)
{
    char *text = many_lines();
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    /* No run of a's reaches a line end, so every start position
     * backtracks through all the ways to split its run before failing. */
    CHECK_OK(base_regex_compile("(a|aa)+$", 8, BASE_REGEX_MULTILINE, &re, err));
    int m = 7;
    double t0 = base_monotime_ms();
    base_err e = base_regex_match(re, text, strlen(text), &m, err);
    double ms = base_monotime_ms() - t0;
    printf("  (a|aa)+$ over 200 lines of a's -> %d \"%s\" in %.1f ms\n", e, err, ms);
    CHECK_EQ(e, BASE_ETOOBIG);
    CHECK_EQ(m, 7);
    CHECK(strstr(err, "in total") != NULL);
    CHECK(ms < 5000); /* 11 s per match before the total budget */
    /* A deadline stops it sooner than the budget. */
    err[0] = '\0';
    t0 = base_monotime_ms();
    e = base_regex_match_until(re, text, strlen(text), base_monotime_ms() + 20, &m, err);
    ms = base_monotime_ms() - t0;
    printf("  same with a 20 ms deadline -> %d \"%s\" in %.1f ms\n", e, err, ms);
    CHECK_EQ(e, BASE_ETOOBIG);
    CHECK(strstr(err, "deadline") != NULL);
    CHECK(ms < 1000);
    /* A stop signal ends it too (the graceful handler only sets a flag). */
    CHECK_EQ(base_interrupt_install(NULL), 0);
    raise(SIGINT);
    err[0] = '\0';
    t0 = base_monotime_ms();
    e = base_regex_match(re, text, strlen(text), &m, err);
    ms = base_monotime_ms() - t0;
    base_interrupt_reset();
    CHECK_EQ(e, BASE_ECANCELED);
    CHECK(strstr(err, "SIGINT") != NULL);
    CHECK(ms < 1000);
    base_regex_destroy(re);
    base_free(text);
}

/* Runs fn in a child under an address-space ceiling (unless sanitized). */
static void in_child(void (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
#ifndef FOVEA_SANITIZED
        struct rlimit rl = {512u << 20, 512u << 20};
        setrlimit(RLIMIT_AS, &rl);
#endif
        alarm(20);
        fn();
        fflush(stdout);
        _exit(check__failed ? 1 : 0);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status 0x%x)", st);
}

static void hostile_compile(void)
{
    in_child(hostile_compile_body);
}

static void backtracking_limit(void)
{
    in_child(backtracking_limit_body);
}

static void total_budget(void)
{
    in_child(total_budget_body);
}

/* Every allocation of compile + match fails in turn: a clean ENOMEM. */
static void regex_enomem(void)
{
    const char *text = "Order 1234 shipped";
    base_alloc_fail_after(0);
    for (unsigned long i = 1; i < 200; i++) {
        base_alloc_fail_after(i);
        base_regex *re = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = base_regex_compile("Order (\\d+)", 11, 0, &re, err);
        int m = 0;
        if (e == BASE_OK)
            e = base_regex_match(re, text, strlen(text), &m, err);
        base_regex_destroy(re);
        unsigned long used = base_alloc_fail_after(0);
        CHECK(e == BASE_OK || e == BASE_ENOMEM);
        if (e == BASE_OK) {
            CHECK_EQ(m, 1);
            if (used < i)
                break; /* every allocation has been failed once */
        }
    }
}

static void num_to_int(void)
{
    int v = 99;
    CHECK_EQ(base_num_to_int(12.7, 0, 100, &v), BASE_OK);
    CHECK_EQ(v, 12);
    CHECK_EQ(base_num_to_int(-0.5, -10, 10, &v), BASE_OK);
    CHECK_EQ(v, 0);
    v = 99;
    CHECK_EQ(base_num_to_int(1e30, INT32_MIN, INT32_MAX, &v), BASE_ETOOBIG);
    CHECK_EQ(base_num_to_int(-1e30, INT32_MIN, INT32_MAX, &v), BASE_ETOOBIG);
    CHECK_EQ(base_num_to_int(2147483648.0, INT32_MIN, INT32_MAX, &v), BASE_ETOOBIG);
    CHECK_EQ(base_num_to_int(NAN, 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(base_num_to_int(INFINITY, 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(base_num_to_int(-INFINITY, 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(base_num_to_int(11, 0, 10, &v), BASE_ETOOBIG);
    CHECK_EQ(v, 99); /* untouched on failure */
    CHECK_EQ(base_num_to_int(2147483647.0, INT32_MIN, INT32_MAX, &v), BASE_OK);
    CHECK_EQ(v, 2147483647);
    CHECK_EQ(base_num_to_int_exact(2.5, 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(base_num_to_int_exact(-3, -10, 10, &v), BASE_OK);
    CHECK_EQ(v, -3);
}

static void num_parse_int(void)
{
    int v = 99;
    CHECK_EQ(base_num_parse_int("4", 0, 100, &v), BASE_OK);
    CHECK_EQ(v, 4);
    CHECK_EQ(base_num_parse_int("  12px", 0, 100, &v), BASE_OK); /* as HTML reads size="12px" */
    CHECK_EQ(v, 12);
    CHECK_EQ(base_num_parse_int("-3", -10, 10, &v), BASE_OK);
    CHECK_EQ(v, -3);
    v = 99;
    /* atol would overflow (undefined) on these; here they are out of range. */
    CHECK_EQ(base_num_parse_int("99999999999999999999999", INT_MIN, INT_MAX, &v), BASE_ETOOBIG);
    CHECK_EQ(base_num_parse_int("-99999999999999999999999", INT_MIN, INT_MAX, &v), BASE_ETOOBIG);
    CHECK_EQ(base_num_parse_int("2147483648", INT_MIN, INT_MAX, &v), BASE_ETOOBIG);
    CHECK_EQ(base_num_parse_int("px", 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(base_num_parse_int("", 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(base_num_parse_int(NULL, 0, 10, &v), BASE_EINVAL);
    CHECK_EQ(v, 99);
    CHECK_EQ(base_num_parse_int("2147483647", INT_MIN, INT_MAX, &v), BASE_OK);
    CHECK_EQ(v, INT_MAX);
}

static void utf8_rules(void)
{
    static const struct {
        const char *s;
        size_t bad_at; /* (size_t)-1: valid */
    } v[] = {
        {"plain ascii", (size_t)-1},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", (size_t)-1},
        {"\xef\xbf\xbf\xf4\x8f\xbf\xbf", (size_t)-1}, /* U+FFFF, U+10FFFF */
        {"a\xff", 1},
        {"a\x80", 1},                 /* lone continuation */
        {"\xc0\xaf", 0},              /* overlong '/' */
        {"\xc1\xbf", 0},              /* overlong */
        {"\xe0\x80\xaf", 0},          /* overlong three-byte */
        {"\xed\xa0\x80", 0},          /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", 0},      /* above U+10FFFF */
        {"\xf5\x80\x80\x80", 0},
        {"ok \xe2\x82", 3},           /* cut at the end */
        {"\xe2\x82x", 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t n = strlen(v[i].s);
        size_t at = base_utf8_check(v[i].s, n);
        CHECK_MSG(at == (v[i].bad_at == (size_t)-1 ? n : v[i].bad_at), "case %zu: %zu", i, at);
        char out[64];
        size_t k = base_utf8_repair(v[i].s, n, out, sizeof out);
        CHECK_EQ(base_utf8_check(out, k), k);
        CHECK_EQ(strlen(out), k);
        if (v[i].bad_at == (size_t)-1)
            CHECK_STR(out, v[i].s);
    }
    char out[16];
    CHECK_EQ(base_utf8_repair("a\xff\xfe", 3, out, sizeof out), 7);
    CHECK_STR(out, "a\xef\xbf\xbd\xef\xbf\xbd");
    /* A full buffer stops before a sequence, never inside one. */
    CHECK_EQ(base_utf8_repair("ab\xe2\x82\xac", 5, out, 4), 2);
    CHECK_STR(out, "ab");
}

/* base_utf8_copy, the bounded copy of page strings into fixed fields
 * (probe and procedural snaps): never half a character at the cut. */
static void utf8_copy(void)
{
    char b[6];
    base_utf8_copy(b, sizeof b, "abcd\xc3\xa9" "f"); /* "abcdéf": é would straddle the cut */
    CHECK_STR(b, "abcd");
    base_utf8_copy(b, sizeof b, "ab\xc3\xa9");
    CHECK_STR(b, "ab\xc3\xa9");
    base_utf8_copy(b, sizeof b, NULL);
    CHECK_STR(b, "");
    char w[16];
    base_utf8_copy(w, sizeof w, "a\xff" "b"); /* a stray byte becomes U+FFFD */
    CHECK_STR(w, "a\xef\xbf\xbd" "b");
}

static const check_case cases[] = {
    {"utf8_copy", utf8_copy},
    {"pcre_syntax", pcre_syntax},
    {"hostile_compile", hostile_compile},
    {"backtracking_limit", backtracking_limit},
    {"total_budget", total_budget},
    {"regex_enomem", regex_enomem},
    {"num_to_int", num_to_int},
    {"num_parse_int", num_parse_int},
    {"utf8_rules", utf8_rules},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
