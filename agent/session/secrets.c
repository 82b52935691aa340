/* agent/session/secrets.c: one masking facility for every secret a run knows.
 *
 * Rather than generating every encoded variant of a secret (percent-encoding
 * has many spellings: which bytes are escaped, hex case, '+' or %20), the
 * matcher decodes while it compares: each byte of the secret may appear as
 * itself, as %XX of itself, or (for a space) as '+'. Number-like secrets
 * also match their digits with separators in between, which covers the
 * ways sites group card numbers and codes. Case variants are stored as
 * extra entries because a field that upper-cases is common and cheap to
 * cover. At each position the longest match wins, so a secret that
 * contains another is masked whole.
 */
#include "agent/session/secrets.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/text.h"

/* Forms held (three per secret: as given, upper- and lower-cased); the
 * list grows as needed up to this, far beyond what a task types. */
#define SECRETS_MAX 6144
/* A longer secret (a pasted key file) is refused, never held in part. */
#define SECRET_LEN_MAX 65536
#define NUMBER_MIN_DIGITS 6
/* A cut string may end inside a secret ("... as Hunter2&Z"): a prefix of at
 * least this many bytes of a secret right before the end of the string or
 * a cut or quote mark is masked too. */
#define PARTIAL_MIN 4

typedef struct secret {
    char *value;
    char *digits; /* number-like secrets: the digits alone; else NULL */
} secret;

struct agent_secrets {
    pthread_mutex_t *mu; /* a pointer so that scrub can lock through a const set */
    secret *items; /* n of them, room for cap */
    int n, cap;
};

static const char MASK[] = "********";

base_err agent_secrets_create(agent_secrets **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "agent_secrets_create: NULL out");
    agent_secrets *s = base_calloc(1, sizeof *s);
    pthread_mutex_t *mu = base_malloc(sizeof *mu);
    if (!s || !mu) {
        base_free(s);
        base_free(mu);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    pthread_mutex_init(mu, NULL);
    s->mu = mu;
    *out = s;
    return BASE_OK;
}

void agent_secrets_destroy(agent_secrets *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        /* Wipe before freeing: the heap may be dumped or reused. */
        memset(s->items[i].value, 0, strlen(s->items[i].value));
        base_free(s->items[i].value);
        base_free(s->items[i].digits);
    }
    base_free(s->items);
    pthread_mutex_destroy(s->mu);
    base_free(s->mu);
    base_free(s);
}

static int is_sep(char c)
{
    return c == ' ' || c == '-' || c == '.' || c == '/';
}

/* The digits of v when v is number-like (only digits and separators, at
 * least NUMBER_MIN_DIGITS digits), else NULL. */
static char *number_digits(const char *v)
{
    size_t nd = 0;
    for (const char *p = v; *p; p++) {
        if (isdigit((unsigned char)*p))
            nd++;
        else if (!is_sep(*p))
            return NULL;
    }
    if (nd < NUMBER_MIN_DIGITS)
        return NULL;
    char *d = base_malloc(nd + 1);
    if (!d)
        return NULL;
    size_t k = 0;
    for (const char *p = v; *p; p++)
        if (isdigit((unsigned char)*p))
            d[k++] = *p;
    d[k] = '\0';
    return d;
}

/* Adds one form (caller holds the lock). */
static base_err add_one(agent_secrets *s, const char *v)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->items[i].value, v) == 0)
            return BASE_OK;
    if (s->n >= SECRETS_MAX)
        return BASE_ETOOBIG;
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 48;
        secret *ni = base_realloc(s->items, (size_t)nc * sizeof *ni);
        if (!ni)
            return BASE_ENOMEM;
        s->items = ni;
        s->cap = nc;
    }
    char *copy = base_strdup(v);
    if (!copy)
        return BASE_ENOMEM;
    s->items[s->n].value = copy;
    s->items[s->n].digits = number_digits(v);
    s->n++;
    return BASE_OK;
}

base_err agent_secrets_add(agent_secrets *s, const char *value)
{
    if (!s || !value || !value[0])
        return BASE_OK;
    size_t n = strlen(value);
    if (n > SECRET_LEN_MAX)
        return BASE_ETOOBIG;
    char *up = base_malloc(n + 1), *low = base_malloc(n + 1);
    if (!up || !low) {
        base_free(up);
        base_free(low);
        return BASE_ENOMEM;
    }
    for (size_t i = 0; i <= n; i++) {
        up[i] = (char)toupper((unsigned char)value[i]);
        low[i] = (char)tolower((unsigned char)value[i]);
    }
    pthread_mutex_lock(s->mu);
    base_err e = add_one(s, value);
    if (!e)
        e = add_one(s, up);
    if (!e)
        e = add_one(s, low);
    pthread_mutex_unlock(s->mu);
    base_free(up);
    base_free(low);
    return e;
}

