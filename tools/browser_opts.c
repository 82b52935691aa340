/* tools/browser_opts.c: the browser set-up shared by CLI subcommands.
 *
 * Every command that looks at a page accepts the same options (--url,
 * --site, --cdp, --width, --height, --scale, --headful) and goes through
 * cli_session_open, so launching, attaching and serving a local folder
 * behave the same everywhere. With --cdp, --target adopts an existing tab
 * (cdp_page_adopt): its viewport is left alone and it stays open after.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "perception/kit.h"

const char cli_browser_opts_help[] =
    "  --url URL        page to open (with --site: a path inside the site, default /)\n"
    "  --site DIR       serve DIR on 127.0.0.1 (random port) and open it\n"
    "  --cdp ENDPOINT   attach to a running browser (ws://… or http://host:port)\n"
    "                   instead of launching Chromium\n"
    "  --width N        viewport width in CSS px (default 1280)\n"
    "  --height N       viewport height in CSS px (default 800)\n"
    "  --scale F        device scale factor (default 1)\n"
    "  --headful        show the browser window\n"
    "  --target T       with --cdp: the existing tab to use, by target id or a\n"
    "                   substring of its URL (default without --url: the first\n"
    "                   page tab); its viewport is left as it is and the tab\n"
    "                   stays open when fovea exits\n";

const char cli_pool_opts_help[] =
    "  --cdp-header 'Name: value'  with --cdp: a header for the pool (repeatable), e.g.\n"
    "                   'Authorization: Bearer TOKEN' (a token may also sit in the\n"
    "                   URL's query: ws://host:port/chromium?token=T)\n"
    "  --cdp-wait S     with --cdp: wait up to S seconds for a browser: queued in the\n"
    "                   pool, or asked again with backoff while it answers 429 (full)\n";

int cli_parse_pool_opt(cli_pool *p, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--cdp-header") != 0 && strcmp(a, "--cdp-wait") != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "fovea: %s needs a value\n", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (strcmp(a, "--cdp-wait") == 0) {
        int s = 0;
        if (cli_parse_int(a, v, 0, 3600, &s) < 0)
            return -1;
        p->wait_ms = s * 1000;
        return 1;
    }
    const char *colon = strchr(v, ':');
    if (!colon || colon == v || strpbrk(v, "\r\n")) {
        fprintf(stderr, "fovea: --cdp-header must be 'Name: value' on one line\n");
        return -1;
    }
    if (p->nheaders >= CLI_POOL_MAX_HEADERS) {
        fprintf(stderr, "fovea: at most %d --cdp-header options\n", CLI_POOL_MAX_HEADERS);
        return -1;
    }
    p->headers[p->nheaders++] = v;
    p->headers[p->nheaders] = NULL;
    return 1;
}

void cli_browser_opts_init(cli_browser_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1280;
    o->height = 800;
    o->scale = 1.0;
}

int cli_parse_int(const char *name, const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) {
        fprintf(stderr, "fovea: %s must be an integer in %d..%d, got '%s'\n", name, lo, hi, v);
        return -1;
    }
    *out = (int)x;
    return 1;
}

int cli_add_allow_host(char *list, size_t cap, const char *host)
{
    size_t k = strlen(list);
    if (!host[0] || strchr(host, ',') || k + strlen(host) + 2 > cap) {
        fprintf(stderr, "fovea run: --allow-host: one non-empty host per flag (got '%.80s')\n",
                host);
        return -1;
    }
    snprintf(list + k, cap - k, "%s%s", k ? "," : "", host);
    return 0;
}

int cli_parse_browser_opt(cli_browser_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int takes = strcmp(a, "--url") == 0 || strcmp(a, "--site") == 0 || strcmp(a, "--cdp") == 0 ||
                strcmp(a, "--width") == 0 || strcmp(a, "--height") == 0 ||
                strcmp(a, "--scale") == 0 || strcmp(a, "--target") == 0;
    if (strcmp(a, "--headful") == 0) {
        o->headful = 1;
        return 1;
    }
    if (!takes)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "fovea: %s needs a value\n", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (strcmp(a, "--width") == 0 || strcmp(a, "--height") == 0 || strcmp(a, "--scale") == 0)
        o->viewport_set = 1;
    if (strcmp(a, "--target") == 0) {
        if (!v[0]) {
            fprintf(stderr, "fovea: --target needs a target id or a URL substring\n");
            return -1;
        }
        o->target = v;
    } else if (strcmp(a, "--url") == 0)
        o->url = v;
    else if (strcmp(a, "--site") == 0)
        o->site = v;
    else if (strcmp(a, "--cdp") == 0)
        o->cdp = v;
    else if (strcmp(a, "--width") == 0)
        return cli_parse_int(a, v, 16, 8192, &o->width);
    else if (strcmp(a, "--height") == 0)
        return cli_parse_int(a, v, 16, 8192, &o->height);
    else {
        char *end;
        double s = strtod(v, &end);
        if (*end || !(s >= 0.25 && s <= 8)) {
            fprintf(stderr, "fovea: --scale must be a number in 0.25..8, got '%s'\n", v);
            return -1;
        }
        o->scale = s;
    }
    return 1;
}

/* Appends one "  id  url  'title'" line per tab to why (as much as fits). */
static void list_tabs(char *why, size_t why_n, const cdp_target_info *t, int n, const char *spec,
                      int only_matches)
{
    for (int i = 0; i < n; i++) {
        if (!cdp_target_is_tab(&t[i]) || (only_matches && !strstr(t[i].url, spec)))
            continue;
        size_t k = strlen(why);
        if (k + 1 >= why_n)
            return;
        snprintf(why + k, why_n - k, "\n  %s  %.200s  '%.80s'", t[i].id, t[i].url, t[i].title);
    }
}

