/* agent/session/guard.c: URL parsing and resolution, sites, search engines and the
 * navigation guards (agent/session/guard.h).
 *
 * Written for untrusted input: a model composes the URLs, so every copy is
 * bounded, control characters and backslashes in the authority are refused
 * (browsers read "\" as "/", which would let "https://good.example\@evil/"
 * mean different hosts to us and to the browser), and user info before '@'
 * is skipped exactly as the browser skips it. Nothing allocates: buffers are
 * the caller's or on the stack, so the module is trivially reentrant.
 */
#include "agent/session/guard.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <stdarg.h>

/* ---------- splitting (RFC 3986 §3, generic syntax) ---------- */

typedef struct span {
    const char *p;
    size_t n;
    int set; /* the component is present (possibly empty) */
} span;

typedef struct parts {
    span scheme, auth, path, query, frag;
} parts;

/* Splits s (n bytes) into its five components; no validation beyond the
 * scheme's characters (a "scheme" that is not one makes the whole text a
 * path, as in a relative reference). */
static void split(const char *s, size_t n, parts *pt)
{
    memset(pt, 0, sizeof *pt);
    size_t i = 0;
    if (n > 0 && isalpha((unsigned char)s[0])) {
        size_t k = 1;
        while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '+' || s[k] == '-' ||
                         s[k] == '.'))
            k++;
        if (k < n && s[k] == ':') {
            pt->scheme = (span){s, k, 1};
            i = k + 1;
        }
    }
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        size_t a = i + 2, k = a;
        while (k < n && s[k] != '/' && s[k] != '?' && s[k] != '#')
            k++;
        pt->auth = (span){s + a, k - a, 1};
        i = k;
    }
    size_t k = i;
    while (k < n && s[k] != '?' && s[k] != '#')
        k++;
    pt->path = (span){s + i, k - i, 1};
    i = k;
    if (i < n && s[i] == '?') {
        k = i + 1;
        while (k < n && s[k] != '#')
            k++;
        pt->query = (span){s + i + 1, k - i - 1, 1};
        i = k;
    }
    if (i < n && s[i] == '#')
        pt->frag = (span){s + i + 1, n - i - 1, 1};
}

