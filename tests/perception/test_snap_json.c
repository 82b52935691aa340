/* tests/perception/test_snap_json.c: perc_snap_result_json and
 * perc_snap_json, the one JSON form of a snap answer (the `fovea snap`
 * protocol, trace.jsonl, `fovea snaptest --json`): keys, rounding (0.1 px,
 * 0.001 score), hostile element strings escaped and kept whole, an
 * abstention without an element, numbers that are not finite, and no
 * partial object when memory runs out. No browser. */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "check.h"
#include "perception/probe.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num_at(const cJSON *a, int i)
{
    return cJSON_GetNumberValue(cJSON_GetArrayItem(a, i));
}

static void fill_found(perc_snap *s)
{
    memset(s, 0, sizeof *s);
    s->found = 1;
    s->pt = (base_point){12.345f, 67.891f};
    s->res.found = 1;
    s->res.pt = (base_point){2.0f, 3.0f}; /* inside a frame: the answer's pt wins */
    s->res.phase = SNAP_PHASE_B;
    s->res.score = (snap_score){0.123456f, 1.0f, 2.5204f, 0.31111f};
    s->res.match = SNAP_MATCH_PREFIX;
    s->res.reason = "grid: best score";
    s->rect = (base_rect){10.04f, 20.05f, 30.96f, 40.0f};
    snprintf(s->tag, sizeof s->tag, "button");
    snprintf(s->text, sizeof s->text, "Save \"draft\"\n\\ </script>\x02");
    snprintf(s->name, sizeof s->name, "\xe2\x80\x8bSave\xc2\xa0now");
    snprintf(s->xpath, sizeof s->xpath, "/html[1]/body[1]/button[2]");
    snprintf(s->frame_id, sizeof s->frame_id, "F\"1");
    s->disabled = 1;
}

static void found_answer(void)
{
    perc_snap s;
    fill_found(&s);
    cJSON *o = perc_snap_json(&s);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK_STR(cJSON_GetStringValue(get(o, "phase")), "B");
    CHECK(cJSON_IsTrue(get(o, "found")));
    const cJSON *pt = get(o, "point");
    CHECK_EQ(num_at(pt, 0), 12.3);
    CHECK_EQ(num_at(pt, 1), 67.9);
    const cJSON *sc = get(o, "score");
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "area")), 0.123);
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "label")), 1.0);
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "chevron")), 2.52);
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "total")), 0.311);
    CHECK_STR(cJSON_GetStringValue(get(o, "match")), "partial");
    CHECK_STR(cJSON_GetStringValue(get(o, "match_kind")), snap_match_name(SNAP_MATCH_PREFIX));
    CHECK(get(o, "ambiguous") == NULL && get(o, "candidates") == NULL);
    CHECK_STR(cJSON_GetStringValue(get(o, "reason")), "grid: best score");
    const cJSON *el = get(o, "element");
    CHECK_STR(cJSON_GetStringValue(get(el, "tag")), "button");
    CHECK_STR(cJSON_GetStringValue(get(el, "xpath")), s.xpath);
    CHECK(cJSON_IsTrue(get(el, "disabled")));
    const cJSON *rc = get(el, "rect");
    CHECK_EQ(num_at(rc, 0), 10.0);
    CHECK_EQ(num_at(rc, 1), 20.1);
    CHECK_EQ(num_at(rc, 2), 31.0);
    CHECK_EQ(num_at(rc, 3), 40.0);
    /* Printed on one line and parsed back, the page's strings are whole. */
    char *txt = cJSON_PrintUnformatted(o);
    CHECK(txt != NULL && strchr(txt, '\n') == NULL && strstr(txt, "</script>\x02") == NULL);
    cJSON *back = txt ? cJSON_Parse(txt) : NULL;
    CHECK(back != NULL);
    const cJSON *bel = get(back, "element");
    CHECK_STR(cJSON_GetStringValue(get(bel, "text")), s.text);
    CHECK_STR(cJSON_GetStringValue(get(bel, "name")), s.name);
    CHECK_STR(cJSON_GetStringValue(get(bel, "frame")), s.frame_id);
    cJSON_Delete(back);
    cJSON_free(txt);
    cJSON_Delete(o);
}

static void abstention(void)
{
    perc_snap s;
    memset(&s, 0, sizeof s);
    s.pt = (base_point){50.0f, 25.06f};
    s.res.pt = s.pt;
    s.res.phase = SNAP_PHASE_NONE;
    s.res.reason = "no candidate matches the label";
    snprintf(s.tag, sizeof s.tag, "div"); /* left over: not reported */
    cJSON *o = perc_snap_json(&s);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK(cJSON_IsFalse(get(o, "found")));
    CHECK(get(o, "element") == NULL);
    CHECK(get(o, "match") == NULL);
    CHECK_STR(cJSON_GetStringValue(get(o, "reason")), "no candidate matches the label");
    CHECK_EQ(num_at(get(o, "point"), 1), 25.1);
    cJSON_Delete(o);
    CHECK(perc_snap_json(NULL) == NULL);
    CHECK(perc_snap_result_json(NULL) == NULL);
}

/* The snapper's own result (snaptest): its point and found flag, the same
 * keys and rounding; numbers that are not finite print as 0, not as
 * invalid JSON. */
static void pure_result(void)
{
    snap_result r;
    memset(&r, 0, sizeof r);
    r.found = 1;
    r.pt = (base_point){1.25f, NAN};
    r.phase = SNAP_PHASE_A;
    r.score = (snap_score){INFINITY, 0.0005f, 0.0f, 0.9996f};
    r.match = SNAP_MATCH_WORD;
    r.reason = "pinpoint";
    cJSON *o = perc_snap_result_json(&r);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK_STR(cJSON_GetStringValue(get(o, "phase")), "A");
    CHECK_EQ(num_at(get(o, "point"), 0), 1.3);
    CHECK_EQ(num_at(get(o, "point"), 1), 0.0);
    const cJSON *sc = get(o, "score");
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "area")), 0.0);
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "label")), 0.001);
    CHECK_EQ(cJSON_GetNumberValue(get(sc, "total")), 1.0);
    CHECK_STR(cJSON_GetStringValue(get(o, "match")), "partial");
    CHECK_STR(cJSON_GetStringValue(get(o, "match_kind")), snap_match_name(SNAP_MATCH_WORD));
    char *txt = cJSON_PrintUnformatted(o);
    CHECK(txt != NULL && strstr(txt, "null") == NULL && strstr(txt, "inf") == NULL);
    cJSON_free(txt);
    cJSON_Delete(o);
    CHECK_STR(perc_verdict_name(SNAP_VERIFY_OK), "ok");
    CHECK_STR(perc_verdict_name(SNAP_VERIFY_COVERED), "covered");
    CHECK_STR(perc_verdict_name(SNAP_VERIFY_EMPTY), "empty");
}

static void no_partial_object(void)
{
    perc_snap s;
    fill_found(&s);
    base_alloc_fail_after(0);
    cJSON *o = perc_snap_json(&s);
    unsigned long n = base_alloc_fail_after(0);
    CHECK(o != NULL && n > 10);
    cJSON_Delete(o);
    for (unsigned long k = 1; k <= n; k++) {
        base_alloc_fail_after(k);
        o = perc_snap_json(&s);
        base_alloc_fail_after(0);
        CHECK_MSG(o == NULL, "allocation %lu of %lu failed, yet an object came back", k, n);
        cJSON_Delete(o);
    }
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"found_answer", found_answer},
        {"abstention", abstention},
        {"pure_result", pure_result},
        {"no_partial_object", no_partial_object},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
