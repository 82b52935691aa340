/* tests/fuzz/fuzz_init.c: the set-up every fuzz target shares. cJSON
 * allocates through base_malloc, as in every fovea program, so a target sees
 * the same allocator (and the same failure behaviour) as the code it
 * fuzzes in production. */
#include "base/json_alloc.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    base_json_alloc_install();
    return 0;
}
