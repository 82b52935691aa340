/* tests/agent/script/test_lifecycle.c: a run that is stopped, a run with secrets,
 * and what a failing run tells the user, all with the real `fovea run`
 * binary on real headless Chromium and fixture pages of our own
 * (tests/fixtures/pages/lifecycle).
 *
 * interrupt_*: fovea run on a task whose second step waits 60 s; after the
 *   first step's progress line the test sends SIGINT (SIGTERM, SIGHUP,
 *   SIGQUIT) and checks: the exit status is 128 + the signal within a few
 *   seconds, trace.jsonl ends with an "end" record saying "interrupted by
 *   SIG...", report.html exists with step 1 and says interrupted, the summary
 *   says so, and the private TMPDIR holds no Chromium profile afterwards.
 * secrets_hard: secrets_hard.json (vault*.html, partner.html): an 85-char
 *   passphrase, a live card echo, a secret prompt answer, a navigating GET
 *   sign-in, cuts past 40/160 bytes, a URL with user:password@, and a page
 *   on a second origin that records every string its main world sees. No
 *   output holds any secret, its prefix, or its base64 (what the tracker
 *   would report); the Sign-in overlay (the pre-action screenshot) is
 *   painted over at the card field, the passphrase field and the card echo.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/clock.h"
#include "base/fs.h"
#include "cdp/browser.h"
#include "image/image.h"
#include "cdp/launch.h"
#include "harness.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define SITE FOVEA_SOURCE_DIR "/tests/fixtures/pages/lifecycle"
#define TASKS FOVEA_SOURCE_DIR "/tests/agent/script/tasks"

static char *slurp(const char *path)
{
    uint8_t *d = NULL;
    size_t n = 0;
    return base_read_file(path, &d, &n, 256u << 20, NULL) == BASE_OK ? (char *)d : NULL;
}

static char *slurp2(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return slurp(path);
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* A started `fovea run`: its pid and where its output goes. */
typedef struct child {
    pid_t pid;
    char out[600], log[640], err[640], tmp[640];
} child;

/* Set by a test for the next start(): a shell command run once the old
 * output is gone (OUT in its environment), and a file-size limit for the
 * child (RLIMIT_FSIZE, with SIGXFSZ ignored: writes fail with EFBIG, the
 * portable stand-in for a full disk). */
static const char *start_prep;
static long start_fsize_limit;

/* Starts `fovea run TASK --site SITE --out OUT extra...` with stdout and
 * stderr in OUT.stdout / OUT.stderr and TMPDIR in OUT.tmp. */
static int start(child *c, const char *name, const char *task, const char *const *extra)
{
    memset(c, 0, sizeof *c);
    snprintf(c->out, sizeof c->out, "%s/tests/agent/script/out_%s", FOVEA_BINARY_DIR, name);
    snprintf(c->log, sizeof c->log, "%s.stdout", c->out);
    snprintf(c->err, sizeof c->err, "%s.stderr", c->out);
    snprintf(c->tmp, sizeof c->tmp, "%s.tmp", c->out);
    char cmd[4096];
    /* The old output files go first: the test polls them for progress. */
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s' '%s' && mkdir -p '%s'", c->out, c->tmp, c->log,
             c->err, c->tmp);
    if (system(cmd) != 0)
        return -1;
    if (start_prep) {
        setenv("OUT", c->out, 1);
        int pr = system(start_prep);
        unsetenv("OUT");
        if (pr != 0)
            return -1;
    }
    const char *argv[32];
    int ac = 0;
    argv[ac++] = FOVEA;
    argv[ac++] = "run";
    argv[ac++] = task;
    argv[ac++] = "--site";
    argv[ac++] = SITE;
    argv[ac++] = "--out";
    argv[ac++] = c->out;
    argv[ac++] = "--no-humanize";
    for (int i = 0; extra && extra[i] && ac < 30; i++)
        argv[ac++] = extra[i];
    argv[ac] = NULL;
    c->pid = fork();
    if (c->pid < 0)
        return -1;
    if (c->pid == 0) {
        int o = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(c->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0)
            _exit(99);
        dup2(o, 1);
        dup2(e, 2);
        setenv("TMPDIR", c->tmp, 1);
        if (start_fsize_limit > 0) {
            struct rlimit rl = {(rlim_t)start_fsize_limit, (rlim_t)start_fsize_limit};
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(97);
        }
        execv(FOVEA, (char *const *)(uintptr_t)argv);
        _exit(98);
    }
    return 0;
}

