/* tests/agent/session/test_report.c: trace.jsonl, step overlays and report.html.
 *
 * A run of three steps (a click, a password typed, a failing click with
 * alternatives) is written through the trace API onto synthetic screenshots;
 * the trace must be one JSON object per line with no password in it, the
 * password field must be painted over in later overlays, and report.html —
 * opened in real headless Chromium — must show the summary table and every
 * step with its overlay decoded, and no password anywhere in the page.
 * An agent run's recorded OUT folder must give a report with the totals
 * per role, the prompt sent per call (tokens sent, reported, prefix share),
 * each step's decisions, tool results and ledger diff, and the
 * final answer with its evidence.
 * An AND/OR planner run's recorded OUT folder (andor_andor_report) must
 * give the tree in depth-first order with its final statuses, the states
 * over time (a timeline cell per node and iteration, and a slider that
 * redraws the tree as it was after any iteration), the operator calls with
 * their tokens and totals per operator, the candidate table with its cells
 * and evidence, the interventions and the answer; a run killed before its
 * end line is drawn from OUT/andor.json.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/session/trace.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/utf8.h"
#include "harness.h"
#include "perception/capture.h"

#define SECRET "s3cret-Pa55"

static const char *out_dir(void)
{
    return FOVEA_BINARY_DIR "/tests/agent/session/out_report";
}

/* A 640x400 "page": light background with a dark band, scale 1. */
static base_err fake_shot(img_image *img)
{
    base_err e = img_alloc(img, 640, 400);
    if (e)
        return e;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            uint8_t *p = img->px + (size_t)y * (size_t)img->stride + (size_t)x * 4;
            uint8_t v = (uint8_t)(y < 60 ? 40 : 235);
            p[0] = v;
            p[1] = (uint8_t)(v + (x & 7));
            p[2] = v;
            p[3] = 255;
        }
    return BASE_OK;
}

static void fill_record(agent_step_record *r, int index, const char *action, const char *desc)
{
    memset(r, 0, sizeof *r);
    r->index = index;
    r->total = 3;
    snprintf(r->action, sizeof r->action, "%s", action);
    snprintf(r->desc, sizeof r->desc, "%s", desc);
    snprintf(r->intent, sizeof r->intent, "any");
    snprintf(r->gate, sizeof r->gate, "declarative");
    snprintf(r->gate_why, sizeof r->gate_why, "first action on this page");
    r->epoch_id = (uint64_t)index;
    r->n_boxes = 2;
    r->attempts = 1;
    r->box_id = 1;
    snprintf(r->box_source, sizeof r->box_source, "label");
    r->box = (base_rect){100, 100, 260, 140};
    r->snap.found = 1;
    r->snap.res.reason = "";
    snprintf(r->phase, sizeof r->phase, "A");
    r->snap.res.score.total = 0.91f;
    r->pt = (base_point){180, 120};
    r->snap.rect = r->box;
    snprintf(r->snap.tag, sizeof r->snap.tag, "button");
    r->hand.n_path = 3;
    r->hand.path[0] = (base_point){10, 300};
    r->hand.path[1] = (base_point){90, 200};
    r->hand.path[2] = r->pt;
    r->ok = 1;
    snprintf(r->reason, sizeof r->reason, "ok");
    r->hand.n_tried = 1;
    r->hand.tried[0] = (cascade_try){1, 1, 12.5, "mutation"};
    snprintf(r->url, sizeof r->url, "http://127.0.0.1/x.html");
    r->total_ms = 120;
    r->ms = (agent_stage_ms){.gate = 10, .capture = 30, .snap = 20, .dispatch = 50, .settle = 10};
}

/* Writes the three-step run; returns 0 on success. */
static void write_run(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    agent_trace_info info = {.task_name = "report test", .task_file = "t.json",
                             .url = "http://127.0.0.1/x.html", .vision = "dom",
                             .browser = "Chrome/test", .width = 640, .height = 400,
                             .scale = 1, .humanize = 1, .seed = 7, .n_steps = 3};
    agent_trace *t = NULL;
    CHECK_MSG(agent_trace_open(out_dir(), &info, &t, err) == BASE_OK, "%s", err);
    const char *secrets[] = {SECRET};
    img_mark marks[2] = {{{100, 100, 260, 140}, 1, "Accept <all>", 0},
                          {{300, 200, 500, 240}, 2, "Password", 0}};
    agent_step_record r;
    img_image img = {0};

    fill_record(&r, 1, "click", "click 'Accept <all>'");
    snprintf(r.box_label, sizeof r.box_label, "Accept <all>");
    snprintf(r.outcome, sizeof r.outcome, "clicked at (180,120): mutation");
    CHECK_OK(fake_shot(&img));
    CHECK_MSG(agent_trace_overlay(t, &img, marks, 2, NULL, 0, &r, err) == BASE_OK, "%s", err);
    img_fini(&img);
    CHECK_STR(r.overlay, "steps/001.png");
    CHECK_OK(agent_trace_step(t, &r, err));

    fill_record(&r, 2, "type", "type 'Password' <- ********");
    snprintf(r.box_label, sizeof r.box_label, "Password");
    /* A page echoing the password must not get it into the trace. */
    snprintf(r.outcome, sizeof r.outcome, "typed 11 characters; page says 'hi " SECRET "'");
    agent_scrub(r.outcome, sizeof r.outcome, secrets, 1);
    CHECK_MSG(strstr(r.outcome, SECRET) == NULL, "%s", r.outcome);
    CHECK_OK(fake_shot(&img));
    CHECK_OK(agent_trace_overlay(t, &img, marks, 2, NULL, 0, &r, err));
    img_fini(&img);
    CHECK_OK(agent_trace_step(t, &r, err));

    fill_record(&r, 3, "click", "click 'Book now'");
    r.ok = 0;
    snprintf(r.reason, sizeof r.reason, "covered");
    snprintf(r.hand.message, sizeof r.hand.message, "'Book now' is covered by div#cookie-banner");
    snprintf(r.outcome, sizeof r.outcome, "covered: 'Book now' is covered by div#cookie-banner");
    r.n_alternatives = 1;
    snprintf(r.alternatives[0], sizeof r.alternatives[0], "close button 'Accept' at (640,700)");
    r.hand.tried[0] = (cascade_try){1, 0, 30, "covered by div#cookie-banner"};
    r.hand.tried[1] = (cascade_try){2, 0, 25, "no effect"};
    r.hand.n_tried = 2;
    r.n_extracted = 2;
    snprintf(r.extracted[0], sizeof r.extracted[0], "TAP $389");
    snprintf(r.extracted[1], sizeof r.extracted[1], "Iberia $429");
    base_rect mask = {300, 200, 500, 240};
    CHECK_OK(fake_shot(&img));
    CHECK_OK(agent_trace_overlay(t, &img, marks, 2, &mask, 1, &r, err));
    /* The masked field is opaque dark whatever was drawn there. */
    const uint8_t *p = img.px + (size_t)220 * (size_t)img.stride + (size_t)310 * 4;
    CHECK_MSG(p[0] == 0x30 && p[1] == 0x30 && p[3] == 0xff, "mask pixel %d,%d,%d", p[0], p[1],
              p[2]);
    img_fini(&img);
    CHECK_OK(agent_trace_step(t, &r, err));
    agent_trace_close(t, 0, 3, 360, "step 3: covered");
    CHECK_MSG(agent_report_write(out_dir(), err) == BASE_OK, "%s", err);
}

