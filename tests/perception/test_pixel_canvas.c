/* tests/perception/test_pixel_canvas.c: the `pixel` provider in real Chromium on
 * tests/fixtures/pages/pixel/canvas.html, a form painted on one <canvas>
 * whose click handler hit-tests the painted controls (window.controls holds
 * their rects, window.__hits what was clicked).
 *
 * - dom_blind: the dom provider sees the canvas itself (it listens for
 *   clicks) and no box on any painted control — what the pixel provider is
 *   for.
 * - pixel_boxes_1x / pixel_boxes_2x: at device scale 1 and 2 the pixel
 *   provider finds every painted button, the link, the field and the
 *   checkbox, each box's centre inside its control (CSS px) and the text
 *   read by OCR as the label;
 *   trusted clicks at the box centres reach the right controls in the page.
 * - provider_on_page: on realistic.html the selector map comes with the
 *   detection, text/link/icon boxes survive only on their own element,
 *   buttons read as their text (DOM names on or off: OCR reads the same).
 * - overlay_cli: `fovea overlay --shot FILE --vision pixel` lists the boxes
 *   with their OCR labels and writes the marked PNG; an unknown provider and
 *   --shot without --boxes/--vision are refused.
 * - run_task: `fovea run tests/perception/tasks/canvas.json --vision pixel`
 *   (and pixel-dom) passes every step (boxes through enrichment, snapper
 *   and cascade).
 * - demo_task: the demo task (assets/tasks/demo.json) passes all 21 steps
 *   with --vision pixel (labels read by OCR alone).
 * - ocr_labels_on_page: on suggest.html every label is what OCR read — the
 *   autocomplete rows are one box each, name and code ("London, United
 *   Kingdom LHR": two phrases on one line of one <li>), a click at the
 *   first row's centre picks it, and a button showing
 *   "Find trips" keeps that label though its element is named "Submit the
 *   search" (pixel-dom takes the name).
 * - suggest_task: `fovea run tests/perception/tasks/suggest.json --vision pixel`
 *   picks the row by its OCR label and the button by its enriched element.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "check.h"
#include "harness.h"
#include "perception/capture.h"
#include "perception/kit.h"
#include "perception/pixel.h"

typedef struct ctl {
    char name[64];
    base_rect r;
} ctl;

/* window.controls of the page; returns the count (0 on failure). */
static int controls(cdp_page *p, ctl *out, int max)
{
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "JSON.stringify(window.controls)", &v, 5000, NULL) ||
        !cJSON_IsString(v)) {
        cJSON_Delete(v);
        return 0;
    }
    cJSON *a = cJSON_Parse(v->valuestring);
    cJSON_Delete(v);
    int n = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, a)
    {
        if (n >= max)
            break;
        snprintf(out[n].name, sizeof out[n].name, "%s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")));
        out[n].r = (base_rect){(float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "x0")),
                               (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "y0")),
                               (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "x1")),
                               (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "y1"))};
        n++;
    }
    cJSON_Delete(a);
    return n;
}

static base_err click_at(cdp_page *p, base_point pt)
{
    static const char *const types[] = {"mousePressed", "mouseReleased"};
    for (int i = 0; i < 2; i++) {
        cJSON *pa = cJSON_CreateObject();
        cJSON_AddStringToObject(pa, "type", types[i]);
        cJSON_AddNumberToObject(pa, "x", pt.x);
        cJSON_AddNumberToObject(pa, "y", pt.y);
        cJSON_AddStringToObject(pa, "button", "left");
        cJSON_AddNumberToObject(pa, "clickCount", 1);
        base_err e = cdp_page_call(p, "Input.dispatchMouseEvent", pa, NULL, 5000, NULL);
        if (e)
            return e;
    }
    return BASE_OK;
}

