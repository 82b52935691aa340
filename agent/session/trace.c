/* agent/session/trace.c: trace.jsonl lines and step overlays.
 *
 * Each record becomes one cJSON object printed on one line and flushed at
 * once, so the file is valid JSONL after every step even if the run dies
 * next. Numbers are rounded to 0.1 ms / 0.1 px to keep lines short and
 * diffable. Overlays reuse the Set-of-Marks and debug drawing of
 * image/som.h; only the password mask (an opaque fill) is drawn here.
 */
#include "agent/session/trace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json_alloc.h"
#include "base/fs.h"
#include "base/utf8.h"

struct agent_trace {
    FILE *f;
    char dir[768];
};

static double r1(double v)
{
    return isfinite(v) ? round(v * 10.0) / 10.0 : 0.0;
}

/* Prints root on one line plus '\n' and flushes; frees root. fails0 is
 * base_alloc_thread_failures() from before root was built: the builders
 * add dozens of members unchecked, so any allocation that failed meanwhile
 * means a member is missing, and the line is dropped (BASE_ENOMEM) rather
 * than written incomplete. */
static base_err write_line(agent_trace *t, cJSON *root, unsigned long fails0, char *err)
{
    if (base_alloc_thread_failures() != fails0) {
        cJSON_Delete(root);
        root = NULL;
    }
    char *s = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!s)
        return base_errf(err, BASE_ENOMEM, "out of memory formatting a trace line");
    /* Strings come from pages and endpoints, which send any bytes, and
     * fixed-size copies may cut a character in half; cJSON passes bytes >=
     * 0x80 through unchanged. Every JSON delimiter is ASCII, so replacing
     * each invalid byte with U+FFFD keeps the line valid JSON and makes it
     * valid UTF-8. Valid lines (nearly all) are written as they are. */
    size_t n = strlen(s);
    char *fixed = NULL;
    if (base_utf8_check(s, n) < n) {
        fixed = base_malloc(BASE_UTF8_REPAIR_CAP(n));
        if (!fixed) {
            cJSON_free(s);
            return base_errf(err, BASE_ENOMEM, "out of memory formatting a trace line");
        }
        base_utf8_repair(s, n, fixed, BASE_UTF8_REPAIR_CAP(n));
    }
    /* Once output is lost (this file or another: a full disk), later lines
     * are not attempted: the loss is noted once and the run fails with it,
     * instead of one error per record. */
    int bad = 0;
    if (!base_out_lost_get(NULL, 0))
        bad = fputs(fixed ? fixed : s, t->f) < 0 || fputc('\n', t->f) == EOF ||
              fflush(t->f) != 0;
    int er = errno;
    base_free(fixed);
    cJSON_free(s);
    if (bad) {
        char path[1024];
        snprintf(path, sizeof path, "%s/trace.jsonl", t->dir);
        base_out_lost(path, strerror(er));
    }
    return BASE_OK;
}

