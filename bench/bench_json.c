/* bench/bench_json.c: what routing cJSON through base_malloc costs
 * (base/json_alloc.h), against cJSON's default malloc/free hooks, in the
 * same process.
 *
 * With custom hooks cJSON stops using realloc when it prints (it allocates
 * a fresh buffer and copies), and every allocation passes base_malloc's
 * failure-injection check. Two workloads of the shapes fovea has: building
 * and printing one Input.dispatchMouseEvent params object (the hot path of
 * a cursor replay: one per waypoint), and parsing + freeing a 40 KB reply
 * shaped like a probe's candidate table. Rounds alternate the two hook sets
 * so drift hits both; medians of the per-round means.
 *
 *   build/bench/bench_json [rounds]     (default 15)
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/json_alloc.h"
#include "base/stats.h"

#define ITERS_PARAMS 20000
#define ITERS_PARSE 200

static volatile size_t sink; /* keeps the optimiser from dropping the work */

/* One mouse event's params, built and printed as the hand does. */
static double params_us(void)
{
    int64_t t0 = base_monotime();
    for (int i = 0; i < ITERS_PARAMS; i++) {
        cJSON *pa = cJSON_CreateObject();
        cJSON_AddStringToObject(pa, "type", "mouseMoved");
        cJSON_AddNumberToObject(pa, "x", 100.5 + i % 300);
        cJSON_AddNumberToObject(pa, "y", 200.25 + i % 200);
        cJSON_AddStringToObject(pa, "button", "none");
        cJSON_AddNumberToObject(pa, "buttons", 0);
        cJSON_AddStringToObject(pa, "pointerType", "mouse");
        char *s = cJSON_PrintUnformatted(pa);
        sink += s ? strlen(s) : 0;
        cJSON_free(s);
        cJSON_Delete(pa);
    }
    return (double)(base_monotime() - t0) / ITERS_PARAMS;
}

/* A reply like the probe's: 300 candidate rows of mixed values. */
static char *make_reply(void)
{
    base_buf b;
    base_buf_init(&b, 1 << 20);
    base_buf_printf(&b, "{\"v\":1,\"c\":[");
    for (int i = 0; i < 300; i++)
        base_buf_printf(&b,
                        "%s[%d,%d,%d,%d,\"button\",\"Add item %d to the cart\",\"\",\"/html[1]/"
                        "body[1]/div[%d]/button[1]\",%d,0,1,3,-1,-1]",
                        i ? "," : "", 10 + i, 20 + i, 110 + i, 50 + i, i, i, i % 7);
    base_buf_printf(&b, "],\"f\":[]}");
    char *s = base_strndup((const char *)b.data, b.len);
    base_buf_fini(&b);
    return s;
}

static double parse_us(const char *text)
{
    int64_t t0 = base_monotime();
    for (int i = 0; i < ITERS_PARSE; i++) {
        cJSON *r = cJSON_Parse(text);
        sink += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "c"));
        cJSON_Delete(r);
    }
    return (double)(base_monotime() - t0) / ITERS_PARSE;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 15;
    if (rounds < 3 || rounds > 1000) {
        fprintf(stderr, "usage: bench_json [rounds 3..1000]\n");
        return 2;
    }
    char *reply = make_reply();
    if (!reply) {
        fprintf(stderr, "bench_json: out of memory\n");
        return 1;
    }
    double *pd = malloc(sizeof(double) * (size_t)rounds * 4);
    if (!pd) {
        base_free(reply);
        return 1;
    }
    double *pb = pd + rounds, *qd = pd + 2 * rounds, *qb = pd + 3 * rounds;
    for (int r = 0; r < rounds; r++) {
        cJSON_InitHooks(NULL); /* cJSON's own malloc/realloc/free */
        pd[r] = params_us();
        qd[r] = parse_us(reply);
        base_json_alloc_install(); /* through base_malloc */
        pb[r] = params_us();
        qb[r] = parse_us(reply);
    }
    double mpd = base_summarize(pd, rounds).median, mpb = base_summarize(pb, rounds).median;
    double mqd = base_summarize(qd, rounds).median, mqb = base_summarize(qb, rounds).median;
    printf("cJSON hooks, medians of %d rounds (reply %zu bytes)\n", rounds, strlen(reply));
    printf("%-44s %10s %10s %7s\n", "", "default", "base", "ratio");
    printf("%-44s %8.3f us %7.3f us %7.3f\n", "mouse params build + print (6 members)", mpd, mpb,
           mpb / mpd);
    printf("%-44s %8.1f us %7.1f us %7.3f\n", "probe-shaped reply parse + free", mqd, mqb,
           mqb / mqd);
    free(pd);
    base_free(reply);
    return sink == 0;
}
