/* cascade/upload.c: files into an <input type=file>.
 *
 * A file input opens the operating system's chooser, which no page input
 * can drive; the browser's own path (DOM.setFileInputFiles) sets the files
 * and fires the input/change events a chosen file fires. Styled upload
 * areas hide the input inside a label or wrapper: the page half finds it
 * (fileInfo / fileInput). A button that opens the chooser from script (an
 * input created on the fly) is clicked with the chooser intercepted
 * (Page.setInterceptFileChooserDialog), and the chooser that opens
 * (Page.fileChooserOpened, its backendNodeId) gets the files. The paths are
 * checked before anything touches the page.
 */
/* realpath is an XSI function in glibc's headers. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"
#include "cascade/input.h"

/* The absolute paths of paths[0..n) as a JSON array, each checked to be a
 * readable regular file. */
static base_err check_paths(const char *const *paths, int n, cJSON **out, char *err)
{
    *out = NULL;
    if (n < 1)
        return base_errf(err, BASE_EINVAL, "no file given");
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    for (int i = 0; i < n; i++) {
        const char *p = paths[i];
        struct stat st;
        if (!p || !p[0]) {
            cJSON_Delete(arr);
            return base_errf(err, BASE_EINVAL, "file %d: empty path", i + 1);
        }
        if (stat(p, &st) != 0) {
            int en = errno;
            cJSON_Delete(arr);
            return base_errf(err, BASE_EINVAL, "file '%.200s' %s", p,
                             en == ENOENT ? "does not exist" : strerror(en));
        }
        if (!S_ISREG(st.st_mode)) {
            cJSON_Delete(arr);
            return base_errf(err, BASE_EINVAL, "'%.200s' is not a regular file", p);
        }
        if (access(p, R_OK) != 0) {
            cJSON_Delete(arr);
            return base_errf(err, BASE_EINVAL, "file '%.200s' is not readable", p);
        }
        char abs[PATH_MAX];
        if (!realpath(p, abs)) {
            cJSON_Delete(arr);
            return base_errf(err, BASE_EINVAL, "file '%.200s': %s", p, strerror(errno));
        }
        cJSON *s = cJSON_CreateString(abs);
        if (!s || !cJSON_AddItemToArray(arr, s)) {
            cJSON_Delete(s);
            cJSON_Delete(arr);
            return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
        }
    }
    *out = arr;
    return BASE_OK;
}

/* The names of the files the input (objectId on session) holds, into buf. */
static void file_names(cascade_hand *h, const char *session, const char *oid, char *buf,
                       size_t cap, int *count)
{
    buf[0] = '\0';
    *count = -1;
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "objectId", oid) ||
        !cJSON_AddStringToObject(pa, "functionDeclaration",
                                 "function(){return [...(this.files||[])].map(f=>f.name)}") ||
        !cJSON_AddBoolToObject(pa, "returnByValue", 1)) {
        cJSON_Delete(pa);
        return; /* the names stay unknown (count -1) */
    }
    cJSON *res = NULL;
    if (cdp_call(cdp_page_conn(h->page), session, "Runtime.callFunctionOn", pa, &res, 10000,
                 NULL))
        return;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
    size_t w = 0;
    *count = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it))
            continue;
        int r = snprintf(buf + w, cap - w, "%s%s", w ? ", " : "", it->valuestring);
        (*count)++;
        if (r < 0 || (size_t)r >= cap - w)
            break;
        w += (size_t)r;
    }
    cJSON_Delete(res);
}

static base_err intercept(cascade_hand *h, int on, char *err)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddBoolToObject(pa, "enabled", on)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    return cdp_page_call(h->page, "Page.setInterceptFileChooserDialog", pa, NULL, 10000, err);
}

/* Sets files on the node (objectId or backendNodeId) over session and
 * reads back the names. */
