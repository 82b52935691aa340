/* cascade/effects.c: the effects of a press that only the browser sees.
 *
 * The page half (cascade_hand.js) judges what happens inside the document:
 * mutations (light DOM and shadow roots), URL, values, checked states,
 * focus, selection. A press can also act outside it: it starts a request
 * (a "like" sent with fetch, a beacon), opens a tab (window.open, a link
 * with target=_blank), or opens a JavaScript dialog (which blocks the
 * page's scripts, so the page half cannot report it at all). Those come
 * from CDP events, counted here by callbacks on the cdp service thread and
 * read by the hand's owner under a mutex; the click compares a snapshot
 * taken right before the press with the counters after its effect wait.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "cascade/cascade_int.h"

struct cascade__fx {
    pthread_mutex_t mu;
    cdp_conn *conn;
    char target_id[64];
    int sub_req, sub_tab, sub_dlg;
    unsigned long requests, tabs, dialogs;
    char tab_id[64];
    char dlg_type[16];
    char dlg_msg[256];
};

static void on_request(const char *session, const char *method, const cJSON *params, void *user)
{
    (void)session;
    (void)method;
    struct cascade__fx *f = user;
    /* Requests the page starts; data: URLs never leave the page. */
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(params, "request");
    const char *u = cascade__str(req, "url");
    if (u && strncmp(u, "data:", 5) == 0)
        return;
    pthread_mutex_lock(&f->mu);
    f->requests++;
    pthread_mutex_unlock(&f->mu);
}

static void on_target(const char *session, const char *method, const cJSON *params, void *user)
{
    (void)session;
    (void)method;
    struct cascade__fx *f = user;
    const cJSON *ti = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
    const char *opener = cascade__str(ti, "openerId");
    const char *type = cascade__str(ti, "type");
    const char *id = cascade__str(ti, "targetId");
    if (!opener || !id || strcmp(opener, f->target_id) != 0 || !type || strcmp(type, "page") != 0)
        return;
    pthread_mutex_lock(&f->mu);
    f->tabs++;
    snprintf(f->tab_id, sizeof f->tab_id, "%s", id);
    pthread_mutex_unlock(&f->mu);
}

static void on_dialog(const char *session, const char *method, const cJSON *params, void *user)
{
    (void)session;
    (void)method;
    struct cascade__fx *f = user;
    const char *type = cascade__str(params, "type");
    const char *msg = cascade__str(params, "message");
    pthread_mutex_lock(&f->mu);
    f->dialogs++;
    snprintf(f->dlg_type, sizeof f->dlg_type, "%s", type ? type : "");
    snprintf(f->dlg_msg, sizeof f->dlg_msg, "%s", msg ? msg : "");
    pthread_mutex_unlock(&f->mu);
}

