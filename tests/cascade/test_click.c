/* tests/cascade/test_click.c: the click cascade on live fixture pages
 * (tests/fixtures/pages/hand/click.html and frames.html) in real Chromium.
 * Every page logs the events it receives, so the tests check what arrived:
 * trusted clicks, the humanized mousemove trail, nothing at all on a
 * disabled or covered target. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "hand_util.h"
#include "harness.h"

#define GO "/html[1]/body[1]/button[1]"
#define STRICT "//*[@id='strict']"
#define NOOP "/html[1]/body[1]/button[3]"
#define ROW "/html[1]/body[1]/div[2]"
#define OFF "//*[@id='off']"
#define ARIAOFF "//*[@id='ariaoff']"
#define CHK "/html[1]/body[1]/label[1]/input[1]"
#define TOG "//*[@id='tog']"
#define SLOWTOG "//*[@id='slowtog']"
#define COVERED "//*[@id='covered']"
#define ACCEPT "/html[1]/body[1]/div[3]/button[2]"
#define FSBTN "/html[1]/body[1]/fieldset[1]/button[1]"
#define FAR "//*[@id='far']"
#define HIDDEN "//*[@id='hidden']"

static cdp_page *open_click(void)
{
    return harness_open(800, 600, 1.0, "/hand/click.html");
}

static cascade_hand *fast_hand(cdp_page *p, cascade_opts *o)
{
    cascade_hand *h = NULL;
    char err[256] = "";
    if (cascade_hand_create(p, o, &h, err))
        fprintf(stderr, "hand: %s\n", err);
    return h;
}

static void humanized_trail(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_click();
    CHECK(p);
    cascade_opts o;
    cascade_opts_init(&o);
    o.seed = 7;
    o.effect_ms = 300;
    cascade_hand *h = fast_hand(p, &o);
    CHECK(h);
    base_point start = cascade_hand_cursor(h);
    cascade_target t = hu_xpath(GO, NULL);
    cascade_result r;
    char err[256] = "";
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_MSG(r.success, "click failed: %s", r.message);
    CHECK_EQ(r.tried[0].tier, 1);
    /* The path replay is timed on its own (Algorithm 6: >= 100 ms sweep). */
    CHECK_MSG(r.motion_ms >= 100 && r.motion_ms < r.ms, "motion %.1f of %.1f ms", r.motion_ms,
              r.ms);
    cJSON *ev = hu_events(p);
    int untrusted = 0;
    int moves = hu_count(ev, "mousemove", &untrusted);
    CHECK_EQ(untrusted, 0);
    CHECK_MSG(moves >= 12, "only %d mousemove events", moves);
    CHECK_EQ(hu_count(ev, "click", &untrusted), 1);
    CHECK_EQ(untrusted, 0);
    CHECK_EQ(hu_count(NULL, NULL, NULL), 0);
    /* The trail: ends inside the button (20..140 x 20..52), curves away
     * from the straight line from the start. */
    double maxdev = 0, lx = 0, ly = 0;
    base_point end = r.clicked_at;
    double dx = end.x - start.x, dy = end.y - start.y, d = sqrt(dx * dx + dy * dy);
    const cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "type")->valuestring, "mousemove"))
            continue;
        double x = cJSON_GetObjectItemCaseSensitive(e, "x")->valuedouble;
        double y = cJSON_GetObjectItemCaseSensitive(e, "y")->valuedouble;
        double dev = fabs((x - start.x) * dy - (y - start.y) * dx) / d;
        if (dev > maxdev)
            maxdev = dev;
        lx = x;
        ly = y;
    }
    CHECK_MSG(lx >= 20 && lx < 140 && ly >= 20 && ly < 52, "trail ends at (%g,%g)", lx, ly);
    CHECK_MSG(maxdev > 2.0, "trail is straight (max deviation %.2f px over %.0f px)", maxdev, d);
    CHECK(r.n_path >= 12);
    char buf[64];
    CHECK_STR(hu_str(p, "document.getElementById('out').textContent", buf, sizeof buf), "went 1");
    cJSON_Delete(ev);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void trusted_everywhere(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_click();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    cascade_hand *h = fast_hand(p, &o);
    CHECK(h);
    const char *targets[] = {GO, STRICT, CHK, TOG, FAR};
    char err[256] = "";
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        cascade_target t = hu_xpath(targets[i], NULL);
        cascade_result r;
        CHECK_OK(cascade_click(h, &t, &r, err));
        CHECK_MSG(r.success && r.tried[0].tier == 1, "%s: %s", targets[i], r.message);
    }
    cJSON *ev = hu_events(p);
    int untrusted = -1;
    CHECK_EQ(hu_count(ev, "click", &untrusted), 5);
    CHECK_EQ(untrusted, 0);
    hu_count(ev, NULL, &untrusted);
    CHECK_EQ(untrusted, 0);
    cJSON_Delete(ev);
    char buf[64];
    /* The page that ignores untrusted clicks took ours. */
    CHECK_STR(hu_str(p, "document.getElementById('strict').textContent", buf, sizeof buf),
              "trusted ok");
    CHECK_STR(hu_str(p, "document.getElementById('far').textContent", buf, sizeof buf),
              "far clicked");
    CHECK_STR(hu_str(p, "String(document.getElementById('chk').checked)", buf, sizeof buf),
              "true");
    CHECK_STR(hu_str(p, "document.getElementById('tog').getAttribute('aria-pressed')", buf,
                     sizeof buf),
              "true");
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void covered_named(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_click();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    cascade_hand *h = fast_hand(p, &o);
    CHECK(h);
    cascade_target t = hu_xpath(COVERED, NULL);
    cascade_result r;
    char err[256] = "";
    hu_clear(p);
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK(!r.success);
    CHECK_EQ(r.reason, CASCADE_COVERED);
    CHECK_MSG(strstr(r.message, "div#cookie-banner 'We use cookies"), "message: %s", r.message);
    CHECK_EQ(r.n_tried, 0);
    int have_accept = 0;
    for (int i = 0; i < r.n_alternatives; i++)
        if (strstr(r.alternatives[i], "Accept all") && strstr(r.alternatives[i], " at ("))
            have_accept = 1;
    CHECK_MSG(have_accept, "no 'Accept all' alternative; first: %s", r.alternatives[0]);
    cJSON *ev = hu_events(p);
    CHECK_EQ(hu_count(ev, "mousedown", NULL), 0);
    cJSON_Delete(ev);
    /* Following the suggestion (a bare point) removes the banner; then the
     * button is reachable. */
    float ax = 0, ay = 0;
    for (int i = 0; i < r.n_alternatives; i++)
        if (strstr(r.alternatives[i], "Accept all"))
            sscanf(strstr(r.alternatives[i], " at (") + 5, "%f,%f", &ax, &ay);
    cascade_target pt;
    memset(&pt, 0, sizeof pt);
    pt.pt.x = ax;
    pt.pt.y = ay;
    pt.have_pt = 1;
    CHECK_OK(cascade_click(h, &pt, &r, err));
    CHECK_MSG(r.success, "accept: %s", r.message);
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_MSG(r.success, "covered after accept: %s", r.message);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void refusals(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_click();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    cascade_hand *h = fast_hand(p, &o);
    CHECK(h);
    hu_clear(p);
    struct {
        const char *xp;
        cascade_reason why;
        const char *says;
    } cases[] = {
        {OFF, CASCADE_DISABLED, "is disabled"},
        {FSBTN, CASCADE_DISABLED, "disabled fieldset"},
        {ARIAOFF, CASCADE_DISABLED, "aria-disabled"},
        {ROW, CASCADE_AMBIGUOUS, "button#inrow"},
        {HIDDEN, CASCADE_INVISIBLE, "visibility:hidden"},
        {"/html[1]/body[1]/button[40]", CASCADE_NOT_FOUND, "not found"},
        {"//button", CASCADE_AMBIGUOUS, "matches"},
    };
    char err[256] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cascade_target t = hu_xpath(cases[i].xp, NULL);
        cascade_result r;
        CHECK_OK(cascade_click(h, &t, &r, err));
        CHECK_MSG(!r.success && r.reason == cases[i].why && strstr(r.message, cases[i].says),
                  "%s: %s (%s)", cases[i].xp, cascade_reason_name(r.reason), r.message);
    }
    /* Nothing was pressed on any of them. */
    cJSON *ev = hu_events(p);
    CHECK_EQ(hu_count(ev, "mousedown", NULL), 0);
    cJSON_Delete(ev);
    char buf[64];
    CHECK_STR(hu_str(p, "document.getElementById('out').textContent", buf, sizeof buf), "");
    /* Bad input: a clear error, no crash. */
    cascade_target none;
    memset(&none, 0, sizeof none);
    cascade_result r;
    CHECK_EQ(cascade_click(h, &none, &r, err), BASE_EINVAL);
    CHECK_EQ(cascade_click(NULL, &none, &r, NULL), BASE_EINVAL);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void dead_click_guard(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_click();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    o.effect_ms = 150;
    char lp[256];
    snprintf(lp, sizeof lp, "%s/hand-learn-%d.json", FOVEA_BINARY_DIR, (int)getpid());
    unlink(lp);
    o.learnings_path = lp;
    cascade_hand *h = fast_hand(p, &o);
    CHECK(h);
    char err[256] = "";
    cascade_target t = hu_xpath(NOOP, NULL);
    cascade_result r;
    hu_clear(p);
    /* A button that does nothing: delivered, no visible effect, a success
     * that no later tier repeats (one click arrived). */
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_MSG(r.success && r.reason == CASCADE_NO_VISIBLE_EFFECT, "noop: %s", r.message);
    CHECK_EQ(r.n_tried, 1);
    CHECK(r.delivered);
    CHECK_EQ(r.effects, 0u);
    cJSON *ev = hu_events(p);
    CHECK_EQ(hu_count(ev, "click", NULL), 1);
    cJSON_Delete(ev);
    /* The same with an effect required: a failure, still pressed once. */
    t.expect_effect = 1;
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_MSG(!r.success && r.reason == CASCADE_NO_EFFECT, "noop required: %s", r.message);
    CHECK_EQ(r.n_tried, 1);
    CHECK(r.delivered);
    CHECK(strstr(r.message, "not pressed again"));
    ev = hu_events(p);
    CHECK_EQ(hu_count(ev, "click", NULL), 1);
    cJSON_Delete(ev);
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_EQ(r.reason, CASCADE_DEAD_CLICK);
    CHECK_EQ(r.n_tried, 0);
    CHECK(strstr(r.message, "fresh look"));
    /* Another target in between resets the guard. */
    cascade_target go = hu_xpath(GO, NULL);
    CHECK_OK(cascade_click(h, &go, &r, err));
    CHECK(r.success);
    CHECK_MSG(r.effects & CASCADE_FX_MUTATION, "effects %#x", r.effects);
    /* A slow toggle: judged without effect, but its state flipped since, so
     * the second click is allowed. */
    cascade_target st = hu_xpath(SLOWTOG, NULL);
    st.expect_effect = 1;
    CHECK_OK(cascade_click(h, &st, &r, err));
    CHECK_MSG(r.reason == CASCADE_NO_EFFECT, "slow toggle: %s", r.message);
    base_sleep_ms(450);
    CHECK_OK(cascade_click(h, &st, &r, err));
    CHECK_MSG(r.reason != CASCADE_DEAD_CLICK, "slow toggle refused: %s", r.message);
    base_sleep_ms(500);
    /* The learnings file says tier 1 works on 127.0.0.1. */
    cascade_learnings *l = NULL;
    CHECK_OK(cascade_learnings_open(lp, &l, err));
    CHECK_EQ(cascade_learnings_best_tier(l, "127.0.0.1"), 1);
    cascade_learnings_close(l);
    unlink(lp);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void frames(void)
{
    HARNESS_OR_SKIP(hs);
    char same[64], cross[64];
    cdp_page *p = hu_open_frames(same, cross);
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    cascade_hand *h = fast_hand(p, &o);
    CHECK(h);
    char err[256] = "";
    const char *fids[2] = {same, cross};
    for (int k = 0; k < 2; k++) {
        cascade_target t = hu_xpath("/html[1]/body[1]/button[1]", fids[k]);
        cascade_result r;
        CHECK_OK(cascade_click(h, &t, &r, err));
        CHECK_MSG(r.success && r.tried[0].tier == 1, "frame %d: %s", k, r.message);
    }
    /* Both frames report a trusted click inside their button (40..160 x
     * 50..80 in frame px). The frames post their events to the top page,
     * and a cross-process postMessage may trail the click by more than a
     * task on a loaded machine: read the log until both arrived (2 s at
     * most), then check every click in it. */
    cJSON *ev = NULL;
    int clicks[2] = {0, 0};
    for (int tries = 0; tries < 40; tries++) {
        base_sleep_ms(50);
        cJSON_Delete(ev);
        ev = hu_events(p);
        clicks[0] = clicks[1] = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, ev)
        {
            if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "type")->valuestring, "click") == 0)
                clicks[strcmp(cJSON_GetObjectItemCaseSensitive(e, "frame")->valuestring,
                              "cross") == 0]++;
        }
        if (clicks[0] >= 1 && clicks[1] >= 1)
            break;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "type")->valuestring, "click"))
            continue;
        const char *f = cJSON_GetObjectItemCaseSensitive(e, "frame")->valuestring;
        double x = cJSON_GetObjectItemCaseSensitive(e, "x")->valuedouble;
        double y = cJSON_GetObjectItemCaseSensitive(e, "y")->valuedouble;
        CHECK_MSG(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "trusted")), "untrusted in %s", f);
        CHECK_MSG(x >= 40 && x < 160 && y >= 50 && y < 80, "%s click at (%g,%g)", f, x, y);
    }
    /* On a failure, what the frames did report says where the click went. */
    char *log = cJSON_PrintUnformatted(ev);
    CHECK_MSG(clicks[0] == 1 && clicks[1] == 1, "clicks same %d cross %d; events %.1500s",
              clicks[0], clicks[1], log ? log : "?");
    cJSON_free(log);
    cJSON_Delete(ev);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"humanized_trail", humanized_trail},
    {"trusted_everywhere", trusted_everywhere},
    {"covered_named", covered_named},
    {"refusals", refusals},
    {"dead_click_guard", dead_click_guard},
    {"frames", frames},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
