/* tests/cascade/test_hand_oom.c: allocation failures injected into the hand's
 * JSON-building paths (base_alloc_fail_after; cJSON allocates through
 * base_malloc, base/json_alloc.h). Every allocation of a path is failed in
 * turn: the result must be a clean BASE_ENOMEM (or success), never a crash,
 * a leak (ASan's leak check at exit), a partial CDP command or a damaged
 * file. No browser: these paths build JSON before anything is sent. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/fs.h"
#include "cascade/cascade.h"
#include "cascade/cascade_int.h"
#include "check.h"

/* A mouse event's params are complete or absent: a press that lost its
 * button or position would be another action. */
static void mouse_params_oom(void)
{
    const char *types[] = {"mouseMoved", "mousePressed", "mouseReleased"};
    for (int t = 0; t < 3; t++) {
        base_alloc_fail_after(0);
        cJSON *full = cascade__mouse_params(types[t], (base_point){12.5f, 40}, 1);
        unsigned long total = base_alloc_fail_after(0);
        CHECK(full != NULL);
        int members = cJSON_GetArraySize(full);
        CHECK(members >= 6);
        cJSON_Delete(full);
        CHECK(total >= (unsigned long)members);
        for (unsigned long k = 1; k <= total; k++) {
            base_alloc_fail_after(k);
            cJSON *pa = cascade__mouse_params(types[t], (base_point){12.5f, 40}, 1);
            base_alloc_fail_after(0);
            CHECK_MSG(pa == NULL || cJSON_GetArraySize(pa) == members,
                      "%s, allocation %lu: %d of %d members", types[t], k,
                      pa ? cJSON_GetArraySize(pa) : 0, members);
            CHECK_MSG(pa == NULL, "%s, allocation %lu failed unnoticed", types[t], k);
        }
    }
}

/* The effect wait's argument is complete or absent: a wait that lost its
 * baseline (muts, url, the target's state) would take the page's own
 * changes for the press's effect. */
static void effect_arg_oom(void)
{
    cJSON *state = cJSON_Parse("{\"checked\":false,\"value\":\"abc\",\"open\":[1,2]}");
    CHECK(state != NULL);
    cascade__watch w = {.fid = "", .xpath = "/html/body/button[1]", .muts = 17,
                        .url = "https://example.test/a", .state = state, .press = 1,
                        .text0 = 42};
    base_alloc_fail_after(0);
    cJSON *full = cascade__effect_arg(&w, 100);
    unsigned long total = base_alloc_fail_after(0);
    CHECK(full != NULL);
    int members = cJSON_GetArraySize(full);
    CHECK_EQ(members, 7);
    char *want = cJSON_PrintUnformatted(full);
    cJSON_Delete(full);
    CHECK(total > 10);
    for (unsigned long k = 1; k <= total; k++) {
        base_alloc_fail_after(k);
        cJSON *a = cascade__effect_arg(&w, 100);
        base_alloc_fail_after(0);
        char *got = a ? cJSON_PrintUnformatted(a) : NULL;
        CHECK_MSG(a == NULL || (got && strcmp(got, want) == 0), "allocation %lu: partial %s", k,
                  got ? got : "?");
        CHECK_MSG(a == NULL, "allocation %lu failed unnoticed", k);
        cJSON_free(got);
        cJSON_Delete(a);
    }
    cJSON_free(want);
    cJSON_Delete(state);
}

static const char *START = "{\"version\":1,\"domains\":{\"a.com\":{\"wins\":[2,0,5],\"fails\":1,"
                           "\"bot_protected\":false}}}";

