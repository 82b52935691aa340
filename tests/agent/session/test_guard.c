/* tests/agent/session/test_guard.c: the navigation guards (agent/session/guard.h), pure.
 *
 * URL resolution follows RFC 3986's own examples; parsing reads hosts the
 * way the browser does (user info, ports, IPv6, a trailing dot); sites
 * group subdomains but keep ports apart on IPs and localhost; search
 * engines are told from their other products; and each guard rule refuses
 * what it must and names itself, while the start site, the safe-list and
 * allow_hosts let the right hops through.
 */
#include "check.h"

#include "agent/session/guard.h"

static void resolves_like_rfc3986(void)
{
    static const char *const cases[][2] = {
        {"g", "http://a/b/c/g"},         {"./g", "http://a/b/c/g"},
        {"g/", "http://a/b/c/g/"},       {"/g", "http://a/g"},
        {"//g", "http://g"},             {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},     {"#s", "http://a/b/c/d;p?q#s"},
        {"g#s", "http://a/b/c/g#s"},     {";x", "http://a/b/c/;x"},
        {".", "http://a/b/c/"},          {"./", "http://a/b/c/"},
        {"..", "http://a/b/"},           {"../", "http://a/b/"},
        {"../g", "http://a/b/g"},        {"../..", "http://a/"},
        {"../../g", "http://a/g"},       {"../../../g", "http://a/g"},
        {"/./g", "http://a/g"},          {"/../g", "http://a/g"},
        {"g.", "http://a/b/c/g."},       {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},      {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},    {"g;x=1/../y", "http://a/b/c/y"},
        {"  g  ", "http://a/b/c/g"},     {"https://x.org/a/../b", "https://x.org/b"},
        {"mailto:ann@x.org", "mailto:ann@x.org"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[AGENT_URL_MAX], err[BASE_ERRBUF_SIZE] = "";
        CHECK_MSG(agent_url_resolve("http://a/b/c/d;p?q", cases[i][0], out, sizeof out, err) ==
                      BASE_OK,
                  "%s: %s", cases[i][0], err);
        CHECK_MSG(strcmp(out, cases[i][1]) == 0, "'%s' -> '%s', want '%s'", cases[i][0], out,
                  cases[i][1]);
    }
    /* A base without a path: "g" goes under "/". */
    char out[AGENT_URL_MAX], err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_url_resolve("https://x.org", "g", out, sizeof out, err));
    CHECK_STR(out, "https://x.org/g");
}

static void resolve_refuses_bad_input(void)
{
    char out[64] = "keep", err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_url_resolve("http://a/", "   ", out, sizeof out, err), BASE_EINVAL);
    CHECK(strstr(err, "empty") != NULL);
    CHECK_STR(out, "keep");
    err[0] = '\0';
    CHECK_EQ(agent_url_resolve("about:blank", "/x", out, sizeof out, err), BASE_EINVAL);
    CHECK(strstr(err, "relative") != NULL);
    err[0] = '\0';
    CHECK_EQ(agent_url_resolve(NULL, "x", out, sizeof out, err), BASE_EINVAL);
    err[0] = '\0';
    CHECK_EQ(agent_url_resolve("http://a/", "x\ny", out, sizeof out, err), BASE_EINVAL);
    CHECK(strstr(err, "control") != NULL);
    /* Too long for the caller's buffer: refused, not cut. */
    err[0] = '\0';
    CHECK_EQ(agent_url_resolve("http://a/",
                               "/a-rather-long-path-that-does-not-fit-in-64-bytes-at-all", out,
                               sizeof out, err),
             BASE_ETOOBIG);
    CHECK_STR(out, "keep");
    char big[AGENT_URL_MAX + 10];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char out2[AGENT_URL_MAX * 2];
    CHECK_EQ(agent_url_resolve("http://a/", big, out2, sizeof out2, NULL), BASE_ETOOBIG);
}

