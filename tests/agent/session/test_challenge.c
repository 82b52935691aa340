/* tests/agent/session/test_challenge.c: the challenge detector
 * (assets/js/nav_challenge.js, embedded as fovea_js_nav_challenge) on
 * fixture pages written in the styles real ones use (tests/fixtures/pages/nav).
 *
 * Each page is recognised for what it is, with the provider and whether it
 * blocks the page; an invisible captcha and a cookie bar are reported but
 * do not block; an ordinary page that merely talks about captchas and
 * security checks is clean.
 */
#include "check.h"

#include "agent/session/js.h"
#include "harness.h"

/* Runs the detector on fixture nav/NAME; *v is the result (caller frees). */
static int detect(cdp_page *p, const char *name, cJSON **v)
{
    char url[256], err[256] = "", path[128];
    snprintf(path, sizeof path, "/nav/%s", name);
    harness_url(0, path, url, sizeof url);
    if (cdp_page_navigate(p, url, 10000, err) != BASE_OK) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 0;
    }
    if (cdp_page_evaluate(p, (const char *)fovea_js_nav_challenge, v, 10000, err) != BASE_OK) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 0;
    }
    return 1;
}

/* 1 when v holds a finding of kind (and vendor, when given) that blocks
 * (blocking 1) or not (0). */
static int has(const cJSON *v, const char *kind, const char *vendor, int blocking)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(v, "found"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(f, "kind");
        const cJSON *ve = cJSON_GetObjectItemCaseSensitive(f, "vendor");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(f, "blocking");
        if (cJSON_IsString(k) && strcmp(k->valuestring, kind) == 0 &&
            (!vendor || (cJSON_IsString(ve) && strcmp(ve->valuestring, vendor) == 0)) &&
            cJSON_IsTrue(b) == (blocking != 0))
            return 1;
    }
    return 0;
}

static int blocking(const cJSON *v)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "blocking"));
}

#define EXPECT(page, cond)                                                                 \
    do {                                                                                   \
        cJSON *v_ = NULL;                                                                  \
        CHECK(detect(p, page, &v_));                                                       \
        char *s_ = cJSON_PrintUnformatted(v_);                                             \
        int ok_ = (cond);                                                                  \
        if (!ok_)                                                                          \
            check__fail(__FILE__, __LINE__, "%s: %s: %s", page, #cond, s_ ? s_ : "?");     \
        cJSON_free(s_);                                                                    \
        cJSON_Delete(v_);                                                                  \
        if (!ok_)                                                                          \
            return;                                                                        \
    } while (0)

static void recognises_each_kind(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    CHECK(p != NULL);
    EXPECT("challenge.html", has(v_, "interstitial", "Cloudflare", 1) &&
                                 has(v_, "captcha", "Cloudflare Turnstile", 1) && blocking(v_));
    EXPECT("checking.html", has(v_, "interstitial", NULL, 1) && !has(v_, "captcha", NULL, 1));
    EXPECT("login_captcha.html", has(v_, "captcha", "reCAPTCHA", 1) && blocking(v_) &&
                                     !has(v_, "interstitial", NULL, 1));
    EXPECT("invisible_captcha.html", has(v_, "captcha", "reCAPTCHA", 0) && !blocking(v_));
    EXPECT("geo.html", has(v_, "geo", NULL, 1) && blocking(v_));
    EXPECT("blocked.html", has(v_, "blocked", "Akamai", 1) && blocking(v_));
    EXPECT("cookie_wall.html", has(v_, "cookie_wall", "Sourcepoint", 1) && blocking(v_));
    EXPECT("cookie_banner.html", has(v_, "cookie_banner", "site", 0) && !blocking(v_));
    EXPECT("start.html", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v_, "found")) == 0);
    EXPECT("page2.html", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v_, "found")) == 0);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"recognises_each_kind", recognises_each_kind},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
