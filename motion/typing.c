/* motion/typing.c: humanized typing plans (SuperBrowser section 6.4).
 *
 * The text is validated as UTF-8 first, then walked one code point at a time.
 * Each character waits a base delay (the mean of two U(30,120) draws: bounded
 * to 30-120 ms like the paper's range, but peaked at 75 ms like real
 * keystroke intervals), plus U(20,60) ms after whitespace or U(40,75) ms after
 * punctuation. The first character of each word (after whitespace) instead
 * waits U(200,600) ms with probability 0.10. Each ASCII letter or digit is
 * mistyped with probability 0.02 as a neighbour on a QWERTY layout, followed
 * by Backspace and the right character; password fields and callers passing
 * MOTION_TYPING_NO_TYPOS get no typos. The ranges are chosen so that every
 * non-pause delay stays below 200 ms; DESIGN.md lists the sources.
 */
#include "motion/typing.h"

#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"

_Static_assert(sizeof(motion_key) == 20, "motion_key must have no padding (memcmp)");

#define BASE_LO_MS 30.0
#define BASE_HI_MS 120.0
#define AFTER_SPACE_LO_MS 20.0
#define AFTER_SPACE_HI_MS 60.0
#define AFTER_PUNCT_LO_MS 40.0
#define AFTER_PUNCT_HI_MS 75.0
#define WORD_PAUSE_P 0.10
#define WORD_PAUSE_LO_MS 200.0
#define WORD_PAUSE_HI_MS 600.0
#define TYPO_P 0.02
#define NOTICE_LO_MS 150.0
#define NOTICE_HI_MS 350.0
#define RETYPE_LO_MS 50.0
#define RETYPE_HI_MS 150.0

#define KNOWN_FLAGS (MOTION_TYPING_NO_TYPOS | MOTION_TYPING_PASSWORD)

/* Decodes one code point at s (n > 0 bytes available). Returns its length, or
 * 0 when the bytes are not well-formed UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF). */
static int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned b = s[0];
    int len;
    uint32_t v, min;
    if (b < 0x80) {
        *cp = b;
        return 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
        v = b & 0x1F;
        min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        v = b & 0x0F;
        min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        v = b & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < (size_t)len)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static int is_space(uint32_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0;
}

static int is_punct(uint32_t c)
{
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126);
}

/* The unshifted QWERTY rows; each row sits about half a key right of the one
 * above, so the keys touching row r, column c are (r, c +- 1),
 * (r - 1, c .. c + 1) and (r + 1, c - 1 .. c). */
static const char *const ROWS[4] = {"1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"};

/* Picks a key touching c (an ASCII letter or digit), keeping letter case.
 * Returns 0 when c has no layout position. */
static char neighbour_key(base_rng *r, char c)
{
    int upper = c >= 'A' && c <= 'Z';
    char lc = upper ? (char)(c - 'A' + 'a') : c;
    int row = -1, col = -1;
    for (int i = 0; i < 4 && row < 0; i++) {
        const char *hit = strchr(ROWS[i], lc);
        if (hit) {
            row = i;
            col = (int)(hit - ROWS[i]);
        }
    }
    if (row < 0)
        return 0;
    static const int DR[6] = {0, 0, -1, -1, 1, 1};
    static const int DC[6] = {-1, 1, 0, 1, -1, 0};
    char cand[6];
    int nc = 0;
    for (int k = 0; k < 6; k++) {
        int rr = row + DR[k], cc = col + DC[k];
        if (rr < 0 || rr > 3 || cc < 0 || cc >= (int)strlen(ROWS[rr]))
            continue;
        char o = ROWS[rr][cc];
        if (upper && o >= 'a' && o <= 'z')
            o = (char)(o - 'a' + 'A');
        cand[nc++] = o;
    }
    return nc ? cand[base_rng_below(r, (uint64_t)nc)] : 0;
}

static void put_char(motion_key *k, uint32_t cp, const unsigned char *bytes, int len,
                     double delay)
{
    k->kind = MOTION_KEY_CHAR;
    k->delay_ms = (float)delay;
    k->cp = cp;
    k->len = (uint8_t)len;
    memcpy(k->utf8, bytes, (size_t)len);
}

