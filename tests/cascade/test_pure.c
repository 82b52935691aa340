/* tests/cascade/test_pure.c: the hand's parts that need no browser: the
 * learnings store (crash safety under SIGKILL mid-write, corrupt files, best
 * tier) and the text-fix pre-pass. */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "cascade/cascade.h"
#include "check.h"

static void tmp_path(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "%s/hand-%s-%d.json", FOVEA_BINARY_DIR, tag, (int)getpid());
}

static void learnings_basics(void)
{
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "basic");
    unlink(path);
    cascade_learnings *l = NULL;
    CHECK_OK(cascade_learnings_open(path, &l, err));
    CHECK_EQ(cascade_learnings_best_tier(l, "example.com"), 0);
    CHECK_OK(cascade_learnings_record(l, "example.com", 2, err));
    CHECK_OK(cascade_learnings_record(l, "example.com", 2, err));
    CHECK_OK(cascade_learnings_record(l, "example.com", 1, err));
    CHECK_OK(cascade_learnings_record(l, "example.com", 0, err));
    CHECK_OK(cascade_learnings_set_bot_protected(l, "shop.test", 1, err));
    cascade_learnings_close(l);
    /* A new process (here: a new store) sees the same. */
    CHECK_OK(cascade_learnings_open(path, &l, err));
    CHECK_EQ(cascade_learnings_best_tier(l, "example.com"), 2);
    CHECK(!cascade_learnings_bot_protected(l, "example.com"));
    CHECK(cascade_learnings_bot_protected(l, "shop.test"));
    CHECK_EQ(cascade_learnings_record(l, "", 1, err), BASE_EINVAL);
    CHECK_EQ(cascade_learnings_record(l, "x", 4, NULL), BASE_EINVAL);
    cascade_learnings_close(l);
    /* Not our file: a clear error naming it. */
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("{\"domains\": [1, 2]}", f);
    fclose(f);
    err[0] = '\0';
    CHECK_EQ(cascade_learnings_open(path, &l, err), BASE_EDECODE);
    CHECK(strstr(err, path));
    f = fopen(path, "w");
    fputs("{\"version\":1,\"domains\":{\"a\":{\"wins\":[1,2", f);
    fclose(f);
    CHECK_EQ(cascade_learnings_open(path, &l, NULL), BASE_EDECODE);
    CHECK_EQ(cascade_learnings_open(NULL, &l, NULL), BASE_EINVAL);
    /* A 0-byte file (`touch FILE` before sharing the path) is an empty
     * store, and the first record fills it. */
    f = fopen(path, "w");
    CHECK(f);
    fclose(f);
    err[0] = '\0';
    CHECK_MSG(cascade_learnings_open(path, &l, err) == BASE_OK, "empty file: %s", err);
    CHECK_EQ(cascade_learnings_best_tier(l, "example.com"), 0);
    CHECK_OK(cascade_learnings_record(l, "example.com", 1, err));
    cascade_learnings_close(l);
    CHECK_OK(cascade_learnings_open(path, &l, err));
    CHECK_EQ(cascade_learnings_best_tier(l, "example.com"), 1);
    cascade_learnings_close(l);
    unlink(path);
    cascade_learnings_close(NULL);
}

/* A child rewrites the store in a tight loop (each version bigger than the
 * last); the parent kills it with SIGKILL at a random moment, then the file
 * must load, be valid JSON, and hold a version no older than it was. */
static void learnings_survive_kill(void)
{
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "kill");
    unlink(path);
    cascade_learnings *l = NULL;
    CHECK_OK(cascade_learnings_open(path, &l, err));
    CHECK_OK(cascade_learnings_record(l, "seed.test", 1, err));
    cascade_learnings_close(l);
    int last_domains = 1;
    for (int round = 0; round < 12; round++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            cascade_learnings *c = NULL;
            if (cascade_learnings_open(path, &c, NULL))
                _exit(2);
            for (int i = 0;; i++) {
                char dom[64];
                snprintf(dom, sizeof dom, "r%d-d%d.example", round, i);
                if (cascade_learnings_record(c, dom, 1 + i % 3, NULL))
                    _exit(3);
            }
        }
        base_sleep_ms(5 + (round * 7) % 23);
        kill(pid, SIGKILL);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        CHECK_MSG(WIFSIGNALED(st), "child exited by itself (status %d)", st);
        uint8_t *text = NULL;
        size_t n = 0;
        CHECK_OK(base_read_file(path, &text, &n, 4 << 20, NULL));
        cJSON *j = cJSON_Parse((const char *)text);
        base_free(text);
        CHECK_MSG(j != NULL, "round %d: torn file (%zu bytes)", round, n);
        int doms = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "domains"));
        cJSON_Delete(j);
        CHECK_MSG(doms >= last_domains, "round %d: went back from %d to %d domains", round,
                  last_domains, doms);
        last_domains = doms;
        CHECK_OK(cascade_learnings_open(path, &l, err));
        CHECK_EQ(cascade_learnings_best_tier(l, "seed.test"), 1);
        cascade_learnings_close(l);
        /* The killed writer may leave its temporary file; never the store. */
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)pid);
        unlink(tmp);
    }
    CHECK_MSG(last_domains > 1, "the children never got a write through");
    unlink(path);
}

