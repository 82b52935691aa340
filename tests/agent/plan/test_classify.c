/* tests/agent/plan/test_classify.c: Algorithm 7's router, the delegation circuit
 * breaker (agent/plan/classify.h) and loop detection (agent/plan/loop.h); pure.
 *
 * routes: action/transactional/brand/visual tasks go to the browser,
 *   aggregation over plurals and factual lookups to search, with the
 *   paper's scores; families are matched as words, in any case.
 * learnings: a domain learning above 0.8 decides, at or below it does not;
 *   "www." and ports do not split a domain.
 * breaker: a substantive answer refuses re-delegation of the same task
 *   (spelt differently), an empty one allows up to 3 tries; other tasks
 *   and domains are separate; slots are reused least-recently-used.
 * loop_normalise: case, spacing, key order, bookkeeping keys and a few
 *   pixels do not make a different action.
 * loop_escalates: same action on the same page: ok, nudge naming an
 *   alternative, warning, "stopped: loop"; a changed page resets; an
 *   action outside the window is forgotten.
 */
#include "check.h"

#include "agent/plan/classify.h"
#include "agent/plan/loop.h"
#include "base/json_alloc.h"

static agent_classifier *cls;

static agent_route_result route(const char *task, const char *url)
{
    agent_route_result r;
    memset(&r, 0, sizeof r);
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_classify(cls, task, url, NULL, 0, &r, err) != BASE_OK)
        fprintf(stderr, "classify: %s\n", err);
    return r;
}

static void routes(void)
{
    agent_route_result r = route("Book the cheapest non-stop flight to Lisbon on 14 June", NULL);
    CHECK_EQ(r.kind, AGENT_ROUTE_BROWSER);
    CHECK(r.matched & AGENT_FAM_ACTION);
    CHECK(r.matched & AGENT_FAM_TRANSACTIONAL);
    CHECK(r.matched & AGENT_FAM_DATE);
    CHECK(fabs(r.browser - 1.70) < 1e-9);
    r = route("What is the capital of Norway?", NULL);
    CHECK_EQ(r.kind, AGENT_ROUTE_SEARCH);
    CHECK(fabs(r.confidence - 0.60) < 1e-9);
    r = route("Compare the prices of the top 5 noise-cancelling headphones", NULL);
    CHECK_EQ(r.kind, AGENT_ROUTE_SEARCH);
    CHECK(r.matched & AGENT_FAM_AGGREGATION);
    CHECK(fabs(r.search - 0.70) < 1e-9);
    r = route("add the blue mug to my cart on shop.example.com", NULL);
    CHECK_EQ(r.kind, AGENT_ROUTE_BROWSER);
    CHECK(r.matched & AGENT_FAM_EXPLICIT_TARGET);
    r = route("What does the logo on the homepage look like?", NULL);
    CHECK_EQ(r.kind, AGENT_ROUTE_BROWSER); /* visual-only cancels the factual score */
    CHECK_EQ(r.search, 0);
    r = route("find my order history on AMAZON", NULL);
    CHECK(r.matched & AGENT_FAM_BRAND);
    CHECK_EQ(r.kind, AGENT_ROUTE_BROWSER);
    /* Words, not substrings: "booking" as a noun without a date is not a
     * transaction with a date; "rebook" is not "book". */
    r = route("who founded rebookify", NULL);
    CHECK(!(r.matched & AGENT_FAM_ACTION));
    CHECK_EQ(r.kind, AGENT_ROUTE_SEARCH);
    /* Nothing matches: browser wins the 0-0 tie, with zero confidence. */
    r = route("hello", NULL);
    CHECK_EQ(r.kind, AGENT_ROUTE_BROWSER);
    CHECK_EQ(r.confidence, 0);
    CHECK(agent_classify(cls, NULL, NULL, NULL, 0, &r, NULL) == BASE_EINVAL);
}

