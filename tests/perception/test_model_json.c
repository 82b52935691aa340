/* tests/perception/test_model_json.c: recovering boxes from model text the way
 * models really write it (perception/model_json.h). Pure; no server. */
#include <stdio.h>

#include "base/alloc.h"
#include "base/err.h"
#include "check.h"
#include "perception/model_json.h"
#include "model/chat_json.h"

#define OBJ                                                                                        \
    "{\"page_type\": \"form\", \"boxes\": ["                                                       \
    "{\"box_2d\": [10, 20, 110, 220], \"label\": \"Search\", \"kind\": \"button\", "               \
    "\"intent_relevant\": true},"                                                                  \
    "{\"box_2d\": [300, 400, 350, 600], \"label\": \"Email\", \"kind\": \"input\", "               \
    "\"intent_relevant\": false}]}"

static base_err parse(const char *s, int cap, perc_model_reply *r, char *err)
{
    return perc_model_reply_parse(s, strlen(s), cap, r, err);
}

/* The two boxes of OBJ came through intact. */
static int obj_ok(const perc_model_reply *r)
{
    return r->n == 2 && r->boxes[0].ymin == 10 && r->boxes[0].xmin == 20 &&
           r->boxes[0].ymax == 110 && r->boxes[0].xmax == 220 &&
           !strcmp(r->boxes[0].label, "Search") && !strcmp(r->boxes[0].kind, "button") &&
           r->boxes[0].intent_relevant == 1 && r->boxes[1].intent_relevant == 0 &&
           !strcmp(r->boxes[1].label, "Email") && !strcmp(r->page_type, "form");
}

static void plain(void)
{
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse(OBJ, 40, &r, err));
    CHECK(obj_ok(&r));
    CHECK_EQ(r.truncated, 0);
    CHECK_EQ(r.dropped, 0);
    CHECK_NEAR(r.boxes[0].confidence, PERC_MODEL_DEFAULT_CONFIDENCE, 1e-6);
    perc_model_reply_fini(&r);
}

static void fenced_and_prose(void)
{
    static const char *const wrapped[] = {
        "```json\n" OBJ "\n```",
        "```\n" OBJ "\n```\n",
        "Sure! Here is the JSON you asked for:\n\n```json\n" OBJ "\n```\nHope this helps.",
        "I found {two} elements [V1] on the page: " OBJ " -- that is all.",
        "```JSON " OBJ "```",
    };
    for (size_t i = 0; i < sizeof wrapped / sizeof wrapped[0]; i++) {
        perc_model_reply r;
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = parse(wrapped[i], 40, &r, err);
        CHECK_MSG(e == BASE_OK, "case %zu: %s", i, err);
        CHECK_MSG(obj_ok(&r), "case %zu: %d boxes", i, r.n);
        perc_model_reply_fini(&r);
    }
}

static void bare_array(void)
{
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse("[{\"box_2d\": [1, 2, 3, 4], \"label\": \"a\"}, {\"box_2d\": [5, 6, 7, 8]}]", 40,
                   &r, err));
    CHECK_EQ(r.n, 2);
    CHECK_STR(r.boxes[0].label, "a");
    CHECK_STR(r.boxes[1].label, ""); /* missing label: kept, empty */
    CHECK_EQ(r.boxes[1].intent_relevant, -1);
    CHECK_STR(r.page_type, "");
    perc_model_reply_fini(&r);
}

static void truncated(void)
{
    /* Cut inside the third box: the first two survive. */
    const char *t = "```json\n{\"page_type\": \"search_results\", \"boxes\": ["
                    "{\"box_2d\": [1, 2, 30, 40], \"label\": \"One \\\"quoted\\\" }\"},\n"
                    "{\"box_2d\": [50, 60, 70, 80], \"label\": \"Two\"},\n"
                    "{\"box_2d\": [90, 100, 1";
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse(t, 40, &r, err));
    CHECK_EQ(r.n, 2);
    CHECK_EQ(r.truncated, 1);
    CHECK_STR(r.boxes[0].label, "One \"quoted\" }");
    CHECK_STR(r.boxes[1].label, "Two");
    CHECK_STR(r.page_type, "search_results");
    perc_model_reply_fini(&r);
    /* A truncated bare array. */
    CHECK_OK(parse("[{\"box_2d\": [1, 2, 30, 40]}, {\"box_2d\": [5", 40, &r, err));
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.truncated, 1);
    perc_model_reply_fini(&r);
    /* Cut before the first box completes: a clear error. */
    base_errclear(err);
    CHECK_EQ(parse("{\"page_type\": \"form\", \"boxes\": [{\"box_2d\": [1, 2", 40, &r, err),
             BASE_EPROTO);
    CHECK_MSG(strstr(err, "cut off") != NULL, "err: %s", err);
}