static void parses_hosts_like_a_browser(void)
{
    agent_url u;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_url_parse("HTTPS://Shop.Example.COM.:8443/a/b?x=1#frag", &u, err));
    CHECK_STR(u.scheme, "https");
    CHECK_STR(u.host, "shop.example.com");
    CHECK_EQ(u.port, 8443);
    CHECK_STR(u.path, "/a/b");
    CHECK_STR(u.query, "x=1");
    /* User info is not the host: the classic phishing form. */
    CHECK_OK(agent_url_parse("https://bank.example.com@evil.example.org/login", &u, err));
    CHECK_STR(u.host, "evil.example.org");
    CHECK_EQ(u.port, 443);
    CHECK_OK(agent_url_parse("http://user:pw@x.org:81@127.0.0.1/", &u, err));
    CHECK_STR(u.host, "127.0.0.1");
    CHECK_EQ(u.port, 80);
    CHECK_OK(agent_url_parse("http://[::1]:9000/x", &u, err));
    CHECK_STR(u.host, "[::1]");
    CHECK_EQ(u.port, 9000);
    CHECK_OK(agent_url_parse("file:///tmp/a.html", &u, err));
    CHECK_STR(u.host, "");
    CHECK_STR(u.path, "/tmp/a.html");
    CHECK_EQ(u.port, 0);
    static const char *const bad[] = {
        "http://x.org:99999/", "http://x.org:12a/", "http:///nohost", "http://a\\@b.org/",
        "no-scheme/path",      "http://[::1/",      "http://a b.org/",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK_MSG(agent_url_parse(bad[i], &u, err) == BASE_EINVAL, "'%s' parsed", bad[i]);
        CHECK_MSG(err[0] != '\0', "'%s': no message", bad[i]);
    }
}

static void sites_and_registrable_domains(void)
{
    static const char *const rd[][2] = {
        {"a.b.example.com", "example.com"}, {"example.com", "example.com"},
        {"x.example.co.uk", "example.co.uk"}, {"www.abc.net.au", "abc.net.au"},
        {"shop.example.de", "example.de"},  {"me.github.io", "me.github.io"},
        {"a.me.github.io", "me.github.io"}, {"github.io", "github.io"},
        {"co.uk", "co.uk"},                  {"127.0.0.1", "127.0.0.1"},
        {"localhost", "localhost"},          {"example.com.", "example.com"},
        {"bucket.s3.amazonaws.com", "bucket.s3.amazonaws.com"},
    };
    for (size_t i = 0; i < sizeof rd / sizeof rd[0]; i++) {
        char out[256];
        agent_registrable_domain(rd[i][0], out, sizeof out);
        CHECK_MSG(strcmp(out, rd[i][1]) == 0, "%s -> %s, want %s", rd[i][0], out, rd[i][1]);
    }
    CHECK(agent_host_is_ip("10.0.0.255"));
    CHECK(agent_host_is_ip("[fe80::1]"));
    CHECK(!agent_host_is_ip("10.0.0.256"));
    CHECK(!agent_host_is_ip("10.0.0"));
    CHECK(!agent_host_is_ip("1.2.3.4.5"));
    CHECK(!agent_host_is_ip("1.2.3.com"));
    agent_url a, b;
    char sa[256], sb[256];
    /* A domain's site ignores the port; an IP's does not. */
    CHECK_OK(agent_url_parse("http://shop.example.com:8080/", &a, NULL));
    CHECK_OK(agent_url_parse("https://www.example.com/", &b, NULL));
    agent_url_site(&a, sa, sizeof sa);
    agent_url_site(&b, sb, sizeof sb);
    CHECK_STR(sa, "example.com");
    CHECK_STR(sb, "example.com");
    CHECK_OK(agent_url_parse("http://127.0.0.1:8080/", &a, NULL));
    CHECK_OK(agent_url_parse("http://127.0.0.1:9090/", &b, NULL));
    agent_url_site(&a, sa, sizeof sa);
    agent_url_site(&b, sb, sizeof sb);
    CHECK_STR(sa, "127.0.0.1:8080");
    CHECK_STR(sb, "127.0.0.1:9090");
    CHECK_OK(agent_url_parse("http://localhost/", &a, NULL));
    agent_url_site(&a, sa, sizeof sa);
    CHECK_STR(sa, "localhost:80");
}

