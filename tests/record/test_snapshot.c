/* tests/record/test_snapshot.c: the offline page model against the browser.
 *
 * Each case opens a fixture page from tests/fixtures/pages/snap in Chromium,
 * captures it with rec_snapshot_capture, saves and reloads the JSON with
 * rec_snapshot_parse, and then asks both the browser (deep_hit.js:
 * elementFromPoint through open shadow roots and same-origin iframes) and the
 * scene (snap_scene_hit) for the front-most element at a lattice of points
 * over the viewport. They must name the same element (xpath + frame chain)
 * at 98 % of the points or more; the misses are printed. Points within 1 px
 * of either element's edge are left out: layout rects are fractional and the
 * browser's hit test snaps them to its own units. Inside a
 * cross-origin iframe the page can only see the iframe, so there the scene
 * must name an element of that frame's document (or the iframe itself, below
 * the end of a short document).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "check.h"
#include "harness.h"
#include "image/image.h"
#include "record/snapshot.h"

static char *read_js(void)
{
    uint8_t *d = NULL;
    size_t n = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_read_file(FOVEA_SOURCE_DIR "/tests/record/deep_hit.js", &d, &n, 1u << 20,
                             err)) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    return (char *)d;
}

static int near_edge(base_rect r, int x, int y)
{
    float fx = (float)x, fy = (float)y;
    return fabsf(fx - r.x0) <= 1.0f || fabsf(fx - r.x1) <= 1.0f || fabsf(fy - r.y0) <= 1.0f ||
           fabsf(fy - r.y1) <= 1.0f;
}

/* Compares scene and browser on a lattice of points; returns the agreement
 * in percent (0 on any set-up failure). */
static double agreement(cdp_page *page, const rec_snapshot *s, int step)
{
    char *js = read_js();
    if (!js)
        return 0.0;
    base_buf expr;
    base_buf_init(&expr, 1u << 22);
    base_buf_printf(&expr, "(%s)([", js);
    base_free(js);
    int np = 0;
    for (int y = step / 2; y < s->vh; y += step) {
        for (int x = step / 2; x < s->vw; x += step)
            base_buf_printf(&expr, "%s[%d,%d]", np++ ? "," : "", x, y);
    }
    base_buf_append_str(&expr, "])");
    cJSON *v = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_evaluate(page, (const char *)expr.data, &v, 20000, err);
    base_buf_fini(&expr);
    if (e || !cJSON_IsString(v)) {
        fprintf(stderr, "deep_hit: %s\n", err);
        cJSON_Delete(v);
        return 0.0;
    }
    cJSON *arr = cJSON_Parse(v->valuestring);
    cJSON_Delete(v);
    int k = 0, same = 0, shown = 0, total = 0;
    const cJSON *it = arr ? arr->child : NULL;
    for (int y = step / 2; y < s->vh; y += step) {
        for (int x = step / 2; x < s->vw && it; x += step, it = it->next, k++, total++) {
            const char *bx = cJSON_GetObjectItem(it, "x")->valuestring;
            const char *bf = cJSON_GetObjectItem(it, "f")->valuestring;
            int cross = cJSON_IsTrue(cJSON_GetObjectItem(it, "cross"));
            int stack[4], n = 0;
            snap_scene_hit(&s->scene, (base_point){(float)x, (float)y}, stack, 4, &n);
            const char *sx = n ? s->scene.cand[stack[0]].xpath : "";
            const char *sf = n ? s->scene.cand[stack[0]].frame_chain : "";
            int ok;
            if (cross) {
                /* The scene sees into the frame: its element must be there. */
                char want[2048];
                snprintf(want, sizeof want, "%s%s%s", bf, bf[0] ? "|" : "", bx);
                ok = n && (strncmp(sf, want, strlen(want)) == 0 ||
                           (strcmp(sf, bf) == 0 && strcmp(sx, bx) == 0));
            } else {
                ok = strcmp(sx, bx) == 0 && strcmp(sf, bf) == 0;
            }
            if (!ok && n) {
                /* Sub-pixel edges: either element's rect border within 1 px. */
                int bi = rec_snapshot_find(s, bx, bf);
                base_rect rs = s->scene.cand[stack[0]].rect;
                int edge = near_edge(rs, x, y);
                if (bi >= 0)
                    edge |= near_edge(s->scene.cand[bi].rect, x, y);
                if (edge) {
                    k--;
                    continue;
                }
            }
            same += ok;
            if (!ok && shown++ < 8)
                printf("  (%d,%d) browser %s%s%s, scene %s%s%s\n", x, y, bf, bf[0] ? " | " : "",
                       bx, sf, sf[0] ? " | " : "", sx);
        }
    }
    cJSON_Delete(arr);
    double pct = k ? 100.0 * same / k : 0.0;
    printf("  %d/%d points agree (%.1f %%)\n", same, k, pct);
    return total == np ? pct : 0.0;
}

