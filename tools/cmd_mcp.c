/* tools/cmd_mcp.c: `fovea mcp` — fovea's tools for any agent, over the Model
 * Context Protocol (mcp/mcp.h; docs/mcp.md).
 *
 * stdio by default (an MCP host starts the command and speaks JSON-RPC on
 * its stdin/stdout; logs go to stderr); with --port, Streamable HTTP on
 * 127.0.0.1 with a bearer token. The browser is launched (or attached with
 * --cdp) with the first tool call, so a host lists the tools at once.
 * Each MCP session gets its own tab: a new one in the launched or
 * attached browser, closed when the session ends, or with --target the
 * user's own tab (first session only), left open. Only what fovea opened is
 * closed: the attached browser itself keeps running.
 */
#define _XOPEN_SOURCE 700 /* realpath */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/interrupt.h"
#include "mcp/mcp.h"
#include "perception/kit.h"
#include "tools/cli.h"

static void usage(FILE *f)
{
    fputs("usage: fovea mcp [options]\n\n"
          "An MCP server (Model Context Protocol, 2025-06-18) with fovea's tools: the tools of\n"
          "`fovea tools` plus click_box, type_box (a box and a label from a screenshot) and\n"
          "click_point. Navigation and actions answer with the page view. stdio by default\n"
          "(JSON-RPC lines on stdin/stdout, logs on stderr); docs/mcp.md.\n\n"
          "Transport:\n"
          "  --port P           Streamable HTTP on http://127.0.0.1:P/mcp instead of stdio\n"
          "                     (0 = a free port, printed on stderr)\n"
          "  --token T          with --port: the bearer token every request must send (16+\n"
          "                     bytes; default: $FOVEA_MCP_TOKEN; required)\n\n",
          f);
    fputs(cli_browser_opts_help, f);
    fputs(cli_pool_opts_help, f);
    fputs("\nPermissions (as fovea run):\n"
          "  --allow-scripts    list and allow evaluate_script, run_script (default: off)\n"
          "  --upload-dir DIR   upload_file takes files inside DIR only (default: refused)\n"
          "  --allow-host H     navigation only to H (repeatable; H:PORT, '*'); default: any\n"
          "                     host but search engines\n"
          "  --secrets FILE     a JSON object {\"NAME\": \"value\"}: the model types a value as\n"
          "                     {\"secret\": \"NAME\"} and never sees it (masked everywhere)\n\n"
          "Output:\n"
          "  --screenshot       every page view also carries the page image with its [n]\n"
          "                     marks (default: on request, the tools' screenshot argument)\n"
          "  --page-chars N     the page view's budget in characters (default: get_outline's)\n"
          "  --no-humanize      straight, untimed pointer and key events (default: human)\n\n"
          "No telemetry: nothing is sent anywhere but to the browser.\n",
          f);
}

/* Where sessions' pages come from: one browser (launched or attached on the
 * first call), one tab per session. */
typedef struct page_source {
    cli_browser_opts bo;
    pthread_mutex_t mu;
    cdp_browser *browser;
    serve_httpd *srv;
    char start[1024];
    int target_taken;
    cdp_page *adopted;
    /* The browser is launched (or attached) on a thread of its own that
     * lives until the end: a launched Chromium dies with the thread that
     * started it (PR_SET_PDEATHSIG), and a session's worker ends with its
     * session. Started by the first call (listing tools needs no browser). */
    pthread_t launcher;
    pthread_cond_t cv;
    int started, launched, done;
    base_err launch_e;
    char launch_err[BASE_ERRBUF_SIZE];
} page_source;

static void *launcher_main(void *arg)
{
    page_source *ps = arg;
    cdp_browser *b = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e;
    if (ps->bo.cdp) {
        cdp_attach_opts ao;
        memset(&ao, 0, sizeof ao);
        if (ps->bo.pool) {
            ao.headers = ps->bo.pool->nheaders ? ps->bo.pool->headers : NULL;
            ao.wait_ms = ps->bo.pool->wait_ms;
        }
        e = cdp_browser_attach_with(ps->bo.cdp, &ao, &b, err);
    } else {
        cdp_launch_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.headful = ps->bo.headful;
        lo.window_w = ps->bo.width;
        lo.window_h = ps->bo.height;
        e = cdp_browser_launch(&lo, &b, err);
    }
    pthread_mutex_lock(&ps->mu);
    ps->browser = e ? NULL : b;
    ps->launch_e = e;
    snprintf(ps->launch_err, sizeof ps->launch_err, "%s", err);
    ps->launched = 1;
    pthread_cond_broadcast(&ps->cv);
    while (!ps->done)
        pthread_cond_wait(&ps->cv, &ps->mu);
    pthread_mutex_unlock(&ps->mu);
    return NULL;
}

