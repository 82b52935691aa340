/* base/json_alloc.h: cJSON allocates through base_malloc/base_free.
 *
 * cJSON keeps its own allocator pointers (malloc and free by default), so
 * without this its allocations escape base/alloc.h: failure injection
 * (base_alloc_fail_after) never reaches the JSON a module builds or parses,
 * and allocation-failure tests stop short of the code that sends CDP
 * commands. Every program and test that uses cJSON calls this once at start.
 */
#ifndef FOVEA_BASE_JSON_ALLOC_H
#define FOVEA_BASE_JSON_ALLOC_H

#include <stddef.h>

#include "base/err.h"

/* Routes cJSON's allocations through base_malloc and base_free
 * (cJSON_InitHooks). Idempotent. Call at process start, before any other
 * thread runs (cJSON's hooks are plain globals). Errors: none. Memory
 * cJSON returns (cJSON_Print's text, parsed trees) stays compatible with
 * free(): base_free is free. */
void base_json_alloc_install(void);

/* Says why cJSON_Parse* returned NULL on s[0..n), which cJSON itself does not:
 * BASE_EPROTO when s is not one valid JSON text nested at most as deep as cJSON
 * allows (err, optional, gets "invalid JSON near line L, column C: ..."), else
 * BASE_ENOMEM (the text is valid, so the parser ran out of memory; err gets
 * "out of memory parsing JSON"). Call it only on the failure path: it scans s
 * once. Borrows s. Any thread. No allocation. */
base_err base_json_parse_error(const char *s, size_t n, char *err);

/* cJSON_AddItemToObject (key k), cJSON_AddItemToArray and
 * cJSON_ReplaceItemInObjectCaseSensitive that take item over in every case:
 * when the add fails (NULL container, the key's copy out of memory) item is
 * deleted instead of leaked, so a builder can add unchecked and judge the
 * whole tree afterwards (base_alloc_thread_failures). Returns 1 when item
 * was added, else 0. item (may be NULL) then belongs to the container or is
 * freed. On the thread that owns the tree. */
struct cJSON;
int base_json_add(struct cJSON *obj, const char *k, struct cJSON *item);
int base_json_push(struct cJSON *arr, struct cJSON *item);
int base_json_replace(struct cJSON *obj, const char *k, struct cJSON *item);

#endif
