/* base/alloc.h: the only allocator entry points fovea code uses.
 *
 * Routing every allocation through here lets tests inject failures: with
 * base_alloc_fail_after(n) the n-th following allocation returns NULL, which
 * must surface as a clean BASE_ENOMEM and no leak.
 */
#ifndef FOVEA_BASE_ALLOC_H
#define FOVEA_BASE_ALLOC_H

#include <stddef.h>

/* malloc/calloc/realloc/free equivalents. Thread-safe. base_free(NULL) is a
 * no-op. base_calloc checks n*size for overflow. */
void *base_malloc(size_t size);
void *base_calloc(size_t n, size_t size);
void *base_realloc(void *p, size_t size);
void base_free(void *p);

/* Duplicates a NUL-terminated string (NULL -> NULL). Caller frees. */
char *base_strdup(const char *s);
/* Duplicates n bytes of s and NUL-terminates. Caller frees. */
char *base_strndup(const char *s, size_t n);

/* Test hook: the n-th allocation from now (1 = the next) fails, and every
 * later one succeeds again. n = 0 disables injection. Returns the number of
 * allocations performed since the last call, so a test can first count a
 * path's allocations and then fail each in turn. Any thread. */
unsigned long base_alloc_fail_after(unsigned long n);

/* The number of allocations that have returned NULL on the calling thread so
 * far (injected or real), cJSON's included. A builder of a large JSON document
 * that does not check each cJSON_Add* call reads it before and after building:
 * a change means some member is missing, and the document must be dropped as
 * BASE_ENOMEM rather than written incomplete. Nothing changes owner. Any
 * thread; it counts the caller's own thread only, so other threads' failures
 * never reach it. Errors: none. */
unsigned long base_alloc_thread_failures(void);

/* Tells glibc to serve and keep large blocks (up to 256 MiB) in the heap
 * instead of mapping and unmapping each one. Screenshots allocate fresh
 * multi-megabyte buffers per frame; with the default thresholds every frame
 * pays page faults for them (about a third of the render pipeline's time). The
 * cost is that freed frame buffers stay in the process's RSS for reuse. Call
 * once at start-up, before other threads run. A no-op elsewhere than glibc.
 * Errors: none. */
void base_alloc_keep_large_buffers(void);

#endif