/* A bounded string builder: `over` records that something did not fit. */
typedef struct sbuf {
    char *p;
    size_t cap, len;
    int over;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n >= b->cap) {
        b->over = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

/* RFC 3986 §5.2.4: removes "." and ".." segments from path (n bytes),
 * appending the result to out. The input is copied so the prefix
 * rewrites ("/./x" -> "/x") can be done in place. */
static void remove_dots(const char *path, size_t n, sbuf *out)
{
    char in[AGENT_URL_MAX * 2];
    if (n >= sizeof in) {
        out->over = 1;
        return;
    }
    memcpy(in, path, n);
    in[n] = '\0';
    size_t start = out->len; /* output written here belongs to this path */
    size_t i = 0;
    while (i < n) {
        const char *r = in + i;
        size_t left = n - i;
        if (left >= 3 && memcmp(r, "../", 3) == 0) {
            i += 3;
        } else if (left >= 2 && memcmp(r, "./", 2) == 0) {
            i += 2;
        } else if (left >= 3 && memcmp(r, "/./", 3) == 0) {
            i += 2; /* leaves "/..." */
        } else if (left == 2 && memcmp(r, "/.", 2) == 0) {
            in[i + 1] = '/';
            i += 1; /* leaves "/" */
        } else if ((left >= 4 && memcmp(r, "/../", 4) == 0) ||
                   (left == 3 && memcmp(r, "/..", 3) == 0)) {
            if (left == 3) {
                in[i + 2] = '/';
                i += 2;
            } else {
                i += 3;
            }
            /* Drop the last output segment and its '/'. */
            while (out->len > start && out->p[out->len - 1] != '/')
                out->len--;
            if (out->len > start)
                out->len--;
            out->p[out->len] = '\0';
        } else if ((left == 1 && r[0] == '.') || (left == 2 && memcmp(r, "..", 2) == 0)) {
            i = n;
        } else {
            size_t k = r[0] == '/' ? 1 : 0;
            while (k < left && r[k] != '/')
                k++;
            sb_put(out, r, k);
            i += k;
        }
    }
}

static int has_ctl(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            return 1;
    }
    return 0;
}

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && isspace((unsigned char)(*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

/* ---------- resolution (RFC 3986 §5.2.2) ---------- */

base_err agent_url_resolve(const char *base, const char *ref, char *out, size_t n, char *err)
{
    if (!ref || !out || n == 0)
        return base_errf(err, BASE_EINVAL, "no URL given");
    const char *r = ref;
    size_t rn = strlen(ref);
    trim(&r, &rn);
    if (rn == 0)
        return base_errf(err, BASE_EINVAL, "empty URL");
    if (rn >= AGENT_URL_MAX)
        return base_errf(err, BASE_ETOOBIG, "URL longer than %d bytes", AGENT_URL_MAX - 1);
    if (has_ctl(r, rn))
        return base_errf(err, BASE_EINVAL, "URL contains control characters");
    parts R;
    split(r, rn, &R);
    char buf[AGENT_URL_MAX * 2];
    sbuf b = {buf, sizeof buf, 0, 0};
    buf[0] = '\0';
    if (R.scheme.set) {
        /* Absolute: kept as written, dot segments removed. */
        sb_put(&b, R.scheme.p, R.scheme.n + 1);
        if (R.auth.set) {
            sb_str(&b, "//");
            sb_put(&b, R.auth.p, R.auth.n);
        }
        if (R.auth.set || (R.path.n > 0 && R.path.p[0] == '/'))
            remove_dots(R.path.p, R.path.n, &b);
        else
            sb_put(&b, R.path.p, R.path.n); /* opaque: "mailto:x", "about:blank" */
    } else {
        if (!base || !base[0])
            return base_errf(err, BASE_EINVAL,
                             "'%.100s' is a relative URL and there is no page to resolve it "
                             "against",
                             ref);
        size_t bn = strlen(base);
        parts B;
        split(base, bn, &B);
        if (!B.scheme.set || (!B.auth.set && (B.path.n == 0 || B.path.p[0] != '/')))
            return base_errf(err, BASE_EINVAL,
                             "'%.100s' is a relative URL and the current page (%.60s) has no "
                             "path to resolve it against",
                             ref, base);
        sb_put(&b, B.scheme.p, B.scheme.n + 1);
        span auth = R.auth.set ? R.auth : B.auth;
        if (auth.set) {
            sb_str(&b, "//");
            sb_put(&b, auth.p, auth.n);
        }
        if (R.auth.set) {
            remove_dots(R.path.p, R.path.n, &b);
        } else if (R.path.n == 0) {
            sb_put(&b, B.path.p, B.path.n);
            if (!R.query.set && B.query.set) {
                sb_str(&b, "?");
                sb_put(&b, B.query.p, B.query.n);
            }
        } else if (R.path.p[0] == '/') {
            remove_dots(R.path.p, R.path.n, &b);
        } else {
            /* Merge: the base path up to its last '/', then the reference. */
            char m[AGENT_URL_MAX * 2];
            sbuf mb = {m, sizeof m, 0, 0};
            m[0] = '\0';
            if (B.auth.set && B.path.n == 0) {
                sb_str(&mb, "/");
            } else {
                size_t k = B.path.n;
                while (k > 0 && B.path.p[k - 1] != '/')
                    k--;
                sb_put(&mb, B.path.p, k);
            }
            sb_put(&mb, R.path.p, R.path.n);
            if (mb.over)
                return base_errf(err, BASE_ETOOBIG, "resolved URL too long");
            remove_dots(m, mb.len, &b);
        }
    }
    if (R.query.set) {
        sb_str(&b, "?");
        sb_put(&b, R.query.p, R.query.n);
    }
    if (R.frag.set) {
        sb_str(&b, "#");
        sb_put(&b, R.frag.p, R.frag.n);
    }
    if (b.over || b.len >= n || b.len >= AGENT_URL_MAX)
        return base_errf(err, BASE_ETOOBIG, "resolved URL longer than %d bytes",
                         (int)(n < AGENT_URL_MAX ? n : AGENT_URL_MAX) - 1);
    memcpy(out, buf, b.len + 1);
    return BASE_OK;
}

/* ---------- parsing ---------- */

static int host_char_ok(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '%' || c >= 0x80;
}

base_err agent_url_parse(const char *url, agent_url *out, char *err)
{
    if (!url || !out)
        return base_errf(err, BASE_EINVAL, "no URL given");
    size_t n = strlen(url);
    if (n >= AGENT_URL_MAX)
        return base_errf(err, BASE_ETOOBIG, "URL longer than %d bytes", AGENT_URL_MAX - 1);
    if (has_ctl(url, n))
        return base_errf(err, BASE_EINVAL, "URL contains control characters");
    parts P;
    split(url, n, &P);
    if (!P.scheme.set || P.scheme.n >= sizeof out->scheme)
        return base_errf(err, BASE_EINVAL, "'%.100s' has no scheme (http://, https://)", url);
    agent_url u;
    memset(&u, 0, sizeof u);
    for (size_t i = 0; i < P.scheme.n; i++)
        u.scheme[i] = (char)tolower((unsigned char)P.scheme.p[i]);
    int web = strcmp(u.scheme, "http") == 0 || strcmp(u.scheme, "https") == 0;
    if (P.auth.set) {
        u.has_authority = 1;
        const char *a = P.auth.p;
        size_t an = P.auth.n;
        if (memchr(a, '\\', an))
            return base_errf(err, BASE_EINVAL, "'%.100s': a backslash in the host part", url);
        /* User info ends at the LAST '@' of the authority, as browsers read it. */
        for (size_t i = an; i > 0; i--) {
            if (a[i - 1] == '@') {
                a += i;
                an -= i;
                break;
            }
        }
        size_t hn;
        const char *port = NULL;
        size_t pn = 0;
        if (an > 0 && a[0] == '[') {
            const char *close = memchr(a, ']', an);
            if (!close)
                return base_errf(err, BASE_EINVAL, "'%.100s': unclosed IPv6 address", url);
            hn = (size_t)(close - a) + 1;
            if (hn < an) {
                if (a[hn] != ':')
                    return base_errf(err, BASE_EINVAL, "'%.100s': junk after the IPv6 address",
                                     url);
                port = a + hn + 1;
                pn = an - hn - 1;
            }
        } else {
            const char *colon = memchr(a, ':', an);
            hn = colon ? (size_t)(colon - a) : an;
            if (colon) {
                port = colon + 1;
                pn = an - hn - 1;
            }
            for (size_t i = 0; i < hn; i++) {
                if (!host_char_ok((unsigned char)a[i]))
                    return base_errf(err, BASE_EINVAL, "'%.100s': bad character in the host",
                                     url);
            }
        }
        while (hn > 0 && a[hn - 1] == '.' && a[0] != '[')
            hn--; /* "example.com." is example.com */
        if (hn >= sizeof u.host)
            return base_errf(err, BASE_EINVAL, "'%.100s': host name too long", url);
        for (size_t i = 0; i < hn; i++)
            u.host[i] = (char)tolower((unsigned char)a[i]);
        if (pn > 0) {
            long v = 0;
            for (size_t i = 0; i < pn; i++) {
                if (!isdigit((unsigned char)port[i]) || v > 65535)
                    return base_errf(err, BASE_EINVAL, "'%.100s': bad port", url);
                v = v * 10 + (port[i] - '0');
            }
            if (v < 1 || v > 65535)
                return base_errf(err, BASE_EINVAL, "'%.100s': bad port", url);
            u.port = (int)v;
        }
    }
    if (web && !u.host[0])
        return base_errf(err, BASE_EINVAL, "'%.100s' has no host", url);
    if (u.port == 0)
        u.port = strcmp(u.scheme, "http") == 0 ? 80 : strcmp(u.scheme, "https") == 0 ? 443 : 0;
    memcpy(u.path, P.path.p, P.path.n);
    u.path[P.path.n] = '\0';
    if (P.query.set) {
        memcpy(u.query, P.query.p, P.query.n);
        u.query[P.query.n] = '\0';
    }
    *out = u;
    return BASE_OK;
}

base_err agent_url_normalize(const char *url, char *out, size_t n)
{
    if (!out || n == 0)
        return BASE_EINVAL;
    agent_url u;
    if (agent_url_parse(url, &u, NULL) != BASE_OK) {
        snprintf(out, n, "%s", url ? url : "");
        return BASE_EINVAL;
    }
    int dflt = (strcmp(u.scheme, "http") == 0 && u.port == 80) ||
               (strcmp(u.scheme, "https") == 0 && u.port == 443) || u.port == 0;
    char port[16] = "";
    if (!dflt)
        snprintf(port, sizeof port, ":%d", u.port);
    const char *path = u.path[0] ? u.path : (u.has_authority ? "/" : "");
    snprintf(out, n, "%s:%s%s%s%s%s%s", u.scheme, u.has_authority ? "//" : "", u.host, port,
             path, u.query[0] ? "?" : "", u.query);
    return BASE_OK;
}

/* ---------- hosts and sites ---------- */

int agent_host_is_ip(const char *host)
{
    if (!host || !host[0])
        return 0;
    if (host[0] == '[')
        return 1;
    int nparts = 0;
    const char *s = host;
    for (;;) {
        int digits = 0, v = 0;
        while (isdigit((unsigned char)*s) && digits < 4) {
            v = v * 10 + (*s - '0');
            digits++;
            s++;
        }
        if (digits == 0 || digits > 3 || v > 255)
            return 0;
        nparts++;
        if (*s == '\0')
            return nparts == 4;
        if (*s != '.' || nparts == 4)
            return 0;
        s++;
    }
}

/* Second-level labels that, under a two-letter country code, are public
 * (co.uk, com.au, ac.jp, gov.br, ...): the registrable domain then has
 * three labels. */
static const char *const generic_sld[] = {
    "ac", "co", "com", "edu", "gob", "go", "gouv", "gov", "govt", "ltd", "mil", "ne",
    "net", "nhs", "nic", "nom", "or", "org", "plc", "sch", "info", "biz", "gen", "firm",
};

/* Hosting suffixes under which every name is a different owner. */
static const char *const private_suffix[] = {
    "github.io", "gitlab.io", "herokuapp.com", "vercel.app", "netlify.app", "pages.dev",
    "workers.dev", "web.app", "firebaseapp.com", "appspot.com", "blogspot.com",
    "azurewebsites.net", "cloudfront.net", "s3.amazonaws.com", "fly.dev", "onrender.com",
    "glitch.me", "ngrok.io", "ngrok-free.app", "repl.co", "surge.sh", "neocities.org",
};

/* Byte offset in h (n bytes) where its last k labels begin; 0 when h has k
 * labels or fewer. */
static size_t last_labels(const char *h, size_t n, int k)
{
    int seen = 0;
    for (size_t i = n; i > 0; i--) {
        if (h[i - 1] == '.' && ++seen == k)
            return i;
    }
    return 0;
}

static int ends_with_label(const char *h, size_t n, const char *suffix)
{
    size_t sn = strlen(suffix);
    if (sn > n || strcmp(h + n - sn, suffix) != 0)
        return 0;
    return sn == n || h[n - sn - 1] == '.';
}

static int count_labels(const char *s)
{
    int k = 1;
    for (; *s; s++)
        k += *s == '.';
    return k;
}

void agent_registrable_domain(const char *host, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    if (!host)
        host = "";
    size_t hn = strlen(host);
    while (hn > 0 && host[hn - 1] == '.')
        hn--;
    if (agent_host_is_ip(host) || !memchr(host, '.', hn)) {
        snprintf(out, n, "%.*s", (int)hn, host);
        return;
    }
    char h[256];
    snprintf(h, sizeof h, "%.*s", (int)hn, host);
    hn = strlen(h);
    int keep = 2;
    for (size_t i = 0; i < sizeof private_suffix / sizeof private_suffix[0]; i++) {
        if (ends_with_label(h, hn, private_suffix[i])) {
            keep = count_labels(private_suffix[i]) + 1;
            break;
        }
    }
    if (keep == 2) {
        size_t tld = last_labels(h, hn, 1);
        size_t sld = last_labels(h, hn, 2);
        if (hn - tld == 2) {
            size_t sl = tld - 1 - sld;
            for (size_t i = 0; i < sizeof generic_sld / sizeof generic_sld[0]; i++) {
                if (strlen(generic_sld[i]) == sl && strncmp(h + sld, generic_sld[i], sl) == 0) {
                    keep = 3;
                    break;
                }
            }
        }
    }
    snprintf(out, n, "%s", h + last_labels(h, hn, keep));
}

void agent_url_site(const agent_url *u, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    if (!u || !u->host[0]) {
        out[0] = '\0';
        return;
    }
    if (agent_host_is_ip(u->host) || !strchr(u->host, '.'))
        snprintf(out, n, "%s:%d", u->host, u->port);
    else
        agent_registrable_domain(u->host, out, n);
}

/* ---------- search engines ---------- */

typedef struct engine {
    const char *name;
    const char *site;  /* registrable domain; "brand." = that brand under any country TLD */
    const char *label; /* NULL: the site or www.site; "*": any host of the site;
                          "search": search.site or *.search.site */
    const char *paths; /* '|'-separated search paths, "/" = the home page; NULL = all */
} engine;

static const engine engines[] = {
    {"Google", "google.", NULL, "/|/search|/webhp"},
    {"Bing", "bing.com", NULL, "/|/search"},
    {"DuckDuckGo", "duckduckgo.com", "*", "/|/html|/lite"},
    {"Yahoo Search", "yahoo.", "search", NULL},
    {"Yandex", "yandex.", NULL, "/|/search|/yandsearch"},
    {"Yandex", "ya.ru", NULL, "/|/search"},
    {"Baidu", "baidu.com", NULL, "/|/s"},
    {"Ecosia", "ecosia.org", NULL, "/|/search"},
    {"Startpage", "startpage.com", NULL, "/|/search|/do/search|/sp/search"},
    {"Brave Search", "brave.com", "search", NULL},
    {"Qwant", "qwant.com", NULL, "/"},
    {"Ask", "ask.com", NULL, "/|/web"},
    {"AOL Search", "aol.com", "search", NULL},
    {"Naver Search", "naver.com", "search", NULL},
    {"Seznam Search", "seznam.cz", "search", NULL},
    {"Sogou", "sogou.com", NULL, "/|/web"},
    {"Mojeek", "mojeek.com", NULL, "/|/search"},
};

/* 1 when site is e's: equal, or for a brand ("google.") the brand under a
 * country or generic TLD ("google.de", "google.co.uk", "google.com.au";
 * every remaining label at most three letters, so "google.github.io" is
 * not Google). */
static int site_is(const char *site, const char *want)
{
    size_t wn = strlen(want);
    if (want[wn - 1] != '.')
        return strcmp(site, want) == 0;
    if (strncmp(site, want, wn) != 0 || !site[wn])
        return 0;
    size_t run = 0;
    for (const char *s = site + wn; *s; s++) {
        if (*s == '.') {
            run = 0;
        } else if (++run > 3) {
            return 0;
        }
    }
    return 1;
}

static int path_in(const char *path, const char *list)
{
    if (!path[0])
        path = "/";
    while (*list) {
        const char *bar = strchr(list, '|');
        size_t k = bar ? (size_t)(bar - list) : strlen(list);
        if (k == 1 && list[0] == '/') {
            if (strcmp(path, "/") == 0)
                return 1;
        } else if (strncmp(path, list, k) == 0 && (path[k] == '\0' || path[k] == '/')) {
            return 1;
        }
        list += k;
        if (*list == '|')
            list++;
    }
    return 0;
}

const char *agent_search_engine(const agent_url *u)
{
    if (!u || !u->host[0] || agent_host_is_ip(u->host))
        return NULL;
    char site[256];
    agent_registrable_domain(u->host, site, sizeof site);
    size_t hn = strlen(u->host), sn = strlen(site);
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        const engine *e = &engines[i];
        if (!site_is(site, e->site))
            continue;
        int host_ok;
        if (!e->label) {
            host_ok = hn == sn || (hn == sn + 4 && strncmp(u->host, "www.", 4) == 0);
        } else if (strcmp(e->label, "*") == 0) {
            host_ok = 1;
        } else {
            /* "search.site" or "xx.search.site". */
            size_t ln = strlen(e->label);
            host_ok = hn >= sn + ln + 1 && u->host[hn - sn - 1] == '.' &&
                      strncmp(u->host + hn - sn - 1 - ln, e->label, ln) == 0 &&
                      (hn == sn + ln + 1 || u->host[hn - sn - ln - 2] == '.');
        }
        if (host_ok && (!e->paths || path_in(u->path, e->paths)))
            return e->name;
    }
    return NULL;
}

/* ---------- the guard ---------- */

typedef struct safe_host {
    const char *host; /* the host or a parent domain of it */
    const char *path; /* required path prefix, NULL = any */
    const char *what;
} safe_host;

/* The minimal safe-list of §6.5: sign-in providers a site hands the user to,
 * and public CDNs a page may link to. */
static const safe_host safe_list[] = {
    {"accounts.google.com", NULL, "OAuth sign-in"},
    {"login.microsoftonline.com", NULL, "OAuth sign-in"},
    {"login.live.com", NULL, "OAuth sign-in"},
    {"appleid.apple.com", NULL, "OAuth sign-in"},
    {"github.com", "/login/oauth", "OAuth sign-in"},
    {"auth0.com", NULL, "OAuth sign-in"},
    {"okta.com", NULL, "OAuth sign-in"},
    {"cdn.jsdelivr.net", NULL, "public CDN"},
    {"cdnjs.cloudflare.com", NULL, "public CDN"},
    {"unpkg.com", NULL, "public CDN"},
    {"fonts.googleapis.com", NULL, "public CDN"},
    {"fonts.gstatic.com", NULL, "public CDN"},
    {"ajax.googleapis.com", NULL, "public CDN"},
};

static const char *safe_listed(const agent_url *u)
{
    size_t hn = strlen(u->host);
    for (size_t i = 0; i < sizeof safe_list / sizeof safe_list[0]; i++) {
        const safe_host *s = &safe_list[i];
        if (!ends_with_label(u->host, hn, s->host))
            continue;
        if (s->path && strncmp(u->path, s->path, strlen(s->path)) != 0)
            continue;
        return s->what;
    }
    return NULL;
}

/* Looks u up in allow_hosts: 2 when an entry names its host, 1 when only
 * "*" covers it, 0 when nothing does. */
static int allowed_by(const char *allow_hosts, const agent_url *u)
{
    int any = 0;
    const char *s = allow_hosts ? allow_hosts : "";
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t k = comma ? (size_t)(comma - s) : strlen(s);
        const char *e = s;
        size_t en = k;
        s += k + (comma ? 1 : 0);
        trim(&e, &en);
        if (en == 0 || en >= 256)
            continue;
        if (en == 1 && e[0] == '*') {
            any = 1;
            continue;
        }
        char ent[256];
        snprintf(ent, sizeof ent, "%.*s", (int)en, e);
        /* Accept "https://host:port/path" and "*.host" as written by hand. */
        char *h = ent;
        char *sep = strstr(h, "://");
        if (sep)
            h = sep + 3;
        h[strcspn(h, "/?#")] = '\0';
        if (strncmp(h, "*.", 2) == 0)
            h += 2;
        for (char *c = h; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        int port = 0;
        char *colon = h[0] == '[' ? strstr(h, "]:") : strchr(h, ':');
        if (colon) {
            if (h[0] == '[')
                colon++;
            *colon = '\0';
            port = 0;
            for (const char *d = colon + 1; *d && port <= 65535; d++)
                port = isdigit((unsigned char)*d) ? port * 10 + (*d - '0') : 70000;
            if (port > 65535)
                continue;
        }
        while (*h && h[strlen(h) - 1] == '.')
            h[strlen(h) - 1] = '\0';
        if (!h[0])
            continue;
        if (ends_with_label(u->host, strlen(u->host), h) && (port == 0 || port == u->port))
            return 2;
    }
    return any;
}

const char *agent_guard_rule_name(agent_guard_rule r)
{
    static const char *const names[] = {"ok", "bad_url", "scheme", "search_engine", "off_site"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

static agent_guard_rule refuse(agent_guard_verdict *v, agent_guard_rule r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static agent_guard_rule refuse(agent_guard_verdict *v, agent_guard_rule r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    v->rule = r;
    return r;
}

static agent_guard_rule allow(agent_guard_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static agent_guard_rule allow(agent_guard_verdict *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
    v->rule = AGENT_GUARD_OK;
    return AGENT_GUARD_OK;
}

agent_guard_rule agent_guard_check(const char *pin_url, const char *allow_hosts,
                                   const char *current_url, const char *url,
                                   agent_guard_verdict *v)
{
    memset(v, 0, sizeof *v);
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_url_resolve(current_url, url ? url : "", v->url, sizeof v->url, err) != BASE_OK) {
        v->url[0] = '\0';
        return refuse(v, AGENT_GUARD_BAD_URL, "navigation refused (rule bad_url): %s", err);
    }
    agent_url u;
    if (agent_url_parse(v->url, &u, err) != BASE_OK)
        return refuse(v, AGENT_GUARD_BAD_URL, "navigation refused (rule bad_url): %s", err);
    agent_url pin;
    int pinned = pin_url && agent_url_parse(pin_url, &pin, NULL) == BASE_OK;
    int pin_file = pinned && strcmp(pin.scheme, "file") == 0;
    if (pinned && !pin.host[0])
        pinned = 0; /* about:blank, data:, file: pin no site */
    int web = strcmp(u.scheme, "http") == 0 || strcmp(u.scheme, "https") == 0;
    if (!web) {
        if (strcmp(u.scheme, "file") == 0 && pin_file)
            return allow(v, "file: page, as the start page");
        if (strcmp(v->url, "about:blank") == 0)
            return allow(v, "the blank page");
        if (strcmp(u.scheme, "file") == 0)
            return refuse(v, AGENT_GUARD_SCHEME,
                          "navigation refused (rule scheme): file: URLs are opened only when the "
                          "task started on a file: page");
        const char *hint = isdigit((unsigned char)v->url[strlen(u.scheme) + 1]) ||
                                   strchr(u.scheme, '.')
                               ? " (a host without http://? write the full URL)"
                               : "";
        return refuse(v, AGENT_GUARD_SCHEME,
                      "navigation refused (rule scheme): '%s:' URLs are not opened, only http "
                      "and https%s",
                      u.scheme, hint);
    }
    char site[256], pin_site[256] = "";
    agent_url_site(&u, site, sizeof site);
    if (pinned)
        agent_url_site(&pin, pin_site, sizeof pin_site);
    int same = pinned && strcmp(site, pin_site) == 0;
    int listed = allowed_by(allow_hosts, &u);
    const char *eng = agent_search_engine(&u);
    if (eng) {
        if (same)
            return allow(v, "same site %.80s (the task's own search engine)", site);
        if (listed == 2)
            return allow(v, "allow_hosts names %.80s", u.host);
        return refuse(v, AGENT_GUARD_SEARCH,
                      "navigation refused (rule search_engine): %.100s is a %s page; fovea does "
                      "not pivot to a general search engine: use %.60s's own search, or name "
                      "the host in allow_hosts",
                      u.host, eng, pinned ? pin_site : "the site");
    }
    if (!pinned && !pin_file)
        return allow(v, "no start site to pin to");
    if (same)
        return allow(v, "same site %.80s", site);
    const char *safe = safe_listed(&u);
    if (safe)
        return allow(v, "safe-list (%s)", safe);
    if (listed == 2)
        return allow(v, "allow_hosts names %.80s", u.host);
    if (listed == 1)
        return allow(v, "allow_hosts is *");
    /* The host as the allow_hosts entry that would allow it: with its port
     * when the site is host:port. */
    const char *entry = (agent_host_is_ip(u.host) || !strchr(u.host, '.')) ? site : u.host;
    return refuse(v, AGENT_GUARD_OFF_SITE,
                  "navigation refused (rule off_site): %.100s is not on the task's site %.80s "
                  "nor on the safe-list; allow it with allow_hosts (fovea run --allow-host "
                  "%.100s)",
                  entry, pin_file ? "(a file: page)" : pin_site, entry);
}
