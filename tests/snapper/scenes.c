/* tests/snapper/scenes.c: the synthetic page of scenes.h.
 *
 * Geometry follows common UI sizes (32 px list rows, 40 px calendar cells,
 * 24 px chevrons beside 150 px chips, 32 px icon buttons 8 px apart) so the
 * accuracy figures mean something. Strings are static: the scene borrows.
 */
#include "scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHEVRON "\xe2\x96\xbe" /* ▾ */

int sc_add(snap_scene *s, int parent, base_rect r, const char *tag, const char *role,
           const char *text, const char *aria, int interactive)
{
    snap_candidate c;
    memset(&c, 0, sizeof c);
    c.rect = r;
    c.tag = tag;
    c.role = role ? role : "";
    c.text = text ? text : "";
    c.aria_label = aria ? aria : "";
    c.title = "";
    c.xpath = "";
    c.frame_chain = "";
    c.aria_expanded = -1;
    c.is_interactive = interactive;
    c.cursor_pointer = interactive;
    c.paint_order = s->n;
    c.parent = parent;
    int idx = -1;
    if (snap_scene_add(s, &c, NULL, &idx) != BASE_OK) {
        fprintf(stderr, "sc_add failed\n");
        abort();
    }
    return idx;
}

int sc_target_ok(const sc_target *t, int cand)
{
    for (int i = 0; i < t->n_ok; i++) {
        if (t->ok[i] == cand)
            return 1;
    }
    return 0;
}

int sc_naive_centre(const snap_scene *s, base_rect box)
{
    int stack[SNAP_PROBE_DEPTH], n = 0;
    if (snap_scene_hit(s, base_rect_center(box), stack, SNAP_PROBE_DEPTH, &n) != BASE_OK)
        return -1;
    for (int k = 0; k < n; k++) {
        if (s->cand[stack[k]].is_interactive)
            return stack[k];
    }
    return -1;
}

static sc_target *push(sc_target *t, int *nt, int max, const char *name, base_rect box,
                       const char *label, snap_intent_kind kind, int ok0, int ok1, int nb)
{
    if (*nt >= max)
        abort();
    sc_target *x = &t[(*nt)++];
    memset(x, 0, sizeof *x);
    x->name = name;
    x->box = box;
    x->label = label;
    x->kind = kind;
    x->ok[x->n_ok++] = ok0;
    if (ok1 >= 0)
        x->ok[x->n_ok++] = ok1;
    x->neighbour = nb;
    return x;
}

static char day_text[32][4];
static char day_aria[32][24];