static void tells_search_engines(void)
{
    static const char *const yes[][2] = {
        {"https://www.google.com/search?q=rabbits", "Google"},
        {"https://google.com/", "Google"},
        {"https://www.google.co.uk/webhp", "Google"},
        {"https://www.google.de/search?q=x", "Google"},
        {"https://www.bing.com/search?q=x", "Bing"},
        {"https://html.duckduckgo.com/html/?q=x", "DuckDuckGo"},
        {"https://duckduckgo.com/?q=x", "DuckDuckGo"},
        {"https://uk.search.yahoo.com/search?p=x", "Yahoo Search"},
        {"https://search.yahoo.com/", "Yahoo Search"},
        {"https://www.baidu.com/s?wd=x", "Baidu"},
        {"https://yandex.ru/search/?text=x", "Yandex"},
        {"https://search.brave.com/search?q=x", "Brave Search"},
        {"https://www.ecosia.org/search?q=x", "Ecosia"},
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        agent_url u;
        CHECK_OK(agent_url_parse(yes[i][0], &u, NULL));
        const char *e = agent_search_engine(&u);
        CHECK_MSG(e && strcmp(e, yes[i][1]) == 0, "%s -> %s", yes[i][0], e ? e : "(none)");
    }
    static const char *const no[] = {
        "https://maps.google.com/maps?q=x",   "https://mail.google.com/",
        "https://www.google.com/maps/place/x", "https://google.github.io/",
        "https://mail.yahoo.com/",            "https://www.bing.com/maps",
        "https://example.com/search?q=x",     "https://brave.com/",
        "https://googleblog.com/search",      "http://127.0.0.1/search",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        agent_url u;
        CHECK_OK(agent_url_parse(no[i], &u, NULL));
        const char *e = agent_search_engine(&u);
        CHECK_MSG(e == NULL, "%s -> %s", no[i], e);
    }
}

/* Checks one verdict: its rule and, for a refusal, that the message names
 * the rule. */
static int verdict(const char *pin, const char *allow, const char *cur, const char *url,
                   agent_guard_rule want, agent_guard_verdict *v)
{
    agent_guard_rule r = agent_guard_check(pin, allow, cur, url, v);
    if (r != want) {
        check__fail(__FILE__, __LINE__, "%s (pin %s, allow %s): %s, want %s: %s%s", url,
                    pin ? pin : "-", allow ? allow : "-", agent_guard_rule_name(r),
                    agent_guard_rule_name(want), v->message, v->why);
        return 0;
    }
    if (r != AGENT_GUARD_OK && !strstr(v->message, agent_guard_rule_name(r))) {
        check__fail(__FILE__, __LINE__, "message does not name the rule: %s", v->message);
        return 0;
    }
    return 1;
}

#define VERDICT(...)                                                                       \
    do {                                                                                   \
        if (!verdict(__VA_ARGS__))                                                         \
            return;                                                                        \
    } while (0)

