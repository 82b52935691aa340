/* agent/plan/orchestrator.c: the Orchestrator's routing and the search worker
 * (agent/plan/orchestrator.h). */
#include "agent/plan/orchestrator.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "model/http_get.h"

base_err agent_orch_parse_learnings(agent_orch *o, const char *spec, char *err)
{
    o->n_learn = 0;
    const char *p = spec ? spec : "";
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, ",");
        char item[256];
        if (n >= sizeof item || o->n_learn >= AGENT_ORCH_LEARNINGS) {
            o->n_learn = 0;
            return base_errf(err, BASE_EINVAL,
                             "FOVEA_ROUTE_LEARNINGS: too long or more than %d items",
                             AGENT_ORCH_LEARNINGS);
        }
        memcpy(item, p, n);
        item[n] = '\0';
        p += n;
        char *eq = strchr(item, '=');
        char *colon = eq ? strchr(eq, ':') : NULL;
        char *end = NULL;
        double conf = colon ? strtod(colon + 1, &end) : -1;
        if (!eq || !colon || eq == item || end == colon + 1 || (end && *end) || conf < 0 ||
            conf > 1) {
            o->n_learn = 0;
            return base_errf(err, BASE_EINVAL,
                             "FOVEA_ROUTE_LEARNINGS: \"%.120s\" is not domain=search:0.9 or "
                             "domain=browser:0.9",
                             item);
        }
        *eq = '\0';
        *colon = '\0';
        agent_route kind;
        if (strcasecmp(eq + 1, "search") == 0)
            kind = AGENT_ROUTE_SEARCH;
        else if (strcasecmp(eq + 1, "browser") == 0)
            kind = AGENT_ROUTE_BROWSER;
        else {
            o->n_learn = 0;
            return base_errf(err, BASE_EINVAL,
                             "FOVEA_ROUTE_LEARNINGS: worker \"%.60s\" is neither search nor "
                             "browser",
                             eq + 1);
        }
        int i = o->n_learn++;
        /* Through agent_route_domain, so "https://www.Example.com" and
         * "example.com" name the same domain as the task's URL. */
        char u[200];
        snprintf(u, sizeof u, "%s%.150s", strstr(item, "://") ? "" : "http://", item);
        agent_route_domain(u, o->learn_domain[i], sizeof o->learn_domain[i]);
        o->learn[i].domain = o->learn_domain[i];
        o->learn[i].preferred = kind;
        o->learn[i].confidence = conf;
    }
    return BASE_OK;
}

base_err agent_orch_init(agent_orch *o, char *err)
{
    memset(o, 0, sizeof *o);
    agent_breaker_init(&o->br);
    const char *su = getenv("FOVEA_SEARCH_URL");
    if (su && su[0]) {
        if (strncasecmp(su, "http://", 7) != 0 && strncasecmp(su, "https://", 8) != 0)
            return base_errf(err, BASE_EINVAL, "FOVEA_SEARCH_URL must be an http(s) URL, not %.200s",
                             su);
        if (strlen(su) >= sizeof o->search_url)
            return base_errf(err, BASE_EINVAL, "FOVEA_SEARCH_URL is longer than %zu bytes",
                             sizeof o->search_url - 1);
        snprintf(o->search_url, sizeof o->search_url, "%s", su);
    }
    base_err e = agent_orch_parse_learnings(o, getenv("FOVEA_ROUTE_LEARNINGS"), err);
    if (!e)
        e = agent_classifier_create(&o->cls, err);
    return e;
}

void agent_orch_fini(agent_orch *o)
{
    if (!o)
        return;
    agent_classifier_destroy(o->cls);
    o->cls = NULL;
}

void agent_orch_decision_fini(agent_orch_decision *d)
{
    if (!d)
        return;
    base_free(d->text);
    d->text = NULL;
}

int agent_search_url(const char *tmpl, const char *query, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    char enc[3 * 1024 + 1];
    size_t k = 0;
    for (const unsigned char *q = (const unsigned char *)(query ? query : "");
         *q && k + 4 < sizeof enc; q++) {
        if (isalnum(*q) || strchr("-._~", *q))
            enc[k++] = (char)*q;
        else if (*q == ' ')
            enc[k++] = '+';
        else {
            enc[k++] = '%';
            enc[k++] = hex[*q >> 4];
            enc[k++] = hex[*q & 15];
        }
    }
    enc[k] = '\0';
    size_t n = 0;
    int subst = 0;
    for (const char *t = tmpl; *t;) {
        const char *piece = t;
        size_t len = 1;
        if (strncmp(t, "{q}", 3) == 0) {
            piece = enc;
            len = k;
            t += 3;
            subst = 1;
        } else {
            t++;
        }
        if (n + len >= cap)
            return -1;
        memcpy(out + n, piece, len);
        n += len;
    }
    if (!subst) {
        const char *sep = strchr(tmpl, '?') ? "&q=" : "?q=";
        if (n + 3 + k >= cap)
            return -1;
        memcpy(out + n, sep, 3);
        memcpy(out + n + 3, enc, k);
        n += 3 + k;
    }
    out[n] = '\0';
    return 0;
}

