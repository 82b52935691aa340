/* tools/cmd_snaptest.c: `fovea snaptest` — replays recorded snapper cases.
 *
 * Every folder under DIR holding a case.json (written by `fovea record`) is a
 * case. Offline (the default) the case's snapshot.json is loaded into a
 * snap_scene, the box is probed in it exactly as the live probe would
 * (snap_scene_probe) and snap_resolve picks the element; no browser runs. A
 * case is right when the chosen element is the expected one or inside it
 * (perc_snapshot_within). The table shows the case, the expected and chosen
 * elements, the phase and the score parts; --json prints the same for
 * machines; --overlays writes, for each failure, the screenshot with the box,
 * the probe points, the chosen point and both elements drawn on it. The exit
 * status is 1 when any case fails.
 *
 * --perturb is the accuracy benchmark of issue 4: for each case the true box
 * (the expected element's visible rect) is perturbed (centre jitter of 10 and
 * 20 px, scale 0.7..1.6, merged with the nearest other control, merged with
 * the controls on its row) and both the snapper and a naive centre click are
 * scored right / wrong / no answer.
 *
 * --live replays each case on Chromium instead (serve --site, navigate,
 * re-run the case's --eval, scroll as recorded, perc_snap_box) and reports,
 * case by case, whether live and offline agree.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "perception/kit.h"
#include "perception/image.h"
#include "perception/probe.h"
#include "perception/snapshot.h"
#include "perception/som.h"
#include "tools/cli.h"

#define MAX_CASES 4096

typedef struct snapcase {
    char dir[1024];
    char name[128];
    char *url, *path, *eval, *label, *xpath, *frame; /* owned */
    char *known; /* owned; non-empty: a known snapper miss (XFAIL) */
    snap_intent_kind kind;
    base_rect box;
    int vw, vh;
    double dsf, scroll_x, scroll_y;
    perc_snapshot snap;
} snapcase;

typedef enum outcome { OUT_RIGHT = 0, OUT_WRONG, OUT_NONE } outcome;
static const char *const OUTCOME_NAME[] = {"right", "wrong", "none"};

typedef struct replay {
    snap_result res;
    snap_probe probe;
    outcome out;
    snap_verdict verify;
    int covering;
} replay;

static void snaptest_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea snaptest DIR [--json] [--overlays OUTDIR] [--perturb] [--live]\n\n"
            "Replays every recorded snapper case (folders with case.json) under DIR.\n"
            "Offline by default: the recorded snapshot answers the hit tests, no browser.\n\n"
            "  --json            machine-readable results on stdout\n"
            "  --overlays DIR    write DIR/<case>.png for each failure (box, probe points,\n"
            "                    chosen point; expected element green, chosen red)\n"
            "  --perturb         accuracy benchmark: perturbed true boxes, snapper vs a naive\n"
            "                    centre click (right / wrong / no answer %%)\n"
            "  --live            replay on Chromium with the live probe and compare with offline\n"
            "  --site DIR        with --live: the folder the cases were recorded from\n"
            "  --quiet           only the summary line\n");
}

static void case_fini(snapcase *c)
{
    base_free(c->url);
    base_free(c->path);
    base_free(c->eval);
    base_free(c->label);
    base_free(c->xpath);
    base_free(c->frame);
    base_free(c->known);
    perc_snapshot_fini(&c->snap);
    memset(c, 0, sizeof *c);
}

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static char *dup_field(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return base_strdup(cJSON_IsString(v) ? v->valuestring : "");
}