/* Waits up to ms for the child; returns its wait status or -1 (then kills it). */
static int finish(child *c, int ms)
{
    double end = base_monotime_ms() + ms;
    int st = 0;
    while (base_monotime_ms() < end) {
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid)
            return st;
        base_sleep_ms(20);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &st, 0);
    return -1;
}

/* Waits until file contains needle (up to ms); 1 when it does. */
static int wait_for_text(const char *file, const char *needle, int ms)
{
    double end = base_monotime_ms() + ms;
    while (base_monotime_ms() < end) {
        char *s = slurp(file);
        int hit = s && strstr(s, needle);
        base_free(s);
        if (hit)
            return 1;
        base_sleep_ms(50);
    }
    return 0;
}

/* Opens dir/report.html in the harness's Chromium and evaluates expr (a
 * string-valued JavaScript expression) on the rendered page: what a user
 * sees. Returns 0 with out filled, -1 when the browser is missing or the
 * page failed (out says why). */
static int report_eval(const char *dir, const char *expr, char *out, size_t n)
{
    harness *h = harness_get();
    if (!h) {
        snprintf(out, n, "no browser: %s", harness_error());
        return -1;
    }
    cdp_page *page = harness_open(1100, 900, 1, NULL);
    char url[1200], err[BASE_ERRBUF_SIZE] = "";
    snprintf(url, sizeof url, "file://%s/report.html", dir);
    cJSON *v = NULL;
    base_err e = page ? cdp_page_navigate(page, url, 20000, err) : BASE_EIO;
    if (!e)
        e = cdp_page_evaluate(page, expr, &v, 10000, err);
    int rc = !e && cJSON_IsString(v) ? 0 : -1;
    snprintf(out, n, "%s", rc == 0 ? v->valuestring : err);
    cJSON_Delete(v);
    cdp_page_close(page);
    return rc;
}

/* Number of fovea-profile-* entries in dir. */
static int profiles_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        n += strncmp(e->d_name, "fovea-profile-", 14) == 0;
    closedir(d);
    return n;
}

