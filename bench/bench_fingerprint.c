/* bench/bench_fingerprint.c: how long a page fingerprint takes
 * (perception/fingerprint.h) on a 2,000-element page, against a trivial
 * evaluate measured in the same run (the protocol round trip alone).
 *
 *   build/bench/bench_fingerprint [elements] [iterations]
 *
 * Serves tests/fixtures/pages over loopback and launches headless Chromium
 * through the test harness. Prints median and p90 of both, in ms.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "harness.h"
#include "perception/fingerprint.h"

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int elements = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 2000;
    int iters = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 200;
    if (elements < 10 || elements > 1000000 || iters < 5 || iters > 100000) {
        fprintf(stderr, "usage: bench_fingerprint [elements 10..1e6] [iterations 5..1e5]\n");
        return 2;
    }
    if (!harness_get()) {
        fprintf(stderr, "bench_fingerprint: %s\n", harness_error());
        return 1;
    }
    char path[64];
    snprintf(path, sizeof path, "/vision/big.html?n=%d", elements);
    cdp_page *p = harness_open(1280, 800, 1, path);
    char err[256] = "";
    if (!p || perc_fingerprint_install(p, err)) {
        fprintf(stderr, "bench_fingerprint: %s\n", err);
        return 1;
    }
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "document.getElementsByTagName('*').length", &v, 5000, err) == 0)
        printf("page: %d elements\n", cJSON_IsNumber(v) ? v->valueint : -1);
    cJSON_Delete(v);
    double *fp = malloc(sizeof(double) * (size_t)iters);
    double *base = malloc(sizeof(double) * (size_t)iters);
    if (!fp || !base)
        return 1;
    perc_fingerprint f;
    for (int i = 0; i < 10; i++) /* warm-up: JIT, style and layout caches */
        perc_fingerprint_take(p, &f, NULL);
    for (int i = 0; i < iters; i++) {
        double t0 = base_monotime_ms();
        if (cdp_page_evaluate(p, "1", NULL, 5000, err))
            break;
        base[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        if (perc_fingerprint_take(p, &f, err)) {
            fprintf(stderr, "bench_fingerprint: %s\n", err);
            return 1;
        }
        fp[i] = base_monotime_ms() - t0;
    }
    base_summary sf = base_summarize(fp, iters), sb = base_summarize(base, iters);
    printf("fingerprint: median %.3f ms, p90 %.3f ms (n=%d)\n", sf.median, sf.p90, iters);
    printf("trivial evaluate: median %.3f ms, p90 %.3f ms\n", sb.median, sb.p90);
    free(fp);
    free(base);
    cdp_page_close(p);
    return 0;
}
