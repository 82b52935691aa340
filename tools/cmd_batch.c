/* tools/cmd_batch.c: `fovea batch TASK...` — many tasks at once: scripted
 * task files, and tasks for a model (goal files, or tasks in words).
 *
 * Each task runs as its own `fovea run` process (fork and exec of this very
 * binary), up to --workers at a time, each in its own browser session (its
 * own Chromium, or one connection to the --cdp pool) and its own folder
 * OUT/<name>/ (trace.jsonl, report.html, run.log with the child's output).
 * Processes rather than threads: a run owns process-wide things (the stop
 * signal flag, the launcher's browser registry and PR_SET_PDEATHSIG binding,
 * stdout's summary), a crash or a leak in one run cannot touch another, and
 * the child's exit status and rusage are the per-task result and memory
 * (DESIGN.md "Many tasks at once").
 *
 * A task is a model's (cli_run_is_agent: a goal file, or words that name no
 * file) or a script; the options that only one kind takes (--url, --planner,
 * --max-steps ... for a model; --overlays, --seed ... for a script) go only
 * to the runs of that kind, so one batch can hold both.
 *
 * A finished task is classified from its exit status, its trace and its log:
 * passed; failed (a step failed, or the task file was refused: never
 * retried); infrastructure (no browser could be had: the pool full or
 * unreachable, a launch that failed, or the connection lost before the first
 * step): retried up to --retries times, since nothing of the task ran yet.
 * A connection lost after a step acted is reported, not retried (the steps
 * could have had effects on a real site). One JSON line per task goes to
 * OUT/results.jsonl as it finishes, then OUT/index.html is rewritten from
 * all lines (keyed by the folder name, unique per batch). --resume skips
 * tasks whose last line is passed or failed. A
 * stop signal stops starting tasks, passes the signal on to the running
 * ones (each finishes its report) and writes the index with what finished.
 *
 * wait4 (a child's own rusage: its peak memory) is BSD/Linux, hence
 * _DEFAULT_SOURCE.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent/plan/answer.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/interrupt.h"
#include "tools/cli.h"

#define MAX_TASKS 4096
#define MAX_PASS 64 /* options passed on to every `fovea run` */

typedef enum outcome { OUT_NONE, OUT_PASSED, OUT_FAILED, OUT_INFRA, OUT_INTERRUPTED } outcome;

static const char *outcome_name(outcome o)
{
    switch (o) {
    case OUT_PASSED:
        return "passed";
    case OUT_FAILED:
        return "failed";
    case OUT_INFRA:
        return "infrastructure";
    case OUT_INTERRUPTED:
        return "interrupted";
    default:
        return "";
    }
}

typedef struct task {
    const char *path;  /* borrowed from argv: a file, or the task in words */
    int agent;         /* a task for a model (goal file or words) */
    int words;         /* path is the task in words, not a file */
    char name[128];    /* its folder under OUT */
    char dir[1200];    /* OUT/name */
    pid_t pid;         /* running child, 0 when none */
    int attempts;
    double t0_ms;      /* start of this attempt */
    double wall_ms;    /* all attempts together */
    long max_rss_kb;   /* of the last attempt */
    int skip;          /* --resume: already recorded */
    /* the result */
    outcome out;
    int steps_total, steps_passed, failed_step;
    long tokens;
    char reason[300];
} task;

typedef struct batch {
    task *tasks;
    int n;
    const char *out_dir;
    int workers, retries, resume;
    const char *pass[MAX_PASS]; /* argv tail for each child */
    int npass;
    const char *spass[MAX_PASS]; /* ... for scripted tasks only */
    int nspass;
    const char *apass[MAX_PASS]; /* ... for a model's tasks only */
    int napass;
    char self[4096];
} batch;