static void interrupt_with(int sig, const char *name)
{
    child c;
    char tag[32];
    snprintf(tag, sizeof tag, "int_%s", name);
    CHECK(start(&c, tag, TASKS "/slow.json", NULL) == 0);
    int ready = wait_for_text(c.err, "step 1/3 click 'Refresh status'", 60000);
    if (!ready) {
        finish(&c, 0);
        char *e = slurp(c.err);
        fprintf(stderr, "%s\n", e ? e : "(no stderr)");
        base_free(e);
        CHECK_MSG(0, "step 1 never finished");
    }
    /* Step 2 is now waiting for a text that never comes. */
    base_sleep_ms(300);
    double t0 = base_monotime_ms();
    kill(c.pid, sig);
    int st = finish(&c, 15000);
    double ms = base_monotime_ms() - t0;
    char *out = slurp(c.log);
    char *err = slurp(c.err);
    char *trace = slurp2(c.out, "trace.jsonl");
    char *report = slurp2(c.out, "report.html");
    char want_reason[64], want_sig[64];
    snprintf(want_reason, sizeof want_reason, "interrupted by %s", name);
    snprintf(want_sig, sizeof want_sig, "\"interrupted\":\"%s\"", name);
    int exit_ok = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig;
    int end_ok = trace && strstr(trace, "\"type\":\"end\"") && strstr(trace, want_sig) &&
                 strstr(trace, want_reason);
    int step1 = count(trace, "\"type\":\"step\"") >= 1 && trace && strstr(trace, "\"step\":1,") &&
                !strstr(trace, "\"step\":3,");
    int rep_ok = report && strstr(report, want_sig) && count(report, "\"type\":\"step\"") >= 1;
    int summary_ok = out && strstr(out, want_reason);
    int profiles = profiles_in(c.tmp);
    if (!exit_ok || !end_ok || !rep_ok || !summary_ok)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\ntrace:\n%s\n", st, out ? out : "",
                err ? err : "", trace ? trace : "(none)");
    base_free(out);
    base_free(err);
    base_free(trace);
    base_free(report);
    CHECK_MSG(exit_ok, "%s: exit status %d, want exit %d", name, st, 128 + sig);
    CHECK_MSG(ms < 5000, "%s: took %.0f ms to stop", name, ms);
    CHECK_MSG(end_ok, "%s: no end record saying %s", name, want_reason);
    CHECK_MSG(step1, "%s: the trace does not hold step 1 (only)", name);
    CHECK_MSG(rep_ok, "%s: report.html missing or not interrupted", name);
    CHECK_MSG(summary_ok, "%s: the summary does not say interrupted", name);
    CHECK_MSG(profiles == 0, "%s: %d Chromium profiles left in %s", name, profiles, c.tmp);
    /* What the user sees in the report: the verdict names the signal. */
    char seen[256];
    CHECK_MSG(report_eval(c.out, "document.getElementById('verdict').textContent", seen,
                          sizeof seen) == 0,
              "%s", seen);
    CHECK_MSG(strcmp(seen, want_reason) == 0, "%s: report verdict '%s'", name, seen);
    fprintf(stderr, "%s: stopped in %.0f ms\n", name, ms);
}

static void interrupt_sigint(void)
{
    interrupt_with(SIGINT, "SIGINT");
}

static void interrupt_sigterm(void)
{
    interrupt_with(SIGTERM, "SIGTERM");
}

static void interrupt_sighup(void)
{
    interrupt_with(SIGHUP, "SIGHUP");
}

static void interrupt_sigquit(void)
{
    interrupt_with(SIGQUIT, "SIGQUIT");
}

/* Every secret in every form it takes on the way: as typed, as the field
 * rewrote it, URL-encoded by the GET form, echoed by the next page. */
static const char *const secret_forms[] = {
    "p@ss w0rd!",  "p%40ss+w0rd%21",   "p%40ss%20w0rd%21",    "p@ss+w0rd",
    "w0rd!",       "4111111111111111", "4111 1111 1111 1111", "4111+1111+1111+1111",
    "4111%201111", "spring-sale",      "SPRING-SALE",         NULL,
};

/* secrets.json: the password is marked only by type=password, the card only
 * by autocomplete=cc-number (the field regroups the digits), the promo code
 * by "secret": true (the field upper-cases it). After a GET submit and an
 * extract of the echoing page, no output holds any form of any of them. */
