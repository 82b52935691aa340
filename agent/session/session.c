/* agent/session/session.c: a session's life (create, tabs it moves to, destroy)
 * and the helpers every tool shares: scheduling vision passes, settling
 * after a page-changing action, failure lines, page URL, secrets masks and
 * the overlay (agent/session/session_int.h). */
#include "agent/session/tool.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/agent_int.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/log.h"
#include "base/base64.h"
#include "perception/capture.h"
#include "image/som.h"
#include "perception/fingerprint.h"

/* ---- small helpers --------------------------------------------------------- */

void agent__copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

void agent_progressf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fflush(f);
}

/* Schedules a vision pass that must end by deadline_ms (base_monotime_ms;
 * 0 = none): a network provider gives up then instead of holding the run. */
void agent__schedule_until(fovea_session *se, const char *subgoal, double deadline_ms)
{
    perc_vision_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.subgoal = subgoal;
    ctx.deadline_ms = deadline_ms;
    se->ticket = perc_prefetch_schedule(se->pf, &ctx);
}

/* A pass for the step to come: it may take as long as that step will wait
 * for it (pass_budget_ms: the longer of this step's and the next one's
 * timeout, counted from now, a lower bound of that step's deadline). */
void fovea_session_schedule(fovea_session *se, const char *subgoal)
{
    agent__schedule_until(se, subgoal, se->pass_budget_ms > 0 ? base_monotime_ms() + se->pass_budget_ms : 0);
}

void fovea_session_page_url(fovea_session *se, char *buf, size_t n)
{
    cJSON *v = NULL;
    buf[0] = '\0';
    if (cdp_page_evaluate(se->page, "location.href", &v, 3000, NULL) == BASE_OK &&
        cJSON_IsString(v))
        agent_secrets_scrub_copy(se->sec, buf, n, v->valuestring); /* masked before the cut */
    cJSON_Delete(v);
}

/* "[V3] label" of b with secrets masked in the whole label before
 * agent__mark_name cuts it to 40 bytes. */
void agent__mark_name_masked(fovea_session *se, const perc_box *b, char *out, size_t n)
{
    perc_box m = *b;
    agent_secrets_scrub_copy(se->sec, m.label, sizeof m.label, b->label);
    agent__mark_name(&m, out, n);
    agent_secrets_scrub(se->sec, out, n);
}

/* Records where the page now (the page epoch ep's screenshot shows) has
 * secrets: the fields typed into on this URL and the text that shows one. */
void agent__shot_masks(fovea_session *se, const perc_epoch *ep)
{
    if (!ep || se->shot_ep == ep || se->o.overlays == AGENT_OVERLAYS_NONE ||
        agent_secrets_count(se->sec) == 0)
        return;
    se->shot_ep = ep;
    fovea_session_page_url(se, se->shot_url, sizeof se->shot_url);
    int n = 0;
    for (int i = 0; strcmp(se->shot_url, se->mask_url) == 0 && i < se->n_masks; i++)
        se->shot_masks[n++] = se->masks[i];
    int k = agent__secret_rects(se->page, se->sec, se->shot_masks + n, 64);
    se->n_shot_masks = k < 0 ? -1 : n + k;
}

/* Sets the failure of r: reason code name and a one-line outcome. */
__attribute__((format(printf, 3, 4))) void agent__failf(agent_step_record *r, const char *reason,
                                                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->outcome, sizeof r->outcome, fmt, ap);
    va_end(ap);
    r->ok = 0;
    if (!r->reason[0] || strcmp(r->reason, "ok") == 0)
        agent__copy(r->reason, sizeof r->reason, reason);
}

/* 0 once the page crashed, was closed or stopped answering: loops that poll
 * it stop at once (run_step then names the cause). */
int agent__page_ok(fovea_session *se)
{
    return cdp_page_status(se->page, NULL, 0) == BASE_OK;
}

/* A stop signal (Ctrl-C, SIGTERM, ...) arrived: marks r as interrupted
 * and returns 1. The runner asks between steps, attempts and inside its
 * waits; a step in flight is abandoned, never retried. */
