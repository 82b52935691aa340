/* tools/cmd_bench.c: `fovea bench` — latency figures.
 *
 * `fovea bench steps` times whole engine steps: see bench_steps() below.
 *
 * The default mode measures, on one page of one browser, in one process: the protocol round
 * trip of Runtime.evaluate("1"), every screenshot method fovea can use, and
 * PNG/JPEG decode. With --baseline CMD it also runs a baseline client (the
 * Node `ws` script in bench/) against the SAME page between fovea's rounds,
 * so both see the same machine load, and prints the ratio. Each figure is
 * the median (and p90) of the per-round medians (p90s) over --rounds rounds
 * of --reps repetitions, after --warmup untimed repetitions.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "agent/script/run.h"
#include "perception/vision.h"
#include "agent/script/task.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/stats.h"
#include "perception/capture.h"
#include "tools/cli.h"

typedef struct stat2 {
    double median, p90;
} stat2;

static stat2 summarize(double *v, int n)
{
    base_summary b = base_summarize(v, n);
    stat2 s = {b.median, b.p90};
    return s;
}

/* Median of per-round medians and of per-round p90s. */
static stat2 combine(stat2 *r, int n)
{
    double m[16], p[16];
    for (int i = 0; i < n; i++) {
        m[i] = r[i].median;
        p[i] = r[i].p90;
    }
    stat2 a = summarize(m, n), b = summarize(p, n);
    stat2 out = {a.median, b.median};
    return out;
}

typedef struct method {
    const char *name;
    img_format fmt;
    int ofs;
} method;

static const method methods[] = {
    {"png", IMG_FMT_PNG, 0},
    {"png optimizeForSpeed (default)", IMG_FMT_PNG, 1},
    {"jpeg q80", IMG_FMT_JPEG, 0},
    {"jpeg q80 optimizeForSpeed", IMG_FMT_JPEG, 1},
};
#define NMETHODS (int)(sizeof methods / sizeof methods[0])

static int run_baseline(const char *cmd, cli_session *s, int reps, int warmup, stat2 *out)
{
    /* The baseline prints one line: "median_ms p90_ms". */
    const char *ws = cdp_process_ws_url(cdp_browser_process(s->browser));
    char page_ws[512];
    const char *p = strstr(ws, "/devtools/");
    if (!p)
        return -1;
    snprintf(page_ws, sizeof page_ws, "%.*s/devtools/page/%s", (int)(p - ws), ws,
             cdp_page_target_id(s->page));
    char line[1024];
    snprintf(line, sizeof line, "%s '%s' %d %d", cmd, page_ws, reps, warmup);
    FILE *f = popen(line, "r");
    if (!f)
        return -1;
    double m = 0, q = 0;
    int got = fscanf(f, "%lf %lf", &m, &q);
    int st = pclose(f);
    if (got != 2 || st != 0)
        return -1;
    out->median = m;
    out->p90 = q;
    return 0;
}


/* Flips the page background so the next frame differs from the last. */
static base_err mutate(cdp_page *page, int i, char *err)
{
    char js[128];
    snprintf(js, sizeof js, "document.body.style.background = '%s'; 1",
             i % 2 ? "rgb(250,250,250)" : "rgb(240,240,240)");
    return cdp_page_evaluate(page, js, NULL, 5000, err);
}

static void ack_ignore(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)e;
    (void)result;
    (void)msg;
    (void)user;
}

/* "A fresh frame after an action", three ways: mutate then capture (the
 * default method); mutate then wait for the next screencast frame; and
 * HeadlessExperimental.beginFrame, which only old-style headless supports
 * (reported as unsupported otherwise). Fills fresh[0..1]; returns 0. */