static void secrets_everywhere(void)
{
    child c;
    /* Logs of the runner and the hand go to stderr, which is checked too. */
    setenv("FOVEA_TRACE", "agent,cascade", 1);
    int started = start(&c, "secrets", TASKS "/secrets.json", NULL);
    unsetenv("FOVEA_TRACE");
    CHECK(started == 0);
    int st = finish(&c, 120000);
    char *out = slurp(c.log);
    char *err = slurp(c.err);
    char *trace = slurp2(c.out, "trace.jsonl");
    char *report = slurp2(c.out, "report.html");
    int passed = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!passed)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", st, out ? out : "",
                err ? err : "");
    const char *names[] = {"stdout", "stderr", "trace.jsonl", "report.html"};
    const char *texts[] = {out, err, trace, report};
    char leak[256] = "";
    for (int f = 0; f < 4 && !leak[0]; f++)
        for (int i = 0; secret_forms[i] && !leak[0]; i++)
            if (texts[f] && strstr(texts[f], secret_forms[i]))
                snprintf(leak, sizeof leak, "'%s' in %s", secret_forms[i], names[f]);
    if (leak[0])
        fprintf(stderr, "trace:\n%s\n", trace ? trace : "");
    /* The masking did happen (the URL and the extracted lines had them). */
    int masked = count(trace, "********") >= 4;
    /* The overlay of step 7 (the echoing page) painted over the four lines
     * that show a secret as text (pass, card, promo, the raw query). */
    int painted = -1;
    for (char *line = trace; line && *line && painted < 0;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        cJSON *j = cJSON_Parse(line);
        const cJSON *st7 = cJSON_GetObjectItem(j, "step");
        const cJSON *mk = cJSON_GetObjectItem(j, "masked");
        if (cJSON_IsNumber(st7) && st7->valueint == 7)
            painted = cJSON_IsNumber(mk) ? mk->valueint : 0;
        cJSON_Delete(j);
        if (nl)
            *nl = '\n';
        line = nl ? nl + 1 : NULL;
    }
    int all_there = trace && report && out && err && count(trace, "\"type\":\"step\"") == 8;
    base_free(out);
    base_free(err);
    base_free(trace);
    base_free(report);
    CHECK_MSG(passed, "fovea run secrets.json exited %d", st);
    CHECK_MSG(all_there, "an output is missing");
    CHECK_MSG(!leak[0], "secret leaked: %s", leak);
    CHECK_MSG(masked, "the trace shows no masked secrets");
    CHECK_MSG(painted >= 4, "step 7's overlay painted over %d areas, want >= 4", painted);
    /* The rendered report (what a user reads) holds none either. */
    char seen[16384];
    CHECK_MSG(report_eval(c.out, "document.body.innerText", seen, sizeof seen) == 0, "%s", seen);
    for (int i = 0; secret_forms[i]; i++)
        CHECK_MSG(strstr(seen, secret_forms[i]) == NULL, "'%s' in the rendered report",
                  secret_forms[i]);
    CHECK_MSG(strstr(seen, "pass: ********"), "the rendered report lacks the masked line");
}

#define HARD_PW "Tr0ub4dor&3-correct-horse-battery-staple-and-a-few-more-words-to-pass-eighty-chars-xq"

/* 1 when the overlay pixel at CSS (x, y) has the mask's colour. */
static int masked_at(const img_image *img, double x, double y)
{
    double sc = img->w >= 1280 ? img->w / 1280.0 : 1.0;
    int px = (int)(x * sc), py = (int)(y * sc);
    if (px < 0 || py < 0 || px >= img->w || py >= img->h)
        return 0;
    const uint8_t *p = img->px + (size_t)py * (size_t)img->stride + (size_t)px * 4;
    return p[0] == 0x30 && p[1] == 0x30 && p[2] == 0x38;
}