int agent_secrets_count(const agent_secrets *s)
{
    if (!s)
        return 0;
    pthread_mutex_lock(s->mu);
    int n = s->n;
    pthread_mutex_unlock(s->mu);
    return n;
}

/* The byte at h as the text means it: itself, or the byte a %XX escape
 * stands for. Sets *len to the bytes used; -1 at the end of h. */
static int decoded_at(const char *h, size_t *len)
{
    if (!h[0])
        return -1;
    if (h[0] == '%' && h[1] && h[2]) {
        int a = base_hex_digit((unsigned char)h[1]), b = base_hex_digit((unsigned char)h[2]);
        if (a >= 0 && b >= 0) {
            *len = 3;
            return a * 16 + b;
        }
    }
    *len = 1;
    return (unsigned char)h[0];
}

/* Bytes of h that match the longest prefix of sec (each byte literally,
 * as %XX, or '+' for a space); *got is the bytes of sec that prefix has
 * (strlen(sec) for a whole match). */
static size_t match_plain(const char *h, const char *sec, size_t *got)
{
    size_t i = 0;
    const unsigned char *p = (const unsigned char *)sec;
    for (; *p; p++) {
        if ((unsigned char)h[i] == *p) {
            i++;
            continue;
        }
        if (*p == ' ' && h[i] == '+') {
            i++;
            continue;
        }
        size_t len = 0;
        int c = decoded_at(h + i, &len);
        if (c < 0 || c != *p || len != 3)
            break;
        i += len;
    }
    *got = (size_t)(p - (const unsigned char *)sec);
    return i;
}

/* 1 when a string cut short may end at h: its end, an ellipsis ("..." or
 * U+2026) or a closing quote of a '%.Ns' format. */
static int cut_boundary(const char *h)
{
    return !h[0] || h[0] == '\'' || h[0] == '"' || strncmp(h, "...", 3) == 0 ||
           strncmp(h, "\xe2\x80\xa6", 3) == 0;
}

/* Bytes of h that match the longest prefix of the digit string d with up
 * to three separators (or their escapes, or '+') between digits; *got is
 * the digits matched (strlen(d) for a whole match). */
static size_t match_digits(const char *h, const char *d, size_t *got)
{
    size_t i = 0, k = 0;
    for (; d[k]; k++) {
        size_t j = i;
        for (int skip = 0; k > 0 && skip < 3; skip++) {
            size_t len = 0;
            int c = decoded_at(h + j, &len);
            if (c < 0 || !(is_sep((char)c) || (c == '+' && len == 1)))
                break;
            j += len;
        }
        size_t len = 0;
        if (decoded_at(h + j, &len) != (unsigned char)d[k])
            break;
        i = j + len;
    }
    *got = k;
    return i;
}

/* At h, "scheme://user:password@": the offset and length of the password
 * (0 length when h does not start such a URL). A URL's userinfo is a
 * credential whether or not the run knows it as a secret. */
static size_t userinfo_password(const char *h, size_t *off)
{
    if (strncmp(h, "://", 3) != 0)
        return 0;
    size_t colon = 0, i = 3;
    for (; h[i] && !strchr("/?#@ \t\r\n'\"<>", h[i]); i++)
        if (h[i] == ':' && !colon)
            colon = i;
    if (h[i] != '@' || !colon)
        return 0;
    *off = colon + 1;
    return i - colon - 1;
}

/* Replaces buf[at, at+len) with the mask; returns the index after it. */
static size_t put_mask(char *buf, size_t cap, size_t at, size_t len)
{
    size_t total = strlen(buf);
    size_t ml = sizeof MASK - 1;
    size_t tail = total - at - len;
    size_t room = cap - 1 - at;
    size_t put = ml < room ? ml : room;
    size_t keep = tail < room - put ? tail : room - put;
    memmove(buf + at + put, buf + at + len, keep);
    memcpy(buf + at, MASK, put);
    buf[at + put + keep] = '\0';
    return at + put;
}