base_err agent_trace_open(const char *out_dir, const agent_trace_info *info, agent_trace **out,
                          char *err)
{
    if (!out_dir || !info || !out)
        return base_errf(err, BASE_EINVAL, "agent_trace_open: NULL argument");
    agent_trace *t = base_calloc(1, sizeof *t);
    if (!t)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    char path[1024];
    base_err e = BASE_OK;
    if (snprintf(t->dir, sizeof t->dir, "%s", out_dir) >= (int)sizeof t->dir) {
        e = base_errf(err, BASE_EINVAL, "output path too long: %.100s", out_dir);
        goto fail;
    }
    snprintf(path, sizeof path, "%s/steps", t->dir);
    if ((e = base_mkdirs(path, 0, err)))
        goto fail;
    snprintf(path, sizeof path, "%s/trace.jsonl", t->dir);
    /* Never through a link planted where the trace goes (base_open_out). */
    int fd = -1;
    if ((e = base_open_out(path, BASE_OUT_TRUNC, &fd, err)))
        goto fail;
    t->f = fdopen(fd, "w");
    if (!t->f) {
        close(fd);
        e = base_errf(err, BASE_EIO, "cannot write %s: %s", path, strerror(errno));
        goto fail;
    }
    unsigned long f0 = base_alloc_thread_failures();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "type", "task");
    cJSON_AddStringToObject(j, "name", info->task_name ? info->task_name : "");
    cJSON_AddStringToObject(j, "file", info->task_file ? info->task_file : "");
    cJSON_AddStringToObject(j, "url", info->url ? info->url : "");
    cJSON_AddStringToObject(j, "vision", info->vision ? info->vision : "");
    cJSON_AddStringToObject(j, "browser", info->browser ? info->browser : "");
    cJSON *vp = cJSON_AddObjectToObject(j, "viewport");
    cJSON_AddNumberToObject(vp, "width", info->width);
    cJSON_AddNumberToObject(vp, "height", info->height);
    cJSON_AddNumberToObject(vp, "scale", info->scale);
    cJSON_AddBoolToObject(j, "humanize", info->humanize);
    cJSON_AddNumberToObject(j, "seed", (double)info->seed);
    cJSON_AddNumberToObject(j, "steps", info->n_steps);
    if ((e = write_line(t, j, f0, err)))
        goto fail;
    *out = t;
    return BASE_OK;
fail:
    if (t->f)
        fclose(t->f);
    base_free(t);
    return e;
}

const char *agent_trace_dir(const agent_trace *t)
{
    return t->dir;
}

static cJSON *rect_json(base_rect r)
{
    double v[4] = {r1(r.x0), r1(r.y0), r1(r.x1), r1(r.y1)};
    return cJSON_CreateDoubleArray(v, 4);
}

