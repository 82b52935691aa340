/* base/utf8.h: UTF-8 validation and repair for text from files, pages and peers.
 *
 * "Valid" is RFC 3629: shortest-form sequences of at most four bytes,
 * no UTF-16 surrogates (U+D800..DFFF), nothing above U+10FFFF. Pages and
 * endpoints send whatever bytes they like; task files must be UTF-8 JSON;
 * fovea's own outputs (trace.jsonl, report.html) must stay valid UTF-8.
 */
#ifndef FOVEA_BASE_UTF8_H
#define FOVEA_BASE_UTF8_H

#include <stddef.h>

#include "base/err.h"

/* Offset of the first byte that does not start a valid UTF-8 sequence in
 * s[0..n), or n when all of it is valid (a sequence cut by the end is invalid).
 * Borrows s. Any thread. Errors: none. */
size_t base_utf8_check(const char *s, size_t n);

/* Length of the valid UTF-8 sequence starting at s (1..4), or 0 when s[0..n)
 * does not start with one. Any thread. Errors: none. */
size_t base_utf8_seq_len(const char *s, size_t n);

/* Copies s[0..n) into dst (capacity cap bytes, always NUL-terminated when cap >
 * 0), replacing each invalid byte with U+FFFD (EF BF BD), and stops early
 * rather than split a sequence when dst is full. Returns the bytes written
 * (excluding the NUL). Borrows both. Any thread. Errors: none. */
size_t base_utf8_repair(const char *s, size_t n, char *dst, size_t cap);

/* The NUL-terminated string src (NULL: "") into dst as base_utf8_repair does:
 * never a cut sequence, invalid bytes as U+FFFD. The bounded copy of page
 * strings into fixed fields. Borrows both. Any thread. Errors: none. */
void base_utf8_copy(char *dst, size_t cap, const char *src);

/* Bytes base_utf8_repair needs for s[0..n) in the worst case (every byte
 * replaced by three), plus the NUL. */
#define BASE_UTF8_REPAIR_CAP(n) ((n) * 3 + 1)

/* JavaScript strings are UTF-16 and may hold half a surrogate pair (a label cut
 * with .slice() through an emoji); Chromium and JSON.stringify send it as a
 * lone "\\udXXX" escape, which cJSON refuses, and with it the whole document.
 * Rewrites every unpaired surrogate escape in the JSON text (n bytes) as
 * "\\ufffd" (U+FFFD, same length) in a copy. *fixed is NULL when nothing needed
 * rewriting (parse text as it is), else a copy of n bytes, not NUL-terminated,
 * that the caller frees with base_free. Any thread (pure). Errors: BASE_ENOMEM
 * (*fixed NULL). */
base_err base_json_fix_surrogates(const char *text, size_t n, char **fixed);

#endif