#define MAX_TARGETS 256

int cli_find_target(cdp_browser *b, const char *spec, char *id, char *why, size_t why_n)
{
    why[0] = '\0';
    cdp_target_info *t = base_calloc(MAX_TARGETS, sizeof *t);
    if (!t) {
        snprintf(why, why_n, "out of memory");
        return -1;
    }
    int n = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_browser_targets(b, t, MAX_TARGETS, &n, err) != BASE_OK) {
        snprintf(why, why_n, "cannot list the browser's tabs: %s", err);
        base_free(t);
        return -1;
    }
    if (n > MAX_TARGETS)
        n = MAX_TARGETS;
    int found = -1, matches = 0, tabs = 0;
    /* An exact id wins over any URL match: ids are what --target prints. */
    for (int i = 0; spec && spec[0] && i < n && found < 0; i++) {
        if (strcmp(t[i].id, spec) == 0)
            found = i;
    }
    int by_id = found >= 0;
    for (int i = 0; !by_id && i < n; i++) {
        if (!cdp_target_is_tab(&t[i]))
            continue;
        tabs++;
        if (!spec || !spec[0]) {
            if (found < 0)
                found = i;
        } else if (strstr(t[i].url, spec)) {
            if (matches++ == 0)
                found = i;
        }
    }
    int rc = 0;
    if (found >= 0 && matches <= 1) {
        snprintf(id, 64, "%s", t[found].id);
    } else if (matches > 1) {
        snprintf(why, why_n, "--target '%s' matches %d tabs; give one of their ids:", spec,
                 matches);
        list_tabs(why, why_n, t, n, spec, 1);
        rc = 1;
    } else if (!tabs) {
        snprintf(why, why_n, "the browser has no page tab (%d targets, none of type page)", n);
        rc = 1;
    } else {
        snprintf(why, why_n, "--target '%s' matches no tab id or URL; the tabs are:",
                 spec ? spec : "");
        list_tabs(why, why_n, t, n, spec, 0);
        rc = 1;
    }
    base_free(t);
    return rc;
}

/* The task's init script goes in before the first navigation, so it runs
 * before the start page's own scripts, and on every later load. */
static base_err add_init_script(cdp_page *p, const cli_browser_opts *o, char *err)
{
    if (!o->init_script)
        return BASE_OK;
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "source", o->init_script)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    return cdp_page_call(p, "Page.addScriptToEvaluateOnNewDocument", pa, NULL, 10000, err);
}

