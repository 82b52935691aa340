/* tests/cascade/test_deliver.c: a press is delivered once, and what the page
 * did afterwards is judged (tests/fixtures/pages/hand/deliver.html in real
 * Chromium). Every control counts the presses its listener received in
 * window.hits, so each case checks that exactly one arrived:
 *   silent      a listener that only counts: delivered, no visible effect
 *               (a success), never pressed twice, even humanized
 *   runaway     a button that moves under the pointer: the press lands
 *               elsewhere, so tier 2 may try; tier 3 refused when bot-protected
 *   effects     property-only effects count: a hidden checkbox's checked
 *               state, focus moved to a field, a value written into an input
 *               inside a shadow root, a request, a popup, a dialog
 *   animated    a button sliding down while an accordion opens is clicked
 *               where it stops (the stale point from before is not used)
 *   hover_lift  humanized: a card lifts under the approaching pointer; the
 *               press follows its button (tier 1, once)
 *   svg_label   a label over its shape (pointer-events: none) is accepted and
 *               the shape's listener receives the press; a shape under a label
 *               that takes the pointer is pressed beside the label
 *   disabled    a control enabled 300 ms later is waited for, then pressed
 *   no_wait     expect_effect -1: no effect wait at all
 *   typing_enter  a todo field that adds on Enter and clears itself: typed
 *               once, judged a success, no native-setter second typing
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "hand_util.h"
#include "harness.h"

static cdp_page *open_deliver(void)
{
    return harness_open(900, 700, 1.0, "/hand/deliver.html");
}

static cascade_hand *mk_hand(cdp_page *p, cascade_opts *o)
{
    cascade_hand *h = NULL;
    char err[256] = "";
    if (cascade_hand_create(p, o, &h, err))
        fprintf(stderr, "hand: %s\n", err);
    return h;
}

static int hits(cdp_page *p, const char *id)
{
    char expr[128];
    snprintf(expr, sizeof expr, "window.hits['%s'] || 0", id);
    return (int)hu_num(p, expr);
}

static void click_ok(cascade_hand *h, const char *xp, cascade_result *r)
{
    char err[256] = "";
    cascade_target t = hu_xpath(xp, NULL);
    CHECK_OK(cascade_click(h, &t, r, err));
}

static void silent(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    for (int human = 0; human < 2; human++) {
        cascade_opts o;
        hu_fast_opts(&o);
        o.humanize = human;
        cascade_hand *h = mk_hand(p, &o);
        CHECK(h);
        cascade_result r;
        click_ok(h, "//*[@id='counter']", &r);
        CHECK_MSG(r.success && r.reason == CASCADE_NO_VISIBLE_EFFECT, "humanize %d: %s (%s)",
                  human, cascade_reason_name(r.reason), r.message);
        CHECK(r.delivered);
        CHECK_EQ(r.n_tried, 1);
        CHECK_EQ(hits(p, "counter"), human + 1);
        /* Clicking it again is allowed (a counter is clicked twice on purpose). */
        click_ok(h, "//*[@id='counter']", &r);
        CHECK_MSG(r.success, "second click: %s", r.message);
        CHECK_EQ(hits(p, "counter"), human + 2);
        cascade_hand_destroy(h);
        cJSON_Delete(hu_eval(p, "window.hits.counter = 1, 0"));
    }
    cdp_page_close(p);
}

