/* tests/tools/test_cmd_bench.c: `fovea bench steps` on the demo site.
 *
 * json: `fovea bench steps --n 3 --json` must print one JSON object with a
 * median and p90 for every stage (capture, decode, fingerprint, vision,
 * gate, overlay, snap, motion, dispatch, settle, other, total), 3 step rows
 * whose stages add up to the step's total, and real work measured (no
 * timing assertion beyond "a click took some time").
 * usage: bad options and tasks with nothing to time exit 2 with a message.
 * overlays: `fovea run --overlays failures` on a passing task writes no
 * overlay; `--overlays nope` is a usage error.
 * procedural: `--procedural epoch` takes the vision epoch's element on every
 * procedural step of the bench task (some, none falling back), `--procedural
 * snapper` on none; a bad mode is a usage error.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <sys/wait.h>

#include "base/alloc.h"
#include "base/fs.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define OUT FOVEA_BINARY_DIR "/tests/tools/out"

/* Runs `fovea ARGS`, stdout into *out and stderr into *errs (malloc'd, NUL
 * terminated); returns the exit status or -1. */
static int run(const char *args, char **out, char **errs)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && '%s' %s > '%s/stdout' 2> '%s/stderr'", OUT, FOVEA,
             args, OUT, OUT);
    int st = system(cmd);
    const char *names[2] = {"stdout", "stderr"};
    char **dst[2] = {out, errs};
    for (int k = 0; k < 2; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", OUT, names[k]);
        uint8_t *buf = NULL;
        size_t n = 0;
        if (base_read_file(path, &buf, &n, 1u << 20, NULL) != BASE_OK)
            buf = (uint8_t *)base_strdup("");
        *dst[k] = (char *)buf;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *const stages[] = {"capture", "decode", "fingerprint", "vision",
                                     "gate",    "overlay", "snap",       "motion",
                                     "dispatch", "settle",  "other",     "total"};
#define NSTAGES (int)(sizeof stages / sizeof stages[0])

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void json(void)
{
    char *out = NULL, *errs = NULL;
    int st = run("bench steps --n 3 --json --task '" FOVEA_SOURCE_DIR
                 "/assets/tasks/bench.json' --site '" FOVEA_SOURCE_DIR
                 "/assets/site' --out '" OUT "/bench'",
                 &out, &errs);
    if (st != 0)
        fprintf(stderr, "stderr: %s\n", errs ? errs : "");
    cJSON *j = st == 0 && out ? cJSON_Parse(out) : NULL;
    base_free(out);
    base_free(errs);
    CHECK_MSG(st == 0, "fovea bench steps exited %d", st);
    CHECK_MSG(j != NULL, "stdout is not one JSON object");
    CHECK_EQ((int)num(j, "n"), 3);
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "vision")), "dom") == 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "humanize")));
    const cJSON *sg = cJSON_GetObjectItemCaseSensitive(j, "stages");
    int bad = -1;
    for (int k = 0; k < NSTAGES && bad < 0; k++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(sg, stages[k]);
        double m = num(o, "median"), p = num(o, "p90");
        if (!isfinite(m) || !isfinite(p) || m < 0 || p < m)
            bad = k;
    }
    if (bad >= 0)
        cJSON_Delete(j);
    CHECK_MSG(bad < 0, "stage %s has no median/p90 numbers (or p90 < median)",
              bad >= 0 ? stages[bad] : "");
    double total = num(cJSON_GetObjectItemCaseSensitive(sg, "total"), "median");
    double dispatch = num(cJSON_GetObjectItemCaseSensitive(sg, "dispatch"), "median");
    double overlay = num(cJSON_GetObjectItemCaseSensitive(sg, "overlay"), "p90");
    /* Each row's on-path stages add up to its total. */
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(j, "steps");
    int nrows = cJSON_GetArraySize(rows), sums = 1;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(row, "ms");
        double sum = num(ms, "gate") + num(ms, "overlay") + num(ms, "snap") + num(ms, "motion") +
                     num(ms, "dispatch") + num(ms, "settle") + num(ms, "other");
        if (!(fabs(sum - num(ms, "total")) < 0.1))
            sums = 0;
    }
    cJSON_Delete(j);
    CHECK_EQ(nrows, 3);
    CHECK_MSG(sums, "a step's stages do not add up to its total");
    CHECK_MSG(total > 0 && dispatch > 0, "no time measured: total %.2f, dispatch %.2f", total,
              dispatch);
    CHECK_MSG(overlay == 0, "the bench drew overlays (p90 %.1f ms)", overlay);
}

