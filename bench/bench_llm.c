/* bench/bench_llm.c: what the agent's model client costs per call, apart
 * from the server: a REPLAY server (tests/harness/replay.h, not a model)
 * answers instantly with a recorded tool call, and each call's wall time
 * minus the time spent inside HTTP transfers (the server's and the
 * loopback's) is the client's own: budget estimate, request JSON, parsing,
 * tool-call checks against the schemas. The conversation is a realistic
 * worker turn: system prompt, a 40-row element list, the tool registry's
 * function list (~all tools), three earlier tool round trips.
 *
 *   build/bench/bench_llm [calls]      (default 200)
 *
 * Prints the median and p90 of the overhead, and of the total, in ms, and
 * as the baseline, in the same process, the same request body POSTed raw
 * through the shared transport (model/endpoint.h) with no JSON built
 * or parsed: the ratio is what the client adds to a bare HTTP round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/budget.h"
#include "model/llm.h"
#include "agent/session/tool.h"
#include "base/clock.h"
#include "model/endpoint.h"
#include "model/normalize.h"
#include "replay.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n < 10 || n > 100000)
        n = 200;
    char err[256] = "";
    replay *r = NULL;
    if (replay_start(&r, err)) {
        fprintf(stderr, "replay: %s\n", err);
        return 1;
    }
    replay_set_chat(r, 1);
    replay_reply rep = {
        .tool_calls = "[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":"
                      "\"click_at\",\"arguments\":\"{\\\"target\\\":\\\"[V12] Add to cart\\\"}\"}}]",
        .prompt_tokens = 6000,
        .cached_tokens = 5000,
        .times = -1};
    replay_push(r, &rep);
    model_llm_config c;
    model_llm_config_init(&c);
    c.base_url = replay_base_url(r);
    model_llm *l = NULL;
    if (model_llm_create(&c, &l, err)) {
        fprintf(stderr, "client: %s\n", err);
        return 1;
    }
    cJSON *tools = tool_functions_json(0);
    cJSON *msgs = cJSON_CreateArray();
    model_llm_add_message(msgs, "system",
                          "You operate a web browser through tools. Ground every action in a [Vn] "
                          "box of the current screenshot; one page-changing action per batch.");
    char list[8192];
    size_t k = 0;
    for (int i = 1; i <= 40 && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "[V%d] button \"Item %d: add to cart\"\n",
                              i, i);
    model_llm_add_message(msgs, "user", list);
    for (int t = 0; t < 3; t++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "role", "assistant");
        cJSON_AddNullToObject(a, "content");
        cJSON *tcs = cJSON_AddArrayToObject(a, "tool_calls");
        cJSON *tc = cJSON_CreateObject();
        char id[16];
        snprintf(id, sizeof id, "call_p%d", t);
        cJSON_AddStringToObject(tc, "id", id);
        cJSON_AddStringToObject(tc, "type", "function");
        cJSON *fn = cJSON_AddObjectToObject(tc, "function");
        cJSON_AddStringToObject(fn, "name", "scroll");
        cJSON_AddStringToObject(fn, "arguments", "{\"direction\":\"down\"}");
        cJSON_AddItemToArray(tcs, tc);
        cJSON_AddItemToArray(msgs, a);
        model_llm_add_tool_result(msgs, id, "scrolled 600 px; 12 new boxes");
    }
    model_budget b;
    model_budget_init(&b, 0);
    model_llm_request q;
    memset(&q, 0, sizeof q);
    q.messages = msgs;
    q.tools = tools;
    q.temperature = -1;
    q.budget = &b;
    double *over = malloc(sizeof(double) * (size_t)n), *tot = malloc(sizeof(double) * (size_t)n);
    int ok = 0;
    for (int i = 0; i < n + 10; i++) {
        model_llm_reply rr;
        if (model_llm_chat(l, &q, &rr, err)) {
            fprintf(stderr, "call %d: %s\n", i, err);
            break;
        }
        if (i >= 10) { /* warm-up: connection, caches */
            over[ok] = rr.ms - rr.server_ms - rr.wait_ms;
            tot[ok] = rr.ms;
            ok++;
        }
        model_llm_reply_fini(&rr);
    }
    char *body = cJSON_PrintUnformatted(msgs);
    char *tb = cJSON_PrintUnformatted(tools);
    /* Baseline: the same bytes, raw: the request as the client puts it on
     * the wire (model/normalize.h), streamed as the client asks. */
    cJSON *wm = NULL, *wt = NULL;
    model_wire_messages(msgs, tools, 0, &wm, NULL);
    model_wire_tools(tools, &wt, NULL);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "model", "gpt-4o-mini");
    cJSON_AddItemToObject(req, "messages", wm ? wm : cJSON_CreateArray());
    cJSON_AddItemToObject(req, "tools", wt ? wt : cJSON_CreateArray());
    cJSON_AddStringToObject(req, "tool_choice", "auto");
    cJSON_AddTrueToObject(req, "stream");
    cJSON_AddTrueToObject(cJSON_AddObjectToObject(req, "stream_options"), "include_usage");
    char *raw = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    model_endpoint_config ec;
    memset(&ec, 0, sizeof ec);
    ec.base_url = replay_base_url(r);
    ec.path = "/chat/completions";
    model_endpoint *ep = NULL;
    double *base = malloc(sizeof(double) * (size_t)n);
    int nb = 0;
    if (raw && model_endpoint_create(&ec, &ep, err) == BASE_OK) {
        size_t rl = strlen(raw);
        for (int i = 0; i < n + 10; i++) {
            double t0 = base_monotime_ms();
            if (model_endpoint_post(ep, raw, rl, 0, NULL, err)) {
                fprintf(stderr, "raw %d: %s\n", i, err);
                break;
            }
            if (i >= 10)
                base[nb++] = base_monotime_ms() - t0;
        }
    }
    model_endpoint_destroy(ep);
    free(raw);
    printf("bench_llm: %d calls, request %zu bytes of messages + %zu bytes of tools (%d tools), "
           "~%ld tokens estimated\n",
           ok, strlen(body), strlen(tb), cJSON_GetArraySize(tools),
           model_budget_estimate(&b, msgs, tools, NULL));
    if (ok > 0) {
        double om = pct(over, ok, 0.5), o9 = pct(over, ok, 0.9);
        double tm = pct(tot, ok, 0.5), t9 = pct(tot, ok, 0.9);
        printf("client overhead per call (excl. server + transfer): median %.3f ms, p90 %.3f ms\n",
               om, o9);
        printf("whole call against the replay on loopback:           median %.3f ms, p90 %.3f ms\n",
               tm, t9);
        if (nb > 0) {
            double bm = pct(base, nb, 0.5);
            printf("baseline, the same body POSTed raw (same process):   median %.3f ms; "
                   "client/raw %.2fx\n",
                   bm, tm / bm);
        }
    }
    free(base);
    free(body);
    free(tb);
    free(over);
    free(tot);
    cJSON_Delete(msgs);
    cJSON_Delete(tools);
    model_llm_destroy(l);
    replay_destroy(r);
    return ok == n ? 0 : 1;
}
