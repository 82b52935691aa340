/* tests/perception/test_vision_openai.c: the `openai` vision provider against a REPLAY
 * server (tests/harness/replay.h). Every answer here is a replay of recorded
 * or scripted responses, not a model: the tests check the client (request
 * shape, box mapping, retries, errors, secrets, tiering, coverage pass,
 * Set-of-Marks anchoring), not anyone's vision.
 *
 * Screenshots are synthetic images here; test_vision_openai_e2e.c does the same
 * with real Chromium captures.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "check.h"
#include "image/image.h"
#include "perception/vision.h"
#include "harness.h"
#include "replay.h"

#define FIX FOVEA_SOURCE_DIR "/tests/fixtures/replay/"
#define KEY "sk-test-9f8e7d6c5b4a3210ZZsecretKEYfovea"

/* A white w x h screenshot at device scale dsf. */
static int white_shot(img_image *img, int w, int h, float dsf)
{
    if (img_alloc(img, w, h) != BASE_OK)
        return 0;
    memset(img->px, 255, (size_t)img->stride * (size_t)h);
    img->scale = dsf;
    return 1;
}

/* A provider on the replay server; short backoff-friendly defaults. */
static perc_vision *provider(replay *r, const char *key, const char *fallback, int retries,
                             int timeout_ms, int width)
{
    perc_openai_config c;
    perc_openai_config_init(&c);
    c.base_url = replay_base_url(r);
    c.api_key = key;
    c.model = "small-vision";
    c.fallback_model = fallback;
    c.max_retries = retries;
    c.timeout_ms = timeout_ms;
    c.model_width = width;
    perc_vision *v = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (perc_vision_openai_create(&c, &v, err) != BASE_OK) {
        fprintf(stderr, "create: %s\n", err);
        return NULL;
    }
    return v;
}

static base_err detect(perc_vision *v, const img_image *shot, const perc_vision_ctx *ctx,
                       perc_detection *d, char *err)
{
    memset(d, 0, sizeof *d);
    return perc_vision_detect(v, NULL, shot, ctx, d, err);
}

/* Queues one scripted reply: push(r, (replay_reply){.content = ...}). */
static void push(replay *r, replay_reply rep)
{
    replay_push(r, &rep);
}

/* One test's replay server, provider (model width 640) and white
 * screenshot (dsf 1). */
typedef struct fx {
    replay *r;
    perc_vision *v;
    img_image shot;
    char err[BASE_ERRBUF_SIZE];
} fx;

static int fx_start(fx *f, const char *fallback, int retries, int timeout_ms, int w, int h)
{
    memset(f, 0, sizeof *f);
    if (replay_start(&f->r, f->err) != BASE_OK)
        return 0;
    f->v = provider(f->r, NULL, fallback, retries, timeout_ms, 640);
    return f->v && white_shot(&f->shot, w, h, 1);
}

static void fx_end(fx *f)
{
    img_fini(&f->shot);
    perc_vision_destroy(f->v);
    replay_destroy(f->r);
    memset(f, 0, sizeof *f);
}

static const char one_box[] =
    "{\"page_type\": \"form\", \"boxes\": [{\"box_2d\": [250, 125, 750, 875], "
    "\"label\": \"Big button\", \"kind\": \"button\", \"intent_relevant\": true}]}";

/* box/1000 * model size / resize scale / dsf is exact at dsf 1 and 2 and
 * after resizing, including an odd size where the resized height rounds. */