/* ---- readable text ---- */

static int tag_is(const char *p, const char *name)
{
    size_t n = strlen(name);
    return strncasecmp(p, name, n) == 0 &&
           (p[n] == '>' || p[n] == '/' || isspace((unsigned char)p[n]));
}

/* The first case-insensitive occurrence of needle in hay, or NULL. */
static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return hay;
    return NULL;
}

static const char *const SKIP[] = {"script", "style", "template", "noscript", "svg", "head"};
static const char *const BLOCK[] = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5",
                                    "h6", "section", "article", "table", "ul", "ol", "dt",
                                    "dd", "blockquote", "pre", "header", "footer", "main",
                                    "title", "td", "th"};

/* Appends one UTF-8 code point. */
static size_t put_cp(char *out, size_t n, size_t cap, unsigned long cp)
{
    char b[4];
    size_t k;
    if (cp < 0x80) {
        b[0] = (char)cp;
        k = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 63));
        k = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 63));
        b[2] = (char)(0x80 | (cp & 63));
        k = 3;
    } else if (cp < 0x110000) {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 63));
        b[2] = (char)(0x80 | ((cp >> 6) & 63));
        b[3] = (char)(0x80 | (cp & 63));
        k = 4;
    } else {
        return n;
    }
    if (n + k >= cap)
        return n;
    memcpy(out + n, b, k);
    return n + k;
}

/* Appends a character, collapsing blanks: ' ' after a blank or line break
 * is dropped, '\n' replaces a trailing ' ' and never doubles. */
static size_t put_ch(char *out, size_t n, size_t cap, char c)
{
    if (c == ' ' || c == '\t' || c == '\r') {
        if (n == 0 || out[n - 1] == ' ' || out[n - 1] == '\n')
            return n;
        c = ' ';
    } else if (c == '\n') {
        while (n > 0 && out[n - 1] == ' ')
            n--;
        if (n == 0 || out[n - 1] == '\n')
            return n;
    }
    if (n + 1 >= cap)
        return n;
    out[n] = c;
    return n + 1;
}

void agent_readable_text(const char *html, char *out, size_t cap)
{
    if (!out || cap == 0)
        return;
    size_t n = 0;
    const char *p = html ? html : "";
    while (*p && n + 1 < cap) {
        if (*p == '<') {
            if (strncmp(p, "<!--", 4) == 0) {
                const char *e = strstr(p + 4, "-->");
                p = e ? e + 3 : p + strlen(p);
                continue;
            }
            const char *name = p + 1 + (p[1] == '/');
            int skipped = 0;
            for (size_t i = 0; p[1] != '/' && i < sizeof SKIP / sizeof SKIP[0]; i++) {
                if (!tag_is(name, SKIP[i]))
                    continue;
                /* Skip to the matching close tag (these do not nest in
                 * practice). */
                char close[16];
                snprintf(close, sizeof close, "</%s", SKIP[i]);
                const char *e = find_ci(p, close);
                if (!e) {
                    p += strlen(p);
                } else {
                    const char *gt = strchr(e, '>');
                    p = gt ? gt + 1 : e + strlen(e);
                }
                skipped = 1;
                break;
            }
            if (skipped) {
                n = put_ch(out, n, cap, '\n');
                continue;
            }
            int block = 0;
            for (size_t i = 0; i < sizeof BLOCK / sizeof BLOCK[0]; i++)
                block |= tag_is(name, BLOCK[i]);
            const char *gt = strchr(p, '>');
            p = gt ? gt + 1 : p + strlen(p);
            n = put_ch(out, n, cap, block ? '\n' : ' ');
            continue;
        }
        if (*p == '&') {
            static const struct {
                const char *name;
                unsigned long cp;
            } ent[] = {{"amp;", '&'},   {"lt;", '<'},     {"gt;", '>'},     {"quot;", '"'},
                       {"apos;", '\''}, {"nbsp;", ' '},   {"#39;", '\''},   {"mdash;", 0x2014},
                       {"ndash;", 0x2013}, {"hellip;", 0x2026}, {"copy;", 0xA9}};
            size_t i = 0;
            for (; i < sizeof ent / sizeof ent[0]; i++)
                if (strncmp(p + 1, ent[i].name, strlen(ent[i].name)) == 0)
                    break;
            if (i < sizeof ent / sizeof ent[0]) {
                n = ent[i].cp == ' ' ? put_ch(out, n, cap, ' ') : put_cp(out, n, cap, ent[i].cp);
                p += 1 + strlen(ent[i].name);
                continue;
            }
            if (p[1] == '#') {
                char *e = NULL;
                int hx = p[2] == 'x' || p[2] == 'X';
                unsigned long cp = strtoul(p + 2 + hx, &e, hx ? 16 : 10);
                if (e && *e == ';' && e > p + 2 + hx && cp > 0) {
                    n = put_cp(out, n, cap, cp);
                    p = e + 1;
                    continue;
                }
            }
        }
        char c = *p++;
        n = (c == ' ' || c == '\t' || c == '\r' || c == '\n') ? put_ch(out, n, cap, ' ')
                                                              : (n + 1 < cap ? (out[n] = c, n + 1) : n);
    }
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\n'))
        n--;
    size_t s = 0;
    while (s < n && (out[s] == ' ' || out[s] == '\n'))
        s++;
    memmove(out, out + s, n - s);
    out[n - s] = '\0';
}

