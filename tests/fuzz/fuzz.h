/* tests/fuzz/fuzz.h: the libFuzzer entry point every fuzz target defines.
 * Without FOVEA_FUZZ the targets link replay_main.c instead of libFuzzer. */
#ifndef FOVEA_TESTS_FUZZ_H
#define FOVEA_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

/* Run once before the first input (libFuzzer calls it; replay_main.c
 * too): cJSON allocates through base_malloc, as in every fovea program. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