static void trace_lines(void)
{
    write_run();
    if (check__failed)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/trace.jsonl", out_dir());
    FILE *f = fopen(path, "r");
    CHECK(f);
    char line[16384];
    int n = 0, steps = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        CHECK_MSG(strstr(line, SECRET) == NULL, "password in trace line %d", n);
        cJSON *j = cJSON_Parse(line);
        CHECK_MSG(j != NULL, "line %d is not JSON", n);
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
        if (type && strcmp(type, "step") == 0) {
            steps++;
            CHECK(cJSON_GetObjectItem(j, "gate") && cJSON_GetObjectItem(j, "ms"));
            CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "ms"), "dispatch"));
        }
        cJSON_Delete(j);
    }
    fclose(f);
    CHECK_EQ(n, 5);
    CHECK_EQ(steps, 3);
    for (int i = 1; i <= 3; i++) {
        snprintf(path, sizeof path, "%s/steps/%03d.png", out_dir(), i);
        CHECK_MSG(access(path, R_OK) == 0, "missing %s", path);
    }
}

static void scrub(void)
{
    const char *sec[] = {"abc", "", "zz"};
    char s[32] = "xabcyabc zz";
    agent_scrub(s, sizeof s, sec, 3);
    CHECK_STR(s, "x********y******** ********");
    char tiny[8] = "abcabc";
    agent_scrub(tiny, sizeof tiny, sec, 1);
    CHECK(strstr(tiny, "abc") == NULL);
    CHECK_EQ(strlen(tiny), 7);
}

static void report_in_browser(void)
{
    HARNESS_OR_SKIP(h);
    write_run();
    if (check__failed)
        return;
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_page *page = harness_open(1100, 900, 1, NULL);
    CHECK(page);
    char url[1200];
    snprintf(url, sizeof url, "file://%s/report.html", out_dir());
    base_err e = cdp_page_navigate(page, url, 20000, err);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *v = NULL;
    e = cdp_page_evaluate(
        page,
        "(() => { const imgs = [...document.querySelectorAll('section.step img')];"
        " return JSON.stringify({"
        " rows: document.querySelectorAll('#summary tbody tr').length,"
        " failRows: document.querySelectorAll('#summary tbody tr.fail').length,"
        " steps: [...document.querySelectorAll('section.step h2')].map(h => h.textContent),"
        " decoded: imgs.filter(i => i.complete && i.naturalWidth === 640).length,"
        " verdict: document.getElementById('verdict').textContent,"
        " reason: (document.querySelector('.reason') || {}).textContent,"
        " alt: document.body.innerText.includes(\"close button 'Accept' at (640,700)\"),"
        " extracted: document.querySelectorAll('ul.extracted li').length,"
        " secret: document.documentElement.outerHTML.includes('" SECRET "'),"
        " agentParts: document.getElementById('agent').childElementCount,"
        " runKeys: Object.keys(JSON.parse(document.getElementById('run-data').textContent))"
        "   .sort().join(','),"
        " label: document.body.innerText.includes(\"'Accept <all>' by label\") }); })()",
        &v, 10000, err);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *r = cJSON_Parse(cJSON_GetStringValue(v));
    cJSON_Delete(v);
    CHECK(r);
    int rows = cJSON_GetObjectItem(r, "rows")->valueint;
    int fails = cJSON_GetObjectItem(r, "failRows")->valueint;
    int decoded = cJSON_GetObjectItem(r, "decoded")->valueint;
    int extracted = cJSON_GetObjectItem(r, "extracted")->valueint;
    int secret = cJSON_IsTrue(cJSON_GetObjectItem(r, "secret"));
    int alt = cJSON_IsTrue(cJSON_GetObjectItem(r, "alt"));
    int label = cJSON_IsTrue(cJSON_GetObjectItem(r, "label"));
    int agent_parts = cJSON_GetObjectItem(r, "agentParts")->valueint;
    char run_keys[200];
    snprintf(run_keys, sizeof run_keys, "%s",
             cJSON_GetStringValue(cJSON_GetObjectItem(r, "runKeys")));
    char verdict[64], reason[200], step3[200];
    snprintf(verdict, sizeof verdict, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")));
    const char *rs = cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason"));
    snprintf(reason, sizeof reason, "%s", rs ? rs : "");
    cJSON *steps = cJSON_GetObjectItem(r, "steps");
    int n_steps = cJSON_GetArraySize(steps);
    snprintf(step3, sizeof step3, "%s",
             n_steps == 3 ? cJSON_GetStringValue(cJSON_GetArrayItem(steps, 2)) : "");
    cJSON_Delete(r);

    /* A screenshot of the report for people to look at. */
    img_image shot = {0};
    e = perc_capture(page, NULL, &shot, NULL, err);
    cdp_page_close(page);
    CHECK_MSG(e == BASE_OK, "%s", err);
    uint8_t *png = NULL;
    size_t n = 0;
    CHECK_OK(img_encode_png(&shot, 1, &png, &n, err));
    char path[1024];
    snprintf(path, sizeof path, "%s/report-screenshot.png", out_dir());
    e = base_write_file(path, png, n, err);
    base_free(png);
    /* The page is not blank: the header text and table differ from the background. */
    int dark = 0;
    for (int y = 0; y < shot.h; y += 4)
        for (int x = 0; x < shot.w; x += 4)
            dark += shot.px[(size_t)y * (size_t)shot.stride + (size_t)x * 4] < 100;
    img_fini(&shot);
    CHECK_OK(e);
    CHECK_MSG(dark > 200, "report screenshot looks blank (%d dark samples)", dark);

    CHECK_EQ(rows, 3);
    CHECK_EQ(fails, 1);
    CHECK_EQ(n_steps, 3);
    CHECK_EQ(decoded, 3);
    CHECK_EQ(extracted, 2);
    CHECK_MSG(!secret, "password in report.html");
    CHECK(alt);
    CHECK(label);
    CHECK_STR(verdict, "failed at step 3");
    /* A scripted run's report keeps its structure: the same run data and
     * no agent part. */
    CHECK_EQ(agent_parts, 0);
    CHECK_STR(run_keys, "end,steps,task");
    CHECK_MSG(strstr(reason, "covered: 'Book now' is covered by div#cookie-banner"), "%s", reason);
    CHECK_MSG(strstr(step3, "Step 3/3: click 'Book now'"), "%s", step3);
}

static void report_errors(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_report_write("/nonexistent/dir", err), BASE_EIO);
    CHECK_MSG(strstr(err, "/nonexistent/dir/trace.jsonl"), "%s", err);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/agent/session/out_bad", FOVEA_BINARY_DIR);
    agent_trace_info info = {.task_name = "bad", .n_steps = 1};
    agent_trace *t = NULL;
    CHECK_OK(agent_trace_open(dir, &info, &t, err));
    agent_trace_close(t, 1, 0, 1, NULL);
    char path[1100];
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    FILE *f = fopen(path, "a");
    CHECK(f);
    fputs("{not json\n", f);
    fclose(f);
    err[0] = '\0';
    CHECK_EQ(agent_report_write(dir, err), BASE_EPROTO);
    CHECK_MSG(strstr(err, "line 3: not a trace record"), "%s", err);
}

