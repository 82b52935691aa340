/* tests/perception/test_fingerprint.c: page fingerprints on a real page
 * (tests/fixtures/pages/vision/fp.html): each kind of change moves the hash
 * it should, and nothing moves on an idle page, on repeated takes or on a
 * hover that changes no DOM. */
#include "check.h"
#include "harness.h"
#include "perception/fingerprint.h"
#include "vision_util.h"

static cdp_page *page;
static char cross_session[64];

/* Opens fp.html with its cross-site iframe, installs the observer and waits
 * until both iframes have loaded. NULL on failure (the case then fails). */
static cdp_page *open_fp(void)
{
    harness *h = harness_get();
    if (!h)
        return NULL;
    cdp_page *p = harness_open(800, 600, 1, NULL);
    if (!p)
        return NULL;
    char err[256] = "";
    if (perc_fingerprint_install(p, err)) {
        fprintf(stderr, "install: %s\n", err);
        cdp_page_close(p);
        return NULL;
    }
    char url[512];
    snprintf(url, sizeof url, "%s/vision/fp.html?b=%s", h->origin_a, h->origin_b);
    if (cdp_page_navigate(p, url, 15000, err) || vu_wait_oopif(p, "cross=1", cross_session)) {
        fprintf(stderr, "navigate/oopif: %s\n", err);
        cdp_page_close(p);
        return NULL;
    }
    /* The OOPIF target exists before its document has loaded. */
    for (int i = 0; i < 200; i++) {
        if (vu_eval_session(p, cross_session,
                            "if (!document.getElementById('counter')) throw 1") == 0)
            return p;
        base_sleep_ms(25);
    }
    cdp_page_close(p);
    return NULL;
}

static int take(perc_fingerprint *fp)
{
    char err[256] = "";
    if (perc_fingerprint_take(page, fp, err)) {
        fprintf(stderr, "take: %s\n", err);
        return -1;
    }
    return 0;
}

static void setup(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    if (!page)
        page = open_fp();
    CHECK_MSG(page != NULL, "could not open fp.html");
}

static void idle_and_repeated(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b, c;
    CHECK_OK(take(&a));
    CHECK(a.h_dom && a.h_text && a.h_frame);
    CHECK(strstr(a.url, "/vision/fp.html") != NULL);
    /* The observer was injected at document start: the parser's insertions
     * were counted, which a lazily installed observer could not have seen. */
    CHECK_MSG(a.mutation_count > 0, "mutation_count %u", a.mutation_count);
    CHECK_OK(take(&b));
    base_sleep_ms(300);
    CHECK_OK(take(&c));
    CHECK(perc_fingerprint_equal(&a, &b));
    CHECK(perc_fingerprint_equal(&a, &c));
    CHECK_EQ(a.mutation_count, c.mutation_count);
    CHECK_EQ(a.scroll_bucket_y, 0);
    CHECK(a.ms > 0);
}

static void hover_changes_nothing(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b;
    CHECK_OK(take(&a));
    /* A real pointer move onto #b1 (its :hover style changes the paint only). */
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "type", "mouseMoved");
    cJSON_AddNumberToObject(pa, "x", 20);
    cJSON_AddNumberToObject(pa, "y", 10);
    char err[256] = "";
    CHECK_OK(cdp_page_call(page, "Input.dispatchMouseEvent", pa, NULL, 5000, err));
    base_sleep_ms(100);
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate(page, "document.querySelector('#b1').matches(':hover')", &v, 5000,
                               err));
    CHECK_MSG(cJSON_IsTrue(v), "the pointer is not over #b1");
    cJSON_Delete(v);
    CHECK_OK(take(&b));
    CHECK(perc_fingerprint_equal(&a, &b));
    CHECK_EQ(a.mutation_count, b.mutation_count);
}

static void insertion(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b;
    CHECK_OK(take(&a));
    CHECK_OK(vu_eval(page, "{const li = document.createElement('li');"
                           "li.innerHTML = '<button>Item 2</button>';"
                           "document.getElementById('list').appendChild(li);}"));
    CHECK_OK(take(&b));
    CHECK(a.h_dom != b.h_dom);
    CHECK(!perc_fingerprint_equal(&a, &b));
    CHECK_MSG(b.mutation_count >= a.mutation_count + 1, "count %u -> %u", a.mutation_count,
              b.mutation_count);
    CHECK_EQ(a.h_frame, b.h_frame);
}

