/* tests/agent/plan/test_evict.c: the memory hook (agent/plan/evict.h), pure C over a
 * synthetic conversation (tests/agent/plan/synth_convo.h); no model, no browser.
 *
 * idempotent: every pass applied twice leaves what it left once (messages
 *   and ledger), and so does the whole hook.
 * pairs: over 50 steps with the hook before every call, every tool call
 *   keeps its one result; the checker itself catches a broken pair.
 * screenshots / state / thinking / gut / elements / tool_data: what each
 *   pass keeps and what it leaves in place of the rest.
 * failures: older failures become one line and a ledger dead end with the
 *   cause tag and URL; the newest stays verbatim.
 * prefix: the first message's bytes never change across 50 steps, the
 *   ledger block sits right after it and changes only when the ledger does.
 * flat: live-context tokens stay in a band with the hook while the naive
 *   list grows (the figures themselves are bench/bench_memory's).
 */
#include "check.h"

#include "agent/plan/evict.h"
#include "agent/session/permit.h"
#include "model/tokens.h"
#include "base/alloc.h"
#include "base/json_alloc.h"
#include "synth_convo.h"

static cJSON *convo(int steps)
{
    cJSON *m = synth_prefix();
    for (int s = 1; s <= steps; s++)
        synth_step(m, s);
    return m;
}

static int count_str(const cJSON *j, const char *needle)
{
    char *s = cJSON_PrintUnformatted(j);
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p++)
        n++;
    cJSON_free(s);
    return n;
}

static void idempotent(void)
{
    for (int steps = 12; steps <= 46; steps += 17) {
        for (int p = 1; p <= AGENT_EVICT_PASSES; p++) {
            cJSON *m = convo(steps);
            agent_ledger *l = NULL;
            CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
            agent_evict_opts o;
            agent_evict_opts_default(&o);
            o.step = steps;
            agent_evict_stats st = {0};
            CHECK_OK(agent_evict_pass(m, p, l, &o, &st, NULL));
            cJSON *once = cJSON_Duplicate(m, 1);
            cJSON *lonce = agent_ledger_to_json(l);
            agent_evict_stats st2 = {0};
            CHECK_OK(agent_evict_pass(m, p, l, &o, &st2, NULL));
            cJSON *ltwice = agent_ledger_to_json(l);
            CHECK_MSG(cJSON_Compare(once, m, 1), "pass %d at %d steps is not idempotent", p,
                      steps);
            CHECK_MSG(cJSON_Compare(lonce, ltwice, 1), "pass %d changed the ledger twice", p);
            CHECK_EQ(st2.changed[p], 0);
            /* Each pass has something to do on these conversations (the gut
             * only past 30 messages). */
            if (p != 5 || cJSON_GetArraySize(once) > 30)
                CHECK_MSG(st.changed[p] > 0, "pass %d did nothing at %d steps", p, steps);
            cJSON_Delete(once);
            cJSON_Delete(lonce);
            cJSON_Delete(ltwice);
            cJSON_Delete(m);
            agent_ledger_destroy(l);
        }
    }
    /* The whole hook too. */
    cJSON *m = convo(30);
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    CHECK_OK(agent_evict(m, l, NULL, NULL, NULL));
    cJSON *once = cJSON_Duplicate(m, 1);
    agent_evict_stats st = {0};
    CHECK_OK(agent_evict(m, l, NULL, &st, NULL));
    CHECK(cJSON_Compare(once, m, 1));
    CHECK_EQ(st.ledger_refreshed, 0);
    cJSON_Delete(once);
    cJSON_Delete(m);
    agent_ledger_destroy(l);
}

