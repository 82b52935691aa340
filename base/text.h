/* base/text.h: text normalisation shared by the page kit's C side and
 * anything that compares page text (pure: no I/O, no allocation). */
#ifndef FOVEA_BASE_TEXT_H
#define FOVEA_BASE_TEXT_H

#include <stddef.h>

/* Character classes of the one text normalisation. */
typedef enum base_text_class {
    BASE_TEXT_OTHER = 0, /* a visible character (or a malformed byte) */
    BASE_TEXT_SPACE,     /* folds to one ASCII space */
    BASE_TEXT_INVISIBLE, /* dropped */
} base_text_class;

/* The single definition of which characters are spaces and which are invisible,
 * for every text comparison in fovea (base_text_norm, the snapper's snap_text_*
 * and word folding) and mirrored by the SPACES/ZERO regexes of
 * assets/js/lib/kit.js. Spaces: ASCII whitespace (TAB..CR, ' '), U+0085 NEL,
 * U+00A0 NBSP, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
 * Invisible: U+00AD soft hyphen, U+180E, U+200B-U+200F (ZWSP, ZWNJ, ZWJ, LRM,
 * RLM), U+202A-U+202E (bidi embeddings), U+2060-U+2064 (word joiner, invisible
 * operators), U+2066-U+206F (bidi isolates and deprecated format characters),
 * U+FEFF. Returns the class of the UTF-8 character starting at s (s must not
 * point at its NUL) and its byte length in *len (1 for a malformed or truncated
 * byte, which is OTHER). Borrows s. Any thread. Errors: none. */
base_text_class base_text_char_class(const char *s, size_t *len);

/* The page kit's text normalisation (kit.norm in assets/js/lib/kit.js) for
 * UTF-8: NBSP and the other Unicode spaces become spaces, the invisible
 * characters of base_text_char_class (zero-width, bidi marks, soft hyphen...)
 * vanish, runs of whitespace fold to one space, the ends are trimmed; at most
 * max_chars code points are kept (0: no limit) and never more than cap - 1
 * bytes, cut on a character boundary. Writes a NUL-terminated string to out
 * (cap > 0) and returns its length in bytes. Borrows both buffers. Any thread.
 * Errors: none; NULL s reads as "", cap 0 writes nothing and returns 0. */
size_t base_text_norm(const char *s, char *out, size_t cap, size_t max_chars);

/* A short quote of untrusted bytes (a model's or a server's reply) for an error
 * message: s[0..len) trimmed of blanks at both ends, control characters as
 * spaces and every non-ASCII byte as '?', so the message (and the trace line it
 * goes into) stays valid one-line text whatever the bytes were; cut to n - 1
 * bytes. Writes a NUL-terminated string to out (n > 0). Any thread. Errors:
 * none; NULL s reads as "". */
void base_text_excerpt(const char *s, size_t len, char *out, size_t n);

/* Copies src[0..n) into dst (dn > 0 bytes) as one line of text: blanks at
 * both ends trimmed, control characters as spaces, and a cut at dn - 1 bytes
 * never splits a UTF-8 sequence (unlike base_text_excerpt, non-ASCII text is
 * kept: for values shown to people, such as a model's labels or an endpoint's
 * error message). Always NUL-terminates dst. Any thread. Errors: none. */
void base_text_line(char *dst, size_t dn, const char *src, size_t n);

/* The value of one hexadecimal digit ('0'-'9', 'a'-'f', 'A'-'F'), for
 * percent-decoding (the HTTP server's paths, the secrets' URL-encoded forms).
 * Any thread. Errors: -1 for any other byte. */
int base_hex_digit(int c);

/* 1 when a form field with this type and autocomplete attribute (either may
 * be NULL) holds a secret (docs/safety.md "Secret fields"): type=password, or
 * an autocomplete token cc-* (card data), current-password, new-password or
 * one-time-code, in any case. The one rule every layer masks by (the
 * session's secrets, `fovea record`'s snapshots; assets/js/lib/kit.js
 * secretField is its page-side twin). Pure; any thread. */
int base_field_secret(const char *type, const char *autocomplete);

#endif
