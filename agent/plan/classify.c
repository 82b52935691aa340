/* agent/plan/classify.c: Algorithm 7's verb classifier and the delegation
 * circuit breaker (classify.h). The pattern families are the table below:
 * edit the data, not the code. */
#include "agent/plan/classify.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/regex.h"

#define MONTHS "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
#define DAYS "(?:mon|tues|wednes|thurs|fri|satur|sun)day"

typedef struct family {
    unsigned bit;
    const char *name;
    const char *pattern; /* PCRE2, matched caseless */
} family;

static const family families[] = {
    {AGENT_FAM_ACTION, "action",
     "\\b(?:book|buy|purchase|order|reserve|sign ?up|log ?in|sign ?in|register|subscribe|"
     "click|fill(?: out| in)?|submit|apply|check ?out|add (?:it |them |this )?to (?:the |my )?"
     "(?:cart|basket|bag|wishlist)|download|upload|post|send|cancel|schedule|pay|rent|enrol|"
     "enroll|play|drag|select|tick|toggle|type|log out|unsubscribe|accept|delete|edit)\\b"},
    {AGENT_FAM_TRANSACTIONAL, "transactional",
     "\\b(?:flights?|hotels?|tickets?|reservations?|bookings?|appointments?|table for|"
     "check-?in|check-?out|deliver(?:y|ies)|rentals?|seats?|rooms?|stays?|nights?|"
     "fares?|trains?|cars?)\\b"},
    {AGENT_FAM_DATE, "date",
     "\\b(?:\\d{1,2}(?:st|nd|rd|th)?(?: of)? " MONTHS "|" MONTHS " \\d{1,2}(?:st|nd|rd|th)?|"
     "\\d{4}-\\d{2}-\\d{2}|\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?|today|tomorrow|tonight|"
     "next (?:week|month|weekend|" DAYS ")|this (?:week|weekend|" DAYS ")|(?:on )?" DAYS ")\\b"},
    {AGENT_FAM_EXPLICIT_TARGET, "explicit_target",
     "https?://|\\bwww\\.|\\b[a-z0-9-]+\\.(?:com|org|net|io|co|gov|edu|de|fr|uk|es|it|nl|pt|"
     "se|no|dk|jp|in|ai|app|dev)\\b|\\bgo to\\b|\\bnavigate to\\b|\\bopen (?:the )?(?:site|"
     "page|website|app)\\b|\\bon (?:the|their|this) (?:site|website|page|portal)\\b"},
    {AGENT_FAM_VISUAL_ONLY, "visual_only",
     "\\b(?:screenshots?|what does .{1,60} look like|colou?rs? of|images?|pictures?|photos?|"
     "logos?|layout|captcha|charts?|videos?|visual(?:ly)?|on (?:the|this) screen|banner|"
     "icons?)\\b"},
    {AGENT_FAM_BRAND, "brand",
     "\\b(?:amazon|ebay|booking\\.com|airbnb|expedia|google (?:flights|maps)|youtube|linkedin|"
     "github|reddit|twitter|facebook|instagram|netflix|spotify|uber|walmart|ikea|etsy|zillow|"
     "kayak|skyscanner|ryanair|easyjet|lufthansa|delta|aliexpress|zalando|tripadvisor|"
     "opentable|doordash|deliveroo)\\b"},
    {AGENT_FAM_AGGREGATION, "aggregation",
     "\\b(?:compare|comparison|list|summari[sz]e|summary of|find (?:all|every|the best|the top|"
     "several)|top \\d+|rank(?:ing)?|overview|aggregate|collect|gather|research|survey|"
     "pros and cons|review of)\\b"},
    {AGENT_FAM_PLURAL, "plural",
     "\\b(?:all|every|several|multiple|various|many|top \\d+|\\d+ (?:best|top|different))\\b|"
     "\\b(?:sources|options|articles|papers|reviews|products|prices|companies|countries|"
     "models|tools|libraries|frameworks|alternatives|services|providers|brands)\\b"},
    {AGENT_FAM_FACTUAL, "factual",
     "^\\s*(?:what|who|when|where|which|why|how (?:many|much|old|tall|far|long|big))\\b|"
     "\\b(?:capital of|population of|definition of|meaning of|born in|founded|tallest|"
     "largest|smallest|weather in|convert|how to|who (?:is|was|wrote|invented))\\b"},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

struct agent_classifier {
    base_regex *re[N_FAMILIES];
};

base_err agent_classifier_create(agent_classifier **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "classify: NULL out");
    agent_classifier *c = base_calloc(1, sizeof *c);
    if (!c)
        return base_errf(err, BASE_ENOMEM, "classify: out of memory");
    for (size_t i = 0; i < N_FAMILIES; i++) {
        char why[BASE_ERRBUF_SIZE] = "";
        base_err e = base_regex_compile(families[i].pattern, strlen(families[i].pattern),
                                        BASE_REGEX_CASELESS, &c->re[i], why);
        if (e != BASE_OK) {
            agent_classifier_destroy(c);
            return base_errf(err, e, "classify: family %s: %s", families[i].name, why);
        }
    }
    *out = c;
    return BASE_OK;
}

void agent_classifier_destroy(agent_classifier *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < N_FAMILIES; i++)
        base_regex_destroy(c->re[i]);
    base_free(c);
}

