/* tools/cmd_record.c: `fovea record` — saves a snapper test case from a live
 * page.
 *
 * A case is a folder with the three things the snapper needs to be replayed
 * without a browser: shot.png (what a vision model saw), snapshot.json (the
 * page model of record/snapshot.h: every element's rect, paint order and
 * hit-test styles) and case.json (the vision box, the expected label, the
 * intent and the element that was meant). The page can come from a local
 * folder (--site, served on loopback), any URL, or the user's own browser
 * (--cdp), and can be brought into the state to record with --eval (e.g.
 * open a menu) and --scroll. The expected element is named by xpath, by CSS
 * selector (resolved in the page with assets/js/snap_locate.js) or by a point
 * (the first interactive element there, resolved in the snapshot, which also
 * reaches into cross-origin iframes). The box is given directly or picked by
 * id from a JSON file of vision boxes (the `fovea overlay --boxes` format).
 * After writing, the case is replayed offline once and its verdict printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "perception/capture.h"
#include "image/image.h"
#include "perception/js.h"
#include "record/snapshot.h"
#include "image/som.h"
#include "tools/cli.h"


static void record_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea record (--site DIR --url PATH | --url URL | --cdp EP --url URL)\n"
            "                    (--box x0,y0,x1,y1 | --boxes FILE --mark ID) --label L\n"
            "                    (--expect-xpath XP [--expect-frame CHAIN] | --expect-selector CSS\n"
            "                     | --expect-point X,Y) --out CASE_DIR [options]\n\n"
            "Saves a snapper test case (case.json, shot.png, snapshot.json) from a live page,\n"
            "then replays it offline once and prints the verdict (docs/record.md).\n\n"
            "The box (one of):\n"
            "  --box x0,y0,x1,y1     the vision box, CSS px of the viewport\n"
            "  --boxes FILE          vision boxes JSON (as for `fovea overlay`); --mark ID picks one\n"
            "  --mark ID             with --boxes: the box's id; its label is the default --label\n"
            "  --norm WxH            --boxes \"box\" values are 0..1000 of a WxH viewport\n"
            "                        (default: CSS px)\n"
            "  --label L             the label the model gave the box (required unless --mark)\n"
            "  --intent K            click (default), select or expand\n\n"
            "The element meant (one of):\n"
            "  --expect-xpath XP     the element meant (xpath as snapper reports it)\n"
            "  --expect-frame CHAIN  its frame chain (xpaths of iframes joined by '|';\n"
            "                        default: the top document)\n"
            "  --expect-selector CSS CSS selector; 'A >>> B' descends into A's shadow root\n"
            "                        or same-origin iframe\n"
            "  --expect-point X,Y    the first interactive element at this viewport point\n"
            "  --expect-outcome O    ambiguous: the label cannot tell the element from others in\n"
            "                        the box (snaptest expects an ambiguous answer listing it);\n"
            "                        abstain: nothing in the box may be pressed (default: the\n"
            "                        element is found)\n\n"
            "Page preparation:\n"
            "  --scroll X,Y          scroll the page to X,Y before recording (default: none)\n"
            "  --eval JS             run JS in the page first (e.g. open a menu); awaited\n"
            "                        (default: none)\n"
            "  --wait-ms N           settle time before recording (default 300)\n\n"
            "The case:\n"
            "  --out DIR             case folder (created; required)\n"
            "  --name NAME           case name (default: the folder name)\n"
            "  --note TEXT           what the case is about (default: none)\n"
            "  --known-failure WHY   the snapper is known to miss this case (reported as XFAIL)\n"
            "                        (default: none)\n"
            "  --class NAME          failure class for per-class accuracy (snaptest --perturb)\n"
            "                        (default: none)\n\n");
    fputs(cli_browser_opts_help, f);
}

/* Parses "a,b[,c,d]" into n floats. */
static int parse_floats(const char *s, float *v, int n)
{
    char *end;
    for (int i = 0; i < n; i++) {
        v[i] = strtof(s, &end);
        if (end == s || (i + 1 < n && *end != ',') || (i + 1 == n && *end))
            return -1;
        s = end + 1;
    }
    return 0;
}

static base_err write_text(const char *path, const char *s, char *err)
{
    base_err e = cli_mkdirs_for(path, err);
    if (!e)
        e = base_write_file(path, (const uint8_t *)s, strlen(s), err);
    return e;
}

static base_err settle(cdp_page *page, int wait_ms, char *err)
{
    char js[256];
    snprintf(js, sizeof js,
             "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => "
             "setTimeout(r, %d))))",
             wait_ms);
    return cdp_page_evaluate_in(page, NULL, CDP_CTX_FOVEA, js, NULL, wait_ms + 10000, err);
}