static int bench_fresh(cdp_page *page, double *v, int reps, int warmup, stat2 *fresh,
                       char *begin_frame_note, size_t note_n, char *err)
{
    for (int i = -warmup; i < reps; i++) {
        double t0 = base_monotime_ms();
        uint8_t *d = NULL;
        size_t n = 0;
        if (mutate(page, i, err) || perc_capture_encoded(page, NULL, &d, &n, NULL, NULL, err))
            return -1;
        base_free(d);
        if (i >= 0)
            v[i] = base_monotime_ms() - t0;
    }
    fresh[0] = summarize(v, reps);
    cdp_conn *c = cdp_page_conn(page);
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "format", "png");
    cJSON_AddNumberToObject(pa, "everyNthFrame", 1);
    if (cdp_page_call(page, "Page.startScreencast", pa, NULL, 5000, err))
        return -1;
    int rc = 0;
    for (int i = -warmup; i < reps && !rc; i++) {
        cdp_waiter *w = NULL;
        if (cdp_waiter_create(c, cdp_page_session(page), "Page.screencastFrame", NULL, NULL, &w)) {
            rc = -1;
            break;
        }
        double t0 = base_monotime_ms();
        cJSON *frame = NULL;
        if (mutate(page, i, err) || cdp_waiter_wait(w, 5000, &frame)) {
            base_errf(err, BASE_ETIMEDOUT, "no screencast frame after a change");
            rc = -1;
        }
        double dt = base_monotime_ms() - t0;
        cdp_waiter_destroy(w);
        if (frame) {
            const cJSON *sid = cJSON_GetObjectItemCaseSensitive(frame, "sessionId");
            cJSON *ack = cJSON_CreateObject();
            cJSON_AddNumberToObject(ack, "sessionId", cJSON_IsNumber(sid) ? sid->valuedouble : 0);
            cdp_call_async(c, cdp_page_session(page), "Page.screencastFrameAck", ack, 5000,
                           ack_ignore, NULL);
            cJSON_Delete(frame);
        }
        if (i >= 0)
            v[i] = dt;
    }
    cdp_page_call(page, "Page.stopScreencast", NULL, NULL, 5000, NULL);
    if (rc)
        return rc;
    fresh[1] = summarize(v, reps);
    char e2[BASE_ERRBUF_SIZE] = "";
    if (cdp_call(c, cdp_page_session(page), "HeadlessExperimental.beginFrame", NULL, NULL, 5000,
                 e2))
        snprintf(begin_frame_note, note_n, "%s", e2);
    else
        snprintf(begin_frame_note, note_n, "available (not timed: needs --enable-begin-frame-control)");
    return 0;
}

/* ---- fovea bench steps ------------------------------------------------------
 *
 * Runs a task through the real runner (agent_run: gate -> prefetched vision
 * -> snapper -> cascade -> settle) and reports, per stage, the median and
 * p90 over the timed steps. The first --warmup steps run on a cold page
 * (first vision pass, script compilation, the consent wall of the bench
 * task) and are not counted; then steps warmup+1.. are cycled until --n
 * steps have been timed, so the task's tail must leave the page as it found
 * it (assets/tasks/bench.json does). Every figure comes from the runner's
 * own per-step record (agent_stage_ms), measured where the work happens. */

/* Stages, in the order of the table; "gate" is the gate's wall time
 * (fingerprint + waiting for vision), "other" what the step spent outside
 * the listed stages (choosing the box, reading the URL, the trace line). */
enum {
    ST_CAPTURE, ST_DECODE, ST_FINGERPRINT, ST_VISION, ST_GATE, ST_OVERLAY, ST_SNAP, ST_MOTION,
    ST_DISPATCH, ST_SETTLE, ST_OTHER, ST_TOTAL, ST_COUNT
};
static const char *const stage_names[ST_COUNT] = {
    "capture", "decode", "fingerprint", "vision", "gate", "overlay", "snap", "motion",
    "dispatch", "settle", "other", "total"};
static const char *const stage_notes[ST_COUNT] = {
    "prefetch: Page.captureScreenshot + base64 (a)",
    "prefetch: PNG decode (a)",
    "gate: page fingerprint (inside gate)",
    "prefetch: provider detect + DOM enrichment (a)",
    "gate wall time: fingerprint + waiting for vision",
    "steps/NNN.png (off unless --overlays)",
    "epoch element check (procedural) or live probe + snapper",
    "inside dispatch (b)",
    "cascade: probe, press, effect wait",
    "navigation check + next prefetch scheduled",
    "box choice, URL read, trace line",
    "whole step"};

typedef struct steps_bench {
    int warmup, n, got, failed;
    double (*v)[ST_COUNT]; /* [n][stage] */
    int declarative, procedural;
    cJSON *steps;          /* per-step rows for --json */
    /* Procedural steps by the path that found the element (the record's
     * snap_path): PP_EPOCH, PP_FALLBACK, PP_SNAPPER; snap and step ms each. */
    int np[3];
    double *psnap[3], *ptotal[3];
} steps_bench;

enum { PP_EPOCH, PP_FALLBACK, PP_SNAPPER, PP_COUNT };
static const char *const pp_names[PP_COUNT] = {"epoch", "fallback", "snapper"};