static void runaway(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    cascade_hand *h = mk_hand(p, &o);
    CHECK(h);
    cascade_result r;
    click_ok(h, "//*[@id='runaway']", &r);
    CHECK_MSG(!r.success && r.reason == CASCADE_NO_EFFECT, "%s (%s)",
              cascade_reason_name(r.reason), r.message);
    CHECK(!r.delivered);
    CHECK_EQ(r.n_tried, 2);
    CHECK_MSG(strstr(r.tried[0].outcome, "landed on"), "tier 1: %s", r.tried[0].outcome);
    CHECK(strstr(r.message, "never reached"));
    CHECK_EQ(hits(p, "runaway"), 0);
    cascade_hand_destroy(h);
    /* Tier 3 when allowed, refused on a bot-protected domain. */
    char lp[256], err[256] = "";
    snprintf(lp, sizeof lp, "%s/deliver-learn-%d.json", FOVEA_BINARY_DIR, (int)getpid());
    unlink(lp);
    o.allow_untrusted = 1;
    o.learnings_path = lp;
    h = mk_hand(p, &o);
    CHECK(h);
    CHECK_OK(cascade_learnings_set_bot_protected(cascade_hand_learnings(h), "127.0.0.1", 1, err));
    click_ok(h, "//*[@id='runaway']", &r);
    CHECK_MSG(r.reason == CASCADE_BOT_PROTECTED, "bot: %s", r.message);
    CHECK_EQ(r.n_tried, 3);
    CHECK(strstr(r.tried[2].outcome, "bot-protected"));
    CHECK_EQ(hits(p, "runaway"), 0);
    CHECK_OK(cascade_learnings_set_bot_protected(cascade_hand_learnings(h), "127.0.0.1", 0, err));
    click_ok(h, "//*[@id='runaway']", &r);
    CHECK_MSG(r.success && r.tried[r.n_tried - 1].tier == 3, "tier 3: %s", r.message);
    CHECK_EQ(hits(p, "runaway"), 1);
    unlink(lp);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void ignore_reply(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)e;
    (void)result;
    (void)msg;
    (void)user;
}

/* Accepts every dialog of the page (what the runner's dialog handling does). */
static void accept_dialog(const char *session, const char *method, const cJSON *params, void *user)
{
    (void)method;
    (void)params;
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddBoolToObject(pa, "accept", 1);
    cdp_call_async(user, session, "Page.handleJavaScriptDialog", pa, 5000, ignore_reply, NULL);
}

