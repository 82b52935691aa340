/* agent/session/tools_act.c: the tools a task file could always name — click_at,
 * type_at, select_option, drag, scroll, wait_for, assert_text, extract,
 * handle_dialog — and done. Each parses its arguments with the task
 * parser's rules (agent_step_from_args) and runs the grounding path
 * (agent__ground) and the hand (cascade_*). */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "agent/session/agent_int.h"
#include "agent/session/js.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/log.h"

#define TEXT_MAX (4u << 20)

/* ---- actions --------------------------------------------------------------------- */

static snap_intent_kind kind_for(const agent_step *s, const char *label, const char *dflt)
{
    return snap_classify_intent(s->verb ? s->verb : dflt, label);
}


static int act_click_like(fovea_session *se, const agent_step *s, agent_step_record *r, agent__grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    const char *dflt = s->action == AGENT_TYPE ? "type" : "click";
    if (!agent__ground(se, s, &s->target, kind_for(s, s->target.label, dflt), 1, r, g))
        return 0;
    cascade_target t = agent__target_of(g, s->target.label);
    t.expect_effect = s->expect_effect;
    cascade_result c;
    memset(&c, 0, sizeof c);
    /* A field that holds a secret by its own markup (type=password,
     * autocomplete=cc-number, one-time-code...) makes the text a secret
     * even when the task did not say so: known before anything is typed
     * or written. */
    int secret = s->password;
    if (s->action == AGENT_TYPE && !secret) {
        cascade_field_info fi;
        if (cascade_field_read(se->hand, &t, &fi, NULL) == BASE_OK && fi.found &&
            agent_field_sensitive(fi.type, fi.autocomplete))
            secret = 1;
        cascade_field_info_fini(&fi);
        /* A secret the set cannot hold would be written unmasked: nothing
         * is typed. */
        base_err sec_e = secret ? agent_secrets_add(se->sec, s->text) : BASE_OK;
        if (sec_e) {
            agent__failf(r, "error", "cannot hold this secret for masking (%s); nothing typed",
                  base_strerror(sec_e));
            return 0;
        }
    }
    /* check / uncheck / toggle (issue 21, class 5): a toggle already in the
     * state asked for is left alone; after the press its state must be the
     * one asked for. A target that is no toggle is a plain click. */
    int want = s->action == AGENT_CLICK ? agent__toggle_want(s->verb) : -1;
    int before = -1;
    if (want >= 0) {
        cascade_field_info fi;
        if (cascade_field_read(se->hand, &t, &fi, NULL) == BASE_OK && fi.found)
            before = fi.checked;
        cascade_field_info_fini(&fi);
        if (before >= 0 && want != 2 && before == want) {
            char el[64];
            agent_secrets_scrub_copy(se->sec, el, sizeof el,
                                     g->snap.text[0] ? g->snap.text : g->snap.name);
            snprintf(r->outcome, sizeof r->outcome,
                     "<%s> '%s' is already %s: nothing pressed", g->snap.tag, el,
                     want ? "checked" : "unchecked");
            return 1;
        }
    }
    agent__settle w;
    agent__watch_begin(se, &w);
    base_err e = s->action == AGENT_TYPE ? cascade_type(se->hand, &t, s->text, secret, &c, err)
                                         : cascade_click(se->hand, &t, &c, err);
    se->delivered |= c.delivered;
    int ok = agent__cascade_outcome(se, r, e, &c, err);
    if (c.effects & CASCADE_FX_NEW_TAB)
        agent__copy(se->fx_tab, sizeof se->fx_tab, c.new_target_id);
    if (s->action == AGENT_TYPE && secret) {
        /* What the field made of it (upper-cased, grouped, cut to its
         * maxlength) is as secret as what was typed. */
        cascade_field_info fi;
        base_err sec_e = BASE_OK;
        if (cascade_field_read(se->hand, &t, &fi, NULL) == BASE_OK && fi.value)
            sec_e = agent_secrets_add(se->sec, fi.value);
        cascade_field_info_fini(&fi);
        if (sec_e && ok) {
            agent__failf(r, "error", "cannot hold the field's value for masking (%s)",
                         base_strerror(sec_e));
            ok = 0;
        }
    }
    if (ok && s->action == AGENT_TYPE && secret)
        agent__add_mask(se, g->snap.rect);
    int after = -1;
    if (ok && before >= 0) {
        cascade_field_info fi;
        if (cascade_field_read(se->hand, &t, &fi, NULL) == BASE_OK && fi.found)
            after = fi.checked;
        cascade_field_info_fini(&fi);
        int wanted = want == 2 ? !before : want;
        if (after >= 0 && after != wanted) {
            /* Pressed once and not pressed again: it may have had an effect. */
            agent__failf(r, "no_effect", "clicked <%s> at (%.0f,%.0f) but it is still %s",
                         g->snap.tag, r->pt.x, r->pt.y, after ? "checked" : "unchecked");
            ok = 0;
        }
    }
    if (ok) {
        /* Masked whole before the '%.60s' cut. A checkbox or an empty field
         * has no text: its name (or the text a person reads beside it) says
         * what was pressed. */
        char el[64];
        agent_secrets_scrub_copy(se->sec, el, sizeof el,
                                 g->snap.text[0] ? g->snap.text : g->snap.name);
        /* What was pressed, by its own name, and how that name carries the
         * label (exact, partial, none): never the label it did not match. */
        snprintf(r->outcome, sizeof r->outcome, "%s <%s> '%s' (match %s) at (%.0f,%.0f): %s",
                 s->action == AGENT_TYPE ? "typed into" : "clicked", g->snap.tag, el,
                 snap_match_grade(g->snap.res.match), r->pt.x, r->pt.y,
                 c.n_tried ? c.tried[c.n_tried - 1].outcome : "done");
        if (after >= 0) {
            size_t k = strlen(r->outcome);
            snprintf(r->outcome + k, sizeof r->outcome - k, "; now %s",
                     after ? "checked" : "unchecked");
        }
    }
    agent__watch_end(se, &w, r, r->desc);
    return ok;
}