static void text_fix(void)
{
    struct {
        const char *text, *type, *pattern, *placeholder, *want;
        int changed;
    } cases[] = {
        {"2026-04-23", NULL, NULL, "MM/DD/YYYY", "04/23/2026", 1},
        {"2026-04-23", "text", NULL, "dd.mm.yyyy", "23.04.2026", 1},
        {"04/23/2026", "date", NULL, NULL, "2026-04-23", 1},
        {"April 23, 2026", "date", NULL, NULL, "2026-04-23", 1},
        {"23 Apr 2026", NULL, NULL, "YYYY-MM-DD", "2026-04-23", 1},
        {"2026-04-23", NULL, "\\d{2}/\\d{2}/\\d{4}", NULL, "04/23/2026", 1},
        {"2026-04-23", NULL, NULL, "mm/dd/yy", "04/23/26", 1},
        {"2026-02-30", NULL, NULL, "MM/DD/YYYY", "2026-02-30", 0}, /* not a date */
        {"2026-04-23", NULL, NULL, NULL, "2026-04-23", 0},         /* field says nothing */
        {"$1,234.50", "number", NULL, NULL, "1234.50", 1},
        {"1.234,50 €", "number", NULL, NULL, "1234.50", 1},
        {"-12", "number", NULL, NULL, "-12", 0},
        {"1,234", "number", NULL, NULL, "1234", 1},
        {"$12", "text", NULL, "$0.00", "12.00", 1},
        {"(555) 123-4567", "tel", "\\d*", NULL, "5551234567", 1},
        {"call me", "tel", "\\d*", NULL, "call me", 0},
        {"hello", "number", NULL, NULL, "hello", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64], note[64];
        int r = cascade_text_fix(cases[i].text, cases[i].type, cases[i].pattern,
                                 cases[i].placeholder, out, sizeof out, note, sizeof note);
        CHECK_MSG(r == cases[i].changed && strcmp(out, cases[i].want) == 0,
                  "case %zu: \"%s\" -> \"%s\" (%d), want \"%s\"", i, cases[i].text, out, r,
                  cases[i].want);
        CHECK(r == 0 || note[0]);
    }
    char small[4];
    CHECK_EQ(cascade_text_fix("2026-04-23", "date", NULL, NULL, small, sizeof small, NULL, 0), -1);
    CHECK_EQ(cascade_text_fix("x", NULL, NULL, NULL, NULL, 0, NULL, 0), -1);
}

/* wins[tier-1] of domain in the file at path, read raw (-1 when absent). */
static double file_wins(const char *path, const char *domain, int tier)
{
    uint8_t *d = NULL;
    size_t n = 0;
    if (base_read_file(path, &d, &n, 1u << 20, NULL) != BASE_OK)
        return -1;
    cJSON *j = cJSON_ParseWithLength((const char *)d, n);
    base_free(d);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(j, "domains"), domain);
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "wins"), tier - 1);
    double r = cJSON_IsNumber(v) ? v->valuedouble : -1;
    cJSON_Delete(j);
    return r;
}

/* Three processes share one file, each opened before any writes (as
 * parallel runs are) and each recording 10 tier-2 wins and i+1 tier-1 wins;
 * one marks a domain bot-protected. Without locking and merging, each
 * write replaced the others' (10 + 10 + 10 ended as 21). */
static void learnings_shared(void)
{
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "shared");
    unlink(path);
    int go[2];
    CHECK(pipe(go) == 0);
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        CHECK(kids[i] >= 0);
        if (kids[i] == 0) {
            close(go[1]);
            cascade_learnings *l = NULL;
            int bad = cascade_learnings_open(path, &l, err) != BASE_OK;
            char c;
            /* Start together: the parent closes the pipe once all exist. */
            while (read(go[0], &c, 1) > 0) {
            }
            for (int k = 0; k < 10 && !bad; k++) {
                bad |= cascade_learnings_record(l, "shop.example", 2, err) != BASE_OK;
                if (k <= i)
                    bad |= cascade_learnings_record(l, "shop.example", 1, err) != BASE_OK;
            }
            if (i == 1)
                bad |= cascade_learnings_set_bot_protected(l, "shop.example", 1, err) != BASE_OK;
            if (bad)
                fprintf(stderr, "child %d: %s\n", i, err);
            cascade_learnings_close(l);
            _exit(bad);
        }
    }
    close(go[0]);
    close(go[1]);
    for (int i = 0; i < 3; i++) {
        int st = 0;
        CHECK(waitpid(kids[i], &st, 0) == kids[i]);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: 0x%x", i, st);
    }
    CHECK_EQ(file_wins(path, "shop.example", 2), 30);
    CHECK_EQ(file_wins(path, "shop.example", 1), 1 + 2 + 3);
    cascade_learnings *l = NULL;
    CHECK_OK(cascade_learnings_open(path, &l, err));
    CHECK(cascade_learnings_bot_protected(l, "shop.example"));
    cascade_learnings_close(l);
    unlink(path);
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
}

