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
 *
 * Several runs may share one file (parallel jobs, one learnings file per
 * team). Each store therefore remembers what it changed since it last
 * wrote (the delta) and every write is a read-merge-write under an
 * exclusive flock on "<file>.lock": re-read the file as it is now, add this
 * store's counts to it, write it, adopt the merged result. Counts from all
 * writers add up exactly; a flag set by one run stays set. The file is
 * written where a symlink points (the link stays a link) and keeps its
 * permission bits.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json_alloc.h"
#include "base/log.h"
#include "cascade/cascade.h"

#define MAX_FILE_BYTES (4u << 20)
#define MAX_DOMAIN 253

struct cascade_learnings {
    char *path;   /* the file written: symlinks resolved */
    cJSON *root;  /* {"version":1,"domains":{...}} as last read or written, plus delta */
    cJSON *delta; /* changes since the last write: {domain: {"wins":[..], "fails":n, "bot":b}} */
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

/* Reads and checks the file at path; a missing or 0-byte file is an empty
 * store.
 * *out is a new root. */
static base_err read_root(const char *path, cJSON **out, char *err)
{
    uint8_t *text = NULL;
    size_t len = 0;
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = base_read_file(path, &text, &len, MAX_FILE_BYTES, why);
    if (e == BASE_OK && len == 0) {
        /* An empty file (made with `touch` to share a path between runs
         * before the first write) is an empty store too. */
        base_free(text);
        text = NULL;
        e = BASE_ENOTFOUND;
    }
    if (e == BASE_ENOTFOUND) { /* a missing file is an empty store */
        cJSON *r = new_root();
        if (!r)
            return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
        *out = r;
        return BASE_OK;
    }
    if (e)
        return base_errf(err, e, "learnings: cannot read %s (%s)", path, why);
    cJSON *root = cJSON_ParseWithLength((const char *)text, len);
    if (!root && base_json_parse_error((const char *)text, len, NULL) == BASE_ENOMEM) {
        /* Valid text the parser had no memory for: not a corrupt file. */
        base_free(text);
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory reading %s", path);
    }
    base_free(text);
    if (!root || !valid_root(root)) {
        cJSON_Delete(root);
        return base_errf(err, BASE_EDECODE, "learnings: %s is not a learnings JSON file", path);
    }
    *out = root;
    return BASE_OK;
}

base_err cascade_learnings_open(const char *path, cascade_learnings **out, char *err)
{
    if (!path || !path[0] || !out)
        return base_errf(err, BASE_EINVAL, "learnings: NULL or empty path");
    char *target = NULL;
    base_err e = base_path_resolve(path, &target, err);
    if (e)
        return e;
    cJSON *root = NULL;
    e = read_root(target, &root, err);
    if (e) {
        base_free(target);
        return e;
    }
    cascade_learnings *l = base_calloc(1, sizeof *l);
    cJSON *delta = cJSON_CreateObject();
    if (!l || !delta) {
        cJSON_Delete(root);
        cJSON_Delete(delta);
        base_free(l);
        base_free(target);
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    }
    l->path = target;
    l->root = root;
    l->delta = delta;
    *out = l;
    return BASE_OK;
}

void cascade_learnings_close(cascade_learnings *l)
{
    if (!l)
        return;
    cJSON_Delete(l->root);
    cJSON_Delete(l->delta);
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

/* The domain's entry in root, created with zero counts when missing. */
static cJSON *entry_in(cJSON *root, const char *domain)
{
    cJSON *doms = cJSON_GetObjectItemCaseSensitive(root, "domains");
    cJSON *e = cJSON_GetObjectItemCaseSensitive(doms, domain);
    if (e)
        return e;
    e = cJSON_AddObjectToObject(doms, domain);
    if (!e)
        return NULL;
    const double zero[3] = {0, 0, 0};
    cJSON *w = cJSON_CreateDoubleArray(zero, 3);
    int linked = w && cJSON_AddItemToObject(e, "wins", w);
    if (!linked || !cJSON_AddNumberToObject(e, "fails", 0) ||
        !cJSON_AddBoolToObject(e, "bot_protected", 0)) {
        if (!linked) /* once linked, w goes with e */
            cJSON_Delete(w);
        cJSON_DeleteItemFromObjectCaseSensitive(doms, domain);
        return NULL;
    }
    return e;
}

static cJSON *entry_mut(cascade_learnings *l, const char *domain)
{
    return entry_in(l->root, domain);
}

/* The domain's entry in the delta ({"wins":[0,0,0],"fails":0}). */
static cJSON *delta_entry(cascade_learnings *l, const char *domain)
{
    cJSON *e = cJSON_GetObjectItemCaseSensitive(l->delta, domain);
    if (e)
        return e;
    e = cJSON_AddObjectToObject(l->delta, domain);
    if (!e)
        return NULL;
    const double zero[3] = {0, 0, 0};
    cJSON *w = cJSON_CreateDoubleArray(zero, 3);
    int linked = w && cJSON_AddItemToObject(e, "wins", w);
    if (!linked || !cJSON_AddNumberToObject(e, "fails", 0)) {
        if (!linked) /* once linked, w goes with e */
            cJSON_Delete(w);
        cJSON_DeleteItemFromObjectCaseSensitive(l->delta, domain);
        return NULL;
    }
    return e;
}

/* Adds 1 to wins[tier-1] (tier 1..3) or to fails (tier 0) of entry e. */
static void bump(cJSON *e, int tier)
{
    if (tier == 0) {
        cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "fails");
        if (cJSON_IsNumber(f))
            cJSON_SetNumberValue(f, f->valuedouble + 1);
    } else {
        cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "wins"), tier - 1);
        if (cJSON_IsNumber(v))
            cJSON_SetNumberValue(v, v->valuedouble + 1);
    }
}