static void secrets_hard(void)
{
    child c;
    setenv("FOVEA_TRACE", "all", 1);
    const char *extra[] = {"--overlays", "all", NULL};
    int started = start(&c, "secrets_hard", TASKS "/secrets_hard.json", extra);
    unsetenv("FOVEA_TRACE");
    CHECK(started == 0);
    int st = finish(&c, 180000);
    char *out = slurp(c.log);
    char *err = slurp(c.err);
    char *trace = slurp2(c.out, "trace.jsonl");
    char *report = slurp2(c.out, "report.html");
    int passed = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!passed)
        fprintf(stderr, "status %d\nstdout:\n%s\n", st, out ? out : "");
    /* Every form, the prefixes a cut would leave, and base64 of what the
     * partner page's tracker would have captured. */
    const char *plain[] = {HARD_PW,          "Tr0ub4dor",     "tr0ub4dor",   "TR0UB4DOR",
                           "Tr0ub4dor%26",   "chars-xq",      "S3cretPIN77", "s3cretpin77",
                           "S3cretPIN",      "4111111111111111", "4111 1111", "4111 111",
                           "M1rrorPassw0rd", NULL};
    char b64[8][256];
    const char *enc_src[] = {HARD_PW, "S3cretPIN77", "4111111111111111", "4111 1111 1111 1111",
                             "s3cretpin77", NULL};
    int nb = 0;
    for (int i = 0; enc_src[i]; i++) {
        base64_encode((const uint8_t *)enc_src[i], strlen(enc_src[i]), b64[nb]);
        b64[nb][12] = '\0'; /* a prefix: the tracker may have seen it grouped */
        nb++;
    }
    const char *names[] = {"stdout", "stderr", "trace.jsonl", "report.html"};
    const char *texts[] = {out, err, trace, report};
    char leak[300] = "";
    for (int f = 0; f < 4 && !leak[0]; f++) {
        for (int i = 0; plain[i] && !leak[0]; i++)
            if (texts[f] && strstr(texts[f], plain[i]))
                snprintf(leak, sizeof leak, "'%.40s' in %s", plain[i], names[f]);
        for (int i = 0; i < nb && !leak[0]; i++)
            if (texts[f] && strstr(texts[f], b64[i]))
                snprintf(leak, sizeof leak, "base64 '%.40s' in %s", b64[i], names[f]);
    }
    /* The tracker ran on the second origin and its report was extracted. */
    char own[32];
    base64_encode((const uint8_t *)"Deal-2024-XY", 12, own); /* the page's own string */
    int tracker = trace && strstr(trace, own) != NULL;
    int dialog = trace && strstr(trace, "accepted with '********'") != NULL;
    int steps = count(trace, "\"type\":\"step\"");
    /* Step 6 (Sign in) navigates: its overlay is the pre-action screenshot,
     * which shows the vault page with the card and the passphrase dots. */
    char path[1200];
    snprintf(path, sizeof path, "%s/steps/006.png", c.out);
    uint8_t *png = NULL;
    size_t pn = 0;
    img_image img = {0};
    int decoded = base_read_file(path, &png, &pn, 64u << 20, NULL) == BASE_OK &&
                  img_decode(png, pn, &img, NULL) == BASE_OK;
    base_free(png);
    int card_field = decoded && masked_at(&img, 60, 193) && masked_at(&img, 300, 193);
    int pw_field = decoded && masked_at(&img, 60, 113) && masked_at(&img, 300, 113);
    /* The echo: 19 monospace glyphs of 24 px from (40, 360). */
    int echo = decoded && masked_at(&img, 50, 372) && masked_at(&img, 150, 372) &&
               masked_at(&img, 250, 372);
    img_fini(&img);
    base_free(out);
    base_free(err);
    base_free(trace);
    base_free(report);
    CHECK_MSG(passed, "fovea run secrets_hard.json exited %d", st);
    CHECK_MSG(steps == 14, "%d step records, want 14", steps);
    CHECK_MSG(!leak[0], "secret leaked: %s", leak);
    CHECK_MSG(tracker, "the partner page's tracker line was not extracted");
    CHECK_MSG(dialog, "the prompt's answer is not shown masked");
    CHECK_MSG(decoded, "no overlay %s", path);
    CHECK_MSG(card_field, "the card field is not painted over in step 6's overlay");
    CHECK_MSG(pw_field, "the passphrase field is not painted over in step 6's overlay");
    CHECK_MSG(echo, "the card echo is not painted over in step 6's overlay");
}

/* names.json: a click on a misspelt label fails with "try:" hints that put
 * the control meant first, and the step's marks name every box with its
 * label (trace and report). */