static void batch_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea batch TASK... [options]\n\n"
            "Runs tasks concurrently, each in its own browser session (its own Chromium,\n"
            "or one connection to the --cdp pool) and its own folder OUT/<name>/\n"
            "(trace.jsonl, report.html, run.log). A TASK is a scripted task file, a goal\n"
            "file ({\"goal\": ..., \"url\": ...}) or a task in words (\"Find the ...\", with\n"
            "--url), the last two done by a model as in fovea run. Writes\n"
            "OUT/results.jsonl (one line per task) and OUT/index.html; one progress line\n"
            "per finished task on stderr.\n"
            "Exit status: 0 when every task passed, 1 otherwise, 2 usage, 3 when\n"
            "OUT/results.jsonl could not be written (output lost), 128 + N when\n"
            "signal N stopped the batch (the index then lists the tasks that finished).\n\n"
            "  --workers N      tasks at once (default 2)\n"
            "  --out DIR        output folder (default out/batch)\n"
            "  --retries K      run a task again up to K times after an infrastructure\n"
            "                   failure before its first step: no browser (pool full,\n"
            "                   launch failed) or the connection lost (default 1); a task\n"
            "                   failure is never retried\n"
            "  --resume         skip tasks OUT/results.jsonl records as passed or failed\n"
            "  --cdp URL        run every task on a browser of this pool (one connection\n"
            "                   per task) instead of launching Chromium\n"
            "%s"
            "  --site DIR, --vision NAME, --no-humanize, --allow-host H, --allow-scripts\n"
            "                   passed on to each `fovea run` (see fovea run --help)\n"
            "  --overlays WHICH, --seed N, --allow-untrusted, --page-text MODE\n"
            "                   passed on to each scripted task's run\n"
            "  --url URL, --planner P, --max-steps N, --token-budget N, --step-timeout MS,\n"
            "  --candidates M, --completion-check S, --screenshot, --upload-dir DIR,\n"
            "  --llm-first-byte S, --llm-stall S, --llm-call-limit S, --answer-schema FILE\n"
            "                   passed on to each model's run (goal files and words); each\n"
            "                   run with --answer-schema writes OUT/<name>/answer.json\n",
            cli_pool_opts_help);
}

/* ---- results ------------------------------------------------------------ */

/* Calls fn(line, user) for each line of the file at path (at most max
 * bytes; the line is NUL-terminated and may be changed). Returns 0, or -1
 * when the file cannot be read (fn never runs). */
static int each_line(const char *path, size_t max, void (*fn)(char *line, void *user),
                     void *user)
{
    uint8_t *data = NULL;
    size_t n = 0;
    if (base_read_file(path, &data, &n, max, NULL) != BASE_OK)
        return -1;
    for (char *line = (char *)data; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        fn(line, user);
        line = nl ? nl + 1 : NULL;
    }
    base_free(data);
    return 0;
}

/* What read_trace gathers while it reads the lines. */
typedef struct trace_scan {
    task *t;
    int ended, any_step, passed, nsteps;
    /* A step that took several attempts has a record per attempt: steps are
     * counted by number, once (passed ones in seen, all in ran). */
    unsigned char seen[4096 / 8], ran[4096 / 8];
} trace_scan;

static void trace_line(char *line, void *user)
{
    trace_scan *sc = user;
    task *t = sc->t;
    cJSON *j = cJSON_Parse(line);
    const char *ty = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "type"));
    ty = ty ? ty : "";
    if (strcmp(ty, "task") == 0) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "steps");
        if (cJSON_IsNumber(st))
            t->steps_total = st->valueint;
    } else if (strcmp(ty, "step") == 0) {
        sc->any_step = 1;
        const cJSON *no = cJSON_GetObjectItemCaseSensitive(j, "step");
        int k = cJSON_IsNumber(no) ? no->valueint : -1;
        if (k >= 0 && k < (int)sizeof sc->ran * 8 && !(sc->ran[k / 8] & (1u << (k % 8)))) {
            sc->ran[k / 8] |= (unsigned char)(1u << (k % 8));
            sc->nsteps++;
        }
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok")) && k >= 0 &&
            k < (int)sizeof sc->seen * 8 && !(sc->seen[k / 8] & (1u << (k % 8)))) {
            sc->seen[k / 8] |= (unsigned char)(1u << (k % 8));
            sc->passed++;
        }
    } else if (strcmp(ty, "model") == 0 || strcmp(ty, "andor_op") == 0) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "prompt_tokens");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "completion_tokens");
        t->tokens += (long)(cJSON_IsNumber(p) ? p->valuedouble : 0) +
                     (long)(cJSON_IsNumber(c) ? c->valuedouble : 0);
    } else if (strcmp(ty, "end") == 0) {
        sc->ended = 1;
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(j, "failed_step");
        const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "reason"));
        t->failed_step = cJSON_IsNumber(fs) ? fs->valueint : 0;
        snprintf(t->reason, sizeof t->reason, "%s", r ? r : "");
    }
    cJSON_Delete(j);
}

/* Reads OUT/<task>/trace.jsonl: steps, the end record, model tokens. Returns
 * 1 when the trace had an end record; *any_step says whether a step ran. */
