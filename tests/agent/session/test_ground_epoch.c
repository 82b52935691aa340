/* tests/agent/session/test_ground_epoch.c: the procedural path inside the
 * runner (agent_run, the library `fovea run` uses) on real Chromium.
 *
 * static_hits: clicks on a page that does not change must, once the gate
 * says procedural, take the epoch's element (phase "P", path "epoch") — not
 * silently fall back to the snapper every time — and every click must land
 * on the element meant (the page's own click log).
 * moved / covered: the page changes between the vision pass and the step in
 * ways the fingerprint does not see (a margin, a transparent veil without
 * text); the step must refuse the epoch's element with that reason (path
 * "fallback", gate_why says "moved" / "covered by div#veil") and the snapper
 * must take over: the moved button is still clicked, the covered link is
 * reported covered and not clicked.
 * check_throws: a page that breaks a DOM API the check uses: the check runs
 * in fovea's isolated world, untouched, and the epoch's element is pressed.
 * snapper_mode: AGENT_PROC_SNAPPER never asks the epoch (the bench's
 * comparison path).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "agent/script/run.h"
#include "agent/script/task.h"
#include "base/clock.h"
#include "check.h"
#include "harness.h"

#define MAX_RECS 16

typedef struct seen {
    agent_step_record r[MAX_RECS];
    int n;
    cdp_page *page;
    /* Run after step `after` (1-based) ends, on the runner's thread: once
     * the vision pass that step scheduled is done, change the page. */
    int after;
    const char *change;
} seen;

static void on_step(const agent_step_record *r, void *user)
{
    seen *s = user;
    if (s->n < MAX_RECS)
        s->r[s->n++] = *r;
    if (s->change && r->index == s->after) {
        /* The prefetch the step scheduled takes a few ms with the dom
         * provider; the change must come after it, as a change the page
         * makes on its own between two steps would. */
        base_sleep_ms(400);
        cJSON *v = NULL;
        if (cdp_page_evaluate(s->page, s->change, &v, 5000, NULL) != BASE_OK)
            fprintf(stderr, "on_step: change failed\n");
        cJSON_Delete(v);
    }
}

static int js_true(cdp_page *p, const char *expr)
{
    cJSON *v = NULL;
    int ok = cdp_page_evaluate(p, expr, &v, 5000, NULL) == BASE_OK && cJSON_IsTrue(v);
    cJSON_Delete(v);
    return ok;
}

/* Runs the task JSON (steps only) on a fresh page.html; fills *s. */
static int run_steps(const char *steps, agent_proc_mode mode, seen *s, agent_run_result *res)
{
    cdp_page *p = harness_open(1000, 700, 1, "/procedural/page.html");
    if (!p)
        return 0;
    s->page = p;
    char json[4096], err[256] = "";
    snprintf(json, sizeof json, "{\"url\": \"/procedural/page.html\", \"steps\": %s}", steps);
    agent_task *t = NULL;
    if (agent_task_parse(json, strlen(json), "test", &t, err)) {
        fprintf(stderr, "task: %s\n", err);
        return 0;
    }
    agent_run_opts o;
    agent_run_opts_init(&o);
    o.out_dir = FOVEA_BINARY_DIR "/tests/agent/session/out_run";
    o.session.humanize = 0;
    o.session.overlays = AGENT_OVERLAYS_NONE;
    o.no_summary = 1;
    o.session.procedural = mode;
    /* Each step waits for the pass the last one scheduled: back to back, a
     * loaded machine can start every step before its pass ends, and then no
     * step gates procedurally at all. */
    o.think_ms = 30000;
    FILE *null = fopen("/dev/null", "w");
    o.session.progress = null;
    o.on_step = on_step;
    o.on_step_user = s;
    base_err e = agent_run(p, t, &o, res, err);
    if (null)
        fclose(null);
    agent_task_free(t);
    if (e)
        fprintf(stderr, "agent_run: %s\n", err);
    return e == BASE_OK;
}

static void static_hits(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    seen s;
    memset(&s, 0, sizeof s);
    agent_run_result res;
    CHECK(run_steps("[{\"action\": \"click\", \"target\": \"Save draft\"},"
                    " {\"action\": \"click\", \"target\": \"Send\"},"
                    " {\"action\": \"click\", \"target\": \"Discard\"},"
                    " {\"action\": \"click\", \"target\": \"Carla Reis\"},"
                    " {\"action\": \"click\", \"target\": \"Attach file\"},"
                    " {\"action\": \"click\", \"target\": \"Send\"}]",
                    AGENT_PROC_EPOCH, &s, &res));
    CHECK_MSG(res.ok, "run failed: %s", res.reason);
    CHECK_EQ(s.n, 6);
    int procedural = 0, epoch = 0;
    for (int i = 0; i < s.n; i++) {
        const agent_step_record *r = &s.r[i];
        if (strcmp(r->gate, "procedural") != 0) {
            CHECK_STR(r->snap_path, "");
            continue;
        }
        procedural++;
        /* Nothing changes on this page: no procedural step may fall back. */
        CHECK_MSG(strcmp(r->snap_path, "epoch") == 0, "step %d: path '%s' (%s)", r->index,
                  r->snap_path, r->gate_why);
        CHECK_STR(r->phase, "P");
        CHECK(strstr(r->gate_why, "epoch element verified") != NULL);
        epoch++;
    }
    CHECK_MSG(epoch > 0, "no procedural step took the epoch's element (%d procedural)",
              procedural);
    /* The shadow button counts twice: the page's capture listener and its own. */
    CHECK(js_true(s.page, "JSON.stringify(window.hits) === JSON.stringify(['save', 'send',"
                          " 'discard', 'Carla Reis', 'attach-btn', 'attach-btn', 'send'])"));
    cdp_page_close(s.page);
}