/* A page (or endpoint) that sends bytes which are not UTF-8: a lone 0xFF,
 * a cut three-byte sequence, an overlong '/', a UTF-16 surrogate, and a
 * euro sign cut by a fixed-size copy at the end. Every trace line must
 * still parse as JSON and be valid UTF-8, the bad bytes shown as U+FFFD and
 * the good text kept; report.html likewise. */
static void trace_bad_utf8(void)
{
    static const char bad[] = "caf\xc3\xa9 \xff price \xe2\x82 \xc0\xaf \xed\xa0\x80 ok \xe2\x82";
    const char *dir = FOVEA_BINARY_DIR "/tests/agent/session/out_bad_utf8";
    char err[BASE_ERRBUF_SIZE] = "";
    agent_trace_info info = {.task_name = "bad \xff bytes", .task_file = "t.json",
                             .url = "http://127.0.0.1/\xfe.html", .vision = "dom",
                             .browser = "Chrome/test", .width = 640, .height = 400,
                             .scale = 1, .n_steps = 1};
    agent_trace *t = NULL;
    CHECK_MSG(agent_trace_open(dir, &info, &t, err) == BASE_OK, "%s", err);
    agent_step_record r;
    fill_record(&r, 1, "extract", "extract page");
    snprintf(r.box_label, sizeof r.box_label, "%s", bad);
    snprintf(r.outcome, sizeof r.outcome, "%s", bad);
    snprintf(r.url, sizeof r.url, "http://127.0.0.1/%s", bad);
    r.n_extracted = 1;
    snprintf(r.extracted[0], sizeof r.extracted[0], "%s", bad);
    CHECK_OK(agent_trace_step(t, &r, err));
    agent_trace_close(t, 1, 0, 10, bad);
    CHECK_MSG(agent_report_write(dir, err) == BASE_OK, "%s", err);

    char path[1024];
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    uint8_t *d = NULL;
    size_t n = 0;
    CHECK_OK(base_read_file(path, &d, &n, 1u << 20, NULL));
    size_t at = base_utf8_check((const char *)d, n);
    int kept = strstr((const char *)d, "caf\xc3\xa9 \xef\xbf\xbd price") != NULL;
    int lines = 0, good = 1;
    for (char *save = NULL, *line = strtok_r((char *)d, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lines++;
        cJSON *j = cJSON_Parse(line);
        good &= j != NULL;
        cJSON_Delete(j);
    }
    base_free(d);
    CHECK_MSG(at == n, "trace.jsonl: invalid UTF-8 at byte %zu of %zu", at, n);
    CHECK_EQ(lines, 3);
    CHECK_MSG(good, "a trace line is not JSON");
    CHECK_MSG(kept, "the valid text around the bad bytes was not kept");

    snprintf(path, sizeof path, "%s/report.html", dir);
    CHECK_OK(base_read_file(path, &d, &n, 64u << 20, NULL));
    at = base_utf8_check((const char *)d, n);
    base_free(d);
    CHECK_MSG(at == n, "report.html: invalid UTF-8 at byte %zu of %zu", at, n);
}

/* Overlays tag each mark with the text the runner gives ("[V3] Cancel
 * order"), not only its number: the tag is as wide as that text, and the
 * pixels where only the longer tag reaches are painted. */
static void overlay_names(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    agent_trace_info info = {.task_name = "names", .width = 640, .height = 400, .scale = 1,
                             .n_steps = 1};
    agent_trace *t = NULL;
    CHECK_MSG(agent_trace_open(FOVEA_BINARY_DIR "/tests/agent/session/out_names_overlay", &info, &t,
                               err) == BASE_OK,
              "%s", err);
    img_mark mark = {{200, 150, 360, 190}, 3, "[V3] Cancel order", 0};
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 640, 400));
    img.scale = 1;
    memset(img.px, 0xff, (size_t)img.stride * (size_t)img.h);
    agent_step_record r;
    memset(&r, 0, sizeof r);
    r.index = 1;
    r.total = 1;
    base_err e = agent_trace_overlay(t, &img, &mark, 1, NULL, 0, &r, err);
    agent_trace_close(t, 1, 0, 1, "");
    img_som_opts o;
    img_som_opts_init(&o);
    o.scale = 1;
    img_som_label text, vid;
    o.label_fmt = IMG_LABEL_TEXT;
    base_err e1 = img_som_layout(640, 400, &mark, 1, &o, &text, NULL);
    o.label_fmt = IMG_LABEL_VID;
    base_err e2 = img_som_layout(640, 400, &mark, 1, &o, &vid, NULL);
    int painted = 0;
    for (int y = text.y0; !e && y < text.y1; y++) {
        for (int x = vid.x0 + (vid.x1 - vid.x0) + 4; x < text.x1 - 2; x++) {
            const uint8_t *p = img.px + (size_t)y * (size_t)img.stride + (size_t)x * 4;
            painted += p[0] != 0xff || p[1] != 0xff || p[2] != 0xff;
        }
    }
    img_fini(&img);
    CHECK_MSG(e == BASE_OK, "%s", err);
    CHECK_OK(e1);
    CHECK_OK(e2);
    CHECK_MSG(text.x1 - text.x0 > (vid.x1 - vid.x0) + 40, "tag widths %d vs %d",
              text.x1 - text.x0, vid.x1 - vid.x0);
    CHECK_MSG(painted > 50, "only %d pixels of the label text drawn", painted);
}