/* A native <select> cannot be opened into the page; choose by script. */
static int native_select(fovea_session *se, const agent_step *s, agent_step_record *r, const agent__grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_target t = agent__target_of(g, s->target.label);
    cascade_result c;
    memset(&c, 0, sizeof c);
    base_err e = cascade_select(se->hand, &t, s->value, &c, err);
    int ok = agent__cascade_outcome(se, r, e, &c, err);
    if (ok)
        snprintf(r->outcome, sizeof r->outcome, "%.200s", c.message);
    return ok;
}

static int act_select(fovea_session *se, const agent_step *s, agent_step_record *r, agent__grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (!agent__ground(se, s, &s->target, kind_for(s, s->target.label, "open"), 1, r, g))
        return 0;
    agent__settle w;
    if (strcmp(g->snap.tag, "select") == 0) {
        agent__watch_begin(se, &w);
        int ok = native_select(se, s, r, g);
        agent__watch_end(se, &w, r, r->desc);
        return ok;
    }
    /* Open the control, then choose the option from fresh vision. */
    cascade_target t = agent__target_of(g, s->target.label);
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__watch_begin(se, &w);
    base_err e = cascade_click(se->hand, &t, &c, err);
    se->delivered |= c.delivered;
    int ok = agent__cascade_outcome(se, r, e, &c, err);
    agent__watch_end(se, &w, r, r->desc);
    if (!ok)
        return 0;
    agent__grounded opt;
    agent_target want = {s->value, 0};
    agent_step_record r2 = *r;
    if (!agent__ground(se, s, &want, kind_for(s, s->value, "select"), 1, &r2, &opt)) {
        agent__grounded_fini(&opt);
        *r = r2;
        snprintf(r->outcome + strlen(r->outcome), sizeof r->outcome - strlen(r->outcome),
                 " (after opening '%.40s')", s->target.label ? s->target.label : "");
        return 0;
    }
    *r = r2;
    t = agent__target_of(&opt, s->value);
    memset(&c, 0, sizeof c);
    agent__watch_begin(se, &w);
    e = cascade_click(se->hand, &t, &c, err);
    se->delivered |= c.delivered;
    ok = agent__cascade_outcome(se, r, e, &c, err);
    if (ok)
        snprintf(r->outcome, sizeof r->outcome, "opened '%.50s', chose <%s> '%.60s'",
                 s->target.label ? s->target.label : "", opt.snap.tag, opt.snap.text);
    agent__watch_end(se, &w, r, r->desc);
    /* The overlay shows the option's epoch: keep that one. */
    agent__grounded_fini(g);
    *g = opt;
    return ok;
}

static int act_drag(fovea_session *se, const agent_step *s, agent_step_record *r, agent__grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (!agent__ground(se, s, &s->target, kind_for(s, s->target.label, "drag"), 1, r, g))
        return 0;
    base_point to = {s->to_x, s->to_y};
    if (agent_target_set(&s->to)) {
        agent_step_record r2 = *r;
        agent__grounded dst;
        if (!agent__ground(se, s, &s->to, SNAP_INTENT_ANY, 1, &r2, &dst)) {
            agent__grounded_fini(&dst);
            agent__copy(r->reason, sizeof r->reason, r2.reason);
            snprintf(r->outcome, sizeof r->outcome, "drag destination: %.200s", r2.outcome);
            r->ok = 0;
            return 0;
        }
        to = dst.snap.pt;
        agent__grounded_fini(&dst);
    }
    cascade_target t = agent__target_of(g, s->target.label);
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(se, &w);
    base_err e = cascade_drag(se->hand, &t, to, s->num_value, s->have_num_value, &c, err);
    int ok = agent__cascade_outcome(se, r, e, &c, err);
    if (ok)
        snprintf(r->outcome, sizeof r->outcome, "dragged <%s> '%.60s' to %s%s", g->snap.tag,
                 g->snap.text, s->have_num_value ? "value " : "",
                 s->have_num_value ? s->value : "the destination");
    agent__watch_end(se, &w, r, r->desc);
    return ok;
}

