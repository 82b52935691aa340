/* tests/cascade/test_input.c: typing and dragging on live fixture pages
 * (tests/fixtures/pages/hand/type.html, slider.html, frames.html): the exact
 * text lands in every kind of field, with and without typos, dates are
 * rewritten for the field, fields that eat keys get the value set natively,
 * and sliders (native, in a shadow root, in a cross-site frame) reach the
 * asked value. */
#include <unistd.h>

#include "check.h"
#include "cascade/cascade_int.h"
#include "hand_util.h"
#include "harness.h"

static cascade_hand *make_hand(cdp_page *p, int typos, uint64_t seed)
{
    cascade_opts o;
    hu_fast_opts(&o);
    o.typos = typos;
    o.seed = seed;
    cascade_hand *h = NULL;
    char err[256] = "";
    if (cascade_hand_create(p, &o, &h, err))
        fprintf(stderr, "hand: %s\n", err);
    return h;
}

static const char *value_of(cdp_page *p, const char *id, char *buf, size_t n)
{
    char expr[256];
    snprintf(expr, sizeof expr,
             "(() => { const e = document.getElementById('%s'); return e.isContentEditable ? "
             "e.innerText.replace(/\\u00a0/g, ' ') : e.value; })()",
             id);
    return hu_str(p, expr, buf, n);
}

/* A text long enough that the 2 % typo rate gives typos for this seed. */
static const char LONG[] = "The quick brown fox jumps over the lazy dog; pack my box with five "
                           "dozen liquor jugs! Sphinx of black quartz, judge my vow (42 times).";