/* The last entry of window.__hits into buf ("" when none). */
static void last_hit(cdp_page *p, char *buf, size_t n)
{
    cJSON *v = NULL;
    buf[0] = '\0';
    if (cdp_page_evaluate(p, "window.__hits.length ? window.__hits[window.__hits.length - 1] : ''",
                          &v, 5000, NULL) == BASE_OK &&
        cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(v);
}

/* The canvas page as fovea's sessions open pages: the kit's listener
 * recorder installed before the document starts, so the canvas's click
 * listener is known. */
static cdp_page *open_canvas(double scale)
{
    cdp_page *p = harness_open(1280, 800, scale, NULL);
    char url[256], err[256] = "";
    harness_url(0, "/pixel/canvas.html", url, sizeof url);
    if (p && (perc_kit_install(p, err) || cdp_page_navigate(p, url, 15000, err))) {
        fprintf(stderr, "open %s: %s\n", url, err);
        cdp_page_close(p);
        return NULL;
    }
    return p;
}

static void dom_blind(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_canvas(1);
    CHECK(p != NULL);
    ctl c[16];
    int nc = controls(p, c, 16);
    CHECK_EQ(nc, 8);
    perc_vision *v = NULL;
    char err[256] = "";
    CHECK_OK(perc_vision_create_named("dom", &v, err));
    perc_detection d;
    CHECK_OK(perc_vision_detect(v, p, NULL, NULL, &d, err));
    CHECK_EQ(d.n, 1); /* the canvas, which listens for clicks */
    for (int i = 0; i < d.n; i++)
        for (int k = 0; k < nc; k++)
            CHECK_MSG(base_rect_iou(d.boxes[i].r, c[k].r) < 0.5f, "dom box on '%s'", c[k].name);
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    cdp_page_close(p);
}

static void pixel_boxes_at(double scale)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_canvas(scale);
    CHECK(p != NULL);
    ctl c[16];
    int nc = controls(p, c, 16);
    CHECK_EQ(nc, 8);
    char err[256] = "";
    img_image shot = {0};
    CHECK_OK(perc_capture(p, NULL, &shot, NULL, err));
    CHECK_NEAR(shot.scale, scale, 1e-6);
    perc_vision *v = NULL;
    base_err e = perc_vision_create_named("pixel", &v, err);
    CHECK_MSG(e == BASE_OK, "pixel provider: %s", err);
    perc_detection d;
    e = perc_vision_detect(v, p, &shot, NULL, &d, err);
    CHECK_MSG(e == BASE_OK, "detect: %s", err);
    CHECK_STR(d.model, "pixel");
    /* Painted controls with text: found, centred, read. */
    const char *named[] = {"New", "Open", "Save", "Sign in", "Forgot password?", "Remember me"};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        const ctl *t = NULL;
        for (int j = 0; j < nc; j++)
            if (strcmp(c[j].name, named[k]) == 0)
                t = &c[j];
        CHECK(t != NULL);
        const perc_box *b = NULL;
        for (int i = 0; i < d.n && !b; i++)
            if (strcasecmp(d.boxes[i].label, named[k]) == 0)
                b = &d.boxes[i];
        CHECK_MSG(b != NULL, "no box labelled '%s' (scale %.0f, %d boxes)", named[k], scale, d.n);
        base_point ctr = base_rect_center(b->r);
        CHECK_MSG(base_rect_contains(t->r, ctr), "'%s' box centre (%.1f,%.1f) off its control",
                  named[k], ctr.x, ctr.y);
        if (strcmp(named[k], "Save") == 0 || strcmp(named[k], "Sign in") == 0)
            CHECK_STR(b->kind, "button");
        if (strcmp(named[k], "Forgot password?") == 0)
            CHECK_STR(b->kind, "link");
    }
    /* The field, named by the label painted above it with its placeholder
     * kept after it, and the checkbox box itself. */
    int field = 0, check = 0;
    const char *field_label = "(none)";
    for (int i = 0; i < d.n; i++) {
        base_point ctr = base_rect_center(d.boxes[i].r);
        field |= strcmp(d.boxes[i].kind, "input") == 0 && base_rect_contains(c[3].r, ctr) &&
                 strcasecmp(d.boxes[i].label, "Name (Type your name)") == 0;
        if (strcmp(d.boxes[i].kind, "input") == 0 && base_rect_contains(c[3].r, ctr))
            field_label = d.boxes[i].label;
        check |= strcmp(d.boxes[i].kind, "checkbox") == 0 && base_rect_contains(c[4].r, ctr);
    }
    CHECK_MSG(field, "the field's input box is labelled '%s', not 'Name (Type your name)'",
              field_label);
    CHECK_MSG(check, "no checkbox box on the checkbox");
    /* Clicking the box centres hits the painted controls. */
    for (int i = 0; i < d.n; i++) {
        if (strcasecmp(d.boxes[i].label, "Save") != 0 &&
            strcasecmp(d.boxes[i].label, "Open") != 0)
            continue;
        CHECK_OK(click_at(p, base_rect_center(d.boxes[i].r)));
        char hit[64];
        last_hit(p, hit, sizeof hit);
        CHECK_MSG(strcasecmp(hit, d.boxes[i].label) == 0, "clicked '%s', the page saw '%s'",
                  d.boxes[i].label, hit);
    }
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    img_fini(&shot);
    cdp_page_close(p);
}