/* ---- an agent run's report ------------------------------------------------
 *
 * A recorded OUT folder of an agent run (`fovea run "TASK" --url URL`), as
 * agent_loop.c and ledger.c write it: trace.jsonl with one "model" line per
 * model call, steps.jsonl, facts.jsonl (its last line torn, as a killed
 * process leaves it) and ledger.json. The files hold the password already
 * masked, as the run's scrub writes them; the report must show it masked
 * and never the key the run used. */

#define AGENT_KEY "sk-test-DoNotShow-93f1"

static void put(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK_MSG(base_write_file(path, (const uint8_t *)text, strlen(text), NULL) == BASE_OK, "%s",
              path);
}

static const char fx_trace[] =
    "{\"type\":\"task\",\"name\":\"agent\",\"file\":\"(task in words)\","
    "\"url\":\"http://127.0.0.1/shop.html\",\"vision\":\"dom\",\"browser\":\"Chrome/test\","
    "\"viewport\":{\"width\":1280,\"height\":800,\"scale\":1},\"humanize\":false,\"seed\":0,"
    "\"steps\":0}\n"
    "{\"type\":\"model\",\"role\":\"orchestrator\",\"step\":0,\"model\":\"m-orch\","
    "\"prompt_tokens\":300,\"completion_tokens\":10,\"cached_tokens\":0,\"ms\":40,"
    "\"attempts\":1,\"finish_reason\":\"stop\",\"content\":\"act: the page holds the answer\","
    "\"tool_calls\":[]}\n"
    "{\"type\":\"model\",\"role\":\"worker\",\"step\":0,\"model\":\"m-work\","
    "\"prompt_tokens\":4000,\"completion_tokens\":60,\"cached_tokens\":1024,\"ms\":812.5,"
    "\"sent_tokens\":3100,\"reported_tokens\":null,\"prompt_bytes\":12000,"
    "\"prefix_share\":null,"
    "\"attempts\":1,\"finish_reason\":\"tool_calls\","
    "\"reasoning\":\"The sign-in form comes first; type the password.\","
    "\"subgoal\":\"sign in\","
    "\"tool_calls\":[{\"name\":\"type_text\","
    "\"arguments\":\"{\\\"target\\\": \\\"Password\\\", \\\"text\\\": \\\"********\\\"}\"}]}\n"
    "{\"type\":\"model\",\"role\":\"worker\",\"step\":1,\"model\":\"m-work\","
    "\"prompt_tokens\":4200,\"completion_tokens\":70,\"cached_tokens\":3900,\"ms\":640,"
    "\"sent_tokens\":2950,\"reported_tokens\":4200,\"prompt_bytes\":11000,"
    "\"prefix_bytes\":10010,\"prefix_share\":0.91,"
    "\"attempts\":2,\"finish_reason\":\"tool_calls\",\"subgoal\":\"read the price\","
    "\"content\":\"Reading the price <b>now</b>.\","
    "\"tool_calls\":[{\"name\":\"read_text\",\"arguments\":\"{\\\"target\\\": \\\"Total\\\"}\"}]}\n"
    "{\"type\":\"model\",\"role\":\"planner\",\"step\":2,\"model\":\"m-plan\","
    "\"prompt_tokens\":5000,\"completion_tokens\":90,\"cached_tokens\":0,\"ms\":1500,"
    "\"attempts\":1,\"finish_reason\":\"stop\",\"subgoal\":\"read the price\","
    "\"content\":\"{\\\"done\\\": true, \\\"answer\\\": \\\"The total is EUR 42.50, shown in the "
    "cart summary\\\", \\\"plan\\\": [\\\"sign in\\\", \\\"read the price\\\"], "
    "\\\"subgoal\\\": 1}\",\"tool_calls\":[]}\n"
    "{\"type\":\"end\",\"ok\":true,\"failed_step\":0,\"ms\":3300,"
    "\"reason\":\"done by the planner after 2 steps\"}\n";

