/* perception/snap_json.c: the snapper's answers as JSON, in one form.
 *
 * Every writer of a snap answer (the `fovea snap` protocol in
 * cascade/snapserve.c, the run trace in agent/trace.c, `fovea snaptest
 * --json`) builds it here, so the keys and the rounding are the same
 * everywhere: CSS px to 0.1, scores to 0.001. The snapper itself is pure
 * (no JSON); these live beside perc_snap, which carries its result.
 */
#include "perception/probe.h"

#include <math.h>

#include "base/alloc.h"
#include "base/json_alloc.h"

double perc_json_px(double v)
{
    /* round(v * 10) / 10 rather than round(v / 0.1) * 0.1: the latter
     * prints 0.30000000000000004 for 0.3. Not a number prints as 0. */
    return isfinite(v) ? round(v * 10.0) / 10.0 : 0.0;
}

double perc_json_score(double v)
{
    return isfinite(v) ? round(v * 1000.0) / 1000.0 : 0.0;
}

cJSON *perc_json_point(base_point p)
{
    double v[2] = {perc_json_px(p.x), perc_json_px(p.y)};
    return cJSON_CreateDoubleArray(v, 2);
}

cJSON *perc_json_rect(base_rect r)
{
    double v[4] = {perc_json_px(r.x0), perc_json_px(r.y0), perc_json_px(r.x1),
                   perc_json_px(r.y1)};
    return cJSON_CreateDoubleArray(v, 4);
}

const char *perc_verdict_name(snap_verdict v)
{
    return v == SNAP_VERIFY_OK ? "ok" : v == SNAP_VERIFY_COVERED ? "covered" : "empty";
}

cJSON *perc_snap_result_json(const snap_result *r)
{
    if (!r)
        return NULL;
    unsigned long fails0 = base_alloc_thread_failures();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "phase", snap_phase_name(r->phase));
    cJSON_AddBoolToObject(o, "found", r->found);
    base_json_add(o, "point", perc_json_point(r->pt));
    cJSON *sc = cJSON_AddObjectToObject(o, "score");
    cJSON_AddNumberToObject(sc, "area", perc_json_score(r->score.area));
    cJSON_AddNumberToObject(sc, "label", perc_json_score(r->score.label));
    cJSON_AddNumberToObject(sc, "chevron", perc_json_score(r->score.chevron));
    cJSON_AddNumberToObject(sc, "total", perc_json_score(r->score.total));
    if (r->found) {
        /* The documented grade (exact|partial|none), then the finer kind. */
        cJSON_AddStringToObject(o, "match", snap_match_grade(r->match));
        cJSON_AddStringToObject(o, "match_kind", snap_match_name(r->match));
    }
    if (r->ambiguous)
        cJSON_AddBoolToObject(o, "ambiguous", 1);
    cJSON_AddStringToObject(o, "reason", r->reason ? r->reason : "");
    if (o && base_alloc_thread_failures() != fails0) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *perc_snap_json(const perc_snap *sn)
{
    if (!sn)
        return NULL;
    unsigned long fails0 = base_alloc_thread_failures();
    cJSON *o = perc_snap_result_json(&sn->res);
    if (!o)
        return NULL;
    /* The live answer's point may differ from the pure result's (an
     * iframe descent maps it to the top viewport). */
    base_json_replace(o, "found", cJSON_CreateBool(sn->found));
    base_json_replace(o, "point", perc_json_point(sn->pt));
    if (!sn->found && sn->res.ambiguous) {
        /* The controls the label cannot tell apart, best first: nothing
         * was chosen, the caller names one. */
        cJSON *ca = cJSON_AddArrayToObject(o, "candidates");
        for (int k = 0; k < sn->n_alt && k < SNAP_MAX_ALT; k++) {
            const perc_snap_alt *x = &sn->alt[k];
            cJSON *c = cJSON_CreateObject();
            cJSON_AddStringToObject(c, "name", x->name);
            cJSON_AddStringToObject(c, "role", x->role);
            cJSON_AddStringToObject(c, "tag", x->tag);
            base_json_add(c, "rect", perc_json_rect(x->rect));
            base_json_add(c, "point", perc_json_point(x->pt));
            cJSON_AddStringToObject(c, "xpath", x->xpath);
            base_json_push(ca, c);
        }
    }
    if (sn->found) {
        cJSON *el = cJSON_AddObjectToObject(o, "element");
        cJSON_AddStringToObject(el, "tag", sn->tag);
        cJSON_AddStringToObject(el, "text", sn->text);
        cJSON_AddStringToObject(el, "name", sn->name);
        cJSON_AddStringToObject(el, "xpath", sn->xpath);
        cJSON_AddStringToObject(el, "frame", sn->frame_id);
        base_json_add(el, "rect", perc_json_rect(sn->rect));
        cJSON_AddBoolToObject(el, "disabled", sn->disabled);
    }
    if (base_alloc_thread_failures() != fails0) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