/* ---- scroll ------------------------------------------------------------------------ */

/* The viewport's centre, where a page scroll turns the wheel. */
static base_point view_centre(fovea_session *se)
{
    const cdp_page_opts *vp = cdp_page_viewport(se->page);
    return (base_point){(float)((vp && vp->width ? vp->width : 1280) / 2),
                        (float)((vp && vp->height ? vp->height : 800) / 2)};
}

/* One scroll through the hand at `at` by dy (settled, next pass
 * scheduled); the cursor path goes into r. */
static base_err wheel(fovea_session *se, base_point at, int page, double dy,
                      cascade_scroll_pos *before, cascade_scroll_pos *after, agent_step_record *r,
                      char *err)
{
    agent__settle w;
    agent__watch_begin(se, &w);
    cascade_result c;
    memset(&c, 0, sizeof c);
    base_err e = cascade_scroll(se->hand, at, dy, page, before, after, &c, err);
    r->ms.motion += c.motion_ms;
    r->ms.dispatch += c.ms - c.motion_ms;
    cascade_result *h = &r->hand; /* every wheel's path, for the overlay */
    for (int i = 0; i < c.n_path && h->n_path < (int)(sizeof h->path / sizeof h->path[0]); i++)
        h->path[h->n_path++] = c.path[i];
    r->pt = at;
    agent__watch_end(se, &w, r, r->desc);
    return e;
}

/* "scroll to a target": a viewport at a time until vision sees it. */
static int scroll_to_target(fovea_session *se, const agent_step *s, agent_step_record *r,
                            agent__grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    const cdp_page_opts *vp = cdp_page_viewport(se->page);
    int step_px = (int)((vp->height ? vp->height : 800) * 0.7);
    agent_step once = *s;
    once.timeout_ms = 1200;
    int moved = 1;
    for (int i = 0; i < 12 && moved && !agent__stopped(r); i++) {
        agent_step_record r2 = *r;
        if (agent__ground(se, &once, &s->target, SNAP_INTENT_ANY, 0, &r2, g)) {
            *r = r2;
            agent__okf(r, "[V%d] '%.80s' in view after %d scroll%s", r->box_id, r->box_label, i,
                       i == 1 ? "" : "s");
            return 1;
        }
        agent__grounded_fini(g);
        *r = r2;
        cascade_scroll_pos a, b;
        if (wheel(se, view_centre(se), 1, s->dy < 0 ? -step_px : step_px, &a, &b, r, err)) {
            agent__failf(r, "error", "scroll: %s", err);
            return 0;
        }
        moved = b.top != a.top;
    }
    if (!agent__stopped(r))
        agent__failf(r, "not_found", "no box for '%.80s' after scrolling %s",
                     s->target.label ? s->target.label : "the target",
                     moved ? "12 times" : "to the end of the page");
    return 0;
}

/* The expression "(agent_find_text.js)(text)"; NULL on allocation failure. */
static char *find_text_expr(const char *text)
{
    cJSON *arg = cJSON_CreateString(text);
    char *js_arg = arg ? cJSON_PrintUnformatted(arg) : NULL;
    cJSON_Delete(arg);
    if (!js_arg)
        return NULL;
    const char *js = (const char *)fovea_js_agent_find_text;
    size_t n = strlen(js) + strlen(js_arg) + 8;
    char *expr = base_malloc(n);
    if (expr)
        snprintf(expr, n, "(%s)(%s)", js, js_arg);
    cJSON_free(js_arg);
    return expr;
}

/* to_text: a screen at a time until the text's top is in the upper two
 * thirds of the view. */
