/* base/base64.h: standard base64 (RFC 4648, "+/" alphabet, '=' padding).
 *
 * Screenshots arrive as multi-megabyte base64 strings, so decoding is the
 * only per-byte work between the socket and the image decoder; it is
 * table-driven and handles four input bytes per step.
 */
#ifndef FOVEA_BASE_BASE64_H
#define FOVEA_BASE_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Exact decoded size bound for n input characters: 3 * ceil(n / 4). */
size_t base64_decoded_max(size_t n);
/* Encoded size (without NUL) of n bytes; 0 on overflow. */
size_t base64_encoded_len(size_t n);

/* Decodes `n` characters of `in` into `out` (room for base64_decoded_max(n)
 * bytes). Padding is optional at the end; no whitespace or other characters
 * are accepted. On success *out_len is set. On BASE_EDECODE, err (optional,
 * BASE_ERRBUF_SIZE) names the offset and byte. Pure; any thread. */
base_err base64_decode(const char *in, size_t n, uint8_t *out, size_t *out_len, char *err);

/* Encodes n bytes into out (room for base64_encoded_len(n) + 1), NUL-terminated.
 * Returns the number of characters written. */
size_t base64_encode(const uint8_t *in, size_t n, char *out);

#endif