base_err motion_plan_typing(const char *utf8, size_t n, unsigned flags, uint64_t seed,
                            motion_typing *out, char *err)
{
    if (!out || (!utf8 && n > 0))
        return base_errf(err, BASE_EINVAL, "typing: NULL argument");
    if (flags & ~(unsigned)KNOWN_FLAGS)
        return base_errf(err, BASE_EINVAL, "typing: unknown flags 0x%x", flags);
    if (n > MOTION_TYPING_MAX_BYTES)
        return base_errf(err, BASE_ETOOBIG, "typing: %zu bytes exceeds the %zu-byte cap", n,
                         MOTION_TYPING_MAX_BYTES);

    /* Validate everything before allocating or drawing a single number. */
    const unsigned char *s = (const unsigned char *)utf8;
    size_t ncp = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        int len = utf8_decode(s + i, n - i, &cp);
        if (len == 0)
            return base_errf(err, BASE_EINVAL, "typing: invalid UTF-8 at byte %zu", i);
        if (cp == 0)
            return base_errf(err, BASE_EINVAL, "typing: NUL character at byte %zu", i);
        i += (size_t)len;
        ncp++;
    }

    motion_typing plan;
    memset(&plan, 0, sizeof plan);
    if (ncp > 0) {
        /* A typo turns one character into three events; n <= 1 MiB keeps
         * 3 * ncp far from INT_MAX. */
        plan.keys = base_calloc(3 * ncp, sizeof *plan.keys);
        if (!plan.keys)
            return base_errf(err, BASE_ENOMEM, "typing: out of memory");
    }

    base_rng r;
    base_rng_seed(&r, seed);
    int typos = !(flags & (MOTION_TYPING_NO_TYPOS | MOTION_TYPING_PASSWORD));
    uint32_t prev = 0;
    double total = 0.0;
    int k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        int len = utf8_decode(s + i, n - i, &cp);
        const unsigned char *bytes = s + i;
        i += (size_t)len;

        double delay = 0.5 * (base_rng_uniform(&r, BASE_LO_MS, BASE_HI_MS) +
                              base_rng_uniform(&r, BASE_LO_MS, BASE_HI_MS));
        if (prev && is_space(prev)) {
            if (!is_space(cp) && base_rng_chance(&r, WORD_PAUSE_P)) {
                delay = base_rng_uniform(&r, WORD_PAUSE_LO_MS, WORD_PAUSE_HI_MS);
                plan.n_pauses++;
            } else {
                delay += base_rng_uniform(&r, AFTER_SPACE_LO_MS, AFTER_SPACE_HI_MS);
            }
        } else if (prev && is_punct(prev)) {
            delay += base_rng_uniform(&r, AFTER_PUNCT_LO_MS, AFTER_PUNCT_HI_MS);
        }
        prev = cp;

        int ascii_alnum = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
                          (cp >= '0' && cp <= '9');
        if (typos && ascii_alnum && base_rng_chance(&r, TYPO_P)) {
            unsigned char wrong = (unsigned char)neighbour_key(&r, (char)cp);
            if (wrong) {
                /* The wrong key takes the slot's delay, then a reaction gap
                 * before Backspace, then a quick retype. */
                put_char(&plan.keys[k++], wrong, &wrong, 1, delay);
                motion_key *bs = &plan.keys[k++];
                bs->kind = MOTION_KEY_BACKSPACE;
                bs->delay_ms = (float)base_rng_uniform(&r, NOTICE_LO_MS, NOTICE_HI_MS);
                delay = base_rng_uniform(&r, RETYPE_LO_MS, RETYPE_HI_MS);
                total += plan.keys[k - 2].delay_ms + bs->delay_ms;
                plan.n_typos++;
            }
        }
        put_char(&plan.keys[k++], cp, bytes, len, delay);
        total += plan.keys[k - 1].delay_ms;
    }
    plan.n = k;
    plan.total_ms = (float)total;
    *out = plan;
    return BASE_OK;
}

void motion_typing_fini(motion_typing *plan)
{
    if (!plan)
        return;
    base_free(plan->keys);
    memset(plan, 0, sizeof *plan);
}

base_err motion_typing_result(const motion_typing *plan, char *buf, size_t cap,
                              size_t *out_len)
{
    if (!plan || !buf || !out_len || cap == 0)
        return BASE_EINVAL;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < plan->n; i++) {
        const motion_key *k = &plan->keys[i];
        if (k->kind == MOTION_KEY_BACKSPACE) {
            /* Step back over continuation bytes to the code point's lead. */
            while (len > 0 && ((unsigned char)buf[len - 1] & 0xC0) == 0x80)
                len--;
            if (len > 0)
                len--;
        } else {
            if (len + k->len + 1 > cap) {
                buf[len] = '\0';
                return BASE_ETOOBIG;
            }
            memcpy(buf + len, k->utf8, k->len);
            len += k->len;
        }
        buf[len] = '\0';
    }
    *out_len = len;
    return BASE_OK;
}