static int scroll_to_text(fovea_session *se, const char *text, base_point at, int page,
                          double view, agent_step_record *r)
{
    char err[BASE_ERRBUF_SIZE] = "";
    char *expr = find_text_expr(text);
    if (!expr) {
        agent__failf(r, "error", "out of memory");
        return 0;
    }
    int ok = 0, moves = 0;
    for (int i = 0; i < 40 && !agent__stopped(r); i++) {
        cJSON *v = NULL;
        base_err e = cdp_page_evaluate_in(se->page, NULL, CDP_CTX_FOVEA, expr, &v, 3000, err);
        const cJSON *top_j = cJSON_GetObjectItemCaseSensitive(v, "top");
        int found = !e && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "found")) &&
                    cJSON_IsNumber(top_j);
        double top = found ? top_j->valuedouble : 0;
        cJSON_Delete(v);
        if (e) {
            agent__failf(r, "error", "scroll: %s", err);
            break;
        }
        if (!found) {
            agent__failf(r, "not_found", "'%.80s' is not on the page", text);
            break;
        }
        if (top >= 0 && top < view * 0.67) {
            agent__okf(r, "'%.80s' in view after %d scroll%s", text, moves, moves == 1 ? "" : "s");
            ok = 1;
            break;
        }
        cascade_scroll_pos b0, b1;
        if (wheel(se, at, page, top - view * 0.25, &b0, &b1, r, err) != BASE_OK) {
            agent__failf(r, "error", "scroll: %s", err);
            break;
        }
        moves++;
        if (b1.top == b0.top) {
            agent__failf(r, "not_found", "'%.80s' is on the page but scrolling %s does not bring "
                                         "it into view", text, b1.desc);
            break;
        }
    }
    base_free(expr);
    return ok;
}

/* The point a "within" target names (grounded and snapped); 0 with r's
 * failure set. */
static int within_point(fovea_session *se, const cJSON *a, agent_step_record *r, base_point *at)
{
    if (!agent__ground_arg(se, a, "within", "scroll", NULL, 0, 1, r, NULL))
        return 0;
    *at = se->call_g.snap.pt;
    return 1;
}

/* scroll: exactly one of target (until vision sees it), dy / direction
 * (+ pixels), to (top / bottom), percent, to_text; within = the box under
 * that element scrolls instead of the page. All through the hand. */
static int t_scroll(fovea_session *se, const cJSON *a, tool_result *res)
{
    agent_step_record *r = &res->rec;
    char err[BASE_ERRBUF_SIZE] = "";
    agent__copy(r->gate, sizeof r->gate, "-");
    /* c_scroll has checked the modes. */
    if (cJSON_GetObjectItemCaseSensitive(a, "target")) {
        agent_step st;
        if (agent_step_from_args(a, AGENT_SCROLL, "scroll", &st, err) != BASE_OK) {
            agent_step_fini(&st);
            agent__failf(r, "bad_args", "%s", err);
            return 0;
        }
        int ok = scroll_to_target(se, &st, r, &se->call_g);
        agent_step_fini(&st);
        return ok;
    }
    base_point at = view_centre(se);
    int page = 1;
    const cJSON *within = cJSON_GetObjectItemCaseSensitive(a, "within");
    if (within) {
        if (!within_point(se, a, r, &at))
            return 0;
        page = 0;
    }
    cascade_scroll_pos p0, p1;
    if (cascade_scroll_where(se->hand, at, page, &p0, err) != BASE_OK) {
        agent__failf(r, "error", "scroll: %s", err);
        return 0;
    }
    p1 = p0;
    double view = p0.view > 0 ? p0.view : 800;
    const char *dir = agent__arg_str(a, "direction");
    const char *to = agent__arg_str(a, "to");
    const char *text = agent__arg_str(a, "to_text");
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(a, "percent");
    if (text)
        return scroll_to_text(se, text, at, page, view, r);
    /* Pages that load more at the end grow while we scroll: to bottom goes
     * again until it stops moving (8 rounds at most). */
    for (int round = 0; round < 8 && !agent__stopped(r); round++) {
        double dy;
        if (cJSON_GetObjectItemCaseSensitive(a, "dy"))
            dy = round ? 0 : agent__arg_num(a, "dy", 0);
        else if (dir)
            dy = round ? 0
                       : (strcmp(dir, "up") == 0 ? -1 : 1) *
                             agent__arg_num(a, "pixels", floor(view * 0.7));
        else if (to)
            dy = strcmp(to, "top") == 0 ? -p1.top : p1.max - p1.top;
        else
            dy = pc->valuedouble / 100.0 * p1.max - p1.top;
        if (fabs(dy) < 1)
            break;
        cascade_scroll_pos b0;
        if (wheel(se, at, page, dy, &b0, &p1, r, err) != BASE_OK) {
            agent__failf(r, "error", "scroll: %s", err);
            return 0;
        }
        if (fabs(p1.top - b0.top) < 0.5) /* an edge, or it does not scroll */
            break;
    }
    if (agent__stopped(r))
        return 0;
    cJSON *d = cJSON_CreateObject();
    if (d && cJSON_AddNumberToObject(d, "top", p1.top) && cJSON_AddNumberToObject(d, "max", p1.max))
        res->data = d;
    else
        cJSON_Delete(d);
    /* "to top" while at the top is done; "down 600" that moves nothing is not. */
    if (fabs(p1.top - p0.top) < 0.5 && !to && !pc) {
        agent__failf(r, "no_effect", "%s did not scroll (at %.0f of %.0f px)", p0.desc, p0.top,
                     p0.max);
        return 0;
    }
    agent__okf(r, "scrolled %s from %.0f to %.0f px of %.0f (%.0f%%)", p1.desc, p0.top, p1.top,
               p1.max, p1.max > 0 ? 100.0 * p1.top / p1.max : 100.0);
    return 1;
}