static base_err load_case(const char *dir, snapcase *c, char *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    char path[1100];
    snprintf(path, sizeof path, "%s/case.json", dir);
    uint8_t *d = NULL;
    size_t n = 0;
    base_err e = base_read_file(path, &d, &n, 1u << 20, err);
    if (e)
        return e;
    cJSON *j = cJSON_ParseWithLength((const char *)d, n);
    base_free(d);
    const cJSON *fmt = get(j, "format"), *box = get(j, "box"), *ex = get(j, "expect");
    if (!j || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, "fovea-snapcase/1") != 0) {
        cJSON_Delete(j);
        return base_errf(err, BASE_EPROTO, "%s: not a fovea-snapcase/1 file", path);
    }
    float b[4];
    int nb = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, box)
    {
        if (nb < 4 && cJSON_IsNumber(x))
            b[nb] = (float)x->valuedouble;
        nb++;
    }
    if (nb != 4 || !(b[2] > b[0] && b[3] > b[1]) || !cJSON_IsString(get(ex, "xpath"))) {
        cJSON_Delete(j);
        return base_errf(err, BASE_EPROTO, "%s: needs \"box\":[x0,y0,x1,y1] and expect.xpath",
                         path);
    }
    c->box = (base_rect){b[0], b[1], b[2], b[3]};
    const cJSON *nm = get(j, "name");
    const char *slash = strrchr(dir, '/');
    snprintf(c->name, sizeof c->name, "%s",
             cJSON_IsString(nm) ? nm->valuestring : slash ? slash + 1 : dir);
    c->url = dup_field(j, "url");
    c->path = dup_field(j, "path");
    c->eval = dup_field(j, "eval");
    c->label = dup_field(j, "label");
    c->xpath = dup_field(ex, "xpath");
    c->frame = dup_field(ex, "frame");
    c->known = dup_field(j, "known_failure");
    const cJSON *in = get(j, "intent");
    const char *is = cJSON_IsString(in) ? in->valuestring : "click";
    c->kind = strcmp(is, "select") == 0   ? SNAP_INTENT_SELECT
              : strcmp(is, "expand") == 0 ? SNAP_INTENT_EXPAND
                                          : SNAP_INTENT_ANY;
    const cJSON *vp = get(j, "viewport"), *sc = get(j, "scroll"), *dsf = get(j, "dsf");
    c->vw = cJSON_IsNumber(cJSON_GetArrayItem(vp, 0)) ? cJSON_GetArrayItem(vp, 0)->valueint : 1280;
    c->vh = cJSON_IsNumber(cJSON_GetArrayItem(vp, 1)) ? cJSON_GetArrayItem(vp, 1)->valueint : 800;
    c->dsf = cJSON_IsNumber(dsf) ? dsf->valuedouble : 1.0;
    c->scroll_x = cJSON_IsNumber(cJSON_GetArrayItem(sc, 0)) ? cJSON_GetArrayItem(sc, 0)->valuedouble : 0;
    c->scroll_y = cJSON_IsNumber(cJSON_GetArrayItem(sc, 1)) ? cJSON_GetArrayItem(sc, 1)->valuedouble : 0;
    cJSON_Delete(j);
    if (!c->url || !c->path || !c->eval || !c->label || !c->xpath || !c->frame || !c->known) {
        case_fini(c);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    snprintf(path, sizeof path, "%s/snapshot.json", dir);
    char serr[BASE_ERRBUF_SIZE] = "";
    e = perc_snapshot_read_file(path, &c->snap, serr);
    if (e) {
        base_errf(err, e, "%s: %s", path, serr);
        case_fini(c);
    }
    return e;
}

/* Runs the snapper on box in the case's scene and scores the outcome. */
static base_err replay_box(const snapcase *c, base_rect box, replay *r, char *err)
{
    memset(r, 0, sizeof *r);
    const snap_scene *sc = &c->snap.scene;
    base_err e = snap_scene_probe(sc, box, &r->probe);
    if (e)
        return base_errf(err, e, "%s: probe: %s", c->name, base_strerror(e));
    snap_intent in = {c->label, c->kind};
    if ((e = snap_resolve(sc->cand, sc->n, &r->probe, &in, &r->res, err)))
        return e;
    r->covering = -1;
    if (!r->res.found) {
        r->out = OUT_NONE;
        return BASE_OK;
    }
    r->out = perc_snapshot_within(&c->snap, r->res.cand, c->xpath, c->frame) ? OUT_RIGHT
                                                                               : OUT_WRONG;
    int stack[SNAP_PROBE_DEPTH], n = 0;
    if (snap_scene_hit(sc, r->res.pt, stack, SNAP_PROBE_DEPTH, &n) == BASE_OK)
        r->verify = snap_verify(sc->cand, sc->n, stack, n, r->res.cand, &r->covering);
    return BASE_OK;
}

