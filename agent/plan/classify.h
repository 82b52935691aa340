/* agent/plan/classify.h: task routing by verbs (seed 002 §4.2, Algorithm 7) and
 * the Orchestrator's circuit breaker on repeated delegation.
 *
 * The classifier scores a task against pattern families (regular
 * expressions, kept as a data table in classify.c: action verbs,
 * transactional nouns, date indicators, explicit targets, visual-only
 * cues, brand names, aggregation verbs, plural context, factual lookups):
 *   browser += 0.80 action, 0.90 transactional AND a date, 0.85 explicit
 *              target, 0.80 visual-only, 0.70 brand;
 *   search  += 0.70 aggregation AND plural context, 0.60 factual lookup
 *              (unless visual-only);
 * a per-domain learning with confidence above 0.8 for the task's URL
 * overrides the scores; otherwise browser wins ties. Deterministic.
 *
 * Threads: a classifier is read-only once created and may be shared by any
 * threads; a breaker is plain data of its owner's thread. Failures are a
 * base_err with err saying why.
 */
#ifndef FOVEA_AGENT_PLAN_CLASSIFY_H
#define FOVEA_AGENT_PLAN_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef enum agent_route {
    AGENT_ROUTE_BROWSER = 0,
    AGENT_ROUTE_SEARCH
} agent_route;

/* The pattern families, as bits of agent_route_result.matched. */
enum {
    AGENT_FAM_ACTION = 1 << 0,
    AGENT_FAM_TRANSACTIONAL = 1 << 1,
    AGENT_FAM_DATE = 1 << 2,
    AGENT_FAM_EXPLICIT_TARGET = 1 << 3,
    AGENT_FAM_VISUAL_ONLY = 1 << 4,
    AGENT_FAM_BRAND = 1 << 5,
    AGENT_FAM_AGGREGATION = 1 << 6,
    AGENT_FAM_PLURAL = 1 << 7,
    AGENT_FAM_FACTUAL = 1 << 8
};

/* What the Orchestrator learned about a domain (which kind of worker served
 * it), e.g. from earlier runs. */
typedef struct agent_route_learning {
    const char *domain;  /* "example.com" (a leading "www." is ignored) */
    agent_route preferred;
    double confidence;   /* 0..1; used above 0.8 */
} agent_route_learning;

typedef struct agent_route_result {
    agent_route kind;
    double confidence;   /* max(browser, search) or the learning's */
    double browser;      /* the two scores */
    double search;
    unsigned matched;    /* AGENT_FAM_* bits */
    int from_learning;   /* 1 when a domain learning decided */
} agent_route_result;

typedef struct agent_classifier agent_classifier;

/* Compiles the pattern table. *out is the caller's
 * (agent_classifier_destroy). Any thread; the classifier is then read-only
 * and may be shared. Errors: BASE_ENOMEM, BASE_EINVAL (a table pattern does
 * not compile: a bug, err names it). */
base_err agent_classifier_create(agent_classifier **out, char *err);
/* Frees c. NULL: no-op. Once no thread uses it. */
void agent_classifier_destroy(agent_classifier *c);

/* Routes task (with its optional start url, and n learnings, either may be
 * NULL/0). Borrows all. Any thread. Errors: BASE_EINVAL (NULL task),
 * BASE_ETOOBIG (a pattern hit its match limits on a huge task; err says
 * which). */
base_err agent_classify(const agent_classifier *c, const char *task, const char *url,
                        const agent_route_learning *learnings, int n, agent_route_result *out,
                        char *err);

/* The registrable-ish host of url for learnings: lower-cased, no port, no
 * leading "www."; "" when url has no host. Pure. */
void agent_route_domain(const char *url, char *out, size_t cap);

/* ---- circuit breaker on repeated delegation ---- */

#define AGENT_BREAKER_SLOTS 64
#define AGENT_BREAKER_MAX_TRIES 3      /* delegations of one (domain, task) */
#define AGENT_BREAKER_SUBSTANTIVE 80   /* result characters that count as an answer */

typedef enum agent_breaker_verdict {
    AGENT_BREAKER_ALLOW = 0,
    AGENT_BREAKER_ANSWERED,  /* refused: an earlier delegation returned a substantive result */
    AGENT_BREAKER_TRIPPED    /* refused: AGENT_BREAKER_MAX_TRIES delegations already */
} agent_breaker_verdict;

typedef struct agent_breaker_slot {
    uint64_t key;            /* hash of domain + normalised task; 0 = free */
    int tries;
    int answered;
    long used;               /* for eviction of the least recently used */
} agent_breaker_slot;

typedef struct agent_breaker {
    agent_breaker_slot slot[AGENT_BREAKER_SLOTS];
    long clock;
} agent_breaker;

/* An empty breaker (caller-owned struct). Pure. */
void agent_breaker_init(agent_breaker *b);

/* May the Orchestrator delegate task (on domain, may be "") again? Pure
 * (reads b). */
agent_breaker_verdict agent_breaker_check(const agent_breaker *b, const char *domain,
                                          const char *task);

/* Records a delegation and its result text (NULL: none yet); a result of
 * AGENT_BREAKER_SUBSTANTIVE or more non-space characters that is not an
 * error/empty answer marks the task answered. The least recently used slot is
 * reused when all are taken. Strings are hashed, not kept. On b's owner's
 * thread; cannot fail. */
void agent_breaker_record(agent_breaker *b, const char *domain, const char *task,
                          const char *result);

/* 1 when result counts as a substantive answer (see above). Pure. */
int agent_breaker_substantive(const char *result);

#endif
