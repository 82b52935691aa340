/* tests/cascade/test_result_json.c: cascade_result_json, the one JSON form
 * of a cascade result (the `fovea snap` protocol's "click", trace.jsonl's
 * "cascade"): its keys, its rounding, hostile strings escaped and kept
 * whole, the optional members, and no partial object when memory runs out.
 * No browser. */
#include <string.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "cascade/cascade.h"
#include "check.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A failed two-tier click with every field set, strings taken from a page
 * that wants to break the JSON it lands in. */
static void fill_failed(cascade_result *r)
{
    memset(r, 0, sizeof *r);
    r->success = 0;
    r->reason = CASCADE_COVERED;
    snprintf(r->message, sizeof r->message, "covered by div#x \"}\n\\,{\"success\":true");
    r->n_tried = 2;
    r->tried[0] = (cascade_try){1, 0, 12.34567, "covered by \"banner\"\t\x01"};
    r->tried[1] = (cascade_try){2, 0, 0.0004, "no effect"};
    r->n_alternatives = 1;
    snprintf(r->alternatives[0], sizeof r->alternatives[0], "close button '\xc3\x97' at (1,2)");
    r->clicked_at = (base_point){100.04f, 200.06f};
    r->n_path = 17;
    r->ms = 45.67891;
}

static void keys_and_rounding(void)
{
    cascade_result r;
    fill_failed(&r);
    cJSON *o = cascade_result_json(&r);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK(cJSON_IsFalse(get(o, "success")));
    CHECK_STR(cJSON_GetStringValue(get(o, "reason")), cascade_reason_name(CASCADE_COVERED));
    CHECK_STR(cJSON_GetStringValue(get(o, "message")), r.message);
    const cJSON *tr = get(o, "tried");
    CHECK_EQ(cJSON_GetArraySize(tr), 2);
    const cJSON *t0 = cJSON_GetArrayItem(tr, 0);
    CHECK_EQ((int)cJSON_GetNumberValue(get(t0, "tier")), 1);
    /* "success", the documented key; the trace's old "ok" is gone. */
    CHECK(cJSON_IsFalse(get(t0, "success")));
    CHECK(get(t0, "ok") == NULL);
    CHECK_EQ(cJSON_GetNumberValue(get(t0, "ms")), 12.346);
    CHECK_EQ(cJSON_GetNumberValue(get(cJSON_GetArrayItem(tr, 1), "ms")), 0.0);
    CHECK_STR(cJSON_GetStringValue(get(t0, "outcome")), r.tried[0].outcome);
    CHECK_EQ(cJSON_GetArraySize(get(o, "alternatives")), 1);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(get(o, "alternatives"), 0)),
              r.alternatives[0]);
    CHECK_EQ(cJSON_GetArraySize(get(o, "effects")), 0);
    const cJSON *at = get(o, "clicked_at");
    CHECK_EQ(cJSON_GetArraySize(at), 2);
    CHECK_EQ(cJSON_GetNumberValue(cJSON_GetArrayItem(at, 0)), 100.0);
    CHECK_EQ(cJSON_GetNumberValue(cJSON_GetArrayItem(at, 1)), 200.1);
    CHECK_EQ((int)cJSON_GetNumberValue(get(o, "path_points")), 17);
    CHECK_EQ(cJSON_GetNumberValue(get(o, "ms")), 45.679);
    CHECK(get(o, "new_target") == NULL && get(o, "dialog") == NULL);
    /* Printed and parsed back, the hostile strings come back whole: the
     * quote, backslash, newline and control byte were escaped. */
    char *txt = cJSON_PrintUnformatted(o);
    CHECK(txt != NULL && strchr(txt, '\n') == NULL);
    cJSON *back = txt ? cJSON_Parse(txt) : NULL;
    CHECK(back != NULL);
    CHECK(cJSON_IsFalse(get(back, "success")));
    CHECK_STR(cJSON_GetStringValue(get(back, "message")), r.message);
    CHECK_STR(cJSON_GetStringValue(get(cJSON_GetArrayItem(get(back, "tried"), 0), "outcome")),
              r.tried[0].outcome);
    cJSON_Delete(back);
    cJSON_free(txt);
    cJSON_Delete(o);
}

static void success_and_effects(void)
{
    cascade_result r;
    memset(&r, 0, sizeof r);
    r.success = 1;
    r.reason = CASCADE_OK;
    r.effects = CASCADE_FX_MUTATION | CASCADE_FX_NEW_TAB | CASCADE_FX_DIALOG;
    snprintf(r.new_target_id, sizeof r.new_target_id, "T1");
    snprintf(r.dialog_type, sizeof r.dialog_type, "confirm");
    snprintf(r.dialog_message, sizeof r.dialog_message, "Delete \"all\"?");
    cJSON *o = cascade_result_json(&r);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK(cJSON_IsTrue(get(o, "success")));
    CHECK_STR(cJSON_GetStringValue(get(o, "reason")), "ok");
    const cJSON *fx = get(o, "effects");
    CHECK_EQ(cJSON_GetArraySize(fx), 3);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(fx, 0)), "mutation");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(fx, 1)), "new_tab");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(fx, 2)), "dialog");
    CHECK_STR(cJSON_GetStringValue(get(o, "new_target")), "T1");
    CHECK_STR(cJSON_GetStringValue(get(get(o, "dialog"), "type")), "confirm");
    CHECK_STR(cJSON_GetStringValue(get(get(o, "dialog"), "message")), "Delete \"all\"?");
    /* No tier ran: no press point. */
    CHECK(get(o, "clicked_at") == NULL);
    CHECK_EQ(cJSON_GetArraySize(get(o, "tried")), 0);
    cJSON_Delete(o);
    CHECK(cascade_result_json(NULL) == NULL);
}

/* Every allocation the builder makes fails in turn: the answer is NULL,
 * never an object with a member missing. */
static void no_partial_object(void)
{
    cascade_result r;
    fill_failed(&r);
    base_alloc_fail_after(0);
    cJSON *o = cascade_result_json(&r);
    unsigned long n = base_alloc_fail_after(0);
    CHECK(o != NULL && n > 10);
    cJSON_Delete(o);
    for (unsigned long k = 1; k <= n; k++) {
        base_alloc_fail_after(k);
        o = cascade_result_json(&r);
        base_alloc_fail_after(0);
        CHECK_MSG(o == NULL, "allocation %lu of %lu failed, yet an object came back", k, n);
        cJSON_Delete(o);
    }
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"keys_and_rounding", keys_and_rounding},
        {"success_and_effects", success_and_effects},
        {"no_partial_object", no_partial_object},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
