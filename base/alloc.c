/* base/alloc.c: thin wrappers over the C allocator with failure injection.
 *
 * The counters are atomics so that the wrappers stay cheap and thread-safe;
 * injection is a test-only feature, so its cost is one relaxed load in the
 * common case.
 */
#include "base/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static atomic_ulong fail_countdown;
static atomic_ulong alloc_count;
static _Thread_local unsigned long thread_failures; /* NULLs returned on this thread */

static int should_fail(void)
{
    atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed);
    unsigned long c = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
    if (c == 0)
        return 0;
    /* Only the allocation that brings the countdown from 1 to 0 fails. */
    while (c != 0) {
        if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1))
            return c == 1;
    }
    return 0;
}

unsigned long base_alloc_fail_after(unsigned long n)
{
    atomic_store(&fail_countdown, n);
    return atomic_exchange(&alloc_count, 0);
}

/* p, counting it when it is a failure. */
static void *counted(void *p)
{
    if (!p)
        thread_failures++;
    return p;
}

unsigned long base_alloc_thread_failures(void)
{
    return thread_failures;
}

void *base_malloc(size_t size)
{
    if (should_fail())
        return counted(NULL);
    return counted(malloc(size ? size : 1));
}

void *base_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return counted(NULL);
    if (should_fail())
        return counted(NULL);
    return counted(calloc(n ? n : 1, size ? size : 1));
}

void *base_realloc(void *p, size_t size)
{
    if (should_fail())
        return counted(NULL);
    return counted(realloc(p, size ? size : 1));
}

void base_free(void *p)
{
    free(p);
}

char *base_strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *d = base_malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *base_strdup(const char *s)
{
    if (!s)
        return NULL;
    return base_strndup(s, strlen(s));
}

void base_alloc_keep_large_buffers(void)
{
#ifdef __GLIBC__
    /* Both thresholds fixed: mallopt also stops glibc's dynamic threshold. */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}