/* A naive click at the box centre: the first interactive element there. */
static outcome naive_centre(const snapcase *c, base_rect box)
{
    int stack[SNAP_PROBE_DEPTH], n = 0;
    if (snap_scene_hit(&c->snap.scene, base_rect_center(box), stack, SNAP_PROBE_DEPTH, &n))
        return OUT_NONE;
    for (int k = 0; k < n; k++) {
        const snap_candidate *e = &c->snap.scene.cand[stack[k]];
        if (e->is_interactive || e->is_iframe)
            return perc_snapshot_within(&c->snap, stack[k], c->xpath, c->frame) ? OUT_RIGHT
                                                                                 : OUT_WRONG;
    }
    return OUT_NONE;
}


/* "<tag> 'text'" of a candidate into buf. */
static void describe(const snap_candidate *c, char *buf, size_t cap)
{
    const char *t = c->text[0] ? c->text : c->aria_label[0] ? c->aria_label : c->title;
    snprintf(buf, cap, "<%s> '%.24s'", c->tag, t);
}

/* ---- Overlays ------------------------------------------------------------ */

static base_err write_overlay(const snapcase *c, const replay *r, const char *outdir, char *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/shot.png", c->dir);
    uint8_t *d = NULL;
    size_t n = 0;
    perc_image img;
    memset(&img, 0, sizeof img);
    base_err e = base_read_file(path, &d, &n, 256u << 20, err);
    if (!e)
        e = perc_image_decode(d, n, &img, err);
    base_free(d);
    if (e)
        return e;
    img.scale = (float)c->dsf;
    int ei = perc_snapshot_find(&c->snap, c->xpath, c->frame);
    if (ei >= 0)
        e = perc_draw_highlight(&img, c->snap.scene.cand[ei].rect, 0x22aa44ffu, err);
    if (!e && r->res.cand >= 0)
        e = perc_draw_highlight(&img, c->snap.scene.cand[r->res.cand].rect, 0xdd2222ffu, err);
    perc_mark m = {c->box, 1, c->label, PERC_MARK_DASHED};
    perc_som_opts so;
    perc_som_opts_init(&so);
    so.label_fmt = PERC_LABEL_TEXT;
    so.fill_alpha = 24;
    if (!e)
        e = perc_som_draw(&img, &m, 1, &so, err);
    for (int k = 0; k < r->probe.n_points && !e; k++)
        e = perc_draw_crosshair(&img, r->probe.pt[k], 3, k < SNAP_PROBE_NGRID ? 0x2255ffffu : 0xff9900ffu, err);
    if (!e && r->res.found)
        e = perc_draw_crosshair(&img, r->res.pt, 9, 0xdd2222ffu, err);
    char cap[256];
    snprintf(cap, sizeof cap, "%s: %s, phase %s, %s", c->name, OUTCOME_NAME[r->out],
             snap_phase_name(r->res.phase), r->res.reason);
    if (!e)
        e = perc_draw_caption(&img, cap, err);
    uint8_t *png = NULL;
    if (!e)
        e = perc_image_encode_png(&img, 1, &png, &n, err);
    snprintf(path, sizeof path, "%s/%s.png", outdir, c->name);
    if (!e)
        e = cli_mkdirs_for(path, err);
    if (!e)
        e = base_write_file(path, png, n, err);
    base_free(png);
    perc_image_fini(&img);
    return e;
}

/* ---- Case discovery ------------------------------------------------------ */

typedef struct case_list {
    char **dirs;
    int n, cap;
} case_list;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static base_err find_cases(const char *dir, case_list *l, int depth, char *err)
{
    char path[1100];
    struct stat st;
    snprintf(path, sizeof path, "%s/case.json", dir);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        if (l->n >= MAX_CASES)
            return base_errf(err, BASE_ETOOBIG, "more than %d cases", MAX_CASES);
        if (l->n == l->cap) {
            int cap = l->cap ? l->cap * 2 : 64;
            char **nd = base_realloc(l->dirs, (size_t)cap * sizeof *nd);
            if (!nd)
                return base_errf(err, BASE_ENOMEM, "out of memory");
            l->dirs = nd;
            l->cap = cap;
        }
        if (!(l->dirs[l->n] = base_strdup(dir)))
            return base_errf(err, BASE_ENOMEM, "out of memory");
        l->n++;
        return BASE_OK;
    }
    if (depth > 8)
        return BASE_OK;
    DIR *d = opendir(dir);
    if (!d)
        return depth == 0 ? base_errf(err, BASE_EIO, "cannot open %s", dir) : BASE_OK;
    struct dirent *de;
    base_err e = BASE_OK;
    while (!e && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            e = find_cases(path, l, depth + 1, err);
    }
    closedir(d);
    return e;
}

