/* perception/vision_named.c: vision providers by name.
 *
 * One place maps the names a user types (`--vision dom|openai|pixel`) to
 * providers, so `fovea run`, `fovea overlay` and any later command accept the
 * same set with the same error for an unknown name.
 */
#include <string.h>

#include "base/alloc.h"
#include "perception/pixel.h"

base_err perc_vision_create_named(const char *name, perc_vision **out, char *err)
{
    if (!name || !out)
        return base_errf(err, BASE_EINVAL, "vision: NULL provider name");
    if (strcmp(name, "dom") == 0)
        return perc_vision_dom_create(out, err);
    /* pixel: labels read from the screenshot alone (pixel-ocr is its old
     * name). pixel-dom: the opt-in variant whose boxes take the accessible
     * name of the element they lie on. */
    if (strcmp(name, "pixel") == 0 || strcmp(name, "pixel-ocr") == 0)
        return perc_vision_pixel_create(NULL, out, err);
    if (strcmp(name, "pixel-dom") == 0) {
        perc_pixel_config c;
        perc_pixel_config_init(&c);
        c.dom_names = 1;
        return perc_vision_pixel_create(&c, out, err);
    }
    if (strcmp(name, "openai") == 0) {
        perc_openai_config c;
        perc_openai_config_init(&c);
        base_err e = perc_openai_config_from_env(&c, err);
        if (e)
            return e;
        return perc_vision_openai_create(&c, out, err);
    }
    return base_errf(err, BASE_EINVAL, "unknown vision provider '%.40s' (" PERC_VISION_NAMES ")",
                     name);
}

int perc_vision_name_known(const char *name)
{
    static const char *const names[] = {"dom", "openai", "pixel", "pixel-dom", "pixel-ocr"};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

base_err perc_detection_marks(const perc_detection *d, img_mark **marks, int *n, char *err)
{
    if (!d || !marks || !n)
        return base_errf(err, BASE_EINVAL, "vision: NULL detection or output");
    img_mark *list = d->n > 0 ? base_calloc((size_t)d->n, sizeof *list) : NULL;
    if (d->n > 0 && !list)
        return base_errf(err, BASE_ENOMEM, "vision: out of memory for %d marks", d->n);
    for (int i = 0; i < d->n; i++) {
        list[i].r = d->boxes[i].r;
        list[i].id = d->boxes[i].id > 0 ? d->boxes[i].id : i + 1;
        /* A text guess (pixel's kind "text": a line of words, no control
         * seen) is drawn dashed, so it is not taken for one. */
        list[i].style = strcmp(d->boxes[i].kind, "text") == 0 ? IMG_MARK_DASHED : IMG_MARK_SOLID;
        list[i].label = base_strdup(d->boxes[i].label);
        if (!list[i].label) {
            img_marks_free(list, i);
            return base_errf(err, BASE_ENOMEM, "vision: out of memory");
        }
    }
    *marks = list;
    *n = d->n;
    return BASE_OK;
}