static const char agent_steps[] =
    "{\"step\":1,\"role\":\"worker\",\"tool\":\"type_text\",\"call_id\":\"c1\","
    "\"args\":\"{\\\"target\\\":\\\"Password\\\",\\\"text\\\":\\\"********\\\"}\",\"ok\":true,"
    "\"delivered\":true,\"reason\":\"ok\",\"summary\":\"typed 8 characters into 'Password'\","
    "\"url\":\"http://127.0.0.1/shop.html\"}\n"
    "{\"step\":1,\"role\":\"worker\",\"tool\":\"click_at\",\"call_id\":\"c2\","
    "\"args\":\"{\\\"target\\\":\\\"Sign in\\\"}\",\"ok\":false,\"delivered\":false,"
    "\"reason\":\"covered\",\"summary\":\"'Sign in' is covered by div#cookie\","
    "\"url\":\"http://127.0.0.1/shop.html\"}\n"
    "{\"step\":2,\"role\":\"worker\",\"tool\":\"read_text\",\"call_id\":\"c3\","
    "\"args\":\"{\\\"target\\\":\\\"Total\\\"}\",\"ok\":true,\"delivered\":true,"
    "\"reason\":\"ok\",\"summary\":\"Total: EUR 42.50\",\"url\":\"http://127.0.0.1/cart.html\"}\n"
    /* The same step again, as a journal appended to twice holds it. */
    "{\"step\":1,\"role\":\"worker\",\"tool\":\"click_at\",\"call_id\":\"c2\","
    "\"args\":\"{\\\"target\\\":\\\"Sign in\\\"}\",\"ok\":false,\"delivered\":false,"
    "\"reason\":\"covered\",\"summary\":\"'Sign in' is covered by div#cookie\","
    "\"url\":\"http://127.0.0.1/shop.html\"}\n";

static const char agent_facts[] =
    "{\"key\":\"cart total\",\"value\":\"EUR 42.50\",\"category\":\"observation\","
    "\"confidence\":0.9,\"source_step\":2,\"ref_step\":2}\n"
    "{\"key\":\"torn";

static const char agent_ledger[] =
    "{\"version\":1,\"goal\":\"What does my cart cost?\",\"plan\":[\"sign in\","
    "\"read the price\"],\"subgoal\":1,\"recent\":[],\"facts\":[],\"dead_ends\":[{\"what\":"
    "\"click 'Sign in'\",\"url\":\"http://127.0.0.1/shop.html\",\"cause\":\"covered\","
    "\"step\":1}],\"checkpoints\":[],\"episodic\":[],\"last_step\":2,\"last_call_id\":\"c3\","
    "\"pending\":null}\n";

static void agent_report_in_browser(void)
{
    HARNESS_OR_SKIP(h);
    const char *dir = FOVEA_BINARY_DIR "/tests/agent/session/out_agent_report";
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(base_mkdirs(dir, 0, err));
    put(dir, "trace.jsonl", fx_trace);
    put(dir, "steps.jsonl", agent_steps);
    put(dir, "facts.jsonl", agent_facts);
    put(dir, "ledger.json", agent_ledger);
    if (check__failed)
        return;
    /* The key is in the environment the report is built in: it must not
     * come out in the page. */
    setenv("FOVEA_LLM_API_KEY", AGENT_KEY, 1);
    base_err e = agent_report_write(dir, err);
    unsetenv("FOVEA_LLM_API_KEY");
    CHECK_MSG(e == BASE_OK, "%s", err);
    cdp_page *page = harness_open(1100, 900, 1, NULL);
    CHECK(page);
    char url[1200];
    snprintf(url, sizeof url, "file://%s/report.html", dir);
    e = cdp_page_navigate(page, url, 20000, err);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *v = NULL;
    e = cdp_page_evaluate(
        page,
        "(() => { const txt = (sel) => { const e = document.querySelector(sel);"
        "   return e ? e.innerText : ''; };"
        " const row = (role) => [...document.querySelectorAll("
        "   '#role-totals tr[data-role=\"' + role + '\"] > *')].map(c => c.textContent).join('|');"
        " return JSON.stringify({"
        " worker: row('worker'), planner: row('planner'), orch: row('orchestrator'),"
        " total: row('total'),"
        " cache: [...document.querySelectorAll('#prompt-cache tbody tr')]"
        "   .map(r => [...r.children].map(c => c.textContent).join('|')).join(';'),"
        " answer: txt('#final-answer'),"
        " evidence: document.querySelectorAll('#final-answer ul.evidence li').length,"
        " s1: txt('#agent-step-1'), s2: txt('#agent-step-2'), s3: txt('#agent-step-3'),"
        " s1dead: [...document.querySelectorAll('#agent-step-1 .ledger-diff li[data-kind=dead]')]"
        "   .length,"
        " s2fact: txt('#agent-step-2 .ledger-diff li[data-kind=fact]'),"
        " s1acts: document.querySelectorAll('#agent-step-1 ul.actions li').length,"
        " s1roles: document.querySelectorAll('#agent-step-1 table.roles tbody tr').length,"
        " bold: document.querySelectorAll('#agent b').length,"
        " key: document.documentElement.outerHTML.includes('" AGENT_KEY "') }); })()",
        &v, 10000, err);
    cdp_page_close(page);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *r = cJSON_Parse(cJSON_GetStringValue(v));
    cJSON_Delete(v);
    CHECK(r);
#define S(k) (cJSON_GetStringValue(cJSON_GetObjectItem(r, k)) ? cJSON_GetStringValue(cJSON_GetObjectItem(r, k)) : "")
    /* Totals per role: calls, tokens in, out, cached, ms. */
    CHECK_MSG(strcmp(S("worker"), "worker|2|8200|130|4924|1453") == 0, "%s", S("worker"));
    CHECK_MSG(strcmp(S("planner"), "planner|1|5000|90|0|1500") == 0, "%s", S("planner"));
    CHECK_MSG(strcmp(S("orch"), "orchestrator|1|300|10|0|40") == 0, "%s", S("orch"));
    CHECK_MSG(strcmp(S("total"), "total|4|13500|230|4924|2993") == 0, "%s", S("total"));
    /* What each Worker call sent (issue 22): step, role, tokens sent,
     * reported ("-" without usage), prefix share ("-" on the first). */
    CHECK_MSG(strcmp(S("cache"), "1|worker|3100|-|-;2|worker|2950|4200|91.0 %") == 0, "%s",
              S("cache"));
    /* The final answer with its evidence. */
    CHECK_MSG(strstr(S("answer"), "done (Planner, after step 2)") &&
                  strstr(S("answer"), "The total is EUR 42.50, shown in the cart summary") &&
                  strstr(S("answer"), "cart total = EUR 42.50"),
              "%s", S("answer"));
    CHECK_EQ(cJSON_GetObjectItem(r, "evidence")->valueint, 1);
    /* Step 1: the decision, its reasoning, the calls and their results
     * (the password masked), the ledger diff, tokens and latency. */
    const char *s1 = S("s1");
    CHECK_MSG(strstr(s1, "type_text({\"target\": \"Password\", \"text\": \"********\"})"), "%s", s1);
    CHECK_MSG(strstr(s1, "The sign-in form comes first; type the password."), "%s", s1);
    CHECK_MSG(strstr(s1, "act: the page holds the answer"), "%s", s1);
    CHECK_MSG(strstr(s1, "typed 8 characters into 'Password'"), "%s", s1);
    CHECK_MSG(strstr(s1, "click_at({\"target\":\"Sign in\"}) \xe2\x86\x92 failed [covered]: "
                         "'Sign in' is covered by div#cookie"),
              "%s", s1);
    CHECK_MSG(strstr(s1, "4000 in / 60 out / 1024 cached tokens, 813 ms; sent ~3100 tokens, - a "
                         "prefix of the previous"),
              "%s", s1);
    CHECK_MSG(strstr(s1, "subgoal: (none) \xe2\x86\x92 sign in"), "%s", s1);
    CHECK_EQ(cJSON_GetObjectItem(r, "s1dead")->valueint, 1);
    CHECK_EQ(cJSON_GetObjectItem(r, "s1acts")->valueint, 2);
    CHECK_EQ(cJSON_GetObjectItem(r, "s1roles")->valueint, 2);
    /* Step 2: a new fact and a subgoal change; text from the model stays text. */
    const char *s2 = S("s2");
    CHECK_MSG(strstr(S("s2fact"), "+ fact cart total = EUR 42.50 (observation, 0.9)"), "%s",
              S("s2fact"));
    CHECK_MSG(strstr(s2, "subgoal: sign in \xe2\x86\x92 read the price"), "%s", s2);
    CHECK_MSG(strstr(s2, "Reading the price <b>now</b>."), "%s", s2);
    CHECK_MSG(strstr(s2, "2 attempts; sent ~2950 tokens, 91.0 % a prefix of the previous"), "%s",
              s2);
    CHECK_EQ(cJSON_GetObjectItem(r, "bold")->valueint, 0);
    /* Step 3: the Planner's decision and the plan it set. */
    const char *s3 = S("s3");
    CHECK_MSG(strstr(s3, "planner (m-plan)") && strstr(s3, "decision: done: The total is") &&
                  strstr(s3, "plan set: sign in \xe2\x86\x92 read the price"),
              "%s", s3);
    CHECK_MSG(!cJSON_IsTrue(cJSON_GetObjectItem(r, "key")), "API key in report.html");
#undef S
    cJSON_Delete(r);
}