static cJSON *step_json(const agent_step_record *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "type", "step");
    cJSON_AddNumberToObject(j, "step", r->index);
    cJSON_AddNumberToObject(j, "of", r->total);
    cJSON_AddStringToObject(j, "action", r->action);
    cJSON_AddStringToObject(j, "desc", r->desc);
    cJSON_AddStringToObject(j, "intent", r->intent);
    cJSON *tg = cJSON_AddObjectToObject(j, "target");
    cJSON_AddStringToObject(tg, "label", r->target_label);
    cJSON_AddNumberToObject(tg, "index", r->target_index);
    cJSON_AddNumberToObject(j, "attempts", r->attempts);

    cJSON *g = cJSON_AddObjectToObject(j, "gate");
    cJSON_AddStringToObject(g, "mode", r->gate);
    cJSON_AddStringToObject(g, "why", r->gate_why);
    cJSON_AddBoolToObject(g, "vision_lag", r->vision_lag);
    cJSON_AddNumberToObject(g, "epoch", (double)r->epoch_id);
    cJSON_AddNumberToObject(g, "boxes", r->n_boxes);

    if (r->box_id > 0 || r->box_source[0]) {
        cJSON *b = cJSON_AddObjectToObject(j, "box");
        cJSON_AddNumberToObject(b, "id", r->box_id);
        cJSON_AddStringToObject(b, "label", r->box_label);
        cJSON_AddStringToObject(b, "source", r->box_source);
        cJSON_AddItemToObject(b, "rect", rect_json(r->box));
    }
    if (r->phase[0]) {
        /* The snap answer in its one JSON form (perception/probe.h), with
         * what only the step knows: its phase name (P for a procedural
         * step), path, the point it pressed and the hand's verdict. */
        const perc_snap *sn = &r->snap;
        cJSON *s = perc_snap_json(sn);
        base_json_replace(s, "phase", cJSON_CreateString(r->phase));
        if (r->snap_path[0]) /* procedural steps: epoch, fallback or snapper */
            cJSON_AddStringToObject(s, "path", r->snap_path);
        base_json_replace(s, "point", perc_json_point(r->pt));
        if (!cJSON_GetObjectItemCaseSensitive(s, "element")) {
            /* report.html shows the element of every step */
            cJSON *el = cJSON_AddObjectToObject(s, "element");
            cJSON_AddStringToObject(el, "tag", sn->tag);
            cJSON_AddStringToObject(el, "text", sn->text);
            base_json_add(el, "rect", perc_json_rect(sn->rect));
        }
        /* The hit-target check is the hand's, made right before the press. */
        cJSON_AddStringToObject(s, "verdict", r->hand.reason == CASCADE_COVERED ? "covered"
                                              : r->hand.n_tried > 0            ? "hit ok"
                                                                               : "");
        /* With a target label, "match" and then "partial" (readers of the
         * trace text find them side by side); without one, no match. */
        cJSON *match = cJSON_DetachItemFromObjectCaseSensitive(s, "match");
        if (r->target_label[0] && sn->found && match) {
            base_json_add(s, "match", match);
            cJSON_AddBoolToObject(s, "partial", sn->res.match < SNAP_MATCH_WORD);
        } else {
            cJSON_Delete(match);
            cJSON_DeleteItemFromObjectCaseSensitive(s, "match_kind");
        }
        base_json_add(j, "snap", s); /* last: on failure it frees s */
    }
    if (r->reason[0]) {
        /* The hand's result in its one JSON form (cascade/cascade.h); the
         * step's reason code replaces the hand's, and the nearest names
         * follow the hand's concrete alternatives. */
        cJSON *c = cascade_result_json(&r->hand);
        base_json_replace(c, "reason", cJSON_CreateString(r->reason));
        cJSON *alt = cJSON_GetObjectItemCaseSensitive(c, "alternatives");
        for (int i = 0; alt && i < r->n_alternatives && i < 4; i++)
            base_json_push(alt, cJSON_CreateString(r->alternatives[i]));
        base_json_add(j, "cascade", c); /* last: on failure it frees c */
    }
    if (r->n_marks > 0) {
        cJSON *mk = cJSON_AddArrayToObject(j, "marks");
        for (int i = 0; i < r->n_marks && i < AGENT_MAX_MARKS; i++)
            cJSON_AddItemToArray(mk, cJSON_CreateString(r->marks[i]));
    }
    cJSON_AddBoolToObject(j, "ok", r->ok);
    cJSON_AddStringToObject(j, "outcome", r->outcome);
    if (r->dialog[0])
        cJSON_AddStringToObject(j, "dialog", r->dialog);
    if (r->new_tab[0])
        cJSON_AddStringToObject(j, "new_tab", r->new_tab);
    if (r->n_extracted > 0) {
        cJSON *ex = cJSON_AddArrayToObject(j, "extracted");
        for (int i = 0; i < r->n_extracted && i < AGENT_MAX_EXTRACT; i++)
            cJSON_AddItemToArray(ex, cJSON_CreateString(r->extracted[i]));
    }
    cJSON_AddStringToObject(j, "url", r->url);
    cJSON_AddStringToObject(j, "overlay", r->overlay);
    if (r->n_masked > 0)
        cJSON_AddNumberToObject(j, "masked", r->n_masked);
    cJSON *ms = cJSON_AddObjectToObject(j, "ms");
    const agent_stage_ms *m = &r->ms;
    cJSON_AddNumberToObject(ms, "total", r1(r->total_ms));
    cJSON_AddNumberToObject(ms, "gate", r1(m->gate));
    cJSON_AddNumberToObject(ms, "capture", r1(m->capture));
    cJSON_AddNumberToObject(ms, "decode", r1(m->decode));
    cJSON_AddNumberToObject(ms, "fingerprint", r1(m->fingerprint));
    cJSON_AddNumberToObject(ms, "vision", r1(m->vision));
    cJSON_AddNumberToObject(ms, "overlay", r1(m->overlay));
    cJSON_AddNumberToObject(ms, "snap", r1(m->snap));
    cJSON_AddNumberToObject(ms, "motion", r1(m->motion));
    cJSON_AddNumberToObject(ms, "dispatch", r1(m->dispatch));
    cJSON_AddNumberToObject(ms, "settle", r1(m->settle));
    return j;
}

