/* cascade/clipboard.c: what the page copied (a "copy" button, a share
 * link), read the way a person would paste it.
 *
 * The top document's origin gets clipboard permission from the browser
 * (Browser.grantPermissions: no prompt in headless), then the page half
 * reads navigator.clipboard.readText() in the hand's isolated world, so the
 * page's scripts cannot fake the answer. A document without focus may not
 * read the clipboard: focus is emulated for the page first.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "cascade/cascade_int.h"
#include "cascade/input.h"

/* "https://host:port" of url into buf ("" when it has none: about:, data:). */
static void origin_of(const char *url, char *buf, size_t n)
{
    buf[0] = '\0';
    const char *s = strstr(url, "://");
    if (!s || (strncmp(url, "http", 4) != 0))
        return;
    const char *end = strpbrk(s + 3, "/?#");
    size_t len = end ? (size_t)(end - url) : strlen(url);
    if (len >= n)
        return;
    memcpy(buf, url, len);
    buf[len] = '\0';
}

base_err cascade_clipboard_read(cascade_hand *h, char **text, char *err)
{
    if (text)
        *text = NULL;
    if (!h || !text)
        return base_errf(err, BASE_EINVAL, "cascade_clipboard_read: NULL hand or out");
    char url[1024], origin[512];
    cascade__top_url(h, url, sizeof url);
    origin_of(url, origin, sizeof origin);
    if (!origin[0])
        return base_errf(err, BASE_EINVAL,
                         "the clipboard is readable only from an http(s) page (this one is '%.100s')",
                         url);
    cJSON *pa = cJSON_CreateObject();
    cJSON *perms = cJSON_CreateArray();
    if (!pa || !perms) {
        cJSON_Delete(pa);
        cJSON_Delete(perms);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    /* Complete or not sent: a grant without its origin would apply to
     * every origin; one missing a permission does not allow the read. */
    static const char *const names[2] = {"clipboardReadWrite", "clipboardSanitizedWrite"};
    for (int i = 0; i < 2; i++) {
        cJSON *n = cJSON_CreateString(names[i]);
        if (!cJSON_AddItemToArray(perms, n))
            cJSON_Delete(n);
    }
    if (cJSON_GetArraySize(perms) != 2 || !cJSON_AddItemToObject(pa, "permissions", perms)) {
        cJSON_Delete(perms);
        perms = NULL;
    }
    if (!perms || !cJSON_AddStringToObject(pa, "origin", origin)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    base_err e = cdp_call(cdp_page_conn(h->page), NULL, "Browser.grantPermissions", pa, NULL, 10000,
                          err);
    if (e)
        return e;
    cJSON *fo = cJSON_CreateObject();
    if (!fo || !cJSON_AddBoolToObject(fo, "enabled", 1)) {
        cJSON_Delete(fo);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    /* Best effort: without it a read may fail with "Document is not focused". */
    (void)cdp_page_call(h->page, "Emulation.setFocusEmulationEnabled", fo, NULL, 10000, NULL);
    cJSON *v = NULL;
    e = cascade__call(h, "", "clipRead", NULL, 1, &v, 10000, err);
    if (e)
        return e;
    if (!cascade__bool(v, "ok")) {
        const char *why = cascade__str(v, "why");
        e = base_errf(err, BASE_EREMOTE, "the page could not read the clipboard: %.200s",
                      why ? why : "unknown reason");
        cJSON_Delete(v);
        return e;
    }
    const char *s = cascade__str(v, "text");
    size_t n = strlen(s ? s : "");
    *text = base_malloc(n + 1);
    if (!*text) {
        cJSON_Delete(v);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    memcpy(*text, s ? s : "", n + 1);
    cJSON_Delete(v);
    return BASE_OK;
}