static int read_trace(task *t, int *any_step)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/trace.jsonl", t->dir);
    trace_scan sc;
    memset(&sc, 0, sizeof sc);
    sc.t = t;
    each_line(path, (size_t)64 << 20, trace_line, &sc);
    t->steps_passed = sc.passed;
    /* A model's run has no step count up front: the steps it took. */
    if (t->agent && t->steps_total == 0)
        t->steps_total = sc.nsteps;
    *any_step = sc.any_step;
    return sc.ended;
}

typedef struct reason_scan {
    char *out;
    size_t n;
} reason_scan;

static void reason_line(char *line, void *user)
{
    reason_scan *sc = user;
    if (strncmp(line, "fovea", 5) == 0 && !strstr(line, " passed: "))
        snprintf(sc->out, sc->n, "%s", line);
}

/* The last line of run.log saying why the run could not start. */
static void log_reason(const task *t, char *out, size_t n)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/run.log", t->dir);
    out[0] = '\0';
    reason_scan sc = {out, n};
    each_line(path, (size_t)16 << 20, reason_line, &sc);
}

/* Classifies a finished attempt from its wait status. Returns 1 when the
 * task should run again (an infrastructure failure before any step). */
static int classify(task *t, int status, int retries_left)
{
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    t->steps_total = t->steps_passed = t->failed_step = 0;
    t->tokens = 0;
    t->reason[0] = '\0';
    int any_step = 0;
    int ended = read_trace(t, &any_step);
    if (code == 0) {
        t->out = OUT_PASSED;
        return 0;
    }
    if (WIFSIGNALED(status) && !base_interrupted()) {
        /* fovea run itself died (a crash, the OOM killer): no verdict on the
         * task; run again when nothing of it had run yet. */
        snprintf(t->reason, sizeof t->reason, "fovea run died of %s%s",
                 base_signal_name(WTERMSIG(status)), any_step ? " after a step had started" : "");
        t->out = OUT_INFRA;
        return !any_step && retries_left > 0;
    }
    if (code >= 128 || base_interrupted()) {
        t->out = OUT_INTERRUPTED;
        if (!t->reason[0])
            snprintf(t->reason, sizeof t->reason, "interrupted by %s",
                     base_signal_name(code >= 128 ? code - 128 : base_interrupted()));
        return 0;
    }
    if (code == BASE_EXIT_OUTPUT_LOST) {
        /* The task's output could not be written (a full disk): not passed,
         * and not retried (the disk is as full for the next attempt). */
        t->out = OUT_FAILED;
        log_reason(t, t->reason, sizeof t->reason);
        if (!t->reason[0])
            snprintf(t->reason, sizeof t->reason, "output lost");
        return 0;
    }
    if (code == 2) { /* the task file or an option was refused */
        t->out = OUT_FAILED;
        log_reason(t, t->reason, sizeof t->reason);
        return 0;
    }
    if (!ended) {
        /* No trace end: no browser could be had (pool full or unreachable,
         * launch failed) or the run died; the log says which. */
        char why[300];
        log_reason(t, why, sizeof why);
        snprintf(t->reason, sizeof t->reason, "%s",
                 why[0] ? why : "fovea run exited 1 without a trace");
        t->out = OUT_INFRA;
        /* A refused token stays refused: asking again only hides it. */
        int final = strstr(why, "token was refused") != NULL;
        return !final && retries_left > 0;
    }
    /* The browser or the pool went away: infrastructure, not the task. */
    int lost = strstr(t->reason, "browser connection closed") ||
               strstr(t->reason, "page crashed") ||
               strstr(t->reason, "the pool closed the session");
    if (!lost) {
        t->out = OUT_FAILED;
        return 0;
    }
    t->out = OUT_INFRA;
    if (any_step) {
        size_t k = strlen(t->reason);
        snprintf(t->reason + k, sizeof t->reason - k, " (not retried: steps had acted)");
        return 0;
    }
    return retries_left > 0;
}

/* Appends s to b as JSON-safe HTML text. */
static void html_text(base_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            base_buf_append_str(b, "&lt;");
            break;
        case '>':
            base_buf_append_str(b, "&gt;");
            break;
        case '&':
            base_buf_append_str(b, "&amp;");
            break;
        case '"':
            base_buf_append_str(b, "&quot;");
            break;
        default:
            base_buf_append(b, s, 1);
        }
    }
}

