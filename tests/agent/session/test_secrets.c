/* tests/agent/session/test_secrets.c: the masking facility (agent/session/secrets.h), pure.
 *
 * forms: a secret is masked as typed, case-folded, percent-encoded in any
 *   spelling, with '+' for spaces, and a number-like one in any grouping.
 * bounds: masking never writes past the buffer; non-secrets stay intact.
 * sensitive: which fields hold secrets by their markup.
 * log_filter: base_log lines pass through the set.
 * cut: a secret's prefix where a string was cut (end, ellipsis, quote) is
 *   masked, scrub_copy masks the whole source before cutting, and any URL's
 *   user:password@ is masked.
 * capacity: 2000 secrets (far past the old 64/192 limit) are all masked;
 *   a secret too long to hold is refused, never half held.
 * json: a JSON record's strings are masked at every depth, and a string
 *   that cannot be masked for want of memory is emptied, never kept.
 */
#include "check.h"

#include <cjson/cJSON.h>

#include <fcntl.h>
#include <unistd.h>

#include "agent/session/secrets.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/log.h"

static void scrub_is(agent_secrets *s, const char *in, const char *want, int *bad)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", in);
    agent_secrets_scrub(s, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "  scrub('%s') = '%s', want '%s'\n", in, buf, want);
        (*bad)++;
    }
}

static void forms(void)
{
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    CHECK_OK(agent_secrets_add(s, "p@ss w0rd!"));
    CHECK_OK(agent_secrets_add(s, "4111 1111 1111 1111"));
    CHECK_OK(agent_secrets_add(s, "spring-sale"));
    int bad = 0;
    scrub_is(s, "pw=p@ss w0rd! ok", "pw=******** ok", &bad);
    scrub_is(s, "?pass=p%40ss+w0rd%21&x=1", "?pass=********&x=1", &bad);
    scrub_is(s, "?pass=p%40ss%20w0rd!&x=1", "?pass=********&x=1", &bad);
    scrub_is(s, "p%40ss%20w0rd%21", "********", &bad);
    scrub_is(s, "P@SS W0RD!", "********", &bad);
    scrub_is(s, "card 4111111111111111.", "card ********.", &bad);
    scrub_is(s, "card=4111+1111+1111+1111&", "card=********&", &bad);
    scrub_is(s, "4111-1111-1111-1111", "********", &bad);
    scrub_is(s, "4111%201111%201111%201111", "********", &bad);
    scrub_is(s, "promo: SPRING-SALE", "promo: ********", &bad);
    scrub_is(s, "Spring-Sale twice spring-sale", "Spring-Sale twice ********", &bad);
    /* Not the secret: a prefix, other digits, plain words. */
    scrub_is(s, "p@ss word", "p@ss word", &bad);
    scrub_is(s, "4111 1111 1111 left", "4111 1111 1111 left", &bad);
    scrub_is(s, "p@ss is short", "p@ss is short", &bad);
    scrub_is(s, "passport 42", "passport 42", &bad);
    agent_secrets_destroy(s);
    CHECK_EQ(bad, 0);
}

static void bounds(void)
{
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    CHECK_EQ(agent_secrets_count(s), 0);
    CHECK_OK(agent_secrets_add(s, "ab1"));
    CHECK_OK(agent_secrets_add(s, ""));
    CHECK_OK(agent_secrets_add(s, NULL));
    CHECK_EQ(agent_secrets_count(s), 2); /* ab1 and AB1 (the lower-case form is ab1) */
    char tiny[6] = "xab1y";
    agent_secrets_scrub(s, tiny, sizeof tiny);
    CHECK_MSG(strcmp(tiny, "x****") == 0, "tiny: '%s'", tiny);
    char exact[12] = "ab1ab1ab1";
    agent_secrets_scrub(s, exact, sizeof exact);
    /* Three masks do not fit: the tail is cut, the masks are not. */
    CHECK_MSG(strcmp(exact, "***********") == 0, "exact: '%s'", exact);
    agent_secrets_scrub(NULL, exact, sizeof exact);
    agent_secrets_scrub(s, NULL, 0);
    agent_secrets_destroy(s);
    agent_secrets_destroy(NULL);
}