base_err agent_trace_step(agent_trace *t, const agent_step_record *r, char *err)
{
    if (!t || !r)
        return base_errf(err, BASE_EINVAL, "agent_trace_step: NULL argument");
    unsigned long f0 = base_alloc_thread_failures();
    cJSON *j = step_json(r);
    return write_line(t, j, f0, err);
}

static void close_with(agent_trace *t, int ok, int failed_step, double total_ms,
                       const char *reason, const char *signal, cJSON *extra)
{
    if (!t) {
        cJSON_Delete(extra);
        return;
    }
    unsigned long f0 = base_alloc_thread_failures();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "type", "end");
    cJSON_AddBoolToObject(j, "ok", ok);
    cJSON_AddNumberToObject(j, "failed_step", failed_step);
    cJSON_AddNumberToObject(j, "ms", r1(total_ms));
    cJSON_AddStringToObject(j, "reason", reason ? reason : "");
    if (signal)
        cJSON_AddStringToObject(j, "interrupted", signal);
    /* The extra members move into the line (detached one by one, so the
     * fixed members above keep their names). */
    while (extra && extra->child) {
        cJSON *m = cJSON_DetachItemViaPointer(extra, extra->child);
        if (!j || !m || !m->string || cJSON_GetObjectItemCaseSensitive(j, m->string) ||
            !cJSON_AddItemToObject(j, m->string, m))
            cJSON_Delete(m);
    }
    cJSON_Delete(extra);
    write_line(t, j, f0, NULL);
    fclose(t->f);
    base_free(t);
}

void agent_trace_close(agent_trace *t, int ok, int failed_step, double total_ms,
                       const char *reason)
{
    close_with(t, ok, failed_step, total_ms, reason, NULL, NULL);
}

void agent_trace_close_interrupted(agent_trace *t, int failed_step, double total_ms,
                                   const char *reason, const char *signal)
{
    close_with(t, 0, failed_step, total_ms, reason, signal ? signal : "signal", NULL);
}

void agent_trace_close_extra(agent_trace *t, int ok, int failed_step, double total_ms,
                             const char *reason, const char *signal, cJSON *extra)
{
    close_with(t, signal ? 0 : ok, failed_step, total_ms, reason, signal, extra);
}

/* An opaque dark rectangle (CSS px) with no text: what a password field
 * looks like in every overlay after a password went into it. */
static void paint_mask(img_image *img, base_rect r)
{
    float s = img->scale > 0 ? img->scale : 1.0f;
    /* The rectangle comes from the page: clamp to the image in float before
     * converting, since (int) of a huge or NaN float is undefined. */
    float fx0 = fmaxf(floorf(r.x0 * s), 0.0f), fy0 = fmaxf(floorf(r.y0 * s), 0.0f);
    float fx1 = fminf(ceilf(r.x1 * s), (float)img->w), fy1 = fminf(ceilf(r.y1 * s), (float)img->h);
    if (!(fx0 < fx1 && fy0 < fy1))
        return;
    int x0 = (int)fx0, y0 = (int)fy0, x1 = (int)fx1, y1 = (int)fy1;
    for (int y = y0; y < y1; y++) {
        uint8_t *p = img->px + (size_t)y * (size_t)img->stride + (size_t)x0 * 4;
        for (int x = x0; x < x1; x++, p += 4) {
            p[0] = 0x30;
            p[1] = 0x30;
            p[2] = 0x38;
            p[3] = 0xff;
        }
    }
}

