/* tests/cascade/test_snapserve.c: the `fovea snap` protocol as a library
 * (cascade/snapserve.h) on a real Chromium and the shop fixture page: a
 * request answered with the element the page measures, its JSON forms
 * (perc_snap_json's element, cascade_result_json's click), the error
 * answers (not JSON, a bad box, a non-object, a line over the cap, a
 * "target" without a resolver), blank lines, and the stream loop's counts.
 * The CLI over the same library is tested in tests/service. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "cascade/snapserve.h"
#include "check.h"
#include "harness.h"
#include "perception/kit.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static cJSON *line(cascade_snapserve *sv, const char *s, int *blank)
{
    return cascade_snapserve_answer_line(sv, s, strlen(s), blank, NULL);
}

static const char *err_of(const cJSON *a)
{
    const char *e = cJSON_GetStringValue(get(a, "error"));
    return e ? e : "";
}

static void answers(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1280, 800, 1, "/snap/shop.html?nocookie");
    CHECK(p != NULL);
    if (!p)
        return;
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_snapserve_opts o;
    cascade_snapserve_opts_init(&o);
    o.co.humanize = 0;
    cascade_snapserve *sv = NULL;
    CHECK_OK(cascade_snapserve_create(h->browser, p, &o, &sv, err));
    if (!sv) {
        cdp_page_close(p);
        return;
    }
    /* The account button, boxed a bit large: found, the element measured
     * in the page, the documented keys. */
    base_rect r = harness_rect(p, "header .icon");
    char req[256];
    snprintf(req, sizeof req, "{\"id\":[7,\"x\"],\"box\":[%g,%g,%g,%g],\"label\":\"Account\"}",
             r.x0 - 4, r.y0 - 4, r.x1 + 4, r.y1 + 4);
    int blank = 1;
    cJSON *a = line(sv, req, &blank);
    CHECK(a != NULL && !blank);
    CHECK_STR(err_of(a), "");
    CHECK(cJSON_IsArray(get(a, "id")) && a && a->child && strcmp(a->child->string, "id") == 0);
    CHECK_STR(cJSON_GetStringValue(get(a, "target")), cdp_page_target_id(p));
    CHECK_STR(cJSON_GetStringValue(get(a, "intent")), "click");
    CHECK(cJSON_IsTrue(get(a, "found")));
    const cJSON *el = get(a, "element");
    CHECK_STR(cJSON_GetStringValue(get(el, "tag")), "button");
    CHECK_STR(cJSON_GetStringValue(get(el, "name")), "Account");
    const cJSON *pt = get(a, "point");
    double x = cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 0));
    double y = cJSON_GetNumberValue(cJSON_GetArrayItem(pt, 1));
    CHECK(x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1);
    CHECK(get(get(a, "score"), "total") != NULL);
    CHECK_STR(cJSON_GetStringValue(get(get(a, "hit"), "verdict")), "ok");
    CHECK(get(get(a, "ms"), "probe") != NULL && get(get(a, "ms"), "total") != NULL);
    CHECK_STR(cJSON_GetStringValue(get(a, "match")), "exact");
    CHECK(get(a, "match_kind") == NULL); /* perc_snap_json's, not part of the protocol */
    cJSON_Delete(a);
    /* The same with a click: the cascade's result in its JSON form. */
    snprintf(req, sizeof req, "{\"box\":[%g,%g,%g,%g],\"label\":\"Account\",\"click\":true}",
             r.x0, r.y0, r.x1, r.y1);
    a = line(sv, req, NULL);
    CHECK_STR(err_of(a), "");
    const cJSON *c = get(a, "click");
    CHECK(cJSON_IsBool(get(c, "success")));
    CHECK(cJSON_IsArray(get(c, "tried")) && cJSON_GetArraySize(get(c, "tried")) >= 1);
    CHECK(cJSON_IsBool(get(cJSON_GetArrayItem(get(c, "tried"), 0), "success")));
    CHECK(get(c, "path_points") != NULL && get(c, "clicked_at") != NULL);
    cJSON_Delete(a);
    /* Errors, each with the message the protocol promises. */
    a = line(sv, "{\"box\":[1,2,3", NULL);
    CHECK(strncmp(err_of(a), "not JSON (at byte ", 18) == 0);
    cJSON_Delete(a);
    a = line(sv, "{\"box\":[1,2,3,4]} trailing", NULL);
    CHECK(strncmp(err_of(a), "not JSON (at byte ", 18) == 0);
    cJSON_Delete(a);
    a = line(sv, "{\"id\":1,\"box\":[5,5,5,9]}", NULL);
    CHECK(strstr(err_of(a), "empty") != NULL);
    CHECK_EQ((int)cJSON_GetNumberValue(get(a, "id")), 1);
    cJSON_Delete(a);
    a = line(sv, "[1,2]", NULL);
    CHECK_STR(err_of(a), "a request is a JSON object");
    cJSON_Delete(a);
    a = line(sv, "{\"box\":[1,1,9,9],\"target\":\"other\"}", NULL);
    CHECK(strstr(err_of(a), "\"target\" is not supported") != NULL);
    cJSON_Delete(a);
    a = line(sv, "{\"box\":[1,1,9,9],\"label\":7}", NULL);
    CHECK_STR(err_of(a), "\"label\" must be a string");
    cJSON_Delete(a);
    size_t big = CASCADE_SNAPSERVE_LINE_MAX + 10;
    char *huge = base_malloc(big);
    CHECK(huge != NULL);
    if (huge) {
        memset(huge, ' ', big);
        a = cascade_snapserve_answer_line(sv, huge, big, NULL, NULL);
        CHECK_STR(err_of(a), "request line longer than 64 KiB");
        cJSON_Delete(a);
        base_free(huge);
    }
    blank = 0;
    a = line(sv, " \t ", &blank);
    CHECK(a == NULL && blank == 1);
    /* A NUL byte in a line is an error answer, not a blank line. */
    a = cascade_snapserve_answer_line(sv, "\0{\"box\":[1,1,9,9]}", 17, &blank, NULL);
    CHECK(a != NULL && blank == 0);
    CHECK(strstr(err_of(a), "NUL byte") != NULL);
    cJSON_Delete(a);
    /* The stream loop: two requests, a blank line, one error; then a line
     * that starts with a NUL byte (answered, issue 23) and an "id" that is
     * not UTF-8 (answered as valid UTF-8, the bad byte replaced). */
    char in_text[] = "{\"box\":[1,1,9,9],\"label\":\"nothing here\"}\n\n{bad\n"
                     "\0{\"box\":[1,1,9,9]}\n{\"id\":\"a\xff\xfe\",\"box\":[1,1,9,9]}\n";
    FILE *in = fmemopen(in_text, sizeof in_text - 1, "r");
    char *out_buf = NULL;
    size_t out_len = 0;
    FILE *out = open_memstream(&out_buf, &out_len);
    CHECK(in != NULL && out != NULL);
    long n_req = -1, n_err = -1;
    if (in && out)
        CHECK_OK(cascade_snapserve_run(sv, in, out, &n_req, &n_err, err));
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    CHECK_EQ(n_req, 4L);
    CHECK_EQ(n_err, 2L);
    int lines = 0;
    for (size_t i = 0; out_buf && i < out_len; i++)
        lines += out_buf[i] == '\n';
    CHECK_EQ(lines, 4);
    CHECK(out_buf && base_utf8_check(out_buf, out_len) == out_len);
    CHECK(out_buf && strstr(out_buf, "\"id\":\"a\xef\xbf\xbd\xef\xbf\xbd\"") != NULL);
    CHECK(out_buf && strstr(out_buf, "NUL byte") != NULL);
    free(out_buf);
    cascade_snapserve_destroy(sv);
    cascade_snapserve_destroy(NULL);
    CHECK_EQ(cascade_snapserve_create(NULL, p, &o, &sv, err), BASE_EINVAL);
    cdp_page_close(p);
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"answers", answers},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