static base_err src_open(void *user, cdp_browser **b, cdp_page **page, char *err)
{
    page_source *ps = user;
    pthread_mutex_lock(&ps->mu);
    if (!ps->started) {
        if (pthread_create(&ps->launcher, NULL, launcher_main, ps) != 0) {
            pthread_mutex_unlock(&ps->mu);
            return base_errf(err, BASE_EIO, "cannot start the browser thread");
        }
        ps->started = 1;
    }
    while (!ps->launched)
        pthread_cond_wait(&ps->cv, &ps->mu);
    base_err e = ps->launch_e;
    if (e)
        base_errf(err, e, "%s", ps->launch_err);
    cdp_page *p = NULL;
    if (!e && ps->bo.target && !ps->target_taken) {
        char id[64], why[1024];
        if (cli_find_target(ps->browser, ps->bo.target, id, why, sizeof why) != 0)
            e = base_errf(err, BASE_ENOTFOUND, "%.200s", why);
        else if (!(e = cdp_page_adopt(ps->browser, id, &p, err))) {
            ps->target_taken = 1;
            ps->adopted = p;
            perc_kit_install(p, NULL); /* a tab that refuses it is still usable */
            e = cdp_page_activate(p, err);
        }
    } else if (!e) {
        cdp_page_opts po = {ps->bo.width, ps->bo.height, ps->bo.scale, 0};
        if (!(e = cdp_page_open(ps->browser, &po, &p, err)))
            e = perc_kit_install(p, err);
        if (!e)
            e = cdp_page_navigate(p, ps->start[0] ? ps->start : "about:blank", 30000, err);
    }
    if (e && p) {
        cdp_page_close(p);
        if (p == ps->adopted) {
            ps->adopted = NULL;
            ps->target_taken = 0;
        }
        p = NULL;
    }
    if (!e) {
        *b = ps->browser;
        *page = p;
    }
    pthread_mutex_unlock(&ps->mu);
    return e;
}

static void src_close(void *user, cdp_page *page)
{
    page_source *ps = user;
    pthread_mutex_lock(&ps->mu);
    /* An adopted tab is the user's: closing the page only detaches. */
    cdp_page_close(page);
    if (page == ps->adopted) {
        ps->adopted = NULL;
        ps->target_taken = 0;
    }
    pthread_mutex_unlock(&ps->mu);
}