/* Sets member k of o to item, replacing any member of that name; 1 on
 * success (o owns item), 0 on ENOMEM (item still the caller's). Not
 * cJSON_ReplaceItemInObject: cJSON 1.7.15 does not check its copy of the
 * key, so under memory pressure it links the item with a NULL key (printed
 * as ""), and the file loses the member without a word. */
static int set_member(cJSON *o, const char *k, cJSON *item)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!old)
        return cJSON_AddItemToObject(o, k, item);
    char *key = base_strdup(k);
    if (!key)
        return 0;
    if (item->string && !(item->type & cJSON_StringIsConst))
        cJSON_free(item->string);
    item->string = key;
    item->type &= ~cJSON_StringIsConst;
    return cJSON_ReplaceItemViaPointer(o, old, item);
}

/* Sets o.k to the number v; 0 on ENOMEM (o unchanged). */
static int set_num(cJSON *o, const char *k, double v)
{
    cJSON *n = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(n)) {
        cJSON_SetNumberValue(n, v);
        return 1;
    }
    cJSON *x = cJSON_CreateNumber(v);
    int ok = x && set_member(o, k, x);
    if (!ok)
        cJSON_Delete(x);
    return ok;
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
    cJSON *d = delta_entry(l, domain);
    if (!e || !d)
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    if (tier == 0 && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "fails")) &&
        !set_num(e, "fails", 0)) /* a file we read may lack it */
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    bump(e, tier);
    bump(d, tier);
    return cascade_learnings_save(l, err);
}

base_err cascade_learnings_set_bot_protected(cascade_learnings *l, const char *domain, int on,
                                             char *err)
{
    if (!l || !domain_ok(domain))
        return base_errf(err, BASE_EINVAL, "learnings: bad domain");
    cJSON *e = entry_mut(l, domain);
    cJSON *d = delta_entry(l, domain);
    if (!e || !d)
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    cJSON *b = cJSON_CreateBool(on != 0);
    cJSON *db = cJSON_CreateBool(on != 0);
    /* Both items exist before either store changes. Setting copies the
     * key, so each step may still fail: the delta goes first, because the
     * next save rebuilds the view from the file plus the delta. */
    int ok = b && db;
    if (ok) {
        ok = set_member(d, "bot", db);
        if (ok)
            db = NULL;
    }
    if (ok) {
        ok = set_member(e, "bot_protected", b);
        if (ok)
            b = NULL;
    }
    if (!ok) {
        cJSON_Delete(b);
        cJSON_Delete(db);
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    }
    return cascade_learnings_save(l, err);
}