static void pins_to_the_start_site(void)
{
    agent_guard_verdict v;
    const char *pin = "https://shop.example.com/start";
    const char *cur = "https://shop.example.com/a/b?x=1";
    VERDICT(pin, NULL, cur, "https://www.example.com/cart", AGENT_GUARD_OK, &v);
    CHECK(strstr(v.why, "example.com") != NULL);
    VERDICT(pin, NULL, cur, "../c?p=2", AGENT_GUARD_OK, &v);
    CHECK_STR(v.url, "https://shop.example.com/c?p=2");
    VERDICT(pin, NULL, cur, "http://example.com:8080/", AGENT_GUARD_OK, &v);
    VERDICT(pin, NULL, cur, "https://evil.example.org/x", AGENT_GUARD_OFF_SITE, &v);
    CHECK(strstr(v.message, "evil.example.org") != NULL);
    CHECK(strstr(v.message, "--allow-host") != NULL);
    CHECK_STR(v.url, "https://evil.example.org/x");
    VERDICT(pin, NULL, cur, "https://shop.example.com@evil.example.org/", AGENT_GUARD_OFF_SITE,
            &v);
    VERDICT(pin, NULL, cur, "https://example.com.evil.org/", AGENT_GUARD_OFF_SITE, &v);
    VERDICT(pin, NULL, cur, "//evil.example.org/", AGENT_GUARD_OFF_SITE, &v);
    /* The safe-list: sign-in and CDNs, a path-scoped entry only on its path. */
    VERDICT(pin, NULL, cur, "https://accounts.google.com/o/oauth2/auth", AGENT_GUARD_OK, &v);
    CHECK(strstr(v.why, "safe-list") != NULL);
    VERDICT(pin, NULL, cur, "https://github.com/login/oauth/authorize?x", AGENT_GUARD_OK, &v);
    VERDICT(pin, NULL, cur, "https://github.com/someone/repo", AGENT_GUARD_OFF_SITE, &v);
    VERDICT(pin, NULL, cur, "https://tenant.eu.auth0.com/authorize", AGENT_GUARD_OK, &v);
    /* allow_hosts: a host and its subdomains, "*." written out, a URL. */
    VERDICT(pin, "docs.example.org", cur, "https://docs.example.org/x", AGENT_GUARD_OK, &v);
    VERDICT(pin, "docs.example.org", cur, "https://api.docs.example.org/x", AGENT_GUARD_OK, &v);
    VERDICT(pin, "docs.example.org", cur, "https://example.org/", AGENT_GUARD_OFF_SITE, &v);
    VERDICT(pin, " a.org , *.example.org ", cur, "https://x.example.org/", AGENT_GUARD_OK, &v);
    VERDICT(pin, "https://example.org/path", cur, "https://example.org/", AGENT_GUARD_OK, &v);
    VERDICT(pin, "*", cur, "https://anything.test/", AGENT_GUARD_OK, &v);
}

static void ports_and_loopback(void)
{
    agent_guard_verdict v;
    const char *pin = "http://127.0.0.1:8000/index.html";
    VERDICT(pin, NULL, pin, "/other.html", AGENT_GUARD_OK, &v);
    CHECK_STR(v.url, "http://127.0.0.1:8000/other.html");
    VERDICT(pin, NULL, pin, "http://127.0.0.1:9000/", AGENT_GUARD_OFF_SITE, &v);
    CHECK(strstr(v.message, "127.0.0.1:9000") != NULL);
    VERDICT(pin, NULL, pin, "http://localhost:8000/", AGENT_GUARD_OFF_SITE, &v);
    VERDICT(pin, "127.0.0.1:9000", pin, "http://127.0.0.1:9000/", AGENT_GUARD_OK, &v);
    VERDICT(pin, "127.0.0.1:9001", pin, "http://127.0.0.1:9000/", AGENT_GUARD_OFF_SITE, &v);
    VERDICT(pin, "127.0.0.1", pin, "http://127.0.0.1:9000/", AGENT_GUARD_OK, &v);
    VERDICT(pin, "localhost", pin, "http://localhost:8000/", AGENT_GUARD_OK, &v);
}

static void refuses_search_pivots(void)
{
    agent_guard_verdict v;
    const char *pin = "https://www.rabbits.example/";
    VERDICT(pin, NULL, pin, "https://www.google.com/search?q=rabbits+chicago",
            AGENT_GUARD_SEARCH, &v);
    CHECK(strstr(v.message, "Google") != NULL);
    CHECK(strstr(v.message, "rabbits.example") != NULL);
    VERDICT(pin, NULL, pin, "https://duckduckgo.com/?q=x", AGENT_GUARD_SEARCH, &v);
    /* "*" does not lift the rule; naming the engine's host does. */
    VERDICT(pin, "*", pin, "https://www.bing.com/search?q=x", AGENT_GUARD_SEARCH, &v);
    VERDICT(pin, "www.bing.com", pin, "https://www.bing.com/search?q=x", AGENT_GUARD_OK, &v);
    /* A task on the engine itself searches it freely. */
    VERDICT("https://www.google.com/", NULL, NULL, "https://www.google.com/search?q=x",
            AGENT_GUARD_OK, &v);
    /* With no start site nothing is pinned, but search is still refused. */
    VERDICT("about:blank", NULL, NULL, "https://anywhere.example/", AGENT_GUARD_OK, &v);
    VERDICT(NULL, NULL, NULL, "https://www.google.com/search?q=x", AGENT_GUARD_SEARCH, &v);
    /* Google's other products are not a search pivot, only off-site. */
    VERDICT(pin, "*", pin, "https://maps.google.com/maps?q=x", AGENT_GUARD_OK, &v);
}