static void repairs(void)
{
    const char *t =
        "{\"boxes\": ["
        "{\"box_2d\": [\"10\", \" 20 \", \"110\", \"220\"], \"label\": 42}," /* strings */
        "{\"box_2d\": [110, 220, 10, 20], \"label\": \"swapped\"},"          /* swapped */
        "{\"box_2d\": [-20, 950, 60, 1050], \"label\": \"overshoot\"},"      /* clamp */
        "{\"box_2d\": [0.1, 0.2, 0.3, 0.4], \"label\": \"fractions\"},"
        "{\"box_2d\": \"[5, 6, 7, 8]\", \"label\": \"string box\"},"
        "{\"box_2d\": {\"ymin\": 1, \"xmin\": 2, \"ymax\": 3, \"xmax\": 4}},"
        "{\"bbox\": [1, 2, 3, 4], \"text\": \"synonyms\", \"type\": \"link\", "
        "\"confidence\": 87, \"intent_relevant\": \"yes\"}"
        "]}";
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse(t, 40, &r, err));
    CHECK_EQ(r.n, 7);
    CHECK_EQ(r.dropped, 0);
    CHECK_STR(r.boxes[0].label, "42");
    CHECK_EQ(r.boxes[0].xmin, 20);
    CHECK_EQ(r.boxes[1].ymin, 10);
    CHECK_EQ(r.boxes[1].xmax, 220);
    CHECK_EQ(r.boxes[2].ymin, 0);
    CHECK_EQ(r.boxes[2].xmax, 1000);
    CHECK_NEAR(r.boxes[3].ymin, 100, 1e-3);
    CHECK_NEAR(r.boxes[3].xmax, 400, 1e-3);
    CHECK_EQ(r.boxes[4].xmax, 8);
    CHECK_EQ(r.boxes[5].ymax, 3);
    CHECK_STR(r.boxes[6].label, "synonyms");
    CHECK_STR(r.boxes[6].kind, "link");
    CHECK_NEAR(r.boxes[6].confidence, 0.87, 1e-6);
    CHECK_EQ(r.boxes[6].intent_relevant, 1);
    CHECK_EQ(r.repaired, 3); /* swapped, overshoot, fractions */
    perc_model_reply_fini(&r);
}

static void drops(void)
{
    const char *t = "{\"boxes\": ["
                    "{\"box_2d\": [1, 2, 3]},"        /* three values */
                    "{\"box_2d\": [1, 2, 3, \"x\"]}," /* not a number */
                    "{\"box_2d\": [1, 2, 3, 5000]},"  /* far outside */
                    "{\"box_2d\": [10, 10, 10, 50]}," /* zero height */
                    "{\"label\": \"no box\"},"
                    "\"just a string\","
                    "{\"box_2d\": [1, 2, 3, 4], \"label\": \"kept\"}"
                    "]}";
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse(t, 40, &r, err));
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.dropped, 6);
    CHECK_STR(r.boxes[0].label, "kept");
    CHECK_MSG(strstr(r.note, "boxes[0]") && strstr(r.note, "3 values"), "note: %s", r.note);
    perc_model_reply_fini(&r);
}

static void cap(void)
{
    char t[4096] = "{\"boxes\": [";
    for (int i = 0; i < 50; i++) {
        char one[64];
        snprintf(one, sizeof one, "%s{\"box_2d\": [%d, 0, %d, 10]}", i ? "," : "", i, i + 5);
        strncat(t, one, sizeof t - strlen(t) - 1);
    }
    strncat(t, "]}", sizeof t - strlen(t) - 1);
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse(t, 40, &r, err));
    CHECK_EQ(r.n, 40);
    CHECK_EQ(r.dropped, 10);
    perc_model_reply_fini(&r);
}