static void moved(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    seen s;
    memset(&s, 0, sizeof s);
    s.after = 1;
    s.change = "document.getElementById('send').style.marginLeft = '40px'";
    agent_run_result res;
    CHECK(run_steps("[{\"action\": \"click\", \"target\": \"Save draft\"},"
                    " {\"action\": \"click\", \"target\": \"Send\"}]",
                    AGENT_PROC_EPOCH, &s, &res));
    CHECK_MSG(res.ok, "run failed: %s", res.reason);
    CHECK_EQ(s.n, 2);
    const agent_step_record *r = &s.r[1];
    CHECK_MSG(strcmp(r->gate, "procedural") == 0, "step 2 gate %s: %s", r->gate, r->gate_why);
    CHECK_STR(r->snap_path, "fallback");
    CHECK_MSG(strstr(r->gate_why, "moved") != NULL, "gate_why: %s", r->gate_why);
    CHECK(strcmp(r->phase, "P") != 0);
    CHECK(js_true(s.page, "window.hits.at(-1) === 'send'"));
    cdp_page_close(s.page);
}

static void covered(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    seen s;
    memset(&s, 0, sizeof s);
    s.after = 1;
    s.change = "{const d = document.createElement('div'); d.id = 'veil';"
               " document.body.append(d);}";
    agent_run_result res;
    CHECK(run_steps("[{\"action\": \"click\", \"target\": \"Save draft\"},"
                    " {\"action\": \"click\", \"target\": \"Help\", \"timeout_ms\": 1500}]",
                    AGENT_PROC_EPOCH, &s, &res));
    CHECK(!res.ok);
    CHECK_EQ(res.failed_step, 2);
    const agent_step_record *r = &s.r[s.n - 1];
    CHECK_EQ(r->index, 2);
    CHECK_MSG(strcmp(r->gate, "procedural") == 0, "step 2 gate %s: %s", r->gate, r->gate_why);
    CHECK_STR(r->snap_path, "fallback");
    CHECK_MSG(strstr(r->gate_why, "covered by div#veil") != NULL, "gate_why: %s", r->gate_why);
    CHECK_MSG(strcmp(r->reason, "covered") == 0, "reason %s: %s", r->reason, r->outcome);
    CHECK(js_true(s.page, "!window.hits.includes('help')"));
    cdp_page_close(s.page);
}

/* A page that breaks a DOM API the check uses (after the vision pass): the
 * check runs in fovea's isolated world (issue 23), where the page's override
 * does not reach, so the epoch's element is used as if nothing happened. */
static void check_throws(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    seen s;
    memset(&s, 0, sizeof s);
    s.after = 1;
    s.change = "Element.prototype.checkVisibility = function () { throw new Error('nope'); }";
    agent_run_result res;
    CHECK(run_steps("[{\"action\": \"click\", \"target\": \"Save draft\"},"
                    " {\"action\": \"click\", \"target\": \"Send\"}]",
                    AGENT_PROC_EPOCH, &s, &res));
    CHECK_MSG(res.ok, "run failed: %s", res.reason);
    const agent_step_record *r = &s.r[1];
    CHECK_MSG(strcmp(r->gate, "procedural") == 0, "step 2 gate %s: %s", r->gate, r->gate_why);
    CHECK_MSG(strcmp(r->snap_path, "epoch") == 0, "snap path %s: %s", r->snap_path, r->gate_why);
    CHECK(js_true(s.page, "window.hits.at(-1) === 'send'"));
    cdp_page_close(s.page);
}

static void snapper_mode(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    seen s;
    memset(&s, 0, sizeof s);
    agent_run_result res;
    CHECK(run_steps("[{\"action\": \"click\", \"target\": \"Save draft\"},"
                    " {\"action\": \"click\", \"target\": \"Send\"},"
                    " {\"action\": \"click\", \"target\": \"Discard\"}]",
                    AGENT_PROC_SNAPPER, &s, &res));
    CHECK_MSG(res.ok, "run failed: %s", res.reason);
    int procedural = 0;
    for (int i = 0; i < s.n; i++) {
        if (strcmp(s.r[i].gate, "procedural") != 0)
            continue;
        procedural++;
        CHECK_STR(s.r[i].snap_path, "snapper");
        CHECK(strcmp(s.r[i].phase, "P") != 0);
    }
    CHECK(procedural > 0);
    cdp_page_close(s.page);
}

static const check_case cases[] = {
    {"static_hits", static_hits},
    {"moved", moved},
    {"covered", covered},
    {"check_throws", check_throws},
    {"snapper_mode", snapper_mode},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}
