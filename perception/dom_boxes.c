/* perception/dom_boxes.c: runs the embedded dom_boxes.js probe and parses
 * its JSON through the same parser as boxes files, so a page and a file
 * give identical marks. */
#include "perception/dom_boxes.h"

#include <string.h>

#include "perception/js.h"

base_err perc_dom_boxes(cdp_page *page, perc_mark **marks, int *n, char *err)
{
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate(page, (const char *)fovea_js_dom_boxes, &v, 10000, err);
    if (e)
        return e;
    if (!cJSON_IsString(v)) {
        cJSON_Delete(v);
        return base_errf(err, BASE_EPROTO, "dom boxes: probe returned no JSON string");
    }
    e = perc_marks_parse_json(v->valuestring, strlen(v->valuestring), 0, 0, marks, n, err);
    cJSON_Delete(v);
    return e;
}