static void mapping(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(replay_start(&r, err));
    struct {
        int w, h;
        float dsf;
        int width;
    } cases[] = {{1280, 800, 1, 1280}, {2560, 1600, 2, 1024}, {1280, 800, 1, 640},
                 {1000, 777, 1, 333},  {2000, 1554, 2, 333},  {800, 600, 1, 1600}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        push(r, (replay_reply){.content = one_box});
        perc_vision *v = provider(r, NULL, NULL, 0, 5000, cases[i].width);
        CHECK(v != NULL);
        img_image shot = {0};
        CHECK(white_shot(&shot, cases[i].w, cases[i].h, cases[i].dsf));
        perc_detection d;
        base_err e = detect(v, &shot, NULL, &d, err);
        img_fini(&shot);
        perc_vision_destroy(v);
        CHECK_MSG(e == BASE_OK, "case %zu: %s", i, err);
        CHECK_EQ(d.n, 1);
        double cw = cases[i].w / cases[i].dsf, ch = cases[i].h / cases[i].dsf;
        CHECK_NEAR(d.boxes[0].r.x0, 0.125 * cw, 1e-3);
        CHECK_NEAR(d.boxes[0].r.x1, 0.875 * cw, 1e-3);
        CHECK_NEAR(d.boxes[0].r.y0, 0.25 * ch, 1e-3);
        CHECK_NEAR(d.boxes[0].r.y1, 0.75 * ch, 1e-3);
        CHECK_STR(d.boxes[0].label, "Big button");
        CHECK_STR(d.boxes[0].kind, "button");
        CHECK_EQ(d.boxes[0].intent_relevant, 1);
        CHECK_EQ(d.boxes[0].id, 1);
        CHECK_EQ(d.boxes[0].dom_index, -1);
        CHECK_STR(d.page_type, "form");
        CHECK_STR(d.model, "small-vision");
        CHECK_EQ(d.calls, 1);
        /* The image the server got is the model view: width as configured
         * (never upscaled), aspect kept. */
        replay_seen s;
        CHECK_OK(replay_request(r, (int)i, &s));
        img_image got = {0};
        CHECK_OK(img_decode(s.image, s.image_len, &got, err));
        int want_w = cases[i].width < cases[i].w ? cases[i].width : cases[i].w;
        CHECK_EQ(got.w, want_w);
        CHECK_NEAR(got.h, cases[i].h * (double)want_w / cases[i].w, 0.51);
        CHECK_STR(s.model, "small-vision");
        CHECK_STR(s.auth, "");
        img_fini(&got);
        replay_seen_fini(&s);
        perc_detection_fini(&d);
    }
    replay_destroy(r);
}

/* Recorded responses in the shapes models really answer in. */
static void recorded_shapes(void)
{
    struct {
        const char *file;
        int n;
    } cases[] = {{"blocks_fenced.json", 5},
                 {"blocks_prose.json", 5},
                 {"blocks_truncated.json", 3},
                 {"blocks_bare_array.json", 4}};
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000, 1280, 800));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        CHECK_OK(replay_push_file(f.r, path, NULL, f.err));
        perc_detection d;
        base_err e = detect(f.v, &f.shot, NULL, &d, f.err);
        CHECK_MSG(e == BASE_OK, "%s: %s", cases[i].file, f.err);
        CHECK_MSG(d.n == cases[i].n, "%s: %d boxes", cases[i].file, d.n);
        /* The red block [10, 8, 115, 70] of a 1280x800 page. */
        CHECK_STR(d.boxes[0].label, "Red block");
        CHECK_NEAR(d.boxes[0].r.x0, 8 * 1.28, 1e-3);
        CHECK_NEAR(d.boxes[0].r.y1, 115 * 0.8, 1e-3);
        for (int k = 0; k < d.n; k++) {
            CHECK(d.boxes[k].r.x0 >= 0 && d.boxes[k].r.x1 <= 1280);
            CHECK(d.boxes[k].r.y0 >= 0 && d.boxes[k].r.y1 <= 800);
            CHECK(d.boxes[k].r.x0 < d.boxes[k].r.x1 && d.boxes[k].r.y0 < d.boxes[k].r.y1);
        }
        perc_detection_fini(&d);
    }
    fx_end(&f);
}

