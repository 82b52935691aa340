/* cascade/textfix.c: the text-fix pre-pass of cascade_type.
 *
 * An agent says "type 2026-04-23" into a field that wants 04/23/2026, or
 * "$1,234.50" into <input type=number>, which silently drops it. Before
 * typing, the text is rewritten into the shape the field announces through
 * its type, pattern and placeholder: dates are parsed (ISO, US and European
 * numeric forms, English month names) and re-emitted in the field's order
 * and separator; amounts lose currency symbols and thousands separators;
 * digit-only patterns keep only digits. When the field says nothing, or the
 * text does not parse, the text is left as it is: the fix never guesses
 * beyond what the field declares. Pure; any thread.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cascade/cascade.h"

typedef struct ymd {
    int y, m, d;
} ymd;

static const char *const MONTHS[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                     "jul", "aug", "sep", "oct", "nov", "dec"};

static int days_in(int y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return dm[m - 1];
}

static int valid(ymd v)
{
    return v.y >= 1000 && v.y <= 9999 && v.m >= 1 && v.m <= 12 && v.d >= 1 &&
           v.d <= days_in(v.y, v.m);
}

/* Splits text into up to 3 numeric or alphabetic tokens. */
typedef struct tok {
    char s[16];
    int num; /* 1: digits */
    int len;
} tok;

static int tokenize(const char *t, tok *out, int max, char *sep)
{
    int n = 0;
    *sep = 0;
    while (*t) {
        while (*t && !isalnum((unsigned char)*t)) {
            if (n > 0 && !*sep && strchr("/-.", *t))
                *sep = *t;
            t++;
        }
        if (!*t)
            break;
        if (n == max)
            return -1;
        int num = isdigit((unsigned char)*t) != 0;
        int k = 0;
        while (*t && isalnum((unsigned char)*t) && (isdigit((unsigned char)*t) != 0) == num) {
            if (k < 15)
                out[n].s[k++] = *t;
            t++;
        }
        out[n].s[k] = '\0';
        out[n].len = k;
        out[n].num = num;
        n++;
    }
    return n;
}

/* Tokens hold at most 15 digits, so the value fits an int after the cap. */
static int num_of(const char *s)
{
    long v = strtol(s, NULL, 10);
    return v > 99999 ? 99999 : (int)v;
}

/* Case-insensitive strstr (ASCII). */
static const char *find_ci(const char *h, const char *n)
{
    size_t k = strlen(n);
    for (; *h; h++)
        if (strncasecmp(h, n, k) == 0)
            return h;
    return NULL;
}

static int month_of(const char *s)
{
    for (int i = 0; i < 12; i++)
        if (strncasecmp(s, MONTHS[i], 3) == 0)
            return i + 1;
    return 0;
}

/* Parses a date the way people and machines write them. */
static int parse_date(const char *text, ymd *out)
{
    tok tk[4];
    char sep;
    int n = tokenize(text, tk, 4, &sep);
    if (n != 3)
        return 0;
    ymd v = {0, 0, 0};
    int nnum = tk[0].num + tk[1].num + tk[2].num;
    if (nnum == 3) {
        int a = num_of(tk[0].s), b = num_of(tk[1].s), c = num_of(tk[2].s);
        if (tk[0].len == 4) { /* Y M D */
            v = (ymd){a, b, c};
        } else if (tk[2].len == 4) {
            /* M/D/Y unless the first cannot be a month, or the separator is
             * a dot (European D.M.Y). */
            if (sep == '.' || a > 12)
                v = (ymd){c, b, a};
            else
                v = (ymd){c, a, b};
        } else {
            return 0;
        }
    } else if (nnum == 2) {
        /* "April 23, 2026" or "23 April 2026". */
        int mi = !tk[0].num ? 0 : (!tk[1].num ? 1 : 2);
        int m = month_of(tk[mi].s);
        if (!m)
            return 0;
        int x = mi == 0 ? 1 : 0, y = mi == 2 ? 1 : 2;
        if (mi == 1)
            x = 0, y = 2;
        int p = num_of(tk[x].s), q = num_of(tk[y].s);
        if (tk[y].len == 4)
            v = (ymd){q, m, p};
        else if (tk[x].len == 4)
            v = (ymd){p, m, q};
        else
            return 0;
    } else {
        return 0;
    }
    if (!valid(v))
        return 0;
    *out = v;
    return 1;
}

/* A date format: field order ("MDY"), separator, year digits. */
typedef struct dfmt {
    char order[4];
    char sep;
    int ydigits;
} dfmt;