/* ---- routing ---- */

base_err agent_orch_route(agent_orch *o, const char *text, const char *url,
                          agent_orch_decision *d, char *err)
{
    memset(d, 0, sizeof *d);
    if (!o || !o->cls || !text)
        return base_errf(err, BASE_EINVAL, "orchestrator: no classifier or no text");
    base_err e = agent_classify(o->cls, text, url, o->learn, o->n_learn, &d->route, err);
    if (e)
        return e;
    d->worker = AGENT_ROUTE_BROWSER;
    const char *src = d->route.from_learning ? "a domain learning" : "the task's verbs";
    if (d->route.kind == AGENT_ROUTE_BROWSER) {
        snprintf(d->why, sizeof d->why, "browser route by %s: the browser Worker", src);
        return BASE_OK;
    }
    char domain[256];
    agent_route_domain(url ? url : "", domain, sizeof domain);
    if (!o->search_url[0]) {
        snprintf(d->why, sizeof d->why,
                 "lookup route by %s, but no search worker (FOVEA_SEARCH_URL is not set): the "
                 "browser Worker takes it",
                 src);
        return BASE_OK;
    }
    d->breaker = agent_breaker_check(&o->br, domain, text);
    if (d->breaker != AGENT_BREAKER_ALLOW) {
        snprintf(d->why, sizeof d->why,
                 "lookup route by %s, delegation refused by the circuit breaker (%s): the "
                 "browser Worker takes it",
                 src,
                 d->breaker == AGENT_BREAKER_ANSWERED ? "the search worker answered it already"
                                                      : "tried too often");
        return BASE_OK;
    }
    if (agent_search_url(o->search_url, text, d->fetched, sizeof d->fetched) != 0) {
        snprintf(d->why, sizeof d->why,
                 "lookup route by %s, but the search URL would be too long: the browser "
                 "Worker takes it",
                 src);
        d->fetched[0] = '\0';
        return BASE_OK;
    }
    o->delegations++;
    char *body = NULL;
    size_t len = 0;
    char why[BASE_ERRBUF_SIZE] = "";
    base_err ge = model_http_get(d->fetched, AGENT_SEARCH_TIMEOUT_MS, 4u << 20, &body, &len, why);
    char *txt = ge ? NULL : base_malloc(AGENT_SEARCH_TEXT_MAX + 1);
    if (txt)
        agent_readable_text(body, txt, AGENT_SEARCH_TEXT_MAX + 1);
    base_free(body);
    /* The delegation counts in the breaker whether or not it answered. */
    agent_breaker_record(&o->br, domain, text, txt);
    if (!txt) {
        snprintf(d->error, sizeof d->error, "%.250s", ge ? why : "out of memory");
        snprintf(d->why, sizeof d->why,
                 "lookup route by %s; the search worker failed (%.120s): the browser Worker "
                 "takes it",
                 src, d->error);
        return BASE_OK;
    }
    d->text = txt;
    d->worker = AGENT_ROUTE_SEARCH;
    snprintf(d->why, sizeof d->why, "lookup route by %s: the search worker (%zu characters)", src,
             strlen(txt));
    return BASE_OK;
}