static void pairs(void)
{
    cJSON *m = synth_prefix();
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    char why[200] = "";
    for (int s = 1; s <= 50; s++) {
        synth_step(m, s);
        agent_evict_opts o;
        agent_evict_opts_default(&o);
        o.step = s;
        CHECK_OK(agent_evict(m, l, &o, NULL, NULL));
        CHECK_MSG(agent_evict_pairs_ok(m, why, sizeof why), "step %d: %s", s, why);
    }
    /* Every call id still has its result after 50 evictions. */
    CHECK_EQ(count_str(m, "\"tool_call_id\""), 50 + 12);
    /* The checker catches a lost result and an orphan result. */
    cJSON *broken = cJSON_Duplicate(m, 1);
    cJSON_DeleteItemFromArray(broken, cJSON_GetArraySize(broken) - 1);
    CHECK(!agent_evict_pairs_ok(broken, why, sizeof why));
    CHECK(strstr(why, "answered 0 times"));
    cJSON_Delete(broken);
    broken = cJSON_Duplicate(m, 1);
    cJSON *last = cJSON_GetArrayItem(broken, cJSON_GetArraySize(broken) - 1);
    cJSON_ReplaceItemInObjectCaseSensitive(last, "tool_call_id", cJSON_CreateString("nope"));
    CHECK(!agent_evict_pairs_ok(broken, why, sizeof why));
    CHECK(strstr(why, "answers no open call"));
    cJSON_Delete(broken);
    cJSON_Delete(m);
    agent_ledger_destroy(l);
}

static void screenshots(void)
{
    cJSON *m = convo(9);
    CHECK_EQ(count_str(m, "image_url\",\"image_url"), 9);
    CHECK_OK(agent_evict_pass(m, 1, NULL, NULL, NULL, NULL));
    CHECK_EQ(count_str(m, "image_url\",\"image_url"), 2);
    CHECK_EQ(count_str(m, AGENT_EVICT_SCREENSHOT_MARK), 7);
    /* The two kept are the newest: the last two user messages. */
    int users = 0;
    for (int i = cJSON_GetArraySize(m) - 1; i >= 0 && users < 3; i--) {
        cJSON *msg = cJSON_GetArrayItem(m, i);
        if (strcmp(cJSON_GetObjectItem(msg, "role")->valuestring, "user") != 0)
            continue;
        users++;
        CHECK_EQ(count_str(msg, "data:image"), users <= 2 ? 1 : 0);
    }
    cJSON_Delete(m);
}

static void failures(void)
{
    cJSON *m = convo(15); /* failures at steps 5, 10 and 15 */
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    agent_evict_stats st = {0};
    CHECK_OK(agent_evict_pass(m, 2, l, NULL, &st, NULL));
    CHECK_EQ(st.changed[2], 2);
    CHECK_EQ(st.dead_ends, 2);
    CHECK_EQ(l->n_dead_ends, 2);
    CHECK_EQ(l->dead_ends[0].cause, AGENT_CAUSE_STALE_SELECTOR);
    CHECK_STR(l->dead_ends[0].url, "https://air.example/page/3"); /* step 10, newest first */
    CHECK(strstr(l->dead_ends[0].what, "click_at("));
    CHECK_EQ(l->dead_ends[1].step, 5);
    CHECK_EQ(count_str(m, "\\\"ok\\\":false"), 1); /* the newest, verbatim */
    CHECK_EQ(count_str(m, "earlier failure, kept as a dead end"), 2);
    /* The Worker on page 3 sees the dead end recorded there. */
    char *w = agent_ledger_render(l, AGENT_ROLE_WORKER, "https://air.example/page/3");
    CHECK(w && strstr(w, "DEAD ENDS ON THIS PAGE") && strstr(w, "stale_selector"));
    base_free(w);
    cJSON_Delete(m);
    agent_ledger_destroy(l);
}

static void state_blocks(void)
{
    /* Steps 1-9: pages 0,0,0,1,1,1,2,2,2. Current page 2 (title page 2). */
    cJSON *m = convo(9);
    CHECK_OK(agent_evict_pass(m, 3, NULL, NULL, NULL, NULL));
    CHECK_EQ(count_str(m, "[SESSION_STATE"), 3); /* steps 7, 8, 9: last two turns + same page */
    CHECK_EQ(count_str(m, AGENT_EVICT_STATE_MARK), 6);
    CHECK_EQ(count_str(m, "page/0 title"), 0);
    CHECK_EQ(count_str(m, "page/2 title"), 3);
    char url[200];
    char title[100];
    CHECK(agent_evict_current_page(m, url, sizeof url, title, sizeof title));
    CHECK_STR(url, "https://air.example/page/2");
    CHECK_STR(title, "Flights page 2");
    cJSON_Delete(m);
}

