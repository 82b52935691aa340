/* tools/session.c: the browser set-up shared by CLI subcommands.
 *
 * Every command that looks at a page accepts the same options (--url,
 * --site, --cdp, --width, --height, --scale, --headful) and goes through
 * cli_session_open, so launching, attaching and serving a local folder
 * behave the same everywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

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
    "  --headful        show the browser window\n";

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

int cli_parse_browser_opt(cli_browser_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int takes = strcmp(a, "--url") == 0 || strcmp(a, "--site") == 0 || strcmp(a, "--cdp") == 0 ||
                strcmp(a, "--width") == 0 || strcmp(a, "--height") == 0 ||
                strcmp(a, "--scale") == 0;
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
    if (strcmp(a, "--url") == 0)
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

base_err cli_session_open(cli_session *s, const cli_browser_opts *o)
{
    memset(s, 0, sizeof *s);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = BASE_OK;
    if (o->site) {
        base_httpd_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.root = o->site;
        if ((e = base_httpd_start(&ho, &s->srv, err))) {
            fprintf(stderr, "fovea: cannot serve %s: %s\n", o->site, err);
            return e;
        }
        const char *path = o->url ? o->url : "/";
        snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d%s%s", base_httpd_port(s->srv),
                 path[0] == '/' ? "" : "/", path);
    } else if (o->url) {
        snprintf(s->url, sizeof s->url, "%s", o->url);
    } else {
        fprintf(stderr, "fovea: give --url or --site\n");
        return BASE_EINVAL;
    }
    if (o->cdp) {
        e = cdp_browser_attach(o->cdp, &s->browser, err);
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
    cdp_page_opts po = {o->width, o->height, o->scale, 0};
    /* The page kit's listener recorder goes in before the page's scripts
     * run, so listener-only controls are known (perception/kit.h). */
    if ((e = cdp_page_open(s->browser, &po, &s->page, err)) ||
        (e = perc_kit_install(s->page, err)) ||
        (e = cdp_page_navigate(s->page, s->url, 30000, err))) {
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
    base_httpd_destroy(s->srv);
    memset(s, 0, sizeof *s);
}

base_err cli_mkdirs_for(const char *path, char *err)
{
    return base_mkdirs(path, 1, err);
}
