/* model/tokens.c: the token estimate (see tokens.h for the method). */
#include "model/tokens.h"

#include <string.h>

#include "base/base64.h"

size_t model_tokens_text(const char *s, size_t n)
{
    if (!s)
        return 0;
    size_t ascii = 0;
    size_t other = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80)
            ascii++;
        else if ((c & 0xC0) != 0x80) /* a lead byte: one code point */
            other++;
    }
    return (ascii + 3) / 4 + other;
}

size_t model_tokens_image(int w, int h)
{
    if (w <= 0 || h <= 0)
        return MODEL_TOKENS_IMAGE_DEFAULT;
    double fw = w;
    double fh = h;
    if (fw > 2048 || fh > 2048) {
        double k = 2048.0 / (fw > fh ? fw : fh);
        fw *= k;
        fh *= k;
    }
    double shortest = fw < fh ? fw : fh;
    if (shortest > 768) {
        double k = 768.0 / shortest;
        fw *= k;
        fh *= k;
    }
    size_t tw = (size_t)((fw + 511) / 512);
    size_t th = (size_t)((fh + 511) / 512);
    return 85 + 170 * tw * th;
}

static unsigned be16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

int model_tokens_data_url_size(const char *url, int *w, int *h)
{
    if (!url || strncmp(url, "data:image/", 11) != 0)
        return 0;
    const char *b = strstr(url, ";base64,");
    if (!b)
        return 0;
    b += 8;
    /* The PNG header (signature + IHDR) fits in 24 bytes = 32 base64
     * characters; a JPEG's SOF marker can sit further in (after EXIF), so
     * up to 16 KiB of the payload is decoded for it. */
    size_t avail = strnlen(b, 21844);
    size_t take = avail - avail % 4;
    if (take < 32)
        return 0;
    unsigned char buf[16384];
    size_t n = 0;
    if (base64_decode(b, take, buf, &n, NULL) != BASE_OK)
        return 0;
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 24 && memcmp(buf, png, 8) == 0 && memcmp(buf + 12, "IHDR", 4) == 0) {
        unsigned long pw = (unsigned long)buf[16] << 24 | (unsigned long)buf[17] << 16 |
                           (unsigned long)buf[18] << 8 | buf[19];
        unsigned long ph = (unsigned long)buf[20] << 24 | (unsigned long)buf[21] << 16 |
                           (unsigned long)buf[22] << 8 | buf[23];
        if (pw == 0 || ph == 0 || pw > 1000000 || ph > 1000000)
            return 0;
        *w = (int)pw;
        *h = (int)ph;
        return 1;
    }
    if (n >= 4 && buf[0] == 0xFF && buf[1] == 0xD8) {
        size_t i = 2;
        while (i + 9 < n) {
            if (buf[i] != 0xFF)
                return 0;
            unsigned m = buf[i + 1];
            unsigned len = be16(buf + i + 2);
            if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
                unsigned jh = be16(buf + i + 5);
                unsigned jw = be16(buf + i + 7);
                if (!jw || !jh)
                    return 0;
                *w = (int)jw;
                *h = (int)jh;
                return 1;
            }
            if (len < 2)
                return 0;
            i += 2 + len;
        }
    }
    return 0;
}

static size_t str_tokens(const cJSON *j)
{
    return cJSON_IsString(j) && j->valuestring
               ? model_tokens_text(j->valuestring, strlen(j->valuestring))
               : 0;
}

static size_t part_tokens(const cJSON *p)
{
    if (cJSON_IsString(p))
        return str_tokens(p);
    if (!cJSON_IsObject(p))
        return 0;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(p, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "image_url") == 0) {
        const cJSON *iu = cJSON_GetObjectItemCaseSensitive(p, "image_url");
        const cJSON *url = cJSON_GetObjectItemCaseSensitive(iu, "url");
        const cJSON *detail = cJSON_GetObjectItemCaseSensitive(iu, "detail");
        if (cJSON_IsString(detail) && strcmp(detail->valuestring, "low") == 0)
            return 85;
        int w = 0;
        int h = 0;
        if (cJSON_IsString(url))
            model_tokens_data_url_size(url->valuestring, &w, &h);
        return model_tokens_image(w, h);
    }
    return str_tokens(cJSON_GetObjectItemCaseSensitive(p, "text"));
}

size_t model_tokens_message(const cJSON *msg)
{
    if (!cJSON_IsObject(msg))
        return 0;
    size_t t = 4;
    for (const cJSON *f = msg->child; f; f = f->next) {
        if (!f->string)
            continue;
        if (strcmp(f->string, "content") == 0) {
            if (cJSON_IsArray(f)) {
                for (const cJSON *p = f->child; p; p = p->next)
                    t += part_tokens(p);
            } else {
                t += str_tokens(f);
            }
        } else if (strcmp(f->string, "tool_calls") == 0 && cJSON_IsArray(f)) {
            for (const cJSON *c = f->child; c; c = c->next) {
                const cJSON *fn = cJSON_GetObjectItemCaseSensitive(c, "function");
                t += 8 + str_tokens(cJSON_GetObjectItemCaseSensitive(fn, "name")) +
                     str_tokens(cJSON_GetObjectItemCaseSensitive(fn, "arguments")) +
                     str_tokens(cJSON_GetObjectItemCaseSensitive(c, "id"));
            }
        } else if (f->string[0] != '_') { /* role, tool_call_id, name, reasoning... */
            t += str_tokens(f);
        }
    }
    return t;
}

size_t model_tokens_messages(const cJSON *msgs)
{
    size_t t = 0;
    if (cJSON_IsArray(msgs))
        for (const cJSON *m = msgs->child; m; m = m->next)
            t += model_tokens_message(m);
    return t;
}
