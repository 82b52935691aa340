/* cascade/learn.c: per-domain learnings of the click cascade (seed 002 §6.3).
 *
 * After every click the cascade records which tier worked on the domain
 * (Algorithm 5, line 34) so that later clicks there start at the tier that
 * works; a domain can also be marked bot-protected, which switches off the
 * untrusted tier 3 there. The store is a small JSON document kept in memory
 * (cJSON) and rewritten on every change the crash-safe way: write a
 * temporary file in the same directory, fsync it, rename it over the old
 * file, fsync the directory. rename is atomic on POSIX file systems, so a
 * reader (or the next run after a crash) sees the old or the new file, never
 * a mix; a crash before the rename only leaves a stray temporary file.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/log.h"
#include "cascade/cascade.h"

#define MAX_FILE_BYTES (4u << 20)
#define MAX_DOMAIN 253

struct cascade_learnings {
    char *path;
    cJSON *root; /* {"version":1,"domains":{...}} */
};

static cJSON *new_root(void)
{
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return NULL;
    if (!cJSON_AddNumberToObject(r, "version", 1) || !cJSON_AddObjectToObject(r, "domains")) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

/* Checks the shape we rely on; anything else is a file we did not write. */
static int valid_root(const cJSON *r)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(r, "domains");
    if (!cJSON_IsObject(r) || !cJSON_IsObject(d))
        return 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, d)
    {
        if (!cJSON_IsObject(e))
            return 0;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "wins");
        if (w && (!cJSON_IsArray(w) || cJSON_GetArraySize(w) != 3))
            return 0;
    }
    return 1;
}

base_err cascade_learnings_open(const char *path, cascade_learnings **out, char *err)
{
    if (!path || !path[0] || !out)
        return base_errf(err, BASE_EINVAL, "learnings: NULL or empty path");
    uint8_t *text = NULL;
    size_t len = 0;
    base_err e = base_read_file(path, &text, &len, MAX_FILE_BYTES, err);
    if (e == BASE_ENOTFOUND) /* a missing file is an empty store */
        e = BASE_OK;
    if (e)
        return e;
    cJSON *root = NULL;
    if (text) {
        root = cJSON_ParseWithLength((const char *)text, len);
        base_free(text);
        if (!root || !valid_root(root)) {
            cJSON_Delete(root);
            return base_errf(err, BASE_EDECODE, "learnings: %s is not a learnings JSON file",
                             path);
        }
    } else {
        root = new_root();
    }
    cascade_learnings *l = base_calloc(1, sizeof *l);
    char *p = base_strdup(path);
    if (!root || !l || !p) {
        cJSON_Delete(root);
        base_free(l);
        base_free(p);
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    }
    l->path = p;
    l->root = root;
    *out = l;
    return BASE_OK;
}

void cascade_learnings_close(cascade_learnings *l)
{
    if (!l)
        return;
    cJSON_Delete(l->root);
    base_free(l->path);
    base_free(l);
}

static int domain_ok(const char *d)
{
    return d && d[0] && strlen(d) <= MAX_DOMAIN;
}

static const cJSON *entry(const cascade_learnings *l, const char *domain)
{
    if (!l || !domain_ok(domain))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(l->root, "domains"), domain);
}

/* The domain's entry, created with zero counts when missing. */
static cJSON *entry_mut(cascade_learnings *l, const char *domain)
{
    cJSON *doms = cJSON_GetObjectItemCaseSensitive(l->root, "domains");
    cJSON *e = cJSON_GetObjectItemCaseSensitive(doms, domain);
    if (e)
        return e;
    e = cJSON_AddObjectToObject(doms, domain);
    if (!e)
        return NULL;
    const double zero[3] = {0, 0, 0};
    cJSON *w = cJSON_CreateDoubleArray(zero, 3);
    if (!w || !cJSON_AddItemToObject(e, "wins", w) || !cJSON_AddNumberToObject(e, "fails", 0) ||
        !cJSON_AddBoolToObject(e, "bot_protected", 0)) {
        cJSON_Delete(w);
        cJSON_DeleteItemFromObjectCaseSensitive(doms, domain);
        return NULL;
    }
    return e;
}

static void set_num(cJSON *o, const char *k, double v)
{
    cJSON *n = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(n))
        cJSON_SetNumberValue(n, v);
    else
        cJSON_ReplaceItemInObjectCaseSensitive(o, k, cJSON_CreateNumber(v));
}

int cascade_learnings_best_tier(const cascade_learnings *l, const char *domain)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(entry(l, domain), "wins");
    int best = 0;
    double most = 0;
    for (int t = 0; t < 3; t++) {
        const cJSON *v = cJSON_GetArrayItem(w, t);
        double n = cJSON_IsNumber(v) ? v->valuedouble : 0;
        if (n > most) {
            most = n;
            best = t + 1;
        }
    }
    return best;
}

int cascade_learnings_bot_protected(const cascade_learnings *l, const char *domain)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(entry(l, domain), "bot_protected"));
}

base_err cascade_learnings_record(cascade_learnings *l, const char *domain, int tier, char *err)
{
    if (!l || !domain_ok(domain) || tier < 0 || tier > 3)
        return base_errf(err, BASE_EINVAL, "learnings: bad domain or tier %d", tier);
    cJSON *e = entry_mut(l, domain);
    if (!e)
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    if (tier == 0) {
        set_num(e, "fails", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "fails")) + 1);
    } else {
        cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "wins"), tier - 1);
        if (cJSON_IsNumber(v))
            cJSON_SetNumberValue(v, v->valuedouble + 1);
    }
    return cascade_learnings_save(l, err);
}

base_err cascade_learnings_set_bot_protected(cascade_learnings *l, const char *domain, int on,
                                             char *err)
{
    if (!l || !domain_ok(domain))
        return base_errf(err, BASE_EINVAL, "learnings: bad domain");
    cJSON *e = entry_mut(l, domain);
    if (!e)
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    cJSON *b = cJSON_CreateBool(on != 0);
    if (!b || !cJSON_ReplaceItemInObjectCaseSensitive(e, "bot_protected", b)) {
        cJSON_Delete(b);
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    }
    return cascade_learnings_save(l, err);
}

base_err cascade_learnings_save(cascade_learnings *l, char *err)
{
    if (!l)
        return base_errf(err, BASE_EINVAL, "learnings: NULL store");
    char *text = cJSON_Print(l->root);
    if (!text)
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    base_err e = base_write_file(l->path, (const uint8_t *)text, strlen(text), err);
    cJSON_free(text);
    return e;
}
