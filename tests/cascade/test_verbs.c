/* tests/cascade/test_verbs.c: the hand's other input verbs (cascade/input.h)
 * on tests/fixtures/pages/hand/verbs.html: key chords parse into the fields
 * CDP wants and reach the page as trusted keydowns with the right key, code
 * and modifiers; hover opens a script menu and a CSS :hover flyout and is
 * refused on a covered target; double and right clicks fire dblclick and
 * contextmenu once; dropdown options are read from a native select and a
 * portalled ARIA listbox and chosen by text (exact > case > prefix,
 * ambiguous and disabled refused); files land in a hidden input and in a
 * chooser opened from script; the clipboard reads what a copy button
 * wrote. Plus the pure parts: key parsing and option matching. */
#include <stdlib.h>
#include <unistd.h>

#include "base/alloc.h"
#include "cascade/input.h"
#include "check.h"
#include "hand_util.h"
#include "harness.h"

/* ---------- pure ---------- */

static void key_parse(void)
{
    char err[256] = "";
    cascade_key k;
    CHECK_OK(cascade_key_parse("Enter", &k, err));
    CHECK_STR(k.key, "Enter");
    CHECK_STR(k.code, "Enter");
    CHECK_EQ(k.vk, 13);
    CHECK_STR(k.text, "\r");
    CHECK_EQ(k.modifiers, 0);
    CHECK_OK(cascade_key_parse("shift+tab", &k, err));
    CHECK_STR(k.name, "Shift+Tab");
    CHECK_EQ(k.modifiers, CASCADE_MOD_SHIFT);
    CHECK_STR(k.text, "");
    CHECK_OK(cascade_key_parse("Control+A", &k, err));
    CHECK_STR(k.key, "a"); /* a shortcut: the unshifted letter, no text */
    CHECK_STR(k.code, "KeyA");
    CHECK_EQ(k.vk, 65);
    CHECK_STR(k.text, "");
    CHECK_EQ(k.modifiers, CASCADE_MOD_CTRL);
    CHECK_STR(k.name, "Control+a");
    CHECK_OK(cascade_key_parse("Meta+Shift+K", &k, err));
    CHECK_EQ(k.modifiers, CASCADE_MOD_META | CASCADE_MOD_SHIFT);
    CHECK_STR(k.key, "K");
    CHECK_OK(cascade_key_parse("Ctrl+Cmd+Option+Del", &k, err));
    CHECK_EQ(k.modifiers, CASCADE_MOD_CTRL | CASCADE_MOD_META | CASCADE_MOD_ALT);
    CHECK_STR(k.key, "Delete");
    CHECK_OK(cascade_key_parse("A", &k, err));
    CHECK_STR(k.text, "A");
    CHECK_EQ(k.modifiers, CASCADE_MOD_SHIFT);
    CHECK_OK(cascade_key_parse("?", &k, err));
    CHECK_STR(k.code, "Slash");
    CHECK_EQ(k.modifiers, CASCADE_MOD_SHIFT);
    CHECK_OK(cascade_key_parse("Control++", &k, err));
    CHECK_STR(k.key, "+");
    CHECK_EQ(k.modifiers, CASCADE_MOD_CTRL);
    CHECK_OK(cascade_key_parse("F5", &k, err));
    CHECK_EQ(k.vk, 116);
    CHECK_OK(cascade_key_parse("esc", &k, err));
    CHECK_STR(k.key, "Escape");
    CHECK_OK(cascade_key_parse("Space", &k, err));
    CHECK_STR(k.text, " ");
    /* Unknown names: the closest known ones. */
    CHECK_EQ(cascade_key_parse("Entr", &k, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "unknown key 'Entr'") && strstr(err, "Enter"), "%s", err);
    err[0] = '\0';
    CHECK_EQ(cascade_key_parse("Contrl+A", &k, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "modifier 'Contrl'") && strstr(err, "Control"), "%s", err);
    err[0] = '\0';
    CHECK_EQ(cascade_key_parse("ArowDown", &k, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "ArrowDown"), "%s", err);
    CHECK_EQ(cascade_key_parse("Shift+Shift+A", &k, err), BASE_EINVAL);
    CHECK_EQ(cascade_key_parse("", &k, err), BASE_EINVAL);
    cascade_key ks[4];
    int n = 0;
    CHECK_OK(cascade_keys_parse("  Control+A   Delete ", ks, 4, &n, err));
    CHECK_EQ(n, 2);
    CHECK_STR(ks[1].key, "Delete");
    CHECK_EQ(cascade_keys_parse("a b c d e", ks, 4, &n, err), BASE_EINVAL);
    CHECK_EQ(cascade_keys_parse("   ", ks, 4, &n, err), BASE_EINVAL);
    err[0] = '\0';
    CHECK_EQ(cascade_keys_parse("Tab Tabb", ks, 4, &n, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "'Tabb'"), "%s", err);
}

