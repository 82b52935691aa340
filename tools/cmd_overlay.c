/* tools/cmd_overlay.c: `fovea overlay` — Set-of-Marks debug images.
 *
 * Two sources: a live page (--url/--site/--cdp: capture it, mark its
 * interactive elements or the boxes of --boxes), or a screenshot file plus a
 * boxes JSON file (--shot + --boxes). The marked image is written as PNG;
 * --model-view also writes the JPEG a vision model would be sent (resized to
 * --model-width, marks drawn at the model's scale). --vision NAME marks what
 * that provider sees instead (e.g. `pixel`: boxes from the screenshot alone,
 * which also works on a --shot file without --boxes); with --json the
 * provider's boxes (rect, kind, OCR label, confidence) go to stdout as JSON
 * so other tools can measure and use them without parsing the listing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "perception/capture.h"
#include "perception/dom_boxes.h"
#include "image/image.h"
#include "perception/pixel.h"
#include "image/som.h"
#include "tools/cli.h"

static void overlay_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea overlay (--url URL | --site DIR | --shot FILE) [options]\n\n"
            "Draws numbered Set-of-Marks boxes on a screenshot.\n\n"
            "  --shot FILE        a PNG/JPEG screenshot instead of a live page (needs --boxes)\n"
            "  --shot-scale F     device pixels per CSS pixel of --shot (default 1)\n"
            "  --boxes FILE       boxes JSON: [{\"x0\",\"y0\",\"x1\",\"y1\",\"label\",\"id\"}] in CSS px,\n"
            "                     or {\"boxes\":[{\"box\":[ymin,xmin,ymax,xmax]}]} (see --norm)\n"
            "                     (live pages default to their interactive elements)\n"
            "  --vision NAME      mark what provider NAME detects: dom, openai, pixel or\n"
            "                     pixel-dom\n"
            "                     (pixel also works on --shot without --boxes); the boxes\n"
            "                     are listed on stderr\n"
            "  --json             with --vision: the boxes as JSON on stdout instead of the\n"
            "                     PNG's path: {\"model\",\"ms\",\"boxes\":[{\"id\",\"x0\",\"y0\",\"x1\",\"y1\",\n"
            "                     \"kind\",\"label\",\"confidence\"}]} (CSS px; kind \"text\" is a\n"
            "                     text guess, not a control)\n"
            "  --norm WxH         \"box\" values are 0..1000 of a WxH CSS viewport\n"
            "  --out FILE         marked PNG (default out/overlay.png)\n"
            "  --model-view FILE  also write the model-bound JPEG (q80)\n"
            "  --model-width N    model input width (default 1024)\n"
            "  --labels plain     draw \"12\" instead of \"[V12]\"\n");
    fputs(cli_browser_opts_help, f);
}

static base_err read_text(const char *path, char **out, size_t *n, char *err)
{
    uint8_t *d = NULL;
    base_err e = base_read_file(path, &d, n, 64u << 20, err);
    if (!e)
        *out = (char *)d;
    return e;
}

static base_err write_png(const char *path, const img_image *img, char *err)
{
    uint8_t *d = NULL;
    size_t n = 0;
    base_err e = img_encode_png(img, 1, &d, &n, err);
    if (!e)
        e = cli_mkdirs_for(path, err);
    if (!e)
        e = base_write_file(path, d, n, err);
    base_free(d);
    return e;
}

/* Prints d's boxes to stdout as one JSON object (cJSON escapes the OCR
 * labels). */
static base_err print_json(const perc_detection *d, char *err)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "model", d->model) ||
        !cJSON_AddNumberToObject(o, "ms", d->ms)) {
        cJSON_Delete(o);
        return base_errf(err, BASE_ENOMEM, "overlay: out of memory for JSON");
    }
    cJSON *arr = cJSON_AddArrayToObject(o, "boxes");
    if (!arr) {
        cJSON_Delete(o);
        return base_errf(err, BASE_ENOMEM, "overlay: out of memory for JSON");
    }
    for (int i = 0; i < d->n; i++) {
        const perc_box *b = &d->boxes[i];
        cJSON *j = cJSON_CreateObject();
        if (!j || !cJSON_AddItemToArray(arr, j) || !cJSON_AddNumberToObject(j, "id", b->id) ||
            !cJSON_AddNumberToObject(j, "x0", b->r.x0) ||
            !cJSON_AddNumberToObject(j, "y0", b->r.y0) ||
            !cJSON_AddNumberToObject(j, "x1", b->r.x1) ||
            !cJSON_AddNumberToObject(j, "y1", b->r.y1) ||
            !cJSON_AddStringToObject(j, "kind", b->kind) ||
            !cJSON_AddStringToObject(j, "label", b->label) ||
            !cJSON_AddNumberToObject(j, "confidence",
                                     (double)(int)(b->confidence * 1000.0f + 0.5f) / 1000.0)) {
            cJSON_Delete(o);
            return base_errf(err, BASE_ENOMEM, "overlay: out of memory for JSON");
        }
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return base_errf(err, BASE_ENOMEM, "overlay: out of memory for JSON");
    printf("%s\n", text);
    cJSON_free(text);
    return BASE_OK;
}

/* Runs provider `name` on img (and the live page, if any; NULL for --shot),
 * lists its boxes on stderr (as JSON on stdout too with json) and returns
 * them as marks. */
