/* perception/vision_named.c: choosing a vision provider by its name. */
#include <string.h>

#include "perception/vision.h"

base_err perc_vision_create_named(const char *name, perc_vision **out, char *err)
{
    *out = NULL;
    if (!name || strcmp(name, "dom") == 0)
        return perc_vision_dom_create(out, err);
    if (strcmp(name, "openai") == 0) {
        perc_openai_config c;
        perc_openai_config_init(&c);
        base_err e = perc_openai_config_from_env(&c, err);
        return e ? e : perc_vision_openai_create(&c, out, err);
    }
    return base_errf(err, BASE_EINVAL, "unknown vision provider '%.40s' (dom or openai)", name);
}
