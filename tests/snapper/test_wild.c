/* tests/snapper/test_wild.c: the failure classes of issue 10 on hand-built scenes.
 *
 * Each case builds the page form a third-party site uses (a listener-only
 * span, a field named by its <label>, an icon-only trash button, a toolbar
 * with delegated clicks, "Item 4" beside "Item 49999", text with NBSP and
 * zero-width characters) as a snap_scene, with the name / hint / listener
 * fields the page kit fills live, and checks the snapper's choice and the
 * match kind it reports. The text normalisation cases pin the one
 * definition every text comparison in fovea uses.
 */
#include <string.h>

#include "base/rng.h"
#include "check.h"
#include "scenes.h"
#include "snapper/snap_int.h"


/* ---- text normalisation ---------------------------------------------------- */

static void text_normalize(void)
{
    char b[64];
    /* NBSP, a thin space, runs of whitespace, capitals. */
    CHECK_EQ(snap_text_normalize("  Add\xc2\xa0to \xe2\x80\x89 Cart\n", b, sizeof b), 11u);
    CHECK_STR(b, "add to cart");
    /* Zero-width space, ZWNJ, ZWJ, BOM and soft hyphen vanish. */
    snap_text_normalize("\xef\xbb\xbfSub\xc2\xadmit\xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d", b,
                        sizeof b);
    CHECK_STR(b, "submit");
    /* Latin-1 and Cyrillic capitals fold; punctuation stays. */
    snap_text_normalize("\xc3\x89T\xc3\x89 9:30 \xd0\x9c\xd0\xb8\xd1\x80", b, sizeof b);
    CHECK_STR(b, "\xc3\xa9t\xc3\xa9 9:30 \xd0\xbc\xd0\xb8\xd1\x80");
    /* Truncation never splits a character. */
    CHECK_EQ(snap_text_normalize("ab\xc3\xa9", b, 4), 2u);
    CHECK_STR(b, "ab");
    CHECK_EQ(snap_text_normalize(NULL, b, sizeof b), 0u);
    CHECK(snap_text_equal("Sign\xc2\xa0In", " sign   in "));
    CHECK(snap_text_equal(NULL, " \xe2\x80\x8b "));
    CHECK(!snap_text_equal("Sign in", "Sign-in"));
    CHECK(snap_text_contains("Total:\xc2\xa0\x24"
                             "35.00 incl.\ttax",
                             "total: $35.00 INCL. TAX"));
    CHECK(snap_text_contains("abc", ""));
    CHECK(!snap_text_contains("add to car", "add to cart"));
    CHECK(snap_text_contains("aaab", "aab")); /* the search restarts after a partial match */
    /* The snapper's word folding uses the same classes. */
    char f[64];
    snap__fold("Add\xc2\xa0to\xe2\x80\x83"
               "cart \xe2\x80\x94 Sub\xc2\xadmit",
               f, sizeof f);
    CHECK_STR(f, "add to cart submit");
}

/* Random byte strings (broken UTF-8, invisible characters, Unicode spaces,
 * capitals) keep the normalisation's invariants: idempotent, equal to its
 * input, contains every piece of itself, and bounded by its buffer. */