static void nearest_names(void)
{
    child c;
    CHECK(start(&c, "names", TASKS "/names.json", NULL) == 0);
    int st = finish(&c, 60000);
    char *out = slurp(c.log);
    char *err = slurp(c.err);
    char *trace = slurp2(c.out, "trace.jsonl");
    char *report = slurp2(c.out, "report.html");
    char e[4096];
    snprintf(e, sizeof e, "%s", err ? err : "");
    const char *first = strstr(e, "  try: ");
    int first_ok =
        first && strncmp(strstr(first, "'") ? strstr(first, "'") : "", "'Cancel order'", 14) == 0;
    int hints = count(e, "  try: [V");
    int marks = trace && strstr(trace, "\"marks\":[") && strstr(trace, "] Cancel order\"") &&
                strstr(trace, "] Order history\"");
    int rmarks = report && strstr(report, "] Print return label");
    base_free(out);
    base_free(err);
    base_free(trace);
    base_free(report);
    CHECK_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d", st);
    CHECK_MSG(first_ok, "the first hint is not 'Cancel order':\n%s", e);
    CHECK_MSG(hints >= 3, "only %d hints:\n%s", hints, e);
    CHECK_MSG(marks, "the trace's marks lack labels");
    CHECK_MSG(rmarks, "the report's marks lack labels");
    char seen[4096];
    CHECK_MSG(report_eval(c.out, "document.body.innerText", seen, sizeof seen) == 0, "%s", seen);
    CHECK_MSG(strstr(seen, "[V2] Cancel order") != NULL,
              "the rendered report does not name [V2] Cancel order:\n%s", seen);
}

/* The page tabs of the browser behind conn: how many, and whether keep
 * (a target id) is among them. */
static int page_tabs(cdp_conn *conn, const char *keep, int *kept)
{
    cJSON *res = NULL;
    *kept = 0;
    if (cdp_call(conn, NULL, "Target.getTargets", NULL, &res, 5000, NULL) != BASE_OK)
        return -1;
    int n = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(res, "targetInfos"))
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(t, "type");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "targetId");
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "page") != 0)
            continue;
        n++;
        if (cJSON_IsString(id) && keep && strcmp(id->valuestring, keep) == 0)
            *kept = 1;
    }
    cJSON_Delete(res);
    return n;
}

/* The page tabs once their count is `want`, or after ms: Target.closeTarget
 * answers before the browser has destroyed the tab, and under a sanitizer's
 * load Target.getTargets can list it for a while after. */
static int page_tabs_settled(cdp_conn *c, const char *keep, int *kept, int want, int ms)
{
    int n = page_tabs(c, keep, kept);
    for (int waited = 0; n != want && waited < ms; waited += 100) {
        base_sleep_ms(100);
        n = page_tabs(c, keep, kept);
    }
    return n;
}

/* A Chromium of the test's own (a "user's browser") and its endpoint in ws
 * (n bytes; on failure, the error). */
static base_err launch_own(cdp_browser **b, char *ws, size_t n)
{
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_browser_launch(NULL, b, err);
    snprintf(ws, n, "%s", e ? err : cdp_process_ws_url(cdp_browser_process(*b)));
    return e;
}

/* Attach mode: the test starts its own Chromium (a "user's browser" with a
 * tab of its own) and runs fovea with --cdp. A stop signal in `fovea run`
 * (graceful path) and in `fovea bench` (the watcher thread) must close the
 * tab fovea opened and leave the user's tab alone. */