static void pixel_boxes_1x(void)
{
    pixel_boxes_at(1);
}

static void pixel_boxes_2x(void)
{
    pixel_boxes_at(2);
}

/* Runs `fovea run TASK --site SITE --vision pixel`; 1 when the output says
 * "passed: EXPECT" (printed otherwise). */
static int run_vision(const char *vision, const char *task, const char *site, const char *tag,
                      const char *expect)
{
    char out[1024], cmd[4096];
    snprintf(out, sizeof out, "%s/tests/perception/out_%s", FOVEA_BINARY_DIR, tag);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s/tools/fovea' run '%s/%s' --site '%s/%s' --vision %s "
             "--no-humanize --out '%s' > '%s.log' 2>&1",
             out, FOVEA_BINARY_DIR, FOVEA_SOURCE_DIR, task, FOVEA_SOURCE_DIR, site, vision, out,
             out);
    int st = system(cmd);
    char path[1100];
    snprintf(path, sizeof path, "%s.log", out);
    uint8_t *log = NULL;
    size_t n = 0;
    base_read_file(path, &log, &n, 1u << 20, NULL);
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && log && strstr((const char *)log, expect);
    if (!ok)
        fprintf(stderr, "%s\n", log ? (const char *)log : "(no output)");
    base_free(log);
    return ok;
}

static int run_pixel(const char *task, const char *site, const char *tag, const char *expect)
{
    return run_vision("pixel", task, site, tag, expect);
}

/* The provider on an ordinary page (tests/fixtures/pages/realistic.html):
 * the selector map is handed over with the detection, every box that kept a
 * DOM match lies on it, buttons carry their accessible names, text/link/
 * icon guesses that are no element's own are gone, and with dom_names off
 * the same buttons read as OCR text. */
static void provider_on_page(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    char url[256], err[256] = "";
    harness_url(0, "/realistic.html", url, sizeof url);
    CHECK(p != NULL);
    CHECK_OK(perc_kit_install(p, err));
    CHECK_OK(cdp_page_navigate(p, url, 15000, err));
    img_image shot = {0};
    CHECK_OK(perc_capture(p, NULL, &shot, NULL, err));
    for (int names = 1; names >= 0; names--) {
        perc_pixel_config c;
        perc_pixel_config_init(&c);
        c.dom_names = names;
        perc_vision *v = NULL;
        CHECK_OK(perc_vision_pixel_create(&c, &v, err));
        perc_detection d;
        base_err e = perc_vision_detect(v, p, &shot, NULL, &d, err);
        CHECK_MSG(e == BASE_OK, "detect: %s", err);
        CHECK(d.map != NULL && d.n_map > 0);
        int carts = 0, cart0 = 0;
        for (int i = 0; i < d.n; i++) {
            const perc_box *b = &d.boxes[i];
            CHECK_EQ(b->id, i + 1);
            CHECK(b->dom_index < d.n_map);
            int weak = strcmp(b->kind, "text") == 0 || strcmp(b->kind, "link") == 0 ||
                       strcmp(b->kind, "icon") == 0;
            if (weak) {
                CHECK_MSG(b->dom_index >= 0, "weak box %d '%s' kept without an element", i,
                          b->label);
                CHECK(base_rect_contains(d.map[b->dom_index].r, base_rect_center(b->r)));
            }
            carts += strcmp(b->label, "Add to cart") == 0 && strcmp(b->kind, "button") == 0 &&
                     b->dom_index >= 0;
            cart0 += strcmp(b->label, "Cart (0)") == 0;
        }
        CHECK_MSG(carts >= 4, "%d 'Add to cart' buttons (dom_names %d)", carts, names);
        CHECK_MSG(cart0 == 1, "'Cart (0)' found %d times (dom_names %d)", cart0, names);
        perc_detection_fini(&d);
        perc_vision_destroy(v);
    }
    img_fini(&shot);
    cdp_page_close(p);
}

