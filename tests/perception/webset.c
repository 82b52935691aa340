/* tests/perception/webset.c: loading and scoring the pixel web fixture set (see
 * webset.h). The truth is what the page's own DOM says once laid out
 * (tests/fixtures/pages/pixel/web/truth.js), read at run time, so a change
 * to a fixture page cannot leave a stale recorded answer behind. Scoring is
 * plain geometry on the provider's boxes: centre inside a control, IoU, and
 * words of the control's text found in the box's OCR label.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "harness.h"
#include "perception/capture.h"
#include "webset.h"

const char *const pw_set[] = {
    "/pixel/web/datepicker.html", "/pixel/web/links.html",  "/pixel/web/icons.html",
    "/pixel/web/chart.html",      "/pixel/web/footer.html", "/pixel/web/status.html",
    NULL,
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void copy_str(char *dst, size_t n, const cJSON *o, const char *key)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    snprintf(dst, n, "%s", v ? v : "");
}

base_err pw_page_load(cdp_page *p, const char *path, pw_page *pg, char *err)
{
    memset(pg, 0, sizeof *pg);
    snprintf(pg->path, sizeof pg->path, "%s", path);
    char url[256];
    harness_url(0, path, url, sizeof url);
    base_err e = cdp_page_navigate(p, url, 15000, err);
    if (e)
        return e;
    /* truth.js publishes after the fonts load and two frames pass. */
    cJSON *v = NULL;
    for (int i = 0; i < 100; i++) {
        cJSON_Delete(v);
        v = NULL;
        e = cdp_page_evaluate(p,
                              "window.controlsReady ? JSON.stringify({c: window.controls, "
                              "k: window.pixelClass}) : ''",
                              &v, 5000, err);
        if (e)
            return e;
        if (cJSON_IsString(v) && v->valuestring[0])
            break;
        sleep_ms(50);
    }
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        cJSON_Delete(v);
        return base_errf(err, BASE_ETIMEDOUT, "%s: the page published no controls", path);
    }
    cJSON *j = cJSON_Parse(v->valuestring);
    cJSON_Delete(v);
    const cJSON *arr = cJSON_GetObjectItem(j, "c");
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(j);
        return base_errf(err, BASE_EPROTO, "%s: controls are not an array", path);
    }
    copy_str(pg->cls, sizeof pg->cls, j, "k");
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        if (pg->nt >= PW_MAX_TRUTH)
            break;
        pw_truth *t = &pg->t[pg->nt++];
        t->r = (base_rect){(float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "x0")),
                           (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "y0")),
                           (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "x1")),
                           (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "y1"))};
        copy_str(t->name, sizeof t->name, o, "name");
        copy_str(t->text, sizeof t->text, o, "text");
    }
    cJSON_Delete(j);
    return perc_capture(p, NULL, &pg->shot, NULL, err);
}

void pw_page_fini(pw_page *pg)
{
    if (pg)
        img_fini(&pg->shot);
}

int pw_words(const char *s, char w[PW_MAX_WORDS][32])
{
    int n = 0, k = 0;
    for (;; s++) {
        int c = (unsigned char)*s;
        /* Apostrophes (ASCII or U+2019) stay inside a word: "Developer's". */
        if (c == '\'')
            continue;
        if (c == 0xE2 && (unsigned char)s[1] == 0x80 && (unsigned char)s[2] == 0x99) {
            s += 2;
            continue;
        }
        if (c && (isalnum(c) || c >= 0x80)) {
            if (k < 31 && n < PW_MAX_WORDS)
                w[n][k++] = (char)tolower(c);
            continue;
        }
        if (k > 0 && n < PW_MAX_WORDS) {
            w[n][k] = '\0';
            n++;
        }
        k = 0;
        if (!c)
            break;
    }
    return n;
}

