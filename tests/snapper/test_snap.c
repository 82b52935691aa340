/* tests/snapper/test_snap.c: unit tests for snapper/.
 *
 * Every case builds a page in C as a snap_scene, probes a box offline and runs
 * the whole snap (phase A, A-alt, B) and, where it matters, the hit-target
 * verification, exactly as the live path will with a browser probe.
 */
#include <stdint.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "check.h"
#include "scenes.h"
#include "snapper/snap_int.h"

#define CHEVRON "\xe2\x96\xbe"


static void probe_points(void)
{
    base_rect box = base_rect_xywh(10, 20, 100, 50);
    base_point p[SNAP_PROBE_NGRID];
    snap_probe_points(box, p);
    CHECK_NEAR(p[0].x, 60, 1e-4);
    CHECK_NEAR(p[0].y, 45, 1e-4);
    /* i over x is the outer loop: point 1 is (1/5, 1/5), point 2 is (1/5, 2/5). */
    CHECK_NEAR(p[1].x, 30, 1e-4);
    CHECK_NEAR(p[1].y, 30, 1e-4);
    CHECK_NEAR(p[2].y, 40, 1e-4);
    CHECK_NEAR(p[16].x, 90, 1e-4);
    CHECK_NEAR(p[16].y, 60, 1e-4);
    for (int k = 0; k < SNAP_PROBE_NGRID; k++)
        CHECK(base_rect_contains(box, p[k]));
    snap_probe pr;
    snap_probe_init(&pr, box);
    CHECK_EQ(pr.n_points, SNAP_PROBE_NGRID);
    int k = snap_probe_add_point(&pr, 3, base_rect_xywh(100, 20, 40, 10));
    CHECK_EQ(k, SNAP_PROBE_NGRID);
    CHECK_NEAR(pr.pt[k].x, 105, 1e-4); /* centre of rect & box */
    CHECK_EQ(snap_probe_add_point(&pr, 4, base_rect_xywh(500, 500, 5, 5)), -1);
}

static void scene_hit_order(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int btn = sc_add(&s, body, base_rect_xywh(10, 10, 100, 40), "button", "button", "Go", "", 1);
    int span = sc_add(&s, btn, base_rect_xywh(20, 15, 40, 20), "span", "", "Go", "", 0);
    /* A descendant recorded with a lower paint order still precedes its parent. */
    s.cand[span].paint_order = -5;
    snap_scene_node none = {1, 0, 0, 0, {0, 0, 0, 0}};
    int tip = -1;
    CHECK_OK(snap_scene_add(&s, &s.cand[span], &none, &tip)); /* a pointer-events:none copy */
    s.cand[tip].parent = body;
    s.cand[tip].paint_order = 100;
    snap_scene_node hidden = {0, 1, 0, 0, {0, 0, 0, 0}};
    int hid = -1;
    CHECK_OK(snap_scene_add(&s, &s.cand[btn], &hidden, &hid));
    s.cand[hid].parent = body;
    s.cand[hid].paint_order = 101;
    snap_scene_node clear = {0, 0, 1, 0, {0, 0, 0, 0}};
    int ghost = -1;
    CHECK_OK(snap_scene_add(&s, &s.cand[btn], &clear, &ghost));
    s.cand[ghost].parent = body;
    s.cand[ghost].rect = base_rect_xywh(90, 10, 30, 40);
    s.cand[ghost].paint_order = 102;
    snap_scene_node clipped = {0, 0, 0, 1, {0, 0, 40, 800}};
    int cl = -1;
    CHECK_OK(snap_scene_add(&s, &s.cand[btn], &clipped, &cl));
    s.cand[cl].parent = body;
    s.cand[cl].paint_order = 103;

    int st[16], n = 0;
    CHECK_OK(snap_scene_hit(&s, (base_point){30, 20}, st, 16, &n));
    CHECK_EQ(n, 5); /* clipped copy, span, button, body, html */
    CHECK_EQ(st[0], cl);
    CHECK_EQ(st[1], span);
    CHECK_EQ(st[2], btn);
    CHECK_EQ(st[3], body);
    CHECK_EQ(st[4], 0);
    /* Outside the clip the clipped element misses; opacity:0 still hits. */
    CHECK_OK(snap_scene_hit(&s, (base_point){100, 20}, st, 16, &n));
    CHECK_EQ(st[0], ghost);
    CHECK_EQ(st[1], btn);
    /* Truncation keeps the front-most entries. */
    CHECK_OK(snap_scene_hit(&s, (base_point){30, 20}, st, 2, &n));
    CHECK_EQ(n, 2);
    CHECK_EQ(st[1], span);
    CHECK_EQ(snap_scene_hit(&s, (base_point){1, 1}, st, -1, &n), BASE_EINVAL);
    snap_scene_fini(&s);
    snap_scene_fini(NULL);
}

static void label_rules(void)
{
    CHECK(snap__text_match("  Add  to CART ", "add to cart"));
    CHECK(snap__text_match("Sign in", "Sign in with Google")); /* word overlap 1/2 */
    CHECK(!snap__text_match("Add to cart", "Blue Shirt $20 Add to cart Wishlist"));
    CHECK(!snap__text_match("9:00 AM", "9:30 AM")); /* numbers are identities */
    CHECK(!snap__text_match("Red", "Reddish"));
    snap_candidate c;
    memset(&c, 0, sizeof c);
    c.aria_expanded = -1;
    c.role = "option";
    c.text = "19:30";
    CHECK_NEAR(snap__label_factor(&c, "9:30"), 0, 0); /* whole words only */
    c.text = "United States of America";
    CHECK_NEAR(snap__label_factor(&c, "united states"), 1, 0);
    c.role = "gridcell";
    c.text = "15";
    c.aria_label = "March 15, 2024";
    CHECK_NEAR(snap__label_factor(&c, "5"), 0, 0);
    CHECK_NEAR(snap__label_factor(&c, "March 15"), 1, 0);
    CHECK_NEAR(snap__label_factor(&c, NULL), 1, 0);
    c.role = "combobox";
    c.text = "10:30 AM";
    c.aria_label = "";
    CHECK_NEAR(snap__label_factor(&c, "10:30"), 2.0 / 3.0, 1e-6); /* Jaccard */
    c.text = "Eastern time";
    CHECK_NEAR(snap__label_factor(&c, "eastern"), 0.7, 1e-6); /* the 0.7 grant */
    c.role = "button";
    c.text = "Save";
    CHECK_NEAR(snap__label_factor(&c, "Cancel"), 0.5, 0); /* generic floor */
    CHECK_EQ(snap__chevron_count(&c), 0);
    c.text = CHEVRON;
    c.aria_haspopup = 1;
    c.aria_expanded = 0;
    c.aria_label = "Expand filters";
    CHECK_EQ(snap__chevron_count(&c), 4);
}

