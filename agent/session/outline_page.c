/* agent/session/outline_page.c: reads a live page's outline (agent/session/outline.h):
 * assets/js/agent_outline.js in the top document (which enters same-origin
 * frames and open shadow roots itself) and in every cross-origin frame
 * through that frame's session, then the epoch's marks joined by xpath.
 */
#include <stdio.h>
#include <string.h>

#include "agent/session/js.h"
#include "agent/session/outline.h"
#include "perception/kit.h"

#define OL_TIMEOUT_MS 10000
#define OL_MAX_FRAMES 32

base_err agent_outline_read(cdp_page *page, const perc_epoch *ep, agent_outline *o, char *err)
{
    agent_outline t;
    agent_outline_init(&t);
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate_in(page, NULL, CDP_CTX_FOVEA,
                                      (const char *)fovea_js_agent_outline, &v, OL_TIMEOUT_MS, err);
    if (e)
        return e;
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "closed")) &&
        cJSON_GetObjectItemCaseSensitive(v, "closed")->valuedouble == 1) {
        /* A closed shadow root appeared: hand it to fovea's world, read again. */
        cJSON_Delete(v);
        v = NULL;
        perc_kit_closed_roots(page, NULL, 0);
        e = cdp_page_evaluate_in(page, NULL, CDP_CTX_FOVEA, (const char *)fovea_js_agent_outline, &v,
                                 OL_TIMEOUT_MS, err);
        if (e)
            return e;
    }
    e = agent_outline_parse(v, &t, err);
    cJSON_Delete(v);
    if (e) {
        agent_outline_fini(&t);
        return e;
    }
    cdp_frame frames[OL_MAX_FRAMES];
    int n = cdp_page_frames(page, frames, OL_MAX_FRAMES);
    for (int i = 1; i < n && i < OL_MAX_FRAMES; i++) {
        if (!frames[i].oopif || !frames[i].session[0])
            continue;
        cJSON *fv = NULL;
        char e2[BASE_ERRBUF_SIZE] = "";
        /* A frame that does not answer (navigating, detached) is left out;
         * the rest of the page is still worth reading. */
        if (cdp_page_evaluate_in(page, frames[i].session, CDP_CTX_FOVEA,
                                 (const char *)fovea_js_agent_outline, &fv, OL_TIMEOUT_MS,
                                 e2) == BASE_OK) {
            /* The frame's own elements keep frame xpaths relative to the
             * frame document; mark them as a frame's for the join. */
            cJSON *els = cJSON_GetObjectItemCaseSensitive(fv, "els");
            cJSON *x;
            cJSON_ArrayForEach(x, els)
            {
                cJSON *fr = cJSON_GetObjectItemCaseSensitive(x, "frame");
                if (cJSON_IsString(fr) && !fr->valuestring[0])
                    cJSON_ReplaceItemInObjectCaseSensitive(x, "frame",
                                                           cJSON_CreateString(frames[i].id));
            }
            e = agent_outline_parse(fv, &t, e2);
            if (e == BASE_ENOMEM) {
                cJSON_Delete(fv);
                agent_outline_fini(&t);
                return base_errf(err, e, "%s", e2);
            }
            e = BASE_OK;
        }
        cJSON_Delete(fv);
    }
    agent_outline_join(&t, ep);
    *o = t;
    return BASE_OK;
}
