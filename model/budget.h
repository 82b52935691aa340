/* model/budget.h: the hard per-task token budget (seed 003: 100,000 tokens
 * by default, a task that would exceed it stops with cost_cap_exceeded) and
 * what the tokens cost when prices are configured.
 *
 * The budget is checked BEFORE every model call with an estimate of the
 * request's prompt tokens, and charged AFTER with the usage the server
 * reports. A call is refused when spent + estimate > limit: nothing is sent.
 *
 * The estimator is the one of model/tokens.h (the eviction counts with it
 * too): the messages' text, tool calls and results, images by their pixel
 * size read from the data: URL (OpenAI's tile rule), plus the tools array and
 * the answer schema, then scaled by the ratio the server's own prompt counts
 * showed on earlier calls (actual / estimated, kept between 0.5 and 2), so it
 * follows the model's tokenizer after the first call.
 *
 * A budget belongs to its task's thread: every function that takes one runs
 * there. Nothing here allocates or fails except where Errors: says so.
 */
#ifndef FOVEA_MODEL_BUDGET_H
#define FOVEA_MODEL_BUDGET_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

#define MODEL_BUDGET_DEFAULT 100000L

/* Tokens of one call (or a sum of calls). */
typedef struct model_budget_usage {
    long prompt, completion, cached; /* cached is part of prompt */
    int reported;                    /* 1 when the server sent usage */
} model_budget_usage;

typedef struct model_budget {
    long limit;       /* tokens per task; 0 = no limit */
    long spent;       /* prompt + completion so far */
    model_budget_usage total;
    int calls;
    /* Prices in dollars per million tokens; < 0 = not configured. */
    double price_in, price_out, price_cached;
    double ratio;     /* actual / estimated prompt tokens, learned */
} model_budget;

/* Sets b to a budget of limit tokens (0 = none), no prices. b is the
 * caller's. On the budget's thread; cannot fail. */
void model_budget_init(model_budget *b, long limit);

/* Reads FOVEA_TOKEN_BUDGET (tokens; 0 = no limit) and the prices
 * FOVEA_PRICE_IN, FOVEA_PRICE_OUT, FOVEA_PRICE_CACHED ($ per 1M tokens;
 * cached defaults to the input price) into b. Any thread, while nobody
 * changes the environment. Errors: BASE_EINVAL naming the variable; b
 * untouched then. */
base_err model_budget_from_env(model_budget *b, char *err);

/* Parses a token count as --token-budget takes it ("100000", "100k", "1.5M";
 * 0 = no limit). Errors: BASE_EINVAL (err quotes the text); *out untouched
 * then. Pure; any thread. */
base_err model_budget_parse(const char *text, long *out, char *err);

/* The estimated prompt tokens of a request (see the file comment); messages,
 * tools and schema may be NULL. Pure, any thread. */
long model_budget_estimate(const model_budget *b, const cJSON *messages, const cJSON *tools,
                           const cJSON *schema);

/* Refuses a call of estimate tokens that would pass the limit. Errors:
 * BASE_ETOOBIG with "cost_cap_exceeded: N tokens spent of the L-token budget;
 * this call needs about E more (--token-budget / FOVEA_TOKEN_BUDGET)". On the
 * budget's thread. */
base_err model_budget_check(const model_budget *b, long estimate, char *err);

/* Charges one call's usage (u->prompt 0 or negative, reported or not: the
 * estimate is charged instead, and the ratio is not learned from it) and learns the estimator's ratio from it. u is borrowed.
 * On the budget's thread; cannot fail. */
void model_budget_charge(model_budget *b, const model_budget_usage *u, long estimate);

/* Dollars for u at b's prices, or -1 when no price is configured. Pure; any
 * thread. */
double model_budget_cost(const model_budget *b, const model_budget_usage *u);

/* One line for people: "12,345 / 100,000 tokens (in 11,000, cached 8,000,
 * out 1,345), $0.0123" into out (n bytes, always NUL-terminated, cut when
 * short). On the budget's thread; cannot fail. */
void model_budget_describe(const model_budget *b, char *out, size_t n);

#endif