/* Runs a shell command; returns its exit status and its output in *log. */
static int sh(const char *cmd, const char *logpath, char **log)
{
    char full[4096];
    snprintf(full, sizeof full, "%s > '%s' 2>&1", cmd, logpath);
    int st = system(full);
    uint8_t *d = NULL;
    size_t n = 0;
    *log = base_read_file(logpath, &d, &n, 1u << 20, NULL) == BASE_OK ? (char *)d : NULL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `fovea overlay --shot FILE --vision pixel` on a screenshot of the canvas
 * page: exit 0, the boxes listed with their OCR labels, a PNG written;
 * a bad provider name and a missing --boxes/--vision are refused. */
static void overlay_cli(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_canvas(1);
    CHECK(p != NULL);
    img_image shot = {0};
    char err[256] = "";
    CHECK_OK(perc_capture(p, NULL, &shot, NULL, err));
    cdp_page_close(p);
    uint8_t *png = NULL;
    size_t n = 0;
    CHECK_OK(img_encode_png(&shot, 1, &png, &n, err));
    const char *shot_path = FOVEA_BINARY_DIR "/tests/perception/canvas_shot.png";
    const char *out_path = FOVEA_BINARY_DIR "/tests/perception/canvas_overlay.png";
    const char *log_path = FOVEA_BINARY_DIR "/tests/perception/overlay.log";
    CHECK_OK(base_write_file(shot_path, png, n, err));
    base_free(png);
    img_fini(&shot);
    remove(out_path);
    char cmd[2048], *log = NULL;
    snprintf(cmd, sizeof cmd, "'%s/tools/fovea' overlay --shot '%s' --vision pixel --out '%s'",
             FOVEA_BINARY_DIR, shot_path, out_path);
    int st = sh(cmd, log_path, &log);
    int listed = log && strstr(log, "'Save'") && strstr(log, "'Sign in'") &&
                 strstr(log, "vision pixel:");
    if (st != 0 || !listed)
        fprintf(stderr, "%s\n", log ? log : "(no output)");
    base_free(log);
    CHECK_EQ(st, 0);
    CHECK(listed);
    uint8_t *d = NULL;
    CHECK_OK(base_read_file(out_path, &d, &n, 64u << 20, err));
    CHECK(n > 1000);
    base_free(d);
    snprintf(cmd, sizeof cmd, "'%s/tools/fovea' overlay --shot '%s' --vision eyes --out '%s'",
             FOVEA_BINARY_DIR, shot_path, out_path);
    st = sh(cmd, log_path, &log);
    CHECK_EQ(st, 1);
    CHECK(log && strstr(log, "unknown vision provider 'eyes' (dom, openai, pixel or pixel-dom)"));
    base_free(log);
    snprintf(cmd, sizeof cmd, "'%s/tools/fovea' overlay --shot '%s'", FOVEA_BINARY_DIR,
             shot_path);
    st = sh(cmd, log_path, &log);
    CHECK_EQ(st, 2);
    CHECK(log && strstr(log, "--shot needs --boxes or --vision"));
    base_free(log);
}

static void run_task(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    CHECK_MSG(run_pixel("tests/perception/tasks/canvas.json", "tests/fixtures/pages", "canvas",
                        "passed: 7/7 steps"),
              "fovea run canvas.json --vision pixel failed");
    /* The opt-in DOM-names variant: the canvas has no names to give, so
     * the same task passes. */
    CHECK_MSG(run_vision("pixel-dom", "tests/perception/tasks/canvas.json", "tests/fixtures/pages",
                         "canvas_dom", "passed: 7/7 steps"),
              "fovea run canvas.json --vision pixel-dom failed");
}

static void demo_task(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    CHECK_MSG(run_pixel("assets/tasks/demo.json", "assets/site", "demo", "passed: 21/21 steps"),
              "fovea run demo.json --vision pixel failed");
}

/* The rect of the element a selector names (CSS px); 0 when absent. */
static int rect_of(cdp_page *p, const char *sel, base_rect *r)
{
    char js[512];
    snprintf(js, sizeof js,
             "(() => { const e = document.querySelector('%s'); if (!e) return ''; "
             "const b = e.getBoundingClientRect(); "
             "return [b.left, b.top, b.right, b.bottom].join(','); })()",
             sel);
    cJSON *v = NULL;
    int ok = cdp_page_evaluate(p, js, &v, 5000, NULL) == BASE_OK && cJSON_IsString(v) &&
             sscanf(v->valuestring, "%f,%f,%f,%f", &r->x0, &r->y0, &r->x1, &r->y1) == 4;
    cJSON_Delete(v);
    return ok;
}

/* The first box whose centre lies in r, or NULL. */
static const perc_box *box_in(const perc_detection *d, base_rect r)
{
    for (int i = 0; i < d->n; i++)
        if (base_rect_contains(r, base_rect_center(d->boxes[i].r)))
            return &d->boxes[i];
    return NULL;
}

/* tests/fixtures/pages/pixel/suggest.html: an autocomplete list open under
 * a field (rows of text, the first highlighted, a muted code on the right)
 * and a button showing "Find trips" whose aria-label is "Submit the search".
 * With the default pixel provider every label is what OCR read: the
 * highlighted row is one box labelled "Lisbon, Portugal" on its <li> (a
 * click at its centre picks it), the button's box reads "Find trips" though
 * enrichment matched it to the element named "Submit the search"; the
 * opt-in pixel-dom variant labels that box with the element's name. */
static void ocr_labels_on_page(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    char url[256], err[256] = "";
    harness_url(0, "/pixel/suggest.html", url, sizeof url);
    CHECK(p != NULL);
    CHECK_OK(perc_kit_install(p, err));
    CHECK_OK(cdp_page_navigate(p, url, 15000, err));
    base_rect li1, li2, go;
    CHECK(rect_of(p, "#list li:nth-child(1)", &li1) && rect_of(p, "#list li:nth-child(2)", &li2) &&
          rect_of(p, "#go", &go));
    img_image shot = {0};
    CHECK_OK(perc_capture(p, NULL, &shot, NULL, err));
    for (int names = 0; names <= 1; names++) {
        perc_vision *v = NULL;
        CHECK_OK(perc_vision_create_named(names ? "pixel-dom" : "pixel", &v, err));
        perc_detection d;
        base_err e = perc_vision_detect(v, p, &shot, NULL, &d, err);
        CHECK_MSG(e == BASE_OK, "detect: %s", err);
        const perc_box *b = box_in(&d, go);
        CHECK_MSG(b != NULL, "no box on the button (%d boxes)", d.n);
        CHECK_MSG(b->dom_index >= 0 && b->dom_index < d.n_map &&
                      strcmp(d.map[b->dom_index].label, "Submit the search") == 0,
                  "the button's box is not matched to its element");
        CHECK_STR(b->label, names ? "Submit the search" : "Find trips");
        if (!names) {
            /* Each row is one box, from the place name to the code at its
             * far end (two phrases on one line of one <li>), read whole. */
            const perc_box *row = box_in(&d, li1);
            CHECK_MSG(row && strncmp(row->label, "Lisbon, Portugal", 16) == 0,
                      "the first row reads '%s'", row ? row->label : "(no box)");
            const perc_box *row2 = box_in(&d, li2);
            CHECK_MSG(row2 && strcmp(row2->label, "London, United Kingdom LHR") == 0,
                      "the second row reads '%s'", row2 ? row2->label : "(no box)");
            for (int i = 0; i < d.n; i++)
                CHECK_MSG(d.boxes[i].r.y0 > li1.y1 || d.boxes[i].r.y1 < li1.y0 ||
                              &d.boxes[i] == row,
                          "a second box '%s' on the first row", d.boxes[i].label);
            if (row && row2) {
                CHECK(row->r.x1 >= li1.x1 - 16 && row2->r.x1 >= li2.x1 - 16); /* the codes */
                CHECK(row->r.x0 <= li1.x0 + 24);
            }
            /* No label is a page name the pixels do not show. */
            for (int i = 0; i < d.n; i++)
                CHECK_MSG(strcmp(d.boxes[i].label, "Submit the search") != 0 &&
                              strcmp(d.boxes[i].label, "Destination") != 0,
                          "box %d carries the DOM name '%s'", i, d.boxes[i].label);
            if (row)
                CHECK_OK(click_at(p, base_rect_center(row->r)));
            char hit[64];
            last_hit(p, hit, sizeof hit);
            CHECK_STR(hit, "Lisbon, Portugal");
        }
        perc_detection_fini(&d);
        perc_vision_destroy(v);
    }
    img_fini(&shot);
    cdp_page_close(p);
}

/* The box record of step n ("label", "source") in a run's trace.jsonl;
 * 0 when absent. */
static int trace_box(const char *out, int step, char *label, size_t nl, char *source, size_t ns)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/trace.jsonl", out);
    uint8_t *d = NULL;
    size_t n = 0;
    if (base_read_file(path, &d, &n, 8u << 20, NULL) != BASE_OK)
        return 0;
    int found = 0;
    for (char *line = (char *)d; line && *line && !found;) {
        char *nl_at = strchr(line, '\n');
        if (nl_at)
            *nl_at = '\0';
        cJSON *o = cJSON_Parse(line);
        line = nl_at ? nl_at + 1 : NULL;
        const cJSON *b = cJSON_GetObjectItem(o, "box");
        if (cJSON_GetNumberValue(cJSON_GetObjectItem(o, "step")) == step && cJSON_IsObject(b)) {
            snprintf(label, nl, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(b, "label")));
            snprintf(source, ns, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(b, "source")));
            found = 1;
        }
        cJSON_Delete(o);
    }
    base_free(d);
    return found;
}