base_err cli_session_open(cli_session *s, const cli_browser_opts *o)
{
    memset(s, 0, sizeof *s);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = BASE_OK;
    if (o->target && !o->cdp) {
        fprintf(stderr, "fovea: --target names a tab of a running browser; give --cdp too\n");
        return BASE_EINVAL;
    }
    /* Adopt an existing tab when one is named, or when attached without a
     * page to open: the user's own tab is the point of attaching then. */
    int adopt = o->cdp && (o->target || (!o->url && !o->site));
    if (o->site) {
        serve_httpd_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.root = o->site;
        if ((e = serve_httpd_start(&ho, &s->srv, err))) {
            fprintf(stderr, "fovea: cannot serve %s: %s\n", o->site, err);
            return e;
        }
        const char *path = o->url ? o->url : "/";
        snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d%s%s", serve_httpd_port(s->srv),
                 path[0] == '/' ? "" : "/", path);
    } else if (o->url) {
        snprintf(s->url, sizeof s->url, "%s", o->url);
    } else if (!adopt) {
        fprintf(stderr, "fovea: give --url or --site (or --cdp with --target)\n");
        return BASE_EINVAL;
    }
    if (o->cdp) {
        cdp_attach_opts ao;
        memset(&ao, 0, sizeof ao);
        if (o->pool) {
            ao.headers = o->pool->nheaders ? o->pool->headers : NULL;
            ao.wait_ms = o->pool->wait_ms;
        }
        e = cdp_browser_attach_with(o->cdp, &ao, &s->browser, err);
    } else {
        cdp_launch_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.headful = o->headful;
        lo.window_w = o->width;
        lo.window_h = o->height;
        e = cdp_browser_launch(&lo, &s->browser, err);
    }
    if (e) {
        fprintf(stderr, "fovea: browser: %s\n", err);
        cli_session_close(s);
        return e;
    }
    if (adopt) {
        char id[64], why[4096];
        int r = cli_find_target(s->browser, o->target, id, why, sizeof why);
        if (r) {
            fprintf(stderr, "fovea: %s\n", why);
            cli_session_close(s);
            return r < 0 ? BASE_EIO : BASE_ENOTFOUND;
        }
        if ((e = cdp_page_adopt(s->browser, id, &s->page, err))) {
            fprintf(stderr, "fovea: tab %s: %s\n", id, err);
            cli_session_close(s);
            return e;
        }
        /* The kit's listener recorder goes into the adopted tab's current
         * document and every later one, so listeners the page adds from now
         * on are known; those added before are found by the snapshot's
         * DOMDebugger fallback. A tab that refuses it is still usable. */
        if (perc_kit_install(s->page, err))
            fprintf(stderr, "fovea: note: tab %s: listener recorder not installed: %s\n", id,
                    err);
        if ((e = add_init_script(s->page, o, err))) {
            fprintf(stderr, "fovea: tab %s: init script: %s\n", id, err);
            cli_session_close(s);
            return e;
        }
        /* A background tab paints no frames (screenshots and effect checks
         * would wait): switch to it, as a person would. */
        if ((e = cdp_page_activate(s->page, err))) {
            fprintf(stderr, "fovea: tab %s: %s\n", id, err);
            cli_session_close(s);
            return e;
        }
        if (o->viewport_set)
            fprintf(stderr, "fovea: note: --width/--height/--scale ignored: the tab keeps its "
                            "own viewport (%dx%d @%g)\n",
                    cdp_page_viewport(s->page)->width, cdp_page_viewport(s->page)->height,
                    cdp_page_viewport(s->page)->scale);
        if (s->url[0] && (e = cdp_page_navigate(s->page, s->url, 30000, err))) {
            fprintf(stderr, "fovea: page: %s\n", err);
            cli_session_close(s);
            return e;
        }
        if (!s->url[0]) {
            cJSON *v = NULL;
            if (cdp_page_evaluate(s->page, "location.href", &v, 5000, NULL) == BASE_OK &&
                cJSON_IsString(v))
                snprintf(s->url, sizeof s->url, "%s", v->valuestring);
            cJSON_Delete(v);
        }
        return BASE_OK;
    }
    cdp_page_opts po = {o->width, o->height, o->scale, 0};
    /* The page kit's listener recorder goes in before the page's scripts
     * run, so listener-only controls are known (perception/kit.h). */
    if ((e = cdp_page_open(s->browser, &po, &s->page, err)) ||
        (e = perc_kit_install(s->page, err)) || (e = add_init_script(s->page, o, err))) {
        fprintf(stderr, "fovea: page: %s\n", err);
        cli_session_close(s);
        return e;
    }
    if ((e = cdp_page_navigate(s->page, s->url, o->nav_timeout_ms > 0 ? o->nav_timeout_ms : 30000,
                               err))) {
        if (o->nav_err)
            snprintf(o->nav_err, BASE_ERRBUF_SIZE, "%s", err);
        else
            fprintf(stderr, "fovea: page: %s\n", err);
        cli_session_close(s);
        return e;
    }
    return BASE_OK;
}

void cli_session_close(cli_session *s)
{
    cdp_page_close(s->page);
    cdp_browser_destroy(s->browser);
    serve_httpd_destroy(s->srv);
    memset(s, 0, sizeof *s);
}

base_err cli_mkdirs_for(const char *path, char *err)
{
    return base_mkdirs(path, 1, err);
}