/* 429 with Retry-After: 1, then success: the wait is honoured. */
static void retry_429(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 3, 5000, 1280, 800));
    push(f.r, (replay_reply){.status = 429, .retry_after = "1"});
    push(f.r, (replay_reply){.content = one_box});
    perc_detection d;
    double t0 = base_monotime_ms();
    base_err e = detect(f.v, &f.shot, NULL, &d, f.err);
    double ms = base_monotime_ms() - t0;
    CHECK_MSG(e == BASE_OK, "%s", f.err);
    CHECK_EQ(d.n, 1);
    CHECK_EQ(d.calls, 2);
    CHECK_EQ(replay_count(f.r), 2);
    CHECK_MSG(ms >= 990, "Retry-After 1 s not honoured: %.0f ms", ms);
    perc_detection_fini(&d);
    fx_end(&f);
}

/* 500 on every attempt: a clear error naming the status and the body's
 * message, after exactly max_retries + 1 requests. */
static void server_errors(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 2, 5000, 640, 400));
    push(f.r, (replay_reply){.status = 500, .times = 3});
    perc_detection d;
    memset(&d, 0x33, sizeof d);
    CHECK_EQ(perc_vision_detect(f.v, NULL, &f.shot, NULL, &d, f.err), BASE_EREMOTE);
    CHECK_EQ(d.n, 0x33333333); /* untouched on failure */
    CHECK_EQ(replay_count(f.r), 3);
    CHECK_MSG(strstr(f.err, "500 Internal Server Error") && strstr(f.err, "after 3 attempts") &&
                  strstr(f.err, "The server had an error"),
              "err: %s", f.err);
    /* A 400 is not retried. */
    CHECK_EQ(replay_pending(f.r), 0);
    push(f.r, (replay_reply){.status = 400,
                             .body = "{\"error\":{\"message\":\"Invalid model name small-vision\","
                                     "\"type\":\"invalid_request_error\"}}"});
    base_errclear(f.err);
    CHECK_EQ(perc_vision_detect(f.v, NULL, &f.shot, NULL, &d, f.err), BASE_EREMOTE);
    CHECK_EQ(replay_count(f.r), 4);
    CHECK_MSG(strstr(f.err, "400 Bad Request: Invalid model name"), "err: %s", f.err);
    fx_end(&f);
}

/* A slow endpoint: the per-request timeout fires and the error says so. */
static void timeout(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 1, 300, 640, 400));
    push(f.r, (replay_reply){.content = one_box, .delay_ms = 3000, .times = -1});
    perc_detection d;
    double t0 = base_monotime_ms();
    base_err e = detect(f.v, &f.shot, NULL, &d, f.err);
    double ms = base_monotime_ms() - t0;
    CHECK_EQ(e, BASE_ETIMEDOUT);
    CHECK_MSG(strstr(f.err, "timed out after 300 ms") && strstr(f.err, "after 2 attempts"),
              "err: %s", f.err);
    /* Two 300 ms attempts and one backoff (250..500 ms), not the 3 s delay. */
    CHECK_MSG(ms < 2000, "took %.0f ms", ms);
    CHECK_EQ(replay_count(f.r), 2);
    fx_end(&f);
}

/* Garbage bytes, a connection closed mid-body, and a model that answers
 * in prose only: clear errors. */
static void garbage(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 1, 5000, 640, 400));
    push(f.r, (replay_reply){.garbage = 1});
    push(f.r, (replay_reply){.close_mid_body = 1, .times = 2});
    push(f.r, (replay_reply){.content = "I'm sorry, but I can't identify elements in this image."});
    perc_detection d;
    CHECK_EQ(detect(f.v, &f.shot, NULL, &d, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "not JSON"), "err: %s", f.err);
    CHECK_EQ(replay_count(f.r), 1);
    base_errclear(f.err);
    CHECK_EQ(detect(f.v, &f.shot, NULL, &d, f.err), BASE_EIO);
    CHECK_MSG(strstr(f.err, "closed the connection mid-reply") && strstr(f.err, "after 2 attempts"),
              "err: %s", f.err);
    CHECK_EQ(replay_count(f.r), 3);
    base_errclear(f.err);
    CHECK_EQ(detect(f.v, &f.shot, NULL, &d, f.err), BASE_EPROTO);
    CHECK_MSG(strstr(f.err, "no JSON box list") && strstr(f.err, "I'm sorry"), "err: %s", f.err);
    fx_end(&f);
}