static void steps_on_step(const agent_step_record *r, void *user)
{
    steps_bench *b = user;
    if (!r->ok)
        b->failed = r->index;
    if (r->index <= b->warmup || b->got >= b->n)
        return;
    double *v = b->v[b->got++];
    const agent_stage_ms *m = &r->ms;
    v[ST_CAPTURE] = m->capture;
    v[ST_DECODE] = m->decode;
    v[ST_FINGERPRINT] = m->fingerprint;
    v[ST_VISION] = m->vision;
    v[ST_GATE] = m->gate;
    v[ST_OVERLAY] = m->overlay;
    v[ST_SNAP] = m->snap;
    v[ST_MOTION] = m->motion;
    v[ST_DISPATCH] = m->dispatch;
    v[ST_SETTLE] = m->settle;
    v[ST_TOTAL] = r->total_ms;
    double on_path = m->gate + m->overlay + m->snap + m->motion + m->dispatch + m->settle;
    v[ST_OTHER] = r->total_ms > on_path ? r->total_ms - on_path : 0;
    if (strcmp(r->gate, "declarative") == 0)
        b->declarative++;
    else if (strcmp(r->gate, "procedural") == 0)
        b->procedural++;
    for (int k = 0; k < PP_COUNT; k++) {
        if (strcmp(r->snap_path, pp_names[k]) == 0) {
            b->psnap[k][b->np[k]] = m->snap;
            b->ptotal[k][b->np[k]++] = r->total_ms;
        }
    }
    cJSON *row = cJSON_CreateObject();
    cJSON_AddNumberToObject(row, "step", r->index);
    cJSON_AddStringToObject(row, "desc", r->desc);
    cJSON_AddStringToObject(row, "gate", r->gate);
    cJSON_AddStringToObject(row, "phase", r->phase);
    cJSON_AddStringToObject(row, "path", r->snap_path);
    cJSON *ms = cJSON_AddObjectToObject(row, "ms");
    for (int k = 0; k < ST_COUNT; k++)
        cJSON_AddNumberToObject(ms, stage_names[k], round(v[k] * 100) / 100);
    cJSON_AddItemToArray(b->steps, row);
}

/* Median of v[0..n) (0 for none); v is reordered. */
static double med(double *v, int n)
{
    return n > 0 ? summarize(v, n).median : 0.0;
}

/* The procedural steps by path: printed to f, or added to j as
 * "procedural_paths" (one of the two). "epoch mode" is epoch + fallback: what
 * a procedural step costs with the epoch check on, refusals included; the
 * saving is the snapper path's median minus that. */
static void proc_summary(steps_bench *b, FILE *f, cJSON *j)
{
    double snap[PP_COUNT], total[PP_COUNT];
    for (int k = 0; k < PP_COUNT; k++) {
        snap[k] = med(b->psnap[k], b->np[k]);
        total[k] = med(b->ptotal[k], b->np[k]);
    }
    /* epoch + fallback, appended in place (the arrays hold n entries in all). */
    int nm = b->np[PP_EPOCH] + b->np[PP_FALLBACK];
    double *ms = base_calloc(nm > 0 ? (size_t)nm : 1, sizeof *ms);
    double *mt = base_calloc(nm > 0 ? (size_t)nm : 1, sizeof *mt);
    double msnap = 0, mtotal = 0;
    if (ms && mt) {
        memcpy(ms, b->psnap[PP_EPOCH], (size_t)b->np[PP_EPOCH] * sizeof *ms);
        memcpy(ms + b->np[PP_EPOCH], b->psnap[PP_FALLBACK], (size_t)b->np[PP_FALLBACK] * sizeof *ms);
        memcpy(mt, b->ptotal[PP_EPOCH], (size_t)b->np[PP_EPOCH] * sizeof *mt);
        memcpy(mt + b->np[PP_EPOCH], b->ptotal[PP_FALLBACK],
               (size_t)b->np[PP_FALLBACK] * sizeof *mt);
        msnap = med(ms, nm);
        mtotal = med(mt, nm);
    }
    base_free(ms);
    base_free(mt);
    int both = nm > 0 && b->np[PP_SNAPPER] > 0;
    if (j) {
        cJSON *o = cJSON_AddObjectToObject(j, "procedural_paths");
        for (int k = 0; o && k < PP_COUNT; k++) {
            cJSON *p = cJSON_AddObjectToObject(o, pp_names[k]);
            cJSON_AddNumberToObject(p, "n", b->np[k]);
            cJSON_AddNumberToObject(p, "snap_median", round(snap[k] * 1000) / 1000);
            cJSON_AddNumberToObject(p, "step_median", round(total[k] * 1000) / 1000);
        }
        cJSON *p = o ? cJSON_AddObjectToObject(o, "epoch_mode") : NULL;
        cJSON_AddNumberToObject(p, "n", nm);
        cJSON_AddNumberToObject(p, "snap_median", round(msnap * 1000) / 1000);
        cJSON_AddNumberToObject(p, "step_median", round(mtotal * 1000) / 1000);
        return;
    }
    fprintf(f, "procedural steps by path (snap = finding the element):\n");
    fprintf(f, "  %-26s %5s %16s %16s\n", "path", "steps", "snap median ms", "step median ms");
    static const char *const what[PP_COUNT] = {"epoch element (phase P)",
                                               "epoch refused -> snapper", "snapper probe"};
    for (int k = 0; k < PP_COUNT; k++)
        fprintf(f, "  %-26s %5d %16.2f %16.2f\n", what[k], b->np[k], snap[k], total[k]);
    fprintf(f, "  %-26s %5d %16.2f %16.2f\n", "epoch mode (both above)", nm, msnap, mtotal);
    if (both)
        fprintf(f, "  saving per procedural step (snapper - epoch mode): snap %.2f ms, step "
                   "%.2f ms\n", snap[PP_SNAPPER] - msnap, total[PP_SNAPPER] - mtotal);
}

