/* bench/bench_memory.c: live-context tokens over a 50-step synthetic agent
 * conversation, naive accumulation against the memory hook (agent/plan/evict.h,
 * Algorithm 3), both curves from one run, plus the hook's cost per step.
 *
 * The conversation is tests/agent/plan/synth_convo.h's (a state block, a 40-60
 * row element list and a 1280x800 screenshot per observation, reasoning,
 * one or two tool calls, JSON results; a failure every 5th step, a long
 * extract every 7th). Tokens are model/tokens.h's estimate. The "shared
 * prefix" column is how much of a step's request repeats the previous
 * request byte for byte from the start (what a provider's prompt cache can
 * reuse), in estimated tokens. The tool definitions precede the messages
 * and never change; the table leaves them out, the summary also gives the
 * figures with fovea's own tool list (tool_functions_json) counted on
 * both sides.
 *
 *   build/bench/bench_memory [steps] [reps]   (default 50 steps, 15 reps of the hook timing)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/evict.h"
#include "model/tokens.h"
#include "agent/session/tool.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "tests/agent/plan/synth_convo.h"

/* Tokens of cur that repeat prev from the start: whole equal messages,
 * plus the common start of the first differing message's text content. */
static size_t shared_prefix_tokens(const cJSON *prev, const cJSON *cur)
{
    if (!prev)
        return 0;
    size_t t = 0;
    const cJSON *a = prev->child;
    const cJSON *b = cur->child;
    for (; a && b && cJSON_Compare(a, b, 1); a = a->next, b = b->next)
        t += model_tokens_message(b);
    if (a && b) {
        const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "content");
        const cJSON *cb = cJSON_GetObjectItemCaseSensitive(b, "content");
        if (cJSON_IsString(ca) && cJSON_IsString(cb)) {
            size_t n = 0;
            while (ca->valuestring[n] && ca->valuestring[n] == cb->valuestring[n])
                n++;
            t += model_tokens_text(cb->valuestring, n);
        }
    }
    return t;
}