static void learnings(void)
{
    agent_route_learning L[] = {{"news.example", AGENT_ROUTE_SEARCH, 0.95},
                                {"www.shop.example", AGENT_ROUTE_BROWSER, 0.8}};
    agent_route_result r;
    CHECK_OK(agent_classify(cls, "buy the red shoes", "https://www.news.example:8443/a", L, 2,
                            &r, NULL));
    CHECK_EQ(r.kind, AGENT_ROUTE_SEARCH);
    CHECK(r.from_learning);
    CHECK(r.confidence == 0.95);
    /* 0.8 is not above 0.8: the scores decide. */
    CHECK_OK(agent_classify(cls, "what is the capital of Peru", "http://shop.example/", L, 2,
                            &r, NULL));
    CHECK_EQ(r.kind, AGENT_ROUTE_SEARCH);
    CHECK(!r.from_learning);
    char d[64];
    agent_route_domain("https://user:pw@WWW.Example.COM:80/x?y#z", d, sizeof d);
    CHECK_STR(d, "example.com");
    agent_route_domain("no-scheme.org/path", d, sizeof d);
    CHECK_STR(d, "no-scheme.org");
    agent_route_domain(NULL, d, sizeof d);
    CHECK_STR(d, "");
}

static void breaker(void)
{
    agent_breaker b;
    agent_breaker_init(&b);
    const char *answer = "The capital of Norway is Oslo, which has been the capital since 1814 "
                         "and is the largest city of the country.";
    CHECK(agent_breaker_substantive(answer));
    CHECK(!agent_breaker_substantive("Error: the search endpoint did not answer at all, "
                                     "timeout after 30 seconds, nothing came back from it"));
    CHECK(!agent_breaker_substantive("Oslo"));
    CHECK_EQ(agent_breaker_check(&b, "", "capital of Norway"), AGENT_BREAKER_ALLOW);
    agent_breaker_record(&b, "", "capital of Norway", answer);
    CHECK_EQ(agent_breaker_check(&b, "", "Capital of   Norway?"), AGENT_BREAKER_ANSWERED);
    CHECK_EQ(agent_breaker_check(&b, "x.com", "capital of Norway"), AGENT_BREAKER_ALLOW);
    CHECK_EQ(agent_breaker_check(&b, "", "capital of Sweden"), AGENT_BREAKER_ALLOW);
    for (int i = 0; i < 2; i++) {
        agent_breaker_record(&b, "a.example", "find the price", "no results");
        CHECK_EQ(agent_breaker_check(&b, "a.example", "find the price"), AGENT_BREAKER_ALLOW);
    }
    agent_breaker_record(&b, "a.example", "find the price", NULL);
    CHECK_EQ(agent_breaker_check(&b, "a.example", "find the price"), AGENT_BREAKER_TRIPPED);
    /* Filling every slot evicts the least recently used (the Norway task). */
    for (int i = 0; i < AGENT_BREAKER_SLOTS; i++) {
        char t[32];
        snprintf(t, sizeof t, "task %d", i);
        agent_breaker_record(&b, "", t, NULL);
        if (i == 0)
            agent_breaker_record(&b, "a.example", "find the price", NULL); /* used again */
    }
    CHECK_EQ(agent_breaker_check(&b, "", "capital of Norway"), AGENT_BREAKER_ALLOW);
    CHECK_EQ(agent_breaker_check(&b, "a.example", "find the price"), AGENT_BREAKER_TRIPPED);
}

