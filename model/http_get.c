/* model/http_get.c: one plain HTTP GET with libcurl (http_get.h). */
#include "model/http_get.h"

#include <curl/curl.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/buf.h"

typedef struct sink {
    base_buf b;
    size_t max;
    int over;
} sink;

static size_t on_body(char *p, size_t sz, size_t n, void *u)
{
    sink *s = u;
    size_t k = sz * n;
    if (s->b.len + k > s->max) {
        s->over = 1;
        return 0; /* abort: the caller asked for a bound */
    }
    return base_buf_append(&s->b, p, k) == BASE_OK ? k : 0;
}

base_err model_http_get(const char *url, long timeout_ms, size_t max_bytes, char **body,
                       size_t *len, char *err)
{
    if (body)
        *body = NULL;
    if (len)
        *len = 0;
    if (!url || !url[0] || !body)
        return base_errf(err, BASE_EINVAL, "http get: no url");
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0)
        return base_errf(err, BASE_EINVAL, "http get: only http:// and https:// URLs, not %.200s",
                         url);
    CURL *h = curl_easy_init();
    if (!h)
        return base_errf(err, BASE_ENOMEM, "http get: no curl handle");
    sink s;
    memset(&s, 0, sizeof s);
    s.max = max_bytes ? max_bytes : (4u << 20);
    base_buf_init(&s.b, s.max + 1);
    char cerr[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 15000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    CURLcode c = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    base_err e = BASE_OK;
    if (s.over)
        e = base_errf(err, BASE_ETOOBIG, "http get: the body passed %zu bytes", s.max);
    else if (c != CURLE_OK)
        e = base_errf(err, BASE_EIO, "http get: %s", cerr[0] ? cerr : curl_easy_strerror(c));
    else if (status >= 400)
        e = base_errf(err, BASE_EIO, "http get: HTTP %ld", status);
    else if (base_buf_append(&s.b, "", 1) != BASE_OK)
        e = base_errf(err, BASE_ENOMEM, "http get: out of memory");
    if (e) {
        base_buf_fini(&s.b);
        return e;
    }
    if (len)
        *len = s.b.len - 1;
    *body = (char *)s.b.data;
    return BASE_OK;
}