int main(int argc, char **argv)
{
    base_json_alloc_install();
    int steps = argc > 1 ? atoi(argv[1]) : 50;
    int reps = argc > 2 ? atoi(argv[2]) : 15;
    if (steps < 1 || steps > 1000 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: bench_memory [steps 1..1000] [reps 1..1000]\n");
        return 2;
    }
    cJSON *naive = synth_prefix();
    cJSON *live = synth_prefix();
    agent_ledger *l = NULL;
    if (agent_ledger_create("book the cheapest non-stop flight from Oslo to Lisbon on 14 June",
                            NULL, NULL, &l, NULL) != BASE_OK)
        return 1;
    const char *plan[] = {"search Oslo to Lisbon on 14 June", "filter non-stop",
                          "sort by price", "open the cheapest and book"};
    agent_ledger_set_plan(l, plan, 4, 0);
    cJSON *prev_naive = NULL;
    cJSON *prev_live = NULL;
    double *ms = calloc((size_t)steps, sizeof *ms);
    size_t band_lo = (size_t)-1;
    size_t band_hi = 0;
    size_t at20[2] = {0, 0};
    size_t pl20 = 0;
    double cache_sum[2] = {0, 0};
    printf("step  naive_tokens  live_tokens  evict_ms  shared_prefix_naive  shared_prefix_live\n");
    for (int s = 1; s <= steps; s++) {
        synth_step(naive, s);
        synth_step(live, s);
        /* What the loop records from the step: its outcome (the recent
         * deque rotates), a fact now and then. */
        char id[32];
        snprintf(id, sizeof id, "call_%d_0", s);
        agent_ledger_step_begin(l, s, "click_at", id, "{}");
        agent_step_report rep = {s, "worker", "click_at", id, "{}", s % 5 != 0, 1,
                                 s % 5 ? "ok" : "not_found", "page changed", ""};
        agent_ledger_step_end(l, &rep);
        if (s % 6 == 0) {
            char k[32];
            char v[64];
            snprintf(k, sizeof k, "price_seen_%d", s / 6);
            snprintf(v, sizeof v, "TP%03d %d EUR non-stop", s, 89 + (s * 13) % 300);
            agent_ledger_set_fact(l, k, v, AGENT_FACT_OBSERVATION, 0.9, s);
        }
        if (s % 12 == 0)
            agent_ledger_set_subgoal(l, (s / 12) % 4);
        /* Timing: the hook on copies of this step's list (every copy gets
         * the same work); then the real hook on the live list. */
        double *t = calloc((size_t)reps, sizeof *t);
        for (int r = 0; r < reps; r++) {
            cJSON *copy = cJSON_Duplicate(live, 1);
            agent_ledger *lc = NULL;
            cJSON *lj = agent_ledger_to_json(l);
            char *lt = cJSON_PrintUnformatted(lj);
            agent_ledger_parse(lt, strlen(lt), "bench", NULL, &lc, NULL);
            cJSON_free(lt);
            cJSON_Delete(lj);
            agent_evict_opts o;
            agent_evict_opts_default(&o);
            o.step = s;
            double t0 = base_monotime_ms();
            agent_evict(copy, lc, &o, NULL, NULL);
            t[r] = base_monotime_ms() - t0;
            cJSON_Delete(copy);
            agent_ledger_destroy(lc);
        }
        base_summary sm = base_summarize(t, reps);
        free(t);
        ms[s - 1] = sm.median;
        agent_evict_opts o;
        agent_evict_opts_default(&o);
        o.step = s;
        agent_evict_stats st;
        if (agent_evict(live, l, &o, &st, NULL) != BASE_OK)
            return 1;
        cJSON *wn = agent_evict_wire(naive);
        cJSON *wl = agent_evict_wire(live);
        size_t tn = model_tokens_messages(wn);
        size_t tl = model_tokens_messages(wl);
        size_t pn = shared_prefix_tokens(prev_naive, wn);
        size_t pl = shared_prefix_tokens(prev_live, wl);
        printf("%4d  %12zu  %11zu  %8.3f  %19zu  %18zu\n", s, tn, tl, ms[s - 1], pn, pl);
        if (s >= 10) {
            band_lo = tl < band_lo ? tl : band_lo;
            band_hi = tl > band_hi ? tl : band_hi;
        }
        if (s == 20) {
            at20[0] = tn;
            at20[1] = tl;
            pl20 = pl;
        }
        if (s > 1) {
            cache_sum[0] += (double)pn / (double)tn;
            cache_sum[1] += (double)pl / (double)tl;
        }
        cJSON_Delete(prev_naive);
        cJSON_Delete(prev_live);
        prev_naive = wn;
        prev_live = wl;
    }
    cJSON *tools = tool_functions_json(0);
    char *tools_text = tools ? cJSON_PrintUnformatted(tools) : NULL;
    size_t tools_tok = tools_text ? model_tokens_text(tools_text, strlen(tools_text)) : 0;
    cJSON_free(tools_text);
    cJSON_Delete(tools);
    base_summary all = base_summarize(ms, steps);
    if (steps >= 20)
        printf("\nat step 20: naive %zu tokens, with the hook %zu (%.1fx)\n", at20[0], at20[1],
               (double)at20[0] / (double)at20[1]);
    printf("with the hook, steps 10-%d: %zu..%zu tokens\n", steps, band_lo, band_hi);
    printf("hook cost per step: median %.3f ms, max %.3f ms (medians of %d reps per step)\n",
           all.median, all.max, reps);
    if (steps > 1)
        printf("shared request prefix, mean over steps 2-%d: naive %.0f%%, with the hook %.0f%%\n",
               steps, 100 * cache_sum[0] / (steps - 1), 100 * cache_sum[1] / (steps - 1));
    if (steps >= 20)
        printf("fovea's tool list: %zu tokens; counted on both sides, step 20 is naive %zu vs %zu, "
           "and the shared prefix with the hook at step 20 is %.0f%%\n",
               tools_tok, at20[0] + tools_tok, at20[1] + tools_tok,
               100.0 * (double)(pl20 + tools_tok) / (double)(at20[1] + tools_tok));
    cJSON_Delete(prev_naive);
    cJSON_Delete(prev_live);
    free(ms);
    cJSON_Delete(naive);
    cJSON_Delete(live);
    agent_ledger_destroy(l);
    return 0;
}
