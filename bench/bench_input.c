/* bench/bench_input.c: what the hand's other input verbs cost
 * (cascade/input.h), against cascade_click in the same process and page.
 *
 *   bench_input [--reps N]
 *
 * Launches Chromium, serves the fixture pages on 127.0.0.1 and, on
 * tests/fixtures/pages/hand/verbs.html without humanization, times N of
 * each (every action has a visible effect, so none waits out effect_ms):
 *   click       cascade_click on "Add row" (appends a row): the baseline;
 *   keys        cascade_keys "x" then "Backspace" into the focused field;
 *   chord       cascade_keys "Control+A" on the field (selection change);
 *   double      cascade_press DOUBLE on the edit-in-place cell (toggles);
 *   right       cascade_press RIGHT on the context-menu target;
 *   hover       cascade_press HOVER alternating between the two menus;
 *   options     cascade_dropdown_options on the native <select> (a read);
 *   select      cascade_dropdown_select alternating two options.
 * Prints one JSON object: medians/p90 and each median's ratio to click's.
 * Every action must succeed, else exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "serve/httpd.h"
#include "base/stats.h"
#include "cascade/input.h"
#include "cdp/browser.h"

enum { K_CLICK, K_KEYS, K_CHORD, K_DOUBLE, K_RIGHT, K_HOVER, K_OPTIONS, K_SELECT, K_N };
static const char *const NAMES[K_N] = {"click", "keys", "chord", "double", "right",
                                       "hover", "options", "select"};

static cascade_target xp(const char *x)
{
    cascade_target t;
    memset(&t, 0, sizeof t);
    t.xpath = x;
    t.label = x;
    return t;
}

int main(int argc, char **argv)
{
    int reps = 100;
    if (argc == 3 && !strcmp(argv[1], "--reps"))
        reps = atoi(argv[2]);
    if (reps < 1 || reps > 10000 || (argc != 1 && argc != 3)) {
        fprintf(stderr, "usage: bench_input [--reps N]\n");
        return 2;
    }
    char err[256] = "";
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
    serve_httpd *srv = NULL;
    cdp_browser *b = NULL;
    cdp_page *p = NULL;
    cascade_hand *h = NULL;
    double *t[K_N];
    for (int k = 0; k < K_N; k++)
        t[k] = calloc((size_t)reps, sizeof(double));
    int rc = 1;
    const char *what = "";
    cascade_result r;
    memset(&r, 0, sizeof r);
    for (int k = 0; k < K_N; k++)
        if (!t[k])
            goto out;
    if (serve_httpd_start(&ho, &srv, err) || cdp_browser_launch(NULL, &b, err))
        goto out;
    cdp_page_opts po = {1000, 760, 1.0, 0};
    char url[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hand/verbs.html", serve_httpd_port(srv));
    if (cdp_page_open(b, &po, &p, err) || cdp_page_navigate(p, url, 15000, err))
        goto out;
    cascade_opts o;
    cascade_opts_init(&o);
    o.humanize = 0;
    if (cascade_hand_create(p, &o, &h, err))
        goto out;
    cascade_target add = xp("//*[@id='add']"), q = xp("//*[@id='q']"), dbl = xp("//*[@id='dbl']");
    cascade_target rcl = xp("//*[@id='rc']"), prod = xp("//*[@id='products']/button");
    cascade_target comp = xp("//*[@id='company']/button"), sel = xp("//*[@id='country']");
    cascade_key kx, kbs, kca;
    if (cascade_key_parse("x", &kx, err) || cascade_key_parse("Backspace", &kbs, err) ||
        cascade_key_parse("Control+A", &kca, err))
        goto out;
    /* Warm-up (installs the page half) and focus on the field. */
    for (int i = 0; i < 5; i++)
        if (cascade_click(h, &add, &r, err) || !r.success)
            goto fail;
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        what = "click";
        if (cascade_click(h, &add, &r, err) || r.reason != CASCADE_OK)
            goto fail;
        t[K_CLICK][i] = base_monotime_ms() - t0;
    }
    /* Keys go to the field (the clicks above moved focus to the button). */
    if (cascade_keys(h, &q, &kx, 1, 1, &r, err) || !r.success)
        goto fail;
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        what = "keys";
        if (cascade_keys(h, NULL, i % 2 ? &kbs : &kx, 1, 1, &r, err) || r.reason != CASCADE_OK)
            goto fail;
        t[K_KEYS][i] = base_monotime_ms() - t0;
    }
    /* Chords: select all, then a key to drop the selection again. */
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        what = "chord";
        if (cascade_keys(h, NULL, &kca, 1, 1, &r, err) || r.reason != CASCADE_OK)
            goto fail;
        t[K_CHORD][i] = base_monotime_ms() - t0;
        if (cascade_keys(h, NULL, &kx, 1, 1, &r, err) || !r.success)
            goto fail;
    }
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        what = "double";
        if (cascade_press(h, &dbl, CASCADE_PRESS_DOUBLE, &r, err) || r.reason != CASCADE_OK)
            goto fail;
        t[K_DOUBLE][i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        what = "right";
        if (cascade_press(h, &rcl, CASCADE_PRESS_RIGHT, &r, err) || r.reason != CASCADE_OK)
            goto fail;
        t[K_RIGHT][i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        what = "hover";
        if (cascade_press(h, i % 2 ? &comp : &prod, CASCADE_PRESS_HOVER, &r, err) ||
            !r.success)
            goto fail;
        t[K_HOVER][i] = base_monotime_ms() - t0;
        if (getenv("BENCH_VERBOSE"))
            fprintf(stderr, "hover %d: %.1f ms %s [%s]\n", i, t[K_HOVER][i], r.message,
                    r.n_tried ? r.tried[0].outcome : "");
        cascade_options opts;
        t0 = base_monotime_ms();
        what = "options";
        if (cascade_dropdown_options(h, &sel, 0, &opts, &r, err) || !r.success || opts.n != 6)
            goto fail;
        t[K_OPTIONS][i] = base_monotime_ms() - t0;
        cascade_options_fini(&opts);
        t0 = base_monotime_ms();
        what = "select";
        if (cascade_dropdown_select(h, &sel, i % 2 ? "Austria" : "Germany", &r, err) ||
            !r.success)
            goto fail;
        t[K_SELECT][i] = base_monotime_ms() - t0;
    }
    base_summary base = base_summarize(t[K_CLICK], reps);
    printf("{\n  \"chromium\": \"%s\",\n  \"reps\": %d,\n", cdp_browser_product(b), reps);
    for (int k = 0; k < K_N; k++) {
        base_summary s = base_summarize(t[k], reps);
        printf("  \"%s\": {\"median_ms\": %.3f, \"p90_ms\": %.3f, \"vs_click\": %.2f}%s\n",
               NAMES[k], s.median, s.p90, base.median > 0 ? s.median / base.median : 0,
               k + 1 < K_N ? "," : "");
    }
    printf("}\n");
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "bench_input: %s failed: %s %s\n", what, r.message, err);
out:
    if (rc && err[0])
        fprintf(stderr, "bench_input: %s\n", err);
    cascade_hand_destroy(h);
    cdp_page_close(p);
    cdp_browser_destroy(b);
    serve_httpd_destroy(srv);
    for (int k = 0; k < K_N; k++)
        free(t[k]);
    return rc;
}