static void attach_closes_own_tabs(void)
{
    cdp_browser *b = NULL;
    char ws[512];
    base_err e = launch_own(&b, ws, sizeof ws);
    if (e == BASE_ENOTFOUND)
        SKIP("chromium not installed");
    CHECK_MSG(e == BASE_OK, "%s", ws);
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_page *mine = NULL;
    e = cdp_page_open(b, NULL, &mine, err);
    char keep[64];
    snprintf(keep, sizeof keep, "%s", mine ? cdp_page_target_id(mine) : "");
    int kept = 0;
    int before = e ? -1 : page_tabs(cdp_browser_conn(b), keep, &kept);
    int ok = 1;
    char why[512] = "";
    /* fovea run: the runner stops, the session closes its page. */
    child c;
    const char *extra[] = {"--cdp", ws, NULL};
    if (ok && start(&c, "attach_run", TASKS "/slow.json", extra) == 0) {
        int ready = wait_for_text(c.err, "step 1/3 click 'Refresh status'", 60000);
        int during = page_tabs(cdp_browser_conn(b), keep, &kept);
        kill(c.pid, SIGINT);
        int st = finish(&c, 15000);
        int after = page_tabs_settled(cdp_browser_conn(b), keep, &kept, before, 5000);
        if (!ready || during != before + 1 ||
            !(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 130) || after != before || !kept) {
            ok = 0;
            snprintf(why, sizeof why,
                     "run: ready %d, tabs %d before, %d during, %d after, user's tab kept %d, "
                     "status %d",
                     ready, before, during, after, kept, st);
        }
    }
    /* fovea bench: no graceful path of its own; the watcher closes the tab. */
    if (ok) {
        memset(&c, 0, sizeof c);
        snprintf(c.err, sizeof c.err, "%s/tests/agent/script/out_attach_bench.stderr", FOVEA_BINARY_DIR);
        remove(c.err);
        c.pid = fork();
        if (c.pid == 0) {
            int fd = open(c.err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
            dup2(fd, 1);
            execl(FOVEA, FOVEA, "bench", "--site", SITE, "--cdp", ws, "--reps", "100000",
                  (char *)NULL);
            _exit(98);
        }
        int during = 0;
        for (int i = 0; i < 200 && during <= before; i++) {
            base_sleep_ms(50);
            during = page_tabs(cdp_browser_conn(b), keep, &kept);
        }
        base_sleep_ms(300);
        double t0 = base_monotime_ms();
        kill(c.pid, SIGTERM);
        int st = finish(&c, 15000);
        double ms = base_monotime_ms() - t0;
        int after = page_tabs_settled(cdp_browser_conn(b), keep, &kept, before, 5000);
        if (during != before + 1 || !(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 143) ||
            after != before || !kept || ms > 5000) {
            ok = 0;
            snprintf(why, sizeof why,
                     "bench: tabs %d before, %d during, %d after, user's tab kept %d, status %d, "
                     "%.0f ms",
                     before, during, after, kept, st, ms);
        }
    }
    cdp_page_close(mine);
    cdp_browser_destroy(b);
    CHECK_MSG(e == BASE_OK && before >= 1, "setup: %s", err);
    CHECK_MSG(ok, "%s", why);
}

/* Links planted in --out where trace.jsonl and report.html go (as an
 * attacker with write access to a shared output folder would, hoping a root
 * run writes through them): the run passes, the links' target keeps its
 * bytes, and the outputs are files of their own. */
static void out_symlinks(void)
{
    child c;
    start_prep = "echo precious > \"$OUT.victim\" && mkdir -p \"$OUT\" && "
                 "ln -s \"$OUT.victim\" \"$OUT/trace.jsonl\" && "
                 "ln -s \"$OUT.victim\" \"$OUT/report.html\"";
    int ok = start(&c, "links", TASKS "/outputs.json", NULL) == 0;
    start_prep = NULL;
    CHECK(ok);
    int st = finish(&c, 90000);
    char *log = slurp(c.log);
    CHECK_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, log);
    char path[800];
    snprintf(path, sizeof path, "%s.victim", c.out);
    char *v = slurp(path);
    CHECK_STR(v ? v : "(gone)", "precious\n");
    base_free(v);
    struct stat sb;
    snprintf(path, sizeof path, "%s/trace.jsonl", c.out);
    CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode));
    char *t = slurp(path);
    CHECK(t && strstr(t, "\"type\":\"end\"") != NULL);
    base_free(t);
    snprintf(path, sizeof path, "%s/report.html", c.out);
    CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode));
    base_free(log);
}

/* A full disk, as RLIMIT_FSIZE (64 KB: the first overlay does not fit) on
 * a run attached to a browser of the test's own (a launched Chromium would
 * inherit the limit): the run exits BASE_EXIT_OUTPUT_LOST (3), not 0; its
 * stderr names the file and the error once; stdout does not say passed. */