int agent__stopped(agent_step_record *r)
{
    int sig = base_interrupted();
    if (!sig)
        return 0;
    if (strcmp(r->reason, "interrupted") != 0) {
        r->reason[0] = '\0';
        agent__failf(r, "interrupted", "interrupted by %s", base_signal_name(sig));
    }
    return 1;
}

/* perc_prefetch_wait in slices, so a stop signal is seen within ~50 ms. */
perc_epoch *fovea_session_wait_epoch(fovea_session *se, int timeout_ms)
{
    double end = base_monotime_ms() + timeout_ms;
    for (;;) {
        double left = end - base_monotime_ms();
        int slice = left > 50 ? 50 : (int)left + 1;
        perc_epoch *e = perc_prefetch_wait(se->pf, se->ticket, slice);
        if (e || left <= 50 || base_interrupted())
            return e;
    }
}

/* ---- the page's screenshot for a model ----------------------------------- */

/* Encodes img as a JPEG data: URL (base_free), or NULL. */
static char *jpeg_url(const img_image *img)
{
    uint8_t *jpg = NULL;
    size_t n = 0;
    char err[BASE_ERRBUF_SIZE];
    if (img_encode_jpeg(img, 75, &jpg, &n, err) != BASE_OK)
        return NULL;
    static const char prefix[] = "data:image/jpeg;base64,";
    char *u = base_malloc(sizeof prefix + base64_encoded_len(n));
    if (u) {
        memcpy(u, prefix, sizeof prefix - 1);
        base64_encode(jpg, n, u + sizeof prefix - 1);
    }
    base_free(jpg);
    return u;
}

/* The screenshot a model sees (session_int.h). */
char *fovea_session_shot_data_url(fovea_session *s)
{
    if (agent_secrets_count(s->sec) > 0)
        return NULL;
    char err[BASE_ERRBUF_SIZE];
    fovea_session_schedule(s, "observation");
    perc_epoch *ep = fovea_session_wait_epoch(s, 5000);
    img_image img = {0};
    base_err e = ep && ep->shot.px ? img_alloc(&img, ep->shot.w, ep->shot.h) : BASE_ENOTFOUND;
    for (int y = 0; !e && y < img.h; y++)
        memcpy(img.px + (size_t)y * (size_t)img.stride,
               ep->shot.px + (size_t)y * (size_t)ep->shot.stride, (size_t)img.w * 4);
    if (!e) {
        img.scale = ep->shot.scale > 0 ? ep->shot.scale : 1.0f;
        img_mark *marks = ep->n > 0 ? base_calloc((size_t)ep->n, sizeof *marks) : NULL;
        int n = 0;
        for (int i = 0; marks && i < ep->n; i++)
            marks[n++] = (img_mark){ep->boxes[i].r, ep->boxes[i].id, NULL, 0};
        if (n > 0 && img_som_draw(&img, marks, n, NULL, err) != BASE_OK)
            fprintf(stderr, "fovea[agent] warn: marks not drawn: %s\n", err);
        base_free(marks);
    } else {
        /* No epoch in time: a plain capture, still better than none. */
        e = perc_capture(fovea_session_page(s), NULL, &img, NULL, err);
    }
    perc_epoch_release(ep);
    char *u = e ? NULL : jpeg_url(&img);
    img_fini(&img);
    return u;
}

/* ---- settling after an action (cascade_settle_*) -------------------------- */

void agent__watch_begin(fovea_session *se, agent__settle *w)
{
    cascade_settle_begin(se->page, se->main_frame, w);
}

void agent__watch_end(fovea_session *se, agent__settle *w, agent_step_record *r, const char *subgoal)
{
    double t0 = base_monotime_ms();
    if (cascade_settle_end(se->page, w) < 0 && !base_interrupted())
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "step %d: page did not finish loading", r->index);
    fovea_session_schedule(se, subgoal);
    r->ms.settle += base_monotime_ms() - t0;
}