/* wins[i] and fails of domain d in the file at path; -1 when absent. */
static void read_counts(const char *path, const char *d, double wins[3], double *fails, int *bot)
{
    uint8_t *text = NULL;
    size_t n = 0;
    wins[0] = wins[1] = wins[2] = *fails = -1;
    *bot = -1;
    if (base_read_file(path, &text, &n, 1 << 20, NULL))
        return;
    cJSON *r = cJSON_ParseWithLength((const char *)text, n);
    base_free(text);
    const cJSON *e =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "domains"), d);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "wins");
    for (int i = 0; i < 3 && cJSON_GetArraySize(w) == 3; i++)
        wins[i] = cJSON_GetArrayItem(w, i)->valuedouble;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "fails");
    if (cJSON_IsNumber(f))
        *fails = f->valuedouble;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "bot_protected");
    if (b)
        *bot = cJSON_IsTrue(b);
    cJSON_Delete(r);
}

/* One session of the learnings store; results in rc[4] (open, record,
 * record a failure, bot flag), -1 for calls not made. */
static void session(const char *path, base_err rc[4])
{
    rc[0] = rc[1] = rc[2] = rc[3] = (base_err)-1;
    cascade_learnings *l = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    rc[0] = cascade_learnings_open(path, &l, err);
    if (rc[0])
        return;
    rc[1] = cascade_learnings_record(l, "a.com", 1, err);
    rc[2] = cascade_learnings_record(l, "b.org", 0, err);
    rc[3] = cascade_learnings_set_bot_protected(l, "a.com", 1, err);
    cascade_learnings_close(l);
}

/* The learnings store under every single allocation failure: each call
 * is OK or BASE_ENOMEM, the file stays valid learnings JSON, a call that
 * said OK is in it, and nothing is counted twice. */
static void learnings_oom(void)
{
    char dir[] = "/tmp/fovea_oom_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], lock[140];
    snprintf(path, sizeof path, "%s/learn.json", dir);
    snprintf(lock, sizeof lock, "%s.lock", path);
    CHECK_OK(base_write_file(path, (const uint8_t *)START, strlen(START), NULL));
    base_err rc[4];
    base_alloc_fail_after(0);
    session(path, rc);
    unsigned long total = base_alloc_fail_after(0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(rc[i], BASE_OK);
    CHECK(total > 20);
    int saw_enomem = 0;
    for (unsigned long k = 1; k <= total; k++) {
        CHECK_OK(base_write_file(path, (const uint8_t *)START, strlen(START), NULL));
        base_alloc_fail_after(k);
        session(path, rc);
        base_alloc_fail_after(0);
        for (int i = 0; i < 4; i++) {
            CHECK_MSG(rc[i] == BASE_OK || rc[i] == BASE_ENOMEM || rc[i] == (base_err)-1,
                      "allocation %lu: call %d gave %s", k, i, base_strerror(rc[i]));
            saw_enomem |= rc[i] == BASE_ENOMEM;
        }
        /* Still a learnings file, openable as one. */
        cascade_learnings *l = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK_MSG(cascade_learnings_open(path, &l, err) == BASE_OK, "allocation %lu: %s", k, err);
        cascade_learnings_close(l);
        double w[3], fails;
        int bot;
        read_counts(path, "a.com", w, &fails, &bot);
        CHECK_NEAR(w[2], 5, 0);
        CHECK_MSG(w[0] == 2 || w[0] == 3, "allocation %lu: a.com wins[0] = %g", k, w[0]);
        if (rc[1] == BASE_OK)
            CHECK_NEAR(w[0], 3, 0);
        if (rc[3] == BASE_OK)
            CHECK_MSG(bot == 1, "allocation %lu: bot flag %d after OK", k, bot);
        read_counts(path, "b.org", w, &fails, &bot);
        /* A failed record may leave the domain's entry with zero counts:
         * harmless, it counts nothing. */
        CHECK_MSG(fails == -1 || fails == 0 || fails == 1, "allocation %lu: b.org fails = %g", k,
                  fails);
        if (rc[2] == BASE_OK)
            CHECK_NEAR(fails, 1, 0);
    }
    CHECK(saw_enomem);
    unlink(path);
    unlink(lock);
    rmdir(dir);
}

static const check_case cases[] = {{"mouse_params_oom", mouse_params_oom},
                                   {"learnings_oom", learnings_oom},
                                   {"effect_arg_oom", effect_arg_oom},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
