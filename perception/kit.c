/* perception/kit.c: installs the listener recorder of the page kit
 * (assets/js/lib/listen.js) at document start; see perception/kit.h. */
#include "perception/kit.h"

#include <cjson/cJSON.h>

#include "base/log.h"
#include "perception/js.h"

#define KIT_TIMEOUT_MS 5000
#define KIT_MAX_FRAMES 64

static base_err add_script(cdp_page *page, const char *session, char *err)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "source", (const char *)fovea_js_listen)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "kit: out of memory");
    }
    return cdp_call(cdp_page_conn(page), session, "Page.addScriptToEvaluateOnNewDocument", pa,
                    NULL, KIT_TIMEOUT_MS, err);
}

base_err perc_kit_install(cdp_page *page, char *err)
{
    if (!page)
        return base_errf(err, BASE_EINVAL, "kit: NULL page");
    base_err e = add_script(page, cdp_page_session(page), err);
    if (e)
        return e;
    e = cdp_page_evaluate(page, (const char *)fovea_js_listen, NULL, KIT_TIMEOUT_MS, err);
    if (e)
        return e;
    cdp_frame fr[KIT_MAX_FRAMES];
    int n = cdp_page_frames(page, fr, KIT_MAX_FRAMES);
    for (int i = 0; i < n && i < KIT_MAX_FRAMES; i++) {
        if (!fr[i].oopif)
            continue;
        char ferr[BASE_ERRBUF_SIZE] = "";
        if (add_script(page, fr[i].session, ferr))
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "kit: frame %s not set up: %s", fr[i].id, ferr);
        else if (cdp_page_evaluate_in(page, fr[i].session, 0, (const char *)fovea_js_listen, NULL,
                                      KIT_TIMEOUT_MS, ferr))
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "kit: frame %s not evaluated: %s", fr[i].id,
                     ferr);
    }
    return BASE_OK;
}