int cli_cmd_mcp(int argc, char **argv)
{
    static page_source ps;
    memset(&ps, 0, sizeof ps);
    pthread_mutex_init(&ps.mu, NULL);
    cli_browser_opts_init(&ps.bo);
    cli_pool pool;
    memset(&pool, 0, sizeof pool);
    mcp_config cfg;
    mcp_config_init(&cfg);
    int port = -1;
    const char *token = NULL, *secrets_path = NULL;
    char allow_hosts[2048] = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_parse_browser_opt(&ps.bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if ((r = cli_parse_pool_opt(&pool, argc, argv, &i)) < 0)
            return 2;
        if (r > 0)
            continue;
        int has = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--port") == 0 && has) {
            if (cli_parse_int("--port", argv[++i], 0, 65535, &port) < 0)
                return 2;
        } else if (strcmp(a, "--token") == 0 && has) {
            token = argv[++i];
        } else if (strcmp(a, "--allow-scripts") == 0) {
            cfg.allow_scripts = 1;
        } else if (strcmp(a, "--upload-dir") == 0 && has) {
            cfg.upload_dir = argv[++i];
        } else if (strcmp(a, "--allow-host") == 0 && has) {
            if (cli_add_allow_host(allow_hosts, sizeof allow_hosts, argv[++i]) < 0)
                return 2;
        } else if (strcmp(a, "--secrets") == 0 && has) {
            secrets_path = argv[++i];
        } else if (strcmp(a, "--screenshot") == 0) {
            cfg.screenshot = 1;
        } else if (strcmp(a, "--page-chars") == 0 && has) {
            if (cli_parse_int("--page-chars", argv[++i], 200, 1000000, &cfg.page_chars) < 0)
                return 2;
        } else if (strcmp(a, "--no-humanize") == 0) {
            cfg.humanize = 0;
        } else {
            fprintf(stderr, "fovea mcp: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (ps.bo.target && !ps.bo.cdp) {
        fprintf(stderr, "fovea mcp: --target names a tab of a running browser; give --cdp too\n");
        return 2;
    }
    ps.bo.pool = &pool;
    if (!token)
        token = base_env("FOVEA_MCP_TOKEN", NULL);
    if (port >= 0 && (!token || strlen(token) < 16)) {
        fprintf(stderr, "fovea mcp: --port needs a bearer token of 16+ bytes (--token or "
                        "FOVEA_MCP_TOKEN)\n");
        return 2;
    }
    if (cfg.upload_dir) {
        char real[4096];
        if (!realpath(cfg.upload_dir, real)) {
            fprintf(stderr, "fovea mcp: --upload-dir %s: no such folder\n", cfg.upload_dir);
            return 2;
        }
    }
    cfg.allow_hosts = allow_hosts[0] ? allow_hosts : NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    mcp_secrets *sec = NULL;
    if (secrets_path && mcp_secrets_load(secrets_path, &sec, err) != BASE_OK) {
        fprintf(stderr, "fovea mcp: --secrets: %s\n", err);
        return 2;
    }
    cfg.secrets = sec;
    if (ps.bo.site) {
        serve_httpd_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.root = ps.bo.site;
        if (serve_httpd_start(&ho, &ps.srv, err) != BASE_OK) {
            fprintf(stderr, "fovea mcp: cannot serve %s: %s\n", ps.bo.site, err);
            mcp_secrets_destroy(sec);
            return 1;
        }
        const char *path = ps.bo.url ? ps.bo.url : "/";
        snprintf(ps.start, sizeof ps.start, "http://127.0.0.1:%d%s%s", serve_httpd_port(ps.srv),
                 path[0] == '/' ? "" : "/", path);
    } else if (ps.bo.url) {
        snprintf(ps.start, sizeof ps.start, "%s", ps.bo.url);
    }
    pthread_cond_init(&ps.cv, NULL);
    cfg.pages.open = src_open;
    cfg.pages.close = src_close;
    cfg.pages.user = &ps;
    int rc = 0;
    if (port < 0) {
        fprintf(stderr, "fovea mcp: stdio; one JSON-RPC message per line\n");
        if (mcp_stdio_run(&cfg, stdin, stdout, err) != BASE_OK) {
            fprintf(stderr, "fovea mcp: %s\n", err);
            rc = 1;
        }
    } else {
        mcp_http *h = NULL;
        if (mcp_http_start(&cfg, port, token, &h, err) != BASE_OK) {
            fprintf(stderr, "fovea mcp: %s\n", err);
            rc = 1;
        } else {
            fprintf(stderr, "fovea mcp: listening on http://127.0.0.1:%d/mcp\n",
                    mcp_http_port(h));
            /* Until SIGINT/SIGTERM: the graceful handlers only set a flag. */
            while (!base_interrupt_sleep_ms(1000)) {
            }
            fprintf(stderr, "fovea mcp: %s: stopping\n", base_signal_name(base_interrupted()));
            mcp_http_stop(h);
        }
    }
    if (ps.started) {
        pthread_mutex_lock(&ps.mu);
        while (!ps.launched)
            pthread_cond_wait(&ps.cv, &ps.mu);
        pthread_mutex_unlock(&ps.mu);
        cdp_browser_destroy(ps.browser); /* before its launcher thread ends */
        pthread_mutex_lock(&ps.mu);
        ps.done = 1;
        pthread_cond_broadcast(&ps.cv);
        pthread_mutex_unlock(&ps.mu);
        pthread_join(ps.launcher, NULL);
    }
    pthread_cond_destroy(&ps.cv);
    serve_httpd_destroy(ps.srv);
    mcp_secrets_destroy(sec);
    pthread_mutex_destroy(&ps.mu);
    return rc;
}