void agent__add_mask(fovea_session *se, base_rect r)
{
    char url[1024];
    fovea_session_page_url(se, url, sizeof url);
    if (strcmp(url, se->mask_url) != 0) {
        se->n_masks = 0;
        agent__copy(se->mask_url, sizeof se->mask_url, url);
    }
    if (se->n_masks < AGENT__MAX_MASKS)
        se->masks[se->n_masks++] = r;
}

/* Moves the run to tab target_id (a popup the step opened): the hand, the
 * prefetcher and the fingerprint observer move with it; the tab stays open
 * until the run ends. Returns 1 on success; else r->new_tab says why. */
int agent__follow_tab(fovea_session *se, const char *target_id, agent_step_record *r)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (se->n_tabs >= (int)(sizeof se->tabs / sizeof se->tabs[0])) {
        snprintf(r->new_tab, sizeof r->new_tab, "not followed: too many tabs opened");
        return 0;
    }
    cdp_page *np = NULL;
    base_err e = cdp_page_open_popup(cdp_page_browser(se->page), target_id,
                                     cdp_page_viewport(se->page), &np, err);
    /* A popup is often still loading: wait for it, up to 5 s in all (a tab
     * that does not answer is followed anyway; its first step will say). */
    double until = base_monotime_ms() + 5000;
    while (!e && base_monotime_ms() < until) {
        cJSON *v = NULL;
        base_err ve = cdp_page_evaluate(np, "document.readyState", &v, 1000, NULL);
        int done = ve == BASE_OK && cJSON_IsString(v) && strcmp(v->valuestring, "complete") == 0;
        cJSON_Delete(v);
        if (done || ve == BASE_ETIMEDOUT || ve == BASE_ECLOSED)
            break;
        base_sleep_ms(50);
    }
    if (!e)
        e = perc_fingerprint_install(np, err);
    if (!e)
        e = agent__move_to(se, np, err);
    if (e) {
        cdp_page_close(np);
        snprintf(r->new_tab, sizeof r->new_tab, "not followed: %.140s", err);
        return 0;
    }
    se->tabs[se->n_tabs++] = np;
    agent__nav_tab_added(se, np);
    char url[400];
    fovea_session_page_url(se, url, sizeof url);
    snprintf(r->new_tab, sizeof r->new_tab, "followed the new tab %.130s", url);
    fovea_session_schedule(se, r->desc);
    return 1;
}

/* The followed tab closed itself (a sign-in or payment popup that closes
 * once done): the run goes back to the newest tab still open before it,
 * or the page it started on. Returns 1 when it moved; r->new_tab says
 * where (or why not). */
int agent__back_to_opener(fovea_session *se, agent_step_record *r)
{
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_page *to = se->home;
    for (int t = se->n_tabs - 1; t >= 0; t--) {
        if (se->tabs[t] != se->page && cdp_page_status(se->tabs[t], NULL, 0) == BASE_OK) {
            to = se->tabs[t];
            break;
        }
    }
    if (to == se->page || cdp_page_status(to, NULL, 0) != BASE_OK ||
        agent__move_to(se, to, err) != BASE_OK) {
        snprintf(r->new_tab, sizeof r->new_tab, "the tab closed; no opener to go back to%s%.100s",
                 err[0] ? ": " : "", err);
        return 0;
    }
    /* Dialogs and popups already reported on the opener stay reported. */
    se->dialogs_seen = cdp_page_dialog_count(to);
    se->popups_seen = cdp_page_popup_count(to);
    char url[400];
    fovea_session_page_url(se, url, sizeof url);
    snprintf(r->new_tab, sizeof r->new_tab, "the tab closed itself; back on %.100s", url);
    fovea_session_schedule(se, r->desc);
    return 1;
}

/* Moves the hand, the prefetcher and the fingerprint observer's state to
 * np (a page with the fingerprint observer installed). On failure nothing
 * changes. */