/* Ranking when several elements match, and when one matches while a larger
 * one does not (DESIGN.md "Exclusive label"). */
static void label_ranking(void)
{
    snap_scene s;
    int body = sc_page(&s);
    /* A quantity stepper: "+" and the trash can share every word but the verb. */
    int plus = sc_add(&s, body, base_rect_xywh(847, 137, 26, 26), "button", "button", "+",
                      "Increase Copper Spur", 1);
    int trash = sc_add(&s, body, base_rect_xywh(880, 137, 26, 26), "button", "button", "T",
                       "Remove Copper Spur", 1);
    /* A large promo button beside a small kebab whose aria-label is the label. */
    int promo = sc_add(&s, body, base_rect_xywh(100, 300, 200, 60), "button", "button",
                       "Pay later in 4", "", 1);
    int kebab = sc_add(&s, body, base_rect_xywh(304, 318, 24, 24), "button", "button",
                       "\xe2\x8b\xaf", "More payment options", 1);
    snap_result r;
    /* Centre on the trash can, box over both: the better label wins. */
    CHECK(sc_snap_box(&s, base_rect_xywh(860, 132, 53, 36), "Increase Copper Spur",
                   SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, plus);
    CHECK(sc_snap_box(&s, base_rect_xywh(847, 132, 66, 36), "Remove Copper Spur", SNAP_INTENT_ANY,
                   &r));
    CHECK_EQ(r.cand, trash);
    /* 10x the area does not beat the one element that carries the label. */
    CHECK(sc_snap_box(&s, base_rect_xywh(200, 296, 140, 68), "More payment options",
                   SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, kebab);
    /* Without a label the area decides, as in the paper. */
    CHECK(sc_snap_box(&s, base_rect_xywh(200, 296, 140, 68), NULL, SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, promo);
    snap_scene_fini(&s);

    /* Options of one list share their words; the order tells them apart. */
    snap_candidate c;
    memset(&c, 0, sizeof c);
    c.aria_expanded = -1;
    c.role = "option";
    c.text = "Price: low to high";
    CHECK_NEAR(snap__label_factor(&c, "Price: high to low"), 0, 0);
    CHECK_NEAR(snap__label_factor(&c, "price low high"), 1, 0);
    CHECK_NEAR(snap__label_quality(&c, "Price: low to high"), 1, 0);
    /* The ellipses of "more" buttons count as expand glyphs. */
    c.role = "button";
    c.text = "\xe2\x8b\xaf";
    CHECK_EQ(snap__chevron_count(&c), 1);
    c.text = "\xe2\x80\xa6";
    CHECK_EQ(snap__chevron_count(&c), 1);
}

static void classify(void)
{
    CHECK_EQ(snap_classify_intent("Open", "Country"), SNAP_INTENT_EXPAND);
    CHECK_EQ(snap_classify_intent("show more", "results"), SNAP_INTENT_EXPAND);
    CHECK_EQ(snap_classify_intent("toggle", NULL), SNAP_INTENT_EXPAND);
    CHECK_EQ(snap_classify_intent("select", "Germany"), SNAP_INTENT_SELECT);
    CHECK_EQ(snap_classify_intent("choose", "9:30 AM"), SNAP_INTENT_SELECT);
    CHECK_EQ(snap_classify_intent("pick", "blue"), SNAP_INTENT_SELECT);
    CHECK_EQ(snap_classify_intent("click", "Add to cart"), SNAP_INTENT_ANY);
    CHECK_EQ(snap_classify_intent("click", "Show more"), SNAP_INTENT_EXPAND);
    CHECK_EQ(snap_classify_intent("click", "Open menu"), SNAP_INTENT_EXPAND);
    CHECK_EQ(snap_classify_intent("click", "Country " CHEVRON), SNAP_INTENT_EXPAND);
    CHECK_EQ(snap_classify_intent("click", "Openings"), SNAP_INTENT_ANY);
    CHECK_EQ(snap_classify_intent(NULL, NULL), SNAP_INTENT_ANY);
}

/* The neighbour search (issue 21, class 2): a box shifted off the control
 * its label names onto another abstains, and the grown box finds the named
 * control exactly; a label that matches nothing nearby stays an abstention. */
static void neighbour(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int email = sc_add(&s, body, base_rect_xywh(600, 200, 14, 14), "input", "checkbox", "",
                       "Email me", 1);
    int text = sc_add(&s, body, base_rect_xywh(600, 230, 14, 14), "input", "checkbox", "",
                      "Text me", 1);
    (void)text;
    base_rect box = base_rect_xywh(598, 228, 18, 18); /* on Text me */
    snap_result r;
    snap_probe p;
    CHECK_OK(snap_scene_probe(&s, box, &p));
    snap_intent in = {"Email me", SNAP_INTENT_ANY};
    CHECK_OK(snap_resolve(s.cand, s.n, &p, &in, &r, NULL));
    CHECK(!r.found && !r.ambiguous); /* never the neighbour named otherwise */
    CHECK(snap_neighbour_wanted(&in, &r));
    base_rect g = snap_neighbour_box(box, 1280, 800);
    CHECK_NEAR(g.x0, 598 - 18, 0.01);
    CHECK_NEAR(g.y1, 246 + 18, 0.01);
    snap_probe p2;
    snap_result r2;
    CHECK_OK(snap_scene_probe(&s, g, &p2));
    CHECK_OK(snap_resolve(s.cand, s.n, &p2, &in, &r2, NULL));
    CHECK(snap_neighbour_take(&r2));
    CHECK_EQ(r2.cand, email);
    /* "Cancel" names nothing near: the grown box finds nothing to take. */
    snap_intent cancel = {"Cancel", SNAP_INTENT_ANY};
    CHECK_OK(snap_resolve(s.cand, s.n, &p2, &cancel, &r2, NULL));
    CHECK(!snap_neighbour_take(&r2));
    /* No label: no search (geometry answers a box with no label). */
    snap_intent none = {"", SNAP_INTENT_ANY};
    snap_result nr = {0};
    CHECK(!snap_neighbour_wanted(&none, &nr));
    CHECK(!snap_neighbour_wanted(NULL, &nr));
    /* Growth is bounded: at least 12 px, at most 48 px a side, clipped. */
    g = snap_neighbour_box(base_rect_xywh(0, 10, 4, 400), 1280, 800);
    CHECK_NEAR(g.x0, 0, 0.01);
    CHECK_NEAR(g.x1, 4 + 12, 0.01);
    CHECK_NEAR(g.y0, 0, 0.01);
    CHECK_NEAR(g.y1, 410 + 48, 0.01);
    snap_scene_fini(&s);
}

/* Finds the page target with this name and label. */
static const sc_target *find(const sc_target *t, int nt, const char *name, const char *label)
{
    for (int i = 0; i < nt; i++) {
        if (strcmp(t[i].name, name) == 0 &&
            ((!label && !t[i].label) || (label && t[i].label && strcmp(label, t[i].label) == 0)))
            return &t[i];
    }
    return NULL;
}

/* Every target of the synthetic page, boxed exactly, snaps right. */
static void page_targets(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    for (int i = 0; i < nt; i++) {
        snap_result r;
        CHECK(sc_snap_box(&s, t[i].box, t[i].label, t[i].kind, &r));
        CHECK_MSG(r.found && sc_target_ok(&t[i], r.cand), "target %d %s (%s): got %d, %s", i,
                  t[i].name, t[i].label ? t[i].label : "-", r.cand, r.reason);
    }
    snap_scene_fini(&s);
}

static void compound_rows(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    snap_result r;
    /* The paper's row: the label is inert, only the chevron (at the far right,
     * between lattice columns) acts; a naive centre click finds nothing. */
    const sc_target *us = find(t, nt, "row-label-chevron any", "United States");
    CHECK(us);
    CHECK_EQ(sc_naive_centre(&s, us->box), -1);
    CHECK(sc_snap_box(&s, us->box, us->label, SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.phase, SNAP_PHASE_B);
    CHECK_EQ(r.cand, us->ok[0]);
    /* SELECT and EXPAND on one chip + chevron row pick different elements. */
    const sc_target *ex = find(t, nt, "chip+chevron expand", "Germany");
    const sc_target *se = find(t, nt, "chip select", "Germany");
    CHECK(ex && se);
    CHECK(sc_snap_box(&s, ex->box, "Germany", SNAP_INTENT_EXPAND, &r));
    CHECK_EQ(r.cand, ex->ok[0]);
    CHECK(r.score.chevron > 2.5f);
    int chevron = r.cand;
    CHECK(sc_snap_box(&s, ex->box, "Germany", SNAP_INTENT_SELECT, &r));
    CHECK_EQ(r.cand, se->ok[0]);
    CHECK_EQ(r.phase, SNAP_PHASE_A);
    CHECK(sc_snap_box(&s, ex->box, "Germany", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, se->ok[0]);
    /* A SELECT box centred on the chevron is not diverted to it. */
    base_rect around = base_rect_union(s.cand[chevron].rect, base_rect_xywh(150, 84, 10, 28));
    CHECK(sc_snap_box(&s, around, "Germany", SNAP_INTENT_SELECT, &r));
    CHECK_EQ(r.cand, se->ok[0]);
    /* A decorative arrow inside a link: the link. */
    const sc_target *fr = find(t, nt, "link + decorative arrow", "France");
    CHECK(sc_snap_box(&s, fr->box, "France", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, fr->ok[0]);
    snap_scene_fini(&s);
}

static void calendar_jitter(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    base_rng rng;
    base_rng_seed(&rng, 7);
    int days = 0;
    for (int i = 0; i < nt; i++) {
        if (strcmp(t[i].name, "day") != 0)
            continue;
        days++;
        for (int n = 0; n < 40; n++) {
            float dx = (float)base_rng_uniform(&rng, -10, 10);
            float dy = (float)base_rng_uniform(&rng, -10, 10);
            base_rect b = {t[i].box.x0 + dx, t[i].box.y0 + dy, t[i].box.x1 + dx, t[i].box.y1 + dy};
            snap_result r;
            CHECK(sc_snap_box(&s, b, t[i].label, SNAP_INTENT_ANY, &r));
            CHECK_MSG(r.found && r.cand == t[i].ok[0], "day %s: got %d", t[i].label, r.cand);
        }
    }
    CHECK_EQ(days, 31);
    snap_scene_fini(&s);
}

static void time_picker_and_options(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    const sc_target *o = find(t, nt, "time option", "9:30 AM");
    const sc_target *o2 = find(t, nt, "time option", "10:00 AM");
    CHECK(o && o2);
    /* A box over both 9:30 and 10:00, labelled 10:00: the label decides. */
    base_rect both = base_rect_union(o->box, o2->box);
    snap_result r;
    CHECK(sc_snap_box(&s, both, "10:00 AM", SNAP_INTENT_SELECT, &r));
    CHECK_EQ(r.cand, o2->ok[0]);
    CHECK(sc_snap_box(&s, both, "9:30 AM", SNAP_INTENT_SELECT, &r));
    CHECK_EQ(r.cand, o->ok[0]);
    /* A label no option bears: an explicit "no candidate", never a guess. */
    CHECK(sc_snap_box(&s, both, "11:45 AM", SNAP_INTENT_SELECT, &r));
    CHECK_EQ(r.found, 0);
    CHECK_EQ(r.cand, -1);
    CHECK_EQ(r.n_scored, 2);
    snap_scene_fini(&s);
}

static void nested_cards(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    const sc_target *add = find(t, nt, "card button", "Add to cart");
    const sc_target *card = find(t, nt, "card link", "Blue Shirt");
    CHECK(add && card);
    snap_result r;
    /* Add + Wishlist merged, labelled: the inner button, not the card link
     * around both (whose area inside the box is mostly its buttons'). */
    base_rect merged = base_rect_union(add->box, s.cand[add->neighbour].rect);
    CHECK(sc_snap_box(&s, merged, "Add to cart", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, add->ok[0]);
    CHECK(sc_snap_box(&s, card->box, "Blue Shirt", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, card->ok[0]);
    snap_scene_fini(&s);
}

static void icons_and_checkboxes(void)
{
    snap_scene s;
    snap_scene_init(&s);
    static sc_target t[160];
    int nt = sc_build_page(&s, t, 160);
    snap_result r;
    int icons = 0;
    for (int i = 0; i < nt; i++) {
        if (strcmp(t[i].name, "icon, no label") != 0)
            continue;
        icons++;
        /* Scaled to 1.5x: neighbours enter the box, area still decides. */
        base_point c = base_rect_center(t[i].box);
        base_rect b = {c.x - 24, c.y - 24, c.x + 24, c.y + 24};
        CHECK(sc_snap_box(&s, b, NULL, SNAP_INTENT_ANY, &r));
        CHECK_EQ(r.cand, t[i].ok[0]);
    }
    CHECK_EQ(icons, 6);
    const sc_target *cb = find(t, nt, "checkbox alone", NULL);
    CHECK(cb);
    CHECK(sc_snap_box(&s, cb->box, NULL, SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, cb->ok[0]); /* the 16 px box itself */
    snap_scene_fini(&s);
}

/* A modal over the page: a click on the page button would land on the
 * overlay, so the snapper does not pick it (the probe lists only what a click
 * reaches); the hit-target check at its centre says it is covered and names
 * the overlay, not its inner element. */
static void covered_by_modal(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int buy =
        sc_add(&s, body, base_rect_xywh(100, 100, 120, 40), "button", "button", "Buy now", "", 1);
    int overlay = sc_add(&s, body, base_rect_xywh(0, 0, 1280, 800), "div", "", "", "", 0);
    int dialog = sc_add(&s, overlay, base_rect_xywh(80, 60, 400, 300), "div", "dialog",
                        "Accept cookies? OK", "", 0);
    int text =
        sc_add(&s, dialog, base_rect_xywh(90, 70, 380, 100), "p", "", "Accept cookies?", "", 0);
    int ok = sc_add(&s, dialog, base_rect_xywh(300, 300, 80, 32), "button", "button", "OK", "", 1);
    snap_result r;
    CHECK(sc_snap_box(&s, s.cand[buy].rect, "Buy now", SNAP_INTENT_ANY, &r));
    CHECK(!r.found || r.cand != buy);
    int st[SNAP_PROBE_DEPTH], n = 0, cover = -2;
    CHECK_OK(snap_scene_hit(&s, base_rect_center(s.cand[buy].rect), st, SNAP_PROBE_DEPTH, &n));
    CHECK_EQ(st[0], text);
    CHECK_EQ(snap_verify(s.cand, s.n, st, n, buy, &cover), SNAP_VERIFY_COVERED);
    CHECK_EQ(cover, overlay);
    /* The dialog's own button verifies fine, and so does a descendant hit. */
    CHECK(sc_snap_box(&s, s.cand[ok].rect, "OK", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, ok);
    CHECK_OK(snap_scene_hit(&s, r.pt, st, SNAP_PROBE_DEPTH, &n));
    CHECK_EQ(snap_verify(s.cand, s.n, st, n, ok, NULL), SNAP_VERIFY_OK);
    CHECK_EQ(snap_verify(s.cand, s.n, st, n, dialog, NULL), SNAP_VERIFY_OK);
    CHECK_EQ(snap_verify(s.cand, s.n, st, 0, ok, NULL), SNAP_VERIFY_EMPTY);
    snap_scene_fini(&s);
}

/* Descendants by xpath when the probe sends no parent links. */
static void verify_by_xpath(void)
{
    snap_candidate c[3];
    memset(c, 0, sizeof c);
    const char *xp[3] = {"/html/body/a[1]", "/html/body/a[1]/span", "/html/body/a[10]"};
    for (int i = 0; i < 3; i++) {
        c[i].xpath = xp[i];
        c[i].frame_chain = "";
        c[i].parent = -1;
    }
    int st1[1] = {1}, st2[1] = {2}, cover = -2;
    CHECK_EQ(snap_verify(c, 3, st1, 1, 0, NULL), SNAP_VERIFY_OK);
    CHECK_EQ(snap_verify(c, 3, st2, 1, 0, &cover), SNAP_VERIFY_COVERED); /* a[10] is not in a[1] */
    CHECK_EQ(cover, 2);
}

static void pointer_events_none_overlay(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int btn =
        sc_add(&s, body, base_rect_xywh(100, 100, 120, 40), "button", "button", "Save", "", 1);
    snap_candidate tip = s.cand[btn];
    tip.tag = "div";
    tip.is_interactive = 1; /* even an interactive-looking overlay is skipped */
    tip.text = "Tooltip";
    tip.rect = base_rect_xywh(90, 90, 200, 80);
    tip.paint_order = 50;
    tip.parent = body;
    snap_scene_node none = {1, 0, 0, 0, {0, 0, 0, 0}};
    CHECK_OK(snap_scene_add(&s, &tip, &none, NULL));
    snap_result r;
    CHECK(sc_snap_box(&s, s.cand[btn].rect, "Save", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, btn);
    CHECK_EQ(r.phase, SNAP_PHASE_A);
    int st[SNAP_PROBE_DEPTH], n = 0;
    CHECK_OK(snap_scene_hit(&s, r.pt, st, SNAP_PROBE_DEPTH, &n));
    CHECK_EQ(snap_verify(s.cand, s.n, st, n, btn, NULL), SNAP_VERIFY_OK);
    snap_scene_fini(&s);
}

/* The centre hits an iframe: A_ALT; the caller re-probes inside the frame
 * with the translated box and maps the point back, still inside the box. */
static void iframe_descent(void)
{
    snap_scene s;
    int body = sc_page(&s);
    base_rect fr = base_rect_xywh(200, 100, 400, 300);
    int frame = sc_add(&s, body, fr, "iframe", "", "", "", 0);
    s.cand[frame].is_iframe = 1;
    base_rect box = base_rect_xywh(240, 140, 120, 40);
    snap_result r;
    CHECK(sc_snap_box(&s, box, "Pay", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 0);
    CHECK_EQ(r.phase, SNAP_PHASE_A_ALT);
    CHECK_EQ(r.cand, frame);

    snap_scene in;
    int ibody = sc_page(&in);
    int pay = sc_add(&in, ibody, base_rect_xywh(50, 45, 100, 30), "button", "button", "Pay", "", 1);
    base_rect ib = snap_frame_box(box, fr);
    CHECK_NEAR(ib.x0, 40, 1e-4);
    CHECK_NEAR(ib.y0, 40, 1e-4);
    CHECK(sc_snap_box(&in, ib, "Pay", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, pay);
    base_point outer = snap_frame_point(r.pt, fr);
    CHECK(base_rect_contains(box, outer));
    CHECK(base_rect_empty(snap_frame_box(base_rect_xywh(0, 0, 10, 10), fr)));
    snap_scene_fini(&in);
    snap_scene_fini(&s);
}

/* Builds a row: chip [x0c, x1c) and a chevron-like control [x0v, x1v), both
 * interactive, in a box of the given height; returns the snapped candidate. */
static int cap_case_label(float x0v, float x1v, float box_h, snap_intent_kind kind,
                          const char *label, int *chip_out, int *chev_out, float *chi_out)
{
    snap_scene s;
    int body = sc_page(&s);
    int row = sc_add(&s, body, base_rect_xywh(0, 0, 300, 40), "div", "", "", "", 0);
    int chip = sc_add(&s, row, base_rect_xywh(0, 0, 150, 40), "button", "button", "Go", "", 1);
    int chev =
        sc_add(&s, row, base_rect_xywh(x0v, 0, x1v - x0v, 40), "button", "button", CHEVRON, "", 1);
    s.cand[chev].aria_haspopup = 1;
    s.cand[chev].aria_expanded = 0; /* K = 3, chi = 1 + 2 tanh(1.5) = 2.81 */
    snap_result r;
    int ok = sc_snap_box(&s, base_rect_xywh(0, 0, 300, box_h), label, kind, &r);
    *chip_out = chip;
    *chev_out = chev;
    *chi_out = r.score.chevron;
    int got = ok && r.found ? r.cand : ok && r.ambiguous ? -2 : -1;
    snap_scene_fini(&s);
    return got;
}

/* The chip's label names the row; the chevron is glyph-only. The label is
 * two letters, below phase A's minimum (Algorithm 4 line 18), so phase B's
 * formulas decide (a longer label at the centre is a pinpoint). */
static int cap_case(float x0v, float x1v, float box_h, snap_intent_kind kind, int *chip_out,
                    int *chev_out, float *chi_out)
{
    return cap_case_label(x0v, x1v, box_h, kind, "Go", chip_out, chev_out, chi_out);
}

/* Section 6.2 says the boost only wins within 30 % of the area-only leader;
 * Proposition 1 says the chevron wins whenever a_L / a_C < chi. Our rule
 * (DESIGN.md): Proposition 1 on compound rows (the chevron beside or inside
 * its label), the 6.2 cap elsewhere, no cap for EXPAND. Since issue 21 a box
 * with no label over two controls is ambiguous, so the formulas are tested
 * with the chip's label "Go": the unnamed chevron keeps its generic label
 * factor 0.5 on the chip's row (eq. 10), so on a compound row it wins when
 * a_C / a_L > 1 / (0.5 chi) = 0.71. */
static void chevron_cap(void)
{
    int chip, chev;
    float chi;
    /* Compound: chevron beside the chip, r = a_C / a_L = 110/150 = 0.73 >
     * 0.71: Proposition 1 applies, the chevron wins. */
    CHECK_EQ(cap_case(152, 262, 40, SNAP_INTENT_ANY, &chip, &chev, &chi), chev);
    CHECK_NEAR(chi, 1.0 + 2.0 * tanh(1.5), 1e-5);
    /* r = 0.4 < 0.71: the chevron loses even on a compound row (eq. 13). */
    CHECK_EQ(cap_case(152, 212, 40, SNAP_INTENT_ANY, &chip, &chev, &chi), chip);
    /* Not compound (90 px away), same r = 0.4: the 6.2 cap keeps the leader. */
    CHECK_EQ(cap_case(240, 300, 40, SNAP_INTENT_ANY, &chip, &chev, &chi), chip);
    /* 40 px away (a gap up to the row height still counts as its row),
     * r = 0.73: boosted and kept, the chevron wins. */
    CHECK_EQ(cap_case(190, 300, 40, SNAP_INTENT_ANY, &chip, &chev, &chi), chev);
    /* Without a label the box holds two controls and geometry is not
     * decisive (the chevron's part is 0.4 of the chip's): ambiguous (issue 21). */
    CHECK_EQ(cap_case_label(152, 212, 40, SNAP_INTENT_ANY, NULL, &chip, &chev, &chi), -2);
    /* EXPAND ignores the cap: the far control wins at r = 0.4. */
    CHECK_EQ(cap_case(240, 300, 40, SNAP_INTENT_EXPAND, &chip, &chev, &chi), chev);
    /* Not a row (height 20 < 24): no boost in ANY, the leader stays. */
    CHECK_EQ(cap_case(152, 262, 20, SNAP_INTENT_ANY, &chip, &chev, &chi), chip);
    CHECK_NEAR(chi, 1.0, 0);
    /* SELECT never boosts; the expand control is demoted. */
    CHECK_EQ(cap_case(152, 262, 40, SNAP_INTENT_SELECT, &chip, &chev, &chi), chip);
}

/* Issue 21, class 1: controls the label does not tell apart are answered
 * ambiguous with each of them listed (reading order, a click point inside
 * the box on each); geometry settles the tie only when decisive; a nested
 * pair with one name, or a <label> and its control, is one control. */
static void ambiguity(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int row1 = sc_add(&s, body, base_rect_xywh(20, 100, 400, 40), "div", "", "Alice Delete", "", 0);
    int del1 = sc_add(&s, row1, base_rect_xywh(340, 105, 70, 30), "button", "button", "Delete", "", 1);
    int row2 = sc_add(&s, body, base_rect_xywh(20, 140, 400, 40), "div", "", "Bob Delete", "", 0);
    int del2 = sc_add(&s, row2, base_rect_xywh(340, 145, 70, 30), "button", "button", "Delete", "", 1);
    snap_result r;
    /* A box over both Delete buttons: ambiguous, listed top to bottom. */
    CHECK(sc_snap_box(&s, base_rect_xywh(330, 100, 90, 80), "Delete", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 0);
    CHECK_EQ(r.ambiguous, 1);
    CHECK_EQ(r.n_alt, 2);
    CHECK_EQ(r.alt[0], del1);
    CHECK_EQ(r.alt[1], del2);
    CHECK(base_rect_contains(s.cand[del1].rect, r.alt_pt[0]));
    CHECK(base_rect_contains(s.cand[del2].rect, r.alt_pt[1]));
    CHECK(strstr(r.reason, "ambiguous") != NULL);
    /* The box on the first with a sliver of the second: decisive. */
    CHECK(sc_snap_box(&s, base_rect_xywh(336, 102, 78, 46), "Delete", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 1);
    CHECK_EQ(r.cand, del1);
    CHECK_EQ(r.ambiguous, 0);
    /* No label at all: the same two controls are ambiguous. */
    CHECK(sc_snap_box(&s, base_rect_xywh(330, 100, 90, 80), NULL, SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.ambiguous, 1);
    /* A label that is only the shared first word. */
    int zin = sc_add(&s, body, base_rect_xywh(500, 100, 80, 30), "button", "button", "Zoom In", "", 1);
    int zout = sc_add(&s, body, base_rect_xywh(590, 100, 80, 30), "button", "button", "Zoom Out", "", 1);
    CHECK(sc_snap_box(&s, base_rect_xywh(495, 95, 180, 40), "Zoom", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.ambiguous, 1);
    CHECK_EQ(r.alt[0], zin);
    CHECK_EQ(r.alt[1], zout);
    /* The full label tells them apart. */
    CHECK(sc_snap_box(&s, base_rect_xywh(495, 95, 180, 40), "Zoom Out", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 1);
    CHECK_EQ(r.cand, zout);
    /* One control, two elements (class 7): an <li> with a listener and the
     * <a> filling it, same text: one unit, the inner pressed. */
    int li = sc_add(&s, body, base_rect_xywh(20, 300, 200, 30), "li", "listitem", "Inbox", "", 1);
    int a = sc_add(&s, li, base_rect_xywh(22, 302, 196, 26), "a", "link", "Inbox", "", 1);
    CHECK(sc_snap_box(&s, base_rect_xywh(15, 295, 210, 40), "Inbox", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 1);
    CHECK_EQ(r.cand, a);
    /* A checkbox and its <label for> beside it, both named alike: one control. */
    int cb = sc_add(&s, body, base_rect_xywh(20, 400, 14, 14), "input", "checkbox", "", "", 1);
    s.cand[cb].name = "Remember me";
    sc_add(&s, body, base_rect_xywh(40, 398, 100, 18), "label", "", "Remember me", "", 1);
    CHECK(sc_snap_box(&s, base_rect_xywh(15, 394, 130, 26), "Remember me", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 1);
    CHECK_EQ(r.cand, cb);
    snap_scene_fini(&s);
}

/* Issue 21, class 2: a control named otherwise than a non-empty label is
 * never pressed, whatever its area; nothing carrying the label: abstain. */
static void label_never_contradicted(void)
{
    snap_scene s;
    int body = sc_page(&s);
    int del = sc_add(&s, body, base_rect_xywh(20, 100, 300, 60), "button", "button",
                     "Delete account", "", 1);
    int save = sc_add(&s, body, base_rect_xywh(330, 115, 50, 30), "button", "button", "Save", "", 1);
    snap_result r;
    base_rect both = base_rect_xywh(15, 95, 370, 70);
    CHECK(sc_snap_box(&s, both, "Save", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 1);
    CHECK_EQ(r.cand, save);
    CHECK_EQ(r.match, SNAP_MATCH_EXACT);
    CHECK_STR(snap_match_grade(r.match), "exact");
    /* "Cancel" matches neither: abstain, not ambiguous. */
    CHECK(sc_snap_box(&s, both, "Cancel", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 0);
    CHECK_EQ(r.ambiguous, 0);
    CHECK(strstr(r.reason, "named otherwise") != NULL);
    /* A box shifted onto the neighbouring checkbox: the one named is not in
     * it, the one in it is named otherwise. */
    int c1 = sc_add(&s, body, base_rect_xywh(20, 300, 14, 14), "input", "checkbox", "", "", 1);
    s.cand[c1].name = "Email me";
    int c2 = sc_add(&s, body, base_rect_xywh(20, 330, 14, 14), "input", "checkbox", "", "", 1);
    s.cand[c2].name = "Text me";
    CHECK(sc_snap_box(&s, base_rect_xywh(16, 322, 22, 24), "Email me", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 0);
    CHECK(sc_snap_box(&s, base_rect_xywh(16, 296, 22, 22), "Email me", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, c1);
    (void)del;
    CHECK_STR(snap_match_grade(SNAP_MATCH_WORD), "partial");
    CHECK_STR(snap_match_grade(SNAP_MATCH_ICON), "partial");
    CHECK_STR(snap_match_grade(SNAP_MATCH_GEOMETRY), "none");
    snap_scene_fini(&s);
}

/* Issue 21, class 3: a text that is one symbol in full reads as its
 * meaning, so "-" is not "+" and "x" names the "×" close button; symbols
 * inside words are untouched. */
static void symbols(void)
{
    CHECK_EQ(snap_match_kind("-", "\xe2\x88\x92"), SNAP_MATCH_EXACT); /* U+2212 minus */
    CHECK_EQ(snap_match_kind("-", "+"), SNAP_MATCH_NONE);
    CHECK_EQ(snap_match_kind("x", "\xc3\x97"), SNAP_MATCH_EXACT);
    CHECK_EQ(snap_match_kind("Close", " \xc3\x97 "), SNAP_MATCH_EXACT);
    CHECK_EQ(snap_match_kind("\xe2\x80\xba", "\xe2\x80\xb9"), SNAP_MATCH_NONE); /* next vs previous */
    CHECK_EQ(snap_match_kind("\xe2\x98\x85", "Star"), SNAP_MATCH_EXACT);
    char f[64];
    snap__fold("e-mail", f, sizeof f);
    CHECK_STR(f, "e mail");
    snap__fold("+1 555", f, sizeof f);
    CHECK_STR(f, "1 555");
    /* A stepper: "-" presses the minus, never the plus beside it. */
    snap_scene s;
    int body = sc_page(&s);
    int minus = sc_add(&s, body, base_rect_xywh(100, 100, 28, 28), "button", "button",
                       "\xe2\x88\x92", "", 1);
    sc_add(&s, body, base_rect_xywh(130, 100, 24, 28), "span", "", "2", "", 0);
    int plus = sc_add(&s, body, base_rect_xywh(156, 100, 28, 28), "button", "button", "+", "", 1);
    snap_result r;
    CHECK(sc_snap_box(&s, base_rect_xywh(96, 96, 92, 36), "-", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, minus);
    CHECK(sc_snap_box(&s, base_rect_xywh(96, 96, 92, 36), "+", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.cand, plus);
    /* The box on the minus alone, label "+": abstain. */
    CHECK(sc_snap_box(&s, base_rect_xywh(98, 98, 32, 32), "+", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 0);
    snap_scene_fini(&s);
}

/* The target grammar's ordinals (docs/grounding.md). */
static void ordinals(void)
{
    char rest[64] = "unchanged";
    CHECK_EQ(snap_parse_ordinal("second Delete", rest, sizeof rest), 2);
    CHECK_STR(rest, "Delete");
    CHECK_EQ(snap_parse_ordinal("the 3rd Add to cart", rest, sizeof rest), 3);
    CHECK_STR(rest, "Add to cart");
    CHECK_EQ(snap_parse_ordinal("Last row", rest, sizeof rest), -1);
    CHECK_STR(rest, "row");
    CHECK_EQ(snap_parse_ordinal("12th item", rest, sizeof rest), 12);
    rest[0] = 'u';
    rest[1] = '\0';
    CHECK_EQ(snap_parse_ordinal("First", rest, sizeof rest), 0); /* nothing after it */
    CHECK_EQ(snap_parse_ordinal("First name", rest, sizeof rest), 1);
    CHECK_STR(rest, "name");
    CHECK_EQ(snap_parse_ordinal("Delete", rest, sizeof rest), 0);
    CHECK_EQ(snap_parse_ordinal("2 items", rest, sizeof rest), 0);
    CHECK_EQ(snap_parse_ordinal("21st Century Fox", rest, sizeof rest), 21);
    CHECK_EQ(snap_parse_ordinal(NULL, rest, sizeof rest), 0);
}

static void no_candidate(void)
{
    snap_scene s;
    int body = sc_page(&s);
    sc_add(&s, body, base_rect_xywh(100, 100, 300, 40), "p", "", "Just some text", "", 0);
    base_rect box = base_rect_xywh(100, 100, 300, 40);
    snap_result r;
    CHECK(sc_snap_box(&s, box, "Just some text", SNAP_INTENT_ANY, &r));
    CHECK_EQ(r.found, 0);
    CHECK_EQ(r.phase, SNAP_PHASE_NONE);
    CHECK_EQ(r.cand, -1);
    CHECK(strstr(r.reason, "no interactive") != NULL);
    snap_scene_fini(&s);
}

static void bad_input(void)
{
    snap_candidate c;
    memset(&c, 0, sizeof c);
    snap_probe p;
    snap_probe_init(&p, base_rect_xywh(0, 0, 0, 10));
    snap_result r;
    memset(&r, 0x5a, sizeof r);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(snap_resolve(&c, 1, &p, NULL, &r, err), BASE_EINVAL);
    CHECK(err[0] != '\0');
    CHECK_EQ(r.found, 0x5a5a5a5a); /* untouched */
    snap_probe_init(&p, base_rect_xywh(0, 0, 10, 10));
    p.n[3] = 1;
    p.stack[3][0] = 1; /* out of range for one candidate */
    CHECK_EQ(snap_resolve(&c, 1, &p, NULL, &r, NULL), BASE_EINVAL);
    p.stack[3][0] = 0;
    p.pt[5].x = 50; /* a point outside the box */
    CHECK_EQ(snap_resolve(&c, 1, &p, NULL, &r, NULL), BASE_EINVAL);
    CHECK_EQ(snap_resolve(NULL, 0, NULL, NULL, &r, NULL), BASE_EINVAL);
    base_rect nan_box = {0, 0, NAN, 10};
    snap_probe_init(&p, nan_box);
    CHECK_EQ(snap_resolve(&c, 1, &p, NULL, &r, NULL), BASE_EINVAL);
}

static void alloc_failure(void)
{
    snap_scene s;
    snap_scene_init(&s);
    snap_candidate c;
    memset(&c, 0, sizeof c);
    c.parent = -1;
    base_alloc_fail_after(1);
    CHECK_EQ(snap_scene_add(&s, &c, NULL, NULL), BASE_ENOMEM);
    CHECK_EQ(s.n, 0);
    base_alloc_fail_after(2);
    CHECK_EQ(snap_scene_add(&s, &c, NULL, NULL), BASE_ENOMEM);
    CHECK_EQ(s.n, 0);
    base_alloc_fail_after(0);
    CHECK_OK(snap_scene_add(&s, &c, NULL, NULL));
    c.parent = 5;
    CHECK_EQ(snap_scene_add(&s, &c, NULL, NULL), BASE_EINVAL);
    c.parent = 0;
    c.rect = base_rect_xywh(0, 0, 10, 10);
    CHECK_OK(snap_scene_add(&s, &c, NULL, NULL));
    snap_probe p;
    memset(&p, 0x11, sizeof p);
    for (unsigned long n = 1; n <= 3; n++) {
        base_alloc_fail_after(n);
        base_err e = snap_scene_probe(&s, base_rect_xywh(0, 0, 10, 10), &p);
        base_alloc_fail_after(0);
        CHECK(e == BASE_ENOMEM || e == BASE_OK);
        if (e == BASE_ENOMEM)
            CHECK_EQ(p.n_points, 0x11111111);
    }
    snap_scene_fini(&s);
}

/* Property: over random scenes and boxes the point never leaves the box, a
 * found element contains the point and was the first interactive element
 * hit there, and verification there succeeds unless something covers it. */
static void property_random(void)
{
    base_rng rng;
    base_rng_seed(&rng, 0x5eed);
    static const char *const words[] = {"Save", "Open", "More", "Apple", "9:30", "Go"};
    int found = 0, ambiguous = 0;
    for (int it = 0; it < 300; it++) {
        snap_scene s;
        int body = sc_page(&s);
        int n = 3 + (int)base_rng_below(&rng, 25);
        for (int i = 0; i < n; i++) {
            /* Nest under a random earlier element 40 % of the time. */
            int parent = body;
            if (i > 0 && base_rng_chance(&rng, 0.4))
                parent = body + 1 + (int)base_rng_below(&rng, (uint64_t)i);
            base_rect pr = s.cand[parent].rect;
            float w = (float)base_rng_uniform(&rng, 8, 200),
                  h = (float)base_rng_uniform(&rng, 8, 80);
            float x = pr.x0 + (float)base_rng_uniform(&rng, 0, fmaxf(1, base_rect_w(pr) - w));
            float y = pr.y0 + (float)base_rng_uniform(&rng, 0, fmaxf(1, base_rect_h(pr) - h));
            int e = sc_add(&s, parent, base_rect_xywh(x, y, w, h), "div", "",
                           words[base_rng_below(&rng, 6)], "", base_rng_chance(&rng, 0.6));
            s.cand[e].aria_expanded = base_rng_chance(&rng, 0.2) ? 0 : -1;
        }
        for (int b = 0; b < 10; b++) {
            float w = (float)base_rng_uniform(&rng, 4, 400),
                  h = (float)base_rng_uniform(&rng, 4, 120);
            base_rect box = base_rect_xywh((float)base_rng_uniform(&rng, -20, 1200),
                                           (float)base_rng_uniform(&rng, -20, 760), w, h);
            snap_result r;
            snap_intent_kind kind = (snap_intent_kind)base_rng_below(&rng, 3);
            const char *label = base_rng_chance(&rng, 0.3) ? NULL : words[base_rng_below(&rng, 6)];
            CHECK_MSG(sc_snap_box(&s, box, label, kind, &r), "iteration %d box %d", it, b);
            if (!r.found && r.ambiguous) {
                /* An ambiguous answer lists at least two distinct controls,
                 * each with a point inside the box where a click reaches it. */
                CHECK(r.n_alt >= 2 && r.n_alt <= SNAP_MAX_ALT);
                CHECK_EQ(r.cand, -1);
                for (int k = 0; k < r.n_alt; k++) {
                    CHECK(base_rect_contains(box, r.alt_pt[k]));
                    CHECK(s.cand[r.alt[k]].is_interactive);
                    for (int j = 0; j < k; j++)
                        CHECK(r.alt[j] != r.alt[k]);
                    int st[SNAP_PROBE_DEPTH], ns = 0;
                    CHECK_OK(snap_scene_hit(&s, r.alt_pt[k], st, SNAP_PROBE_DEPTH, &ns));
                    CHECK(snap_verify(s.cand, s.n, st, ns, r.alt[k], NULL) == SNAP_VERIFY_OK);
                }
                ambiguous++;
                continue;
            }
            CHECK(!r.ambiguous && r.n_alt == 0);
            if (!r.found)
                continue;
            int st[SNAP_PROBE_DEPTH], ns = 0;
            CHECK_OK(snap_scene_hit(&s, r.pt, st, SNAP_PROBE_DEPTH, &ns));
            /* ...first among what a click there reaches: the top hit and
             * its ancestors. */
            int first = -1;
            for (int k = 0; k < ns && first < 0; k++) {
                if (s.cand[st[k]].is_interactive &&
                    (k == 0 || snap_is_ancestor(s.cand, s.n, st[k], st[0])))
                    first = st[k];
            }
            CHECK_EQ(first, r.cand);
            CHECK(r.score.total > 0.0f || r.phase == SNAP_PHASE_A);
            /* The point lands on the chosen element or on something covering it. */
            CHECK(snap_verify(s.cand, s.n, st, ns, r.cand, NULL) != SNAP_VERIFY_EMPTY);
            found++;
        }
        snap_scene_fini(&s);
    }
    /* Not vacuous: some boxes find an element (198 of 3000 since issue 21:
     * random controls named otherwise than the label are no longer
     * pressed) and some are ambiguous (19 of 3000). */
    CHECK_MSG(found >= 150, "only %d of 3000 random boxes found an element", found);
    CHECK_MSG(ambiguous >= 10, "only %d of 3000 random boxes were ambiguous", ambiguous);
}

static const check_case cases[] = {
    {"neighbour", neighbour},
    {"label_ranking", label_ranking},
    {"probe_points", probe_points},
    {"scene_hit_order", scene_hit_order},
    {"label_rules", label_rules},
    {"classify", classify},
    {"page_targets", page_targets},
    {"compound_rows", compound_rows},
    {"calendar_jitter", calendar_jitter},
    {"time_picker_and_options", time_picker_and_options},
    {"nested_cards", nested_cards},
    {"icons_and_checkboxes", icons_and_checkboxes},
    {"covered_by_modal", covered_by_modal},
    {"verify_by_xpath", verify_by_xpath},
    {"pointer_events_none_overlay", pointer_events_none_overlay},
    {"iframe_descent", iframe_descent},
    {"chevron_cap", chevron_cap},
    {"no_candidate", no_candidate},
    {"ambiguity", ambiguity},
    {"label_never_contradicted", label_never_contradicted},
    {"symbols", symbols},
    {"ordinals", ordinals},
    {"bad_input", bad_input},
    {"alloc_failure", alloc_failure},
    {"property_random", property_random},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