static void text_property(void)
{
    static const char *const atoms[] = {"A",
                                        "b",
                                        " ",
                                        "\t\n",
                                        "\xc2\xa0",
                                        "\xe2\x80\x8b",
                                        "\xc2\xad",
                                        "\xef\xbb\xbf",
                                        "\xc3\x89",
                                        "\xd0\x9f",
                                        "\xe2\x80\x83",
                                        "\xff",
                                        "\xe2\x80",
                                        "9",
                                        ":",
                                        "\xe2\x96\xbe"};
    base_rng rng;
    base_rng_seed(&rng, 7);
    for (int it = 0; it < 3000; it++) {
        char s[256] = "";
        size_t n = 0;
        int parts = (int)base_rng_uniform(&rng, 0, 24);
        for (int k = 0; k < parts; k++) {
            const char *a = atoms[(int)base_rng_uniform(&rng, 0, 16) % 16];
            size_t l = strlen(a);
            if (n + l + 1 < sizeof s) {
                memcpy(s + n, a, l);
                n += l;
                s[n] = '\0';
            }
        }
        char a[300], b[300], small[8];
        size_t la = snap_text_normalize(s, a, sizeof a);
        CHECK_EQ(la, strlen(a));
        snap_text_normalize(a, b, sizeof b);
        CHECK_STR(a, b);
        CHECK(snap_text_equal(s, a));
        CHECK(snap_text_contains(s, a));
        CHECK(snap_text_contains(s, a + la / 2));
        CHECK(snap_text_normalize(s, small, sizeof small) < sizeof small);
        CHECK(la == 0 || (a[0] != ' ' && a[la - 1] != ' '));
        char f[64];
        CHECK(snap__fold(s, f, sizeof f) < sizeof f);
        CHECK(snap_match_kind(s, s) == (f[0] ? SNAP_MATCH_EXACT : SNAP_MATCH_NONE));
    }
}

static void match_kinds(void)
{
    CHECK_EQ(snap_match_kind("Item 4", "item\xc2\xa0"
                                       "4"),
             SNAP_MATCH_EXACT);
    CHECK_EQ(snap_match_kind("Item 4", "Item 49999"), SNAP_MATCH_PREFIX);
    CHECK_EQ(snap_match_kind("Add to cart", "Add to cart $35"), SNAP_MATCH_WORD);
    CHECK_EQ(snap_match_kind("Reply", "Reply Forward"), SNAP_MATCH_FUZZY);
    CHECK_EQ(snap_match_kind("port", "Import data"), SNAP_MATCH_SUBSTRING);
    CHECK_EQ(snap_match_kind("Meeting", "Alice: Meeting tomorrow at 10"), SNAP_MATCH_SUBSTRING);
    /* A label that is one entry of a long list is not a match at all. */
    CHECK_EQ(snap_match_kind("Button", "Button Input Textarea Select Checkbox Radio Range"),
             SNAP_MATCH_NONE);
    CHECK_EQ(snap_match_kind("", "x"), SNAP_MATCH_NONE);
    CHECK_STR(snap_match_name(SNAP_MATCH_PREFIX), "prefix");
    CHECK_STR(snap_match_name((snap_match)99), "none");
}

/* ---- class 1: listener-only controls --------------------------------------- */

static void listener_only(void)
{
    snap_scene s;
    int body = sc_page(&s);
    s.cand[body].has_listener = 1; /* page-wide delegation: never a target */
    int th =
        sc_add(&s, body, base_rect_xywh(100, 100, 120, 32), "th", "columnheader", "Name", "", 0);
    s.cand[th].has_listener = 1;
    int th2 =
        sc_add(&s, body, base_rect_xywh(220, 100, 120, 32), "th", "columnheader", "Size", "", 0);
    s.cand[th2].has_listener = 1;
    snap_result r;
    CHECK(sc_snap_box(&s, base_rect_xywh(190, 96, 140, 40), "Size", SNAP_INTENT_ANY, &r));
    CHECK(r.found);
    CHECK_EQ(r.cand, th2);
    CHECK_EQ(r.match, SNAP_MATCH_EXACT);
    /* Without its listener flag the same header is not a candidate. */
    s.cand[th2].has_listener = 0;
    s.cand[th].has_listener = 0;
    CHECK(sc_snap_box(&s, base_rect_xywh(190, 96, 140, 40), "Size", SNAP_INTENT_ANY, &r));
    CHECK(!r.found);
    snap_scene_fini(&s);
}

/* ---- class 2: labels elsewhere ---------------------------------------------- */