static void sensitive(void)
{
    CHECK(agent_field_sensitive("password", NULL));
    CHECK(agent_field_sensitive("PASSWORD", ""));
    CHECK(agent_field_sensitive("text", "cc-number"));
    CHECK(agent_field_sensitive("text", "section-pay billing cc-csc"));
    CHECK(agent_field_sensitive("tel", "one-time-code"));
    CHECK(agent_field_sensitive(NULL, "new-password"));
    CHECK(agent_field_sensitive("text", "current-password"));
    CHECK(!agent_field_sensitive("text", "username"));
    CHECK(!agent_field_sensitive("email", "email"));
    CHECK(!agent_field_sensitive(NULL, NULL));
    CHECK(!agent_field_sensitive("text", "xcc-number"));
}

static void log_filter(void)
{
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    CHECK_OK(agent_secrets_add(s, "hunter2"));
    const char *path = FOVEA_BINARY_DIR "/tests/agent/session/secrets_log.txt";
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    int saved = dup(2);
    dup2(fd, 2);
    close(fd);
    base_log_set_filter(agent_secrets_log_filter, s);
    base_log(BASE_LOG_AGENT, BASE_LOG_ERROR, "typed hunter2 into %s", "Password");
    base_log_set_filter(NULL, NULL);
    base_log(BASE_LOG_AGENT, BASE_LOG_ERROR, "after: %s", "plain");
    dup2(saved, 2);
    close(saved);
    agent_secrets_destroy(s);
    uint8_t *d = NULL;
    size_t n = 0;
    CHECK_OK(base_read_file(path, &d, &n, 1 << 16, NULL));
    char *text = (char *)d;
    int leaked = strstr(text, "hunter2") != NULL;
    int masked = strstr(text, "typed ******** into Password") != NULL;
    int after = strstr(text, "after: plain") != NULL;
    base_free(d);
    CHECK(!leaked);
    CHECK(masked);
    CHECK(after);
}

static void cut(void)
{
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    CHECK_OK(agent_secrets_add(s, "Hunter2&Zebra!"));
    CHECK_OK(agent_secrets_add(s, "4111111111111111"));
    int bad = 0;
    scrub_is(s, "[V4] Continue as Hunte", "[V4] Continue as ********", &bad);
    scrub_is(s, "clicked 'as Hunter2&Z' at (1,2)", "clicked 'as ********' at (1,2)", &bad);
    scrub_is(s, "text as Hunter2&Z\xe2\x80\xa6 more", "text as ********\xe2\x80\xa6 more", &bad);
    scrub_is(s, "pw=Hunter2%26Ze...", "pw=********...", &bad);
    scrub_is(s, "card 4111 1111 11", "card ********", &bad);
    scrub_is(s, "the Hunter is here", "the Hunter is here", &bad);
    scrub_is(s, "GET http://bob:PASSW0RDX@127.0.0.1:1/v1 failed",
             "GET http://bob:********@127.0.0.1:1/v1 failed", &bad);
    scrub_is(s, "http://127.0.0.1/a?b=c:d@e", "http://127.0.0.1/a?b=c:d@e", &bad);
    /* scrub_copy: the whole source is masked before the cut, whatever the
     * cut leaves (here "Hun", shorter than the prefix rule's 4). */
    char small[22];
    CHECK_OK(agent_secrets_scrub_copy(s, small, sizeof small, "see the Hunter2&Zebra! x"));
    CHECK_MSG(strstr(small, "Hun") == NULL, "scrub_copy: '%s'", small);
    char tiny[12];
    CHECK_OK(agent_secrets_scrub_copy(s, tiny, sizeof tiny, "abcdefgh Hunter2&Zebra!"));
    CHECK_MSG(strstr(tiny, "Hu") == NULL && strncmp(tiny, "abcdefgh ", 9) == 0, "tiny: '%s'",
              tiny);
    CHECK_EQ(agent_secrets_scrub_copy(s, NULL, 4, "x"), BASE_EINVAL);
    agent_secrets_destroy(s);
    CHECK_EQ(bad, 0);
}

