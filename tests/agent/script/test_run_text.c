/* tests/agent/script/test_run_text.c: `fovea run` on names the web writes oddly.
 *
 * The task tests/agent/script/tasks/wild_text.json runs on the wild fixture page
 * snap/wild/items.html: assert_text and wait_for must match text written
 * with no-break and zero-width spaces (one normalisation, the snapper's),
 * and a click on "Item 4" must land on Item 4, not on its neighbours "Item
 * 40".."Item 49999", with the match recorded as exact in the trace.
 */
#include "check.h"

#include <sys/wait.h>

#include "base/alloc.h"
#include "base/fs.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"

static void wild_text(void)
{
    const char *out = FOVEA_BINARY_DIR "/tests/agent/script/out_wild_text";
    char cmd[2048], path[1200];
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s' run '%s/tests/agent/script/tasks/wild_text.json' --no-humanize "
             "--site '%s/tests/fixtures/pages' --out '%s' > '%s' 2>&1",
             out, FOVEA, FOVEA_SOURCE_DIR, FOVEA_SOURCE_DIR, out, path);
    int st = system(cmd);
    uint8_t *d = NULL;
    size_t n = 0;
    char *log = base_read_file(path, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", log ? log : "");
    base_free(log);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d, output:\n%s",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, copy);
    snprintf(path, sizeof path, "%s/trace.jsonl", out);
    d = NULL;
    char *trace = base_read_file(path, &d, &n, 64u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    int exact = trace && strstr(trace, "\"match\":\"exact\",\"partial\":false") != NULL;
    base_free(trace);
    CHECK_MSG(exact, "the click's snap match is not recorded as exact");
}

static const check_case cases[] = {{"wild_text", wild_text}, {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