/* ---- an AND/OR planner run (--planner andor) ---------------------------- */

#define ANDOR_NODE(id, type, status, desc, parent, children, depth, extra)                          \
    "{\"id\":\"" id "\",\"type\":\"" type "\",\"status\":\"" status "\",\"description\":\"" desc   \
    "\",\"parent\":" parent ",\"children\":[" children "],\"depth\":" #depth extra "}"

static const char andor_tree[] =
    "{\"task\":\"Find a non-stop deal under $400\",\"outcome\":\"success\",\"iterations\":12,"
    "\"nodes\":[" ANDOR_NODE("1", "and", "success", "Find a non-stop deal under $400", "null",
                             "\"1.1\"", 0, "") ","
    ANDOR_NODE("1.1", "or", "success", "Pick a deal that meets every constraint", "\"1\"",
               "\"1.1.1\",\"1.1.2\"", 1, ",\"reasoning\":\"ranked by the candidate table\"") ","
    ANDOR_NODE("1.1.1", "action", "pruned", "Confirm TP 101 is non-stop", "\"1.1\"", "", 2,
               ",\"score\":0.7,\"tool\":\"assert_text\",\"args\":\"{\\\"text\\\":\\\"Non-stop\\\"}\","
               "\"result\":\"'Non-stop' is not on the page\"") ","
    ANDOR_NODE("1.1.2", "action", "success", "Confirm FR 202 is non-stop <b>x</b>", "\"1.1\"",
               "", 2, ",\"score\":0.5,\"tool\":\"assert_text\"") "],"
    "\"stack\":[]}";

static const char andor_cands[] =
    "{\"columns\":[{\"name\":\"non-stop\",\"description\":\"no stops\",\"constraint\":true},"
    "{\"name\":\"price\",\"description\":\"\",\"constraint\":false}],"
    "\"rows\":[{\"name\":\"TP 101\",\"status\":\"rejected\",\"note\":\"1 stop\",\"yes\":0,\"no\":1,"
    "\"first_step\":1,\"cells\":[{\"value\":\"no\",\"evidence\":\"1 stop via Madrid\",\"step\":2},"
    "{\"value\":\"unknown\",\"text\":\"$289\",\"step\":1}]},"
    "{\"name\":\"FR 202\",\"status\":\"candidate\",\"note\":\"\",\"yes\":1,\"no\":0,"
    "\"first_step\":1,\"cells\":[{\"value\":\"yes\",\"evidence\":\"Non-stop, 2h 35m\",\"step\":3},"
    "{\"value\":\"unknown\",\"text\":\"$342\",\"step\":1}]}]}";

#define EV(iter, node, state, ops, changes, extra)                                                 \
    "{\"type\":\"andor_event\",\"iter\":" #iter ",\"node\":\"" node "\",\"state\":\"" state         \
    "\",\"skipped\":false,\"ops\":[" ops "],\"pushed\":1,\"purged\":0,\"changes\":[" changes           \
    "],\"stop\":false,\"tokens\":100,\"ms\":5" extra "}\n"
#define CH(node, from, to) "{\"node\":\"" node "\",\"from\":\"" from "\",\"to\":\"" to "\"}"
#define OP(iter, op, node, in, out, ok)                                                            \
    "{\"type\":\"andor_op\",\"iter\":" #iter ",\"op\":\"" op "\",\"node\":\"" node                 \
    "\",\"model\":\"m-andor\",\"prompt_tokens\":" #in ",\"completion_tokens\":" #out              \
    ",\"cached_tokens\":0,\"estimate\":" #in ",\"attempts\":1,\"ms\":10,\"ok\":" ok "}\n"

