/* base/log.c: FOVEA_TRACE parsing and line-atomic stderr output.
 *
 * Configuration is read lazily on first use, so programs that never call
 * base_log_configure still honour FOVEA_TRACE. The enabled set is a bitmask
 * read without locks: configuration happens before threads start.
 */
#include "base/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const comp_names[BASE_LOG_COMP_COUNT] = {
    "base", "cdp", "perc", "snap", "motion", "cascade", "agent", "tool",
};
static const char *const level_names[] = {"debug", "info", "warn", "error"};

static unsigned trace_mask;
static base_log_level default_level = BASE_LOG_INFO;
static int configured;
/* The message filter (secret masking) runs under this lock, so that
 * base_log_set_filter(NULL, NULL) returns only when no line is still being
 * filtered and the filter's data can be freed. */
static pthread_mutex_t filter_mu = PTHREAD_MUTEX_INITIALIZER;
static base_log_filter_fn filter_fn;
static void *filter_user;

void base_log_set_filter(base_log_filter_fn fn, void *user)
{
    pthread_mutex_lock(&filter_mu);
    filter_fn = fn;
    filter_user = user;
    pthread_mutex_unlock(&filter_mu);
}

void base_log_configure(const char *spec)
{
    if (!spec)
        spec = getenv("FOVEA_TRACE");
    trace_mask = 0;
    configured = 1;
    if (!spec)
        return;
    /* Walk a comma-separated list; "-name" removes, "all" adds everything. */
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int remove = 0;
        const char *w = p;
        if (n > 0 && *w == '-') {
            remove = 1;
            w++;
            n--;
        }
        unsigned bits = 0;
        if (n == 3 && strncasecmp(w, "all", 3) == 0) {
            bits = (1u << BASE_LOG_COMP_COUNT) - 1;
        } else {
            for (int i = 0; i < BASE_LOG_COMP_COUNT; i++) {
                if (strlen(comp_names[i]) == n && strncasecmp(w, comp_names[i], n) == 0)
                    bits = 1u << i;
            }
        }
        if (remove)
            trace_mask &= ~bits;
        else
            trace_mask |= bits;
        if (!end)
            break;
        p = end + 1;
    }
}

void base_log_set_default_level(base_log_level lvl)
{
    default_level = lvl;
}

int base_log_enabled(base_log_comp comp, base_log_level lvl)
{
    if (!configured)
        base_log_configure(NULL);
    if ((unsigned)comp >= BASE_LOG_COMP_COUNT || lvl >= BASE_LOG_SILENT)
        return 0;
    if (trace_mask & (1u << comp))
        return 1;
    return lvl >= default_level;
}

void base_log(base_log_comp comp, base_log_level lvl, const char *fmt, ...)
{
    if (!base_log_enabled(comp, lvl))
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "fovea[%s] %s: ", comp_names[comp], level_names[lvl]);
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    pthread_mutex_lock(&filter_mu);
    if (filter_fn) {
        filter_fn(line + n, sizeof line - (size_t)n - 1, filter_user);
        len = strlen(line);
    }
    pthread_mutex_unlock(&filter_mu);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    /* One write() per line keeps concurrent lines whole. */
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}
