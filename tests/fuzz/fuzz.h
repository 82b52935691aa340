/* tests/fuzz/fuzz.h: the libFuzzer entry point every fuzz target defines.
 * Without FOVEA_FUZZ the targets link replay_main.c instead of libFuzzer. */
#ifndef FOVEA_TESTS_FUZZ_H
#define FOVEA_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

#endif
