/* base/json_get.c: see json_get.h. */
#include "base/json_get.h"

const char *base_json_str(const cJSON *o, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

size_t base_json_value_end(const char *t, size_t len, size_t i)
{
    int depth = 0, in_str = 0;
    for (; t && i < len; i++) {
        char ch = t[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = 0;
            continue;
        }
        if (ch == '"') {
            in_str = 1;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth == 0)
                return i + 1;
            if (depth < 0)
                return 0;
        }
    }
    return 0;
}