static void thinking(void)
{
    cJSON *m = convo(8);
    CHECK_EQ(count_str(m, "reasoning_content"), 8);
    CHECK_OK(agent_evict_pass(m, 4, NULL, NULL, NULL, NULL));
    CHECK_EQ(count_str(m, "reasoning_content"), 3);
    CHECK_EQ(count_str(m, "\"tool_calls\""), 8); /* calls are never stripped */
    /* The newest assistant keeps its reasoning. */
    int i = cJSON_GetArraySize(m) - 1;
    while (strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(m, i), "role")->valuestring, "assistant"))
        i--;
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(m, i), "reasoning_content"));
    cJSON_Delete(m);
}

static void gut(void)
{
    cJSON *m = convo(12); /* 2 + 12 * 3 + 3 = 41 messages */
    int n = cJSON_GetArraySize(m);
    CHECK(n > 30);
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    agent_evict_opts o;
    agent_evict_opts_default(&o);
    o.step = 12;
    agent_evict_stats st = {0};
    CHECK_OK(agent_evict_pass(m, 5, l, &o, &st, NULL));
    CHECK_EQ(cJSON_GetArraySize(m), n);           /* count preserved */
    CHECK(st.changed[5] > 0);
    CHECK_EQ(count_str(m, "\"_archived\":true"), st.changed[5]);
    CHECK_EQ(l->n_episodic, 1);
    CHECK(strstr(l->episodic[0].text, "archived") && strstr(l->episodic[0].text, "step 12"));
    /* The prefix (message 0) and the last 5 turns are whole. */
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 0), "content")->valuestring, SYNTH_PREFIX);
    CHECK_EQ(count_str(m, "[SESSION_STATE"), 5);
    /* The wire copy drops fovea's annotations. */
    cJSON *w = agent_evict_wire(m);
    CHECK(w);
    CHECK_EQ(count_str(w, "_archived"), 0);
    /* Bodies became the mark (assistants whose content was null stay null). */
    int marks = count_str(w, AGENT_EVICT_ARCHIVED_MARK);
    CHECK(marks > 0 && marks <= st.changed[5]);
    CHECK(agent_evict_pairs_ok(w, NULL, 0));
    cJSON_Delete(w);
    /* Under the threshold nothing is gutted. */
    cJSON *small = convo(8); /* 30 messages */
    agent_evict_stats s2 = {0};
    CHECK_OK(agent_evict_pass(small, 5, NULL, &o, &s2, NULL));
    CHECK_EQ(s2.changed[5], 0);
    cJSON_Delete(small);
    cJSON_Delete(m);
    agent_ledger_destroy(l);
}

static void elements(void)
{
    cJSON *m = convo(6);
    CHECK_EQ(count_str(m, "[ELEMENTS"), 6);
    CHECK_OK(agent_evict_pass(m, 6, NULL, NULL, NULL, NULL));
    CHECK_EQ(count_str(m, "[ELEMENTS"), 1);
    CHECK_EQ(count_str(m, AGENT_EVICT_ELEMENTS_MARK), 5);
    /* The one kept is the newest (step 6's user message). */
    int u = cJSON_GetArraySize(m) - 1;
    while (strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(m, u), "role")->valuestring, "user"))
        u--;
    cJSON *last_user = cJSON_GetArrayItem(m, u);
    char *s = cJSON_PrintUnformatted(last_user);
    CHECK(strstr(s, "[ELEMENTS"));
    cJSON_free(s);
    cJSON_Delete(m);
}

/* A framed tool result (as agent/plan/goal.c writes them) answering id,
 * with data of n bytes of text. */
static void add_result_of(cJSON *m, const char *id, size_t n)
{
    char *text = base_malloc(n + 1);
    memset(text, 'x', n);
    text[n] = '\0';
    cJSON *j = cJSON_CreateObject();
    cJSON_AddTrueToObject(j, "ok");
    cJSON_AddStringToObject(j, "reason", "ok");
    cJSON_AddStringToObject(j, "message", "lines extracted");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(j, "data"), "value", text);
    char *in = cJSON_PrintUnformatted(j);
    char *framed = agent_untrusted_wrap(0x1234, "tool result", in);
    cJSON *call = cJSON_CreateObject();
    cJSON_AddStringToObject(call, "role", "assistant");
    cJSON *tc = cJSON_AddArrayToObject(call, "tool_calls");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "id", id);
    cJSON_AddStringToObject(c, "type", "function");
    cJSON *fn = cJSON_AddObjectToObject(c, "function");
    cJSON_AddStringToObject(fn, "name", "extract");
    cJSON_AddStringToObject(fn, "arguments", "{}");
    cJSON_AddItemToArray(tc, c);
    cJSON_AddItemToArray(m, call);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "role", "tool");
    cJSON_AddStringToObject(r, "tool_call_id", id);
    cJSON_AddStringToObject(r, "content", framed);
    cJSON_AddItemToArray(m, r);
    base_free(framed);
    cJSON_free(in);
    cJSON_Delete(j);
    base_free(text);
}

