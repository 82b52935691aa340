/* agent/script/run.c: the scripted-task runner — a thin loop over tool_call.
 *
 * Each step of a task is one tool call (agent/session/tool.h): the step's action
 * names the tool, the rest of its object is the arguments (checked against
 * the tool's schema when the task was loaded). The runner adds what only a
 * script has: step numbers and descriptions, retries of attempts that did
 * not reach the page, one progress line per step, the values steps saved,
 * the summary table and the trace's first and last lines. Everything a
 * step does happens in the tool layer (agent/session/tool.c and the tools_*.c).
 *
 * Secrets: the secrets a task names (typed passwords, secret prompt
 * answers) go into the session's set before the first step, so nothing
 * written afterwards can show them.
 */
#include "agent/script/run.h"

#include <string.h>

#include "agent/session/session.h"
#include "agent/session/tool.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/log.h"

void agent_run_opts_init(agent_run_opts *o)
{
    memset(o, 0, sizeof *o);
    fovea_session_opts_init(&o->session);
    o->out_dir = "out/run";
}

static const char *tiers_text(const agent_step_record *r, char *buf, size_t n)
{
    if (r->hand.n_tried == 0)
        return "-";
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->hand.n_tried && i < 3 && k + 4 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", r->hand.tried[i].tier);
    return buf;
}

/* The step's line on stderr, and what it saved or read. */
static void progress(FILE *out, const tool_result *res)
{
    const agent_step_record *r = &res->rec;
    char tiers[16];
    fprintf(out, "step %d/%d %s gate=%s tier=%s %s %.0f ms\n", r->index, r->total, r->desc,
            r->gate[0] ? r->gate : "-", tiers_text(r, tiers, sizeof tiers),
            r->ok                                   ? "ok"
            : strcmp(r->reason, "interrupted") == 0 ? "INTERRUPTED"
                                                    : "FAILED",
            r->total_ms);
    if (r->dialog[0])
        fprintf(out, "  dialog: %s\n", r->dialog);
    if (r->new_tab[0])
        fprintf(out, "  tab: %s\n", r->new_tab);
    /* Extracted and saved values are the point of such steps: shown (they
     * are scrubbed of secrets like everything else). */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(res->data, "value");
    if (r->ok && r->n_extracted > 0) {
        for (int i = 0; i < r->n_extracted; i++)
            fprintf(out, "  = %s\n", r->extracted[i]);
    } else if (r->ok && cJSON_IsString(v)) {
        /* Every line of a value gets the prefix: an unmarked line of page
         * text (a Markdown or dropdown value) would read as fovea's own
         * output, and could pass for a step or a verdict line. */
        const char *p = v->valuestring;
        size_t left = 2000;
        while (left > 0) {
            size_t n = strcspn(p, "\n");
            if (n > left)
                n = left;
            fprintf(out, "  = %.*s\n", (int)n, p);
            left -= n;
            p += n;
            if (*p != '\n' || !*++p)
                break;
        }
        if (*p)
            fprintf(out, "  = ... (%zu more bytes not shown)\n", strlen(p));
    }
    if (!r->ok) {
        fprintf(out, "  reason: %s\n", r->outcome);
        if (r->hand.message[0] && !strstr(r->outcome, r->hand.message))
            fprintf(out, "  cascade: %s\n", r->hand.message);
        for (int i = 0; i < r->hand.n_alternatives && i < 4; i++)
            fprintf(out, "  try: %s\n", r->hand.alternatives[i]);
        for (int i = 0; i < r->n_alternatives; i++)
            fprintf(out, "  try: %s\n", r->alternatives[i]);
    }
    fflush(out);
}

typedef struct runner {
    fovea_session *se;
    const agent_task *task;
    agent_run_opts o;
    agent_step_record *recs; /* the last attempt of each step, for the summary */
    int done;                /* a done step ran: 1 success, -1 gave up */
} runner;

/* One step: attempts until one passes, the retries are spent, or an
 * attempt reached the page (a repeat could submit twice). */