static int fmt_from_placeholder(const char *ph, dfmt *f)
{
    if (!ph)
        return 0;
    const char *m = find_ci(ph, "mm");
    const char *d = find_ci(ph, "dd");
    const char *y = find_ci(ph, "yy");
    if (!m || !d || !y)
        return 0;
    const char *p[3] = {m, d, y};
    const char c[3] = {'M', 'D', 'Y'};
    for (int i = 0; i < 3; i++) { /* sort the three by position */
        int r = 0;
        for (int j = 0; j < 3; j++)
            r += p[j] < p[i];
        f->order[r] = c[i];
    }
    f->order[3] = '\0';
    f->ydigits = strncasecmp(y, "yyyy", 4) == 0 ? 4 : 2;
    f->sep = 0;
    const char *first = m < d ? (m < y ? m : y) : (d < y ? d : y);
    for (const char *s = first; *s; s++) {
        if (!isalpha((unsigned char)*s)) {
            f->sep = *s;
            break;
        }
    }
    return f->sep != 0;
}

static int fmt_from_pattern(const char *pat, dfmt *f)
{
    if (!pat || !strstr(pat, "{4}"))
        return 0;
    /* \d{4}-\d{2}-\d{2}, \d{2}/\d{2}/\d{4}, \d{2}\.\d{2}\.\d{4} */
    const char *y = strstr(pat, "{4}");
    const char *two = strstr(pat, "{2}");
    if (!two && !strstr(pat, "{1,2}"))
        return 0;
    char sep = 0;
    for (const char *s = pat; *s; s++) {
        if (*s == '/' || *s == '-' || (*s == '.' && s > pat && s[-1] == '\\')) {
            sep = *s;
            break;
        }
    }
    if (!sep)
        return 0;
    f->sep = sep;
    f->ydigits = 4;
    int year_first = two ? y < two : 1;
    if (year_first)
        memcpy(f->order, "YMD", 4);
    else if (sep == '.')
        memcpy(f->order, "DMY", 4);
    else
        memcpy(f->order, "MDY", 4);
    return 1;
}

static void emit_date(ymd v, const dfmt *f, char *buf, size_t n)
{
    size_t k = 0;
    for (int i = 0; i < 3 && k < n; i++) {
        int w;
        if (f->order[i] == 'Y')
            w = f->ydigits == 2 ? snprintf(buf + k, n - k, "%02d", v.y % 100)
                                : snprintf(buf + k, n - k, "%04d", v.y);
        else
            w = snprintf(buf + k, n - k, "%02d", f->order[i] == 'M' ? v.m : v.d);
        if (w < 0)
            return;
        k += (size_t)w;
        if (i < 2 && k + 1 < n)
            buf[k++] = f->sep;
    }
    if (k < n)
        buf[k] = '\0';
}

/* Normalizes an amount: drops currency signs, spaces and thousands
 * separators, makes the decimal mark a dot. 0 if text is not an amount. */
static int parse_amount(const char *t, char *out, size_t n, int *decimals)
{
    char digits[64];
    size_t k = 0;
    int neg = 0, seen_digit = 0;
    const char *last_sep = NULL;
    int n_dot = 0, n_comma = 0;
    for (const char *s = t; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isdigit(ch)) {
            seen_digit = 1;
            continue;
        }
        if (ch == '.' || ch == ',') {
            last_sep = s;
            n_dot += ch == '.';
            n_comma += ch == ',';
            continue;
        }
        if (ch == '-' && !seen_digit) {
            neg = 1;
            continue;
        }
        /* Currency signs (ASCII $ and UTF-8 multi-byte symbols), spaces,
         * a trailing ISO code such as USD. */
        if (ch == '$' || ch == ' ' || ch == '+' || ch >= 0x80 || isupper(ch))
            continue;
        return 0;
    }
    if (!seen_digit)
        return 0;
    /* Decides which separator is the decimal mark: the last one, when it is
     * followed by other than exactly three digits or both kinds appear. */
    char dec = 0;
    if (last_sep) {
        size_t after = 0;
        for (const char *s = last_sep + 1; *s && isdigit((unsigned char)*s); s++)
            after++;
        if ((n_dot && n_comma) || after != 3 || (*last_sep == '.' && n_dot == 1 && !n_comma))
            dec = *last_sep;
        if (*last_sep == ',' && n_comma == 1 && after == 3 && !n_dot)
            dec = 0; /* "1,234" */
    }
    if (neg)
        digits[k++] = '-';
    int dec_seen = 0;
    *decimals = 0;
    for (const char *s = t; *s && k + 2 < sizeof digits; s++) {
        if (isdigit((unsigned char)*s)) {
            digits[k++] = *s;
            *decimals += dec_seen;
        } else if (s == last_sep && dec) {
            digits[k++] = '.';
            dec_seen = 1;
        }
    }
    digits[k] = '\0';
    if (k + 1 > n)
        return 0;
    memcpy(out, digits, k + 1);
    return 1;
}