static void option_match(void)
{
    const char *t[] = {"Apple", "Apricot", "Banana", "banana split", "Cherry", "  Date  "};
    int idx = -1, lv = 0;
    CHECK_EQ(cascade_option_match(t, 6, "Banana", &idx, &lv), 1);
    CHECK_EQ(idx, 2);
    CHECK_EQ(lv, CASCADE_MATCH_EXACT);
    CHECK_EQ(cascade_option_match(t, 6, "cherry", &idx, &lv), 1);
    CHECK_EQ(idx, 4);
    CHECK_EQ(lv, CASCADE_MATCH_CASE);
    CHECK_EQ(cascade_option_match(t, 6, "date", &idx, &lv), 1);
    CHECK_EQ(idx, 5);
    CHECK_EQ(cascade_option_match(t, 6, "Apr", &idx, &lv), 1);
    CHECK_EQ(idx, 1);
    CHECK_EQ(lv, CASCADE_MATCH_PREFIX);
    CHECK_EQ(cascade_option_match(t, 6, "ap", &idx, &lv), 2); /* ambiguous prefix */
    CHECK_EQ(cascade_option_match(t, 6, "banana", &idx, &lv), 1); /* exact-folded wins */
    CHECK_EQ(idx, 2);
    CHECK_EQ(cascade_option_match(t, 6, "kiwi", &idx, &lv), 0);
    CHECK_EQ(lv, CASCADE_MATCH_NONE);
    CHECK_EQ(cascade_option_match(t, 6, "  ", &idx, &lv), 0);
}

/* ---------- live ---------- */

static cascade_hand *make_hand(cdp_page *p, int humanize)
{
    cascade_opts o;
    hu_fast_opts(&o);
    o.humanize = humanize;
    cascade_hand *h = NULL;
    char err[256] = "";
    if (cascade_hand_create(p, &o, &h, err))
        fprintf(stderr, "hand: %s\n", err);
    return h;
}

/* window.log joined with '|', then cleared. */
static const char *page_log(cdp_page *p, char *buf, size_t n)
{
    return hu_str(p, "(() => { const s = window.log.join('|'); window.log.length = 0; return s; })()",
                  buf, n);
}

static void keys(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(900, 700, 1.0, "/hand/verbs.html");
    CHECK(p);
    char err[256] = "", buf[2048];
    for (int hum = 0; hum <= 1; hum++) {
        cascade_hand *h = make_hand(p, hum);
        CHECK(h);
        hu_eval(p, "(() => { const q = document.getElementById('q'); q.value = 'old text'; "
                   "document.getElementById('keylog').textContent = ''; window.log.length = 0; return 1; })()");
        cascade_target q = hu_xpath("//*[@id='q']", NULL);
        cascade_key k[8];
        int n = 0;
        cascade_result r;
        /* Focus by click, select all, delete: the field empties. */
        CHECK_OK(cascade_keys_parse("Control+A Delete", k, 8, &n, err));
        CHECK_OK(cascade_keys(h, &q, k, n, 1, &r, err));
        CHECK_MSG(r.success && r.delivered, "%s", r.message);
        CHECK_MSG(r.effects & CASCADE_FX_VALUE, "effects %x: %s", r.effects, r.message);
        CHECK_MSG(strstr(r.message, "input#q"), "%s", r.message);
        CHECK_STR(hu_str(p, "document.getElementById('q').value", buf, sizeof buf), "");
        page_log(p, buf, sizeof buf);
        CHECK_MSG(strstr(buf, "keydown:a:KeyA:C:t") && strstr(buf, "keydown:Delete:Delete::t") &&
                      strstr(buf, "keydown:Control:ControlLeft:C:t"),
                  "%s", buf);
        /* Printable keys to the focused field (no target), repeat. */
        CHECK_OK(cascade_keys_parse("x", k, 8, &n, err));
        CHECK_OK(cascade_keys(h, NULL, k, n, 3, &r, err));
        CHECK_MSG(r.success, "%s", r.message);
        CHECK_STR(hu_str(p, "document.getElementById('q').value", buf, sizeof buf), "xxx");
        /* Enter: the page's own key handler runs. */
        CHECK_OK(cascade_keys_parse("Enter", k, 8, &n, err));
        CHECK_OK(cascade_keys(h, NULL, k, n, 1, &r, err));
        CHECK_MSG(r.success && (r.effects & CASCADE_FX_MUTATION), "%s", r.message);
        CHECK_STR(hu_str(p, "document.getElementById('keylog').textContent", buf, sizeof buf),
                  "searched xxx");
        /* Tab moves focus; Shift+Tab back. */
        CHECK_OK(cascade_keys_parse("Tab", k, 8, &n, err));
        CHECK_OK(cascade_keys(h, NULL, k, n, 1, &r, err));
        CHECK_MSG(r.effects & CASCADE_FX_FOCUS, "%s", r.message);
        CHECK_STR(hu_str(p, "document.activeElement.id", buf, sizeof buf), "n2");
        CHECK_OK(cascade_keys_parse("Shift+Tab", k, 8, &n, err));
        CHECK_OK(cascade_keys(h, NULL, k, n, 1, &r, err));
        CHECK_STR(hu_str(p, "document.activeElement.id", buf, sizeof buf), "q");
        page_log(p, buf, sizeof buf);
        CHECK_MSG(strstr(buf, "keydown:Tab:Tab:S:t"), "%s", buf);
        /* A covered target: refused, no key pressed. */
        cascade_target under = hu_xpath("//*[@id='under']", NULL);
        CHECK_OK(cascade_keys_parse("Enter", k, 8, &n, err));
        CHECK_OK(cascade_keys(h, &under, k, n, 1, &r, err));
        CHECK(!r.success);
        CHECK_EQ(r.reason, CASCADE_COVERED);
        CHECK(!r.delivered);
        CHECK_STR(page_log(p, buf, sizeof buf), "");
        cascade_hand_destroy(h);
    }
    cdp_page_close(p);
}