static void loop_normalise(void)
{
    char a[200];
    char b[200];
    agent_loop_normalise("click_at", "{\"target\":\"[V3]  Search\",\"note\":\"x\"}", a, sizeof a);
    agent_loop_normalise("click_at", "{\"target\":\"[v3] search\",\"timeout_ms\":900}", b,
                         sizeof b);
    CHECK_STR(a, b);
    CHECK_STR(a, "click_at{target=[v3] search;}");
    agent_loop_normalise("drag", "{\"y\":212,\"x\":101}", a, sizeof a);
    agent_loop_normalise("drag", "{\"x\":110,\"y\":205}", b, sizeof b);
    CHECK_STR(a, b);
    agent_loop_normalise("drag", "{\"x\":160,\"y\":205}", b, sizeof b);
    CHECK(strcmp(a, b) != 0);
    agent_loop_normalise("type_at", "{\"target\":\"q\",\"text\":\"Lisbon\"}", a, sizeof a);
    agent_loop_normalise("type_at", "{\"target\":\"q\",\"text\":\"Porto\"}", b, sizeof b);
    CHECK(strcmp(a, b) != 0);
    agent_loop_normalise("scroll", "not json", a, sizeof a);
    CHECK_STR(a, "scroll(not json)");
    char tiny[8];
    CHECK(agent_loop_normalise("click_at", "{\"target\":\"long label\"}", tiny, sizeof tiny) < 8);
}

static void loop_escalates(void)
{
    agent_loop lp;
    agent_loop_init(&lp);
    agent_loop_verdict v;
    const char *args = "{\"target\":\"[V3] Search\"}";
    agent_loop_observe(&lp, 1, "click_at", args, 42, NULL, &v);
    CHECK_EQ(v.level, AGENT_LOOP_OK);
    agent_loop_observe(&lp, 2, "scroll", "{\"dy\":400}", 42, NULL, &v);
    CHECK_EQ(v.level, AGENT_LOOP_OK);
    agent_loop_observe(&lp, 3, "click_at", args, 42, NULL, &v);
    CHECK_EQ(v.level, AGENT_LOOP_NUDGE);
    CHECK(strstr(v.message, "step 1") && strstr(v.message, "scroll to bring the element"));
    agent_loop_observe(&lp, 4, "click_at", args, 42, "open the 'More filters' panel", &v);
    CHECK_EQ(v.level, AGENT_LOOP_WARN);
    CHECK(strstr(v.message, "ends the run") && strstr(v.message, "More filters"));
    agent_loop_observe(&lp, 5, "click_at", args, 42, NULL, &v);
    CHECK_EQ(v.level, AGENT_LOOP_STOP);
    CHECK(strncmp(v.message, AGENT_LOOP_STOPPED, strlen(AGENT_LOOP_STOPPED)) == 0);
    CHECK_EQ(v.repeats, 4);
    /* The same click on a changed page is not a loop. */
    agent_loop_observe(&lp, 6, "click_at", args, 43, NULL, &v);
    CHECK_EQ(v.level, AGENT_LOOP_OK);
    /* Out of the window: forgotten. */
    agent_loop_init(&lp);
    agent_loop_observe(&lp, 1, "click_at", args, 7, NULL, &v);
    for (int i = 0; i < AGENT_LOOP_WINDOW; i++) {
        char a[40];
        snprintf(a, sizeof a, "{\"dy\":%d}", 100 * (i + 1));
        agent_loop_observe(&lp, 2 + i, "scroll", a, 7, NULL, &v);
        CHECK_EQ(v.level, AGENT_LOOP_OK);
    }
    agent_loop_observe(&lp, 20, "click_at", args, 7, NULL, &v);
    CHECK_EQ(v.level, AGENT_LOOP_OK);
    /* Alternating A, B, A, B on one page is caught too. */
    agent_loop_init(&lp);
    int worst = 0;
    for (int i = 0; i < 8; i++) {
        agent_loop_observe(&lp, i + 1, i % 2 ? "go_back" : "click_at", args, 9, NULL, &v);
        worst = (int)v.level > worst ? (int)v.level : worst;
        if (v.level == AGENT_LOOP_STOP)
            break;
    }
    CHECK_EQ(worst, AGENT_LOOP_STOP);
}

static const check_case cases[] = {{"routes", routes},
                                   {"learnings", learnings},
                                   {"breaker", breaker},
                                   {"loop_normalise", loop_normalise},
                                   {"loop_escalates", loop_escalates},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    base_json_alloc_install();
    if (agent_classifier_create(&cls, NULL) != BASE_OK)
        return 1;
    int rc = check_main(argc, argv, cases);
    agent_classifier_destroy(cls);
    return rc;
}