static void expect_usage(const char *args, const char *needle)
{
    char *out = NULL, *errs = NULL;
    int st = run(args, &out, &errs);
    int says = errs && strstr(errs, needle) != NULL;
    if (!says)
        fprintf(stderr, "fovea %s\nstderr: %s\n", args, errs ? errs : "");
    base_free(out);
    base_free(errs);
    CHECK_MSG(st == 2, "fovea %s exited %d, want 2", args, st);
    CHECK_MSG(says, "fovea %s: stderr does not say '%s'", args, needle);
}

static void usage(void)
{
    expect_usage("bench steps --n 0", "--n must be an integer");
    expect_usage("bench steps --overlays some", "--overlays must be all, failures or none");
    expect_usage("bench steps --vision eyes", "--vision must be dom, openai, pixel or pixel-dom");
    expect_usage("bench steps --task /nonexistent/task.json", "task.json");
    expect_usage("bench steps --think -5", "--think must be an integer");
    /* One step and one warm-up step: nothing left to time. */
    FILE *f = fopen(OUT "/one.json", "w");
    CHECK(f != NULL);
    fputs("{\"url\": \"/index.html\", \"steps\": "
          "[{\"action\": \"click\", \"target\": \"Go\"}]}",
          f);
    fclose(f);
    expect_usage("bench steps --task '" OUT "/one.json' --site /tmp", "nothing left to time");
    expect_usage("run x.json --overlays nope", "--overlays must be all, failures or none");
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return d ? n : -1;
}

static void overlays(void)
{
    char *out = NULL, *errs = NULL;
    int st = run("run '" FOVEA_SOURCE_DIR "/assets/tasks/bench.json' --site '" FOVEA_SOURCE_DIR
                 "/assets/site' --no-humanize --overlays failures --out '" OUT "/run'",
                 &out, &errs);
    int passed = out && strstr(out, "passed: 9/9 steps");
    if (!passed)
        fprintf(stderr, "stdout: %s\nstderr: %s\n", out ? out : "", errs ? errs : "");
    base_free(out);
    base_free(errs);
    CHECK_MSG(st == 0 && passed, "fovea run bench.json exited %d", st);
    CHECK_EQ(count_files(OUT "/run/steps"), 0);
}

/* The procedural path on the bench task: with --procedural epoch every
 * procedural step takes the epoch's element (none silently falls back on
 * this page), with snapper none does. Back to back, a step gates
 * procedurally only when the last step's vision pass beat it, which a
 * loaded machine may never let happen (CI saw 0 of 16); --think lets each
 * pass finish first, so every step of this cycle finds the page equal to
 * its epoch. */
static int path_n(const cJSON *j, const char *path)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(j, "procedural_paths"), path);
    return cJSON_IsObject(p) ? (int)num(p, "n") : -1;
}

static void procedural(void)
{
    static const char *const modes[] = {"epoch", "snapper"};
    for (int m = 0; m < 2; m++) {
        char args[1024], *out = NULL, *errs = NULL;
        snprintf(args, sizeof args,
                 "bench steps --n 16 --think 30000 --json --procedural %s --task '" FOVEA_SOURCE_DIR
                 "/assets/tasks/bench.json' --site '" FOVEA_SOURCE_DIR "/assets/site' --out '" OUT
                 "/proc'",
                 modes[m]);
        int st = run(args, &out, &errs);
        cJSON *j = out ? cJSON_Parse(out) : NULL;
        if (st != 0 || !j)
            fprintf(stderr, "stderr: %s\n", errs ? errs : "");
        base_free(out);
        base_free(errs);
        CHECK_EQ(st, 0);
        CHECK(j != NULL);
        int proc = (int)num(j, "procedural");
        int epoch = path_n(j, "epoch"), fallback = path_n(j, "fallback"),
            snapper = path_n(j, "snapper");
        cJSON_Delete(j);
        CHECK_MSG(proc == 16, "%s: %d of 16 steps gated procedurally after --think", modes[m],
                  proc);
        CHECK_EQ(epoch + fallback + snapper, proc);
        if (m == 0) {
            CHECK_MSG(epoch == proc, "epoch: %d of %d procedural steps took the epoch's element",
                      epoch, proc);
        } else {
            CHECK_EQ(snapper, proc);
        }
    }
    expect_usage("bench steps --procedural sometimes", "--procedural must be epoch, snapper or both");
}

static const check_case cases[] = {{"json", json},
                                   {"usage", usage},
                                   {"overlays", overlays},
                                   {"procedural", procedural},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