static void text_edit(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b;
    CHECK_OK(take(&a));
    CHECK_OK(vu_eval(page, "document.getElementById('para').firstChild.data = 'Edited text.'"));
    CHECK_OK(take(&b));
    CHECK(a.h_text != b.h_text);
    CHECK_EQ(a.h_dom, b.h_dom);
    CHECK_EQ(a.h_frame, b.h_frame);
    CHECK(!perc_fingerprint_equal(&a, &b));
}

static void scroll_buckets(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b, c;
    CHECK_OK(vu_eval(page, "window.scrollTo(0, 0)"));
    CHECK_OK(take(&a));
    /* 60 px stays in bucket 0; 250 px is bucket 2. */
    CHECK_OK(vu_eval(page, "window.scrollTo(0, 60)"));
    CHECK_OK(take(&b));
    CHECK(perc_fingerprint_equal(&a, &b));
    CHECK_OK(vu_eval(page, "window.scrollTo(0, 250)"));
    CHECK_OK(take(&c));
    CHECK_EQ(c.scroll_bucket_y, 2);
    CHECK(a.h_text != c.h_text);
    CHECK_EQ(a.h_dom, c.h_dom);
    CHECK_OK(vu_eval(page, "window.scrollTo(0, 0)"));
    CHECK_OK(take(&c));
    CHECK(perc_fingerprint_equal(&a, &c));
}

static void same_origin_iframe(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b;
    CHECK_OK(take(&a));
    CHECK_OK(vu_eval(page, "document.getElementById('same').contentDocument"
                           ".getElementById('counter').textContent = '7'"));
    CHECK_OK(take(&b));
    CHECK(a.h_frame != b.h_frame);
    CHECK_EQ(a.h_dom, b.h_dom);
    CHECK_EQ(a.h_text, b.h_text);
    /* The child document has its own observer (same session, new document). */
    CHECK(b.mutation_count > a.mutation_count);
}

static void cross_origin_iframe(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b, c;
    CHECK_OK(take(&a));
    CHECK_OK(take(&b));
    CHECK(perc_fingerprint_equal(&a, &b));
    CHECK_OK(vu_eval_session(page, cross_session,
                             "document.getElementById('counter').textContent = '42'"));
    CHECK_OK(take(&c));
    CHECK(a.h_frame != c.h_frame);
    CHECK_EQ(a.h_dom, c.h_dom);
    CHECK_EQ(a.h_text, c.h_text);
    CHECK(c.mutation_count > a.mutation_count);
}

static void url_change(void)
{
    setup();
    CHECK(page);
    perc_fingerprint a, b;
    CHECK_OK(take(&a));
    CHECK_OK(vu_eval(page, "history.pushState({}, '', location.pathname + location.search + "
                           "'#other')"));
    CHECK_OK(take(&b));
    CHECK(strcmp(a.url, b.url) != 0);
    CHECK(!perc_fingerprint_equal(&a, &b));
}

static void bad_input(void)
{
    char err[256] = "";
    perc_fingerprint fp;
    CHECK_EQ(perc_fingerprint_take(NULL, &fp, err), BASE_EINVAL);
    CHECK(err[0] != '\0');
    CHECK_EQ(perc_fingerprint_install(NULL, NULL), BASE_EINVAL);
    CHECK(!perc_fingerprint_equal(NULL, &fp));
}

static void teardown(void)
{
    cdp_page_close(page);
    page = NULL;
}

static const check_case cases[] = {
    {"idle_and_repeated", idle_and_repeated},
    {"hover_changes_nothing", hover_changes_nothing},
    {"insertion", insertion},
    {"text_edit", text_edit},
    {"scroll_buckets", scroll_buckets},
    {"same_origin_iframe", same_origin_iframe},
    {"cross_origin_iframe", cross_origin_iframe},
    {"url_change", url_change},
    {"bad_input", bad_input},
    {"teardown", teardown},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