static int run_step(runner *rn, int i, agent_step_record *rec)
{
    fovea_session *se = rn->se;
    const agent_step *s = &rn->task->steps[i];
    tool_result res;
    memset(&res, 0, sizeof res);
    /* Vision passes get as long as the step that uses them waits. */
    int budget = s->timeout_ms;
    if (i + 1 < rn->task->n_steps && rn->task->steps[i + 1].timeout_ms > budget)
        budget = rn->task->steps[i + 1].timeout_ms;
    int ok = 0;
    for (int attempt = 1; attempt <= 1 + s->retries; attempt++) {
        tool_result_fini(&res);
        char desc[200];
        agent_step_describe(s, desc, sizeof desc);
        fovea_step_info st = {i + 1, rn->task->n_steps, attempt, budget,
                              s->action == AGENT_TOOL ? s->tool : agent_action_name(s->action),
                              desc};
        fovea_session_set_step(se, &st);
        ok = tool_call_json(se, s->tool, s->args, &res);
        /* A guard's refusal (blocked) gives the same answer every time, and
         * a pattern that hit its limit hits it again on the same text. */
        if (ok || res.reason == TOOL_BAD_ARGS || res.reason == TOOL_BLOCKED ||
            res.reason == TOOL_PATTERN_LIMIT ||
            attempt == 1 + s->retries || base_interrupted())
            break;
        if (fovea_session_delivered(se)) {
            fprintf(fovea_session_progress(se), "step %d/%d %s: not retried: the action reached the element\n",
                    res.rec.index, res.rec.total, res.rec.desc);
            break;
        }
        if (res.delivered) /* a dialog or a tab it opened, a page gone */
            break;
        fprintf(fovea_session_progress(se), "step %d/%d %s: attempt %d failed (%s), retrying\n", res.rec.index,
                res.rec.total, res.rec.desc, attempt, res.rec.outcome);
        fovea_session_schedule(se, res.rec.desc);
    }
    progress(fovea_session_progress(se), &res);
    /* done ends the task: no later step runs, and "cannot be done" is a
     * failed run (a script checks the exit status). */
    if (ok && s->tool && strcmp(s->tool, "done") == 0)
        rn->done = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(res.data, "success")) ? -1 : 1;
    *rec = res.rec;
    if (rn->o.on_step)
        rn->o.on_step(rec, rn->o.on_step_user);
    tool_result_fini(&res);
    return ok;
}

static void summary(runner *rn, int n)
{
    FILE *f = stdout;
    fprintf(f, "\n %3s  %-44s %-12s %-6s %-5s %-5s %-14s %7s\n", "#", "step", "gate", "box",
            "snap", "tier", "result", "ms");
    double total = 0;
    for (int i = 0; i < n; i++) {
        const agent_step_record *r = &rn->recs[i];
        char box[16] = "-", tiers[16];
        if (r->box_id > 0)
            snprintf(box, sizeof box, "[V%d]", r->box_id);
        fprintf(f, " %3d  %-44.44s %-12s %-6s %-5s %-5s %-14.14s %7.0f\n", r->index, r->desc,
                r->gate[0] ? r->gate : "-", box, r->phase[0] ? r->phase : "-",
                tiers_text(r, tiers, sizeof tiers), r->ok ? "ok" : r->reason, r->total_ms);
        total += r->total_ms;
    }
    fprintf(f, " %3s  %-44s %-12s %-6s %-5s %-5s %-14s %7.0f\n", "", "total", "", "", "", "", "",
            total);
    fflush(f);
}

/* The secrets the task names, known before anything is written. */
static base_err add_task_secrets(fovea_session *se, const agent_task *task, char *err)
{
    for (int i = 0; i < task->n_steps; i++) {
        const agent_step *s = &task->steps[i];
        const char *v = s->action == AGENT_TYPE && s->password     ? s->text
                        : s->action == AGENT_DIALOG && s->password ? s->prompt_text
                                                                   : NULL;
        base_err e = v && v[0] ? agent_secrets_add(fovea_session_secrets(se), v) : BASE_OK;
        if (e)
            return base_errf(err, e, "step %d: cannot hold its secret for masking (%s)", i + 1,
                             base_strerror(e));
    }
    return BASE_OK;
}