static void hover_and_presses(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(900, 700, 1.0, "/hand/verbs.html");
    CHECK(p);
    char err[256] = "", buf[1024];
    for (int hum = 0; hum <= 1; hum++) {
        cascade_hand *h = make_hand(p, hum);
        CHECK(h);
        cascade_result r;
        /* A script menu: opens on mouseenter, stays while the cursor does. */
        cascade_target prod = hu_xpath("//*[@id='products']", NULL);
        CHECK_OK(cascade_press(h, &prod, CASCADE_PRESS_HOVER, &r, err));
        CHECK_MSG(r.success && r.delivered && (r.effects & CASCADE_FX_MUTATION), "%s", r.message);
        CHECK_MSG(strstr(r.message, "hovered"), "%s", r.message);
        CHECK_EQ(hu_num(p, "document.querySelectorAll('#prod-menu').length"), 1);
        CHECK_EQ(hu_num(p, "document.querySelectorAll('#products:hover').length"), 1);
        /* CSS :hover: no DOM change, delivered all the same. */
        cascade_target comp = hu_xpath("//*[@id='company']", NULL);
        CHECK_OK(cascade_press(h, &comp, CASCADE_PRESS_HOVER, &r, err));
        CHECK_MSG(r.success && r.delivered && (r.effects & CASCADE_FX_SHOWN), "%s", r.message);
        CHECK_EQ(hu_num(p, "document.querySelectorAll('#prod-menu').length"), 0); /* left it */
        CHECK_STR(hu_str(p, "getComputedStyle(document.querySelector('#company .flyout')).display",
                         buf, sizeof buf),
                  "block");
        /* Covered: refused, not hovered. */
        cascade_target under = hu_xpath("//*[@id='under']", NULL);
        CHECK_OK(cascade_press(h, &under, CASCADE_PRESS_HOVER, &r, err));
        CHECK_EQ(r.reason, CASCADE_COVERED);
        CHECK(!r.delivered);
        /* Double click: two clicks and one trusted dblclick. */
        page_log(p, buf, sizeof buf);
        hu_eval(p, "document.getElementById('dbl').textContent = 'Double-click to edit'");
        cascade_target dbl = hu_xpath("//*[@id='dbl']", NULL);
        CHECK_OK(cascade_press(h, &dbl, CASCADE_PRESS_DOUBLE, &r, err));
        CHECK_MSG(r.success && r.delivered, "%s", r.message);
        CHECK_EQ(r.n_tried, 1);
        CHECK_STR(page_log(p, buf, sizeof buf), "click:dbl|click:dbl|dblclick:t");
        CHECK_STR(hu_str(p, "document.getElementById('dbl').textContent", buf, sizeof buf),
                  "Editing");
        /* Right click: one trusted contextmenu, the custom menu shows. */
        hu_eval(p, "(() => { const m = document.getElementById('ctx-menu'); if (m) m.remove(); return 1; })()");
        page_log(p, buf, sizeof buf);
        cascade_target rc = hu_xpath("//*[@id='rc']", NULL);
        CHECK_OK(cascade_press(h, &rc, CASCADE_PRESS_RIGHT, &r, err));
        CHECK_MSG(r.success && r.delivered && (r.effects & CASCADE_FX_MUTATION), "%s", r.message);
        CHECK_STR(page_log(p, buf, sizeof buf), "contextmenu:t");
        CHECK_EQ(hu_num(p, "document.querySelectorAll('#ctx-menu').length"), 1);
        cascade_hand_destroy(h);
    }
    cdp_page_close(p);
}