static void list_free(case_list *l)
{
    for (int i = 0; i < l->n; i++)
        base_free(l->dirs[i]);
    base_free(l->dirs);
}

/* ---- Reporting ----------------------------------------------------------- */

static cJSON *result_json(const snapcase *c, const replay *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", c->name);
    cJSON_AddStringToObject(o, "outcome", OUTCOME_NAME[r->out]);
    if (c->known[0])
        cJSON_AddStringToObject(o, "known_failure", c->known);
    cJSON *ex = cJSON_AddObjectToObject(o, "expected");
    cJSON_AddStringToObject(ex, "xpath", c->xpath);
    cJSON_AddStringToObject(ex, "frame", c->frame);
    if (r->res.cand >= 0) {
        const snap_candidate *g = &c->snap.scene.cand[r->res.cand];
        cJSON *go = cJSON_AddObjectToObject(o, "got");
        cJSON_AddStringToObject(go, "xpath", g->xpath);
        cJSON_AddStringToObject(go, "frame", g->frame_chain);
        cJSON_AddStringToObject(go, "tag", g->tag);
        cJSON_AddStringToObject(go, "text", g->text);
    } else {
        cJSON_AddNullToObject(o, "got");
    }
    cJSON_AddStringToObject(o, "phase", snap_phase_name(r->res.phase));
    cJSON_AddStringToObject(o, "reason", r->res.reason);
    cJSON *s = cJSON_AddObjectToObject(o, "score");
    cJSON_AddNumberToObject(s, "area", r->res.score.area);
    cJSON_AddNumberToObject(s, "label", r->res.score.label);
    cJSON_AddNumberToObject(s, "chevron", r->res.score.chevron);
    cJSON_AddNumberToObject(s, "total", r->res.score.total);
    cJSON *pt = cJSON_AddArrayToObject(o, "point");
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(r->res.pt.x));
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(r->res.pt.y));
    cJSON_AddStringToObject(o, "verify",
                            !r->res.found ? "-"
                            : r->verify == SNAP_VERIFY_OK ? "ok"
                            : r->verify == SNAP_VERIFY_COVERED ? "covered"
                                                               : "empty");
    return o;
}

static void print_row(FILE *f, const snapcase *c, const replay *r)
{
    char exp[96], got[96];
    int ei = perc_snapshot_find(&c->snap, c->xpath, c->frame);
    if (ei >= 0)
        describe(&c->snap.scene.cand[ei], exp, sizeof exp);
    else
        snprintf(exp, sizeof exp, "(missing)");
    if (r->res.cand >= 0)
        describe(&c->snap.scene.cand[r->res.cand], got, sizeof got);
    else
        snprintf(got, sizeof got, "-");
    fprintf(f, "%-5s %-28.28s %-34.34s %-34.34s %-5s a=%.2f l=%.2f c=%.2f s=%.3f%s\n",
            c->known[0] ? (r->out == OUT_RIGHT ? "XPASS" : "XFAIL")
            : r->out == OUT_RIGHT ? "ok"
            : r->out == OUT_WRONG ? "WRONG"
                                  : "NONE",
            c->name, exp,
            got, snap_phase_name(r->res.phase), r->res.score.area, r->res.score.label,
            r->res.score.chevron, r->res.score.total,
            r->res.found && r->verify == SNAP_VERIFY_COVERED ? " [covered]" : "");
}