static void named_fields(void)
{
    snap_scene s;
    int body = sc_page(&s);
    /* Two text fields stacked, each named by a <label for> above it; the
     * password field is larger. The box covers both fields' halves. */
    int le = sc_add(&s, body, base_rect_xywh(40, 100, 200, 20), "label", "", "Email", "", 0);
    int email = sc_add(&s, body, base_rect_xywh(40, 122, 300, 28), "input", "textbox", "", "", 1);
    s.cand[email].name = "Email";
    int lp = sc_add(&s, body, base_rect_xywh(40, 160, 200, 20), "label", "", "Password", "", 0);
    int pw = sc_add(&s, body, base_rect_xywh(40, 182, 300, 40), "input", "textbox", "", "", 1);
    s.cand[pw].name = "Password";
    (void)le;
    (void)lp;
    snap_result r;
    base_rect box = base_rect_xywh(40, 130, 300, 80);
    CHECK(sc_snap_box(&s, box, "Email", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, email);
    CHECK(r.match >= SNAP_MATCH_WORD);
    CHECK(sc_snap_box(&s, box, "Password", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, pw);
    snap_scene_fini(&s);
}

static void label_points_at_control(void)
{
    snap_scene s;
    int body = sc_page(&s);
    /* Checkbox rows: a 16 px box and a pointer-cursor <label for> beside it. */
    int cb1 = sc_add(&s, body, base_rect_xywh(40, 100, 16, 16), "input", "checkbox", "", "", 1);
    s.cand[cb1].name = "Email me offers";
    int l1 =
        sc_add(&s, body, base_rect_xywh(62, 98, 180, 20), "label", "", "Email me offers", "", 1);
    int cb2 = sc_add(&s, body, base_rect_xywh(40, 124, 16, 16), "input", "checkbox", "", "", 1);
    s.cand[cb2].name = "Remember me";
    int l2 = sc_add(&s, body, base_rect_xywh(62, 122, 180, 20), "label", "", "Remember me", "", 1);
    (void)l2;
    snap_result r;
    /* A box over the first row's label and box, a bit low. */
    CHECK(sc_snap_box(&s, base_rect_xywh(36, 102, 210, 24), "Email me offers", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, cb1);
    CHECK(r.match >= SNAP_MATCH_WORD);
    /* Only the label is in the box: clicking it is right for a checkbox. */
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 98, 120, 18), "Email me offers", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, l1);
    snap_scene_fini(&s);
}

/* Without the kit's names, a checkbox wrapped by its <label> is named by the
 * label's text (accname's wrapping-label rule, through parent links). */
static void wrapping_label_names(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int la = sc_add(&s, body, base_rect_xywh(2, 55, 60, 16), "label", "", "3hIU", "", 0);
    int ca = sc_add(&s, la, base_rect_xywh(6, 55, 20, 13), "input", "checkbox", "", "", 1);
    int lb = sc_add(&s, body, base_rect_xywh(2, 74, 60, 16), "label", "", "Qqi", "", 0);
    int cb = sc_add(&s, lb, base_rect_xywh(6, 74, 20, 13), "input", "checkbox", "", "", 1);
    snap_result r;
    /* A box over both rows: the one whose label says "Qqi". */
    CHECK(sc_snap_box(&s, base_rect_xywh(0, 52, 66, 40), "Qqi", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, cb);
    CHECK_EQ(r.match, SNAP_MATCH_EXACT);
    CHECK(sc_snap_box(&s, base_rect_xywh(0, 52, 66, 40), "3hIU", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, ca);
    snap_scene_fini(&s);
}

/* ---- class 3: icons and no usable label ------------------------------------ */

static void icons(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int tr = sc_add(&s, body, base_rect_xywh(100, 100, 32, 32), "button", "button", "", "", 1);
    s.cand[tr].hint = "btn icon-trash-2";
    int st = sc_add(&s, body, base_rect_xywh(140, 100, 32, 32), "button", "button", "", "", 1);
    s.cand[st].hint = "fa-regular fa-star";
    int ge = sc_add(&s, body, base_rect_xywh(180, 100, 32, 32), "span", "", "", "", 0);
    s.cand[ge].hint = "BiGearFill";
    s.cand[ge].has_listener = 1;
    int x =
        sc_add(&s, body, base_rect_xywh(220, 100, 32, 32), "button", "button", "\xc3\x97", "", 1);
    int menu = sc_add(&s, body, base_rect_xywh(260, 100, 32, 32), "a", "link", "", "", 1);
    s.cand[menu].hint = "hamburger";
    int ed = sc_add(&s, body, base_rect_xywh(300, 100, 32, 32), "button", "button", "", "", 1);
    s.cand[ed].name = "Modify entry";
    /* A wide named button below the row takes most of every merged box. */
    int wide =
        sc_add(&s, body, base_rect_xywh(90, 136, 260, 60), "button", "button", "Upgrade", "", 1);
    (void)wide;
    struct {
        const char *label;
        int want;
        base_rect box;
    } cases[] = {
        {"Delete", tr, base_rect_xywh(96, 96, 80, 100)},
        {"Add to favorites", st, base_rect_xywh(100, 96, 80, 100)},
        {"Settings", ge, base_rect_xywh(140, 96, 80, 100)},
        {"Close", x, base_rect_xywh(180, 96, 80, 100)},
        {"Open menu", menu, base_rect_xywh(230, 96, 70, 100)},
        {"Edit", ed, base_rect_xywh(270, 96, 70, 100)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snap_result r;
        CHECK(sc_snap_box(&s, cases[i].box, cases[i].label, SNAP_INTENT_ANY, &r));
        CHECK_MSG(r.found && r.cand == cases[i].want, "%s: got %d want %d (%s)", cases[i].label,
                  r.cand, cases[i].want, r.reason);
        /* "×" in full reads as "close" (issue 21, class 3): an exact match. */
        CHECK_EQ(r.match, cases[i].want == x ? SNAP_MATCH_EXACT : SNAP_MATCH_ICON);
    }
    snap_scene_fini(&s);
}

static void geometry_fallback(void)
{
    snap_scene s;
    int body = sc_page(&s);
    /* An unnamed icon and a large neighbour; the label names neither. */
    int icon = sc_add(&s, body, base_rect_xywh(100, 100, 28, 28), "button", "button", "", "", 1);
    int big =
        sc_add(&s, body, base_rect_xywh(132, 90, 200, 48), "button", "button", "Continue", "", 1);
    (void)big;
    snap_result r;
    /* Box centred on the icon, scaled 1.6: the neighbour has more area. */
    CHECK(sc_snap_box(&s, base_rect_xywh(92, 92, 45, 45), "Archive", SNAP_INTENT_ANY, &r));
    CHECK(r.found);
    CHECK_EQ(r.cand, icon);
    CHECK_EQ(r.match, SNAP_MATCH_GEOMETRY);
    /* The centre is on neither: the nearest to the centre wins. */
    CHECK(sc_snap_box(&s, base_rect_xywh(96, 120, 50, 30), "Archive", SNAP_INTENT_ANY, &r));
    CHECK(r.found);
    CHECK_EQ(r.cand, icon);
    snap_scene_fini(&s);
}

/* ---- class 4: containers ----------------------------------------------------- */

static void containers(void)
{
    snap_scene s;
    int body = sc_page(&s);
    /* A toolbar with delegated clicks: its text holds both buttons'. */
    int bar = sc_add(&s, body, base_rect_xywh(100, 100, 300, 40), "div", "toolbar", "Reply Forward",
                     "", 0);
    s.cand[bar].has_listener = 1;
    int reply =
        sc_add(&s, bar, base_rect_xywh(104, 104, 70, 32), "button", "button", "Reply", "", 1);
    int fwd =
        sc_add(&s, bar, base_rect_xywh(180, 104, 80, 32), "button", "button", "Forward", "", 1);
    snap_result r;
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 100, 300, 40), "Reply", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, reply);
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 100, 300, 40), "Forward", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, fwd);
    /* A list item carrying the same label as the link inside it: the box is
     * on the link's part of the row, so the link is clicked, not the row
     * centre between children. */
    int li = sc_add(&s, body, base_rect_xywh(100, 200, 400, 40), "li", "", "Inbox", "", 0);
    s.cand[li].has_listener = 1;
    int a = sc_add(&s, li, base_rect_xywh(104, 206, 60, 28), "a", "link", "Inbox", "", 1);
    CHECK(sc_snap_box(&s, base_rect_xywh(96, 200, 120, 40), "Inbox", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, a);
    /* An email row with a checkbox named like the row: the box is the row,
     * so the row is kept, not the nested checkbox. */
    int row = sc_add(&s, body, base_rect_xywh(100, 300, 600, 44), "div", "", "Buy milk", "", 0);
    s.cand[row].has_listener = 1;
    int cb = sc_add(&s, row, base_rect_xywh(108, 314, 16, 16), "input", "checkbox", "", "", 1);
    s.cand[cb].name = "Buy milk";
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 300, 600, 44), "Buy milk", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, row);
    CHECK(sc_snap_box(&s, base_rect_xywh(102, 302, 160, 40), "Buy milk", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, row);
    (void)cb;
    /* Two clickable cards boxed together; only the first holds the label,
     * as its heading inside a longer text: it wins, reported as partial. */
    int c1 = sc_add(&s, body, base_rect_xywh(100, 400, 300, 120), "div", "",
                    "Team offsite agenda Draft for the April offsite in Lisbon", "", 0);
    s.cand[c1].has_listener = 1;
    int c2 = sc_add(&s, body, base_rect_xywh(410, 400, 300, 120), "div", "",
                    "Design review notes Feedback on the onboarding flow", "", 0);
    s.cand[c2].has_listener = 1;
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 400, 620, 120), "Team offsite agenda", SNAP_INTENT_ANY,
                   &r));
    CHECK_EQ(r.cand, c1);
    CHECK_EQ(r.match, SNAP_MATCH_SUBSTRING);
    /* A clickable email row holding a star glyph with its own listener: the
     * row's icon words (the kit's hint) include the star's class, so both
     * carry "Star" only as an icon; the box is on the star, so the star is
     * clicked, not the row beside it. */
    int erow = sc_add(&s, body, base_rect_xywh(100, 600, 760, 44), "div", "",
                      "\xe2\x98\x86 Lee Park Lunch on Friday?", "", 1);
    s.cand[erow].has_listener = 1;
    s.cand[erow].hint = "row star from subj";
    int star = sc_add(&s, erow, base_rect_xywh(140, 612, 13, 20), "span", "", "\xe2\x98\x86", "", 1);
    s.cand[star].has_listener = 1;
    s.cand[star].hint = "star";
    CHECK(sc_snap_box(&s, base_rect_xywh(134, 607, 26, 30), "Star", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, star);
    /* A box that missed the star (20 px off, on the row only): the row is
     * not what "Star" names, so no answer rather than the row. */
    CHECK(sc_snap_box(&s, base_rect_xywh(160, 607, 26, 30), "Star", SNAP_INTENT_ANY, &r));
    CHECK(!r.found);
    /* The same for a checkbox named by aria-label inside a clickable row: a
     * box beside it, on the row, does not fall back to the row by geometry. */
    int crow = sc_add(&s, body, base_rect_xywh(100, 700, 760, 44), "div", "", "Ops Team", "", 1);
    s.cand[crow].has_listener = 1;
    int ccb = sc_add(&s, crow, base_rect_xywh(108, 714, 16, 16), "input", "checkbox", "", "Select", 1);
    CHECK(sc_snap_box(&s, base_rect_xywh(106, 712, 20, 20), "Select", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, ccb);
    CHECK(sc_snap_box(&s, base_rect_xywh(128, 712, 20, 20), "Select", SNAP_INTENT_ANY, &r));
    CHECK(!r.found);
    /* A draggable dialog title bar (a mousedown listener) whose only text is
     * its icon close button's hidden "Close": a box that missed the button
     * is not answered with the title bar. */
    int bar2 = sc_add(&s, body, base_rect_xywh(300, 760, 300, 30), "div", "", "Close", "", 1);
    s.cand[bar2].has_listener = 1;
    int x = sc_add(&s, bar2, base_rect_xywh(574, 765, 20, 20), "button", "button", "Close", "", 1);
    CHECK(sc_snap_box(&s, base_rect_xywh(572, 763, 24, 24), "Close", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, x);
    CHECK(sc_snap_box(&s, base_rect_xywh(540, 763, 24, 24), "Close", SNAP_INTENT_ANY, &r));
    CHECK(!r.found);
    snap_scene_fini(&s);
}

/* ---- class 5: exact beats prefix; lists are refused -------------------------- */

static void exact_beats_prefix(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int i4 =
        sc_add(&s, body, base_rect_xywh(100, 100, 100, 30), "button", "button", "Item 4", "", 1);
    int i49 = sc_add(&s, body, base_rect_xywh(100, 132, 160, 30), "button", "button", "Item 49999",
                     "", 1);
    int i4d = sc_add(&s, body, base_rect_xywh(100, 164, 200, 30), "button", "button",
                     "Item 4 details", "", 1);
    snap_result r;
    /* All three merged, the larger ones dominating the area. */
    CHECK(sc_snap_box(&s, base_rect_xywh(96, 96, 210, 100), "Item 4", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, i4);
    CHECK_EQ(r.match, SNAP_MATCH_EXACT);
    /* Only "Item 49999" in the box: refused, never reported as Item 4. */
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 134, 160, 26), "Item 4", SNAP_INTENT_ANY, &r));
    CHECK(!r.found);
    /* "Item 4 details" alone is a whole-word match, reported as partial. */
    CHECK(sc_snap_box(&s, base_rect_xywh(100, 166, 200, 26), "Item 4", SNAP_INTENT_ANY, &r));
    CHECK(r.found);
    CHECK_EQ(r.cand, i4d);
    CHECK(r.match < SNAP_MATCH_EXACT);
    (void)i49;
    /* A select listing many options is not "Button". */
    int sel = sc_add(&s, body, base_rect_xywh(400, 100, 160, 30), "select", "combobox",
                     "Button Input Textarea Select Checkbox Radio Range", "", 1);
    (void)sel;
    CHECK(sc_snap_box(&s, base_rect_xywh(400, 100, 160, 30), "Button", SNAP_INTENT_ANY, &r));
    CHECK(!r.found);
    snap_scene_fini(&s);
}