static void capacity(void)
{
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    char v[32];
    for (int i = 0; i < 2000; i++) {
        snprintf(v, sizeof v, "Pw%dAbcXyz", i);
        CHECK_OK(agent_secrets_add(s, v));
    }
    CHECK_EQ(agent_secrets_count(s), 6000);
    int bad = 0;
    scrub_is(s, "x Pw64AbcXyz Pw65AbcXyz Pw1999AbcXyz y", "x ******** ******** ******** y", &bad);
    CHECK_EQ(bad, 0);
    /* A secret too long to hold is refused; the set still works. */
    size_t n = 70000;
    char *big = base_malloc(n + 1);
    CHECK(big != NULL);
    memset(big, 'k', n);
    big[n] = '\0';
    CHECK_EQ(agent_secrets_add(s, big), BASE_ETOOBIG);
    CHECK_EQ(agent_secrets_count(s), 6000);
    /* 5000 bytes (over the old 4096 limit) is held and masked. */
    big[5000] = '\0';
    CHECK_OK(agent_secrets_add(s, big));
    char *buf = base_malloc(6000);
    CHECK(buf != NULL);
    snprintf(buf, 6000, "a %s b", big);
    agent_secrets_scrub(s, buf, 6000);
    CHECK_MSG(strcmp(buf, "a ******** b") == 0, "long secret: %.40s", buf);
    base_free(buf);
    base_free(big);
    agent_secrets_destroy(s);
}

/* A JSON record's strings are masked at every depth; when an allocation
 * fails the string is emptied, never left with the secret (each
 * allocation of the walk failing in turn). */
static void json(void)
{
    agent_secrets *s = NULL;
    CHECK_OK(agent_secrets_create(&s, NULL));
    CHECK_OK(agent_secrets_add(s, "hunter2-xyz"));
    const char *text = "{\"a\": \"pw hunter2-xyz\", \"b\": [\"x\", {\"c\": \"HUNTER2-XYZ!\"}], "
                       "\"d\": 3, \"e\": \"plain\"}";
    cJSON *j = cJSON_Parse(text);
    CHECK_OK(agent_secrets_scrub_json(s, j));
    char *out = cJSON_PrintUnformatted(j);
    CHECK_STR(out, "{\"a\":\"pw ********\",\"b\":[\"x\",{\"c\":\"********!\"}],\"d\":3,"
                   "\"e\":\"plain\"}");
    cJSON_free(out);
    cJSON_Delete(j);
    int failed_runs = 0;
    for (unsigned long n = 1; n < 200; n++) {
        j = cJSON_Parse(text);
        base_alloc_fail_after(n);
        base_err e = agent_secrets_scrub_json(s, j);
        unsigned long used = base_alloc_fail_after(0);
        out = cJSON_PrintUnformatted(j);
        CHECK_MSG(out && !strstr(out, "hunter2") && !strstr(out, "HUNTER2"), "n=%lu: %s", n,
                  out ? out : "");
        cJSON_free(out);
        cJSON_Delete(j);
        if (e == BASE_ENOMEM)
            failed_runs++;
        if (used < n) /* the walk made fewer than n allocations: all covered */
            break;
    }
    CHECK(failed_runs > 0);
    CHECK_OK(agent_secrets_scrub_json(NULL, NULL));
    agent_secrets_destroy(s);
}

static const check_case cases[] = {
    {"forms", forms},           {"bounds", bounds}, {"sensitive", sensitive},
    {"log_filter", log_filter}, {"cut", cut},       {"capacity", capacity},
    {"json", json},             {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
