/* tests/agent/plan/test_memory_oom.c: the agent's memory under allocation
 * failure (base_alloc_fail_after), every allocation of each path failed in
 * turn; pure, no browser.
 *
 * render: a render is the full text or NULL, never one with a slot missing.
 * evict: the hook either succeeds with exactly the result it has with
 *   memory, or fails; either way no tool call loses its result.
 * changes: a change that fails for memory leaves the ledger as it was.
 * sync_load: a failed sync loses nothing (the next one writes it all); a
 *   load either fails or restores the ledger exactly.
 */
#include "check.h"

#include <unistd.h>

#include "agent/plan/evict.h"
#include "agent/plan/ledger.h"
#include "base/alloc.h"
#include "base/json_alloc.h"
#include "synth_convo.h"

static agent_ledger *sample(const char *dir)
{
    agent_ledger *l = NULL;
    if (agent_ledger_create("book a table for two", dir, NULL, &l, NULL) != BASE_OK)
        return NULL;
    const char *plan[] = {"find the restaurant", "pick a time", "confirm"};
    agent_ledger_set_plan(l, plan, 3, 1);
    for (int s = 1; s <= 4; s++) {
        agent_ledger_step_begin(l, s, "click_at", "c", "{\"target\":\"[V2]\"}");
        agent_step_report r = {s, "worker", "click_at", "c", "{\"target\":\"[V2]\"}", s != 2, 1,
                               s != 2 ? "ok" : "not_found", "clicked", "https://r.example/"};
        agent_ledger_step_end(l, &r);
    }
    agent_ledger_set_fact(l, "party", "2", AGENT_FACT_CONSTRAINT, 1, 1);
    agent_ledger_set_fact(l, "time", "19:30", AGENT_FACT_PREFERENCE, 0.7, 3);
    agent_ledger_dead_end(l, "Book button greyed out", "https://r.example/", AGENT_CAUSE_POSTCONDITION_MISS, 2);
    agent_ledger_checkpoint(l, 3, "navigation", "booking form", "https://r.example/book", "c");
    agent_ledger_note(l, 4, "time picked");
    return l;
}

static void render(void)
{
    agent_ledger *l = sample(NULL);
    CHECK(l);
    for (int role = 0; role < 3; role++) {
        char *ref = agent_ledger_render(l, (agent_role)role, "https://r.example/");
        CHECK(ref);
        base_alloc_fail_after(0);
        char *again = agent_ledger_render(l, (agent_role)role, "https://r.example/");
        unsigned long total = base_alloc_fail_after(0);
        base_free(again);
        for (unsigned long k = 1; k <= total; k++) {
            base_alloc_fail_after(k);
            char *r = agent_ledger_render(l, (agent_role)role, "https://r.example/");
            base_alloc_fail_after(0);
            CHECK_MSG(!r || strcmp(r, ref) == 0, "role %d, allocation %lu: partial render", role,
                      k);
            base_free(r);
        }
        base_free(ref);
    }
    agent_ledger_destroy(l);
}

static agent_ledger *clone(const agent_ledger *l)
{
    cJSON *j = agent_ledger_to_json(l);
    char *t = cJSON_PrintUnformatted(j);
    agent_ledger *c = NULL;
    agent_ledger_parse(t, strlen(t), "clone", NULL, &c, NULL);
    cJSON_free(t);
    cJSON_Delete(j);
    return c;
}

static void evict(void)
{
    cJSON *m = synth_prefix();
    for (int s = 1; s <= 11; s++)
        synth_step(m, s);
    agent_ledger *l = sample(NULL);
    CHECK(l);
    agent_evict_opts o;
    agent_evict_opts_default(&o);
    o.step = 11;
    cJSON *ref = cJSON_Duplicate(m, 1);
    agent_ledger *lref = clone(l);
    CHECK_OK(agent_evict(ref, lref, &o, NULL, NULL));
    cJSON *lref_json = agent_ledger_to_json(lref);
    cJSON *c0 = cJSON_Duplicate(m, 1);
    agent_ledger *l0 = clone(l);
    base_alloc_fail_after(0);
    CHECK_OK(agent_evict(c0, l0, &o, NULL, NULL));
    unsigned long total = base_alloc_fail_after(0);
    cJSON_Delete(c0);
    agent_ledger_destroy(l0);
    int failed = 0;
    for (unsigned long k = 1; k <= total; k++) {
        cJSON *c = cJSON_Duplicate(m, 1);
        agent_ledger *lc = clone(l);
        CHECK(c && lc);
        base_alloc_fail_after(k);
        base_err e = agent_evict(c, lc, &o, NULL, NULL);
        base_alloc_fail_after(0);
        failed += e != BASE_OK;
        CHECK_MSG(agent_evict_pairs_ok(c, NULL, 0), "allocation %lu broke a pair", k);
        if (e == BASE_OK) {
            CHECK_MSG(cJSON_Compare(c, ref, 1), "allocation %lu: OK with a different list", k);
            cJSON *lj = agent_ledger_to_json(lc);
            CHECK_MSG(cJSON_Compare(lj, lref_json, 1), "allocation %lu: OK, ledger differs", k);
            cJSON_Delete(lj);
        } else {
            CHECK_EQ(e, BASE_ENOMEM);
        }
        cJSON_Delete(c);
        agent_ledger_destroy(lc);
    }
    CHECK(failed > 0); /* the injection reached the hook */
    cJSON_Delete(ref);
    cJSON_Delete(lref_json);
    agent_ledger_destroy(lref);
    agent_ledger_destroy(l);
    cJSON_Delete(m);
}