/* Appends this task's line to OUT/results.jsonl. */
static void append_result(const batch *bt, const task *t)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return;
    cJSON_AddStringToObject(j, "task", t->path);
    cJSON_AddStringToObject(j, "name", t->name);
    cJSON_AddStringToObject(j, "outcome", outcome_name(t->out));
    cJSON_AddBoolToObject(j, "passed", t->out == OUT_PASSED);
    cJSON_AddNumberToObject(j, "steps", t->steps_total);
    cJSON_AddNumberToObject(j, "steps_passed", t->steps_passed);
    cJSON_AddNumberToObject(j, "failed_step", t->failed_step);
    cJSON_AddNumberToObject(j, "wall_s", t->wall_ms / 1000.0);
    cJSON_AddNumberToObject(j, "tokens", (double)t->tokens);
    cJSON_AddNumberToObject(j, "attempts", t->attempts);
    cJSON_AddNumberToObject(j, "max_rss_kb", (double)t->max_rss_kb);
    cJSON_AddStringToObject(j, "reason", t->reason);
    char rep[200];
    snprintf(rep, sizeof rep, "%s/report.html", t->name);
    cJSON_AddStringToObject(j, "report", rep);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!text)
        return;
    char path[1100];
    snprintf(path, sizeof path, "%s/results.jsonl", bt->out_dir);
    /* Never through a planted link (base_open_out); a line that cannot be
     * written is lost output: the batch fails with it (cli_out_status). */
    int fd = -1;
    char err[BASE_ERRBUF_SIZE] = "";
    size_t n = strlen(text);
    if (base_open_out(path, BASE_OUT_APPEND, &fd, err) != BASE_OK) {
        base_out_lost(path, err);
    } else {
        text[n] = '\n';
        ssize_t w = write(fd, text, n + 1);
        int er = errno;
        text[n] = '\0';
        if (w != (ssize_t)(n + 1))
            base_out_lost(path, w < 0 ? strerror(er) : "short write");
        close(fd);
    }
    cJSON_free(text);
}

/* Keeps the last results.jsonl line of each task in the object `user`. */
static void index_line(char *line, void *user)
{
    cJSON *last = user;
    cJSON *j = cJSON_Parse(line);
    const cJSON *tp = cJSON_GetObjectItemCaseSensitive(j, "name");
    if (cJSON_IsString(tp)) {
        cJSON_DeleteItemFromObjectCaseSensitive(last, tp->valuestring);
        cJSON_AddItemToObject(last, tp->valuestring, j);
    } else {
        cJSON_Delete(j);
    }
}

/* Rewrites OUT/index.html from OUT/results.jsonl (the last line per task
 * wins, so a resumed batch shows old and new results together). */
static void write_index(const batch *bt)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/results.jsonl", bt->out_dir);
    cJSON *last = cJSON_CreateObject(); /* task folder name -> its last line */
    if (!last || each_line(path, (size_t)64 << 20, index_line, last) < 0) {
        cJSON_Delete(last);
        return;
    }
    base_buf b;
    base_buf_init(&b, (size_t)64 << 20);
    int total = 0, passed = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, last)
    {
        total++;
        passed += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "passed"));
    }
    base_buf_printf(&b,
                    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<title>fovea batch: %d/%d passed</title>\n<style>"
                    "body{font:14px system-ui,sans-serif;margin:24px}"
                    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;"
                    "text-align:left;vertical-align:top}.passed{color:#0a6d2c}"
                    ".failed,.infrastructure{color:#b00020}.interrupted{color:#8a6d00}"
                    "td.n{text-align:right}</style></head><body>\n"
                    "<h1>fovea batch: %d of %d tasks passed</h1>\n<table>\n<tr><th>task</th>"
                    "<th>result</th><th>steps</th><th>wall time</th><th>tokens</th>"
                    "<th>attempts</th><th>reason</th></tr>\n",
                    passed, total, passed, total);
    cJSON_ArrayForEach(row, last)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "name"));
        const char *oc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "outcome"));
        const char *rs = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "reason"));
        const char *rep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "report"));
        double st = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "steps"));
        double sp = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "steps_passed"));
        double ws = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "wall_s"));
        double tk = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "tokens"));
        double at = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "attempts"));
        base_buf_append_str(&b, "<tr><td><a href=\"");
        html_text(&b, rep ? rep : "");
        base_buf_append_str(&b, "\">");
        html_text(&b, name ? name : "");
        base_buf_append_str(&b, "</a><br><small>");
        const char *tp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "task"));
        html_text(&b, tp ? tp : "");
        base_buf_printf(&b, "</small></td><td class=\"%s\">", oc ? oc : "");
        html_text(&b, oc ? oc : "");
        base_buf_printf(&b,
                        "</td><td class=\"n\">%d/%d</td><td class=\"n\">%.1f s</td>"
                        "<td class=\"n\">%.0f</td><td class=\"n\">%d</td><td>",
                        (int)sp, (int)st, ws, tk, (int)at);
        html_text(&b, rs ? rs : "");
        base_buf_append_str(&b, "</td></tr>\n");
    }
    base_buf_append_str(&b, "</table>\n</body></html>\n");
    cJSON_Delete(last);
    char ipath[1100], err[BASE_ERRBUF_SIZE] = "";
    snprintf(ipath, sizeof ipath, "%s/index.html", bt->out_dir);
    if (b.data && base_write_file(ipath, b.data, b.len, err) != BASE_OK)
        fprintf(stderr, "fovea batch: index: %s\n", err);
    base_buf_fini(&b);
}