/* The loop, once the session and the trace are open. */
static void run_steps(runner *rn, agent_run_result *res, double t0)
{
    const agent_task *task = rn->task;
    int i = 0, ran = 0;
    for (; i < task->n_steps && !base_interrupted(); i++) {
        ran = i + 1;
        if (i > 0 && rn->o.think_ms > 0)
            perc_epoch_release(fovea_session_wait_epoch(rn->se, rn->o.think_ms));
        if (!run_step(rn, i, &rn->recs[i]))
            break;
        res->steps_done++;
        if (rn->done)
            break;
    }
    res->ok = rn->done ? rn->done > 0 : i == task->n_steps;
    res->total_ms = base_monotime_ms() - t0;
    if (!res->ok && base_interrupted()) {
        /* A stop signal: the steps done so far are kept; the end record
         * and the caller's report say it was interrupted. */
        res->interrupted = base_interrupted();
        res->failed_step = i + 1;
        snprintf(res->reason, sizeof res->reason, "interrupted by %s after %d/%d steps",
                 base_signal_name(res->interrupted), res->steps_done, task->n_steps);
    } else if (!res->ok) {
        res->failed_step = i + 1;
        snprintf(res->reason, sizeof res->reason, "step %d: %.236s", i + 1, rn->recs[i].outcome);
    }
    cdp_page *pg = fovea_session_page(rn->se);
    if (pg && cdp_page_dialog_pending_plan(pg))
        fprintf(fovea_session_progress(rn->se), "note: no dialog opened after the last dialog step\n");
    if (!rn->o.no_summary)
        summary(rn, ran);
}

base_err agent_run(cdp_page *page, const agent_task *task, const agent_run_opts *o,
                   agent_run_result *res, char *err)
{
    memset(res, 0, sizeof *res);
    if (!page || !task || !res)
        return base_errf(err, BASE_EINVAL, "agent_run: NULL argument");
    runner rn;
    memset(&rn, 0, sizeof rn);
    rn.task = task;
    if (o)
        rn.o = *o;
    else
        agent_run_opts_init(&rn.o);
    if (!rn.o.out_dir)
        rn.o.out_dir = "out/run";
    if (!rn.o.session.vision)
        rn.o.session.vision = "dom";
    double t0 = base_monotime_ms();
    fovea_session_opts so = rn.o.session;
    so.first_subgoal = task->name;
    so.first_pass_ms = task->n_steps > 0 ? task->steps[0].timeout_ms : 0;
    /* The steps come from a task file the operator wrote: its upload paths
     * are taken as given (agent/session/permit.h). */
    so.script_paths = 1;
    base_err e = fovea_session_create(page, &so, &rn.se, err);
    if (!e)
        e = add_task_secrets(rn.se, task, err);
    /* The start page got the task's init script before it loaded (the
     * caller's job: cli_browser_opts.init_script); tabs opened later get it
     * from the session. */
    if (!e && task->init_script)
        e = fovea_session_add_init_script(rn.se, task->init_script, 0, err);
    if (!e) {
        rn.recs = base_calloc((size_t)(task->n_steps > 0 ? task->n_steps : 1), sizeof *rn.recs);
        if (!rn.recs)
            e = base_errf(err, BASE_ENOMEM, "out of memory");
    }
    agent_trace *tr = NULL;
    if (!e) {
        char url[1024];
        fovea_session_page_url(rn.se, url, sizeof url);
        agent_trace_info info = {task->name, rn.o.task_file, url, rn.o.session.vision, rn.o.browser,
                                 task->width, task->height, task->scale, rn.o.session.humanize,
                                 rn.o.session.seed, task->n_steps};
        e = agent_trace_open(rn.o.out_dir, &info, &tr, err);
    }
    if (!e) {
        fovea_session_set_trace(rn.se, tr);
        run_steps(&rn, res, t0);
        fovea_session_set_trace(rn.se, NULL);
        if (res->interrupted)
            agent_trace_close_interrupted(tr, res->failed_step, res->total_ms, res->reason,
                                          base_signal_name(res->interrupted));
        else
            agent_trace_close(tr, res->ok, res->failed_step, res->total_ms, res->reason);
    }
    fovea_session_destroy(rn.se);
    base_free(rn.recs);
    return e;
}
