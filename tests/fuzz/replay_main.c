/* tests/fuzz/replay_main.c: runs a fuzz target over a saved corpus.
 *
 * Without libFuzzer (FOVEA_FUZZ off) every target is linked with this main
 * and registered as a ctest that replays tests/fuzz/corpus/<name>/: each
 * argument is a file or a directory whose regular files are fed to
 * LLVMFuzzerTestOneInput one by one. A crash or sanitizer report fails the
 * test; otherwise it prints "N passed, 0 failed" like the unit tests. Files
 * are read with plain stdio because this driver must not depend on fovea.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Larger than any target's own input cap, so the cap itself is exercised. */
#define REPLAY_MAX (64u << 20)

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX);
    if (!buf) {
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX, f);
    fclose(f);
    /* Copy into an exact-size block so ASan catches reads past the end. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file of dir in name order (stable logs). */
static int run_dir(const char *dir, int *passed, int *failed)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t count = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (count + 1) * sizeof(*names));
        if (!grown)
            break;
        names = grown;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        names[count] = malloc(len);
        if (!names[count])
            break;
        snprintf(names[count], len, "%s/%s", dir, de->d_name);
        count++;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof(*names), cmp_names);
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) == 0)
                (*passed)++;
            else
                (*failed)++;
        }
        free(names[i]);
    }
    free(names);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    int passed = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            failed++;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &passed, &failed) != 0)
                failed++;
        } else if (run_file(argv[i]) == 0) {
            passed++;
        } else {
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