static int act_wait_for(fovea_session *se, const agent_step *s, agent_step_record *r, agent__grounded *g)
{
    if (agent_target_set(&s->target)) {
        int ok = agent__ground(se, s, &s->target, SNAP_INTENT_ANY, 0, r, g);
        if (ok) {
            r->ok = 1;
            agent__copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "[V%d] '%.80s' is there (%s)", r->box_id,
                     r->box_label, r->box_source);
        }
        return ok;
    }
    agent__copy(r->gate, sizeof r->gate, "-");
    double deadline = base_monotime_ms() + s->timeout_ms;
    char err[BASE_ERRBUF_SIZE] = "";
    do {
        base_buf b;
        base_buf_init(&b, TEXT_MAX);
        base_err e = agent__page_text(se, &b, err);
        char why[BASE_ERRBUF_SIZE] = "";
        int ok = !e && b.data ? agent__text_matches(s, (const char *)b.data, deadline, why) : 0;
        base_buf_fini(&b);
        if (ok < 0) {
            agent__failf(r, "pattern_limit", "/%.60s/: %s", s->pattern, why);
            return 0;
        }
        if (ok) {
            r->ok = 1;
            agent__copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "%s%.120s%s is on the page",
                     s->text ? "'" : "/", s->text ? s->text : s->pattern, s->text ? "'" : "/");
            return 1;
        }
        if (base_interrupt_sleep_ms(100) && agent__stopped(r))
            return 0;
    } while (base_monotime_ms() < deadline && agent__page_ok(se));
    agent__failf(r, "timeout", "%s%.120s%s did not appear within %d ms", s->text ? "'" : "/",
                 s->text ? s->text : s->pattern, s->text ? "'" : "/", s->timeout_ms);
    return 0;
}

/* assert_text and extract: text of the target element, or of the page. */
static int act_read(fovea_session *se, const agent_step *s, agent_step_record *r, agent__grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    int tgt = agent_target_set(&s->target);
    if (tgt && !agent__ground(se, s, &s->target, SNAP_INTENT_ANY, 1, r, g))
        return 0;
    if (!tgt)
        agent__copy(r->gate, sizeof r->gate, "-");
    double deadline = base_monotime_ms() + s->timeout_ms;
    int ok = 0;
    char *text = NULL;
    int polls = 0;
    do {
        base_free(text);
        text = NULL;
        if (tgt) {
            /* The snapped element's text first, then the element read
             * again on each poll: a status that changes in place
             * ("Pending" -> "Shipped") gets the whole timeout. */
            char *now = polls++ ? agent__target_text(se, g) : NULL;
            base_buf b;
            base_buf_init(&b, TEXT_MAX);
            base_buf_printf(&b, "%s\n%s", now ? now : g->snap.text, r->box_label);
            base_free(now);
            text = base_buf_steal(&b, NULL);
            base_buf_fini(&b);
        } else {
            base_buf b;
            base_buf_init(&b, TEXT_MAX);
            if (agent__page_text(se, &b, err) == BASE_OK)
                text = base_buf_steal(&b, NULL);
            base_buf_fini(&b);
        }
        char why[BASE_ERRBUF_SIZE] = "";
        ok = text ? agent__text_matches(s, text, deadline, why) : 0;
        if (ok < 0) {
            base_free(text);
            agent__failf(r, "pattern_limit", "/%.60s/: %s", s->pattern, why);
            return 0;
        }
        if (ok || (tgt && s->action == AGENT_EXTRACT))
            break;
        if (base_interrupt_sleep_ms(100))
            break;
    } while (base_monotime_ms() < deadline && agent__page_ok(se));
    if (s->action == AGENT_EXTRACT && text) {
        /* The lines of the text that match (all non-empty ones without a pattern). */
        char why[BASE_ERRBUF_SIZE] = "";
        base_err re_e = BASE_OK;
        double line_deadline = agent__re_deadline(deadline); /* one budget for all the lines */
        for (char *save = NULL, *line = strtok_r(text, "\n", &save);
             line && r->n_extracted < AGENT_MAX_EXTRACT; line = strtok_r(NULL, "\n", &save)) {
            char n[160];
            snap_text_normalize(line, n, sizeof n);
            int m = 1;
            base_err le = n[0] && s->re ? base_regex_match_until(s->re, line, strlen(line),
                                                                 line_deadline, &m, why)
                                        : BASE_OK;
            if (le == BASE_ETOOBIG || le == BASE_ECANCELED) {
                re_e = le;
                break;
            }
            if (!n[0] || le || !m)
                continue;
            agent_secrets_scrub_copy(se->sec, r->extracted[r->n_extracted++],
                                     sizeof r->extracted[0], line); /* masked before the cut */
        }
        if (re_e == BASE_ECANCELED) {
            base_free(text);
            agent__stopped(r);
            return 0;
        }
        if (re_e == BASE_ETOOBIG) {
            base_free(text);
            agent__failf(r, "pattern_limit", "/%.60s/: %s", s->pattern, why);
            return 0;
        }
        ok = r->n_extracted > 0;
    }
    base_free(text);
    if (ok) {
        r->ok = 1;
        agent__copy(r->reason, sizeof r->reason, "ok");
        if (s->action == AGENT_EXTRACT)
            snprintf(r->outcome, sizeof r->outcome, "%d line%s extracted", r->n_extracted,
                     r->n_extracted == 1 ? "" : "s");
        else
            snprintf(r->outcome, sizeof r->outcome, "found %s%.100s%s%s", s->text ? "'" : "/",
                     s->text ? s->text : s->pattern, s->text ? "'" : "/",
                     tgt ? " in the target" : " on the page");
        return 1;
    }
    if (agent__stopped(r))
        return 0;
    if (s->action == AGENT_EXTRACT)
        agent__failf(r, "not_found", "nothing matched /%.100s/", s->pattern ? s->pattern : "");
    else
        agent__failf(r, "assert_failed", "%s%.100s%s not found %s within %d ms", s->text ? "'" : "/",
              s->text ? s->text : s->pattern, s->text ? "'" : "/",
              tgt ? "in the target" : "on the page", s->timeout_ms);
    return 0;
}

