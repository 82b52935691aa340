/* motion/typing.h: humanized typing plans (SuperBrowser section 6.4).
 *
 * A plan turns UTF-8 text into a list of key events, each with the delay to
 * wait before dispatching it: per-character cadence, longer gaps after spaces
 * and punctuation, occasional pauses between words and occasional typos on a
 * neighbouring QWERTY key corrected with Backspace. Pure and seeded like
 * motion/path.h: no I/O, no clocks, no global state; any thread.
 */
#ifndef FOVEA_MOTION_TYPING_H
#define FOVEA_MOTION_TYPING_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Inputs longer than this many bytes are refused with BASE_ETOOBIG. */
#define MOTION_TYPING_MAX_BYTES ((size_t)1 << 20)

/* Flags for motion_plan_typing. */
enum {
    MOTION_TYPING_NO_TYPOS = 1u << 0, /* never simulate a typo */
    MOTION_TYPING_PASSWORD = 1u << 1, /* a password field: implies NO_TYPOS */
};

typedef enum motion_key_kind {
    MOTION_KEY_CHAR = 0,      /* type one Unicode code point (utf8/len) */
    MOTION_KEY_BACKSPACE = 1, /* delete the previous code point */
} motion_key_kind;

/* One key event. The struct has no padding and plans are zero-filled, so two
 * plans compare equal with memcmp exactly when they are the same plan. */
typedef struct motion_key {
    motion_key_kind kind;
    float delay_ms; /* wait before dispatching this event */
    uint32_t cp;    /* the code point (0 for Backspace) */
    uint8_t len;    /* bytes in utf8 (0 for Backspace) */
    char utf8[7];   /* the code point as UTF-8, NUL-terminated */
} motion_key;

typedef struct motion_typing {
    motion_key *keys; /* owned; freed by motion_typing_fini */
    int n;            /* number of events */
    float total_ms;   /* sum of every delay_ms */
    int n_typos;      /* typos simulated (each adds a wrong char and a Backspace) */
    int n_pauses;     /* 200-600 ms pauses between words */
} motion_typing;

/* Plans how to type the n bytes of `utf8` (not NUL-terminated; NUL bytes are
 * refused) using only the random stream of `seed`. `flags` is a mix of
 * MOTION_TYPING_*. On success fills *out, which the caller owns and releases
 * with motion_typing_fini; n == 0 gives an empty plan. Any thread.
 * Errors: BASE_EINVAL for a NULL out, NULL text with n > 0, unknown flags,
 * invalid UTF-8 (overlong, surrogate, truncated, > U+10FFFF) or U+0000, with
 * the byte offset written to `err` (BASE_ERRBUF_SIZE bytes, may be NULL);
 * BASE_ETOOBIG above MOTION_TYPING_MAX_BYTES; BASE_ENOMEM. On failure *out
 * is untouched. */
base_err motion_plan_typing(const char *utf8, size_t n, unsigned flags, uint64_t seed,
                            motion_typing *out, char *err);

/* Frees the events of a plan and zeroes it. NULL or an already finalized plan
 * is a no-op. Any thread (the one owning the plan). Cannot fail. */
void motion_typing_fini(motion_typing *plan);

/* Replays `plan` into a text buffer: chars append, Backspace removes the last
 * code point (a no-op on empty text). Writes at most cap bytes including a
 * terminating NUL and the text length to *out_len. A cap of the input length
 * plus 8 always suffices. Borrows `plan`. Any thread.
 * Errors: BASE_EINVAL for NULL arguments; BASE_ETOOBIG when the text (at any
 * point of the replay) does not fit, in which case buf holds a prefix. */
base_err motion_typing_result(const motion_typing *plan, char *buf, size_t cap,
                              size_t *out_len);

#endif
