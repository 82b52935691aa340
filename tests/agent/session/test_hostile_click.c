/* tests/agent/session/test_hostile_click.c: a hostile page cannot blind or steer a
 * grounded click through the session (click_at {"target": "Save"}) on a real
 * Chromium (issue 23), with the fixture pages of tests/cascade/test_hostile.c:
 * each of the 23 one-line overrides of built-ins (override.html?o=NAME), the
 * page that swaps Save's and Delete's rectangles (override.html?o=spoof), the
 * buttons in a closed shadow root (closed.html). What was pressed is read
 * from <body data-pressed> in an isolated world of the test's own. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cdp/frames.h"
#include "check.h"
#include "harness.h"
#include "hostile.h"
#include "tool_session.h"


static void pressed(cdp_page *p, char *buf, size_t n)
{
    int ctx = 0;
    cJSON *v = NULL;
    snprintf(buf, n, "?");
    if (cdp_frame_isolated_world(p, NULL, cdp_page_target_id(p), "fovea_test_truth", 5000, &ctx,
                                 NULL) == BASE_OK &&
        cdp_page_evaluate_in(p, NULL, ctx, "document.body.getAttribute('data-pressed') || ''", &v,
                             5000, NULL) == BASE_OK &&
        cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(v);
}

/* click_at Save on path: 1 when Save and only Save was pressed and the tool
 * said so; 2 when nothing was pressed and the tool said it failed; 0 else. */
static int click_save(const char *path, char *why, size_t n)
{
    cdp_page *p = NULL;
    fovea_session *s = ts_open(1280, 800, path, &p);
    if (!s) {
        snprintf(why, n, "no session on %s", path);
        return 0;
    }
    tool_result r;
    int ok = tool_call(s, "click_at", "{\"target\": \"Save\", \"timeout_ms\": 3000}", &r);
    char got[64];
    pressed(p, got, sizeof got);
    int rc = ok && r.delivered && strcmp(got, "save;") == 0 ? 1
             : !ok && got[0] == '\0'                       ? 2
                                                           : 0;
    snprintf(why, n, "tool %s (%s), pressed '%s'", ok ? "ok" : "failed", r.message, got);
    tool_result_fini(&r);
    fovea_session_destroy(s);
    cdp_page_close(p);
    return rc;
}

static void overrides_click(void)
{
    HARNESS_OR_SKIP(h);
    int failed = 0;
    for (size_t i = 0; i < HOSTILE_N_OVERRIDES; i++) {
        char path[160], why[512];
        snprintf(path, sizeof path, "/hostile/override.html?o=%s", hostile_overrides[i]);
        int rc = click_save(path, why, sizeof why);
        if (rc != 1)
            fprintf(stderr, "  %s: %s\n", hostile_overrides[i], why);
        failed += rc != 1;
    }
    CHECK_MSG(failed == 0, "%d of %zu overrides blinded or steered the click", failed,
              HOSTILE_N_OVERRIDES);
}

static void spoofed_rects(void)
{
    HARNESS_OR_SKIP(h);
    char why[512];
    int rc = click_save("/hostile/override.html?o=spoof", why, sizeof why);
    CHECK_MSG(rc == 1 || rc == 2, "%s", why);
}

/* Save and Delete inside a closed shadow root: the grounded click finds Save
 * (the dom provider reads the root through fovea's world) and presses it. */
static void closed_shadow(void)
{
    HARNESS_OR_SKIP(h);
    char why[512];
    int rc = click_save("/hostile/closed.html", why, sizeof why);
    CHECK_MSG(rc == 1, "%s", why);
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"overrides_click", overrides_click},
        {"spoofed_rects", spoofed_rects},
        {"closed_shadow", closed_shadow},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
