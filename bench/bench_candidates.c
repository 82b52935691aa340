/* bench/bench_candidates.c: what the AND/OR planner's candidate table costs
 * (agent/plan/candidates.h). Medians of N runs, in one process:
 *   wants: agent_cand_task_wants on a constraint task (the --candidates
 *     auto decision), against strlen of the same task;
 *   apply: agent_cand_apply of a summarizer's update (8 rows x 6 cells, the
 *     rows new and then again, merged) onto a table with 6 columns, against
 *     cJSON_Parse of the same update (which the model client does anyway);
 *   text: agent_cand_text of the best 3 rows (what expansion and repair
 *     get) and of the whole table (what the summarizer and the answer
 *     get) of a full table (64 rows x 24 columns, every cell with evidence),
 *     with their sizes in bytes (prompt tokens are about bytes / 4).
 * Usage: bench_candidates [N=500]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/candidates.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/json_alloc.h"
#include "base/stats.h"

static double med(double *v, int n)
{
    return base_summarize(v, n).median;
}

/* A summarizer's update: rows "Projector r" with six cells each. */
static char *update_text(void)
{
    size_t cap = 16384, k = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    static const char *const cols[6] = {"price",   "image size", "rating",
                                        "reviews", "brand",      "lamp life"};
    k += (size_t)snprintf(s + k, cap - k, "{\"rows\": [");
    for (int r = 0; r < 8; r++) {
        k += (size_t)snprintf(s + k, cap - k,
                              "%s{\"name\": \"Projector %d\", \"status\": \"candidate\", "
                              "\"note\": \"seen on the list\", \"cells\": [",
                              r ? ", " : "", r);
        for (int c = 0; c < 6; c++)
            k += (size_t)snprintf(s + k, cap - k,
                                  "%s{\"column\": \"%s\", \"value\": \"%s\", \"evidence\": "
                                  "\"%s of Projector %d: shown on the card\"}",
                                  c ? ", " : "", cols[c],
                                  c < 3 ? ((r + c) % 3 ? "yes" : "no") : "4.5", cols[c], r);
        k += (size_t)snprintf(s + k, cap - k, "]}");
    }
    snprintf(s + k, cap - k, "]}");
    return s;
}

int main(int argc, char **argv)
{
    base_json_alloc_install();
    int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 500;
    if (n < 5)
        n = 5;
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    char *upd = update_text();
    if (!a || !b || !upd)
        return 1;
    const char *task = "Find a projector under $500 with at least an 80-inch image and 4+ "
                       "stars, and tell me its lamp life";
    volatile size_t sink = 0;
    for (int i = 0; i < n; i++) {
        double t0 = base_monotime_ms();
        sink += (size_t)agent_cand_task_wants(task);
        a[i] = (base_monotime_ms() - t0) * 1000.0;
        t0 = base_monotime_ms();
        sink += strlen(task);
        b[i] = (base_monotime_ms() - t0) * 1000.0;
    }
    printf("wants   %8.2f us   (strlen %.3f us)   -> %d\n", med(a, n), med(b, n),
           agent_cand_task_wants(task));

    for (int i = 0; i < n; i++) {
        cJSON *u = cJSON_Parse(upd);
        agent_cand_table t;
        agent_cand_init(&t);
        double t0 = base_monotime_ms();
        agent_cand_apply(&t, u, 1, NULL, NULL);
        agent_cand_apply(&t, u, 2, NULL, NULL);
        a[i] = (base_monotime_ms() - t0) * 1000.0 / 2;
        agent_cand_fini(&t);
        cJSON_Delete(u);
        t0 = base_monotime_ms();
        u = cJSON_Parse(upd);
        b[i] = (base_monotime_ms() - t0) * 1000.0;
        cJSON_Delete(u);
    }
    printf("apply   %8.2f us   (cJSON_Parse of the %zu-byte update %.2f us)\n", med(a, n),
           strlen(upd), med(b, n));

    /* A full table: every row, column and cell used. */
    agent_cand_table t;
    agent_cand_init(&t);
    char name[64], ev[128];
    for (int c = 0; c < AGENT_CAND_MAX_COLS; c++) {
        snprintf(name, sizeof name, "constraint %d", c);
        agent_cand_column_get(&t, name, "what satisfies it, in a few words", c % 4 != 3, NULL);
    }
    for (int r = 0; r < AGENT_CAND_MAX_ROWS; r++) {
        snprintf(name, sizeof name, "Candidate item number %d", r);
        int row = agent_cand_row_get(&t, name, r, NULL);
        for (int c = 0; c < AGENT_CAND_MAX_COLS; c++) {
            snprintf(ev, sizeof ev, "a quote from the page about item %d and column %d", r, c);
            agent_cand_set(&t, row, c, (r + c) % 3 ? AGENT_CAND_YES : AGENT_CAND_NO,
                           c % 4 == 3 ? "$449.00" : NULL, ev, r, NULL);
        }
    }
    size_t top_len = 0, all_len = 0;
    for (int i = 0; i < n; i++) {
        double t0 = base_monotime_ms();
        char *s = agent_cand_text(&t, AGENT_CAND_TOP_K);
        a[i] = (base_monotime_ms() - t0) * 1000.0;
        top_len = s ? strlen(s) : 0;
        base_free(s);
        t0 = base_monotime_ms();
        s = agent_cand_text(&t, 0);
        b[i] = (base_monotime_ms() - t0) * 1000.0;
        all_len = s ? strlen(s) : 0;
        base_free(s);
    }
    printf("text    %8.2f us top %d (%zu bytes)   %8.2f us all %d rows (%zu bytes)\n", med(a, n),
           AGENT_CAND_TOP_K, top_len, med(b, n), AGENT_CAND_MAX_ROWS, all_len);
    agent_cand_fini(&t);
    free(upd);
    free(a);
    free(b);
    return sink == 0;
}
