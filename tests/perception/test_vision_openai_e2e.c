/* tests/perception/test_vision_openai_e2e.c: capture -> `openai` provider -> boxes on
 * a fixture page in real Chromium, at device scale 1 and 2.
 *
 * The endpoint is a REPLAY of a recorded response (tests/fixtures/replay/
 * blocks_fenced.json), not a model: the test checks that what a model
 * answers about the picture lands on the right elements of the live page
 * once the provider has mapped it to CSS pixels, whatever the device scale
 * and the resize to the model width. blocks.html places its blocks at fixed
 * CSS coordinates, so the recorded boxes stay valid on any machine.
 */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "base/alloc.h"
#include "check.h"
#include "harness.h"
#include "perception/capture.h"
#include "perception/vision.h"
#include "replay.h"

/* Background colour of the element under CSS point (x, y), as the page
 * reports it ("rgb(255, 0, 0)"). */
static int color_at(cdp_page *p, float x, float y, char *out, size_t n)
{
    char expr[160];
    snprintf(expr, sizeof expr,
             "getComputedStyle(document.elementFromPoint(%.2f, %.2f)).backgroundColor", x, y);
    cJSON *v = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_page_evaluate(p, expr, &v, 10000, err) != BASE_OK || !cJSON_IsString(v)) {
        cJSON_Delete(v);
        return 0;
    }
    snprintf(out, n, "%s", v->valuestring);
    cJSON_Delete(v);
    return 1;
}

static void run(double dsf, int model_width)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    replay *r = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(replay_start(&r, err));
    CHECK_OK(replay_push_file(r, FOVEA_SOURCE_DIR "/tests/fixtures/replay/blocks_fenced.json", NULL,
                              err));
    cdp_page *p = harness_open(1280, 800, dsf, "/blocks.html");
    CHECK(p != NULL);
    img_image shot = {0};
    base_err e = perc_capture(p, NULL, &shot, NULL, err);
    CHECK_MSG(e == BASE_OK, "capture: %s", err);
    CHECK_NEAR(shot.scale, dsf, 1e-6);

    perc_openai_config c;
    perc_openai_config_init(&c);
    c.base_url = replay_base_url(r);
    c.model = "recorded-gpt-4o-mini";
    c.model_width = model_width;
    c.max_retries = 0;
    perc_vision *v = NULL;
    CHECK_OK(perc_vision_openai_create(&c, &v, err));
    char url[128];
    harness_url(0, "/blocks.html", url, sizeof url);
    perc_vision_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.url = url;
    ctx.subgoal = "click the blue block";
    perc_detection d;
    memset(&d, 0, sizeof d);
    e = perc_vision_detect(v, p, &shot, &ctx, &d, err);
    perc_vision_destroy(v);
    img_fini(&shot);
    CHECK_MSG(e == BASE_OK, "detect: %s", err);
    CHECK_EQ(d.n, 5);
    CHECK_EQ(d.calls, 1);
    static const struct {
        const char *label;
        const char *rgb;
    } want[] = {{"Red block", "rgb(255, 0, 0)"},
                {"Green block", "rgb(0, 255, 0)"},
                {"Blue block", "rgb(0, 0, 255)"},
                {"Dark block", "rgb(18, 52, 86)"},
                {"Light block", "rgb(254, 220, 186)"}};
    for (int i = 0; i < d.n; i++) {
        const perc_box *b = &d.boxes[i];
        CHECK_STR(b->label, want[i].label);
        /* The centre and points near each corner of the box hit the block
         * the model named. */
        float cx = (b->r.x0 + b->r.x1) / 2, cy = (b->r.y0 + b->r.y1) / 2;
        float px[5][2] = {{cx, cy},
                          {b->r.x0 + 2, b->r.y0 + 2},
                          {b->r.x1 - 2, b->r.y0 + 2},
                          {b->r.x0 + 2, b->r.y1 - 2},
                          {b->r.x1 - 2, b->r.y1 - 2}};
        for (int k = 0; k < 5; k++) {
            char got[64] = "";
            CHECK(color_at(p, px[k][0], px[k][1], got, sizeof got));
            CHECK_MSG(strcmp(got, want[i].rgb) == 0, "dsf %g: %s point (%.1f, %.1f) is on %s", dsf,
                      b->label, px[k][0], px[k][1], got);
        }
    }
    CHECK_EQ(d.boxes[2].intent_relevant, 1);
    perc_detection_fini(&d);
    /* What the endpoint saw: the model view of the live capture. */
    replay_seen s;
    CHECK_OK(replay_request(r, 0, &s));
    img_image got = {0};
    CHECK_OK(img_decode(s.image, s.image_len, &got, err));
    CHECK_EQ(got.w, model_width < 1280 * dsf ? model_width : (int)(1280 * dsf));
    /* Top-left pixel is the red block. */
    CHECK(got.px[0] > 200 && got.px[1] < 60 && got.px[2] < 60);
    CHECK(strstr(s.prompt, "click the blue block") != NULL);
    img_fini(&got);
    replay_seen_fini(&s);
    cdp_page_close(p);
    replay_destroy(r);
}

static void dsf1(void)
{
    run(1.0, 1024);
}

static void dsf2(void)
{
    run(2.0, 1024);
}

static void dsf2_full_width(void)
{
    run(2.0, 4096);
}

static const check_case cases[] = {
    {"dsf1", dsf1},
    {"dsf2", dsf2},
    {"dsf2_full_width", dsf2_full_width},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