static const char andor_trace_head[] =
    "{\"type\":\"task\",\"name\":\"agent\",\"file\":\"(task in words)\","
    "\"url\":\"http://127.0.0.1/deals.html\",\"vision\":\"dom\",\"browser\":\"Chrome/test\","
    "\"viewport\":{\"width\":1280,\"height\":800,\"scale\":1},\"humanize\":false,\"seed\":0,"
    "\"steps\":0}\n"
    OP(-1, "constraints", "", 500, 40, "true")
    OP(0, "expand", "1", 1000, 50, "true")
    EV(0, "1", "entering", "\"expand\"", CH("1", "unvisited", "visited"), "")
    OP(1, "expand", "1.1", 1100, 60, "true")
    EV(1, "1.1", "entering", "\"expand\"", CH("1.1", "unvisited", "visited"), "")
    OP(2, "expand", "1.1.1", 1200, 30, "true")
    EV(2, "1.1.1", "entering", "\"expand\",\"execute\"",
       CH("1.1.1", "unvisited", "visited") "," CH("1.1.1", "visited", "fail"), "")
    EV(3, "1.1.1", "exiting", "", "", "")
    EV(4, "1.1.1", "failed", "", CH("1.1.1", "fail", "pruned"), "")
    EV(5, "1.1", "exiting", "", CH("1.1", "visited", "fail"), "")
    EV(6, "1.1", "failed", "", CH("1.1", "fail", "visited"), "");

static const char andor_trace_tail[] =
    "{\"type\":\"andor_intervene\",\"iter\":7,\"op\":\"inject\",\"node\":\"\",\"ok\":false,"
    "\"error\":\"no node 9.9\",\"line\":\"{\\\"op\\\":\\\"inject\\\",\\\"parent\\\":\\\"9.9\\\"}\"}\n"
    EV(7, "1.1", "entering", "", "", "")
    OP(8, "expand", "1.1.2", 1300, 30, "true")
    OP(8, "summarize", "1.1.2", 900, 80, "false")
    EV(8, "1.1.2", "entering", "\"expand\",\"execute\",\"summarize\"",
       CH("1.1.2", "unvisited", "visited") "," CH("1.1.2", "visited", "success"), "")
    EV(9, "1.1.2", "exiting", "", "", "")
    EV(10, "1.1", "exiting", "", CH("1.1", "visited", "success"), "")
    OP(11, "complete", "1", 800, 20, "true")
    EV(11, "1", "exiting", "\"complete\"", CH("1", "visited", "success"), "");

