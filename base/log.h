/* base/log.h: component logging on stderr.
 *
 * Components are enabled with FOVEA_TRACE, e.g. "all,-motion" or "cdp,perc".
 * Without FOVEA_TRACE, info and above are printed for every component.
 * Enabled components print from debug up. Messages carry no newline and must
 * never contain secrets or base64 payloads.
 */
#ifndef FOVEA_BASE_LOG_H
#define FOVEA_BASE_LOG_H

#include <stddef.h>

typedef enum base_log_comp {
    BASE_LOG_BASE,
    BASE_LOG_CDP,
    BASE_LOG_PERC,
    BASE_LOG_SNAP,
    BASE_LOG_MOTION,
    BASE_LOG_CASCADE,
    BASE_LOG_AGENT,
    BASE_LOG_TOOL,
    BASE_LOG_COMP_COUNT
} base_log_comp;

typedef enum base_log_level {
    BASE_LOG_DEBUG,
    BASE_LOG_INFO,
    BASE_LOG_WARN,
    BASE_LOG_ERROR,
    BASE_LOG_SILENT
} base_log_level;

/* Writes one line "fovea[comp] level: message" to stderr if enabled. Each line
 * is written with a single write so lines from threads do not interleave.
 * Any thread. */
void base_log(base_log_comp comp, base_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A filter that rewrites a message in place (msg is NUL-terminated, cap
 * bytes of room) before it is written: the runner masks secrets with it. */
typedef void (*base_log_filter_fn)(char *msg, size_t cap, void *user);

/* Sets (or with NULL clears) the one message filter. It runs under a lock on
 * the logging thread; clearing waits for a running call, so user may be freed
 * right after. Any thread. */
void base_log_set_filter(base_log_filter_fn fn, void *user);

/* True when a message of this component and level would be printed. */
int base_log_enabled(base_log_comp comp, base_log_level lvl);

/* Re-reads a trace spec (NULL reads FOVEA_TRACE). Call before starting
 * threads; not thread-safe against concurrent base_log. */
void base_log_configure(const char *spec);

/* Sets the level below which nothing is printed for components that the
 * trace spec does not enable (default info). Same threading as configure. */
void base_log_set_default_level(base_log_level lvl);

#endif