/* Rect a lies inside b (with 1 px of slack for rounding). */
static int nested(base_rect a, base_rect b)
{
    return a.x0 >= b.x0 - 1 && a.y0 >= b.y0 - 1 && a.x1 <= b.x1 + 1 && a.y1 <= b.y1 + 1;
}

/* Box r holds the centre of some control other than t (or one nested in
 * or around t). */
static int swallows(const pw_page *pg, base_rect r, int t)
{
    for (int k = 0; k < pg->nt; k++) {
        if (k == t || nested(pg->t[k].r, pg->t[t].r) || nested(pg->t[t].r, pg->t[k].r))
            continue;
        if (base_rect_contains(r, base_rect_center(pg->t[k].r)))
            return 1;
    }
    return 0;
}

/* The first box that hits control t one box per control, or -1. */
static int one_box(const pw_page *pg, const perc_detection *d, int t)
{
    for (int i = 0; i < d->n; i++)
        if (base_rect_contains(pg->t[t].r, base_rect_center(d->boxes[i].r)) &&
            !swallows(pg, d->boxes[i].r, t))
            return i;
    return -1;
}

void pw_score_add(const pw_page *pg, const perc_detection *d, pw_score *s)
{
    s->truth += pg->nt;
    s->boxes += d->n;
    for (int i = 0; i < d->n; i++) {
        int text = strcmp(d->boxes[i].kind, "text") == 0;
        int in = 0;
        for (int k = 0; k < pg->nt && !in; k++)
            in = base_rect_contains(pg->t[k].r, base_rect_center(d->boxes[i].r));
        s->ctl += !text;
        s->prec += in;
        s->ctl_prec += in && !text;
    }
    for (int k = 0; k < pg->nt; k++) {
        int hit = 0, iou = 0;
        for (int i = 0; i < d->n; i++) {
            hit |= base_rect_contains(pg->t[k].r, base_rect_center(d->boxes[i].r));
            iou |= base_rect_iou(pg->t[k].r, d->boxes[i].r) >= 0.5f;
        }
        s->hit += hit;
        s->iou += iou;
        int b = one_box(pg, d, k);
        if (b < 0)
            continue;
        s->hit1++;
        char tw[PW_MAX_WORDS][32], lw[PW_MAX_WORDS][32];
        int nt = pw_words(pg->t[k].text, tw);
        if (nt == 0 || nt > 6)
            continue;
        int nl = pw_words(d->boxes[b].label, lw);
        int all = 1;
        for (int x = 0; x < nt && all; x++) {
            int found = 0;
            for (int y = 0; y < nl && !found; y++)
                found = strcmp(tw[x], lw[y]) == 0;
            all = found;
        }
        s->ocr_n++;
        s->ocr_ok += all;
    }
}

void pw_dump(const pw_page *pg, const perc_detection *d, FILE *f)
{
    fprintf(f, "== %s (%s): %d controls, %d boxes\n", pg->path, pg->cls, pg->nt, d->n);
    for (int k = 0; k < pg->nt; k++) {
        const pw_truth *t = &pg->t[k];
        if (one_box(pg, d, k) >= 0)
            continue;
        int hit = 0;
        for (int i = 0; i < d->n; i++)
            hit |= base_rect_contains(t->r, base_rect_center(d->boxes[i].r));
        fprintf(f, "  MISS %-9s %6.1f %6.1f %6.1f %6.1f '%s'\n", hit ? "(swallow)" : "", t->r.x0,
                t->r.y0, t->r.x1, t->r.y1, t->name);
    }
    for (int i = 0; i < d->n; i++) {
        const perc_box *b = &d->boxes[i];
        int in = 0;
        for (int k = 0; k < pg->nt && !in; k++)
            in = base_rect_contains(pg->t[k].r, base_rect_center(b->r));
        fprintf(f, "  %s %-8s %6.1f %6.1f %6.1f %6.1f '%s'\n", in ? "box " : "BOX-", b->kind,
                b->r.x0, b->r.y0, b->r.x1, b->r.y1, b->label);
    }
}