typedef struct key_run {
    replay *r;
    const char *key;
    base_err e;
    char err[BASE_ERRBUF_SIZE];
} key_run;

static void run_with_key(void *arg)
{
    key_run *k = arg;
    perc_vision *v = provider(k->r, k->key, NULL, 1, 5000, 640);
    if (!v)
        return;
    img_image shot = {0};
    white_shot(&shot, 640, 400, 1);
    perc_detection d;
    k->e = detect(v, &shot, NULL, &d, k->err);
    if (k->e == BASE_OK)
        perc_detection_fini(&d);
    img_fini(&shot);
    perc_vision_destroy(v);
}

/* True when s holds the key or any 8-character piece of it. */
static int leaks(const char *s, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + 8 <= kl; i++) {
        char piece[9];
        memcpy(piece, key + i, 8);
        piece[8] = '\0';
        if (strstr(s, piece))
            return 1;
    }
    return 0;
}

/* The key goes to the server and nowhere else: not into the error (even
 * when the server echoes it, as a 401 does), nor into traced stderr. */
static void key_never_printed(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(replay_start(&r, err));
    CHECK_OK(replay_require_key(r, "sk-the-right-one"));
    push(r, (replay_reply){.content = one_box});
    key_run k;
    memset(&k, 0, sizeof k);
    k.r = r;
    k.key = KEY;
    char *out = harness_capture_stderr(run_with_key, &k);
    CHECK(out != NULL);
    CHECK_EQ(k.e, BASE_EREMOTE);
    CHECK_MSG(strstr(k.err, "401") && strstr(k.err, "Incorrect API key provided: ***"), "err: %s",
              k.err);
    CHECK_MSG(!leaks(k.err, KEY), "key in error: %s", k.err);
    CHECK_MSG(strstr(out, "fovea[perc]") != NULL, "tracing was not on: %s", out);
    CHECK_MSG(!leaks(out, KEY), "key in stderr: %s", out);
    base_free(out);
    /* The server did receive it, as a bearer token. */
    replay_seen s;
    CHECK_OK(replay_request(r, 0, &s));
    CHECK_STR(s.auth, "Bearer " KEY);
    replay_seen_fini(&s);
    /* With the right key the same request succeeds. */
    memset(&k, 0, sizeof k);
    k.r = r;
    k.key = "sk-the-right-one";
    out = harness_capture_stderr(run_with_key, &k);
    CHECK_MSG(k.e == BASE_OK, "%s", k.err);
    CHECK(out && !leaks(out, "sk-the-right-one"));
    base_free(out);
    replay_destroy(r);
}

/* Once a page is complex for a URL, later passes on it use the fallback
 * model; other URLs and other sessions (providers) start fresh. */