static void changes(void)
{
    agent_ledger *l = sample(NULL);
    CHECK(l);
    /* Each op with its k-th allocation failed, k = 1, 2, ... until it
     * succeeds (then no allocation of it is left untried). */
    for (int op = 0; op < 5; op++) {
        int fails = 0;
        for (unsigned long k = 1; k < 1000; k++) {
            agent_ledger *c = clone(l);
            cJSON *before = agent_ledger_to_json(c);
            base_alloc_fail_after(k);
            base_err e = BASE_OK;
            switch (op) {
            case 0:
                e = agent_ledger_set_fact(c, "party", "3", AGENT_FACT_CONSTRAINT, 1, 5);
                break;
            case 1:
                e = agent_ledger_set_fact(c, "venue", "Casa", AGENT_FACT_OBSERVATION, 0.9, 5);
                break;
            case 2:
                e = agent_ledger_dead_end(c, "x", "u", AGENT_CAUSE_NETWORK, 5);
                break;
            case 3:
                e = agent_ledger_note(c, 5, "note");
                break;
            default:
                e = agent_ledger_step_begin(c, 5, "type_at", "c5", "{}");
                break;
            }
            base_alloc_fail_after(0);
            if (e != BASE_OK) {
                fails++;
                CHECK_EQ(e, BASE_ENOMEM);
                cJSON *after = agent_ledger_to_json(c);
                CHECK_MSG(cJSON_Compare(before, after, 1), "op %d, allocation %lu changed the ledger", op, k);
                cJSON_Delete(after);
            }
            cJSON_Delete(before);
            agent_ledger_destroy(c);
            if (e == BASE_OK)
                break;
        }
        CHECK_MSG(fails > 0, "op %d never failed", op);
    }
    agent_ledger_destroy(l);
}

static void sync_load(void)
{
    char tmpl[] = "/tmp/fovea_ledger_oom_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir);
    agent_ledger *l = sample(dir);
    CHECK(l);
    int failures = 0;
    for (unsigned long k = 1; k < 400; k++) {
        base_alloc_fail_after(k);
        base_err e = agent_ledger_sync(l, NULL);
        base_alloc_fail_after(0);
        if (e == BASE_OK)
            break;
        failures++;
    }
    CHECK(failures > 0);
    CHECK_OK(agent_ledger_sync(l, NULL));
    cJSON *want = agent_ledger_to_json(l);
    int ok = 0;
    for (unsigned long k = 1; k < 2000 && !ok; k++) {
        agent_ledger *m = NULL;
        base_alloc_fail_after(k);
        base_err e = agent_ledger_load(dir, NULL, &m, NULL);
        base_alloc_fail_after(0);
        if (e == BASE_OK) {
            cJSON *got = agent_ledger_to_json(m);
            CHECK_MSG(cJSON_Compare(want, got, 1), "allocation %lu: a different ledger", k);
            cJSON_Delete(got);
            agent_ledger_destroy(m);
            ok = k > 1; /* loaded with no failure left to inject */
            break;
        }
        CHECK(m == NULL);
    }
    CHECK(ok);
    /* The journals hold each line once: the failed syncs wrote nothing twice. */
    char p[512];
    snprintf(p, sizeof p, "%s/steps.jsonl", dir);
    FILE *f = fopen(p, "r");
    CHECK(f);
    int lines = 0;
    for (int ch; (ch = fgetc(f)) != EOF;)
        lines += ch == '\n';
    fclose(f);
    CHECK_EQ(lines, 4);
    cJSON_Delete(want);
    agent_ledger_destroy(l);
    static const char *const files[] = {"ledger.json", "steps.jsonl", "facts.jsonl",
                                        "episodic.jsonl"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

static const check_case cases[] = {{"render", render},
                                   {"evict", evict},
                                   {"changes", changes},
                                   {"sync_load", sync_load},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    base_json_alloc_install();
    return check_main(argc, argv, cases);
}