static void steps_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea bench steps [options]\n\n"
            "Per-step latency of the engine: runs a task through the runner (gate, vision,\n"
            "snapper, cascade) and prints the median and p90 of every stage over N steps.\n\n"
            "  --task FILE      task to run (default assets/tasks/bench.json)\n"
            "  --site DIR       folder served on loopback (default assets/site)\n"
            "  --n N            steps timed (default 24 for the bench task, one pass over\n"
            "                   any other --task); the steps after the warm-up are repeated\n"
            "                   in order until N have run\n"
            "  --warmup K       first K steps run but not timed (default 1)\n"
            "  --vision NAME    dom (default) or openai\n"
            "  --no-humanize    straight, untimed pointer and key events (the default here)\n"
            "  --humanize       Bezier paths and typing cadence\n"
            "  --overlays WHICH none (default here), failures or all\n"
            "  --out DIR        trace folder (default out/bench)\n"
            "  --cdp URL        attach instead of launching Chromium\n"
            "  --seed N         seed of the cursor paths and typing (default 1)\n"
            "  --procedural P   how steps on an unchanged page find their element: epoch\n"
            "                   (the vision epoch's element, checked; default), snapper\n"
            "                   (probe the box, the path before), or both (drawn per step\n"
            "                   from the seed, to compare the two in one run)\n"
            "  --think MS       before each step, wait up to MS for the vision pass the\n"
            "                   last step scheduled, as a model's time between steps\n"
            "                   would (not timed; default 0: steps back to back, so a\n"
            "                   step gates procedurally only when the pass beat it)\n"
            "  --json           one JSON object on stdout\n"
            "  --verbose        the runner's progress line per step on stderr\n");
}