static void errors(void)
{
    static const char *const bad[] = {
        "",
        "I cannot help with that.",
        "{\"page_type\": \"form\"}",
        "{\"boxes\": \"none\"}",
        "[1, 2, 3]",
        "{{{{{{{{",
        "[[[[[[[[[[[[[[[",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        perc_model_reply r;
        memset(&r, 0x55, sizeof r);
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = parse(bad[i], 40, &r, err);
        CHECK_MSG(e == BASE_EPROTO, "case %zu: %s -> %d", i, bad[i], (int)e);
        CHECK_MSG(err[0] != '\0', "case %zu: no message", i);
        CHECK_EQ(r.n, 0x55555555); /* untouched */
    }
    char err[BASE_ERRBUF_SIZE] = "";
    perc_model_reply r;
    CHECK_OK(parse("Nothing interactive here: {\"page_type\": \"article\", \"boxes\": []}", 40, &r,
                   err));
    CHECK_EQ(r.n, 0);
    CHECK_STR(r.page_type, "article");
    perc_model_reply_fini(&r);
    CHECK_EQ(perc_model_reply_parse(NULL, 0, 40, &r, err), BASE_EINVAL);
}

static void envelope(void)
{
    char *content = NULL;
    int cut = -1;
    char err[BASE_ERRBUF_SIZE] = "";
    const char *ok = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},"
                     "\"finish_reason\":\"length\"}]}";
    CHECK_OK(model_chat_reply_parse(ok, strlen(ok), &content, &cut, err));
    CHECK_STR(content, "hi");
    CHECK_EQ(cut, 1);
    base_free(content);
    content = NULL;
    const char *parts =
        "{\"choices\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
        "{\"type\":\"text\",\"text\":\"b\"}]},\"finish_reason\":\"stop\"}]}";
    CHECK_OK(model_chat_reply_parse(parts, strlen(parts), &content, &cut, err));
    CHECK_STR(content, "a\nb");
    CHECK_EQ(cut, 0);
    base_free(content);
    content = NULL;
    const char *eb = "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"x\"}}";
    CHECK_EQ(model_chat_reply_parse(eb, strlen(eb), &content, &cut, err), BASE_EREMOTE);
    CHECK_MSG(strstr(err, "Rate limit reached") != NULL, "err: %s", err);
    static const char *const bad[] = {"<html>502</html>", "{}", "{\"choices\":[]}",
                                      "{\"choices\":[{\"message\":{\"content\":null}}]}",
                                      ("{\"choices\":[{\"message\":{\"content\":null,"
                                       "\"refusal\":\"I can't\"}}]}")};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        base_errclear(err);
        CHECK_EQ(model_chat_reply_parse(bad[i], strlen(bad[i]), &content, &cut, err), BASE_EPROTO);
        CHECK(content == NULL);
        CHECK_MSG(err[0], "case %zu: no message", i);
    }
    char msg[64];
    CHECK_EQ(model_chat_error_message("{\"error\":\"plain\"}", 17, msg, sizeof msg), 1);
    CHECK_STR(msg, "plain");
    CHECK_EQ(model_chat_error_message("nope", 4, msg, sizeof msg), 0);
    CHECK_STR(msg, "");
}

/* Every failing allocation ends in a clean BASE_ENOMEM (or a success when
 * the failure hit an optional copy), never a crash or a leak under ASan. */
static void alloc_failures(void)
{
    const char *t = "```json\n" OBJ "\n```";
    base_alloc_fail_after(0);
    perc_model_reply r;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(parse(t, 40, &r, err));
    perc_model_reply_fini(&r);
    unsigned long n = base_alloc_fail_after(0);
    for (unsigned long i = 1; i <= n + 1; i++) {
        base_alloc_fail_after(i);
        base_errclear(err);
        base_err e = parse(t, 40, &r, err);
        base_alloc_fail_after(0);
        CHECK_MSG(e == BASE_OK || e == BASE_ENOMEM, "fail at %lu: %d", i, (int)e);
        if (e == BASE_OK)
            perc_model_reply_fini(&r);
    }
}

static const check_case cases[] = {
    {"plain", plain},
    {"fenced_and_prose", fenced_and_prose},
    {"bare_array", bare_array},
    {"truncated", truncated},
    {"repairs", repairs},
    {"drops", drops},
    {"cap", cap},
    {"errors", errors},
    {"envelope", envelope},
    {"alloc_failures", alloc_failures},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