/* ---- faults: dialogs, new tabs, dead pages ---------------------------------------- */

/* dialog step: the page answers the next JavaScript dialog as told. */
static int act_dialog(fovea_session *se, const agent_step *s, agent_step_record *r)
{
    agent__copy(r->gate, sizeof r->gate, "-");
    base_err e = cdp_page_dialog_next(se->page, s->accept, s->prompt_text, s->expect);
    if (e) {
        agent__failf(r, "error", "dialog: %s", base_strerror(e));
        return 0;
    }
    snprintf(r->outcome, sizeof r->outcome, "the next dialog will be %s%s%.80s%s",
             s->accept ? "accepted" : "dismissed", s->prompt_text ? " with '" : "",
             s->prompt_text ? s->prompt_text : "", s->prompt_text ? "'" : "");
    return 1;
}

/* ---- the tools -------------------------------------------------------------------- */

/* Runs a task-file action with args parsed by the task parser's rules. */
static int run_action(fovea_session *se, const cJSON *a, tool_result *res, agent_action act,
                      const char *tool)
{
    agent_step_record *r = &res->rec;
    char err[BASE_ERRBUF_SIZE] = "";
    agent_step st;
    if (agent_step_from_args(a, act, tool, &st, err) != BASE_OK) {
        agent_step_fini(&st);
        agent__failf(r, "bad_args", "%s", err);
        return 0;
    }
    if (st.target.index > 0)
        r->target_index = st.target.index;
    if (st.target.label)
        agent__copy(r->target_label, sizeof r->target_label, st.target.label);
    /* A secret the call names is known before anything is typed or written. */
    const char *secret = act == AGENT_TYPE && st.password ? st.text
                         : act == AGENT_DIALOG && st.password ? st.prompt_text
                                                              : NULL;
    base_err se_e = secret && secret[0] ? agent_secrets_add(se->sec, secret) : BASE_OK;
    if (se_e) {
        agent_step_fini(&st);
        agent__failf(r, "error", "cannot hold this secret for masking (%s); nothing done",
                     base_strerror(se_e));
        return 0;
    }
    agent__grounded *g = &se->call_g;
    int ok = 0;
    switch (act) {
    case AGENT_CLICK:
    case AGENT_TYPE:
        ok = act_click_like(se, &st, r, g);
        break;
    case AGENT_SELECT:
        ok = act_select(se, &st, r, g);
        break;
    case AGENT_DRAG:
        ok = act_drag(se, &st, r, g);
        break;
    case AGENT_WAIT_FOR:
        ok = act_wait_for(se, &st, r, g);
        break;
    case AGENT_DIALOG:
        ok = act_dialog(se, &st, r);
        break;
    default:
        ok = act_read(se, &st, r, g);
        break;
    }
    /* Extracted lines are the call's value too (save_as, the model). */
    if (ok && act == AGENT_EXTRACT && r->n_extracted > 0) {
        base_buf b;
        base_buf_init(&b, 64u << 10);
        cJSON *d = cJSON_CreateObject();
        cJSON *lines = cJSON_CreateArray();
        int whole = d && lines;
        for (int i = 0; whole && i < r->n_extracted; i++) {
            if (i)
                base_buf_append_str(&b, "\n");
            base_buf_append_str(&b, r->extracted[i]);
            cJSON *l = cJSON_CreateString(r->extracted[i]);
            whole = l && cJSON_AddItemToArray(lines, l);
            if (!whole)
                cJSON_Delete(l);
        }
        char *joined = base_buf_steal(&b, NULL);
        base_buf_fini(&b);
        /* All or nothing: a value with a lost line is another value. */
        if (whole && joined && cJSON_AddStringToObject(d, "value", joined) &&
            cJSON_AddItemToObject(d, "lines", lines)) {
            res->data = d;
        } else {
            cJSON_Delete(d);
            cJSON_Delete(lines);
            agent__failf(r, "error", "out of memory");
            ok = 0;
        }
        base_free(joined);
    }
    agent_step_fini(&st);
    return ok;
}