static base_err vision_marks(const char *name, cdp_page *page, const img_image *img, int json,
                             img_mark **marks, int *n, char *err)
{
    perc_vision *v = NULL;
    base_err e = perc_vision_create_named(name, &v, err);
    if (e)
        return e;
    perc_detection d;
    memset(&d, 0, sizeof d);
    e = perc_vision_detect(v, page, img, NULL, &d, err);
    perc_vision_destroy(v);
    if (e)
        return e;
    for (int i = 0; i < d.n; i++) {
        const perc_box *b = &d.boxes[i];
        fprintf(stderr, "[V%d] %-8s %6.1f %6.1f %6.1f %6.1f '%s'\n", b->id, b->kind, b->r.x0,
                b->r.y0, b->r.x1, b->r.y1, b->label);
    }
    fprintf(stderr, "fovea overlay: vision %s: %d boxes in %.1f ms\n", d.model, d.n, d.ms);
    e = json ? print_json(&d, err) : BASE_OK;
    if (!e)
        e = perc_detection_marks(&d, marks, n, err);
    perc_detection_fini(&d);
    return e;
}

int cli_cmd_overlay(int argc, char **argv)
{
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    const char *shot = NULL, *boxes = NULL, *out = "out/overlay.png", *model = NULL;
    const char *vision = NULL;
    int model_w = 1024, norm_w = 0, norm_h = 0, plain = 0, json = 0;
    double shot_scale = 1.0;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            overlay_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fovea overlay: unknown option or missing value: %s\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--shot") == 0) {
            shot = v;
        } else if (strcmp(a, "--shot-scale") == 0) {
            shot_scale = strtod(v, NULL);
            if (!(shot_scale >= 0.25 && shot_scale <= 8)) {
                fprintf(stderr, "fovea overlay: --shot-scale must be 0.25..8\n");
                return 2;
            }
        } else if (strcmp(a, "--boxes") == 0) {
            boxes = v;
        } else if (strcmp(a, "--vision") == 0) {
            vision = v;
        } else if (strcmp(a, "--out") == 0) {
            out = v;
        } else if (strcmp(a, "--model-view") == 0) {
            model = v;
        } else if (strcmp(a, "--model-width") == 0) {
            if (cli_parse_int(a, v, 64, 8192, &model_w) < 0)
                return 2;
        } else if (strcmp(a, "--norm") == 0) {
            if (sscanf(v, "%dx%d", &norm_w, &norm_h) != 2 || norm_w < 1 || norm_h < 1) {
                fprintf(stderr, "fovea overlay: --norm must look like 1280x800\n");
                return 2;
            }
        } else if (strcmp(a, "--labels") == 0) {
            plain = strcmp(v, "plain") == 0;
        } else {
            fprintf(stderr, "fovea overlay: unknown option %s\n", a);
            overlay_usage(stderr);
            return 2;
        }
    }
    if (json && !vision) {
        fprintf(stderr, "fovea overlay: --json needs --vision\n");
        return 2;
    }
    if (shot && !boxes && !vision) {
        fprintf(stderr, "fovea overlay: --shot needs --boxes or --vision\n");
        return 2;
    }
    if (boxes && vision) {
        fprintf(stderr, "fovea overlay: --boxes and --vision are exclusive\n");
        return 2;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = BASE_OK;
    img_image img = {0};
    img_mark *marks = NULL;
    int n = 0;
    cli_session s;
    memset(&s, 0, sizeof s);
    if (shot) {
        uint8_t *d = NULL;
        size_t len = 0;
        e = base_read_file(shot, &d, &len, 256u << 20, err);
        if (!e)
            e = img_decode(d, len, &img, err);
        base_free(d);
        img.scale = (float)shot_scale;
    } else {
        if (cli_session_open(&s, &bo))
            return 1;
        e = perc_capture(s.page, NULL, &img, NULL, err);
    }
    if (!e && boxes) {
        char *text = NULL;
        size_t len = 0;
        e = read_text(boxes, &text, &len, err);
        if (!e)
            e = img_marks_parse_json(text, len, norm_w, norm_h, &marks, &n, err);
        base_free(text);
    } else if (!e && vision) {
        e = vision_marks(vision, s.page, &img, json, &marks, &n, err);
    } else if (!e) {
        e = perc_dom_boxes(s.page, &marks, &n, err);
    }
    cli_session_close(&s);
    img_som_opts so;
    img_som_opts_init(&so);
    so.label_fmt = plain ? IMG_LABEL_NUM : IMG_LABEL_VID;
    img_image view = {0};
    if (!e && model) {
        /* The model-bound image: shrink first, then draw at the model's scale
         * so labels stay legible at the size the model sees. */
        float sc = 1;
        e = img_model_view(&img, model_w, &view, &sc);
        if (!e) {
            img_som_opts mo = so;
            mo.scale = sc;
            e = img_som_draw(&view, marks, n, &mo, err);
        }
        uint8_t *jd = NULL;
        size_t jn = 0;
        if (!e)
            e = img_encode_jpeg(&view, 80, &jd, &jn, err);
        if (!e)
            e = cli_mkdirs_for(model, err);
        if (!e)
            e = base_write_file(model, jd, jn, err);
        base_free(jd);
    }
    if (!e)
        e = img_som_draw(&img, marks, n, &so, err);
    if (!e)
        e = write_png(out, &img, err);
    img_fini(&view);
    img_fini(&img);
    img_marks_free(marks, n);
    if (e) {
        fprintf(stderr, "fovea overlay: %s\n", err[0] ? err : base_strerror(e));
        return 1;
    }
    fprintf(stderr, "fovea overlay: %d marks -> %s%s%s\n", n, out, model ? " and " : "",
            model ? model : "");
    if (!json)
        printf("%s\n", out);
    return 0;
}