/* A demo-style task on suggest.html with --vision pixel: the autocomplete
 * row is chosen by its OCR label ("label"), and the button whose name the
 * pixels do not show by its enriched element ("element"), its box label
 * still what OCR read. */
static void suggest_task(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    CHECK_MSG(run_pixel("tests/perception/tasks/suggest.json", "tests/fixtures/pages", "suggest",
                        "passed: 4/4 steps"),
              "fovea run suggest.json --vision pixel failed");
    char label[256], source[32];
    const char *out = FOVEA_BINARY_DIR "/tests/perception/out_suggest";
    CHECK(trace_box(out, 1, label, sizeof label, source, sizeof source));
    CHECK_MSG(strncmp(label, "Lisbon, Portugal", 16) == 0, "step 1 chose a box reading '%s'",
              label);
    CHECK_STR(source, "label");
    CHECK(trace_box(out, 3, label, sizeof label, source, sizeof source));
    CHECK_STR(label, "Find trips");
    CHECK_STR(source, "element");
}

static const check_case cases[] = {
    {"dom_blind", dom_blind},
    {"pixel_boxes_1x", pixel_boxes_1x},
    {"pixel_boxes_2x", pixel_boxes_2x},
    {"provider_on_page", provider_on_page},
    {"overlay_cli", overlay_cli},
    {"run_task", run_task},
    {"demo_task", demo_task},
    {"ocr_labels_on_page", ocr_labels_on_page},
    {"suggest_task", suggest_task},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