static int bench_steps(int argc, char **argv)
{
    const char *task_path = "assets/tasks/bench.json", *site = "assets/site", *cdp = NULL;
    agent_run_opts ro;
    agent_run_opts_init(&ro);
    ro.session.humanize = 0;
    ro.session.overlays = AGENT_OVERLAYS_NONE;
    ro.out_dir = "out/bench";
    ro.no_summary = 1;
    int n = 0, warmup = 1, json = 0, verbose = 0, seed = 1, task_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            steps_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        if (strcmp(a, "--verbose") == 0) {
            verbose = 1;
            continue;
        }
        if (strcmp(a, "--no-humanize") == 0 || strcmp(a, "--humanize") == 0) {
            ro.session.humanize = strcmp(a, "--humanize") == 0;
            continue;
        }
        if (i + 1 >= argc || a[0] != '-') {
            fprintf(stderr, "fovea bench steps: unknown option or missing value: %s\n", a);
            steps_usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        int bad = 0;
        if (strcmp(a, "--task") == 0) {
            task_path = v;
            task_given = 1;
        } else if (strcmp(a, "--site") == 0)
            site = v;
        else if (strcmp(a, "--cdp") == 0)
            cdp = v;
        else if (strcmp(a, "--out") == 0)
            ro.out_dir = v;
        else if (strcmp(a, "--vision") == 0)
            ro.session.vision = v;
        else if (strcmp(a, "--n") == 0)
            bad = cli_parse_int("--n", v, 1, AGENT_TASK_MAX_STEPS - 1, &n) < 0;
        else if (strcmp(a, "--warmup") == 0)
            bad = cli_parse_int("--warmup", v, 0, 100, &warmup) < 0;
        else if (strcmp(a, "--seed") == 0)
            bad = cli_parse_int("--seed", v, 0, 2147483647, &seed) < 0;
        else if (strcmp(a, "--think") == 0)
            bad = cli_parse_int("--think", v, 0, 600000, &ro.think_ms) < 0;
        else if (strcmp(a, "--procedural") == 0) {
            static const char *const modes[] = {"epoch", "snapper", "both"};
            bad = 1;
            for (int k = 0; k < 3; k++) {
                if (strcmp(v, modes[k]) == 0) {
                    ro.session.procedural = (agent_proc_mode)k;
                    bad = 0;
                }
            }
            if (bad)
                fprintf(stderr, "fovea bench steps: --procedural must be epoch, snapper or both, "
                                "got '%s'\n", v);
        }
        else if (strcmp(a, "--overlays") == 0) {
            if (agent_overlays_parse(v, &ro.session.overlays) < 0) {
                fprintf(stderr, "fovea bench steps: --overlays must be all, failures or none, "
                                "got '%s'\n", v);
                bad = 1;
            }
        } else {
            fprintf(stderr, "fovea bench steps: unknown option %s\n", a);
            steps_usage(stderr);
            bad = 1;
        }
        if (bad)
            return 2;
    }
    if (!perc_vision_name_known(ro.session.vision)) {
        fprintf(stderr, "fovea bench steps: --vision must be " PERC_VISION_NAMES ", got '%s'\n",
                ro.session.vision);
        return 2;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    agent_task *task = NULL;
    if (agent_task_load(task_path, &task, err) != BASE_OK) {
        fprintf(stderr, "fovea bench steps: %s\n", err);
        return 2;
    }
    int cycle = task->n_steps - warmup;
    /* Default: 24 steps of the bench task; one pass over another task (it
     * may not be repeatable). */
    if (n == 0)
        n = task_given ? (cycle > 0 ? cycle : 1) : 24;
    if (cycle < 1 || warmup + n > AGENT_TASK_MAX_STEPS) {
        fprintf(stderr, "fovea bench steps: %s has %d step%s: nothing left to time after %d "
                        "warm-up step%s (or --n too large)\n",
                task_path, task->n_steps, task->n_steps == 1 ? "" : "s", warmup,
                warmup == 1 ? "" : "s");
        agent_task_free(task);
        return 2;
    }
    /* The run: the warm-up steps, then the rest cycled to n timed steps. The
     * step structs are shallow copies (the strings stay the task's). */
    agent_task run = *task;
    run.n_steps = warmup + n;
    run.steps = base_calloc((size_t)run.n_steps, sizeof *run.steps);
    steps_bench b;
    memset(&b, 0, sizeof b);
    b.warmup = warmup;
    b.n = n;
    b.v = base_calloc((size_t)n, sizeof *b.v);
    b.steps = cJSON_CreateArray();
    int palloc = 1;
    for (int k = 0; k < PP_COUNT; k++) {
        b.psnap[k] = base_calloc((size_t)n, sizeof *b.psnap[k]);
        b.ptotal[k] = base_calloc((size_t)n, sizeof *b.ptotal[k]);
        palloc = palloc && b.psnap[k] && b.ptotal[k];
    }
    FILE *devnull = verbose ? NULL : fopen("/dev/null", "w");
    if (!run.steps || !b.v || !b.steps || !palloc || (!verbose && !devnull)) {
        for (int k = 0; k < PP_COUNT; k++) {
            base_free(b.psnap[k]);
            base_free(b.ptotal[k]);
        }
        fprintf(stderr, "fovea bench steps: out of memory\n");
        base_free(run.steps);
        base_free(b.v);
        cJSON_Delete(b.steps);
        if (devnull)
            fclose(devnull);
        agent_task_free(task);
        return 1;
    }
    for (int i = 0; i < run.n_steps; i++)
        run.steps[i] = task->steps[i < warmup ? i : warmup + (i - warmup) % cycle];
    ro.session.seed = (uint64_t)seed;
    ro.task_file = task_path;
    ro.session.progress = verbose ? stderr : devnull;
    ro.on_step = steps_on_step;
    ro.on_step_user = &b;

    serve_httpd *srv = NULL;
    cli_session s;
    int status =
        cli_task_session_open("fovea bench steps", task, task_path, site, cdp, 0, &srv, &s);
    agent_run_result res;
    memset(&res, 0, sizeof res);
    const char *product = "";
    char url[1024] = "";
    if (status == 0) {
        ro.browser = cdp_browser_product(s.browser);
        product = ro.browser;
        snprintf(url, sizeof url, "%s", s.url);
        if (agent_run(s.page, &run, &ro, &res, err) != BASE_OK) {
            fprintf(stderr, "fovea bench steps: %s\n", err);
            status = 1;
        } else if (!res.ok || b.got < n) {
            fprintf(stderr, "fovea bench steps: the run failed at %s (trace: %s/trace.jsonl)%s\n",
                    res.reason, ro.out_dir,
                    res.failed_step > task->n_steps
                        ? "; steps after the warm-up are repeated, so the task must leave the "
                          "page as it found it"
                        : "");
            status = 1;
        }
    }
    if (status == 0) {
        stat2 st[ST_COUNT];
        double *col = base_calloc((size_t)n, sizeof *col);
        for (int k = 0; col && k < ST_COUNT; k++) {
            for (int i = 0; i < n; i++)
                col[i] = b.v[i][k];
            st[k] = summarize(col, n);
        }
        if (!col) {
            fprintf(stderr, "fovea bench steps: out of memory\n");
            status = 1;
        } else if (json) {
            /* Members are added unchecked: a failed allocation while the
             * report is built means a partial one, which is not printed. */
            unsigned long fails0 = base_alloc_thread_failures();
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "task", task->name);
            cJSON_AddStringToObject(j, "file", task_path);
            cJSON_AddStringToObject(j, "browser", product);
            cJSON_AddStringToObject(j, "vision", ro.session.vision);
            cJSON_AddBoolToObject(j, "humanize", ro.session.humanize);
            cJSON_AddStringToObject(j, "overlays", ro.session.overlays == AGENT_OVERLAYS_ALL ? "all"
                                                   : ro.session.overlays == AGENT_OVERLAYS_FAILURES
                                                       ? "failures"
                                                       : "none");
            cJSON_AddNumberToObject(j, "n", n);
            cJSON_AddNumberToObject(j, "warmup", warmup);
            cJSON_AddNumberToObject(j, "declarative", b.declarative);
            cJSON_AddNumberToObject(j, "procedural", b.procedural);
            proc_summary(&b, NULL, j);
            cJSON *stages = cJSON_AddObjectToObject(j, "stages");
            for (int k = 0; k < ST_COUNT; k++) {
                cJSON *o = cJSON_AddObjectToObject(stages, stage_names[k]);
                cJSON_AddNumberToObject(o, "median", round(st[k].median * 1000) / 1000);
                cJSON_AddNumberToObject(o, "p90", round(st[k].p90 * 1000) / 1000);
            }
            cJSON_AddItemToObject(j, "steps", b.steps);
            b.steps = NULL;
            char *out =
                base_alloc_thread_failures() == fails0 ? cJSON_PrintUnformatted(j) : NULL;
            cJSON_Delete(j);
            if (out) {
                printf("%s\n", out);
            } else {
                fprintf(stderr, "fovea bench steps: out of memory building the JSON report\n");
                status = 1;
            }
            cJSON_free(out);
        } else {
            printf("fovea bench steps: %s, %d steps timed after %d warm-up, vision %s, %s, "
                   "overlays %s\n%s on %s\n",
                   task->name, n, warmup, ro.session.vision, ro.session.humanize ? "humanized" : "no humanization",
                   ro.session.overlays == AGENT_OVERLAYS_ALL        ? "all"
                   : ro.session.overlays == AGENT_OVERLAYS_FAILURES ? "failures"
                                                            : "none",
                   product, url);
            printf("%-12s %10s %10s  %s\n", "stage", "median ms", "p90 ms", "what");
            for (int k = 0; k < ST_COUNT; k++)
                printf("%-12s %10.2f %10.2f  %s\n", stage_names[k], st[k].median, st[k].p90,
                       stage_notes[k]);
            printf("gate: %d declarative (waited for vision), %d procedural (epoch still "
                   "valid)\n",
                   b.declarative, b.procedural);
            proc_summary(&b, stdout, NULL);
            printf("(a) runs in the prefetch thread; counted only for steps that waited for "
                   "that pass,\n    so its time is part of gate, not added to it\n"
                   "(b) the cascade reports one time per action; cursor motion is not split "
                   "from dispatch\n");
        }
        base_free(col);
    }
    cli_session_close(&s); /* zeroed when it was not opened */
    serve_httpd_destroy(srv);
    if (devnull)
        fclose(devnull);
    cJSON_Delete(b.steps);
    base_free(b.v);
    for (int k = 0; k < PP_COUNT; k++) {
        base_free(b.psnap[k]);
        base_free(b.ptotal[k]);
    }
    base_free(run.steps);
    agent_task_free(task);
    return status;
}