int cli_snaptest_case(const char *dir, FILE *out)
{
    char err[BASE_ERRBUF_SIZE] = "";
    snapcase c;
    replay r;
    if (load_case(dir, &c, err) || replay_box(&c, c.box, &r, err)) {
        fprintf(stderr, "fovea snaptest: %s\n", err);
        return -1;
    }
    print_row(out, &c, &r);
    int rc = r.out == OUT_RIGHT || c.known[0] ? 0 : 1;
    if (c.known[0])
        fprintf(out, "      known failure: %s\n", c.known);
    case_fini(&c);
    return rc;
}

/* ---- Perturbation benchmark ---------------------------------------------- */

enum { PK_EXACT, PK_JIT10, PK_JIT20, PK_SCALE, PK_NEIGHBOUR, PK_ROW, PK_COUNT };
static const char *const PK_NAME[] = {"exact", "jitter10", "jitter20", "scale", "neighbour",
                                      "row"};

typedef struct tally {
    int snap[3], naive[3];
    int reach[3]; /* snapper, boxes where the target still covers a probe point */
} tally;

/* The nearest interactive element that is not the target, inside it or
 * around it (centre distance), -1 when none within 80 px. */
static int nearest_other(const snapcase *c, int t, base_rect tr, int same_row)
{
    const snap_scene *s = &c->snap.scene;
    int best = -1;
    float best_d = 80.0f;
    base_point tc = base_rect_center(tr);
    for (int i = 0; i < s->n; i++) {
        const snap_candidate *e = &s->cand[i];
        if (!e->is_interactive || i == t || snap_is_ancestor(s->cand, s->n, i, t) ||
            snap_is_ancestor(s->cand, s->n, t, i) || s->node[i].pointer_events_none ||
            s->node[i].visibility_hidden)
            continue;
        base_rect r = e->rect;
        if (base_rect_empty(base_rect_intersect(r, (base_rect){0, 0, (float)c->snap.vw,
                                                              (float)c->snap.vh})))
            continue;
        if (same_row) {
            float hmin = fminf(base_rect_h(r), base_rect_h(tr));
            float ov = fminf(r.y1, tr.y1) - fmaxf(r.y0, tr.y0);
            float gap = fmaxf(0.0f, fmaxf(r.x0 - tr.x1, tr.x0 - r.x1));
            if (!(ov >= 0.5f * hmin && gap <= fmaxf(8.0f, hmin)))
                continue;
        }
        float d = base_point_dist(base_rect_center(r), tc);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

static void score(tally *t, const snapcase *c, base_rect box, int *fails, FILE *log,
                  const char *kind)
{
    base_rect vp = {0, 0, (float)c->snap.vw, (float)c->snap.vh};
    box = base_rect_intersect(box, vp);
    if (base_rect_w(box) < 2 || base_rect_h(box) < 2)
        return;
    replay r;
    char err[BASE_ERRBUF_SIZE] = "";
    if (replay_box(c, box, &r, err)) {
        r.out = OUT_NONE;
        r.res.cand = -1;
    }
    t->snap[r.out]++;
    t->naive[naive_centre(c, box)]++;
    /* Reachable: some lattice point of the box lies on the target, so a
     * snapper could find it without guessing outside the box. */
    int ti = perc_snapshot_find(&c->snap, c->xpath, c->frame);
    base_point pts[SNAP_PROBE_NGRID];
    snap_probe_points(box, pts);
    for (int k = 0; ti >= 0 && k < SNAP_PROBE_NGRID; k++) {
        if (base_rect_contains(c->snap.scene.cand[ti].rect, pts[k])) {
            t->reach[r.out]++;
            break;
        }
    }
    if (r.out != OUT_RIGHT) {
        (*fails)++;
        if (log) {
            char got[96] = "-";
            if (r.res.found)
                describe(&c->snap.scene.cand[r.res.cand], got, sizeof got);
            fprintf(log, "  %-5s %-28s %-9s box %.0f,%.0f,%.0f,%.0f -> %s (%s)\n",
                    OUTCOME_NAME[r.out], c->name, kind, box.x0, box.y0, box.x1, box.y1, got,
                    r.res.reason);
        }
    }
}

static void perturb_case(const snapcase *c, tally *t, FILE *log)
{
    int ti = perc_snapshot_find(&c->snap, c->xpath, c->frame);
    if (ti < 0)
        return;
    const snap_scene *s = &c->snap.scene;
    base_rect tr = s->cand[ti].rect;
    if (s->node[ti].has_clip)
        tr = base_rect_intersect(tr, s->node[ti].clip);
    if (base_rect_empty(tr))
        return;
    int fails = 0;
    score(&t[PK_EXACT], c, tr, &fails, log, PK_NAME[PK_EXACT]);
    for (int mag = 10; mag <= 20; mag += 10) {
        for (int dx = -1; dx <= 1; dx++) {
            for (int dy = -1; dy <= 1; dy++) {
                if (!dx && !dy)
                    continue;
                base_rect b = {tr.x0 + (float)(dx * mag), tr.y0 + (float)(dy * mag),
                               tr.x1 + (float)(dx * mag), tr.y1 + (float)(dy * mag)};
                int k = mag == 10 ? PK_JIT10 : PK_JIT20;
                score(&t[k], c, b, &fails, log, PK_NAME[k]);
            }
        }
    }
    static const float scales[] = {0.7f, 0.85f, 1.15f, 1.3f, 1.6f};
    base_point ctr = base_rect_center(tr);
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        float hw = base_rect_w(tr) * scales[k] / 2, hh = base_rect_h(tr) * scales[k] / 2;
        score(&t[PK_SCALE], c, (base_rect){ctr.x - hw, ctr.y - hh, ctr.x + hw, ctr.y + hh},
              &fails, log, PK_NAME[PK_SCALE]);
    }
    int nb = nearest_other(c, ti, tr, 0);
    if (nb >= 0)
        score(&t[PK_NEIGHBOUR], c, base_rect_union(tr, s->cand[nb].rect), &fails, log,
              PK_NAME[PK_NEIGHBOUR]);
    int rw = nearest_other(c, ti, tr, 1);
    if (rw >= 0)
        score(&t[PK_ROW], c, base_rect_union(tr, s->cand[rw].rect), &fails, log,
              PK_NAME[PK_ROW]);
}

static void pct_line(FILE *f, const char *what, const int *v)
{
    int n = v[0] + v[1] + v[2];
    double d = n > 0 ? 100.0 / n : 0.0;
    fprintf(f, "%-12s %5d boxes  right %6.2f %%  wrong %6.2f %%  none %6.2f %%\n", what, n,
            v[0] * d, v[1] * d, v[2] * d);
}

/* ---- Live replay (perc_snap_box) ----------------------------------------- */

static int snaptest_live(snapcase *const *cases, const replay *off, int n, const char *site,
                         int json, char *err);

/* ---- Main ---------------------------------------------------------------- */

int cli_cmd_snaptest(int argc, char **argv)
{
    const char *dir = NULL, *overlays = NULL, *site = NULL;
    int json = 0, perturb = 0, live = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            snaptest_usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0)
            json = 1;
        else if (strcmp(a, "--perturb") == 0)
            perturb = 1;
        else if (strcmp(a, "--live") == 0)
            live = 1;
        else if (strcmp(a, "--quiet") == 0)
            quiet = 1;
        else if ((strcmp(a, "--overlays") == 0 || strcmp(a, "--site") == 0) && i + 1 < argc) {
            if (a[2] == 'o')
                overlays = argv[++i];
            else
                site = argv[++i];
        } else if (a[0] != '-' && !dir)
            dir = a;
        else {
            fprintf(stderr, "fovea snaptest: unknown option or missing value: %s\n", a);
            return 2;
        }
    }
    if (!dir) {
        snaptest_usage(stderr);
        return 2;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    case_list l;
    memset(&l, 0, sizeof l);
    if (find_cases(dir, &l, 0, err)) {
        fprintf(stderr, "fovea snaptest: %s\n", err);
        list_free(&l);
        return 1;
    }
    if (l.n == 0) {
        fprintf(stderr, "fovea snaptest: no case.json under %s\n", dir);
        list_free(&l);
        return 1;
    }
    qsort(l.dirs, (size_t)l.n, sizeof *l.dirs, cmp_str);
    snapcase **cases = base_calloc((size_t)l.n, sizeof *cases);
    replay *res = base_calloc((size_t)l.n, sizeof *res);
    int rc = 0, failed = 0, errors = 0, xfail = 0;
    if (!cases || !res) {
        fprintf(stderr, "fovea snaptest: out of memory\n");
        rc = 1;
        goto done;
    }
    cJSON *jr = json ? cJSON_CreateObject() : NULL;
    cJSON *jarr = json ? cJSON_AddArrayToObject(jr, "cases") : NULL;
    if (!json && !quiet && !perturb)
        printf("%-5s %-28s %-34s %-34s %-5s %s\n", "", "case", "expected", "got", "phase",
               "score parts");
    tally t[PK_COUNT];
    memset(t, 0, sizeof t);
    FILE *plog = perturb && !quiet ? stdout : NULL;
    if (plog)
        printf("perturbed boxes the snapper gets wrong or leaves unanswered:\n");
    for (int i = 0; i < l.n; i++) {
        cases[i] = base_calloc(1, sizeof *cases[i]);
        base_errclear(err);
        if (!cases[i] || load_case(l.dirs[i], cases[i], err) ||
            replay_box(cases[i], cases[i]->box, &res[i], err)) {
            fprintf(stderr, "fovea snaptest: %s: %s\n", l.dirs[i], err[0] ? err : "out of memory");
            if (cases[i])
                case_fini(cases[i]);
            base_free(cases[i]);
            cases[i] = NULL;
            errors++;
            continue;
        }
        if (perturb) {
            perturb_case(cases[i], t, plog);
            continue;
        }
        if (res[i].out != OUT_RIGHT && cases[i]->known[0]) {
            xfail++;
        } else if (res[i].out != OUT_RIGHT) {
            failed++;
            if (overlays && write_overlay(cases[i], &res[i], overlays, err))
                fprintf(stderr, "fovea snaptest: overlay for %s: %s\n", cases[i]->name, err);
        }
        if (json)
            cJSON_AddItemToArray(jarr, result_json(cases[i], &res[i]));
        else if (!quiet)
            print_row(stdout, cases[i], &res[i]);
    }
    if (perturb) {
        tally all;
        memset(&all, 0, sizeof all);
        printf("\nsnapper (per perturbation):\n");
        for (int k = 0; k < PK_COUNT; k++) {
            pct_line(stdout, PK_NAME[k], t[k].snap);
            for (int o = 0; o < 3; o++) {
                all.snap[o] += t[k].snap[o];
                all.naive[o] += t[k].naive[o];
                all.reach[o] += t[k].reach[o];
            }
        }
        printf("naive centre click (per perturbation):\n");
        for (int k = 0; k < PK_COUNT; k++)
            pct_line(stdout, PK_NAME[k], t[k].naive);
        printf("\n%d cases\n", l.n - errors);
        pct_line(stdout, "snapper", all.snap);
        pct_line(stdout, "naive", all.naive);
        printf("boxes where the target is under at least one lattice point:\n");
        pct_line(stdout, "snapper", all.reach);
    } else if (live) {
        int lr = snaptest_live(cases, res, l.n, site, json, err);
        if (lr < 0) {
            fprintf(stderr, "fovea snaptest --live: %s\n", err);
            rc = 1;
        } else if (lr > 0) {
            rc = 1;
        }
    }
    if (json) {
        cJSON_AddNumberToObject(jr, "passed", l.n - errors - failed - xfail);
        cJSON_AddNumberToObject(jr, "failed", failed);
        cJSON_AddNumberToObject(jr, "known_failures", xfail);
        cJSON_AddNumberToObject(jr, "errors", errors);
        char *s = cJSON_Print(jr);
        if (s)
            puts(s);
        free(s);
        cJSON_Delete(jr);
    } else if (!perturb) {
        printf("%d cases: %d passed, %d failed, %d known failures, %d errors\n", l.n,
               l.n - errors - failed - xfail, failed, xfail, errors);
    }
    if (failed || errors)
        rc = 1;
done:
    for (int i = 0; cases && i < l.n; i++) {
        if (cases[i])
            case_fini(cases[i]);
        base_free(cases[i]);
    }
    base_free(cases);
    base_free(res);
    list_free(&l);
    return rc;
}