base_err agent__move_to(fovea_session *se, cdp_page *np, char *err)
{
    perc_prefetch *pf = NULL;
    cascade_hand *hand = NULL;
    perc_prefetch_opts po = {0, se->o.overlays != AGENT_OVERLAYS_NONE};
    base_err e = perc_prefetch_create(np, se->vision, &po, &pf, err);
    cascade_opts co;
    cascade_opts_init(&co);
    co.humanize = se->o.humanize;
    co.seed = se->o.seed;
    co.allow_untrusted = se->o.allow_untrusted;
    co.learnings_path = se->o.learnings;
    if (!e)
        e = cascade_hand_create(np, &co, &hand, err);
    if (e) {
        perc_prefetch_destroy(pf);
        return e;
    }
    cascade_hand_destroy(se->hand);
    perc_prefetch_destroy(se->pf);
    se->hand = hand;
    se->pf = pf;
    se->page = np;
    se->ticket = 0;
    se->last_epoch = 0;
    se->n_masks = 0;
    /* A page new to the session: what it showed before is news too (a
     * popup's alert while it loaded). Callers moving BACK to a page the
     * session knew set these to its counts (back_to_opener, switch_tab). */
    se->dialogs_seen = 0;
    se->popups_seen = 0;
    cdp_frame main;
    if (cdp_page_frames(np, &main, 1) > 0)
        agent__copy(se->main_frame, sizeof se->main_frame, main.id);
    return BASE_OK;
}
/* ---- the step loop ----------------------------------------------------------------- */

/* Every string of a record goes through the run's secrets before any sink
 * (trace, overlay caption, progress, summary, on_step) sees it. */
void agent__scrub_record(fovea_session *se, agent_step_record *r)
{
    perc_snap *sn = &r->snap;
    cascade_result *h = &r->hand;
    char *fields[] = {r->outcome,      h->message,       sn->text,     sn->name,
                      sn->covering,    r->box_label,     r->url,
                      r->desc,         r->gate_why,      r->target_label, r->dialog,
                      r->new_tab,      h->dialog_message};
    size_t caps[] = {sizeof r->outcome,   sizeof h->message,        sizeof sn->text,
                     sizeof sn->name,     sizeof sn->covering,
                     sizeof r->box_label, sizeof r->url,            sizeof r->desc,
                     sizeof r->gate_why,  sizeof r->target_label,   sizeof r->dialog,
                     sizeof r->new_tab,   sizeof h->dialog_message};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        agent_secrets_scrub(se->sec, fields[i], caps[i]);
    /* The controls of an ambiguous answer are named by the page. */
    for (int k = 0; k < sn->n_alt && k < SNAP_MAX_ALT; k++)
        agent_secrets_scrub(se->sec, sn->alt[k].name, sizeof sn->alt[k].name);
    for (int i = 0; i < r->n_alternatives; i++)
        agent_secrets_scrub(se->sec, r->alternatives[i], sizeof r->alternatives[i]);
    for (int i = 0; i < r->n_extracted; i++)
        agent_secrets_scrub(se->sec, r->extracted[i], sizeof r->extracted[i]);
    for (int i = 0; i < r->n_marks; i++)
        agent_secrets_scrub(se->sec, r->marks[i], sizeof r->marks[i]);
    for (int i = 0; i < h->n_alternatives && i < 4; i++)
        agent_secrets_scrub(se->sec, h->alternatives[i], sizeof h->alternatives[i]);
    for (int i = 0; i < h->n_tried && i < 3; i++)
        agent_secrets_scrub(se->sec, h->tried[i].outcome, sizeof h->tried[i].outcome);
}

