/* cascade/result_json.c: a cascade result as JSON, in one form.
 *
 * The `fovea snap` protocol's "click" and trace.jsonl's "cascade" were two
 * hand-written copies with different keys ("success" vs "ok") and rounding;
 * every writer now calls cascade_result_json. Keys are the ones README
 * documents for the protocol; times are rounded to 0.001 ms and points to
 * 0.1 CSS px (perception's JSON rounding).
 */
#include "cascade/cascade.h"

#include <math.h>

#include "base/alloc.h"
#include "base/json_alloc.h"
#include "perception/probe.h"

/* The effect bits by name, for clients that do not know the enum. */
static cJSON *effects_json(unsigned fx)
{
    cJSON *a = cJSON_CreateArray();
    for (unsigned i = 0; i < 32; i++) {
        const char *name = (fx >> i) & 1u ? cascade_effect_name(1u << i) : NULL;
        if (name)
            base_json_push(a, cJSON_CreateString(name));
    }
    return a;
}

cJSON *cascade_result_json(const cascade_result *c)
{
    if (!c)
        return NULL;
    /* Members are added unchecked; a failed allocation anywhere drops the
     * whole object (a client must not act on a partial answer). */
    unsigned long fails0 = base_alloc_thread_failures();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "success", c->success);
    cJSON_AddStringToObject(o, "reason", c->success ? "ok" : cascade_reason_name(c->reason));
    cJSON_AddStringToObject(o, "message", c->message);
    cJSON *tr = cJSON_AddArrayToObject(o, "tried");
    for (int i = 0; i < c->n_tried && i < 3; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "tier", c->tried[i].tier);
        cJSON_AddBoolToObject(t, "success", c->tried[i].success);
        cJSON_AddNumberToObject(t, "ms", perc_json_score(c->tried[i].ms));
        cJSON_AddStringToObject(t, "outcome", c->tried[i].outcome);
        base_json_push(tr, t);
    }
    cJSON *al = cJSON_AddArrayToObject(o, "alternatives");
    for (int i = 0; i < c->n_alternatives && i < 4; i++)
        base_json_push(al, cJSON_CreateString(c->alternatives[i]));
    base_json_add(o, "effects", effects_json(c->effects));
    if (c->effects & CASCADE_FX_NEW_TAB)
        cJSON_AddStringToObject(o, "new_target", c->new_target_id);
    if (c->effects & CASCADE_FX_DIALOG) {
        cJSON *d = cJSON_AddObjectToObject(o, "dialog");
        cJSON_AddStringToObject(d, "type", c->dialog_type);
        cJSON_AddStringToObject(d, "message", c->dialog_message);
    }
    if (c->n_tried > 0)
        base_json_add(o, "clicked_at", perc_json_point(c->clicked_at));
    cJSON_AddNumberToObject(o, "path_points", c->n_path);
    cJSON_AddNumberToObject(o, "ms", perc_json_score(c->ms));
    if (o && base_alloc_thread_failures() != fails0) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