static void refuses_schemes(void)
{
    agent_guard_verdict v;
    const char *pin = "https://example.com/";
    VERDICT(pin, "*", pin, "javascript:alert(document.cookie)", AGENT_GUARD_SCHEME, &v);
    CHECK(strstr(v.message, "javascript:") != NULL);
    VERDICT(pin, "*", pin, " JavaScript:void(0)", AGENT_GUARD_SCHEME, &v);
    VERDICT(pin, "*", pin, "data:text/html,<script>x</script>", AGENT_GUARD_SCHEME, &v);
    VERDICT(pin, "*", pin, "file:///etc/passwd", AGENT_GUARD_SCHEME, &v);
    VERDICT(pin, "*", pin, "chrome://settings", AGENT_GUARD_SCHEME, &v);
    VERDICT(pin, "*", pin, "view-source:https://example.com/", AGENT_GUARD_SCHEME, &v);
    VERDICT(pin, NULL, pin, "localhost:8080/x", AGENT_GUARD_SCHEME, &v);
    CHECK(strstr(v.message, "http://") != NULL);
    VERDICT(pin, NULL, pin, "about:blank", AGENT_GUARD_OK, &v);
    /* A file: task may open its neighbours, not the web without allow_hosts. */
    const char *fpin = "file:///srv/site/index.html";
    VERDICT(fpin, NULL, fpin, "page2.html", AGENT_GUARD_OK, &v);
    CHECK_STR(v.url, "file:///srv/site/page2.html");
    VERDICT(fpin, NULL, fpin, "https://example.com/", AGENT_GUARD_OFF_SITE, &v);
    VERDICT(fpin, "example.com", fpin, "https://example.com/", AGENT_GUARD_OK, &v);
    /* Not URLs at all. */
    VERDICT(pin, NULL, pin, "", AGENT_GUARD_BAD_URL, &v);
    VERDICT(pin, NULL, pin, "http://exa mple.com/", AGENT_GUARD_BAD_URL, &v);
    VERDICT(pin, NULL, "about:blank", "relative/path", AGENT_GUARD_BAD_URL, &v);
    VERDICT(pin, NULL, pin, "https://x.org:0/", AGENT_GUARD_BAD_URL, &v);
}

static void normalizes_for_revisits(void)
{
    char out[AGENT_URL_MAX];
    CHECK_OK(agent_url_normalize("HTTP://Example.COM:80/a?b=1#frag", out, sizeof out));
    CHECK_STR(out, "http://example.com/a?b=1");
    CHECK_OK(agent_url_normalize("https://example.com", out, sizeof out));
    CHECK_STR(out, "https://example.com/");
    CHECK_OK(agent_url_normalize("http://127.0.0.1:8000/x#y", out, sizeof out));
    CHECK_STR(out, "http://127.0.0.1:8000/x");
    CHECK_EQ(agent_url_normalize("not a url", out, sizeof out), BASE_EINVAL);
    CHECK_STR(out, "not a url");
}

static const check_case cases[] = {
    {"resolves_like_rfc3986", resolves_like_rfc3986},
    {"resolve_refuses_bad_input", resolve_refuses_bad_input},
    {"parses_hosts_like_a_browser", parses_hosts_like_a_browser},
    {"sites_and_registrable_domains", sites_and_registrable_domains},
    {"tells_search_engines", tells_search_engines},
    {"pins_to_the_start_site", pins_to_the_start_site},
    {"ports_and_loopback", ports_and_loopback},
    {"refuses_search_pivots", refuses_search_pivots},
    {"refuses_schemes", refuses_schemes},
    {"normalizes_for_revisits", normalizes_for_revisits},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