static void andor_report_in_browser(void)
{
    HARNESS_OR_SKIP(h);
    const char *dir = FOVEA_BINARY_DIR "/tests/agent/session/out_andor_report";
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(base_mkdirs(dir, 0, err));
    base_buf b;
    base_buf_init(&b, 1u << 20);
    CHECK_OK(base_buf_append_str(&b, andor_trace_head));
    CHECK_OK(base_buf_append_str(&b, andor_trace_tail));
    CHECK_OK(base_buf_append_str(&b, "{\"type\":\"end\",\"ok\":true,\"failed_step\":0,\"ms\":900,"
                                     "\"reason\":\"done\",\"andor\":{\"tree\":"));
    CHECK_OK(base_buf_append_str(&b, andor_tree));
    CHECK_OK(base_buf_append_str(&b, ",\"candidates\":"));
    CHECK_OK(base_buf_append_str(&b, andor_cands));
    CHECK_OK(base_buf_append_str(&b, ",\"answer\":\"FR 202 ($342, non-stop)\",\"end\":\"done\"}}\n"));
    CHECK_OK(base_buf_append(&b, "", 1));
    put(dir, "trace.jsonl", (const char *)b.data);
    base_buf_fini(&b);
    if (check__failed)
        return;
    CHECK_OK(agent_report_write(dir, err));
    cdp_page *page = harness_open(1100, 900, 1, NULL);
    CHECK(page);
    char url[1200];
    snprintf(url, sizeof url, "file://%s/report.html", dir);
    base_err e = cdp_page_navigate(page, url, 20000, err);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *v = NULL;
    e = cdp_page_evaluate(
        page,
        "(() => { const txt = (sel) => { const e = document.querySelector(sel);"
        "   return e ? e.innerText : ''; };"
        " const tree = () => [...document.querySelectorAll('#andor-tree li')].map((li) =>"
        "   li.dataset.id + ':' + li.querySelector('.st').dataset.status).join(' ');"
        " const cells = (id) => [...document.querySelectorAll("
        "   '#andor-timeline tr[data-id=\"' + id + '\"] td[data-k]')].map((td) =>"
        "   td.dataset.status + (td.textContent ? '/' + td.textContent : '')).join(' ');"
        " const op = (o) => [...document.querySelectorAll("
        "   '#andor-op-totals tr[data-op=\"' + o + '\"] > *')].map(c => c.textContent).join('|');"
        " const end = tree();"
        " const s = document.getElementById('andor-slider');"
        " s.value = '6'; s.dispatchEvent(new Event('input'));"
        " const mid = tree(); const at = txt('#andor-at');"
        " return JSON.stringify({ end: end, mid: mid, at: at,"
        "  t111: cells('1.1.1'), t112: cells('1.1.2'), t1: cells('1'),"
        "  expand: op('expand'), summarize: op('summarize'), total: op('total'),"
        "  calls: document.querySelectorAll('#andor-ops tbody tr').length,"
        "  failed: txt('#andor-ops tr.fail'),"
        "  cands: [...document.querySelectorAll('#andor-cands tbody tr')].map((tr) =>"
        "   [...tr.children].map((c) => c.innerText.replace(/\\s+/g, ' ')).join('|')),"
        "  tp: document.querySelector('#andor-cands tr[data-name=\"TP 101\"]').className,"
        "  nonstop: document.querySelector('#andor-cands tr[data-name=\"TP 101\"] td[data-col=\"non-stop\"]').className,"
        "  answer: txt('#final-answer'), iv: txt('#andor-interventions'),"
        "  steps: document.querySelectorAll('#andor-events tbody tr').length,"
        "  bold: document.querySelectorAll('#andor b').length,"
        "  desc: txt('#andor-tree li[data-id=\"1.1.2\"]') }); })()",
        &v, 10000, err);
    cdp_page_close(page);
    CHECK_MSG(e == BASE_OK, "%s", err);
    cJSON *r = cJSON_Parse(cJSON_GetStringValue(v));
    cJSON_Delete(v);
    CHECK(r);
#define S(k) (cJSON_GetStringValue(cJSON_GetObjectItem(r, k)) ? cJSON_GetStringValue(cJSON_GetObjectItem(r, k)) : "")
    /* The tree in depth-first order, final statuses. */
    CHECK_MSG(strcmp(S("end"), "1:success 1.1:success 1.1.1:pruned 1.1.2:success") == 0, "%s",
              S("end"));
    /* After iteration 7 (slider at 6): the OR failed its first alternative
     * and is open again; the second alternative exists but is unvisited. */
    CHECK_MSG(strcmp(S("mid"), "1:visited 1.1:visited 1.1.1:pruned 1.1.2:unvisited") == 0, "%s",
              S("mid"));
    CHECK_MSG(strstr(S("at"), "7 of 12") && strstr(S("at"), "popped 1.1 failed"), "%s", S("at"));
    /* Timeline: 1.1.1 is born with its parent's expansion (iteration 2),
     * fails on its entering pop, is pruned on its failed pop. */
    CHECK_MSG(strcmp(S("t111"), "none unvisited fail/E fail/X pruned/F pruned pruned pruned "
                                "pruned pruned pruned pruned") == 0,
              "%s", S("t111"));
    CHECK_MSG(strcmp(S("t112"), "none unvisited unvisited unvisited unvisited unvisited unvisited "
                                "unvisited success/E success/X success success") == 0,
              "%s", S("t112"));
    CHECK_MSG(strcmp(S("t1"), "visited/E visited visited visited visited visited visited visited "
                              "visited visited visited success/X") == 0,
              "%s", S("t1"));
    /* Operator calls: one row each, totals per operator (calls, requests,
     * in, out, cached, estimate, ms). */
    CHECK_EQ(cJSON_GetObjectItem(r, "calls")->valueint, 7);
    CHECK_MSG(strcmp(S("expand"), "expand|4|4|4600|170|0|4600|40") == 0, "%s", S("expand"));
    CHECK_MSG(strcmp(S("summarize"), "summarize|1|1|900|80|0|900|10") == 0, "%s", S("summarize"));
    CHECK_MSG(strcmp(S("total"), "total|7|7|6800|310|0|6800|70") == 0, "%s", S("total"));
    CHECK_MSG(strstr(S("failed"), "summarize") && strstr(S("failed"), "failed"), "%s", S("failed"));
    CHECK_EQ(cJSON_GetObjectItem(r, "steps")->valueint, 12);
    /* The candidate table, best first (FR 202 though TP 101 came first in
     * the table): rows, statuses, cells with evidence. */
    cJSON *c = cJSON_GetObjectItem(r, "cands");
    CHECK_EQ(cJSON_GetArraySize(c), 2);
    const char *r0 = cJSON_GetStringValue(cJSON_GetArrayItem(c, 0));
    const char *r1 = cJSON_GetStringValue(cJSON_GetArrayItem(c, 1));
    CHECK_MSG(r0 && strstr(r0, "FR 202|candidate|1 / 0|yes") && strstr(r0, "Non-stop, 2h 35m") &&
                  strstr(r0, "(step 3)") && strstr(r0, "|$342"),
              "%s", r0 ? r0 : "");
    CHECK_MSG(r1 && strstr(r1, "TP 101 \xe2\x80\x94 1 stop|rejected|0 / 1|no") &&
                  strstr(r1, "1 stop via Madrid"),
              "%s", r1 ? r1 : "");
    CHECK_MSG(strcmp(S("tp"), "rejected") == 0, "%s", S("tp"));
    CHECK_MSG(strcmp(S("nonstop"), "cell-no") == 0, "%s", S("nonstop"));
    CHECK_MSG(strstr(S("answer"), "FR 202 ($342, non-stop)"), "%s", S("answer"));
    CHECK_MSG(strstr(S("iv"), "inject") && strstr(S("iv"), "refused: no node 9.9"), "%s", S("iv"));
    /* Model and page text stays text. */
    CHECK_EQ(cJSON_GetObjectItem(r, "bold")->valueint, 0);
    CHECK_MSG(strstr(S("desc"), "Confirm FR 202 is non-stop <b>x</b>"), "%s", S("desc"));
#undef S
    cJSON_Delete(r);
}

/* A run killed before its end line: the report draws the plan from
 * OUT/andor.json (the last state the run wrote). */
static void andor_report_partial(void)
{
    const char *dir = FOVEA_BINARY_DIR "/tests/agent/session/out_andor_partial";
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(base_mkdirs(dir, 0, err));
    put(dir, "trace.jsonl", andor_trace_head);
    base_buf b;
    base_buf_init(&b, 1u << 20);
    CHECK_OK(base_buf_append_str(&b, "{\"tree\":"));
    CHECK_OK(base_buf_append_str(&b, andor_tree));
    CHECK_OK(base_buf_append_str(&b, ",\"candidates\":"));
    CHECK_OK(base_buf_append_str(&b, andor_cands));
    CHECK_OK(base_buf_append_str(&b, ",\"progress\":\"\",\"notes\":\"\"}"));
    CHECK_OK(base_buf_append(&b, "", 1));
    put(dir, "andor.json", (const char *)b.data);
    base_buf_fini(&b);
    CHECK_OK(agent_report_write(dir, err));
    char path[1200];
    snprintf(path, sizeof path, "%s/report.html", dir);
    uint8_t *html = NULL;
    size_t n = 0;
    CHECK_OK(base_read_file(path, &html, &n, 64u << 20, err));
    /* The state is embedded (its strings as the report's run data). */
    CHECK(html && strstr((char *)html, "\"andor_state\":{\"tree\"") &&
          strstr((char *)html, "1 stop via Madrid"));
    base_free(html);
}

static const check_case cases[] = {
    {"overlay_names", overlay_names},
    {"trace_lines", trace_lines},
    {"trace_bad_utf8", trace_bad_utf8},
    {"scrub", scrub},
    {"report_errors", report_errors},
    {"report_in_browser", report_in_browser},
    {"agent_report_in_browser", agent_report_in_browser},
    {"andor_report_in_browser", andor_report_in_browser},
    {"andor_report_partial", andor_report_partial},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