/* Live replay. The live chosen element is named by xpath within its own
 * frame and a top-viewport rect; it is matched to the scene element with the
 * same xpath whose rect holds the centre of the live rect, which then decides
 * right/wrong the same way as offline. */
static int scene_match(const snapcase *c, const perc_snap *ls)
{
    base_point m = base_rect_center(ls->rect);
    const snap_scene *sc = &c->snap.scene;
    for (int i = 0; i < sc->n; i++) {
        base_rect r = sc->cand[i].rect;
        r = (base_rect){r.x0 - 2, r.y0 - 2, r.x1 + 2, r.y1 + 2};
        if (strcmp(sc->cand[i].xpath, ls->xpath) == 0 && base_rect_contains(r, m))
            return i;
    }
    return -1;
}

static int snaptest_live(snapcase *const *cases, const replay *off, int n, const char *site,
                         int json, char *err)
{
    base_httpd *srv = NULL;
    cdp_browser *br = NULL;
    base_err e = BASE_OK;
    if (site) {
        base_httpd_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.root = site;
        if ((e = base_httpd_start(&ho, &srv, err)))
            return -1;
    }
    cdp_launch_opts lo;
    memset(&lo, 0, sizeof lo);
    if ((e = cdp_browser_launch(&lo, &br, err))) {
        base_httpd_destroy(srv);
        return -1;
    }
    int disagree = 0, wrong = 0, done = 0;
    if (!json)
        printf("\nlive replay (perc_snap_box) vs offline:\n");
    for (int i = 0; i < n; i++) {
        snapcase *c = cases[i];
        if (!c)
            continue;
        char url[2048];
        if (srv && c->path[0])
            snprintf(url, sizeof url, "http://127.0.0.1:%d%s", base_httpd_port(srv), c->path);
        else
            snprintf(url, sizeof url, "%s", c->url);
        cdp_page_opts po = {c->vw, c->vh, c->dsf, 0};
        cdp_page *page = NULL;
        char cerr[BASE_ERRBUF_SIZE] = "";
        char js[256];
        snprintf(js, sizeof js,
                 "window.scrollTo(%g, %g); new Promise(r => requestAnimationFrame(() => "
                 "requestAnimationFrame(() => setTimeout(r, 300))))",
                 c->scroll_x, c->scroll_y);
        perc_snap ls;
        memset(&ls, 0, sizeof ls);
        snap_intent in = {c->label, c->kind};
        e = cdp_page_open(br, &po, &page, cerr);
        if (!e)
            e = perc_kit_install(page, cerr);
        if (!e)
            e = cdp_page_navigate(page, url, 30000, cerr);
        if (!e && c->eval[0])
            e = cdp_page_evaluate(page, c->eval, NULL, 30000, cerr);
        if (!e)
            e = cdp_page_evaluate(page, js, NULL, 10000, cerr);
        if (!e)
            e = perc_snap_box(page, c->box, &in, 1, &ls, cerr);
        cdp_page_close(page);
        if (e) {
            printf("ERROR %-28s %s\n", c->name, cerr);
            disagree++;
            continue;
        }
        done++;
        int k = ls.found ? scene_match(c, &ls) : -1;
        outcome lo_out = !ls.found ? OUT_NONE
                         : k >= 0 && perc_snapshot_within(&c->snap, k, c->xpath, c->frame)
                             ? OUT_RIGHT
                             : OUT_WRONG;
        int agree = lo_out == off[i].out &&
                    (!ls.found || (off[i].res.found && k == off[i].res.cand));
        disagree += !agree;
        wrong += lo_out != OUT_RIGHT && !c->known[0];
        if (!json || !agree)
            printf("%-8s %-28s live %-5s <%s> '%.20s' (%s)  offline %s\n",
                   agree ? "agree" : "DIFFER", c->name, OUTCOME_NAME[lo_out], ls.tag, ls.text,
                   snap_phase_name(ls.res.phase), OUTCOME_NAME[off[i].out]);
    }
    if (!json)
        printf("live: %d cases, %d disagree with offline, %d wrong\n", done, disagree, wrong);
    cdp_browser_destroy(br);
    base_httpd_destroy(srv);
    return disagree || wrong ? 1 : 0;
}