/* Resolves a CSS selector in the page into xpath/frame (owned copies). */
static base_err locate(cdp_page *page, const char *sel, char **xpath, char **frame, char *err)
{
    cJSON *arg = cJSON_CreateString(sel);
    char *js_arg = arg ? cJSON_PrintUnformatted(arg) : NULL;
    cJSON_Delete(arg);
    if (!js_arg)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    size_t n = strlen((const char *)fovea_js_snap_locate) + strlen(js_arg) + 8;
    char *expr = base_malloc(n);
    if (!expr) {
        free(js_arg);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    snprintf(expr, n, "(%s)(%s)", (const char *)fovea_js_snap_locate, js_arg);
    free(js_arg);
    cJSON *v = NULL;
    /* fovea's isolated world: the page's scripts cannot change how the
     * selector is resolved (issue 23). */
    base_err e = cdp_page_evaluate_in(page, NULL, CDP_CTX_FOVEA, expr, &v, 10000, err);
    base_free(expr);
    if (e)
        return e;
    cJSON *r = cJSON_IsString(v) ? cJSON_Parse(v->valuestring) : NULL;
    cJSON_Delete(v);
    const cJSON *xe = cJSON_GetObjectItemCaseSensitive(r, "error");
    const cJSON *xp = cJSON_GetObjectItemCaseSensitive(r, "xpath");
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(r, "frame");
    if (cJSON_IsString(xe))
        e = base_errf(err, BASE_ENOTFOUND, "--expect-selector: %s", xe->valuestring);
    else if (!cJSON_IsString(xp) || !cJSON_IsString(fr))
        e = base_errf(err, BASE_EPROTO, "--expect-selector: the page gave no xpath");
    else {
        *xpath = base_strdup(xp->valuestring);
        *frame = base_strdup(fr->valuestring);
        if (!*xpath || !*frame)
            e = base_errf(err, BASE_ENOMEM, "out of memory");
    }
    cJSON_Delete(r);
    return e;
}

/* The element a user points at: first interactive in the hit stack, else the
 * front-most element. */
static int element_at(const rec_snapshot *s, base_point p)
{
    int stack[SNAP_PROBE_DEPTH], n = 0;
    if (snap_scene_hit(&s->scene, p, stack, SNAP_PROBE_DEPTH, &n) || n == 0)
        return -1;
    for (int k = 0; k < n; k++) {
        if (s->scene.cand[stack[k]].is_interactive)
            return stack[k];
    }
    return stack[0];
}

static const char *intent_name(const char *s)
{
    if (strcmp(s, "click") == 0 || strcmp(s, "select") == 0 || strcmp(s, "expand") == 0)
        return s;
    return NULL;
}

int cli_cmd_record(int argc, char **argv)
{
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    const char *box_s = NULL, *boxes = NULL, *label = NULL, *intent = "click", *xp = NULL;
    const char *frame = "", *sel = NULL, *pt_s = NULL, *scroll_s = NULL, *eval = NULL;
    const char *out = NULL, *name = NULL, *note = NULL, *known = NULL, *cls = NULL;
    const char *outcome = NULL; /* --expect-outcome: ambiguous or abstain */
    int mark = -1, wait_ms = 300, norm_w = 0, norm_h = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            record_usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fovea record: unknown option or missing value: %s\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--box") == 0)
            box_s = v;
        else if (strcmp(a, "--boxes") == 0)
            boxes = v;
        else if (strcmp(a, "--mark") == 0) {
            if (cli_parse_int(a, v, 0, 1000000, &mark) < 0)
                return 2;
        } else if (strcmp(a, "--norm") == 0) {
            if (sscanf(v, "%dx%d", &norm_w, &norm_h) != 2 || norm_w < 1 || norm_h < 1) {
                fprintf(stderr, "fovea record: --norm must be WxH, got '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "--label") == 0)
            label = v;
        else if (strcmp(a, "--intent") == 0) {
            if (!(intent = intent_name(v))) {
                fprintf(stderr, "fovea record: --intent must be click, select or expand\n");
                return 2;
            }
        } else if (strcmp(a, "--expect-xpath") == 0)
            xp = v;
        else if (strcmp(a, "--expect-frame") == 0)
            frame = v;
        else if (strcmp(a, "--expect-selector") == 0)
            sel = v;
        else if (strcmp(a, "--expect-point") == 0)
            pt_s = v;
        else if (strcmp(a, "--scroll") == 0)
            scroll_s = v;
        else if (strcmp(a, "--eval") == 0)
            eval = v;
        else if (strcmp(a, "--wait-ms") == 0) {
            if (cli_parse_int(a, v, 0, 60000, &wait_ms) < 0)
                return 2;
        } else if (strcmp(a, "--name") == 0)
            name = v;
        else if (strcmp(a, "--note") == 0)
            note = v;
        else if (strcmp(a, "--out") == 0)
            out = v;
        else if (strcmp(a, "--known-failure") == 0)
            known = v;
        else if (strcmp(a, "--class") == 0)
            cls = v;
        else if (strcmp(a, "--expect-outcome") == 0) {
            if (strcmp(v, "ambiguous") != 0 && strcmp(v, "abstain") != 0) {
                fprintf(stderr, "fovea record: --expect-outcome must be ambiguous or abstain\n");
                return 2;
            }
            outcome = v;
        } else {
            fprintf(stderr, "fovea record: unknown option %s\n", a);
            return 2;
        }
    }
    if (!out || (!box_s && !boxes) || (box_s && boxes) || (boxes && mark < 0) ||
        (!!xp + !!sel + !!pt_s) != 1) {
        fprintf(stderr, "fovea record: need --out, one of --box or --boxes+--mark, and one of "
                        "--expect-xpath, --expect-selector, --expect-point (see --help)\n");
        return 2;
    }
    float box[4] = {0, 0, 0, 0}, pt[2] = {0, 0}, scroll[2] = {0, 0};
    if (box_s && (parse_floats(box_s, box, 4) || !(box[2] > box[0] && box[3] > box[1]))) {
        fprintf(stderr, "fovea record: --box must be x0,y0,x1,y1 with x0<x1, y0<y1\n");
        return 2;
    }
    if ((pt_s && parse_floats(pt_s, pt, 2)) || (scroll_s && parse_floats(scroll_s, scroll, 2))) {
        fprintf(stderr, "fovea record: --expect-point and --scroll take X,Y\n");
        return 2;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    char *owned_label = NULL;
    if (boxes) {
        uint8_t *d = NULL;
        size_t n = 0;
        img_mark *marks = NULL;
        int nm = 0;
        base_err e = base_read_file(boxes, &d, &n, 16u << 20, err);
        if (!e)
            e = img_marks_parse_json((const char *)d, n, norm_w, norm_h, &marks, &nm, err);
        base_free(d);
        if (e) {
            fprintf(stderr, "fovea record: %s: %s\n", boxes, err);
            return 1;
        }
        int k = 0;
        while (k < nm && marks[k].id != mark)
            k++;
        if (k == nm) {
            fprintf(stderr, "fovea record: %s has no box with id %d\n", boxes, mark);
            img_marks_free(marks, nm);
            return 1;
        }
        box[0] = marks[k].r.x0;
        box[1] = marks[k].r.y0;
        box[2] = marks[k].r.x1;
        box[3] = marks[k].r.y1;
        if (!label && marks[k].label)
            label = owned_label = base_strdup(marks[k].label);
        img_marks_free(marks, nm);
    }
    if (!label)
        label = "";

    cli_session s;
    if (cli_session_open(&s, &bo))
        return 1;
    int rc = 1;
    char *exp_xpath = NULL, *exp_frame = NULL, *snap_text = NULL;
    cJSON *snap = NULL, *cs = NULL;
    uint8_t *png = NULL;
    size_t png_n = 0;
    img_format fmt;
    rec_snapshot model;
    memset(&model, 0, sizeof model);
    base_err e = BASE_OK;
    if (eval && (e = cdp_page_evaluate(s.page, eval, NULL, 30000, err)))
        fprintf(stderr, "fovea record: --eval: %s\n", err);
    if (!e && scroll_s) {
        char js[128];
        snprintf(js, sizeof js, "window.scrollTo(%g, %g)", scroll[0], scroll[1]);
        e = cdp_page_evaluate(s.page, js, NULL, 10000, err);
    }
    if (!e)
        e = settle(s.page, wait_ms, err);
    if (!e && sel)
        e = locate(s.page, sel, &exp_xpath, &exp_frame, err);
    if (!e)
        e = rec_snapshot_capture(s.page, &snap, err);
    perc_capture_opts co;
    perc_capture_opts_init(&co);
    if (!e)
        e = perc_capture_encoded(s.page, &co, &png, &png_n, &fmt, NULL, err);
    if (!e && !(snap_text = cJSON_PrintUnformatted(snap)))
        e = base_errf(err, BASE_ENOMEM, "out of memory");
    /* Load what is saved, so the case is checked exactly as it will replay. */
    if (!e)
        e = rec_snapshot_parse(snap_text, strlen(snap_text), &model, err);
    if (e) {
        fprintf(stderr, "fovea record: %s\n", err);
        goto done;
    }
    if (xp) {
        exp_xpath = base_strdup(xp);
        exp_frame = base_strdup(frame);
    } else if (pt_s) {
        int k = element_at(&model, (base_point){pt[0], pt[1]});
        if (k < 0) {
            fprintf(stderr, "fovea record: no element at %g,%g\n", pt[0], pt[1]);
            goto done;
        }
        exp_xpath = base_strdup(model.scene.cand[k].xpath);
        exp_frame = base_strdup(model.scene.cand[k].frame_chain);
    }
    if (!exp_xpath || !exp_frame) {
        fprintf(stderr, "fovea record: out of memory\n");
        goto done;
    }
    int ei = rec_snapshot_find(&model, exp_xpath, exp_frame);
    if (ei < 0) {
        fprintf(stderr,
                "fovea record: the expected element %s%s%s is not in the snapshot (not laid out, "
                "zero-sized, or a wrong xpath)\n",
                exp_frame[0] ? exp_frame : "", exp_frame[0] ? " | " : "", exp_xpath);
        goto done;
    }
    const snap_candidate *ec = &model.scene.cand[ei];
    unsigned long fails0 = base_alloc_thread_failures(); /* see below */
    cs = cJSON_CreateObject();
    cJSON_AddStringToObject(cs, "format", "fovea-snapcase/1");
    const char *base = strrchr(out, '/');
    char dir_name[256];
    snprintf(dir_name, sizeof dir_name, "%s", base && base[1] ? base + 1 : out);
    cJSON_AddStringToObject(cs, "name", name ? name : dir_name);
    if (note)
        cJSON_AddStringToObject(cs, "note", note);
    if (known)
        cJSON_AddStringToObject(cs, "known_failure", known);
    if (cls)
        cJSON_AddStringToObject(cs, "class", cls);
    cJSON_AddStringToObject(cs, "url", s.url);
    if (bo.site)
        cJSON_AddStringToObject(cs, "path", bo.url ? bo.url : "/");
    cJSON *vp = cJSON_AddArrayToObject(cs, "viewport");
    cJSON_AddItemToArray(vp, cJSON_CreateNumber(bo.width));
    cJSON_AddItemToArray(vp, cJSON_CreateNumber(bo.height));
    cJSON_AddNumberToObject(cs, "dsf", bo.scale);
    cJSON *sc = cJSON_AddArrayToObject(cs, "scroll");
    cJSON_AddItemToArray(sc, cJSON_CreateNumber(model.scroll_x));
    cJSON_AddItemToArray(sc, cJSON_CreateNumber(model.scroll_y));
    if (eval)
        cJSON_AddStringToObject(cs, "eval", eval);
    cJSON *bx = cJSON_AddArrayToObject(cs, "box");
    for (int k = 0; k < 4; k++)
        cJSON_AddItemToArray(bx, cJSON_CreateNumber(box[k]));
    cJSON_AddStringToObject(cs, "label", label);
    cJSON_AddStringToObject(cs, "intent", intent);
    cJSON *ex = cJSON_AddObjectToObject(cs, "expect");
    cJSON_AddStringToObject(ex, "xpath", exp_xpath);
    cJSON_AddStringToObject(ex, "frame", exp_frame);
    cJSON_AddStringToObject(ex, "tag", ec->tag);
    char short_text[81];
    snprintf(short_text, sizeof short_text, "%s", ec->text[0] ? ec->text : ec->aria_label);
    cJSON_AddStringToObject(ex, "text", short_text);
    /* The element meant stays named (the perturbed benchmark boxes it), but
     * the right answer for this box is no click. */
    if (outcome)
        cJSON_AddBoolToObject(ex, outcome, 1);
    /* Members are added unchecked: a failed allocation on the way means one
     * may be missing, and a case file without it would replay as another
     * case. Nothing is written then. */
    char *case_text = base_alloc_thread_failures() == fails0 ? cJSON_Print(cs) : NULL;
    char path[1024];
    if (!case_text) {
        fprintf(stderr, "fovea record: out of memory\n");
        goto done;
    }
    snprintf(path, sizeof path, "%s/snapshot.json", out);
    e = write_text(path, snap_text, err);
    snprintf(path, sizeof path, "%s/shot.png", out);
    if (!e)
        e = base_write_file(path, png, png_n, err);
    snprintf(path, sizeof path, "%s/case.json", out);
    if (!e)
        e = write_text(path, case_text, err);
    free(case_text);
    if (e) {
        fprintf(stderr, "fovea record: %s\n", err);
        goto done;
    }
    printf("recorded %s: %d elements, expect <%s> %s%s%s\n", out, model.scene.n, ec->tag,
           exp_frame[0] ? exp_frame : "", exp_frame[0] ? " | " : "", exp_xpath);
    rc = 0;
done:
    cli_session_close(&s);
    if (rc == 0)
        rc = cli_snaptest_case(out, stdout) < 0 ? 1 : 0;
    rec_snapshot_fini(&model);
    cJSON_Delete(cs);
    cJSON_Delete(snap);
    free(snap_text);
    base_free(png);
    base_free(exp_xpath);
    base_free(exp_frame);
    base_free(owned_label);
    return rc;
}