/* The overlay: the epoch's screenshot when the step used one, else a fresh capture. */
void agent__write_overlay(fovea_session *se, agent_step_record *r, const agent__grounded *g)
{
    if (se->o.overlays == AGENT_OVERLAYS_NONE ||
        (se->o.overlays == AGENT_OVERLAYS_FAILURES && r->ok))
        return;
    /* After a stop signal the run has about a second to finish: the step
     * in flight is abandoned, and its overlay (a screenshot and a probe of a
     * page that may be frozen, 10 s each) is not drawn. */
    if (base_interrupted())
        return;
    double t0 = base_monotime_ms();
    char err[BASE_ERRBUF_SIZE] = "";
    img_image img = {0};
    const perc_epoch *ep = g->epoch;
    base_err e = BASE_OK;
    if (ep && ep->shot.px) {
        e = img_alloc(&img, ep->shot.w, ep->shot.h);
        for (int y = 0; !e && y < img.h; y++)
            memcpy(img.px + (size_t)y * (size_t)img.stride,
                   ep->shot.px + (size_t)y * (size_t)ep->shot.stride, (size_t)img.w * 4);
        img.scale = ep->shot.scale > 0 ? ep->shot.scale : 1.0f;
    } else {
        e = perc_capture(se->page, NULL, &img, NULL, err);
    }
    img_mark *marks = NULL;
    char(*labels)[PERC_LABEL_MAX] = NULL;
    int n = 0;
    if (!e && ep && ep->n > 0 && (marks = base_calloc((size_t)ep->n, sizeof *marks)) &&
        (labels = base_calloc((size_t)ep->n, sizeof *labels))) {
        /* Each mark is tagged "[Vn] label" (scrubbed: it is drawn). */
        for (int i = 0; i < ep->n; i++) {
            agent__mark_name_masked(se, &ep->boxes[i], labels[i], sizeof labels[i]);
            marks[n++] = (img_mark){ep->boxes[i].r, ep->boxes[i].id, labels[i], 0};
        }
    }
    /* r->url was read right after the step (run_step). Secret fields, and
     * wherever the page shows a secret as text, are painted over. */
    /* A pre-action screenshot gets the masks found when the step agent__grounded
     * on it; those found now only while the page is still on that URL
     * (after a navigation they would land in the wrong places). */
    base_rect all[2 * (AGENT__MAX_MASKS + 64)];
    int masks = 0, blind = 0;
    int from_shot = !e && ep && ep->shot.px && se->shot_ep == ep;
    if (from_shot) {
        for (int i = 0; i < se->n_shot_masks; i++)
            all[masks++] = se->shot_masks[i];
        blind = se->n_shot_masks < 0;
    }
    if (!e && (!from_shot || strcmp(r->url, se->shot_url) == 0)) {
        for (int i = 0; strcmp(r->url, se->mask_url) == 0 && i < se->n_masks; i++)
            all[masks++] = se->masks[i];
        int k = agent__secret_rects(se->page, se->sec, all + masks, 64);
        blind |= k < 0;
        masks += k > 0 ? k : 0;
    }
    r->n_masked = masks;
    /* Where the secrets are could not be asked: no picture rather than
     * one that may show them. */
    if (!e && blind && agent_secrets_count(se->sec) > 0)
        e = base_errf(err, BASE_EREMOTE, "could not find where the page shows secrets");
    if (!e)
        e = agent_trace_overlay(se->trace, &img, marks, n, all, masks, r, err);
    if (e)
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "step %d: no overlay: %s", r->index, err);
    base_free(marks);
    base_free(labels);
    img_fini(&img);
    r->ms.overlay += base_monotime_ms() - t0;
}

/* ---- failures and successes ---------------------------------------------------------- */

void agent__okf(agent_step_record *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->outcome, sizeof r->outcome, fmt, ap);
    va_end(ap);
    r->ok = 1;
    agent__copy(r->reason, sizeof r->reason, "ok");
}

/* ---- the session's life ------------------------------------------------------------- */

void fovea_session_opts_init(fovea_session_opts *o)
{
    memset(o, 0, sizeof *o);
    o->vision = "dom";
    o->humanize = 1;
    o->overlays = AGENT_OVERLAYS_ALL;
}

int agent_overlays_parse(const char *s, agent_overlays *out)
{
    static const char *const names[] = {"all", "failures", "none"};
    for (int i = 0; s && i < 3; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (agent_overlays)i;
            return 0;
        }
    }
    return -1;
}

cdp_page *fovea_session_page(fovea_session *s)
{
    return s ? s->page : NULL;
}