static void tiering(void)
{
    fx f;
    CHECK(fx_start(&f, "large-vision", 0, 5000, 1280, 800));
    static const char *const files[] = {"listing_complex.json", "listing_fallback.json",
                                        "blocks_fenced.json", "blocks_fenced.json"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, FIX "%s", files[i]);
        CHECK_OK(replay_push_file(f.r, path, NULL, f.err));
    }
    perc_vision_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    /* page URL of each pass, the model expected, and whether the provider
     * is replaced by a new one (a new session) first */
    static const struct {
        const char *url;
        const char *model;
        int new_session;
    } passes[] = {{"http://shop.test/list?q=shoes", "small-vision", 0},
                  {"http://shop.test/list?q=shoes#filters", "large-vision", 0},
                  {"http://shop.test/other", "small-vision", 0},
                  {"http://shop.test/list?q=shoes", "small-vision", 1}};
    for (int i = 0; i < 4; i++) {
        if (passes[i].new_session) {
            perc_vision_destroy(f.v);
            f.v = provider(f.r, NULL, "large-vision", 0, 5000, 640);
            CHECK(f.v != NULL);
        }
        ctx.url = passes[i].url;
        perc_detection d;
        CHECK_OK(detect(f.v, &f.shot, &ctx, &d, f.err));
        CHECK_MSG(!strcmp(d.model, passes[i].model), "pass %d: %s", i, d.model);
        CHECK_EQ(d.n, i == 0 ? 12 : i == 1 ? 17 : 5);
        perc_detection_fini(&d);
        replay_seen s;
        CHECK_OK(replay_request(f.r, i, &s));
        CHECK_MSG(!strcmp(s.model, passes[i].model), "request %d used %s", i, s.model);
        replay_seen_fini(&s);
    }
    /* An unusable answer from the small model goes to the fallback at once. */
    push(f.r,
         (replay_reply){.content = "{\"page_type\": \"complex\", \"boxes\": [{\"box_2d\": [1, 2,",
                        .finish_reason = "length"});
    CHECK_OK(replay_push_file(f.r, FIX "listing_fallback.json", NULL, f.err));
    ctx.url = "http://shop.test/dense";
    perc_detection d;
    CHECK_OK(detect(f.v, &f.shot, &ctx, &d, f.err));
    CHECK_STR(d.model, "large-vision");
    CHECK_EQ(d.calls, 2);
    perc_detection_fini(&d);
    fx_end(&f);
}

/* An expected label no box carries triggers one re-ask with cap 60 and the
 * label listed; the answers are merged without duplicates. */
static void coverage(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000, 1280, 800));
    CHECK_OK(replay_push_file(f.r, FIX "coverage_first.json", NULL, f.err));
    CHECK_OK(replay_push_file(f.r, FIX "coverage_second.json", "missed these expected", f.err));
    static const char *const expected[] = {"green BLOCK", "Light block"};
    perc_vision_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.url = "http://x.test/";
    ctx.subgoal = "open the light block";
    ctx.expected = expected;
    ctx.n_expected = 2;
    perc_detection d;
    CHECK_OK(detect(f.v, &f.shot, &ctx, &d, f.err));
    CHECK_EQ(d.calls, 2);
    CHECK_EQ(d.n, 5); /* 4 + the light block; the green one is not doubled */
    CHECK_STR(d.boxes[4].label, "Light block");
    perc_detection_fini(&d);
    replay_seen s;
    CHECK_OK(replay_request(f.r, 0, &s));
    CHECK(strstr(s.prompt, "at most 40 boxes") && strstr(s.prompt, "open the light block"));
    CHECK(!strstr(s.prompt, "missed"));
    replay_seen_fini(&s);
    CHECK_OK(replay_request(f.r, 1, &s));
    CHECK_MSG(strstr(s.prompt, "at most 60 boxes") && strstr(s.prompt, "\"Light block\"") &&
                  !strstr(s.prompt, "green BLOCK"),
              "prompt: %s", s.prompt);
    replay_seen_fini(&s);
    /* Everything expected is there: one call. */
    CHECK_OK(replay_push_file(f.r, FIX "blocks_fenced.json", NULL, f.err));
    CHECK_OK(detect(f.v, &f.shot, &ctx, &d, f.err));
    CHECK_EQ(d.calls, 1);
    perc_detection_fini(&d);
    CHECK_EQ(replay_count(f.r), 3);
    fx_end(&f);
}

/* Number of non-white runs along row y of img between x0 and x1. */
static int runs_on_row(const img_image *img, int y, int x0, int x1)
{
    int runs = 0, in = 0;
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = img->px + (size_t)y * img->stride + (size_t)x * 4;
        int ink = p[0] + p[1] + p[2] < 3 * 200;
        if (ink && !in)
            runs++;
        in = ink;
    }
    return runs;
}

