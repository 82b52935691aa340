/* agent/session/secrets.h: the secrets of a run and the one masking facility every
 * output goes through.
 *
 * A run collects every secret value it knows (texts of type steps marked
 * "secret"/"password", texts typed into fields that are sensitive by their
 * own markup, and what those fields hold afterwards: a field that
 * upper-cases or groups a card number in fours shows a different string
 * than was typed). agent_secrets_scrub then masks each of them, as far as
 * they can appear in text fovea writes:
 *   - as is, and upper- or lower-cased;
 *   - percent-encoded byte by byte in any mix (%40 or %40 for '@', either
 *     hex case) and with '+' for a space (a GET form puts a password into
 *     the URL that way);
 *   - for number-like secrets (card numbers, one-time codes: at least 6
 *     digits and only digits and separators), the digits in order with any
 *     separators (space, '-', '.', '/', '+', or their %-escapes) in between,
 *     so "4111111111111111" also masks "4111 1111 1111 1111" and
 *     "4111-1111-1111-1111";
 *   - cut short: a prefix of 4+ bytes of a secret that ends the string or
 *     runs into an ellipsis or a closing quote (a '%.40s' cut);
 *   - and, known or not, the password of any "scheme://user:password@" URL.
 * Sinks that copy into a fixed buffer use agent_secrets_scrub_copy, which
 * masks the whole source before the cut.
 * Every sink applies it: the trace record strings, report.html (built from
 * the trace), overlay captions and mark labels, progress lines, the summary
 * and log lines (base_log_set_filter).
 *
 * Thread-safe: adding and scrubbing take a lock (log lines are scrubbed on
 * whatever thread logs).
 */
#ifndef FOVEA_AGENT_SESSION_SECRETS_H
#define FOVEA_AGENT_SESSION_SECRETS_H

#include <stddef.h>

#include "base/err.h"

typedef struct agent_secrets agent_secrets;

/* An empty set. *out is the caller's (agent_secrets_destroy). Errors:
 * BASE_EINVAL, BASE_ENOMEM. Any thread. */
base_err agent_secrets_create(agent_secrets **out, char *err);

/* Frees the set, wiping the values first. s is consumed (NULL: no-op). Any
 * thread, once no other thread uses s; clear a log filter using it
 * (base_log_set_filter) first. Errors: none. */
void agent_secrets_destroy(agent_secrets *s);

/* Adds value (copied) and its case variants; empty or NULL values and
 * duplicates are ignored. value stays the caller's. Any thread. Errors:
 * BASE_ENOMEM; BASE_ETOOBIG when value is longer than 65536 bytes or the set
 * already holds 6144 forms (about 2000 secrets). On an error nothing of value
 * is held: the caller must not write value (or type it where it will be
 * echoed) and should fail the step or run. */
base_err agent_secrets_add(agent_secrets *s, const char *value);

/* The number of distinct forms held (up to three per secret), for tests and
 * the trace. Any thread. Errors: none (NULL s: 0). */
int agent_secrets_count(const agent_secrets *s);

/* Replaces, in place, every appearance of every secret in buf (a
 * NUL-terminated string with cap bytes of room) with "********", in all the
 * forms listed above; when the mask is longer than the match and room runs
 * out, the tail is cut rather than the mask. buf stays the caller's. NULL s
 * or buf: no-op. Any thread. Errors: none. */
void agent_secrets_scrub(const agent_secrets *s, char *buf, size_t cap);

/* The forms held, as a JSON array of strings (for the page-side search of
 * agent_secret_rects.js, run in an isolated world only). A base_malloc'd
 * string the caller wipes, frees and never logs. Any thread. Errors: NULL on
 * ENOMEM or an empty set. */
char *agent_secrets_json(const agent_secrets *s);

/* Copies src into dst (cap bytes of room) with every secret masked in the
 * WHOLE of src first, so that cutting to cap never leaves a secret's prefix.
 * Both stay the caller's. Any thread. Errors: BASE_EINVAL (NULL dst, cap 0),
 * BASE_ENOMEM (dst is then empty, never the unmasked source). NULL src: dst
 * empty. */
base_err agent_secrets_scrub_copy(const agent_secrets *s, char *dst, size_t cap, const char *src);

/* base_log_filter_fn adapter; scrubs msg (cap bytes of room) in place. user
 * is an agent_secrets that must outlive the filter. Runs on whichever thread
 * logs. Errors: none. */
void agent_secrets_log_filter(char *msg, size_t cap, void *user);

/* 1 when a form field with this type and autocomplete attribute (either may
 * be NULL) holds a secret: type=password, or an autocomplete token cc-* (card
 * data), current-password, new-password or one-time-code. Pure; any thread. */
int agent_field_sensitive(const char *type, const char *autocomplete);

struct cJSON;

/* Masks every secret s knows in every string of j (j itself, members and
 * items, recursively), for a record about to be written. Fail-closed: a
 * string that cannot be masked for want of memory is emptied in place, never
 * left as it was. j stays the caller's and must own its strings (no cJSON
 * references). Any thread. Errors: BASE_ENOMEM when some string was emptied
 * (the record lost text but holds no secret); NULL s or j, or an empty set:
 * BASE_OK, nothing changed. */
base_err agent_secrets_scrub_json(const agent_secrets *s, struct cJSON *j);

#endif