/* One results.jsonl line: the task it names is skipped when the line says
 * passed or failed (a later line of the same task overrides). */
static void recorded_line(char *line, void *user)
{
    batch *bt = user;
    cJSON *j = cJSON_Parse(line);
    const char *tp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "name"));
    const char *oc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "outcome"));
    for (int i = 0; tp && oc && i < bt->n; i++) {
        if (strcmp(bt->tasks[i].name, tp) == 0) {
            task *t = &bt->tasks[i];
            t->skip = strcmp(oc, "passed") == 0 || strcmp(oc, "failed") == 0;
            /* A skipped task counts with its recorded outcome. */
            t->out = !t->skip ? OUT_NONE : oc[0] == 'p' ? OUT_PASSED : OUT_FAILED;
        }
    }
    cJSON_Delete(j);
}

/* --resume: marks tasks whose last recorded outcome is passed or failed. */
static void mark_recorded(batch *bt)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/results.jsonl", bt->out_dir);
    each_line(path, (size_t)64 << 20, recorded_line, bt);
}

/* ---- children ----------------------------------------------------------- */

/* Starts one attempt of t: `fovea run PATH --out DIR <pass...>` and the
 * options of its kind, output to DIR/run.log. Returns 0, or -1 (message printed). */
static int spawn(batch *bt, task *t)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_mkdirs(t->dir, 0, err) != BASE_OK) {
        fprintf(stderr, "fovea batch: %s: %s\n", t->dir, err);
        return -1;
    }
    /* A trace of an earlier attempt must not be read as this one's. */
    char tpath[1300], lpath[1300];
    snprintf(tpath, sizeof tpath, "%s/trace.jsonl", t->dir);
    snprintf(lpath, sizeof lpath, "%s/run.log", t->dir);
    unlink(tpath);
    int fd = -1;
    char oerr[BASE_ERRBUF_SIZE] = "";
    if (base_open_out(lpath, BASE_OUT_APPEND, &fd, oerr) != BASE_OK) {
        fprintf(stderr, "fovea batch: %s\n", oerr);
        return -1;
    }
    char head[200];
    int hn = snprintf(head, sizeof head, "== fovea batch: attempt %d\n", t->attempts + 1);
    if (hn > 0 && write(fd, head, (size_t)hn) < 0) {
        /* the log is best effort; the run itself is what matters */
    }
    const char *argv[2 * MAX_PASS + 8];
    int k = 0;
    argv[k++] = bt->self;
    argv[k++] = "run";
    argv[k++] = t->path;
    argv[k++] = "--out";
    argv[k++] = t->dir;
    for (int i = 0; i < bt->npass; i++)
        argv[k++] = bt->pass[i];
    const char *const *kind = t->agent ? bt->apass : bt->spass;
    for (int i = 0, n = t->agent ? bt->napass : bt->nspass; i < n; i++)
        argv[k++] = kind[i];
    argv[k] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        fprintf(stderr, "fovea batch: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, STDIN_FILENO);
        /* The child handles its own stop signals (it finishes its report). */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execv(bt->self, (char *const *)(uintptr_t)argv);
        dprintf(STDERR_FILENO, "fovea batch: exec %s: %s\n", bt->self, strerror(errno));
        _exit(127);
    }
    close(fd);
    t->pid = pid;
    t->t0_ms = base_monotime_ms();
    t->attempts++;
    return 0;
}