/* What tools read leaves after one turn (issue 22): the older results'
 * data becomes the marker with its size, the frame and the outcome stay;
 * the newest keeps it; small data stays everywhere; twice = once. */
static void tool_data(void)
{
    cJSON *m = synth_prefix();
    add_result_of(m, "c1", 3000);
    add_result_of(m, "c2", 50);
    add_result_of(m, "c3", 2000);
    CHECK_OK(agent_evict_pass(m, 6, NULL, NULL, NULL, NULL));
    CHECK_EQ(count_str(m, AGENT_EVICT_DATA_MARK), 1);
    char *s = cJSON_PrintUnformatted(m);
    CHECK_MSG(strstr(s, AGENT_EVICT_DATA_MARK " 3012 characters]") != NULL, "%s", s);
    cJSON_free(s);
    const cJSON *r1 = NULL, *r3 = NULL;
    const cJSON *it;
    cJSON_ArrayForEach(it, m)
    {
        const cJSON *id = cJSON_GetObjectItem(it, "tool_call_id");
        if (id && strcmp(id->valuestring, "c1") == 0)
            r1 = it;
        if (id && strcmp(id->valuestring, "c3") == 0)
            r3 = it;
    }
    const char *c1 = cJSON_GetObjectItem(r1, "content")->valuestring;
    CHECK(strstr(c1, "<<<UNTRUSTED tool result nonce=") == c1);
    CHECK(strstr(c1, "\"message\":\"lines extracted\"") != NULL);
    CHECK(strstr(c1, "xxxx") == NULL);
    CHECK(strlen(cJSON_GetObjectItem(r3, "content")->valuestring) > 2000);
    cJSON *once = cJSON_Duplicate(m, 1);
    agent_evict_stats st = {0};
    CHECK_OK(agent_evict_pass(m, 6, NULL, NULL, &st, NULL));
    CHECK(cJSON_Compare(once, m, 1));
    CHECK_EQ(st.changed[6], 0);
    /* Off: nothing dropped. */
    cJSON *m2 = synth_prefix();
    add_result_of(m2, "c1", 3000);
    add_result_of(m2, "c2", 3000);
    agent_evict_opts o;
    agent_evict_opts_default(&o);
    o.keep_tool_data = 0;
    CHECK_OK(agent_evict_pass(m2, 6, NULL, &o, NULL, NULL));
    CHECK_EQ(count_str(m2, AGENT_EVICT_DATA_MARK), 0);
    cJSON_Delete(m2);
    cJSON_Delete(once);
    cJSON_Delete(m);
}

