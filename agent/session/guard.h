/* agent/session/guard.h: the navigation guards of seed 002 §6.5, as pure functions.
 *
 * A model that can type any URL can leave the task's site, turn a hard task
 * into a search-engine scrape, or run script through a javascript: URL. The
 * navigate and open_tab tools (agent/session/tools_nav.c) ask agent_guard_check
 * first; it resolves the URL against the current page and says whether the
 * hop is allowed, and if not, which rule refused it:
 *
 *   scheme         only http(s) pages, and file: when the session started on
 *                  a file: page (javascript:, data:, blob:, chrome: ... never);
 *   search_engine  the home or result page of a general web search engine
 *                  (Google, Bing, DuckDuckGo, Yahoo, Yandex, Baidu, ...),
 *                  unless the session started on that engine or allow_hosts
 *                  names its host ("*" does not lift this rule);
 *   off_site       a host whose site differs from the pin (the session's
 *                  start site), not on the built-in safe-list (OAuth sign-in
 *                  and public CDN hosts) and not named in allow_hosts.
 *
 * A site is the registrable domain of a host name ("shop.example.co.uk" and
 * "www.example.co.uk" are both "example.co.uk"), whatever the port; for an
 * IP address or a one-label host ("localhost", an intranet name) it is the
 * host and the port, because there one machine serves unrelated apps on
 * different ports. The registrable domain comes from a compact rule set (a
 * two-letter country code under a generic second level such as co/com/org/
 * gov/ac takes three labels, as do a few well-known hosting suffixes such as
 * github.io), not the full Public Suffix List.
 *
 * Everything here is pure: no I/O, no allocation, no global state. Any
 * thread.
 */
#ifndef FOVEA_AGENT_SESSION_GUARD_H
#define FOVEA_AGENT_SESSION_GUARD_H

#include <stddef.h>

#include "base/err.h"

#define AGENT_URL_MAX 2048

/* An absolute URL split into the parts the guards look at. */
typedef struct agent_url {
    char scheme[16];           /* lower case, without ':' ("https") */
    char host[256];            /* lower case, no trailing dot; IPv6 in brackets; "" when none */
    int port;                  /* the explicit port, else 80/443 for http/https, else 0 */
    int has_authority;         /* "//" followed the scheme */
    char path[AGENT_URL_MAX];  /* "/a/b" ("" when the URL has none) */
    char query[AGENT_URL_MAX]; /* after '?', without it */
} agent_url;

/* Splits an absolute URL (scheme ':' ...). User info before '@' is skipped
 * ("https://bank.com@evil.example/" has host evil.example), the host is
 * lower-cased, the fragment dropped. Borrows url; *out untouched on failure.
 * Any thread. Errors: BASE_EINVAL with err saying why (no scheme, bad port,
 * empty host for http(s), control characters), BASE_ETOOBIG (longer than
 * AGENT_URL_MAX - 1 bytes). */
base_err agent_url_parse(const char *url, agent_url *out, char *err);

/* Resolves reference ref against the absolute URL base the way a browser
 * resolves a link (RFC 3986 §5.2: "../x", "/x", "?q", "#f", "//host/x", or an
 * absolute URL as is), with leading and trailing blanks trimmed. Writes at
 * most n bytes (NUL-terminated) to out. Borrows all. Any thread. Errors:
 * BASE_EINVAL (empty ref, control characters, a relative ref when base is
 * missing or not hierarchical, e.g. about:blank), BASE_ETOOBIG (the result
 * does not fit); out untouched on failure. */
base_err agent_url_resolve(const char *base, const char *ref, char *out, size_t n, char *err);

/* The form two URLs are compared in to tell a revisit: scheme and host lower
 * case, default port and fragment dropped, empty path "/". Writes at most n
 * bytes to out (cut when longer). Any thread. Errors: BASE_EINVAL when url
 * does not parse (out then holds url as given). */
base_err agent_url_normalize(const char *url, char *out, size_t n);

/* 1 when host is an IPv4 dotted quad or a bracketed IPv6 literal, else 0.
 * Pure; any thread. */
int agent_host_is_ip(const char *host);

/* The registrable domain of a host name ("a.b.example.com" -> "example.com",
 * "x.example.co.uk" -> "example.co.uk", "me.github.io" stays); an IP literal
 * or a one-label host is returned as is. Writes at most n bytes to out. Any
 * thread. Errors: none. */
void agent_registrable_domain(const char *host, char *out, size_t n);

/* The site key of u (see the file comment): the registrable domain, or
 * "host:port" for an IP or one-label host; "" for a URL without a host
 * (file:, about:). Writes at most n bytes. Any thread. */
void agent_url_site(const agent_url *u, char *out, size_t n);

/* The name of the general web search engine u points at (its home page or a
 * results page: "Google", "Bing", ...), or NULL. Maps, mail and the engines'
 * other products are not search pivots. A static string. Any thread. */
const char *agent_search_engine(const agent_url *u);

/* Which rule a verdict is about. */
typedef enum agent_guard_rule {
    AGENT_GUARD_OK = 0,
    AGENT_GUARD_BAD_URL,   /* not a URL that can be resolved or opened */
    AGENT_GUARD_SCHEME,    /* a scheme fovea does not navigate to */
    AGENT_GUARD_SEARCH,    /* a general search engine */
    AGENT_GUARD_OFF_SITE,  /* another site, neither safe-listed nor allowed */
} agent_guard_rule;

/* The name of r: "ok", "bad_url", "scheme", "search_engine", "off_site"; "?"
 * out of range. A static string. Pure; any thread. */
const char *agent_guard_rule_name(agent_guard_rule r);

/* What agent_guard_check decided. */
typedef struct agent_guard_verdict {
    agent_guard_rule rule;
    char url[AGENT_URL_MAX]; /* the resolved absolute URL ("" when it did not resolve) */
    char why[96];            /* for an allowed hop: what allowed it ("same site example.com",
                                "safe-list (OAuth sign-in)", "allow_hosts", ...) */
    char message[320];       /* for a refusal: one line naming the rule and what to do */
} agent_guard_verdict;

/* Decides whether the session may go to url. pin_url is the page whose site
 * the session is pinned to (its start page; NULL or a URL without a host such
 * as about:blank = no pin: any http(s) site but a search engine). allow_hosts
 * (NULL = none) is a comma-separated list of hosts also allowed:
 * "example.org" (and its subdomains), "*.example.org", "127.0.0.1:8081" (that
 * port only), or "*" (anywhere but a search engine). current_url resolves a
 * relative url (NULL: url must be absolute). Returns v->rule and fills *v.
 * Borrows all. Any thread. Errors: none beyond the verdict. */
agent_guard_rule agent_guard_check(const char *pin_url, const char *allow_hosts,
                                   const char *current_url, const char *url,
                                   agent_guard_verdict *v);

#endif