static int ink_pixels(const img_image *img)
{
    int n = 0;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            const uint8_t *p = img->px + (size_t)y * img->stride + (size_t)x * 4;
            n += p[0] + p[1] + p[2] < 3 * 200;
        }
    return n;
}

/* Set-of-Marks anchoring: the previous pass is drawn dashed on the image
 * sent when it is recent and on the same URL, and not otherwise. The test
 * decodes the image the server received. */
static void anchoring(void)
{
    fx f;
    CHECK(fx_start(&f, NULL, 0, 5000, 1280, 800));
    push(f.r, (replay_reply){.content = one_box, .times = -1});
    perc_box prev[1];
    memset(prev, 0, sizeof prev);
    prev[0].r = (base_rect){200, 200, 1000, 600};
    prev[0].id = 7;
    struct {
        double age;
        const char *prev_url;
        int drawn;
    } cases[] = {{500, "http://a.test/p", 1},
                 {500, NULL, 1},
                 {10001, "http://a.test/p", 0},
                 {500, "http://a.test/other", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        perc_vision_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.url = "http://a.test/p";
        ctx.previous = prev;
        ctx.n_previous = 1;
        ctx.previous_age_ms = cases[i].age;
        ctx.previous_url = cases[i].prev_url;
        perc_detection d;
        base_errclear(f.err);
        CHECK_MSG(detect(f.v, &f.shot, &ctx, &d, f.err) == BASE_OK, "%s", f.err);
        perc_detection_fini(&d);
        replay_seen s;
        CHECK_OK(replay_request(f.r, replay_count(f.r) - 1, &s));
        img_image got = {0};
        CHECK_OK(img_decode(s.image, s.image_len, &got, f.err));
        int ink = ink_pixels(&got);
        /* The mark's top edge is at CSS y 200 -> view y 100 (scale 0.5);
         * a dashed outline crosses that row as many short runs. */
        int runs = 0;
        for (int y = 99; y <= 101; y++) {
            int k = runs_on_row(&got, y, 110, 490);
            runs = k > runs ? k : runs;
        }
        if (cases[i].drawn) {
            CHECK_MSG(ink > 500 && runs >= 10, "case %zu: ink %d runs %d", i, ink, runs);
            CHECK(strstr(s.prompt, "Dashed rectangles") != NULL);
        } else {
            CHECK_MSG(ink == 0, "case %zu: %d marked pixels", i, ink);
            CHECK(strstr(s.prompt, "Dashed rectangles") == NULL);
        }
        img_fini(&got);
        replay_seen_fini(&s);
    }
    fx_end(&f);
}

/* The replay server answers malformed requests with 400 like the API. */
static void replay_validates(void)
{
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(replay_start(&r, err));
    CHECK_EQ(replay_load_dir(r, FOVEA_SOURCE_DIR "/tests/fixtures/replay", err), 8);
    CHECK_EQ(replay_pending(r), 8);
    /* A provider pointed at a wrong path gets the API's 404, not retried. */
    perc_openai_config c;
    perc_openai_config_init(&c);
    char url[128];
    snprintf(url, sizeof url, "%s/nope", replay_base_url(r));
    c.base_url = url;
    c.max_retries = 2;
    perc_vision *v = NULL;
    CHECK_OK(perc_vision_openai_create(&c, &v, err));
    img_image shot = {0};
    CHECK(white_shot(&shot, 64, 64, 1));
    perc_detection d;
    CHECK_EQ(detect(v, &shot, NULL, &d, err), BASE_EREMOTE);
    CHECK_MSG(strstr(err, "404") && strstr(err, "Invalid URL"), "err: %s", err);
    CHECK_EQ(replay_count(r), 1);
    CHECK_EQ(replay_pending(r), 8);
    perc_vision_destroy(v);
    /* A password in the URL's userinfo is never shown in an error. */
    snprintf(url, sizeof url, "http://bob:PASSW0RDX@%s/nope", replay_base_url(r) + 7);
    err[0] = '\0';
    CHECK_OK(perc_vision_openai_create(&c, &v, err));
    CHECK_EQ(detect(v, &shot, NULL, &d, err), BASE_EREMOTE);
    CHECK_MSG(!strstr(err, "PASSW0RDX") && strstr(err, "bob:********@"), "err: %s", err);
    img_fini(&shot);
    perc_vision_destroy(v);
    replay_destroy(r);
}

/* Configuration: env names per vision.h, bad values rejected. */
static void config(void)
{
    perc_openai_config c;
    perc_openai_config_init(&c);
    char err[BASE_ERRBUF_SIZE] = "";
    unsetenv("FOVEA_OPENAI_BASE_URL");
    unsetenv("OPENAI_BASE_URL");
    CHECK_EQ(perc_openai_config_from_env(&c, err), BASE_ENOTFOUND);
    CHECK(strstr(err, "FOVEA_OPENAI_BASE_URL") != NULL);
    setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1", 1);
    setenv("OPENAI_API_KEY", "k1", 1);
    setenv("FOVEA_OPENAI_API_KEY", "k2", 1);
    setenv("FOVEA_VISION_MODEL", "m", 1);
    setenv("FOVEA_VISION_FALLBACK_MODEL", "fb", 1);
    setenv("FOVEA_VISION_TIMEOUT_MS", "1234", 1);
    CHECK_OK(perc_openai_config_from_env(&c, err));
    CHECK_STR(c.base_url, "http://127.0.0.1:9/v1");
    CHECK_STR(c.api_key, "k2");
    CHECK_STR(c.model, "m");
    CHECK_STR(c.fallback_model, "fb");
    CHECK_EQ(c.timeout_ms, 1234);
    CHECK_EQ(c.max_boxes, 40);
    setenv("FOVEA_VISION_TIMEOUT_MS", "soon", 1);
    base_errclear(err);
    CHECK_EQ(perc_openai_config_from_env(&c, err), BASE_EINVAL);
    unsetenv("FOVEA_VISION_TIMEOUT_MS");
    perc_vision *v = NULL;
    c.base_url = "ftp://x";
    CHECK_EQ(perc_vision_openai_create(&c, &v, err), BASE_EINVAL);
    c.base_url = "http://127.0.0.1:9/v1";
    c.max_boxes = -1;
    CHECK_EQ(perc_vision_openai_create(&c, &v, err), BASE_EINVAL);
    CHECK(v == NULL);
    /* Nobody listening: a refused connection is a clear error. */
    c.max_boxes = 40;
    c.max_retries = 0;
    c.base_url = NULL;
    char dead[64];
    snprintf(dead, sizeof dead, "http://127.0.0.1:%d/v1", check_closed_port());
    c.base_url = dead;
    CHECK_OK(perc_vision_openai_create(&c, &v, err));
    img_image shot = {0};
    CHECK(white_shot(&shot, 64, 64, 1));
    perc_detection d;
    base_errclear(err);
    CHECK_EQ(detect(v, &shot, NULL, &d, err), BASE_EIO);
    CHECK_MSG(strstr(err, "refused") && !strstr(err, "k2"), "err: %s", err);
    img_fini(&shot);
    perc_vision_destroy(v);
    unsetenv("OPENAI_BASE_URL");
    unsetenv("OPENAI_API_KEY");
    unsetenv("FOVEA_OPENAI_API_KEY");
    unsetenv("FOVEA_VISION_MODEL");
    unsetenv("FOVEA_VISION_FALLBACK_MODEL");
}

static const check_case cases[] = {
    {"mapping", mapping},
    {"recorded_shapes", recorded_shapes},
    {"retry_429", retry_429},
    {"server_errors", server_errors},
    {"timeout", timeout},
    {"garbage", garbage},
    {"key_never_printed", key_never_printed},
    {"tiering", tiering},
    {"coverage", coverage},
    {"anchoring", anchoring},
    {"replay_validates", replay_validates},
    {"config", config},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