static int digit_pattern(const char *pat)
{
    if (!pat)
        return 0;
    static const char *const pats[] = {"\\d*", "\\d+", "[0-9]*", "[0-9]+"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        if (strcmp(pat, pats[i]) == 0)
            return 1;
    /* \d{5} or [0-9]{3,4} */
    return (strncmp(pat, "\\d{", 3) == 0 || strncmp(pat, "[0-9]{", 6) == 0) &&
           pat[strlen(pat) - 1] == '}' && !strpbrk(pat + 3, "\\[(|");
}

static int two_decimals(const char *placeholder, const char *pattern)
{
    if (placeholder) {
        const char *dot = strrchr(placeholder, '.');
        if (dot && isdigit((unsigned char)dot[1]) && isdigit((unsigned char)dot[2]) &&
            !isdigit((unsigned char)dot[3]) && (strchr(placeholder, '0') || strchr(placeholder, '$')))
            return 1;
    }
    return pattern && (strstr(pattern, "\\.\\d{2}") || strstr(pattern, "\\.[0-9]{2}") ||
                       strstr(pattern, "\\.\\d{0,2}"));
}

static int put(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n + 1 > cap) {
        if (cap) {
            memcpy(out, s, cap - 1);
            out[cap - 1] = '\0';
        }
        return -1;
    }
    memcpy(out, s, n + 1);
    return 0;
}

static void note_set(char *note, size_t n, const char *s)
{
    if (note && n)
        snprintf(note, n, "%s", s);
}

int cascade_text_fix(const char *text, const char *type, const char *pattern,
                     const char *placeholder, char *out, size_t cap, char *note, size_t note_n)
{
    note_set(note, note_n, "");
    if (!text)
        text = "";
    if (!out || cap == 0)
        return -1;
    if (type && !type[0])
        type = NULL;
    if (pattern && !pattern[0])
        pattern = NULL;
    if (placeholder && !placeholder[0])
        placeholder = NULL;
    char buf[96];
    size_t tl = strlen(text);

    /* Dates. */
    dfmt f;
    int is_date_type = type && strcmp(type, "date") == 0;
    int have_fmt = 0;
    if (is_date_type) {
        memcpy(f.order, "YMD", 4);
        f.sep = '-';
        f.ydigits = 4;
        have_fmt = 1;
    } else if (!type || !strcmp(type, "text") || !strcmp(type, "search") || !strcmp(type, "tel")) {
        have_fmt = fmt_from_placeholder(placeholder, &f) || fmt_from_pattern(pattern, &f);
    }
    ymd v;
    if (have_fmt && tl < 64 && parse_date(text, &v)) {
        emit_date(v, &f, buf, sizeof buf);
        if (strcmp(buf, text) == 0)
            return put(out, cap, text);
        char nb[64];
        snprintf(nb, sizeof nb, "date as %c%c%c with '%c'", f.order[0], f.order[1], f.order[2],
                 f.sep);
        note_set(note, note_n, nb);
        return put(out, cap, buf) ? -1 : 1;
    }

    /* Amounts. */
    int is_number = type && strcmp(type, "number") == 0;
    int money = two_decimals(placeholder, pattern);
    int decimals = 0;
    if ((is_number || money) && tl < 48 && parse_amount(text, buf, sizeof buf, &decimals)) {
        if (money && decimals < 2) {
            size_t k = strlen(buf);
            const char *pad = decimals == 0 ? ".00" : "0";
            if (k + strlen(pad) + 1 <= sizeof buf)
                memcpy(buf + k, pad, strlen(pad) + 1);
        }
        if (strcmp(buf, text) == 0)
            return put(out, cap, text);
        note_set(note, note_n, money ? "amount with two decimals" : "plain number");
        return put(out, cap, buf) ? -1 : 1;
    }

    /* Digits only. */
    if (digit_pattern(pattern) && tl < 64) {
        size_t k = 0;
        int other = 0;
        for (const char *s = text; *s; s++) {
            if (isdigit((unsigned char)*s))
                buf[k++] = *s;
            else if (!strchr(" -().+/", *s))
                other = 1;
        }
        buf[k] = '\0';
        if (!other && k > 0 && strcmp(buf, text) != 0) {
            note_set(note, note_n, "digits only");
            return put(out, cap, buf) ? -1 : 1;
        }
    }
    return put(out, cap, text);
}