base_err cascade__fx_start(cascade_hand *h, char *err)
{
    struct cascade__fx *f = base_calloc(1, sizeof *f);
    if (!f)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    pthread_mutex_init(&f->mu, NULL);
    f->conn = cdp_page_conn(h->page);
    snprintf(f->target_id, sizeof f->target_id, "%s", cdp_page_target_id(h->page));
    h->fx = f;
    const char *sess = cdp_page_session(h->page);
    f->sub_req = cdp_subscribe(f->conn, "Network.requestWillBeSent", sess, on_request, f);
    f->sub_tab = cdp_subscribe(f->conn, "Target.targetCreated", NULL, on_target, f);
    f->sub_dlg = cdp_subscribe(f->conn, "Page.javascriptDialogOpening", sess, on_dialog, f);
    if (f->sub_req < 0 || f->sub_tab < 0 || f->sub_dlg < 0)
        return base_errf(err, BASE_ENOMEM, "cascade: cannot subscribe to page events");
    /* Network events only flow once the domain is on; new tabs are only
     * announced to a client that discovers targets. Both are idempotent,
     * so another part of fovea enabling them too is harmless. */
    /* A browser that refuses either (a restricted endpoint) costs only these
     * effects: the hand works on, and says so in the log. */
    char e2[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_call(f->conn, sess, "Network.enable", NULL, NULL, 10000, e2);
    if (e == BASE_ECLOSED)
        return base_errf(err, e, "%s", e2);
    if (e)
        base_log(BASE_LOG_CASCADE, BASE_LOG_WARN, "requests will not count as effects: %s", e2);
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddBoolToObject(pa, "discover", 1)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    e = cdp_call(f->conn, NULL, "Target.setDiscoverTargets", pa, NULL, 10000, e2);
    if (e == BASE_ECLOSED)
        return base_errf(err, e, "%s", e2);
    if (e)
        base_log(BASE_LOG_CASCADE, BASE_LOG_WARN, "new tabs will not count as effects: %s", e2);
    return BASE_OK;
}

void cascade__fx_stop(cascade_hand *h)
{
    struct cascade__fx *f = h ? h->fx : NULL;
    if (!f)
        return;
    if (f->sub_req > 0)
        cdp_unsubscribe(f->conn, f->sub_req);
    if (f->sub_tab > 0)
        cdp_unsubscribe(f->conn, f->sub_tab);
    if (f->sub_dlg > 0)
        cdp_unsubscribe(f->conn, f->sub_dlg);
    pthread_mutex_destroy(&f->mu);
    base_free(f);
    h->fx = NULL;
}

void cascade__fx_snapshot(cascade_hand *h, cascade__fx_snap *s)
{
    memset(s, 0, sizeof *s);
    struct cascade__fx *f = h->fx;
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    s->requests = f->requests;
    s->tabs = f->tabs;
    s->dialogs = f->dialogs;
    pthread_mutex_unlock(&f->mu);
}

int cascade__fx_changed(cascade_hand *h, const cascade__fx_snap *s)
{
    cascade__fx_snap now;
    cascade__fx_snapshot(h, &now);
    return now.requests != s->requests || now.tabs != s->tabs || now.dialogs != s->dialogs;
}

unsigned cascade__fx_since(cascade_hand *h, const cascade__fx_snap *s, cascade_result *out)
{
    struct cascade__fx *f = h->fx;
    if (!f)
        return 0;
    unsigned bits = 0;
    pthread_mutex_lock(&f->mu);
    if (f->requests > s->requests)
        bits |= CASCADE_FX_REQUEST;
    if (f->tabs > s->tabs) {
        bits |= CASCADE_FX_NEW_TAB;
        snprintf(out->new_target_id, sizeof out->new_target_id, "%s", f->tab_id);
    }
    if (f->dialogs > s->dialogs) {
        bits |= CASCADE_FX_DIALOG;
        snprintf(out->dialog_type, sizeof out->dialog_type, "%s", f->dlg_type);
        snprintf(out->dialog_message, sizeof out->dialog_message, "%s", f->dlg_msg);
    }
    pthread_mutex_unlock(&f->mu);
    out->effects |= bits;
    return bits;
}

/* Every effect's name, the one table (the page half reports the DOM-side
 * ones by these names; the browser-side ones are named here only). */
static const struct {
    const char *name;
    unsigned bit;
} fx_names[] = {
    {"mutation", CASCADE_FX_MUTATION},   {"url", CASCADE_FX_URL},
    {"value", CASCADE_FX_VALUE},         {"checked", CASCADE_FX_CHECKED},
    {"focus", CASCADE_FX_FOCUS},         {"selection", CASCADE_FX_SELECTION},
    {"shadow", CASCADE_FX_SHADOW},       {"request", CASCADE_FX_REQUEST},
    {"new_tab", CASCADE_FX_NEW_TAB},     {"dialog", CASCADE_FX_DIALOG},
    {"shown", CASCADE_FX_SHOWN},
};

const char *cascade_effect_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof fx_names / sizeof fx_names[0]; i++)
        if (fx_names[i].bit == bit)
            return fx_names[i].name;
    return NULL;
}

unsigned cascade__fx_bits(const cJSON *names)
{
    /* Only the DOM-side names come from the page: the browser-side bits
     * (request, new tab, dialog) are counted here, not taken on its word. */
    const unsigned page_side = CASCADE_FX_MUTATION | CASCADE_FX_URL | CASCADE_FX_VALUE |
                               CASCADE_FX_CHECKED | CASCADE_FX_FOCUS | CASCADE_FX_SELECTION |
                               CASCADE_FX_SHADOW | CASCADE_FX_SHOWN;
    unsigned bits = 0;
    const cJSON *n;
    cJSON_ArrayForEach(n, names)
    {
        if (!cJSON_IsString(n))
            continue;
        for (size_t i = 0; i < sizeof fx_names / sizeof fx_names[0]; i++)
            if (strcmp(n->valuestring, fx_names[i].name) == 0)
                bits |= fx_names[i].bit & page_side;
    }
    return bits;
}
