/* tests/base/test_env.c: base_env and base_env_int (base/env.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "base/env.h"
#include "check.h"

/* The first non-empty of two variables; empty counts as unset. */
static void first_set(void)
{
    setenv("FOVEA_TEST_A", "", 1);
    setenv("FOVEA_TEST_B", "b", 1);
    CHECK_STR(base_env("FOVEA_TEST_A", "FOVEA_TEST_B"), "b");
    setenv("FOVEA_TEST_A", "a", 1);
    CHECK_STR(base_env("FOVEA_TEST_A", "FOVEA_TEST_B"), "a");
    unsetenv("FOVEA_TEST_A");
    unsetenv("FOVEA_TEST_B");
    CHECK(base_env("FOVEA_TEST_A", "FOVEA_TEST_B") == NULL);
    CHECK(base_env("FOVEA_TEST_A", NULL) == NULL);
}

/* Unset leaves the default; junk and out-of-range values are refused by
 * name and leave it too. */
static void integers(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    int v = 7;
    unsetenv("FOVEA_TEST_N");
    CHECK_OK(base_env_int("FOVEA_TEST_N", 0, 100, &v, err));
    CHECK_EQ(v, 7);
    setenv("FOVEA_TEST_N", "42", 1);
    CHECK_OK(base_env_int("FOVEA_TEST_N", 0, 100, &v, err));
    CHECK_EQ(v, 42);
    static const char *const bad[] = {"4x", "-1", "101", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("FOVEA_TEST_N", bad[i], 1);
        v = 7;
        err[0] = '\0'; /* the first error of a buffer wins (base/err.h) */
        CHECK_EQ(base_env_int("FOVEA_TEST_N", 0, 100, &v, err), BASE_EINVAL);
        CHECK_EQ(v, 7);
        CHECK_STR(err, "FOVEA_TEST_N: expected a non-negative integer");
    }
    err[0] = '\0';
    CHECK_EQ(base_env_int("FOVEA_TEST_N", 1, 9, &v, err), BASE_EINVAL);
    CHECK_STR(err, "FOVEA_TEST_N: expected an integer in 1..9");
    unsetenv("FOVEA_TEST_N");
}

static const check_case cases[] = {{"first_set", first_set}, {"integers", integers}, {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