static void prefix(void)
{
    cJSON *m = synth_prefix();
    char *first = cJSON_PrintUnformatted(cJSON_GetArrayItem(m, 0));
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("book the cheapest non-stop flight", NULL, NULL, &l, NULL));
    char *prev_block = NULL;
    int block_changes = 0;
    for (int s = 1; s <= 50; s++) {
        synth_step(m, s);
        /* The loop records every step: the recent deque rotates each time. */
        CHECK_OK(agent_ledger_step_begin(l, s, "click_at", "c", "{}"));
        agent_step_report rep = {s, "worker", "click_at", "c", "{}", 1, 1, "ok", "clicked", ""};
        CHECK_OK(agent_ledger_step_end(l, &rep));
        agent_evict_opts o;
        agent_evict_opts_default(&o);
        o.step = s;
        agent_evict_stats st = {0};
        CHECK_OK(agent_evict(m, l, &o, &st, NULL));
        CHECK_EQ(st.ledger_refreshed, 1); /* the per-step part moved */
        char *now = cJSON_PrintUnformatted(cJSON_GetArrayItem(m, 0));
        CHECK_MSG(strcmp(now, first) == 0, "prefix changed at step %d", s);
        cJSON_free(now);
        const cJSON *blk = cJSON_GetObjectItem(cJSON_GetArrayItem(m, 1), "content");
        CHECK(cJSON_IsString(blk) && strncmp(blk->valuestring, "[LEDGER", 7) == 0);
        CHECK(strstr(blk->valuestring, "GOAL: book the cheapest non-stop flight\n"));
        /* The rarely-changing block holds no per-step slot... */
        CHECK(!strstr(blk->valuestring, "RECENT STEPS"));
        if (prev_block && strcmp(prev_block, blk->valuestring) != 0)
            block_changes++;
        base_free(prev_block);
        prev_block = base_strdup(blk->valuestring);
        /* ...which is in the newest observation only, once. */
        CHECK_EQ(count_str(m, "[LEDGER view="), 1);
        CHECK_EQ(count_str(m, "[LEDGER_NOW view="), 1);
        int last_user = cJSON_GetArraySize(m) - 1;
        while (strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(m, last_user), "role")->valuestring,
                      "tool") != 0 &&
               strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(m, last_user), "role")->valuestring,
                      "user") != 0)
            last_user--;
        CHECK_EQ(count_str(cJSON_GetArrayItem(m, last_user), "[LEDGER_NOW view="), 1);
        char want[40];
        snprintf(want, sizeof want, "- step %d worker", s);
        CHECK(count_str(cJSON_GetArrayItem(m, last_user), want) == 1);
        CHECK(agent_evict_pairs_ok(m, NULL, 0));
    }
    /* The block changes with the ledger's slow slots only (dead ends from
     * the failures of steps 5, 10...; the page's dead ends in the Worker's
     * view), not every step. */
    CHECK_MSG(block_changes <= 20, "the ledger block changed at %d of 50 steps", block_changes);
    base_free(prev_block);
    cJSON_free(first);
    cJSON_Delete(m);
    agent_ledger_destroy(l);
}

static void flat(void)
{
    cJSON *naive = synth_prefix();
    cJSON *live = synth_prefix();
    agent_ledger *l = NULL;
    CHECK_OK(agent_ledger_create("g", NULL, NULL, &l, NULL));
    size_t lo = (size_t)-1;
    size_t hi = 0;
    size_t naive50 = 0;
    size_t early = 0; /* sums over steps 10-19 and 41-50, both lists */
    size_t late = 0;
    size_t n_early = 0;
    size_t n_late = 0;
    for (int s = 1; s <= 50; s++) {
        synth_step(naive, s);
        synth_step(live, s);
        agent_evict_opts o;
        agent_evict_opts_default(&o);
        o.step = s;
        CHECK_OK(agent_evict(live, l, &o, NULL, NULL));
        size_t t = model_tokens_messages(live);
        size_t tn = model_tokens_messages(naive);
        if (s >= 10) {
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
        if (s >= 10 && s < 20) {
            early += t;
            n_early += tn;
        }
        if (s > 40) {
            late += t;
            n_late += tn;
        }
        naive50 = tn;
    }
    /* A band (the paper's is 11-22K: 2x), while the naive list at step 50
     * is over 4x the band's top. The live list still drifts up a little
     * (archived messages keep a marker and their tool calls): its growth
     * per step must stay under a twentieth of the naive list's. */
    CHECK_MSG(hi < lo * 2, "live band %zu..%zu", lo, hi);
    CHECK_MSG(late > early ? (late - early) * 20 < n_late - n_early : 1,
              "live drifts: mean %zu at 10-19, %zu at 41-50 (naive %zu, %zu)", early / 10,
              late / 10, n_early / 10, n_late / 10);
    CHECK_MSG(naive50 > hi * 4, "naive %zu vs live max %zu", naive50, hi);
    cJSON_Delete(naive);
    cJSON_Delete(live);
    agent_ledger_destroy(l);
}

static const check_case cases[] = {{"idempotent", idempotent},
                                   {"pairs", pairs},
                                   {"screenshots", screenshots},
                                   {"failures", failures},
                                   {"state_blocks", state_blocks},
                                   {"thinking", thinking},
                                   {"gut", gut},
                                   {"elements", elements},
                                   {"tool_data", tool_data},
                                   {"prefix", prefix},
                                   {"flat", flat},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    base_json_alloc_install();
    return check_main(argc, argv, cases);
}
