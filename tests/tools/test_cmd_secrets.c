/* tests/tools/test_cmd_secrets.c: secret field values stay out of every
 * command's output (issue 23), on a sign-in page whose fields an autofill
 * filled (tests/fixtures/pages/guard/signin.html: a password, a card number
 * with autocomplete=cc-number, a one-time code), in a real headless
 * Chromium through the built binary.
 *
 * snap:    `fovea snap` answers for the password and the card field, with and
 *          without a click, name the field but never hold its value.
 * outline: `fovea outline` (text and --json) shows the fields, masked.
 * record:  `fovea record` of the password field: case.json and
 *          snapshot.json hold none of the values.
 * Each also checks the e-mail (not a secret) is still shown, so a test that
 * prints nothing cannot pass.
 */
#include "check.h"

#include <sys/wait.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "svc_util.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define SITE FOVEA_SOURCE_DIR "/tests/fixtures/pages/guard"
#define OUT FOVEA_BINARY_DIR "/tests/tools/out_secrets"

/* Runs a shell command line; its stdout in OUT/name.out. Returns the exit
 * status (-1 when it did not exit). */
static int sh(const char *name, const char *cmd, char **out)
{
    char line[4096];
    snprintf(line, sizeof line, "mkdir -p '%s' && (%s) > '%s/%s.out' 2> '%s/%s.err'", OUT, cmd,
             OUT, name, OUT, name);
    int st = system(line);
    char path[700];
    snprintf(path, sizeof path, "%s/%s.out", OUT, name);
    *out = svc_slurp(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int has_secret(const char *s)
{
    return strstr(s, "TopSecretPW1") || strstr(s, "4111111111111111") ||
           strstr(s, "4111 1111") || strstr(s, "739215");
}

static void snap(void)
{
    char *out = NULL;
    int st = sh("snap",
                "printf '%s\\n' '{\"id\":1,\"box\":[100,210,400,242],\"label\":\"Password\"}' "
                "'{\"id\":2,\"box\":[100,290,400,322],\"label\":\"Card number\"}' "
                "'{\"id\":3,\"box\":[100,210,400,242],\"label\":\"Password\",\"click\":true}' "
                "'{\"id\":4,\"box\":[100,130,400,162],\"label\":\"Email\"}' | '" FOVEA
                "' snap --site '" SITE "' --url /signin.html --no-humanize",
                &out);
    CHECK_MSG(st == 0, "exit %d: %s", st, out);
    CHECK_MSG(!has_secret(out), "%s", out);
    CHECK_MSG(strstr(out, "jo@example.com") != NULL, "%s", out);
    CHECK_MSG(strstr(out, "\"id\":3") != NULL && strstr(out, "\"id\":2") != NULL, "%s", out);
    base_free(out);
}

static void outline(void)
{
    char *out = NULL;
    int st = sh("outline", "'" FOVEA "' outline --site '" SITE "' --url /signin.html", &out);
    CHECK_MSG(st == 0, "exit %d: %s", st, out);
    CHECK_MSG(!has_secret(out), "%s", out);
    CHECK_MSG(strstr(out, "jo@example.com") != NULL && strstr(out, "********") != NULL, "%s",
              out);
    base_free(out);
    st = sh("outline_json", "'" FOVEA "' outline --json --site '" SITE "' --url /signin.html",
            &out);
    CHECK_MSG(st == 0 && !has_secret(out) && strstr(out, "jo@example.com"), "exit %d: %s", st,
              out);
    base_free(out);
}

static void record(void)
{
    char *out = NULL;
    int st = sh("record",
                "rm -rf '" OUT "/case' && '" FOVEA "' record --site '" SITE
                "' --url /signin.html --box 100,210,400,242 --label Password "
                "--expect-selector '#pw' --out '" OUT "/case'",
                &out);
    CHECK_MSG(st == 0, "exit %d: %s", st, out);
    char *c = svc_slurp(OUT "/case/case.json"), *s = svc_slurp(OUT "/case/snapshot.json");
    CHECK_MSG(c[0] && !has_secret(c), "case.json: %.2000s", c);
    CHECK_MSG(s[0] && !has_secret(s), "snapshot.json holds a secret");
    CHECK_MSG(strstr(s, "jo@example.com") != NULL, "snapshot.json lost the e-mail too");
    base_free(c);
    base_free(s);
    base_free(out);
}

static const check_case cases[] = {
    {"snap", snap}, {"outline", outline}, {"record", record}, {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
