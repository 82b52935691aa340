/* mcp/permit.c: what an MCP client may do beyond the registry's own guards:
 * secrets by name (--secrets FILE) and uploads only from --upload-dir.
 *
 * Secrets: a small JSON object of names to values. The values never leave
 * this file except into the session's secret set (which masks them in every
 * output) and into the field the model asked for; error messages name the
 * member, never a value.
 *
 * Uploads: a model (or a page it reads) may ask to upload ~/.ssh/id_rsa.
 * The only defence that holds against "..", symlinks and relative paths is
 * to resolve the path (realpath) and compare it, as a whole directory prefix,
 * with the resolved upload folder (base_path_in_dir, in base/ so the tool
 * layer can use the same rule); the resolved path is what gets uploaded, so a
 * symlink swapped in after the check points nowhere new.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "mcp/mcp.h"

#define SECRETS_MAX 64
#define SECRET_NAME_MAX 64

struct mcp_secrets {
    int n;
    char *name[SECRETS_MAX];
    char *value[SECRETS_MAX];
};

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > SECRET_NAME_MAX || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

base_err mcp_secrets_load(const char *path, mcp_secrets **out, char *err)
{
    uint8_t *text = NULL;
    size_t n = 0;
    base_err e = base_read_file(path, &text, &n, 1 << 20, err);
    if (e)
        return e;
    cJSON *j = cJSON_ParseWithLength((const char *)text, n);
    memset(text, 0, n);
    base_free(text);
    mcp_secrets *s = NULL;
    if (!cJSON_IsObject(j)) {
        e = base_errf(err, BASE_EPROTO, "%s: not a JSON object of names to values", path);
        goto fail;
    }
    if (!(s = base_calloc(1, sizeof *s))) {
        e = base_errf(err, BASE_ENOMEM, "out of memory");
        goto fail;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, j)
    {
        if (!name_ok(m->string)) {
            e = base_errf(err, BASE_EPROTO,
                          "%s: secret name '%.64s' must be letters, digits and _ (64 at most)",
                          path, m->string);
            goto fail;
        }
        if (!cJSON_IsString(m) || !m->valuestring[0]) {
            e = base_errf(err, BASE_EPROTO, "%s: secret '%s' must be a non-empty string", path,
                          m->string);
            goto fail;
        }
        if (s->n == SECRETS_MAX) {
            e = base_errf(err, BASE_EPROTO, "%s: more than %d secrets", path, SECRETS_MAX);
            goto fail;
        }
        s->name[s->n] = base_strdup(m->string);
        s->value[s->n] = base_strdup(m->valuestring);
        s->n++;
        if (!s->name[s->n - 1] || !s->value[s->n - 1]) {
            e = base_errf(err, BASE_ENOMEM, "out of memory");
            goto fail;
        }
    }
    /* The parsed copy holds the values too: wipe them before freeing. */
    cJSON_ArrayForEach(m, j) if (cJSON_IsString(m)) memset(m->valuestring, 0,
                                                            strlen(m->valuestring));
    cJSON_Delete(j);
    *out = s;
    return BASE_OK;
fail:
    if (cJSON_IsObject(j)) {
        cJSON_ArrayForEach(m, j) if (cJSON_IsString(m)) memset(m->valuestring, 0,
                                                                strlen(m->valuestring));
    }
    cJSON_Delete(j);
    mcp_secrets_destroy(s);
    return e;
}

void mcp_secrets_destroy(mcp_secrets *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        if (s->value[i])
            memset(s->value[i], 0, strlen(s->value[i]));
        base_free(s->value[i]);
        base_free(s->name[i]);
    }
    base_free(s);
}

int mcp_secrets_count(const mcp_secrets *s)
{
    return s ? s->n : 0;
}

const char *mcp_secrets_name(const mcp_secrets *s, int i)
{
    return s && i >= 0 && i < s->n ? s->name[i] : NULL;
}

const char *mcp_secrets_value(const mcp_secrets *s, const char *name)
{
    for (int i = 0; s && name && i < s->n; i++)
        if (strcmp(s->name[i], name) == 0)
            return s->value[i];
    return NULL;
}

int mcp_upload_allowed(const char *upload_dir, const char *path, char *real, size_t real_n,
                       char *why, size_t why_n)
{
    if (!upload_dir || !upload_dir[0]) {
        snprintf(why, why_n, "uploads are off: the server was started without --upload-dir");
        return -1;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_path_in_dir(upload_dir, path, real, real_n, err) != BASE_OK) {
        snprintf(why, why_n, "%s", err);
        return -1;
    }
    return 0;
}
