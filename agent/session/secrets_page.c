/* agent/session/secrets_page.c: where the page shows the run's secrets.
 *
 * The trace and the report hold strings, which agent_secrets_scrub masks;
 * the overlays hold screenshots, where a secret the page echoes (a query
 * string, a "card: 4111 ..." line, a field's value) is pixels. This asks the
 * page (assets/js/agent_secret_rects.js) for the rects of every text node
 * and field value that shows a secret, for the overlay to paint over.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/agent_int.h"
#include "agent/session/js.h"
#include "base/alloc.h"
#include "cdp/frames.h"

base_err agent__add_url_password(agent_secrets *sec, const char *url, char *err)
{
    const char *p = url ? strstr(url, "://") : NULL;
    if (!p)
        return BASE_OK;
    p += 3;
    size_t n = strcspn(p, "/?#");
    const char *at = memchr(p, '@', n);
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (!colon || colon + 1 >= at)
        return BASE_OK;
    size_t len = (size_t)(at - colon - 1);
    char *pw = base_malloc(len + 1), *dec = base_malloc(len + 1);
    base_err e = BASE_ENOMEM;
    if (pw && dec) {
        memcpy(pw, colon + 1, len);
        pw[len] = '\0';
        size_t k = 0;
        for (size_t i = 0; i < len; i++) {
            if (pw[i] == '%' && i + 2 < len && isxdigit((unsigned char)pw[i + 1]) &&
                isxdigit((unsigned char)pw[i + 2])) {
                char hx[3] = {pw[i + 1], pw[i + 2], '\0'};
                dec[k++] = (char)strtol(hx, NULL, 16);
                i += 2;
            } else {
                dec[k++] = pw[i];
            }
        }
        dec[k] = '\0';
        e = agent_secrets_add(sec, pw);
        if (!e)
            e = agent_secrets_add(sec, dec);
    }
    if (pw)
        memset(pw, 0, len);
    if (dec)
        memset(dec, 0, len);
    base_free(pw);
    base_free(dec);
    if (e)
        return base_errf(err, e, "cannot hold the endpoint URL's password for masking: %s",
                         base_strerror(e));
    return BASE_OK;
}

/* A fresh isolated world in the page's main frame: the page's own scripts
 * share its DOM but not its globals, so a page that patches
 * String.prototype or Array.prototype never sees what is searched for.
 * 0 on failure. */
static int isolated_world(cdp_page *page)
{
    cdp_frame main;
    int ctx = 0;
    if (!cdp_frame_find(page, NULL, &main) ||
        cdp_frame_isolated_world(page, NULL, main.id, "fovea_secret_rects", 3000, &ctx, NULL))
        return 0;
    return ctx;
}

/* Viewport rects (CSS px) where the page shows a secret as text or as a
 * field's value (assets/js/agent_secret_rects.js); up to max. The search
 * runs in an isolated world, never the page's main world (the secrets are
 * in the expression). -1 when it could not run: the caller must not show
 * the screenshot unmasked. */
int agent__secret_rects(cdp_page *page, const agent_secrets *sec, base_rect *out, int max)
{
    char *forms = agent_secrets_json(sec);
    if (!forms)
        return agent_secrets_count(sec) > 0 ? -1 : 0;
    int ctx = isolated_world(page);
    if (ctx <= 0) {
        memset(forms, 0, strlen(forms));
        base_free(forms);
        return -1;
    }
    const char *js = (const char *)fovea_js_agent_secret_rects;
    size_t n = strlen(js) + strlen(forms) + 8;
    char *expr = base_malloc(n);
    int k = -1;
    cJSON *v = NULL;
    if (expr) {
        snprintf(expr, n, "(%s)(%s)", js, forms);
        if (cdp_page_evaluate_in(page, NULL, ctx, expr, &v, 3000, NULL) == BASE_OK &&
            cJSON_IsArray(v)) {
            k = 0;
            const cJSON *q;
            cJSON_ArrayForEach(q, v)
            {
                if (k >= max || !cJSON_IsArray(q) || cJSON_GetArraySize(q) != 4)
                    continue;
                double c[4];
                for (int i = 0; i < 4; i++) {
                    const cJSON *x = cJSON_GetArrayItem(q, i);
                    c[i] = cJSON_IsNumber(x) && isfinite(x->valuedouble) ? x->valuedouble : 0;
                    c[i] = c[i] < -1e5 ? -1e5 : c[i] > 1e5 ? 1e5 : c[i];
                }
                /* A little margin: glyphs overhang their text box. */
                out[k++] =
                    (base_rect){(float)c[0] - 2, (float)c[1] - 2, (float)c[2] + 2, (float)c[3] + 2};
            }
        }
    }
    cJSON_Delete(v);
    /* The expression held the secrets: wipe it before freeing. */
    if (expr)
        memset(expr, 0, n);
    memset(forms, 0, strlen(forms));
    base_free(expr);
    base_free(forms);
    return k;
}
