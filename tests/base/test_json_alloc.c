/* tests/base/test_json_alloc.c: cJSON allocates through base_malloc (so
 * failure injection reaches it), and a failed parse is told apart as bad text
 * or no memory. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/json_alloc.h"
#include "base/json_get.h"
#include "check.h"

/* check_main installed the hooks: building a tree is counted by base/alloc,
 * and failing its first allocation fails the build. */
static void hooks_installed(void)
{
    base_alloc_fail_after(0);
    cJSON *o = cJSON_CreateObject();
    CHECK(o != NULL);
    CHECK(cJSON_AddStringToObject(o, "k", "v") != NULL);
    unsigned long n = base_alloc_fail_after(0);
    cJSON_Delete(o);
    CHECK(n >= 3); /* the object, the member, its key and value */
    base_alloc_fail_after(1);
    o = cJSON_CreateObject();
    base_alloc_fail_after(0);
    CHECK(o == NULL);
    /* Installing again changes nothing. */
    base_json_alloc_install();
    base_alloc_fail_after(1);
    o = cJSON_CreateArray();
    base_alloc_fail_after(0);
    CHECK(o == NULL);
}

/* Every allocation of a parse, failed in turn: NULL, classified ENOMEM,
 * nothing leaked (ASan's leak check at exit). Bad text is EPROTO with a
 * place, whatever memory does. */
static void parse_failures(void)
{
    const char *good = "{\"a\":[1,2,{\"b\":\"text\"}],\"c\":true,\"d\":null}";
    base_alloc_fail_after(0);
    cJSON *v = cJSON_Parse(good);
    CHECK(v != NULL);
    cJSON_Delete(v);
    unsigned long total = base_alloc_fail_after(0);
    CHECK(total > 5);
    for (unsigned long k = 1; k <= total; k++) {
        base_alloc_fail_after(k);
        v = cJSON_Parse(good);
        base_alloc_fail_after(0);
        CHECK_MSG(v == NULL, "allocation %lu of %lu failed but the parse succeeded", k, total);
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK_EQ(base_json_parse_error(good, strlen(good), err), BASE_ENOMEM);
        CHECK(strstr(err, "out of memory") != NULL);
    }
    const char *bad = "{\"a\":[1,2,}";
    CHECK(cJSON_Parse(bad) == NULL);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(base_json_parse_error(bad, strlen(bad), err), BASE_EPROTO);
    CHECK(strstr(err, "column") != NULL);
    base_errclear(err);
    CHECK_EQ(base_json_parse_error(NULL, 0, err), BASE_EPROTO);
    /* Deeper than cJSON parses is bad text, not memory. */
    char deep[2 * 1200 + 1];
    memset(deep, '[', 1200);
    memset(deep + 1200, ']', 1200);
    deep[2400] = '\0';
    CHECK(cJSON_Parse(deep) == NULL);
    base_errclear(err);
    CHECK_EQ(base_json_parse_error(deep, strlen(deep), err), BASE_EPROTO);
}

static void *fail_once(void *arg)
{
    int *counted = arg;
    base_alloc_fail_after(1);
    void *p = base_malloc(16);
    base_alloc_fail_after(0);
    base_free(p);
    *counted = base_alloc_thread_failures() == 1;
    return NULL;
}

/* The per-thread failure count: a failed allocation (cJSON's too) counts
 * on the thread that made it, and only there. */
static void thread_failures(void)
{
    unsigned long f0 = base_alloc_thread_failures();
    cJSON *o = cJSON_CreateObject();
    CHECK(o != NULL);
    CHECK(cJSON_AddStringToObject(o, "a", "b") != NULL);
    CHECK_EQ(base_alloc_thread_failures(), f0);
    base_alloc_fail_after(1);
    CHECK(cJSON_AddStringToObject(o, "c", "d") == NULL);
    base_alloc_fail_after(0);
    cJSON_Delete(o);
    CHECK_EQ(base_alloc_thread_failures(), f0 + 1);
    pthread_t th;
    int counted = 0;
    CHECK_EQ(pthread_create(&th, NULL, fail_once, &counted), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK(counted);                                  /* counted there */
    CHECK_EQ(base_alloc_thread_failures(), f0 + 1); /* not here */
}

/* base_json_str: the string member, else the default (absent, not a
 * string, not an object). */
static void json_str(void)
{
    cJSON *o = cJSON_Parse("{\"a\": \"x\", \"n\": 3, \"e\": \"\"}");
    CHECK(o != NULL);
    CHECK_STR(base_json_str(o, "a", NULL), "x");
    CHECK_STR(base_json_str(o, "e", "d"), "");
    CHECK(base_json_str(o, "n", NULL) == NULL);
    CHECK_STR(base_json_str(o, "missing", "d"), "d");
    CHECK(base_json_str(NULL, "a", NULL) == NULL);
    cJSON_Delete(o);
}

/* base_json_value_end of a whole string from its start. */
static size_t vend(const char *t)
{
    return base_json_value_end(t, strlen(t), 0);
}

/* base_json_value_end: one past the closing bracket, strings honoured. */
static void json_value_end(void)
{
    const char *t = "say {\"a\": \"}{\\\"]\", \"b\": [1, {\"c\": 2}]} and more";
    size_t at = (size_t)(strchr(t, '{') - t);
    size_t end = base_json_value_end(t, strlen(t), at);
    CHECK_EQ(end, (size_t)(strstr(t, " and more") - t));
    CHECK_EQ(vend("[1, [2]] x"), 8u);
    CHECK_EQ(vend("{\"a\": [1, 2"), 0u); /* cut off */
    CHECK_EQ(vend("{\"a\": \"}"), 0u);   /* the '}' is inside a string */
    CHECK_EQ(vend("}"), 0u);             /* closes nothing */
    CHECK_EQ(vend("{\"a\\"), 0u);        /* an escape at the very end */
}

/* base_json_add / push / replace take the item over: added, or freed when
 * the add fails (no container, the key's copy out of memory), so a builder
 * that adds unchecked never leaks (the sanitizer build checks the frees). */
static void json_add_takes_item(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *a = cJSON_CreateArray();
    CHECK(base_json_add(o, "a", cJSON_CreateNumber(1)));
    CHECK(base_json_push(a, cJSON_CreateString("x")));
    CHECK(base_json_replace(o, "a", cJSON_CreateNumber(2)));
    CHECK_EQ(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "a")), 2.0);
    CHECK(!base_json_replace(o, "missing", cJSON_CreateNumber(3)));
    CHECK(cJSON_GetObjectItem(o, "missing") == NULL);
    CHECK(!base_json_add(NULL, "a", cJSON_CreateString("freed")));
    CHECK(!base_json_push(NULL, cJSON_CreateString("freed")));
    CHECK(!base_json_add(o, "b", NULL));
    /* The key's copy fails: the item is freed, the object unchanged. */
    cJSON *item = cJSON_CreateString("freed too");
    base_alloc_fail_after(1);
    CHECK(!base_json_add(o, "b", item));
    base_alloc_fail_after(0);
    CHECK(cJSON_GetObjectItem(o, "b") == NULL);
    CHECK_EQ(cJSON_GetArraySize(a), 1);
    cJSON_Delete(a);
    cJSON_Delete(o);
}

static const check_case cases[] = {{"json_str", json_str},
                                   {"json_add_takes_item", json_add_takes_item},
                                   {"json_value_end", json_value_end},
                                   {"hooks_installed", hooks_installed},
                                   {"thread_failures", thread_failures},
                                   {"parse_failures", parse_failures},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
