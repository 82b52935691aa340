/* agent/session/reveal.c: scrolls a scroll box to the control a step names when no
 * vision box carries its label (issue 10 item 9): the dom provider and the
 * vision model only box what is visible, so an item scrolled out inside a
 * list box has no box until the list is scrolled, as a person would. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/agent_int.h"
#include "agent/session/js.h"
#include "base/alloc.h"

int agent__reveal(cdp_page *page, const char *label)
{
    if (!page || !label || !label[0])
        return 0;
    cJSON *s = cJSON_CreateString(label);
    char *arg = s ? cJSON_PrintUnformatted(s) : NULL;
    cJSON_Delete(s);
    if (!arg)
        return 0;
    const char *js = (const char *)fovea_js_agent_reveal;
    size_t n = strlen(js) + strlen(arg) + 8;
    char *expr = base_malloc(n);
    int done = 0;
    if (expr) {
        snprintf(expr, n, "(%s)(%s)", js, arg);
        cJSON *v = NULL;
        if (cdp_page_evaluate_in(page, NULL, CDP_CTX_FOVEA, expr, &v, 3000, NULL) == BASE_OK && cJSON_IsTrue(v))
            done = 1;
        cJSON_Delete(v);
    }
    base_free(expr);
    cJSON_free(arg);
    return done;
}