static void effects(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    o.effect_ms = 600;
    cascade_hand *h = mk_hand(p, &o);
    CHECK(h);
    cascade_result r;
    struct {
        const char *xp, *id;
        unsigned fx;
    } cases[] = {
        {"//*[@id='check']", "check", CASCADE_FX_CHECKED},
        {"//*[@id='search-icon']", "search", CASCADE_FX_FOCUS},
        {"/html[1]/body[1]/date-pick[1]/#shadow-root/button[1]", "today", CASCADE_FX_VALUE},
        {"//*[@id='ping']", "ping", CASCADE_FX_REQUEST},
        {"/html[1]/body[1]/date-pick[1]/#shadow-root/button[2]", "mark", CASCADE_FX_SHADOW},
        {"//*[@id='popup']", "popup", CASCADE_FX_NEW_TAB},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        click_ok(h, cases[i].xp, &r);
        CHECK_MSG(r.success && r.reason == CASCADE_OK && (r.effects & cases[i].fx),
                  "%s: %s, effects %#x (%s)", cases[i].id, cascade_reason_name(r.reason),
                  r.effects, r.message);
        CHECK_EQ(r.n_tried, 1);
        CHECK_EQ(hits(p, cases[i].id), 1);
        /* Only what happened: these change no light DOM. */
        CHECK_MSG(!(r.effects & CASCADE_FX_MUTATION), "%s: effects %#x", cases[i].id, r.effects);
    }
    char buf[64];
    CHECK_STR(hu_str(p, "document.getElementById('dp').shadowRoot.getElementById('v').value", buf,
                     sizeof buf),
              "2026-11-23");
    /* The popup's id came back; close it. */
    CHECK(r.new_target_id[0]);
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", r.new_target_id);
    char err[256] = "";
    CHECK_OK(cdp_call(cdp_page_conn(p), NULL, "Target.closeTarget", pa, NULL, 5000, err));
    /* A link with target=_blank (noopener by default) opens a tab too. */
    click_ok(h, "//*[@id='blank']", &r);
    CHECK_MSG(r.success && (r.effects & CASCADE_FX_NEW_TAB) && r.new_target_id[0],
              "blank: %s effects %#x", r.message, r.effects);
    CHECK_EQ(hits(p, "blank"), 1);
    pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", r.new_target_id);
    CHECK_OK(cdp_call(cdp_page_conn(p), NULL, "Target.closeTarget", pa, NULL, 5000, err));
    /* A dialog blocks the page's scripts; the hand sees it from the browser. */
    int sub = cdp_subscribe(cdp_page_conn(p), "Page.javascriptDialogOpening", cdp_page_session(p),
                            accept_dialog, cdp_page_conn(p));
    CHECK(sub > 0);
    click_ok(h, "//*[@id='alert']", &r);
    cdp_unsubscribe(cdp_page_conn(p), sub);
    CHECK_MSG(r.success && (r.effects & CASCADE_FX_DIALOG), "alert: %s effects %#x", r.message,
              r.effects);
    CHECK_STR(r.dialog_type, "alert");
    CHECK_STR(r.dialog_message, "Saved!");
    CHECK_EQ(hits(p, "alert"), 1);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void animated(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    o.settle_ms = 1500;
    cascade_hand *h = mk_hand(p, &o);
    CHECK(h);
    /* Where perception saw Buy before the accordion opened. */
    double bx = hu_num(p, "(() => { const r = document.getElementById('buy').getBoundingClientRect(); return r.left + r.width / 2; })()");
    double by = hu_num(p, "(() => { const r = document.getElementById('buy').getBoundingClientRect(); return r.top + r.height / 2; })()");
    cascade_result r;
    click_ok(h, "//*[@id='acc-head']", &r);
    CHECK_MSG(r.success, "accordion: %s", r.message);
    cascade_target t = hu_xpath("//*[@id='buy']", NULL);
    t.pt.x = (float)bx;
    t.pt.y = (float)by;
    t.have_pt = 1;
    char err[256] = "";
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_MSG(r.success && r.delivered, "buy: %s (%s)", cascade_reason_name(r.reason), r.message);
    CHECK_EQ(hits(p, "buy"), 1);
    /* Pressed where it stopped: its final rect, away from its edges. */
    double top = hu_num(p, "document.getElementById('buy').getBoundingClientRect().top");
    CHECK_MSG(r.clicked_at.y > top + 4 && r.clicked_at.y < top + 28, "pressed at y %.0f, top %.0f",
              r.clicked_at.y, top);
    /* Closing and opening again: a button inside the panel, still clipped
     * while the panel grows, is clicked once the panel stands (not refused
     * as covered). */
    click_ok(h, "//*[@id='acc-head']", &r);
    base_sleep_ms(600);
    click_ok(h, "//*[@id='acc-head']", &r);
    CHECK_MSG(r.success, "accordion again: %s", r.message);
    click_ok(h, "//*[@id='cart']", &r);
    CHECK_MSG(r.success && r.delivered, "cart: %s (%s)", cascade_reason_name(r.reason), r.message);
    CHECK_EQ(hits(p, "cart"), 1);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

/* Humanized: the card lifts while the pointer approaches its button; the
 * press goes where the button stands at press time (tier 1, one press). */
static void hover_lift(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    o.humanize = 1;
    o.seed = 3;
    int tier1 = 0;
    for (int i = 0; i < 3; i++) {
        cascade_hand *h = mk_hand(p, &o);
        CHECK(h);
        cascade_result r;
        /* Start away from the card so the approach enters it. */
        click_ok(h, "//*[@id='counter']", &r);
        click_ok(h, "//*[@id='lift']", &r);
        CHECK_MSG(r.success && r.delivered, "lift: %s (%s)", cascade_reason_name(r.reason),
                  r.message);
        tier1 += r.n_tried == 1 && r.tried[0].tier == 1;
        if (!(r.n_tried == 1 && r.tried[0].tier == 1))
            fprintf(stderr, "  lift %d: %s; tier 1: %s\n", i, r.message,
                    r.n_tried ? r.tried[0].outcome : "-");
        cascade_hand_destroy(h);
        o.seed++;
    }
    CHECK_EQ(hits(p, "lift"), 3);
    CHECK_MSG(tier1 == 3, "only %d of 3 presses landed at tier 1", tier1);
    cdp_page_close(p);
}

static void svg_label(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    cascade_hand *h = mk_hand(p, &o);
    CHECK(h);
    cascade_result r;
    /* The label lets the pointer through: its shape takes the press. */
    click_ok(h, "//*[@id='t1']", &r);
    CHECK_MSG(r.success && r.delivered, "t1: %s (%s)", cascade_reason_name(r.reason), r.message);
    CHECK_EQ(hits(p, "r1"), 1);
    /* A shape under a label that takes the pointer: pressed beside it. */
    click_ok(h, "//*[@id='r2']", &r);
    CHECK_MSG(r.success && r.delivered, "r2: %s (%s)", cascade_reason_name(r.reason), r.message);
    CHECK_EQ(hits(p, "r2"), 1);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void disabled(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    o.wait_ms = 2000;
    cascade_hand *h = mk_hand(p, &o);
    CHECK(h);
    cJSON_Delete(hu_eval(p, "document.getElementById('arm-later').click(), 0"));
    cascade_result r;
    click_ok(h, "//*[@id='later']", &r);
    CHECK_MSG(r.success && r.delivered, "%s (%s)", cascade_reason_name(r.reason), r.message);
    CHECK_EQ(hits(p, "later"), 1);
    /* Still disabled after the wait: refused, nothing pressed. */
    cJSON_Delete(hu_eval(p, "document.getElementById('later').disabled = true, 0"));
    cascade_hand_destroy(h);
    o.wait_ms = 200;
    h = mk_hand(p, &o);
    click_ok(h, "//*[@id='later']", &r);
    CHECK_MSG(r.reason == CASCADE_DISABLED && r.n_tried == 0, "%s", r.message);
    CHECK_EQ(hits(p, "later"), 1);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void no_wait(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    cascade_opts o;
    hu_fast_opts(&o);
    o.effect_ms = 3000;
    cascade_hand *h = mk_hand(p, &o);
    CHECK(h);
    cascade_target t = hu_xpath("//*[@id='counter']", NULL);
    t.expect_effect = -1;
    cascade_result r;
    char err[256] = "";
    CHECK_OK(cascade_click(h, &t, &r, err));
    CHECK_MSG(r.success && r.reason == CASCADE_NO_VISIBLE_EFFECT, "%s", r.message);
    CHECK_MSG(r.ms < 1000, "waited %.0f ms for an effect nobody expected", r.ms);
    CHECK_EQ(hits(p, "counter"), 1);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void typing_enter(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = open_deliver();
    CHECK(p);
    for (int human = 0; human < 2; human++) {
        cascade_opts o;
        hu_fast_opts(&o);
        o.humanize = human;
        o.typos = 0;
        cascade_hand *h = mk_hand(p, &o);
        CHECK(h);
        cascade_target t = hu_xpath("//*[@id='todo']", NULL);
        cascade_result r;
        char err[256] = "";
        /* Enter adds the todo and clears the field: typed once, a success. */
        CHECK_OK(cascade_type(h, &t, "Buy milk\n", 0, &r, err));
        CHECK_MSG(r.success && r.delivered && (r.effects & CASCADE_FX_VALUE), "todo: %s",
                  r.message);
        CHECK_EQ(r.n_tried, 1); /* no native-setter fallback */
        CHECK_EQ((int)hu_num(p, "document.querySelectorAll('#todos li').length"), human + 1);
        char buf[64];
        CHECK_STR(hu_str(p, "document.getElementById('todo').value", buf, sizeof buf), "");
        /* A textarea keeps the line break; the check compares normalised. */
        t = hu_xpath("//*[@id='notes']", NULL);
        CHECK_OK(cascade_type(h, &t, "two  words\n", 0, &r, err));
        CHECK_MSG(r.success, "notes: %s", r.message);
        CHECK_EQ(r.n_tried, 1);
        cascade_hand_destroy(h);
    }
    char buf[64];
    CHECK_STR(hu_str(p, "document.querySelector('#todos li').textContent", buf, sizeof buf),
              "Buy milk");
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"typing_enter", typing_enter},
    {"silent", silent},       {"runaway", runaway},     {"effects", effects},
    {"animated", animated},   {"hover_lift", hover_lift}, {"svg_label", svg_label}, {"disabled", disabled},
    {"no_wait", no_wait},     {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