static base_err set_files(cascade_hand *h, const char *session, const char *oid, int backend,
                          const cJSON *files, char *names, size_t names_n, int *count, char *err)
{
    /* Complete or not sent: without its files the call would clear the
     * input; without its node it names none. */
    cJSON *pa = cJSON_CreateObject();
    cJSON *fl = cJSON_Duplicate(files, 1);
    if (!pa || !fl || !cJSON_AddItemToObject(pa, "files", fl)) {
        cJSON_Delete(fl);
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    if (oid ? !cJSON_AddStringToObject(pa, "objectId", oid)
            : !cJSON_AddNumberToObject(pa, "backendNodeId", backend)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    base_err e = cdp_call(cdp_page_conn(h->page), session, "DOM.setFileInputFiles", pa, NULL,
                          10000, err);
    if (e)
        return e;
    char got[512];
    if (oid) {
        file_names(h, session, oid, got, sizeof got, count);
    } else {
        char o[256];
        got[0] = '\0';
        *count = -1; /* the names stay unknown when the node cannot be resolved */
        if (cascade__resolve_node(h, session, backend, o, sizeof o)) {
            file_names(h, session, o, got, sizeof got, count);
            cascade__release_object(h, session, o);
        }
    }
    if (names && names_n)
        snprintf(names, names_n, "%s", got);
    return BASE_OK;
}

static int chooser_any(const cJSON *params, void *user)
{
    (void)params;
    (void)user;
    return 1;
}

base_err cascade_upload(cascade_hand *h, const cascade_target *t, const char *const *paths, int n,
                        char *names, size_t names_n, cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_upload: NULL result");
    cascade__result_init(out);
    if (names && names_n)
        names[0] = '\0';
    if (!h || !t || !(t->xpath && t->xpath[0]) || !paths) {
        cascade__msg(out, CASCADE_ERROR, "invalid arguments: an upload needs an element's xpath "
                                         "and files");
        return base_errf(err, BASE_EINVAL, "cascade_upload: bad hand, target or paths");
    }
    double t0 = base_monotime_ms();
    const char *label = t->label && t->label[0] ? t->label : t->xpath;
    const char *fid = t->frame_id ? t->frame_id : "";
    cJSON *files = NULL;
    base_err e = check_paths(paths, n, &files, err);
    if (e) {
        cascade__msg(out, CASCADE_ERROR, "nothing uploaded: %s", err && err[0] ? err : "bad path");
        return e;
    }
    int count = -1;
    char got[512] = "";
    cJSON *a = cascade__xpath_arg(t->xpath);
    cJSON *info = NULL;
    e = a ? cascade__call(h, fid, "fileInfo", a, 1, &info, 10000, err)
          : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    if (e) {
        cascade__msg(out, CASCADE_ERROR, "upload to %s failed: %s", label,
                     err && err[0] ? err : base_strerror(e));
        goto end;
    }
    if (!cascade__bool(info, "found")) {
        cascade__msg(out, CASCADE_NOT_FOUND, "%s was not found (take a fresh look)", label);
        goto end;
    }
    cascade_try *tr = cascade__try(out, 1);
    double tt = base_monotime_ms();
    if (cascade__bool(info, "input")) {
        const char *dis = cascade__str(info, "disabled");
        const char *desc = cascade__str(info, "desc");
        if (dis && dis[0]) {
            cascade__msg(out, CASCADE_DISABLED, "the file input of %s (%s) is %s; nothing uploaded",
                         label, desc ? desc : "?", dis);
            goto end;
        }
        if (n > 1 && !cascade__bool(info, "multiple")) {
            e = base_errf(err, BASE_EINVAL, "%s takes one file (no 'multiple'); %d given", label, n);
            cascade__msg(out, CASCADE_ERROR, "nothing uploaded: %s", err ? err : "");
            goto end;
        }
        char sess[64];
        e = cascade__session(h, fid, sess, err);
        cJSON *obj = NULL;
        if (!e) {
            cJSON *fa = cascade__xpath_arg(t->xpath);
            e = fa ? cascade__call(h, fid, "fileInput", fa, 0, &obj, 10000, err)
                   : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
        }
        const char *oid = e ? NULL : cascade__str(obj, "objectId");
        if (!e && !oid) {
            cJSON_Delete(obj);
            cascade__msg(out, CASCADE_NOT_FOUND, "the file input of %s went away", label);
            goto end;
        }
        if (!e) {
            e = set_files(h, sess, oid, 0, files, got, sizeof got, &count, err);
            cascade__release_object(h, sess, oid);
        }
        cJSON_Delete(obj);
        if (e) {
            out->delivered = 1; /* the browser may have set them */
            cascade__msg(out, CASCADE_ERROR, "upload to %s failed: %s", label,
                         err && err[0] ? err : base_strerror(e));
            goto end;
        }
        if (tr) {
            tr->success = 1;
            tr->ms = base_monotime_ms() - tt;
            snprintf(tr->outcome, sizeof tr->outcome, "files set on %.60s", desc ? desc : "input");
        }
    } else {
        /* No input inside: a control that opens the chooser from script. */
        cdp_waiter *w = NULL;
        e = intercept(h, 1, err);
        if (!e)
            e = cdp_waiter_create(cdp_page_conn(h->page), cdp_page_session(h->page),
                                  "Page.fileChooserOpened", chooser_any, NULL, &w);
        if (e) {
            (void)intercept(h, 0, NULL);
            cascade__msg(out, CASCADE_ERROR, "cannot watch for a file chooser: %s",
                         err && err[0] ? err : base_strerror(e));
            goto end;
        }
        cascade_result cr;
        cascade_target ct = *t;
        ct.expect_effect = -1;
        e = cascade_click(h, &ct, &cr, err);
        cJSON *ev = NULL;
        base_err we = BASE_ETIMEDOUT;
        if (!e && cr.delivered) {
            int ms = h->o.effect_ms > 2000 ? h->o.effect_ms : 2000;
            we = cdp_waiter_wait(w, ms, &ev);
        }
        cdp_waiter_destroy(w);
        if (!e && !cr.delivered) {
            (void)intercept(h, 0, NULL);
            cascade__msg(out, cr.reason, "%s holds no file input, and clicking it failed: %.150s",
                         label, cr.message);
            goto end;
        }
        out->delivered = 1; /* the click went out */
        if (e || we) {
            (void)intercept(h, 0, NULL);
            cJSON_Delete(ev);
            if (e)
                cascade__msg(out, CASCADE_ERROR, "upload to %s failed: %s", label,
                             err && err[0] ? err : base_strerror(e));
            else
                cascade__msg(out, CASCADE_NO_EFFECT,
                             "%s holds no file input and clicking it opened no file chooser", label);
            goto end;
        }
        int backend = (int)cascade__num(ev, "backendNodeId", 0);
        const char *mode = cascade__str(ev, "mode");
        int multi = mode && strcmp(mode, "selectMultiple") == 0;
        if (!backend || (n > 1 && !multi)) {
            cJSON_Delete(ev);
            (void)intercept(h, 0, NULL);
            if (!backend)
                cascade__msg(out, CASCADE_ERROR, "the file chooser of %s names no input", label);
            else
                cascade__msg(out, CASCADE_ERROR, "the file chooser of %s takes one file; %d given",
                             label, n);
            goto end;
        }
        cJSON_Delete(ev);
        e = set_files(h, cdp_page_session(h->page), NULL, backend, files, got, sizeof got, &count,
                      err);
        (void)intercept(h, 0, NULL);
        if (e) {
            cascade__msg(out, CASCADE_ERROR, "upload to %s failed: %s", label,
                         err && err[0] ? err : base_strerror(e));
            goto end;
        }
        if (tr) {
            tr->success = 1;
            tr->ms = base_monotime_ms() - tt;
            snprintf(tr->outcome, sizeof tr->outcome, "file chooser opened, files set");
        }
    }
    out->delivered = 1;
    out->effects |= CASCADE_FX_VALUE;
    if (count != n) {
        cascade__msg(out, CASCADE_NO_EFFECT, "%s: the input holds %d file%s (%s), %d were set",
                     label, count, count == 1 ? "" : "s", got, n);
    } else {
        out->success = 1;
        cascade__msg(out, CASCADE_OK, "%s now holds %s", label, got);
    }
    if (names && names_n)
        snprintf(names, names_n, "%s", got);

end:
    cJSON_Delete(info);
    cJSON_Delete(files);
    out->ms = base_monotime_ms() - t0;
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "upload %s: %s", label, out->message);
    return e;
}