base_err agent_trace_overlay(agent_trace *t, img_image *img, const img_mark *marks,
                             int n_marks, const base_rect *masks, int n_masks,
                             agent_step_record *r, char *err)
{
    if (!t || !img || !img->px || !r)
        return base_errf(err, BASE_EINVAL, "agent_trace_overlay: NULL argument");
    base_err e = BASE_OK;
    if (n_marks > 0) {
        img_som_opts o;
        img_som_opts_init(&o);
        o.fill_alpha = 28;
        /* The tag is the caller's text ("[V3] Cancel order"): a user reading
         * the overlay sees which name to give, not only a number. */
        o.label_fmt = IMG_LABEL_TEXT;
        if ((e = img_som_draw(img, marks, n_marks, &o, err)))
            return e;
    }
    /* Masks go over the marks so nothing drawn later shows through. */
    for (int i = 0; i < n_masks; i++)
        paint_mask(img, masks[i]);
    if (r->snap.found && !base_rect_empty(r->snap.rect) &&
        (e = img_draw_highlight(img, r->snap.rect, 0x00c853ffu, err)))
        return e;
    if (r->hand.n_path > 1 &&
        (e = img_draw_polyline(img, r->hand.path, r->hand.n_path, 2, 0xff6d00ffu, err)))
        return e;
    if ((r->snap.found || r->hand.n_path > 0) &&
        (e = img_draw_crosshair(img, r->pt, 12, r->ok ? 0xd50000ffu : 0xff1744ffu, err)))
        return e;
    char cap[300];
    snprintf(cap, sizeof cap, "step %d/%d - %s - %s", r->index, r->total, r->desc,
             r->ok ? "ok" : r->reason[0] ? r->reason : "failed");
    if ((e = img_draw_caption(img, cap, err)))
        return e;
    uint8_t *png = NULL;
    size_t n = 0;
    if ((e = img_encode_png(img, 1, &png, &n, err)))
        return e;
    char rel[32], path[1024];
    snprintf(rel, sizeof rel, "steps/%03d.png", r->index);
    snprintf(path, sizeof path, "%s/%s", t->dir, rel);
    /* After lost output nothing more is attempted (see write_line). */
    if (base_out_lost_get(NULL, 0)) {
        base_free(png);
        return BASE_OK;
    }
    e = base_write_file(path, png, n, err);
    base_free(png);
    if (e == BASE_EIO) {
        /* Noted once, the run fails with it; the step itself goes on. */
        base_out_lost(path, err && err[0] ? err : "write failed");
        return BASE_OK;
    }
    if (!e)
        snprintf(r->overlay, sizeof r->overlay, "%s", rel);
    return e;
}

void agent_scrub(char *s, size_t cap, const char *const *secrets, int n_secrets)
{
    static const char mask[] = "********";
    if (!s || cap == 0)
        return;
    for (int k = 0; k < n_secrets; k++) {
        const char *sec = secrets[k];
        size_t sl = sec ? strlen(sec) : 0;
        if (sl == 0)
            continue;
        char *p = s;
        char *hit;
        while ((hit = strstr(p, sec)) != NULL) {
            size_t len = strlen(s);
            size_t ml = sizeof mask - 1;
            /* Shift the tail; when the mask is longer than the secret and
             * there is no room, the tail is cut rather than the mask. */
            size_t tail = len - (size_t)(hit - s) - sl;
            size_t room = cap - 1 - (size_t)(hit - s);
            size_t put = ml < room ? ml : room;
            size_t keep = tail < room - put ? tail : room - put;
            memmove(hit + put, hit + sl, keep);
            memcpy(hit, mask, put);
            hit[put + keep] = '\0';
            p = hit + put;
        }
    }
}

base_err agent_trace_line(agent_trace *t, cJSON *line, char *err)
{
    if (!t || !line) {
        cJSON_Delete(line);
        return base_errf(err, BASE_EINVAL, "agent_trace_line: NULL argument");
    }
    return write_line(t, line, base_alloc_thread_failures(), err);
}