/* A symlinked learnings file is written through the link (the link stays a
 * link) and keeps its mode; a dangling link gets its target created. */
static void learnings_symlink_mode(void)
{
    char dir[512], real[600], link[600], err[256] = "";
    snprintf(dir, sizeof dir, "%s/hand-link-%d", FOVEA_BINARY_DIR, (int)getpid());
    CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
    snprintf(real, sizeof real, "%s/real.json", dir);
    snprintf(link, sizeof link, "%s/link.json", dir);
    unlink(real);
    unlink(link);
    FILE *f = fopen(real, "w");
    CHECK(f);
    fputs("{\"version\":1,\"domains\":{}}", f);
    fclose(f);
    CHECK(chmod(real, 0600) == 0);
    CHECK(symlink("real.json", link) == 0);
    cascade_learnings *l = NULL;
    CHECK_OK(cascade_learnings_open(link, &l, err));
    CHECK_OK(cascade_learnings_record(l, "a.example", 3, err));
    cascade_learnings_close(l);
    struct stat st;
    CHECK(lstat(link, &st) == 0);
    CHECK_MSG(S_ISLNK(st.st_mode), "the link was replaced by a regular file");
    CHECK(stat(real, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    CHECK_EQ(file_wins(real, "a.example", 3), 1);
    /* Dangling: the target is created, the link stays. */
    char fresh[600];
    snprintf(fresh, sizeof fresh, "%s/fresh.json", dir);
    unlink(fresh);
    unlink(link);
    CHECK(symlink("fresh.json", link) == 0);
    CHECK_OK(cascade_learnings_open(link, &l, err));
    CHECK_OK(cascade_learnings_record(l, "b.example", 1, err));
    cascade_learnings_close(l);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_EQ(file_wins(fresh, "b.example", 1), 1);
    char lock[700];
    unlink(link);
    unlink(real);
    unlink(fresh);
    snprintf(lock, sizeof lock, "%s.lock", real);
    unlink(lock);
    snprintf(lock, sizeof lock, "%s.lock", fresh);
    unlink(lock);
    rmdir(dir);
}

/* A learnings path that cannot be read is a clear error naming it (a
 * directory here, since root reads a mode-000 file; both when not root). */
static void learnings_unreadable(void)
{
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "unreadable");
    CHECK(mkdir(path, 0700) == 0 || errno == EEXIST);
    cascade_learnings *l = NULL;
    base_err e = cascade_learnings_open(path, &l, err);
    rmdir(path);
    CHECK(e != BASE_OK && l == NULL);
    CHECK_MSG(strstr(err, "learnings: cannot read") && strstr(err, path), "%s", err);
    if (geteuid() != 0) {
        FILE *f = fopen(path, "w");
        CHECK(f);
        fputs("{}", f);
        fclose(f);
        chmod(path, 0);
        err[0] = '\0';
        e = cascade_learnings_open(path, &l, err);
        unlink(path);
        CHECK_EQ(e, BASE_EIO);
        CHECK_MSG(strstr(err, "Permission denied"), "%s", err);
    }
}

/* One name per effect bit, none for other bits: the tool layer, fovea
 * snap and the trace print effects through cascade_effect_name, so a bit
 * added without a name (or a name given twice) shows up here. */
static void effect_names(void)
{
    const char *seen[32] = {0};
    int named = 0;
    for (unsigned i = 0; i < 32; i++) {
        const char *n = cascade_effect_name(1u << i);
        if (i <= 10)
            CHECK_MSG(n && n[0], "effect bit %u has no name", i);
        else
            CHECK_MSG(n == NULL, "bit %u is no effect but is named %s", i, n);
        for (unsigned j = 0; n && j < i; j++)
            CHECK_MSG(!seen[j] || strcmp(seen[j], n) != 0, "bits %u and %u are both %s", j, i, n);
        seen[i] = n;
        named += n != NULL;
    }
    CHECK_EQ(named, 11);
    CHECK_STR(cascade_effect_name(CASCADE_FX_SHOWN), "shown");
    CHECK_STR(cascade_effect_name(CASCADE_FX_NEW_TAB), "new_tab");
    CHECK(cascade_effect_name(CASCADE_FX_URL | CASCADE_FX_VALUE) == NULL);
    CHECK(cascade_effect_name(0) == NULL);
}

static const check_case cases[] = {
    {"effect_names", effect_names},
    {"learnings_basics", learnings_basics},
    {"learnings_survive_kill", learnings_survive_kill},
    {"learnings_shared", learnings_shared},
    {"learnings_symlink_mode", learnings_symlink_mode},
    {"learnings_unreadable", learnings_unreadable},
    {"text_fix", text_fix},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