static void dropdowns(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(900, 700, 1.0, "/hand/verbs.html");
    CHECK(p);
    char err[256] = "", buf[512];
    cascade_hand *h = make_hand(p, 0);
    CHECK(h);
    cascade_options o;
    cascade_result r;
    /* Native: read without touching it, via the select or its label. */
    cascade_target country = hu_xpath("//*[@id='country']", NULL);
    CHECK_OK(cascade_dropdown_options(h, &country, 0, &o, &r, err));
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(o.native);
    CHECK_EQ(o.n, 6);
    CHECK_STR(o.v[1].text, "Austria");
    CHECK_STR(o.v[1].value, "at");
    CHECK(o.v[0].selected);
    CHECK(o.v[4].disabled);
    CHECK(!r.delivered);
    cascade_options_fini(&o);
    cascade_target lab = hu_xpath("//label[@for='country']", NULL);
    CHECK_OK(cascade_dropdown_options(h, &lab, 0, &o, &r, err));
    CHECK_EQ(o.n, 6);
    cascade_options_fini(&o);
    /* Choose: case-folded, prefix; ambiguous and disabled refused. */
    CHECK_OK(cascade_dropdown_select(h, &country, "germany", &r, err));
    CHECK_MSG(r.success && r.delivered, "%s", r.message);
    CHECK_STR(hu_str(p, "document.getElementById('country-out').textContent", buf, sizeof buf),
              "chose de");
    CHECK_OK(cascade_dropdown_select(h, &country, "Au", &r, err));
    CHECK_EQ(r.reason, CASCADE_AMBIGUOUS);
    CHECK_MSG(strstr(r.message, "Austria") && strstr(r.message, "Australia"), "%s", r.message);
    CHECK(!r.delivered);
    CHECK_OK(cascade_dropdown_select(h, &country, "Guyana", &r, err));
    CHECK_EQ(r.reason, CASCADE_DISABLED);
    CHECK_OK(cascade_dropdown_select(h, &country, "France", &r, err));
    CHECK_EQ(r.reason, CASCADE_NOT_FOUND);
    CHECK_MSG(strstr(r.message, "Germany"), "%s", r.message);
    CHECK_STR(hu_str(p, "document.getElementById('country').value", buf, sizeof buf), "de");
    CHECK_OK(cascade_dropdown_select(h, &country, "United", &r, err));
    CHECK_MSG(r.success, "%s", r.message);
    CHECK_STR(hu_str(p, "document.getElementById('country').value", buf, sizeof buf), "us");
    /* Custom: opened by a click, read from the portalled listbox, closed. */
    cascade_target fruit = hu_xpath("//*[@id='fruit']", NULL);
    CHECK_OK(cascade_dropdown_options(h, &fruit, 0, &o, &r, err));
    CHECK_MSG(r.success, "%s", r.message);
    CHECK(!o.native);
    CHECK(o.opened);
    CHECK_EQ(o.n, 6);
    CHECK_STR(o.v[3].text, "banana split");
    CHECK_STR(o.v[3].value, "split");
    CHECK(o.v[4].disabled);
    CHECK(o.v[0].xpath && o.v[0].xpath[0] == '/');
    cascade_options_fini(&o);
    CHECK_EQ(hu_num(p, "document.querySelectorAll('#fruit-list').length"), 0); /* closed again */
    CHECK_OK(cascade_dropdown_select(h, &fruit, "banana", &r, err));
    CHECK_MSG(r.success && r.delivered, "%s", r.message);
    CHECK_STR(hu_str(p, "document.getElementById('fruit-out').textContent", buf, sizeof buf),
              "fruit banana");
    CHECK_OK(cascade_dropdown_select(h, &fruit, "ap", &r, err));
    CHECK_EQ(r.reason, CASCADE_AMBIGUOUS);
    CHECK_EQ(hu_num(p, "document.querySelectorAll('#fruit-list').length"), 0);
    CHECK_OK(cascade_dropdown_select(h, &fruit, "Cherry", &r, err));
    CHECK_EQ(r.reason, CASCADE_DISABLED);
    CHECK_STR(hu_str(p, "document.getElementById('fruit-out').textContent", buf, sizeof buf),
              "fruit banana");
    /* Not a dropdown: the click opens nothing. */
    cascade_target tok = hu_xpath("//*[@id='token']", NULL);
    CHECK_OK(cascade_dropdown_options(h, &tok, 0, &o, &r, err));
    CHECK(!r.success);
    CHECK_EQ(o.n, 0);
    cascade_options_fini(&o);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static void files_and_clipboard(void)
{
    HARNESS_OR_SKIP(hs);
    cdp_page *p = harness_open(900, 700, 1.0, "/hand/verbs.html");
    CHECK(p);
    char err[256] = "", buf[512], names[256];
    cascade_hand *h = make_hand(p, 0);
    CHECK(h);
    char f1[64], f2[64];
    snprintf(f1, sizeof f1, "/tmp/fovea_up_%d_a.txt", (int)getpid());
    snprintf(f2, sizeof f2, "/tmp/fovea_up_%d_b.csv", (int)getpid());
    FILE *fp = fopen(f1, "w");
    CHECK(fp);
    fputs("hello", fp);
    fclose(fp);
    fp = fopen(f2, "w");
    CHECK(fp);
    fputs("a,b\n", fp);
    fclose(fp);
    cascade_result r;
    /* The label around a hidden input: both files set, change fired. */
    cascade_target drop = hu_xpath("//*[@id='drop']", NULL);
    const char *two[] = {f1, f2};
    CHECK_OK(cascade_upload(h, &drop, two, 2, names, sizeof names, &r, err));
    CHECK_MSG(r.success && r.delivered, "%s", r.message);
    CHECK(strstr(names, "_a.txt") && strstr(names, "_b.csv"));
    CHECK_MSG(strstr(hu_str(p, "document.getElementById('files').textContent", buf, sizeof buf),
                     "_a.txt:5"),
              "%s", buf);
    /* A missing file: nothing set, the path named. */
    err[0] = '\0';
    const char *bad[] = {f1, "/nonexistent/x.pdf"};
    CHECK_EQ(cascade_upload(h, &drop, bad, 2, names, sizeof names, &r, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "/nonexistent/x.pdf") && strstr(err, "does not exist"), "%s", err);
    CHECK(!r.delivered);
    err[0] = '\0';
    const char *dir[] = {"/tmp"};
    CHECK_EQ(cascade_upload(h, &drop, dir, 1, names, sizeof names, &r, err), BASE_EINVAL);
    /* A button that opens a chooser from script. */
    cascade_target ch = hu_xpath("//*[@id='chooser']", NULL);
    const char *one[] = {f2};
    CHECK_OK(cascade_upload(h, &ch, one, 1, names, sizeof names, &r, err));
    CHECK_MSG(r.success && r.delivered, "%s", r.message);
    CHECK(strstr(names, "_b.csv"));
    CHECK_MSG(strstr(hu_str(p, "String(window.chosen)", buf, sizeof buf), "_b.csv"), "%s", buf);
    /* Something that opens no chooser. */
    cascade_target tok = hu_xpath("//*[@id='token']", NULL);
    CHECK_OK(cascade_upload(h, &tok, one, 1, names, sizeof names, &r, err));
    CHECK_EQ(r.reason, CASCADE_NO_EFFECT);
    unlink(f1);
    unlink(f2);
    /* Clipboard: the copy button writes, the hand reads. */
    cascade_target copy = hu_xpath("//*[@id='copy']", NULL);
    char *text = NULL;
    CHECK_OK(cascade_clipboard_read(h, &text, err)); /* grants, reads (maybe empty) */
    base_free(text);
    text = NULL;
    CHECK_OK(cascade_click(h, &copy, &r, err));
    CHECK_MSG(r.success, "%s", r.message);
    for (int i = 0; i < 50 && hu_num(p, "window.log.indexOf('copied')") < 0; i++)
        base_sleep_ms(20);
    CHECK_MSG(hu_num(p, "window.log.indexOf('copied')") >= 0, "%s",
              page_log(p, buf, sizeof buf));
    CHECK_OK(cascade_clipboard_read(h, &text, err));
    CHECK_STR(text ? text : "(null)", "INV-2026-0042");
    base_free(text);
    cascade_hand_destroy(h);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"key_parse", key_parse},
    {"option_match", option_match},
    {"keys", keys},
    {"hover_and_presses", hover_and_presses},
    {"dropdowns", dropdowns},
    {"files_and_clipboard", files_and_clipboard},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
