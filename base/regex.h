/* base/regex.h: bounded regular expressions (PCRE2) for patterns from users and models.
 *
 * Patterns use PCRE2 syntax (Perl-compatible: `\d`, `\s`, `(?i)`, lazy and
 * possessive quantifiers, lookaround), in UTF-8 mode. Before PCRE2 fovea
 * used POSIX extended regular expressions; every ERE that does not use
 * bracket classes such as `[[:alpha:]]` in odd ways means the same in PCRE2,
 * but a backslash before a letter is now an escape (`\d` is a digit), and
 * a quantifier on a quantifier (`a++`) is possessive, not an error.
 *
 * Everything is bounded, because a 30-byte pattern once made glibc's
 * regcomp grow to 23 GB:
 *   - patterns longer than BASE_REGEX_MAX_PATTERN bytes are refused;
 *   - compilation allocates through a counting allocator capped at
 *     BASE_REGEX_COMPILE_MEM bytes, and PCRE2's own compiled-size limit
 *     (64 KiB of code with the Debian build) refuses huge counted
 *     repetitions such as (a{1000}){1000} with "regular expression is too
 *     large";
 *   - each match is limited in backtracking steps, nesting depth and heap,
 *     so catastrophic backtracking ((a+)+$ on a long line) ends in
 *     milliseconds with BASE_ETOOBIG instead of running for hours;
 *   - PCRE2 restarts its step count at every start position, so an
 *     unanchored pattern over page text of many lines could still run for
 *     (lines x limit) steps: each match call also counts its TOTAL steps
 *     (a callout before every pattern item) and stops at
 *     BASE_REGEX_TOTAL_STEPS, at the caller's deadline, or on a stop signal
 *     (base/interrupt.h).
 * Subjects may contain invalid UTF-8 (page text); such bytes never match.
 */
#ifndef FOVEA_BASE_REGEX_H
#define FOVEA_BASE_REGEX_H

#include <stddef.h>

#include "base/err.h"

#define BASE_REGEX_MAX_PATTERN 1024           /* bytes of pattern text */
#define BASE_REGEX_COMPILE_MEM (4u << 20)     /* bytes PCRE2 may hold per pattern */
#define BASE_REGEX_MATCH_LIMIT 1000000u       /* backtracking steps per match */
#define BASE_REGEX_DEPTH_LIMIT 10000u         /* nested backtracking frames */
#define BASE_REGEX_HEAP_LIMIT_KIB 8192u       /* heap for one match's frames */
#define BASE_REGEX_TOTAL_STEPS 20000000u      /* pattern items per match call, all starts */

/* ^ and $ match at every line start/end as well (page text is many lines). */
#define BASE_REGEX_MULTILINE 1u
/* Letters match either case. */
#define BASE_REGEX_CASELESS 2u

typedef struct base_regex base_regex;

/* Compiles a pattern of len bytes (need not be NUL-terminated) with
 * BASE_REGEX_* flags. *out is the caller's (base_regex_destroy); untouched on
 * failure. Any thread; the compiled regex may then be matched from several
 * threads at once. Errors: BASE_ETOOBIG (pattern longer than
 * BASE_REGEX_MAX_PATTERN, or too large/complex to compile within the limits),
 * BASE_EINVAL (syntax error or invalid UTF-8: err says what and at which byte
 * offset), BASE_ENOMEM. */
base_err base_regex_compile(const char *pattern, size_t len, unsigned flags, base_regex **out,
                            char *err);

/* Searches subject (len bytes) for the pattern; *matched is 1 when it matches
 * somewhere, 0 when not. Borrows both. Any thread (a compiled regex is
 * read-only). Errors: BASE_ETOOBIG (the match hit the step, total-step, depth
 * or heap limit: err names the limit, *matched untouched), BASE_ECANCELED (a
 * stop signal arrived during the match, see base/interrupt.h), BASE_EINVAL
 * (NULL arguments), BASE_ENOMEM. */
base_err base_regex_match(const base_regex *re, const char *subject, size_t len, int *matched,
                          char *err);

/* base_regex_match that also gives up when base_monotime_ms() reaches
 * deadline_ms (0 = no deadline), so a step's timeout bounds its pattern.
 * Ownership and thread as base_regex_match. Errors: as base_regex_match; a
 * passed deadline is BASE_ETOOBIG ("still running at the step's deadline"). */
base_err base_regex_match_until(const base_regex *re, const char *subject, size_t len,
                                double deadline_ms, int *matched, char *err);

/* Frees a compiled regex; NULL is a no-op. Any thread. */
void base_regex_destroy(base_regex *re);

#endif