/* ---- never worse than the box centre ------------------------------------------- */

/* On the synthetic page of scenes.c, for every target's exact box and its
 * boxes scaled 0.7..1.6, wherever a naive centre click lands right the
 * snapper lands right too. */
static void never_worse_than_centre(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    static const float scales[] = {1.0f, 0.7f, 0.85f, 1.15f, 1.3f, 1.6f};
    int checked = 0;
    for (int i = 0; i < nt; i++) {
        base_point c = base_rect_center(t[i].box);
        float w = base_rect_w(t[i].box), h = base_rect_h(t[i].box);
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
            base_rect b = {c.x - w * scales[k] / 2, c.y - h * scales[k] / 2,
                           c.x + w * scales[k] / 2, c.y + h * scales[k] / 2};
            int nv = sc_naive_centre(&s, b);
            if (nv < 0 || !sc_target_ok(&t[i], nv))
                continue;
            snap_result r;
            CHECK(sc_snap_box(&s, b, t[i].label, t[i].kind, &r));
            CHECK_MSG(r.found && sc_target_ok(&t[i], r.cand),
                      "%s scale %.2f: centre right, snapper %d (%s)", t[i].name, (double)scales[k],
                      r.cand, r.reason);
            checked++;
        }
    }
    CHECK(checked > 100);
    snap_scene_fini(&s);
}

static const check_case cases[] = {
    {"text_normalize", text_normalize},
    {"text_property", text_property},
    {"match_kinds", match_kinds},
    {"listener_only", listener_only},
    {"named_fields", named_fields},
    {"label_points_at_control", label_points_at_control},
    {"wrapping_label_names", wrapping_label_names},
    {"icons", icons},
    {"geometry_fallback", geometry_fallback},
    {"containers", containers},
    {"exact_beats_prefix", exact_beats_prefix},
    {"never_worse_than_centre", never_worse_than_centre},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
