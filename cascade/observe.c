/* cascade/observe.c: watching the page for an action's effect — what a
 * click, a key press or a hover did (seed 002 §6.3: "verify the effect").
 *
 * The page half's `effect` op waits (bounded, woken by mutations) until the
 * document or a shadow root mutated, the URL changed, the target's state,
 * any field's value or checked state, the focus or the selection changed
 * since the baseline, and says where the press events went (delivery). The
 * wait runs in slices so that what only the browser sees (a request, a new
 * tab, a dialog: effects.c) ends it within one slice too. A frame whose
 * document went away during the wait navigated: that is the effect.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "cascade/cascade_int.h"

void cascade__obs_from(const cJSON *v, cascade__obs *o)
{
    memset(o, 0, sizeof *o);
    const char *eff = cascade__str(v, "effect");
    snprintf(o->what, sizeof o->what, "%s", eff ? eff : "");
    o->fx = cascade__fx_bits(cJSON_GetObjectItemCaseSensitive(v, "fx"));
    const char *d = cascade__str(v, "delivered");
    o->landed = d && strcmp(d, "target") == 0 ? 1 : d && strcmp(d, "elsewhere") == 0 ? -1 : 0;
    const char *w = cascade__str(v, "where");
    snprintf(o->where, sizeof o->where, "%s", w ? w : "");
    if (o->what[0] && !o->fx)
        o->fx = CASCADE_FX_MUTATION;
}

void cascade__obs_add_browser(const cascade__watch *w, cascade__obs *o, cascade_result *out)
{
    unsigned b = cascade__fx_since(w->h, w->fx0, out);
    o->fx |= b;
    if (!o->what[0] && b) {
        const char *n = (b & CASCADE_FX_DIALOG)    ? "dialog opened"
                        : (b & CASCADE_FX_NEW_TAB) ? "new tab opened"
                                                   : "request sent";
        snprintf(o->what, sizeof o->what, "%s", n);
    }
    out->effects |= o->fx;
}

cJSON *cascade__effect_arg(const cascade__watch *w, int ms)
{
    /* Complete or NULL: an effect wait without its baseline (muts, url,
     * state) would report the page's own changes as the press's effect. */
    cJSON *a = cJSON_CreateObject();
    if (!a || (w->xpath && w->xpath[0] && !cJSON_AddStringToObject(a, "xpath", w->xpath)) ||
        !cJSON_AddNumberToObject(a, "muts", w->muts) ||
        !cJSON_AddStringToObject(a, "url", w->url ? w->url : "") ||
        !cJSON_AddNumberToObject(a, "ms", ms) ||
        /* asked after a press: wait for its events */
        (w->press && !cJSON_AddBoolToObject(a, "press", 1)) ||
        (w->text0 >= 0 && !cJSON_AddNumberToObject(a, "text0", w->text0))) {
        cJSON_Delete(a);
        return NULL;
    }
    if (w->state) {
        cJSON *st = cJSON_Duplicate(w->state, 1);
        if (!st || !cJSON_AddItemToObject(a, "state", st)) {
            cJSON_Delete(st);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

base_err cascade__wait_effect(const cascade__watch *w, int ms, cascade__obs *o, char *err)
{
    char top0[512], top1[512];
    cascade__top_url(w->h, top0, sizeof top0);
    cJSON *v = NULL;
    char e2[BASE_ERRBUF_SIZE] = "";
    memset(o, 0, sizeof *o);
    base_err e = BASE_OK;
    double t0 = base_monotime_ms();
    for (;;) {
        int left = ms - (int)(base_monotime_ms() - t0);
        int slice = left < CASCADE__EFFECT_SLICE_MS ? (left > 0 ? left : 0)
                                                    : CASCADE__EFFECT_SLICE_MS;
        cJSON_Delete(v);
        v = NULL;
        cJSON *a = cascade__effect_arg(w, slice);
        if (!a) {
            cJSON_Delete(v);
            return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
        }
        e = cascade__call(w->h, w->fid, "effect", a, 1, &v, slice + 10000, e2);
        if (e)
            break;
        const char *eff = cascade__str(v, "effect");
        if ((eff && eff[0]) || left <= slice || cascade__fx_changed(w->h, w->fx0))
            break;
    }
    char dead[200] = "";
    base_err pe = e ? cdp_page_status(w->h->page, dead, sizeof dead) : BASE_OK;
    if (pe) { /* a crashed, closed or frozen page is not a navigation */
        cJSON_Delete(v);
        return base_errf(err, pe, "%s", dead);
    }
    if (e == BASE_ECLOSED || e == BASE_ENOTFOUND) {
        /* The frame's document went away under us: a navigation. */
        snprintf(o->what, sizeof o->what, "navigated");
        o->fx = CASCADE_FX_URL;
        return BASE_OK;
    }
    if (e)
        return base_errf(err, e, "%s", e2);
    cascade__obs_from(v, o);
    cJSON_Delete(v);
    cascade__top_url(w->h, top1, sizeof top1);
    if (!o->what[0] && strcmp(top0, top1) != 0) {
        snprintf(o->what, sizeof o->what, "url changed");
        o->fx |= CASCADE_FX_URL;
    }
    return BASE_OK;
}