int cli_cmd_bench(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "steps") == 0)
        return bench_steps(argc - 1, argv + 1);
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    int reps = 50, warmup = 10, rounds = 3, json = 0;
    const char *baseline = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if (cli_parse_int("--reps", argv[++i], 5, 100000, &reps) < 0)
                return 2;
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            if (cli_parse_int("--rounds", argv[++i], 1, 16, &rounds) < 0)
                return 2;
        } else if (strcmp(argv[i], "--baseline") == 0 && i + 1 < argc) {
            baseline = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: fovea bench (--url URL | --site DIR [--url PATH]) [--reps N] "
                   "[--rounds R] [--baseline CMD] [--json]\n"
                   "       fovea bench steps [--task FILE] [--n N] [--json] ... "
                   "(fovea bench steps --help)\n\n"
                   "Prints median and p90 (ms) of the CDP round trip, each capture method and\n"
                   "PNG/JPEG decode. --baseline CMD is run as `CMD PAGE_WS_URL REPS WARMUP` and\n"
                   "must print \"median p90\"; fovea reports the ratio.\n");
            fputs(cli_browser_opts_help, stdout);
            return 0;
        } else {
            fprintf(stderr, "fovea bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    cli_session s;
    if (cli_session_open(&s, &bo))
        return 1;
    char err[BASE_ERRBUF_SIZE] = "";
    double *v = base_calloc((size_t)reps, sizeof *v);
    stat2 rtt[16], base_rtt[16], cap[NMETHODS][16], dec_png[16], dec_jpg[16];
    stat2 fresh_cap[16], fresh_cast[16];
    char bf_note[BASE_ERRBUF_SIZE] = "";
    size_t bytes[NMETHODS] = {0};
    int nbase = 0, rc = 0;
    uint8_t *png = NULL, *jpg = NULL;
    size_t npng = 0, njpg = 0;
    for (int r = 0; r < rounds && !rc; r++) {
        /* Round trip of Runtime.evaluate("1") on the page session. */
        for (int i = -warmup; i < reps; i++) {
            cJSON *pa = cJSON_CreateObject();
            cJSON_AddStringToObject(pa, "expression", "1");
            double t0 = base_monotime_ms();
            if (cdp_page_call(s.page, "Runtime.evaluate", pa, NULL, 5000, err)) {
                rc = 1;
                break;
            }
            if (i >= 0)
                v[i] = base_monotime_ms() - t0;
        }
        if (rc)
            break;
        rtt[r] = summarize(v, reps);
        if (baseline) {
            if (run_baseline(baseline, &s, reps, warmup, &base_rtt[nbase]) == 0)
                nbase++;
            else
                fprintf(stderr, "fovea bench: baseline command failed: %s\n", baseline);
        }
        for (int m = 0; m < NMETHODS && !rc; m++) {
            perc_capture_opts co;
            perc_capture_opts_init(&co);
            co.format = methods[m].fmt;
            co.optimize_for_speed = methods[m].ofs;
            for (int i = -warmup; i < reps; i++) {
                uint8_t *d = NULL;
                size_t n = 0;
                double t0 = base_monotime_ms();
                if (perc_capture_encoded(s.page, &co, &d, &n, NULL, NULL, err)) {
                    rc = 1;
                    break;
                }
                double dt = base_monotime_ms() - t0;
                if (i >= 0)
                    v[i] = dt;
                bytes[m] = n;
                /* Keep one plain PNG and one JPEG for the decode figures. */
                if (m == 0 && !png) {
                    png = d;
                    npng = n;
                } else if (m == 2 && !jpg) {
                    jpg = d;
                    njpg = n;
                } else {
                    base_free(d);
                }
            }
            if (!rc)
                cap[m][r] = summarize(v, reps);
        }
        for (int which = 0; which < 2 && !rc; which++) {
            const uint8_t *d = which ? jpg : png;
            size_t n = which ? njpg : npng;
            for (int i = -warmup; i < reps; i++) {
                img_image img = {0};
                double t0 = base_monotime_ms();
                if (img_decode(d, n, &img, err)) {
                    rc = 1;
                    break;
                }
                if (i >= 0)
                    v[i] = base_monotime_ms() - t0;
                img_fini(&img);
            }
            if (!rc) {
                if (which)
                    dec_jpg[r] = summarize(v, reps);
                else
                    dec_png[r] = summarize(v, reps);
            }
        }
        stat2 fr[2];
        if (!rc && bench_fresh(s.page, v, reps, warmup, fr, bf_note, sizeof bf_note, err))
            rc = 1;
        if (!rc) {
            fresh_cap[r] = fr[0];
            fresh_cast[r] = fr[1];
        }
    }
    base_free(v);
    base_free(png);
    base_free(jpg);
    if (rc) {
        fprintf(stderr, "fovea bench: %s\n", err);
        cli_session_close(&s);
        return 1;
    }
    stat2 a = combine(rtt, rounds);
    stat2 b = nbase ? combine(base_rtt, nbase) : (stat2){0, 0};
    stat2 dp = combine(dec_png, rounds), dj = combine(dec_jpg, rounds);
    stat2 fc = combine(fresh_cap, rounds), fs = combine(fresh_cast, rounds);
    const char *product = cdp_browser_product(s.browser);
    if (json) {
        printf("{\"browser\":\"%s\",\"viewport\":[%d,%d],\"scale\":%g,\"reps\":%d,\"rounds\":%d,",
               product, bo.width, bo.height, bo.scale, reps, rounds);
        printf("\"rtt\":{\"median\":%.4f,\"p90\":%.4f},", a.median, a.p90);
        if (nbase)
            printf("\"baseline_rtt\":{\"median\":%.4f,\"p90\":%.4f,\"ratio\":%.3f},", b.median,
                   b.p90, a.median / b.median);
        printf("\"capture\":[");
        for (int m = 0; m < NMETHODS; m++) {
            stat2 c = combine(cap[m], rounds);
            printf("%s{\"method\":\"%s\",\"median\":%.3f,\"p90\":%.3f,\"bytes\":%zu}", m ? "," : "",
                   methods[m].name, c.median, c.p90, bytes[m]);
        }
        printf("],\"decode_png\":{\"median\":%.3f,\"p90\":%.3f},\"decode_jpeg\":{\"median\":%.3f,"
               "\"p90\":%.3f},",
               dp.median, dp.p90, dj.median, dj.p90);
        printf("\"fresh_capture\":{\"median\":%.3f,\"p90\":%.3f},\"fresh_screencast\":{\"median\":"
               "%.3f,\"p90\":%.3f}}\n",
               fc.median, fc.p90, fs.median, fs.p90);
    } else {
        printf("fovea bench: %s, %dx%d @%gx, %d rounds x %d reps (+%d warm-up), %s\n", s.url,
               bo.width, bo.height, bo.scale, rounds, reps, warmup, product);
        printf("%-44s %10s %10s\n", "operation", "median ms", "p90 ms");
        printf("%-44s %10.3f %10.3f\n", "Runtime.evaluate(\"1\") round trip (fovea)", a.median,
               a.p90);
        if (nbase) {
            printf("%-44s %10.3f %10.3f\n", "Runtime.evaluate(\"1\") round trip (baseline)",
                   b.median, b.p90);
            printf("%-44s %10.2fx\n", "ratio fovea / baseline (median)", a.median / b.median);
        }
        for (int m = 0; m < NMETHODS; m++) {
            stat2 c = combine(cap[m], rounds);
            char name[96];
            snprintf(name, sizeof name, "capture %s (%zu KiB)", methods[m].name, bytes[m] / 1024);
            printf("%-44s %10.2f %10.2f\n", name, c.median, c.p90);
        }
        printf("%-44s %10.2f %10.2f\n", "decode PNG (libpng)", dp.median, dp.p90);
        printf("%-44s %10.2f %10.2f\n", "decode JPEG q80 (TurboJPEG)", dj.median, dj.p90);
        printf("%-44s %10.2f %10.2f\n", "fresh frame: change + capture (default)", fc.median,
               fc.p90);
        printf("%-44s %10.2f %10.2f\n", "fresh frame: change + next screencast frame", fs.median,
               fs.p90);
        printf("beginFrame: %s\n", bf_note);
    }
    cli_session_close(&s);
    return 0;
}