static int t_click(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_CLICK, "click_at");
}

static int t_type(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_TYPE, "type_at");
}

static int t_select(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_SELECT, "select_option");
}

static int t_drag(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_DRAG, "drag");
}

static int t_wait_for(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_WAIT_FOR, "wait_for");
}

static int t_assert_text(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_ASSERT_TEXT, "assert_text");
}

static int t_extract(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_EXTRACT, "extract");
}

static int t_dialog(fovea_session *se, const cJSON *a, tool_result *r)
{
    return run_action(se, a, r, AGENT_DIALOG, "handle_dialog");
}

/* done: the task is finished (or cannot be); the answer is the call's value. */
static int t_done(fovea_session *se, const cJSON *a, tool_result *res)
{
    (void)se;
    const char *text = agent__arg_str(a, "text");
    int success = agent__arg_bool(a, "success", 1);
    agent__copy(res->rec.gate, sizeof res->rec.gate, "-");
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "value", text ? text : "") ||
        !cJSON_AddBoolToObject(d, "success", success)) {
        cJSON_Delete(d);
        agent__failf(&res->rec, "error", "out of memory");
        return 0;
    }
    res->data = d;
    agent__okf(&res->rec, "done (%s)%s%.200s", success ? "success" : "gave up", text ? ": " : "",
               text ? text : "");
    return 1;
}

/* Load-time checks: the task parser's own rules for each action (the
 * schema says what is allowed; these say what goes together). */
static base_err check_as(const cJSON *a, agent_action act, const char *tool, char *err)
{
    agent_step st;
    base_err e = agent_step_from_args(a, act, tool, &st, err);
    agent_step_fini(&st);
    return e;
}

static base_err c_click(const cJSON *a, char *err)
{
    return check_as(a, AGENT_CLICK, "click_at", err);
}

static base_err c_type(const cJSON *a, char *err)
{
    return check_as(a, AGENT_TYPE, "type_at", err);
}

static base_err c_select(const cJSON *a, char *err)
{
    return check_as(a, AGENT_SELECT, "select_option", err);
}

static base_err c_drag(const cJSON *a, char *err)
{
    return check_as(a, AGENT_DRAG, "drag", err);
}

static base_err c_wait_for(const cJSON *a, char *err)
{
    return check_as(a, AGENT_WAIT_FOR, "wait_for", err);
}

static base_err c_assert_text(const cJSON *a, char *err)
{
    return check_as(a, AGENT_ASSERT_TEXT, "assert_text", err);
}

static base_err c_extract(const cJSON *a, char *err)
{
    return check_as(a, AGENT_EXTRACT, "extract", err);
}

static base_err c_dialog(const cJSON *a, char *err)
{
    return check_as(a, AGENT_DIALOG, "handle_dialog", err);
}

/* scroll: one mode; pixels only with a direction; within not with target. */
static base_err c_scroll(const cJSON *a, char *err)
{
    const char *modes[] = {"target", "dy", "direction", "to", "percent", "to_text"};
    int n = 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        n += cJSON_GetObjectItemCaseSensitive(a, modes[i]) != NULL;
    if (n != 1)
        return base_errf(err, BASE_EINVAL, "scroll: %s one of target, dy, direction, to, percent, "
                                           "to_text", n ? "give only" : "needs");
    if (cJSON_GetObjectItemCaseSensitive(a, "pixels") && !agent__arg_str(a, "direction"))
        return base_errf(err, BASE_EINVAL, "scroll: 'pixels' goes with 'direction'");
    if (cJSON_GetObjectItemCaseSensitive(a, "within") &&
        cJSON_GetObjectItemCaseSensitive(a, "target"))
        return base_errf(err, BASE_EINVAL, "scroll: 'within' does not go with 'target'");
    if (cJSON_GetObjectItemCaseSensitive(a, "target"))
        return check_as(a, AGENT_SCROLL, "scroll", err);
    return BASE_OK;
}