static void out_full(void)
{
    cdp_browser *b = NULL;
    char ws[512];
    base_err e = launch_own(&b, ws, sizeof ws);
    if (e == BASE_ENOTFOUND)
        SKIP("chromium not installed");
    CHECK_MSG(e == BASE_OK, "%s", ws);
    const char *extra[] = {"--cdp", ws, NULL};
    child c;
    start_fsize_limit = 64 * 1024;
    int ok = start(&c, "full", TASKS "/outputs.json", extra) == 0;
    start_fsize_limit = 0;
    int st = ok ? finish(&c, 90000) : -1;
    cdp_browser_destroy(b);
    CHECK(ok);
    char *log = slurp(c.log), *errs = slurp(c.err);
    CHECK_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %d: %s\n%s", st, log,
              errs);
    CHECK_EQ(count(errs, "output lost: "), 1);
    CHECK_MSG(count(errs, "File too large") == 1, "%s", errs);
    CHECK_MSG(strstr(errs, c.out) != NULL, "%s", errs);
    CHECK(log && strstr(log, "passed") == NULL && strstr(log, "output lost") != NULL);
    base_free(log);
    base_free(errs);
}

/* --out that cannot be written (its path runs through a file; root ignores
 * permission bits) is a usage error said before a browser starts. */
static void out_unwritable(void)
{
    child c;
    char bad[700];
    snprintf(bad, sizeof bad, "%s/tests/agent/script/out_unwritable.file/out", FOVEA_BINARY_DIR);
    CHECK_EQ(system("touch '" FOVEA_BINARY_DIR "/tests/agent/script/out_unwritable.file'"), 0);
    const char *extra[] = {"--out", bad, NULL};
    double t0 = base_monotime_ms();
    CHECK(start(&c, "unwritable", TASKS "/outputs.json", extra) == 0);
    int st = finish(&c, 30000);
    double ms = base_monotime_ms() - t0;
    char *errs = slurp(c.err);
    CHECK_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d: %s", st, errs);
    CHECK_MSG(errs && strstr(errs, "--out") && strstr(errs, "Not a directory") &&
                  strstr(errs, " on http") == NULL,
              "%s", errs);
    CHECK_MSG(ms < 5000, "took %.0f ms: a browser started first?", ms);
    base_free(errs);
}

/* SIGTERM while step 2 waits on a page whose script hangs (every CDP call
 * into it waits): the run ends in about a second, not after the call's own
 * timeout (21 s before, issue 23), with exit 143, the trace's end record and
 * the report. */
static void sigterm_frozen(void)
{
    child c;
    CHECK(start(&c, "frozen", TASKS "/freeze.json", NULL) == 0);
    int ready = wait_for_text(c.err, "step 1/2 click 'Start export'", 60000);
    base_sleep_ms(1500); /* step 2 is waiting on the frozen page */
    double t0 = base_monotime_ms();
    kill(c.pid, SIGTERM);
    int st = finish(&c, 30000);
    double ms = base_monotime_ms() - t0;
    char *errs = slurp(c.err);
    CHECK_MSG(ready, "step 1 never finished: %s", errs ? errs : "");
    CHECK_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 143, "status %d: %s", st,
              errs ? errs : "");
    CHECK_MSG(ms < 3000, "exit took %.0f ms after SIGTERM", ms);
    char *trace = slurp2(c.out, "trace.jsonl");
    CHECK(trace && strstr(trace, "\"interrupted\":\"SIGTERM\"") != NULL);
    base_free(trace);
    char path[800];
    snprintf(path, sizeof path, "%s/report.html", c.out);
    CHECK(access(path, F_OK) == 0);
    base_free(errs);
}

static const check_case cases[] = {
    {"sigterm_frozen", sigterm_frozen},
    {"out_symlinks", out_symlinks}, {"out_full", out_full}, {"out_unwritable", out_unwritable},
    {"attach_closes_own_tabs", attach_closes_own_tabs}, {"nearest_names", nearest_names},
    {"secrets_everywhere", secrets_everywhere},         {"secrets_hard", secrets_hard},         {"interrupt_sigint", interrupt_sigint},
    {"interrupt_sigterm", interrupt_sigterm},           {"interrupt_sighup", interrupt_sighup},
    {"interrupt_sigquit", interrupt_sigquit},           {NULL, NULL},
};

int main(int argc, char **argv)
{
    if (access(FOVEA, X_OK) != 0) {
        fprintf(stderr, "test_lifecycle: %s is not built\n", FOVEA);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