void agent_route_domain(const char *url, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    if (!url)
        return;
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    const char *at = NULL;
    size_t n = strcspn(h, "/?#");
    for (size_t i = 0; i < n; i++)
        if (h[i] == '@')
            at = h + i;
    if (at) { /* user:password@host */
        n -= (size_t)(at + 1 - h);
        h = at + 1;
    }
    size_t hl = strcspn(h, ":/?#");
    if (hl > n)
        hl = n;
    if (hl >= 4 && strncasecmp(h, "www.", 4) == 0) {
        h += 4;
        hl -= 4;
    }
    size_t k = 0;
    for (; k < hl && k + 1 < cap; k++)
        out[k] = (char)tolower((unsigned char)h[k]);
    out[k] = 0;
}

base_err agent_classify(const agent_classifier *c, const char *task, const char *url,
                        const agent_route_learning *learnings, int n, agent_route_result *out,
                        char *err)
{
    if (!c || !task || !out)
        return base_errf(err, BASE_EINVAL, "classify: NULL argument");
    unsigned m = 0;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        int hit = 0;
        base_err e = base_regex_match(c->re[i], task, strlen(task), &hit, err);
        if (e != BASE_OK)
            return e;
        if (hit)
            m |= families[i].bit;
    }
    agent_route_result r = {AGENT_ROUTE_BROWSER, 0, 0, 0, m, 0};
    if (m & AGENT_FAM_ACTION)
        r.browser += 0.80;
    if ((m & AGENT_FAM_TRANSACTIONAL) && (m & AGENT_FAM_DATE))
        r.browser += 0.90;
    if (m & AGENT_FAM_EXPLICIT_TARGET)
        r.browser += 0.85;
    if (m & AGENT_FAM_VISUAL_ONLY)
        r.browser += 0.80;
    if (m & AGENT_FAM_BRAND)
        r.browser += 0.70;
    if ((m & AGENT_FAM_AGGREGATION) && (m & AGENT_FAM_PLURAL))
        r.search += 0.70;
    if ((m & AGENT_FAM_FACTUAL) && !(m & AGENT_FAM_VISUAL_ONLY))
        r.search += 0.60;
    char dom[256];
    agent_route_domain(url, dom, sizeof dom);
    for (int i = 0; *dom && learnings && i < n; i++) {
        char ld[256];
        agent_route_domain(learnings[i].domain, ld, sizeof ld);
        if (strcmp(ld, dom) == 0 && learnings[i].confidence > 0.8) {
            r.kind = learnings[i].preferred;
            r.confidence = learnings[i].confidence;
            r.from_learning = 1;
            *out = r;
            return BASE_OK;
        }
    }
    r.kind = r.browser >= r.search ? AGENT_ROUTE_BROWSER : AGENT_ROUTE_SEARCH;
    r.confidence = r.browser >= r.search ? r.browser : r.search;
    *out = r;
    return BASE_OK;
}

/* ---- circuit breaker ---- */

/* FNV-1a over the domain and the task folded to lower case with runs of
 * space and punctuation as one space, so "Book X!" and "book  x" meet. */
static uint64_t task_key(const char *domain, const char *task)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = domain ? domain : ""; *p; p++)
        h = (h ^ (unsigned char)tolower((unsigned char)*p)) * 1099511628211ull;
    h = (h ^ '|') * 1099511628211ull;
    int space = 1;
    for (const char *p = task ? task : ""; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x80 && !isalnum(ch)) {
            space = 1;
            continue;
        }
        if (space)
            h = (h ^ ' ') * 1099511628211ull;
        space = 0;
        h = (h ^ (unsigned char)tolower(ch)) * 1099511628211ull;
    }
    return h ? h : 1;
}

void agent_breaker_init(agent_breaker *b)
{
    memset(b, 0, sizeof *b);
}

static const agent_breaker_slot *find_slot(const agent_breaker *b, uint64_t key)
{
    for (int i = 0; i < AGENT_BREAKER_SLOTS; i++)
        if (b->slot[i].key == key)
            return &b->slot[i];
    return NULL;
}

int agent_breaker_substantive(const char *result)
{
    if (!result)
        return 0;
    size_t n = 0;
    for (const char *p = result; *p; p++)
        n += !isspace((unsigned char)*p);
    if (n < AGENT_BREAKER_SUBSTANTIVE)
        return 0;
    while (isspace((unsigned char)*result))
        result++;
    static const char *const empty[] = {"error", "failed", "no results", "not found",
                                        "i could not", "i couldn't", "unable", "sorry"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++)
        if (strncasecmp(result, empty[i], strlen(empty[i])) == 0)
            return 0;
    return 1;
}

agent_breaker_verdict agent_breaker_check(const agent_breaker *b, const char *domain,
                                          const char *task)
{
    const agent_breaker_slot *s = find_slot(b, task_key(domain, task));
    if (!s)
        return AGENT_BREAKER_ALLOW;
    if (s->answered)
        return AGENT_BREAKER_ANSWERED;
    return s->tries >= AGENT_BREAKER_MAX_TRIES ? AGENT_BREAKER_TRIPPED : AGENT_BREAKER_ALLOW;
}

void agent_breaker_record(agent_breaker *b, const char *domain, const char *task,
                          const char *result)
{
    uint64_t key = task_key(domain, task);
    agent_breaker_slot *s = (agent_breaker_slot *)(uintptr_t)find_slot(b, key);
    if (!s) {
        s = &b->slot[0];
        for (int i = 0; i < AGENT_BREAKER_SLOTS; i++) {
            if (!b->slot[i].key) {
                s = &b->slot[i];
                break;
            }
            if (b->slot[i].used < s->used)
                s = &b->slot[i];
        }
        memset(s, 0, sizeof *s);
        s->key = key;
    }
    s->tries++;
    s->answered |= agent_breaker_substantive(result);
    s->used = ++b->clock;
}
