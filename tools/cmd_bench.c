/* tools/cmd_bench.c: `fovea bench` — foundation latency figures.
 *
 * Measures, on one page of one browser, in one process: the protocol round
 * trip of Runtime.evaluate("1"), every screenshot method fovea can use, and
 * PNG/JPEG decode. With --baseline CMD it also runs a baseline client (the
 * Node `ws` script in bench/) against the SAME page between fovea's rounds,
 * so both see the same machine load, and prints the ratio. Each figure is
 * the median (and p90) of the per-round medians (p90s) over --rounds rounds
 * of --reps repetitions, after --warmup untimed repetitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "perception/capture.h"
#include "tools/cli.h"

typedef struct stat2 {
    double median, p90;
} stat2;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stat2 summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    stat2 s;
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    int k = (int)ceil(0.9 * n) - 1;
    s.p90 = v[k < 0 ? 0 : k];
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
    perc_format fmt;
    int ofs;
} method;

static const method methods[] = {
    {"png", PERC_FMT_PNG, 0},
    {"png optimizeForSpeed (default)", PERC_FMT_PNG, 1},
    {"jpeg q80", PERC_FMT_JPEG, 0},
    {"jpeg q80 optimizeForSpeed", PERC_FMT_JPEG, 1},
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

int cli_cmd_bench(int argc, char **argv)
{
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
                   "[--rounds R] [--baseline CMD] [--json]\n\n"
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
                perc_image img = {0};
                double t0 = base_monotime_ms();
                if (perc_image_decode(d, n, &img, err)) {
                    rc = 1;
                    break;
                }
                if (i >= 0)
                    v[i] = base_monotime_ms() - t0;
                perc_image_fini(&img);
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