/* Opens path, optionally scrolls, captures, round-trips the JSON, compares. */
static void check_page(const char *path, double scale, int scroll_y, rec_snapshot *out)
{
    HARNESS_OR_SKIP(h);
    cdp_page *page = harness_open(1280, 800, scale, path);
    CHECK(page != NULL);
    char err[BASE_ERRBUF_SIZE] = "";
    char js[160];
    snprintf(js, sizeof js,
             "window.scrollTo(0, %d); new Promise(r => requestAnimationFrame(() => "
             "requestAnimationFrame(() => setTimeout(r, 300))))",
             scroll_y);
    CHECK_EQ(cdp_page_evaluate(page, js, NULL, 10000, err), BASE_OK);
    cJSON *j = NULL;
    base_err e = rec_snapshot_capture(page, &j, err);
    if (e)
        printf("capture: %s\n", err);
    CHECK_EQ(e, BASE_OK);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    CHECK(text != NULL);
    rec_snapshot s;
    e = rec_snapshot_parse(text, strlen(text), &s, err);
    free(text);
    CHECK_EQ(e, BASE_OK);
    CHECK(s.scene.n > 20);
    CHECK_EQ(s.vw, 1280);
    CHECK_EQ(s.vh, 800);
    CHECK(s.scroll_y == scroll_y);
    printf("%s (scale %g, scroll %d): %d elements\n", path, scale, scroll_y, s.scene.n);
    double pct = agreement(page, &s, 17);
    cdp_page_close(page);
    CHECK(pct >= 98.0);
    if (out)
        *out = s;
    else
        rec_snapshot_fini(&s);
}

static void test_shop_scrolled(void)
{
    /* Sticky header, fixed cookie banner, rotated badge, 100 px scroll. */
    check_page("/snap/shop.html", 1.0, 100, NULL);
}

static void test_booking(void)
{
    /* An inner scrolled listbox: items outside it are clipped. */
    check_page("/snap/booking.html", 1.0, 0, NULL);
}

static void test_account_modal(void)
{
    /* A fixed modal overlay over a transform: scale(0.8) card. */
    check_page("/snap/account.html?modal", 1.0, 0, NULL);
}

static void test_checkout_frames(void)
{
    /* Open shadow roots, a same-origin and a cross-origin iframe, at DSF 2. */
    rec_snapshot s;
    memset(&s, 0, sizeof s);
    check_page("/snap/checkout.html", 2.0, 0, &s);
    CHECK_EQ(s.dsf, 2.0);
    CHECK_EQ(s.missing_frames, 0);
    /* The shadow button, the same-origin and the cross-origin frame's elements. */
    int a = rec_snapshot_find(&s, "/html[1]/body[1]/div[2]/div[2]/div[1]/promo-code[1]/#shadow-root/div[1]/button[1]", "");
    int b = rec_snapshot_find(&s, "/html[1]/body[1]/div[2]/button[1]", "/html[1]/body[1]/div[2]/div[1]/div[4]/iframe[1]");
    int c = rec_snapshot_find(&s, "/html[1]/body[1]/button[1]", "/html[1]/body[1]/div[2]/div[1]/div[3]/iframe[1]");
    CHECK(a >= 0 && b >= 0 && c >= 0);
    CHECK(strcmp(s.scene.cand[c].text, "Pay with QuickWallet") == 0);
    CHECK(s.scene.cand[b].is_interactive);
    /* Roles, names and "interactive" are the page kit's answers, asked in
     * each document's own session: the top page (its open shadow roots and
     * same-origin frame) and the out-of-process wallet frame. */
    CHECK_STR(s.scene.cand[a].role, "button");
    CHECK_STR(s.scene.cand[a].name, "Apply");
    CHECK(s.scene.cand[a].is_interactive);
    CHECK_STR(s.scene.cand[b].role, "button");
    CHECK_STR(s.scene.cand[c].role, "button");
    CHECK_STR(s.scene.cand[c].name, "Pay with QuickWallet");
    CHECK(s.scene.cand[c].is_interactive);
    int more = rec_snapshot_find(&s, "/html[1]/body[1]/button[3]",
                                  "/html[1]/body[1]/div[2]/div[1]/div[3]/iframe[1]");
    CHECK(more >= 0);
    if (more >= 0)
        CHECK_STR(s.scene.cand[more].name, "More payment options");
    /* Inside: an element of the frame is within the iframe element. */
    CHECK(rec_snapshot_within(&s, c, "/html[1]/body[1]/div[2]/div[1]/div[3]/iframe[1]", ""));
    CHECK(rec_snapshot_within(&s, a, "/html[1]/body[1]/div[2]/div[2]/div[1]/promo-code[1]", ""));
    CHECK(!rec_snapshot_within(&s, a, "/html[1]/body[1]/div[2]/div[2]/div[1]/promo", ""));
    rec_snapshot_fini(&s);
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"shop_scrolled", test_shop_scrolled},
        {"booking", test_booking},
        {"account_modal", test_account_modal},
        {"checkout_frames", test_checkout_frames},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
