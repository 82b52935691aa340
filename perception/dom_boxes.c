/* perception/dom_boxes.c: the `dom` vision provider's boxes as marks, so
 * `fovea overlay --url` shows exactly what the engine would mark on that page
 * (top document, open shadow roots, same- and cross-origin iframes). */
#include "perception/dom_boxes.h"

#include <string.h>

#include "base/alloc.h"
#include "perception/vision.h"

base_err perc_dom_boxes(cdp_page *page, img_mark **marks, int *n, char *err)
{
    perc_vision *v = NULL;
    base_err e = perc_vision_dom_create(&v, err);
    if (e)
        return e;
    img_image none;
    memset(&none, 0, sizeof none);
    perc_detection d;
    memset(&d, 0, sizeof d);
    e = perc_vision_detect(v, page, &none, NULL, &d, err);
    perc_vision_destroy(v);
    if (e)
        return e;
    img_mark *list = d.n > 0 ? base_calloc((size_t)d.n, sizeof *list) : NULL;
    if (d.n > 0 && !list) {
        perc_detection_fini(&d);
        return base_errf(err, BASE_ENOMEM, "dom boxes: out of memory for %d marks", d.n);
    }
    for (int i = 0; i < d.n; i++) {
        list[i].r = d.boxes[i].r;
        list[i].id = d.boxes[i].id > 0 ? d.boxes[i].id : i + 1;
        list[i].label = base_strdup(d.boxes[i].label);
        if (!list[i].label) {
            img_marks_free(list, i);
            perc_detection_fini(&d);
            return base_errf(err, BASE_ENOMEM, "dom boxes: out of memory");
        }
    }
    *marks = list;
    *n = d.n;
    perc_detection_fini(&d);
    return BASE_OK;
}
