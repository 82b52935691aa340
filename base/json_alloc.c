/* base/json_alloc.c: installs base_malloc/base_free as cJSON's allocator.
 *
 * With custom hooks cJSON stops using realloc when printing (it allocates a
 * new buffer and copies), which costs a copy per print; the JSON fovea prints
 * is small (CDP params, trace lines), and every allocation being injectable
 * is worth more than that copy.
 */
#include "base/json_alloc.h"

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/json_check.h"

void base_json_alloc_install(void)
{
    cJSON_Hooks hooks = {base_malloc, base_free};
    cJSON_InitHooks(&hooks);
}

base_err base_json_parse_error(const char *s, size_t n, char *err)
{
    if (!s)
        return base_errf(err, BASE_EPROTO, "invalid JSON: no text");
    /* The strict checker allocates nothing, so it answers even when memory
     * is what failed; it is stricter than cJSON (UTF-8, NUL), which only
     * makes a text cJSON refused look more invalid, never valid. */
    base_err e = base_json_check(s, n, CJSON_NESTING_LIMIT, err);
    if (e)
        return e;
    return base_errf(err, BASE_ENOMEM, "out of memory parsing JSON");
}

int base_json_add(cJSON *obj, const char *k, cJSON *item)
{
    if (obj && item && cJSON_AddItemToObject(obj, k, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

int base_json_push(cJSON *arr, cJSON *item)
{
    if (arr && item && cJSON_AddItemToArray(arr, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

int base_json_replace(cJSON *obj, const char *k, cJSON *item)
{
    if (obj && item && cJSON_ReplaceItemInObjectCaseSensitive(obj, k, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}