void agent_secrets_scrub(const agent_secrets *s, char *buf, size_t cap)
{
    if (!s || !buf || cap == 0)
        return;
    pthread_mutex_lock(s->mu);
    size_t at = 0;
    while (buf[at]) {
        size_t best = 0, off = 0, ul = userinfo_password(buf + at, &off);
        if (ul > 0) {
            at = put_mask(buf, cap, at + off, ul);
            if (at >= cap - 1)
                break;
            continue;
        }
        for (int i = 0; i < s->n; i++) {
            size_t got = 0, m = match_plain(buf + at, s->items[i].value, &got);
            /* Whole, or a prefix of PARTIAL_MIN+ bytes where a string was cut. */
            if (m > best && (!s->items[i].value[got] ||
                             (got >= PARTIAL_MIN && cut_boundary(buf + at + m))))
                best = m;
            if (s->items[i].digits) {
                m = match_digits(buf + at, s->items[i].digits, &got);
                if (m > best && (!s->items[i].digits[got] ||
                                 (got >= PARTIAL_MIN && cut_boundary(buf + at + m))))
                    best = m;
            }
        }
        if (best > 0)
            at = put_mask(buf, cap, at, best);
        else
            at++;
        if (at >= cap - 1)
            break;
    }
    pthread_mutex_unlock(s->mu);
}

char *agent_secrets_json(const agent_secrets *s)
{
    if (!s)
        return NULL;
    cJSON *a = cJSON_CreateArray();
    pthread_mutex_lock(s->mu);
    int n = s->n;
    for (int i = 0; a && i < s->n; i++) {
        /* All or nothing: a list missing one secret would leave that one
         * unmasked on the screenshot; NULL makes the caller mask it all. */
        cJSON *v = cJSON_CreateString(s->items[i].value);
        if (!v || !cJSON_AddItemToArray(a, v)) {
            cJSON_Delete(v);
            cJSON_Delete(a);
            a = NULL;
        }
    }
    pthread_mutex_unlock(s->mu);
    char *json = a && n > 0 ? cJSON_PrintUnformatted(a) : NULL;
    cJSON_Delete(a);
    char *out = json ? base_strdup(json) : NULL;
    if (json)
        memset(json, 0, strlen(json)); /* the secrets in clear: wiped before freeing */
    cJSON_free(json);
    return out;
}

base_err agent_secrets_scrub_copy(const agent_secrets *s, char *dst, size_t cap, const char *src)
{
    if (!dst || cap == 0)
        return BASE_EINVAL;
    dst[0] = '\0';
    if (!src)
        return BASE_OK;
    /* Every byte may become a whole mask: room for the worst case. */
    size_t n = strlen(src), room = n * (sizeof MASK - 1) + 1;
    char *tmp = base_malloc(room);
    if (!tmp) {
        /* Never hand out the source unmasked: an empty string instead. */
        return BASE_ENOMEM;
    }
    memcpy(tmp, src, n + 1);
    agent_secrets_scrub(s, tmp, room);
    size_t k = strlen(tmp);
    if (k >= cap)
        k = cap - 1;
    memcpy(dst, tmp, k);
    dst[k] = '\0';
    memset(tmp, 0, room);
    base_free(tmp);
    /* A cut may now end inside a mask or a secret's prefix; scrub again. */
    agent_secrets_scrub(s, dst, cap);
    return BASE_OK;
}

void agent_secrets_log_filter(char *msg, size_t cap, void *user)
{
    agent_secrets_scrub(user, msg, cap);
}

/* 1 when the whitespace-separated list attr holds a token equal to (or,
 * with prefix, starting with) want, case-insensitively. */
int agent_field_sensitive(const char *type, const char *autocomplete)
{
    return base_field_secret(type, autocomplete);
}

base_err agent_secrets_scrub_json(const agent_secrets *s, cJSON *j)
{
    if (!s || !j || agent_secrets_count(s) == 0)
        return BASE_OK;
    base_err e = BASE_OK;
    if (cJSON_IsString(j) && j->valuestring && j->valuestring[0]) {
        size_t cap = strlen(j->valuestring) * 8 + 16; /* a 1-byte secret becomes 8 */
        char *buf = base_malloc(cap);
        if (!buf || agent_secrets_scrub_copy(s, buf, cap, j->valuestring) != BASE_OK ||
            (strcmp(buf, j->valuestring) != 0 && !cJSON_SetValuestring(j, buf))) {
            /* Emptied in place (no allocation): a record that lost a string
             * is better than one that shows a password. */
            j->valuestring[0] = '\0';
            e = BASE_ENOMEM;
        }
        base_free(buf);
    }
    for (cJSON *c = j->child; c; c = c->next)
        if (agent_secrets_scrub_json(s, c) != BASE_OK)
            e = BASE_ENOMEM;
    return e;
}
