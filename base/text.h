/* base/text.h: text normalisation shared by the page kit's C side and
 * anything that compares page text (pure: no I/O, no allocation). */
#ifndef FOVEA_BASE_TEXT_H
#define FOVEA_BASE_TEXT_H

#include <stddef.h>

/* Purpose: the page kit's text normalisation (kit.norm in
 * assets/js/lib/kit.js) for UTF-8: NBSP and the other Unicode spaces become
 * spaces, zero-width characters (U+200B-U+200D, U+2060, U+FEFF) and soft
 * hyphens vanish, runs of whitespace fold to one space, the ends are trimmed;
 * at most max_chars code points are kept (0: no limit) and never more than
 * cap - 1 bytes, cut on a character boundary. Writes a NUL-terminated string
 * to out (cap > 0) and returns its length in bytes. Ownership: borrows both
 * buffers. Thread: any. Errors: none; NULL s reads as "", cap 0 writes
 * nothing and returns 0. */
size_t base_text_norm(const char *s, char *out, size_t cap, size_t max_chars);

#endif
