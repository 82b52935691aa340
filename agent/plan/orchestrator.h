/* agent/plan/orchestrator.h: the Orchestrator role of the agent loop (seed 002
 * Algorithm 1 with Algorithm 7's verb classifier, agent/plan/classify.h) and the
 * minimal search worker it can delegate lookups to.
 *
 * At task start, and each time the Planner moves to another subgoal, the
 * Orchestrator classifies the text (the task, then the active subgoal) with
 * the task's domain and the per-domain learnings, and picks a worker:
 *   - browser: the agent loop's Worker (agent_loop.c) carries on;
 *   - search: when FOVEA_SEARCH_URL is set and the circuit breaker allows
 *     another delegation of this (domain, text), the search worker GETs the
 *     search URL for the text and returns the page's readable text, which
 *     the Planner then judges like any observation. With no FOVEA_SEARCH_URL
 *     (the default) a lookup route falls back to the browser Worker and the
 *     decision says so; a refused delegation (the breaker: answered already,
 *     or AGENT_BREAKER_MAX_TRIES tries) does too.
 * Learnings come from FOVEA_ROUTE_LEARNINGS: "domain=search:0.9,
 * other.org=browser:0.95" (a confidence above 0.8 overrides the scores).
 *
 * On the agent loop's thread (one orchestrator per run).
 */
#ifndef FOVEA_AGENT_PLAN_ORCHESTRATOR_H
#define FOVEA_AGENT_PLAN_ORCHESTRATOR_H

#include <stddef.h>

#include "agent/plan/classify.h"
#include "base/err.h"

#define AGENT_ORCH_LEARNINGS 16
#define AGENT_SEARCH_TEXT_MAX 6000   /* readable characters handed to the Planner */
#define AGENT_SEARCH_TIMEOUT_MS 15000

typedef struct agent_orch {
    agent_classifier *cls;
    agent_breaker br;
    agent_route_learning learn[AGENT_ORCH_LEARNINGS];
    char learn_domain[AGENT_ORCH_LEARNINGS][128];
    int n_learn;
    char search_url[1024];  /* FOVEA_SEARCH_URL, "" = no search worker */
    int delegations;        /* search worker runs in this run */
} agent_orch;

/* Compiles the classifier, reads FOVEA_SEARCH_URL and FOVEA_ROUTE_LEARNINGS.
 * o is the caller's struct; release with agent_orch_fini. Any thread. Errors:
 * BASE_EINVAL (FOVEA_SEARCH_URL is not http(s), or a learning is malformed:
 * err quotes it), BASE_ENOMEM. */
base_err agent_orch_init(agent_orch *o, char *err);
/* Frees what o holds (classifier, learnings); o itself stays the caller's.
 * NULL: no-op. On the loop's thread. */
void agent_orch_fini(agent_orch *o);

/* Parses a learnings list ("dom=search:0.9,dom2=browser:0.95") into o's table
 * (replacing it). Pure but for o. Errors: BASE_EINVAL with the bad item
 * quoted; o's table is then empty. */
base_err agent_orch_parse_learnings(agent_orch *o, const char *spec, char *err);

/* Which worker runs, and why. */
typedef struct agent_orch_decision {
    agent_route_result route;   /* the classifier's answer */
    agent_route worker;         /* who runs: browser, or search */
    agent_breaker_verdict breaker;
    char why[256];              /* one line for progress, ledger and trace */
    char fetched[1024];         /* the search worker's URL ("" when it did not run) */
    char *text;                 /* its readable text (owned; NULL when it did not run) */
    char error[256];            /* its failure, when it failed (then worker is browser) */
} agent_orch_decision;

/* Routes text (the task or a subgoal) on the page url (may be NULL) and, on a
 * search route that may run, runs the search worker and records the
 * delegation in the breaker. A failed fetch is not an error of the run: the
 * decision falls back to the browser and says why. d is filled
 * (agent_orch_decision_fini). On the loop's thread. Errors: BASE_EINVAL (NULL
 * text), the classifier's (BASE_ETOOBIG). */
base_err agent_orch_route(agent_orch *o, const char *text, const char *url,
                          agent_orch_decision *d, char *err);
/* Frees d->text; d itself stays the caller's. NULL: no-op. Any thread. */
void agent_orch_decision_fini(agent_orch_decision *d);

/* The search URL for query: each "{q}" in tmpl replaced by the
 * percent-encoded query, or "q=<query>" appended when tmpl has none. Pure.
 * Returns 0, or -1 when it does not fit in cap. */
int agent_search_url(const char *tmpl, const char *query, char *out, size_t cap);

/* The readable text of an HTML page (tags dropped, script/style/
 * template/noscript contents skipped, block ends as line breaks, common
 * entities decoded, runs of blanks collapsed), at most cap-1 bytes. Pure. */
void agent_readable_text(const char *html, char *out, size_t cap);

#endif