/* A target: a label, "[V4]", "[V4] label", or {label, index}. */
#define TARGET_SCHEMA AGENT__TARGET_SCHEMA
#define VERB_SCHEMA                                                                                \
    "{\"type\": \"string\", \"maxLength\": 64, \"description\": \"intent: open, expand, select, "  \
    "press; check, uncheck, toggle (the checkbox of the text named) ...\"}"
#define EFFECT_SCHEMA                                                                              \
    "{\"type\": \"boolean\", \"description\": \"true: the page must react; false: no reaction "    \
    "expected\"}"

const tool_def agent__tools_act[] = {
    {"click_at", "Click an element named by its label and/or vision index [Vn].",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA ", \"verb\": " VERB_SCHEMA
     ", \"expect_effect\": " EFFECT_SCHEMA "}, \"required\": [\"target\"]}",
     TOOL_MUTATES | TOOL_TARGETED, t_click, c_click},
    {"type_at", "Click a field and type text into it (fixes what the field made of it).",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"text\": {\"type\": \"string\"}, \"password\": {\"type\": \"boolean\"}, \"secret\": "
     "{\"type\": \"boolean\", \"description\": \"the text is a secret: never written anywhere\"}, "
     "\"verb\": " VERB_SCHEMA ", \"expect_effect\": " EFFECT_SCHEMA
     "}, \"required\": [\"target\", \"text\"]}",
     TOOL_MUTATES | TOOL_TARGETED, t_type, c_type},
    {"select_option", "Choose an option of a dropdown (native or custom) by its text.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"value\": {\"type\": [\"string\", \"number\"], \"description\": \"the option's text\"}, "
     "\"verb\": " VERB_SCHEMA "}, \"required\": [\"target\", \"value\"]}",
     TOOL_MUTATES | TOOL_TARGETED, t_select, c_select},
    {"drag", "Drag an element to another element, to a point, or a slider to a value.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"to\": {\"oneOf\": [{\"type\": \"string\", \"minLength\": 1}, {\"type\": \"object\", "
     "\"properties\": {\"label\": {\"type\": \"string\"}, \"index\": {\"type\": \"integer\", "
     "\"minimum\": 1}, \"x\": {\"type\": \"number\"}, \"y\": {\"type\": \"number\"}}}]}, "
     "\"value\": {\"type\": [\"number\", \"string\"]}, \"verb\": " VERB_SCHEMA
     "}, \"required\": [\"target\"]}",
     TOOL_MUTATES | TOOL_TARGETED, t_drag, c_drag},
    {"scroll",
     "Scroll the page or the box under an element, through the hand: until a target shows, by "
     "dy pixels, a direction, to top/bottom, to a percent, or to a text.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"dy\": {\"type\": \"integer\", \"minimum\": -100000, \"maximum\": 100000}, "
     "\"direction\": {\"type\": \"string\", \"enum\": [\"up\", \"down\"]}, \"pixels\": {\"type\": "
     "\"integer\", \"minimum\": 1, \"maximum\": 100000}, \"to\": {\"type\": \"string\", \"enum\": "
     "[\"top\", \"bottom\"]}, \"percent\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": "
     "100}, \"to_text\": {\"type\": \"string\", \"minLength\": 1}, \"within\": " TARGET_SCHEMA
     ", \"verb\": " VERB_SCHEMA "}}",
     TOOL_MUTATES, t_scroll, c_scroll},
    {"wait_for", "Wait until an element is seen, or a text is on the page.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"text\": {\"type\": \"string\"}, \"pattern\": {\"type\": \"string\"}, \"verb\": "
     VERB_SCHEMA "}}",
     0, t_wait_for, c_wait_for},
    {"assert_text", "Check that a text or pattern is on the page, or in an element.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"text\": {\"type\": \"string\"}, \"pattern\": {\"type\": \"string\", \"description\": "
     "\"a PCRE2 regular expression\"}, \"verb\": " VERB_SCHEMA "}}",
     0, t_assert_text, c_assert_text},
    {"extract", "Read the lines of the page (or of an element) that match a pattern.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"pattern\": {\"type\": \"string\"}, \"text\": {\"type\": \"string\"}, \"verb\": "
     VERB_SCHEMA "}}",
     0, t_extract, c_extract},
    {"handle_dialog",
     "Say how to answer the NEXT JavaScript dialog (alert, confirm, prompt, beforeunload).",
     "{\"type\": \"object\", \"properties\": {\"accept\": {\"type\": \"boolean\"}, "
     "\"prompt_text\": {\"type\": \"string\", \"maxLength\": 255}, \"expect\": {\"type\": "
     "\"string\", \"maxLength\": 255}, \"password\": {\"type\": \"boolean\"}, \"secret\": "
     "{\"type\": \"boolean\"}}}",
     0, t_dialog, c_dialog},
    {"done", "The task is finished (success true) or cannot be (false); text is the answer.",
     "{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}, \"success\": "
     "{\"type\": \"boolean\"}}}",
     0, t_done, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL},
};