int sc_build_page(snap_scene *s, sc_target *t, int max)
{
    int nt = 0;
    int html = sc_add(s, -1, base_rect_xywh(0, 0, 1280, 2000), "html", "", "", "", 0);
    int body = sc_add(s, html, base_rect_xywh(0, 0, 1280, 2000), "body", "", "", "", 0);

    /* A. Filter rows. Row 1 is the paper's case: only the chevron acts. */
    int row1 = sc_add(s, body, base_rect_xywh(40, 40, 240, 32), "div", "", "United States " CHEVRON,
                      "", 0);
    sc_add(s, row1, base_rect_xywh(48, 44, 150, 24), "span", "", "United States", "", 0);
    int chev1 = sc_add(s, row1, base_rect_xywh(250, 44, 24, 24), "button", "button", CHEVRON,
                       "Expand United States", 1);
    s->cand[chev1].aria_expanded = 0;
    push(t, &nt, max, "row-label-chevron any", s->cand[row1].rect, "United States", SNAP_INTENT_ANY,
         chev1, -1, -1);
    push(t, &nt, max, "row-label-chevron expand", s->cand[row1].rect, "United States",
         SNAP_INTENT_EXPAND, chev1, -1, -1);

    /* Rows 2 and 4: an interactive chip (selects the value) + chevron (opens). */
    static const char *const chips[] = {"Germany", "Spain"};
    for (int r = 0; r < 2; r++) {
        float y = r == 0 ? 80 : 160;
        int row = sc_add(s, body, base_rect_xywh(40, y, 240, 36), "div", "", "", "", 0);
        int chip =
            sc_add(s, row, base_rect_xywh(44, y + 2, 150, 32), "button", "button", chips[r], "", 1);
        int chev =
            sc_add(s, row, base_rect_xywh(198, y + 2, 28, 32), "button", "button", CHEVRON, "", 1);
        s->cand[chev].aria_haspopup = 1;
        s->cand[chev].aria_expanded = 0;
        base_rect merged = base_rect_union(s->cand[chip].rect, s->cand[chev].rect);
        sc_target *x = push(t, &nt, max, "chip select", s->cand[chip].rect, chips[r],
                            SNAP_INTENT_SELECT, chip, -1, -1);
        x->has_row = 1;
        x->row_box = merged;
        x = push(t, &nt, max, "chip any", s->cand[chip].rect, chips[r], SNAP_INTENT_ANY, chip, -1,
                 -1);
        x->has_row = 1;
        x->row_box = merged;
        push(t, &nt, max, "chip+chevron expand", merged, chips[r], SNAP_INTENT_EXPAND, chev, -1,
             -1);
    }

    /* Row 3: a link whose arrow is decorative (not interactive). */
    int link = sc_add(s, body, base_rect_xywh(40, 124, 200, 28), "a", "link", "France \xe2\x80\xba",
                      "", 1);
    sc_add(s, link, base_rect_xywh(220, 128, 12, 20), "span", "", "\xe2\x80\xba", "", 0);
    push(t, &nt, max, "link + decorative arrow", s->cand[link].rect, "France", SNAP_INTENT_ANY,
         link, -1, -1);

    /* B. A listbox of options. */
    static const char *const fruit[] = {"Apple",     "Apricot", "Banana", "Blackberry",
                                        "Blueberry", "Cherry",  "Date",   "Elderberry"};
    int lb = sc_add(s, body, base_rect_xywh(360, 40, 220, 8 * 32), "ul", "listbox", "", "", 0);
    int opt0 = s->n;
    for (int i = 0; i < 8; i++)
        sc_add(s, lb, base_rect_xywh(360, 40 + 32 * (float)i, 220, 32), "li", "option", fruit[i],
               "", 1);
    for (int i = 0; i < 8; i++) {
        push(t, &nt, max, "option", s->cand[opt0 + i].rect, fruit[i], SNAP_INTENT_SELECT, opt0 + i,
             -1, opt0 + (i < 7 ? i + 1 : i - 1));
    }

    /* C. A calendar: March 2024 starts on a Friday (column 4 of Mon..Sun). */
    int grid = sc_add(s, body, base_rect_xywh(640, 40, 280, 200), "table", "grid", "", "", 0);
    int day0 = -1;
    for (int d = 1; d <= 31; d++) {
        int cell = d + 3; /* 0-based position in the 7-wide grid */
        float x = 640 + 40 * (float)(cell % 7), y = 40 + 40 * (float)(cell / 7);
        snprintf(day_text[d], sizeof day_text[d], "%d", d);
        snprintf(day_aria[d], sizeof day_aria[d], "March %d, 2024", d);
        int c = sc_add(s, grid, base_rect_xywh(x, y, 40, 40), "td", "gridcell", day_text[d],
                       day_aria[d], 1);
        if (d == 1)
            day0 = c;
    }
    for (int d = 1; d <= 31; d++) {
        int c = day0 + d - 1;
        int nb = d < 31 ? c + 1 : c - 1;
        push(t, &nt, max, "day", s->cand[c].rect, d % 2 ? day_text[d] : day_aria[d],
             SNAP_INTENT_ANY, c, -1, nb);
    }

    /* D. A time picker: the trigger shows the value, the list offers times. */
    static const char *const times[] = {"9:00 AM",  "9:30 AM",  "10:00 AM", "10:30 AM",
                                        "11:00 AM", "11:30 AM", "12:00 PM", "12:30 PM"};
    int trig =
        sc_add(s, body, base_rect_xywh(40, 400, 140, 32), "button", "button", "10:30 AM", "", 1);
    s->cand[trig].aria_haspopup = 1;
    s->cand[trig].aria_expanded = 1;
    push(t, &nt, max, "time trigger expand", s->cand[trig].rect, "10:30 AM", SNAP_INTENT_EXPAND,
         trig, -1, -1);
    int tl = sc_add(s, body, base_rect_xywh(40, 436, 140, 8 * 28), "ul", "listbox", "", "", 0);
    int t0 = s->n;
    for (int i = 0; i < 8; i++)
        sc_add(s, tl, base_rect_xywh(40, 436 + 28 * (float)i, 140, 28), "li", "option", times[i],
               "", 1);
    for (int i = 0; i < 8; i++) {
        push(t, &nt, max, "time option", s->cand[t0 + i].rect, times[i], SNAP_INTENT_SELECT, t0 + i,
             -1, t0 + (i < 7 ? i + 1 : i - 1));
    }

    /* E. Product cards: the whole card is a link holding two buttons. */
    static const char *const names[] = {"Blue Shirt", "Red Scarf", "Green Hat"};
    static const char *const card_text[] = {"Blue Shirt $20 Add to cart Wishlist",
                                            "Red Scarf $15 Add to cart Wishlist",
                                            "Green Hat $12 Add to cart Wishlist"};
    for (int i = 0; i < 3; i++) {
        float x = 40 + 320 * (float)i, y = 700;
        int card =
            sc_add(s, body, base_rect_xywh(x, y, 280, 360), "a", "link", card_text[i], "", 1);
        sc_add(s, card, base_rect_xywh(x, y, 280, 200), "img", "img", "", names[i], 0);
        sc_add(s, card, base_rect_xywh(x + 16, y + 216, 248, 24), "h3", "", names[i], "", 0);
        sc_add(s, card, base_rect_xywh(x + 16, y + 248, 80, 20), "span", "", "$20", "", 0);
        int add = sc_add(s, card, base_rect_xywh(x + 16, y + 300, 130, 40), "button", "button",
                         "Add to cart", "", 1);
        int wish = sc_add(s, card, base_rect_xywh(x + 156, y + 300, 108, 40), "button", "button",
                          "Wishlist", "", 1);
        push(t, &nt, max, "card button", s->cand[add].rect, "Add to cart", SNAP_INTENT_ANY, add, -1,
             wish);
        push(t, &nt, max, "card button 2", s->cand[wish].rect, "Wishlist", SNAP_INTENT_ANY, wish,
             -1, add);
        push(t, &nt, max, "card link", s->cand[card].rect, names[i], SNAP_INTENT_ANY, card, -1, -1);
    }

    /* F. An icon toolbar: no visible text, names only in aria-label. */
    static const char *const icons[] = {"Bold", "Italic", "Underline", "Link", "Image", "Code"};
    int tb = sc_add(s, body, base_rect_xywh(40, 1100, 240, 32), "div", "toolbar", "", "", 0);
    int ic0 = s->n;
    for (int i = 0; i < 6; i++)
        sc_add(s, tb, base_rect_xywh(40 + 40 * (float)i, 1100, 32, 32), "button", "button", "",
               icons[i], 1);
    for (int i = 0; i < 6; i++) {
        push(t, &nt, max, "icon, no label", s->cand[ic0 + i].rect, NULL, SNAP_INTENT_ANY, ic0 + i,
             -1, -1);
        push(t, &nt, max, "icon", s->cand[ic0 + i].rect, icons[i], SNAP_INTENT_ANY, ic0 + i, -1,
             ic0 + (i < 5 ? i + 1 : i - 1));
    }

    /* G. Small checkboxes beside long clickable labels (label-for). */
    static const char *const cb_text[] = {"Subscribe to the newsletter and weekly offers",
                                          "Remember me on this computer for thirty days",
                                          "I agree to the terms of service and privacy policy"};
    for (int i = 0; i < 3; i++) {
        float y = 1200 + 40 * (float)i;
        int cb = sc_add(s, body, base_rect_xywh(40, y + 2, 16, 16), "input", "checkbox", "", "", 1);
        int lab = sc_add(s, body, base_rect_xywh(64, y, 380, 20), "label", "", cb_text[i], "", 1);
        base_rect both = base_rect_union(s->cand[cb].rect, s->cand[lab].rect);
        push(t, &nt, max, "checkbox + label", both, cb_text[i], SNAP_INTENT_ANY, cb, lab, -1);
        push(t, &nt, max, "checkbox alone", s->cand[cb].rect, NULL, SNAP_INTENT_ANY, cb, lab, -1);
    }
    return nt;
}

int sc_snap_box(const snap_scene *s, base_rect box, const char *label, snap_intent_kind kind,
                snap_result *r)
{
    snap_probe p;
    if (snap_scene_probe(s, box, &p) != BASE_OK)
        return 0;
    snap_intent in = {label, kind};
    if (snap_resolve(s->cand, s->n, &p, &in, r, NULL) != BASE_OK)
        return 0;
    if (!base_rect_contains(box, r->pt) || !r->reason)
        return 0;
    return !r->found || base_rect_contains(s->cand[r->cand].rect, r->pt);
}

int sc_page(snap_scene *s)
{
    snap_scene_init(s);
    int html = sc_add(s, -1, base_rect_xywh(0, 0, 1280, 800), "html", "", "", "", 0);
    return sc_add(s, html, base_rect_xywh(0, 0, 1280, 800), "body", "", "", "", 0);
}
