/* bench/bench_inputs.c: what the issue-11 input guards cost, each against
 * the code it replaced or the work it wraps, measured in one process.
 *
 *   regex   one assert_text poll on 64 KiB of page text: glibc regcomp +
 *           regexec + regfree per poll (the old runner) vs base_regex_match
 *           on the pattern compiled once at load (PCRE2, bounded);
 *   task    agent_task_parse of assets/tasks/demo.json (now with the strict
 *           JSON check and the duplicate-key walk) vs base_json_check alone;
 *   learn   cascade_learnings_record (flock, re-read, merge, atomic write)
 *           vs base_write_file of the same bytes (the old save);
 *   trace   base_utf8_check of a 2 KiB trace line vs cJSON printing it.
 *
 * Prints medians (ms or µs) and ratios. Usage: bench_inputs [iterations].
 */
#include <cjson/cJSON.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json_alloc.h"
#include "agent/script/task.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/json_check.h"
#include "base/regex.h"
#include "base/stats.h"
#include "base/utf8.h"
#include "cascade/cascade.h"

static double med(double *v, int n)
{
    return base_summarize(v, n).median;
}

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int iters = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;
    if (iters < 5)
        iters = 5;
    double *a = calloc((size_t)iters, sizeof *a);
    double *b = calloc((size_t)iters, sizeof *b);
    if (!a || !b)
        return 1;

    /* Page text: 64 KiB of lines like a results page; the pattern is found
     * on the last line only, so both engines scan everything. */
    size_t cap = 64u << 10;
    char *text = malloc(cap + 64);
    size_t len = 0;
    for (int i = 0; len + 80 < cap; i++)
        len += (size_t)snprintf(text + len, cap + 64 - len,
                                "Flight %d: Madrid to Lisbon, 1 stop, from $%d, carrier TAP\n", i,
                                100 + i % 400);
    len += (size_t)snprintf(text + len, cap + 64 - len, "Showing 42 results\n");
    const char *pat = "[0-9]+ results";
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_regex_compile(pat, strlen(pat), BASE_REGEX_MULTILINE, &re, err) != BASE_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int hits = 0;
    for (int i = 0; i < iters; i++) {
        double t0 = base_monotime_ms();
        regex_t rx;
        if (regcomp(&rx, pat, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) == 0) {
            hits += regexec(&rx, text, 0, NULL, 0) == 0;
            regfree(&rx);
        }
        double t1 = base_monotime_ms();
        int m = 0;
        base_regex_match(re, text, len, &m, NULL);
        hits += m;
        double t2 = base_monotime_ms();
        a[i] = t1 - t0;
        b[i] = t2 - t1;
    }
    double ra = med(a, iters), rb = med(b, iters);
    printf("regex poll, 64 KiB text: glibc compile+match %.3f ms, PCRE2 match %.3f ms, ratio "
           "%.2f (%d hits of %d)\n",
           ra, rb, rb / ra, hits, 2 * iters);
    for (int i = 0; i < iters; i++) {
        double t0 = base_monotime_ms();
        base_regex *r2 = NULL;
        base_regex_compile(pat, strlen(pat), BASE_REGEX_MULTILINE, &r2, NULL);
        base_regex_destroy(r2);
        a[i] = (base_monotime_ms() - t0) * 1000.0;
    }
    printf("regex compile (once per pattern at load): %.1f us\n", med(a, iters));
    base_regex_destroy(re);

    /* Task load. */
    uint8_t *task = NULL;
    size_t tn = 0;
    if (base_read_file(FOVEA_SOURCE_DIR "/assets/tasks/demo.json", &task, &tn, 1u << 20, err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int i = 0; i < iters; i++) {
        double t0 = base_monotime_ms();
        base_json_check((const char *)task, tn, 32, NULL);
        double t1 = base_monotime_ms();
        agent_task *t = NULL;
        agent_task_parse((const char *)task, tn, "demo.json", &t, NULL);
        agent_task_free(t);
        double t2 = base_monotime_ms();
        a[i] = (t1 - t0) * 1000.0;
        b[i] = (t2 - t1) * 1000.0;
    }
    double ca = med(a, iters), cb = med(b, iters);
    printf("task load, demo.json (%zu bytes): whole parse %.1f us, of which the strict JSON "
           "check %.1f us (%.0f%%)\n",
           tn, cb, ca, 100.0 * ca / cb);
    base_free(task);

    /* Learnings: one record (lock + read + merge + write) vs the old save. */
    char path[256];
    snprintf(path, sizeof path, "/tmp/fovea-bench-learn-%d.json", (int)getpid());
    unlink(path);
    cascade_learnings *l = NULL;
    if (cascade_learnings_open(path, &l, err) != BASE_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int li = iters < 100 ? iters : 100;
    for (int i = 0; i < li; i++) {
        char dom[32];
        snprintf(dom, sizeof dom, "site%d.example", i % 20);
        double t0 = base_monotime_ms();
        cascade_learnings_record(l, dom, 1 + i % 3, NULL);
        double t1 = base_monotime_ms();
        uint8_t *d = NULL;
        size_t dn = 0;
        base_read_file(path, &d, &dn, 1u << 20, NULL);
        char p2[300];
        snprintf(p2, sizeof p2, "%s.old", path);
        double t2 = base_monotime_ms();
        base_write_file(p2, d, dn, NULL);
        double t3 = base_monotime_ms();
        base_free(d);
        a[i] = t1 - t0;
        b[i] = t3 - t2;
    }
    cascade_learnings_close(l);
    double la = med(a, li), lb = med(b, li);
    printf("learnings record, 20 domains: locked merge-write %.3f ms, plain atomic write %.3f ms, "
           "ratio %.2f\n",
           la, lb, la / lb);
    char p2[300];
    snprintf(p2, sizeof p2, "%s.old", path);
    unlink(p2);
    snprintf(p2, sizeof p2, "%s.lock", path);
    unlink(p2);
    unlink(path);

    /* Trace line: UTF-8 check vs printing the line. */
    cJSON *j = cJSON_CreateObject();
    for (int k = 0; k < 20; k++) {
        char key[16];
        snprintf(key, sizeof key, "field%d", k);
        cJSON_AddStringToObject(j, key,
                                "Madrid \xe2\x86\x92 Lisbon, caf\xc3\xa9 prices from 389 \xe2\x82\xac "
                                "and more text of a page");
    }
    for (int i = 0; i < iters; i++) {
        double t0 = base_monotime_ms();
        char *s = cJSON_PrintUnformatted(j);
        double t1 = base_monotime_ms();
        size_t n = strlen(s);
        volatile size_t at = base_utf8_check(s, n);
        (void)at;
        double t2 = base_monotime_ms();
        cJSON_free(s);
        a[i] = (t1 - t0) * 1000.0;
        b[i] = (t2 - t1) * 1000.0;
    }
    cJSON_Delete(j);
    double ta = med(a, iters), tb = med(b, iters);
    printf("trace line (~1.9 KiB): print %.2f us, UTF-8 check %.2f us (%.0f%%)\n", ta, tb,
           100.0 * tb / ta);
    free(text);
    free(a);
    free(b);
    return 0;
}