base_err fovea_session_create(cdp_page *page, const fovea_session_opts *o, fovea_session **out,
                              char *err)
{
    *out = NULL;
    if (!page)
        return base_errf(err, BASE_EINVAL, "fovea_session_create: no page");
    fovea_session *se = base_calloc(1, sizeof *se);
    if (!se)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    se->page = page;
    se->home = page;
    if (o)
        se->o = *o;
    else
        fovea_session_opts_init(&se->o);
    if (!se->o.vision)
        se->o.vision = "dom";
    se->out = se->o.progress ? se->o.progress : stderr;
    se->call_g.box = -1;
    base_err e = perc_vision_create_named(se->o.vision, &se->vision, err);
    if (!e)
        e = perc_fingerprint_install(page, err);
    /* Overlays draw on the epoch's screenshot; without them it is not kept. */
    perc_prefetch_opts po = {0, se->o.overlays != AGENT_OVERLAYS_NONE};
    if (!e)
        e = perc_prefetch_create(page, se->vision, &po, &se->pf, err);
    cascade_opts co;
    cascade_opts_init(&co);
    co.humanize = se->o.humanize;
    co.seed = se->o.seed;
    co.allow_untrusted = se->o.allow_untrusted;
    co.learnings_path = se->o.learnings;
    if (!e)
        e = cascade_hand_create(page, &co, &se->hand, err);
    cdp_frame main;
    if (!e && cdp_page_frames(page, &main, 1) > 0)
        agent__copy(se->main_frame, sizeof se->main_frame, main.id);
    if (!e)
        e = agent_secrets_create(&se->sec, err);
    /* The password of a model endpoint URL (user:password@host) is printed
     * nowhere either (the scrub also masks any URL's userinfo). */
    if (!e)
        e = agent__add_url_password(se->sec, getenv("FOVEA_OPENAI_BASE_URL"), err);
    if (!e)
        e = agent__watchdog_create(&se->wd, err);
    if (e) {
        fovea_session_destroy(se);
        return e;
    }
    if (!se->o.shared_log_filter)
        base_log_set_filter(agent_secrets_log_filter, se->sec);
    fovea_session_page_url(se, se->start_url, sizeof se->start_url);
    snprintf(se->last_url, sizeof se->last_url, "%.511s", se->start_url);
    se->pass_budget_ms = se->o.first_pass_ms > 0 ? se->o.first_pass_ms : 5000;
    fovea_session_schedule(se, se->o.first_subgoal ? se->o.first_subgoal : "start");
    agent__nav_attach(se);
    *out = se;
    return BASE_OK;
}

void fovea_session_destroy(fovea_session *se)
{
    if (!se)
        return;
    agent__grounded_fini(&se->call_g);
    agent__outline_forget(se);
    agent__watchdog_destroy(se->wd);
    cascade_hand_destroy(se->hand);
    perc_prefetch_destroy(se->pf);
    perc_vision_destroy(se->vision);
    agent__nav_free(se); /* its network watchers first: they use the tabs */
    for (int t = 0; t < se->n_tabs; t++)
        cdp_page_close(se->tabs[t]);
    if (se->sec && !se->o.shared_log_filter)
        base_log_set_filter(NULL, NULL);
    agent_secrets_destroy(se->sec);
    for (int i = 0; i < se->n_vars; i++) {
        base_free(se->var_name[i]);
        base_free(se->var_value[i]);
    }
    base_free(se);
}

/* ---- the session as a runner sees it (agent/session/session.h) --------------------- */

void fovea_session_set_step(fovea_session *s, const fovea_step_info *st)
{
    s->step_index = st->index;
    s->step_total = st->total;
    s->attempt = st->attempt;
    if (st->pass_budget_ms > 0)
        s->pass_budget_ms = st->pass_budget_ms;
    agent__copy(s->step_action, sizeof s->step_action, st->action);
    agent__copy(s->step_desc, sizeof s->step_desc, st->desc);
}

void fovea_session_set_trace(fovea_session *s, agent_trace *t)
{
    s->trace = t;
}

agent_trace *fovea_session_trace(fovea_session *s)
{
    return s->trace;
}

agent_secrets *fovea_session_secrets(fovea_session *s)
{
    return s->sec;
}

FILE *fovea_session_progress(fovea_session *s)
{
    return s->out;
}

const fovea_session_opts *fovea_session_options(const fovea_session *s)
{
    return &s->o;
}

int fovea_session_delivered(const fovea_session *s)
{
    return s->delivered;
}
