/* model/budget.c: the per-task token budget (see budget.h for the rule and
 * the estimator). Counting is plain arithmetic over the request's cJSON;
 * nothing here allocates, so a check can never fail for want of memory.
 */
#include "model/budget.h"

#include "model/tokens.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATIO_MIN 0.5
#define RATIO_MAX 2.0

void model_budget_init(model_budget *b, long limit)
{
    if (!b)
        return;
    memset(b, 0, sizeof *b);
    b->limit = limit > 0 ? limit : 0;
    b->price_in = b->price_out = b->price_cached = -1;
    b->ratio = 1.0;
}

base_err model_budget_parse(const char *text, long *out, char *err)
{
    if (!text || !out || !*text)
        return base_errf(err, BASE_EINVAL, "token budget: expected a number of tokens");
    char *end = NULL;
    double v = strtod(text, &end);
    double mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1e3;
    else if (*end == 'm' || *end == 'M')
        mul = 1e6;
    if (mul > 1)
        end++;
    if (end == text || *end || !(v >= 0) || v * mul > 1e12)
        return base_errf(err, BASE_EINVAL,
                         "token budget '%.40s': expected a number of tokens (100000, 100k, 1.5M; "
                         "0 = no limit)",
                         text);
    *out = (long)llround(v * mul);
    return BASE_OK;
}

/* A price in $ per 1M tokens from name; def when unset. -2 on junk. */
static double env_price(const char *name, double def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end = NULL;
    double x = strtod(v, &end);
    return *end || !(x >= 0) || x > 1e6 ? -2 : x;
}

base_err model_budget_from_env(model_budget *b, char *err)
{
    if (!b)
        return base_errf(err, BASE_EINVAL, "budget: NULL argument");
    model_budget t = *b;
    const char *v = getenv("FOVEA_TOKEN_BUDGET");
    if (v && *v) {
        char perr[BASE_ERRBUF_SIZE] = "";
        if (model_budget_parse(v, &t.limit, perr))
            return base_errf(err, BASE_EINVAL, "FOVEA_TOKEN_BUDGET: %s", perr);
    }
    static const char *const names[] = {"FOVEA_PRICE_IN", "FOVEA_PRICE_OUT", "FOVEA_PRICE_CACHED"};
    double *fields[] = {&t.price_in, &t.price_out, &t.price_cached};
    for (int i = 0; i < 3; i++) {
        double p = env_price(names[i], *fields[i]);
        if (p == -2)
            return base_errf(err, BASE_EINVAL, "%s: expected dollars per million tokens (0.15)",
                             names[i]);
        *fields[i] = p;
    }
    /* Cached input costs the input price unless said otherwise. */
    if (t.price_cached < 0)
        t.price_cached = t.price_in;
    *b = t;
    return BASE_OK;
}

/* Tokens of a JSON value that is not a message list (the tools array, an
 * answer schema): every key and string by the one text estimate
 * (model/tokens.h), numbers and literals one token each. */
static size_t json_tokens(const cJSON *v, int depth)
{
    if (!v || depth > 64)
        return 0;
    size_t t = v->string ? model_tokens_text(v->string, strlen(v->string)) + 1 : 0;
    if (cJSON_IsString(v) && v->valuestring)
        t += model_tokens_text(v->valuestring, strlen(v->valuestring)) + 1;
    else if (cJSON_IsNumber(v) || cJSON_IsBool(v) || cJSON_IsNull(v))
        t += 1;
    for (const cJSON *c = (cJSON_IsArray(v) || cJSON_IsObject(v)) ? v->child : NULL; c;
         c = c->next)
        t += json_tokens(c, depth + 1);
    return t;
}

long model_budget_estimate(const model_budget *b, const cJSON *messages, const cJSON *tools,
                           const cJSON *schema)
{
    /* Messages (text, tool calls, images by their pixel size) by the one
     * estimator the eviction also uses (model/tokens.h). */
    double tokens = (double)model_tokens_messages(messages) + (double)json_tokens(tools, 0) +
                    (double)json_tokens(schema, 0);
    double ratio = b && b->ratio > 0 ? b->ratio : 1.0;
    return (long)ceil(tokens * ratio);
}

base_err model_budget_check(const model_budget *b, long estimate, char *err)
{
    if (!b || b->limit <= 0)
        return BASE_OK;
    if (b->spent + estimate <= b->limit)
        return BASE_OK;
    return base_errf(err, BASE_ETOOBIG,
                     "cost_cap_exceeded: %ld tokens spent of the %ld-token budget; this call "
                     "needs about %ld more (raise it with --token-budget or FOVEA_TOKEN_BUDGET)",
                     b->spent, b->limit, estimate);
}

void model_budget_charge(model_budget *b, const model_budget_usage *u, long estimate)
{
    if (!b || !u)
        return;
    model_budget_usage c = *u;
    if (c.prompt <= 0) {
        /* Zero or negative is no measurement: charge the estimate and learn
         * nothing from it. */
        c.prompt = estimate;
        c.reported = 0;
    }
    if (c.completion < 0)
        c.completion = 0;
    if (c.reported && c.prompt > 0 && estimate > 0) {
        /* What the estimate would have been at ratio 1, against the truth. */
        double raw = (double)estimate / (b->ratio > 0 ? b->ratio : 1.0);
        double r = (double)c.prompt / raw;
        b->ratio = r < RATIO_MIN ? RATIO_MIN : r > RATIO_MAX ? RATIO_MAX : r;
    }
    b->total.prompt += c.prompt;
    b->total.completion += c.completion;
    b->total.cached += c.cached;
    b->total.reported |= c.reported;
    b->spent += c.prompt + c.completion;
    b->calls++;
}

double model_budget_cost(const model_budget *b, const model_budget_usage *u)
{
    if (!b || !u || (b->price_in < 0 && b->price_out < 0))
        return -1;
    double in = b->price_in > 0 ? b->price_in : 0, out = b->price_out > 0 ? b->price_out : 0;
    double cached = b->price_cached >= 0 ? b->price_cached : in;
    long fresh = u->prompt - u->cached;
    return ((double)(fresh > 0 ? fresh : 0) * in + (double)u->cached * cached +
            (double)u->completion * out) /
           1e6;
}

void model_budget_describe(const model_budget *b, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    if (!b) {
        out[0] = '\0';
        return;
    }
    char lim[32] = "no limit";
    if (b->limit > 0)
        snprintf(lim, sizeof lim, "%ld", b->limit);
    int k = snprintf(out, n, "%ld / %s tokens (in %ld, cached %ld, out %ld)", b->spent, lim,
                     b->total.prompt, b->total.cached, b->total.completion);
    double cost = model_budget_cost(b, &b->total);
    if (cost >= 0 && k >= 0 && (size_t)k < n)
        snprintf(out + k, n - (size_t)k, ", $%.4f", cost);
}