/* Adds the delta's counts and flags to root (the file as it is now). */
static base_err merge_delta(cJSON *root, const cJSON *delta)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, delta)
    {
        cJSON *e = entry_in(root, d->string);
        if (!e)
            return BASE_ENOMEM;
        cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "wins");
        if (!w) {
            const double zero[3] = {0, 0, 0};
            w = cJSON_CreateDoubleArray(zero, 3);
            if (!w || !cJSON_AddItemToObject(e, "wins", w)) {
                cJSON_Delete(w);
                return BASE_ENOMEM;
            }
        }
        const cJSON *dw = cJSON_GetObjectItemCaseSensitive(d, "wins");
        for (int t = 0; t < 3; t++) {
            cJSON *v = cJSON_GetArrayItem(w, t);
            const cJSON *add = cJSON_GetArrayItem(dw, t);
            if (cJSON_IsNumber(v) && cJSON_IsNumber(add))
                cJSON_SetNumberValue(v, v->valuedouble + add->valuedouble);
        }
        const cJSON *df = cJSON_GetObjectItemCaseSensitive(d, "fails");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "fails");
        if (!set_num(e, "fails", (cJSON_IsNumber(f) ? f->valuedouble : 0) +
                                     (cJSON_IsNumber(df) ? df->valuedouble : 0)))
            return BASE_ENOMEM;
        const cJSON *bot = cJSON_GetObjectItemCaseSensitive(d, "bot");
        if (bot) {
            cJSON *b = cJSON_CreateBool(cJSON_IsTrue(bot));
            if (!b || !set_member(e, "bot_protected", b)) {
                cJSON_Delete(b);
                return BASE_ENOMEM;
            }
        }
    }
    return BASE_OK;
}

base_err cascade_learnings_save(cascade_learnings *l, char *err)
{
    if (!l)
        return base_errf(err, BASE_EINVAL, "learnings: NULL store");
    /* The lock file sits beside the data file and is never removed:
     * removing it would let a late locker hold a lock on an unlinked
     * inode while a new one locks a fresh file. */
    size_t plen = strlen(l->path);
    char *lock = base_malloc(plen + 6);
    if (!lock)
        return base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    memcpy(lock, l->path, plen);
    memcpy(lock + plen, ".lock", 6);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        base_err e = base_errf(err, BASE_EIO, "learnings: cannot create the lock %s: %s", lock,
                               strerror(errno));
        base_free(lock);
        return e;
    }
    base_free(lock);
    int rc;
    do {
        rc = flock(fd, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        base_err e = base_errf(err, BASE_EIO, "learnings: cannot lock %s: %s", l->path,
                               strerror(errno));
        close(fd);
        return e;
    }
    /* Under the lock: the file as the other writers left it, plus ours. */
    cJSON *now = NULL;
    base_err e = read_root(l->path, &now, err);
    if (!e && merge_delta(now, l->delta) != BASE_OK)
        e = base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    char *text = e ? NULL : cJSON_Print(now);
    if (!e && !text)
        e = base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    /* The new delta exists before the write: once the file holds the delta,
     * failing to reset it would count it again at the next save. */
    cJSON *fresh = e ? NULL : cJSON_CreateObject();
    if (!e && !fresh)
        e = base_errf(err, BASE_ENOMEM, "learnings: out of memory");
    if (!e)
        e = base_write_file_keep(l->path, (const uint8_t *)text, strlen(text), err);
    cJSON_free(text);
    if (e)
        cJSON_Delete(fresh);
    if (!e) {
        /* Written: adopt the merged view and start a new delta. */
        cJSON_Delete(l->root);
        l->root = now;
        now = NULL;
        cJSON_Delete(l->delta);
        l->delta = fresh;
    }
    cJSON_Delete(now);
    flock(fd, LOCK_UN);
    close(fd);
    return e;
}