static void progress(const batch *bt, const task *t, int done, int total)
{
    (void)bt;
    char att[32] = "";
    if (t->attempts > 1)
        snprintf(att, sizeof att, "  (%d attempts)", t->attempts);
    fprintf(stderr, "fovea batch: [%d/%d] %-14s %s  %d/%d steps  %.1f s%s\n", done, total,
            outcome_name(t->out), t->name, t->steps_passed, t->steps_total, t->wall_ms / 1000.0,
            att);
    if (t->out != OUT_PASSED && t->reason[0])
        fprintf(stderr, "fovea batch:        %s\n", t->reason);
}

/* Names the task's folder: the file's base name without .json (for a task
 * in words, its first 40 characters), made unique. */
static void name_task(batch *bt, int idx)
{
    task *t = &bt->tasks[idx];
    const char *base = t->words ? NULL : strrchr(t->path, '/');
    base = base ? base + 1 : t->path;
    size_t bl = strlen(base);
    if (bl > 5 && strcmp(base + bl - 5, ".json") == 0)
        bl -= 5;
    if (bl > (t->words ? 40u : 100u))
        bl = t->words ? 40 : 100;
    char stem[104];
    snprintf(stem, sizeof stem, "%.*s", (int)bl, base);
    for (char *c = stem; *c; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || (*c == '.' && !t->words)))
            *c = '_';
    }
    if (t->words) { /* "Find the price" -> "find_the_price" */
        for (char *c = stem; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        size_t sl = strlen(stem);
        while (sl > 1 && stem[sl - 1] == '_')
            stem[--sl] = '\0';
    }
    snprintf(t->name, sizeof t->name, "%s", stem);
    for (int n = 2;; n++) {
        int clash = 0;
        for (int i = 0; i < idx && !clash; i++)
            clash = strcmp(bt->tasks[i].name, t->name) == 0;
        if (!clash)
            break;
        snprintf(t->name, sizeof t->name, "%s-%d", stem, n);
    }
    snprintf(t->dir, sizeof t->dir, "%s/%s", bt->out_dir, t->name);
}

/* Adds a to an option list (list/n: bt's pass, spass or apass). */
static int add_opt(const char **list, int *n, const char *a)
{
    if (*n >= MAX_PASS) {
        fprintf(stderr, "fovea batch: too many options\n");
        return -1;
    }
    list[(*n)++] = a;
    return 0;
}

static int pass_opt(batch *bt, const char *a)
{
    return add_opt(bt->pass, &bt->npass, a);
}

/* Options that go to one kind of task only, with a value. */
static const char *const script_opts[] = {"--overlays", "--seed", "--page-text"};
static const char *const agent_opts[] = {"--url",          "--planner",          "--max-steps",
                                         "--token-budget", "--step-timeout",     "--candidates",
                                         "--completion-check", "--upload-dir",
                                         "--llm-first-byte", "--llm-stall",     "--llm-call-limit",
                                         "--answer-schema"};

static int in_list(const char *a, const char *const *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(a, l[i]) == 0)
            return 1;
    }
    return 0;
}