static void type_fields(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(800, 600, 1.0, "/hand/type.html");
    CHECK(p);
    char err[256] = "", buf[512];
    for (int typos = 0; typos <= 1; typos++) {
        cascade_hand *h = make_hand(p, typos, 11);
        CHECK(h);
        const char *ids[] = {"name", "bio", "ed"};
        int typo_total = 0;
        for (int i = 0; i < 3; i++) {
            char xp[64];
            snprintf(xp, sizeof xp, "//*[@id='%s']", ids[i]);
            cascade_target t = hu_xpath(xp, NULL);
            cascade_result r;
            hu_clear(p);
            CHECK_OK(cascade_type(h, &t, LONG, 0, &r, err));
            CHECK_MSG(r.success, "%s (typos %d): %s", ids[i], typos, r.message);
            CHECK_STR(value_of(p, ids[i], buf, sizeof buf), LONG);
            CHECK_EQ(r.n_tried, 1); /* the keys landed: no value-set fallback */
            int n = 0;
            sscanf(strstr(r.tried[0].outcome, "chars, ") + 7, "%d", &n);
            typo_total += n;
            cJSON *ev = hu_events(p);
            int untrusted = -1;
            int keys = hu_count(ev, "keydown", &untrusted);
            CHECK_EQ(untrusted, 0);
            CHECK_MSG(keys >= (int)strlen(LONG), "%d keydowns", keys);
            hu_count(ev, NULL, &untrusted);
            CHECK_EQ(untrusted, 0);
            cJSON_Delete(ev);
        }
        if (typos)
            CHECK_MSG(typo_total > 0, "no typo simulated with typos on");
        else
            CHECK_EQ(typo_total, 0);
        cascade_hand_destroy(h);
    }
    /* Unicode goes through insertText; the field had "old text", replaced. */
    cascade_hand *h = make_hand(p, 1, 3);
    CHECK(h);
    cascade_target t = hu_xpath("//*[@id='name']", NULL);
    cascade_result r;
    const char *uni = "Zoë – 東京 ✓";
    CHECK_OK(cascade_type(h, &t, uni, 0, &r, err));
    CHECK_MSG(r.success, "unicode: %s", r.message);
    CHECK_STR(value_of(p, "name", buf, sizeof buf), uni);
    /* Password: exact, no typos, the text nowhere in the result. */
    cascade_target pw = hu_xpath("//*[@id='pw']", NULL);
    CHECK_OK(cascade_type(h, &pw, "s3cret-Pa55word!", 1, &r, err));
    CHECK_MSG(r.success, "password: %s", r.message);
    CHECK_STR(value_of(p, "pw", buf, sizeof buf), "s3cret-Pa55word!");
    CHECK(strstr(r.tried[0].outcome, " 0 typos"));
    CHECK(!strstr(r.message, "s3cret"));
    /* Bad UTF-8: a clear error, no crash, nothing typed. */
    CHECK_EQ(cascade_type(h, &t, "bad \xff byte", 0, &r, err), BASE_EINVAL);
    CHECK_EQ(cascade_type(h, &t, NULL, 0, &r, NULL), BASE_EINVAL);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

/* A field whose bottom half lies below its scroll box's edge (issue 21,
 * class 8) is scrolled wholly into view before typing: the page drops keys
 * typed while the field's middle is out of sight. */
static void half_hidden(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(800, 600, 1.0, "/hand/halfhidden.html");
    CHECK(p);
    char err[256] = "", buf[256];
    /* Before: the field's middle is below the sheet's edge. */
    CHECK_STR(hu_str(p,
                     "(() => { const s = document.getElementById('sheet').getBoundingClientRect(),"
                     " r = document.getElementById('addr').getBoundingClientRect();"
                     " return (r.top + r.bottom) / 2 > s.bottom ? 'cut' : 'whole'; })()",
                     buf, sizeof buf),
              "cut");
    cascade_hand *h = make_hand(p, 0, 5);
    CHECK(h);
    cascade_target t = hu_xpath("//*[@id='addr']", NULL);
    cascade_result r;
    CHECK_OK(cascade_type(h, &t, "12 Rua Augusta", 0, &r, err));
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_STR(value_of(p, "addr", buf, sizeof buf), "12 Rua Augusta");
    CHECK_STR(hu_str(p, "String(window.__dropped)", buf, sizeof buf), "0");
    CHECK_EQ(r.n_tried, 1); /* typed as keys, no value-set fallback */
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void dates_and_fallbacks(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(800, 600, 1.0, "/hand/type.html");
    CHECK(p);
    cascade_hand *h = make_hand(p, 1, 5);
    CHECK(h);
    char err[256] = "", buf[256];
    cascade_result r;
    cascade_target when = hu_xpath("//*[@id='when']", NULL);
    CHECK_OK(cascade_type(h, &when, "2026-04-23", 0, &r, err));
    CHECK_MSG(r.success, "MM/DD/YYYY: %s", r.message);
    CHECK_STR(value_of(p, "when", buf, sizeof buf), "04/23/2026");
    cascade_target d = hu_xpath("//*[@id='d']", NULL);
    CHECK_OK(cascade_type(h, &d, "April 23, 2026", 0, &r, err));
    CHECK_MSG(r.success, "type=date: %s", r.message);
    CHECK_STR(value_of(p, "d", buf, sizeof buf), "2026-04-23");
    CHECK_EQ(r.n_tried, 1); /* through the date editor's keys, not the setter */
    cascade_target amt = hu_xpath("//*[@id='amount']", NULL);
    CHECK_OK(cascade_type(h, &amt, "$1,234.50", 0, &r, err));
    CHECK_MSG(r.success, "amount: %s", r.message);
    CHECK_STR(value_of(p, "amount", buf, sizeof buf), "1234.50");
    /* Keys never land in the masked field: the native setter does it and
     * says so. */
    cascade_target sw = hu_xpath("//*[@id='swallow']", NULL);
    CHECK_OK(cascade_type(h, &sw, "hello", 0, &r, err));
    CHECK_MSG(r.success, "swallow: %s", r.message);
    CHECK_EQ(r.n_tried, 2);
    CHECK(!r.tried[0].success && r.tried[1].success);
    CHECK_STR(value_of(p, "swallow", buf, sizeof buf), "hello");
    /* A field in a shadow root: typed, and the host got its change event. */
    cascade_target xf = hu_xpath("/html[1]/body[1]/x-field[1]/#shadow-root/input[1]", NULL);
    CHECK_OK(cascade_type(h, &xf, "inside", 0, &r, err));
    CHECK_MSG(r.success, "shadow: %s", r.message);
    CHECK_STR(hu_str(p, "document.getElementById('xf').shadowRoot.getElementById('inner').value",
                     buf, sizeof buf),
              "inside");
    CHECK(hu_num(p, "document.getElementById('xf').changes") >= 1);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void frame_typing_and_range(void)
{
    HARNESS_OR_SKIP(hs);
    char same[64], cross[64];
    cdp_page *p = hu_open_frames(same, cross);
    CHECK(p);
    cascade_hand *h = make_hand(p, 0, 9);
    CHECK(h);
    char err[256] = "";
    cascade_result r;
    cascade_target in = hu_xpath("/html[1]/body[1]/input[1]", cross);
    /* The sync point typing waits for before its keys: the browser's focus
     * in the out-of-process frame, seen as its <iframe> being the parent's
     * active element. Not yet before anything focused it; nothing to wait
     * for in the top document or a same-process frame. */
    CHECK_EQ(cascade__frame_focus_wait(h, cross, 100), 0);
    CHECK_EQ(cascade__frame_focus_wait(h, "", 100), -1);
    CHECK_EQ(cascade__frame_focus_wait(h, same, 100), -1);
    CHECK_OK(cascade_type(h, &in, "from afar", 0, &r, err));
    CHECK_EQ(cascade__frame_focus_wait(h, cross, 100), 1);
    CHECK_MSG(r.success, "iframe typing: %s", r.message);
    /* Real keys reached the out-of-process frame. */
    CHECK_MSG(r.n_tried == 1, "%d tiers tried, the first: tier %d, %s", r.n_tried,
              r.tried[0].tier, r.tried[0].outcome);
    cascade_target rg = hu_xpath("/html[1]/body[1]/input[2]", cross);
    base_point none = {0, 0};
    CHECK_OK(cascade_drag(h, &rg, none, 7, 1, &r, err));
    CHECK_MSG(r.success, "iframe range: %s", r.message);
    /* The frame saw trusted keys and a trusted change from the drag. */
    base_sleep_ms(100);
    cJSON *ev = hu_events(p);
    int untrusted = -1;
    CHECK(hu_count(ev, "keydown", &untrusted) >= 9);
    CHECK_EQ(untrusted, 0);
    cJSON_Delete(ev);
    /* A native <select> in the out-of-process frame: chosen by text
     * (folded), reported as the scripted tier, with its change event. */
    cascade_target sel = hu_xpath("/html[1]/body[1]/select[1]", cross);
    CHECK_OK(cascade_select(h, &sel, "  business ", &r, err));
    CHECK_MSG(r.success, "iframe select: %s", r.message);
    CHECK_EQ(r.n_tried, 1);
    CHECK_EQ(r.tried[0].tier, 3);
    CHECK(strstr(r.message, "Business") != NULL);
    base_sleep_ms(100);
    ev = hu_events(p);
    int changes = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, ev)
    {
        const char *ty = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "type"));
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "id"));
        changes += ty && id && strcmp(ty, "change") == 0 && strcmp(id, "sel") == 0;
    }
    cJSON_Delete(ev);
    CHECK_EQ(changes, 1);
    /* No such option: not found, the options offered instead; not a select. */
    CHECK_OK(cascade_select(h, &sel, "Premium", &r, err));
    CHECK(!r.success && r.reason == CASCADE_NOT_FOUND);
    CHECK_EQ(r.n_alternatives, 3);
    CHECK_OK(cascade_select(h, &in, "Business", &r, err));
    CHECK(!r.success && r.reason == CASCADE_NOT_FOUND);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void sliders(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(800, 600, 1.0, "/hand/slider.html");
    CHECK(p);
    char err[256] = "";
    cascade_result r;
    base_point none = {0, 0};
    for (int human = 0; human <= 1; human++) {
        cascade_opts o;
        hu_fast_opts(&o);
        o.humanize = human;
        o.seed = 21 + (uint64_t)human;
        cascade_hand *h = NULL;
        CHECK_OK(cascade_hand_create(p, &o, &h, err));
        /* The host's xpath (the slider is found inside its shadow root) and
         * the thumb's own shadow path. */
        cascade_target host = hu_xpath("/html[1]/body[1]/x-slider[1]", NULL);
        double want = human ? 64 : 73;
        CHECK_OK(cascade_drag(h, &host, none, want, 1, &r, err));
        CHECK_MSG(r.success, "shadow slider: %s", r.message);
        CHECK_EQ(hu_num(p, "document.getElementById('xs').v"), (int)want);
        cascade_target thumb =
            hu_xpath("/html[1]/body[1]/x-slider[1]/#shadow-root/div[1]/div[1]", NULL);
        CHECK_OK(cascade_drag(h, &thumb, none, 25, 1, &r, err));
        CHECK_MSG(r.success, "shadow thumb: %s", r.message);
        CHECK_EQ(hu_num(p, "document.getElementById('xs').v"), 25);
        cascade_target rng = hu_xpath("//*[@id='rng']", NULL);
        CHECK_OK(cascade_drag(h, &rng, none, 35, 1, &r, err));
        CHECK_MSG(r.success, "range: %s", r.message);
        CHECK_EQ(hu_num(p, "Number(document.getElementById('rng').value)"), 35);
        /* 33 snaps to the step grid (5): 35 again, nothing to do; 40 moves. */
        CHECK_OK(cascade_drag(h, &rng, none, 41, 1, &r, err));
        CHECK_MSG(r.success, "range 41: %s", r.message);
        CHECK_EQ(hu_num(p, "Number(document.getElementById('rng').value)"), 40);
        cascade_hand_destroy(h);
    }
    cJSON *ev = hu_events(p);
    int untrusted = -1;
    CHECK(hu_count(ev, "pointermove", &untrusted) > 12);
    CHECK_EQ(untrusted, 0);
    cJSON_Delete(ev);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"half_hidden", half_hidden},
    {"type_fields", type_fields},
    {"dates_and_fallbacks", dates_and_fallbacks},
    {"frame_typing_and_range", frame_typing_and_range},
    {"sliders", sliders},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