int cli_cmd_batch(int argc, char **argv)
{
    batch bt;
    memset(&bt, 0, sizeof bt);
    bt.workers = 2;
    bt.retries = 1;
    bt.out_dir = "out/batch";
    const char *cdp = NULL, *url = NULL;
    cli_pool pool;
    memset(&pool, 0, sizeof pool);
    bt.tasks = base_calloc(MAX_TASKS, sizeof *bt.tasks);
    if (!bt.tasks) {
        fprintf(stderr, "fovea batch: out of memory\n");
        return 1;
    }
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            batch_usage(stdout);
            rc = 0;
            goto done;
        }
        int pr = cli_parse_pool_opt(&pool, argc, argv, &i);
        if (pr < 0)
            goto done;
        if (pr > 0) {
            /* Passed on as given (the header's value is never printed). */
            if (pass_opt(&bt, a) < 0 || pass_opt(&bt, argv[i]) < 0)
                goto done;
            continue;
        }
        if (strcmp(a, "--resume") == 0) {
            bt.resume = 1;
            continue;
        }
        if (strcmp(a, "--no-humanize") == 0 || strcmp(a, "--allow-scripts") == 0) {
            if (pass_opt(&bt, a) < 0)
                goto done;
            continue;
        }
        if (strcmp(a, "--allow-untrusted") == 0 || strcmp(a, "--screenshot") == 0) {
            int scr = a[2] == 's';
            if (add_opt(scr ? bt.apass : bt.spass, scr ? &bt.napass : &bt.nspass, a) < 0)
                goto done;
            continue;
        }
        if (a[0] != '-') {
            if (bt.n >= MAX_TASKS) {
                fprintf(stderr, "fovea batch: at most %d tasks\n", MAX_TASKS);
                goto done;
            }
            bt.tasks[bt.n++].path = a;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fovea batch: unknown option or missing value: %s\n", a);
            batch_usage(stderr);
            goto done;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--workers") == 0) {
            if (cli_parse_int(a, v, 1, 256, &bt.workers) < 0)
                goto done;
        } else if (strcmp(a, "--retries") == 0) {
            if (cli_parse_int(a, v, 0, 100, &bt.retries) < 0)
                goto done;
        } else if (strcmp(a, "--out") == 0) {
            bt.out_dir = v;
        } else if (strcmp(a, "--cdp") == 0 || strcmp(a, "--site") == 0 ||
                   strcmp(a, "--vision") == 0 || strcmp(a, "--allow-host") == 0) {
            if (strcmp(a, "--cdp") == 0)
                cdp = v;
            if (pass_opt(&bt, a) < 0 || pass_opt(&bt, v) < 0)
                goto done;
        } else if (in_list(a, script_opts, sizeof script_opts / sizeof script_opts[0])) {
            if (add_opt(bt.spass, &bt.nspass, a) < 0 || add_opt(bt.spass, &bt.nspass, v) < 0)
                goto done;
        } else if (in_list(a, agent_opts, sizeof agent_opts / sizeof agent_opts[0])) {
            if (strcmp(a, "--url") == 0)
                url = v;
            if (strcmp(a, "--answer-schema") == 0) {
                /* Checked once, before any run starts (each run checks it
                 * again): a bad schema is the batch's usage error, not N
                 * failed tasks. */
                cJSON *sch = NULL;
                char serr[BASE_ERRBUF_SIZE] = "";
                if (agent_answer_schema_load(v, &sch, serr) != BASE_OK) {
                    fprintf(stderr, "fovea batch: --answer-schema: %s\n", serr);
                    goto done;
                }
                cJSON_Delete(sch);
            }
            if (add_opt(bt.apass, &bt.napass, a) < 0 || add_opt(bt.apass, &bt.napass, v) < 0)
                goto done;
        } else {
            fprintf(stderr, "fovea batch: unknown option %s\n", a);
            batch_usage(stderr);
            goto done;
        }
    }
    if (bt.n == 0) {
        batch_usage(stderr);
        goto done;
    }
    if ((pool.nheaders || pool.wait_ms) && !cdp) {
        fprintf(stderr, "fovea batch: --cdp-header and --cdp-wait go with --cdp\n");
        goto done;
    }
    int nagent = 0, nwords = 0;
    for (int i = 0; i < bt.n; i++) {
        task *t = &bt.tasks[i];
        struct stat st;
        int exists = stat(t->path, &st) == 0;
        if (exists && S_ISREG(st.st_mode)) {
            /* A goal file ({"goal": ...}) is a model's task, as for fovea run. */
            char run_word[] = "run";
            char *probe[] = {run_word, (char *)(uintptr_t)t->path, NULL};
            t->agent = cli_run_is_agent(2, probe);
        } else if (!exists && strchr(t->path, ' ')) {
            t->agent = t->words = 1;
        } else {
            fprintf(stderr, "fovea batch: %s: not a task file (a task in words has spaces)\n",
                    t->path);
            goto done;
        }
        nagent += t->agent;
        nwords += t->words;
    }
    if (nwords && !url) {
        fprintf(stderr, "fovea batch: a task in words needs --url (its start page)\n");
        goto done;
    }
    if (bt.napass && !nagent) {
        fprintf(stderr, "fovea batch: %s goes with tasks for a model (goal files or words)\n",
                bt.apass[0]);
        goto done;
    }
    if (bt.nspass && nagent == bt.n) {
        fprintf(stderr, "fovea batch: %s goes with scripted task files\n", bt.spass[0]);
        goto done;
    }
    ssize_t sl = readlink("/proc/self/exe", bt.self, sizeof bt.self - 1);
    if (sl <= 0) {
        fprintf(stderr, "fovea batch: cannot find the fovea binary: %s\n", strerror(errno));
        rc = 1;
        goto done;
    }
    bt.self[sl] = '\0';
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_mkdirs(bt.out_dir, 0, err) != BASE_OK) {
        fprintf(stderr, "fovea batch: %s: %s\n", bt.out_dir, err);
        rc = 1;
        goto done;
    }
    for (int i = 0; i < bt.n; i++)
        name_task(&bt, i);
    if (bt.resume)
        mark_recorded(&bt);
    int todo = 0;
    for (int i = 0; i < bt.n; i++)
        todo += !bt.tasks[i].skip;
    if (todo < bt.n)
        fprintf(stderr, "fovea batch: --resume: %d of %d tasks already recorded\n", bt.n - todo,
                bt.n);
    fprintf(stderr, "fovea batch: %d tasks, %d at once, %s, output in %s\n", todo, bt.workers,
            cdp ? "on the pool" : "each on its own Chromium", bt.out_dir);

    /* The queue: tasks in order; a retried task goes again when a worker is
     * free (it keeps its place in line ahead of later tasks). */
    int next = 0, running = 0, finished = 0, all_ok = 1, forwarded = 0;
    int *again = base_calloc((size_t)bt.n, sizeof *again);
    double t0 = base_monotime_ms();
    while (again) {
        int sig = base_interrupted();
        if (sig && !forwarded) {
            /* Stop starting tasks; the running ones finish their reports. */
            forwarded = 1;
            for (int i = 0; i < bt.n; i++) {
                if (bt.tasks[i].pid > 0)
                    kill(bt.tasks[i].pid, sig);
            }
            fprintf(stderr, "fovea batch: %s: waiting for %d running tasks to finish their "
                            "reports\n",
                    base_signal_name(sig), running);
        }
        while (!sig && running < bt.workers) {
            int pick = -1;
            for (int i = 0; i < bt.n && pick < 0; i++) {
                if (again[i])
                    pick = i;
            }
            while (pick < 0 && next < bt.n && bt.tasks[next].skip)
                next++;
            if (pick < 0 && next < bt.n)
                pick = next++;
            if (pick < 0)
                break;
            again[pick] = 0;
            if (spawn(&bt, &bt.tasks[pick]) < 0) {
                task *t = &bt.tasks[pick];
                t->out = OUT_INFRA;
                snprintf(t->reason, sizeof t->reason, "could not start fovea run");
                append_result(&bt, t);
                all_ok = 0;
                finished++;
                continue;
            }
            running++;
        }
        if (running == 0)
            break;
        int status = 0;
        struct rusage ru;
        memset(&ru, 0, sizeof ru);
        pid_t pid = wait4(-1, &status, WNOHANG, &ru);
        if (pid == 0) {
            base_interrupt_sleep_ms(50);
            continue;
        }
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        task *t = NULL;
        for (int i = 0; i < bt.n && !t; i++) {
            if (bt.tasks[i].pid == pid)
                t = &bt.tasks[i];
        }
        if (!t)
            continue;
        running--;
        t->pid = 0;
        t->wall_ms += base_monotime_ms() - t->t0_ms;
        t->max_rss_kb = ru.ru_maxrss;
        int retry = classify(t, status, bt.retries - (t->attempts - 1));
        if (retry && !base_interrupted()) {
            fprintf(stderr, "fovea batch: %s: infrastructure failure, running it again (%d/%d): "
                            "%s\n",
                    t->name, t->attempts, bt.retries, t->reason);
            again[t - bt.tasks] = 1;
            continue;
        }
        finished++;
        all_ok &= t->out == OUT_PASSED;
        append_result(&bt, t);
        write_index(&bt);
        progress(&bt, t, finished, todo);
    }
    base_free(again);
    write_index(&bt);
    int passed = 0;
    for (int i = 0; i < bt.n; i++)
        passed += bt.tasks[i].out == OUT_PASSED;
    fprintf(stderr, "fovea batch: %d/%d passed in %.1f s; index: %s/index.html\n", passed, bt.n,
            (base_monotime_ms() - t0) / 1000.0, bt.out_dir);
    if (base_interrupted())
        rc = 128 + base_interrupted();
    else
        rc = all_ok && finished == todo && passed == bt.n ? 0 : 1;
    /* The batch's own files (results.jsonl) that could not be written fail
     * it, with one line (exit 3). */
    rc = cli_out_status("fovea batch", rc);
done:
    base_free(bt.tasks);
    return rc;
}
