/* tools/cmd_snap.c: `fovea snap`, the snapper as a grounding service.
 *
 * Another agent (or a person's own tooling) already has a box and a label
 * from its vision model and wants the element and point they mean on a page
 * that is open right now. One fovea process attaches once (or launches a
 * browser), then answers one JSON line on stdout for every JSON line read on
 * stdin, flushed at once, so a client can hold a pipe open and pay only the
 * probe per request (no process start, no attach, no script install).
 *
 * This file is only the command line: options, the browser session, and
 * the protocol library (cascade/snapserve.h: request parsing, tabs, the snap
 * and the click, answer writing) run over stdin/stdout. EOF ends it cleanly
 * (adopted tabs are detached and stay open).
 *
 * Main thread only (the cdp service thread is the library's).
 */
#include <stdio.h>
#include <string.h>

#include "cascade/snapserve.h"
#include "base/alloc.h"
#include "tools/cli.h"

static void snap_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea snap (--cdp EP [--target T] | --site DIR [--url PATH] | --url URL)\n"
            "                  [--click] [--no-humanize] [--allow-untrusted] [--no-verify]\n\n"
            "Grounding service: reads one JSON request per line on stdin,\n"
            "  {\"box\":[x0,y0,x1,y1], \"label\":\"Save\", \"intent\":\"click|expand|select\",\n"
            "   \"target\":\"tab id or URL substring\", \"id\":any, \"click\":true|false}\n"
            "(box in CSS px of the tab's viewport; only box is required) and writes one JSON\n"
            "line per request on stdout: the point, the element (tag, text, name, xpath,\n"
            "frame), \"match\" (exact|partial|none), the phase and score parts and the\n"
            "hit-target verdict; {\"ambiguous\":true,\"candidates\":[{name,role,tag,rect,\n"
            "point,xpath}..],\"why\":...} when the label cannot tell the controls in the box\n"
            "apart (nothing is clicked), or {\"abstain\":true,\"why\":...}; a malformed line\n"
            "gets {\"error\":...}; blank lines are skipped. EOF ends it (adopted tabs stay\n"
            "open). docs/snap.md.\n\n"
            "Answers:\n"
            "  --click          also click the element through the cascade and return the\n"
            "                   tool result (a request's \"click\" overrides; default: off)\n"
            "  --no-verify      skip the hit-target check of answers without a click\n"
            "                   (one evaluate less per request; default: check)\n\n"
            "Hand (with --click):\n"
            "  --no-humanize    straight, untimed pointer events (default: human)\n"
            "  --allow-untrusted  let the cascade fall back to el.click() (tier 3;\n"
            "                   default: off)\n\n");
    fputs(cli_browser_opts_help, f);
}

/* Target resolution for requests naming another tab: the CLI's own. */
static int find_target(void *user, cdp_browser *b, const char *spec, char *id, char *why,
                       size_t why_n)
{
    (void)user;
    return cli_find_target(b, spec, id, why, why_n);
}

int cli_cmd_snap(int argc, char **argv)
{
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    cascade_snapserve_opts so;
    cascade_snapserve_opts_init(&so);
    so.find_target = find_target;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            snap_usage(stdout);
            return 0;
        } else if (strcmp(a, "--click") == 0) {
            so.click = 1;
        } else if (strcmp(a, "--no-humanize") == 0) {
            so.co.humanize = 0;
        } else if (strcmp(a, "--allow-untrusted") == 0) {
            so.co.allow_untrusted = 1;
        } else if (strcmp(a, "--no-verify") == 0) {
            so.verify = 0;
        } else {
            fprintf(stderr, "fovea snap: unknown option %s\n", a);
            snap_usage(stderr);
            return 2;
        }
    }
    if (!bo.cdp && !bo.url && !bo.site) {
        fprintf(stderr, "fovea snap: give --cdp (a running browser) or --url/--site\n");
        snap_usage(stderr);
        return 2;
    }
    /* A start page that does not load is said in 5 s, as fovea run says it
     * (CLI_START_MIN_MS), not after the 30 s default. */
    bo.nav_timeout_ms = CLI_START_MIN_MS;
    cli_session s;
    memset(&s, 0, sizeof s);
    if (cli_session_open(&s, &bo))
        return 1;
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_snapserve *sv = NULL;
    if (cascade_snapserve_create(s.browser, s.page, &so, &sv, err) != BASE_OK) {
        fprintf(stderr, "fovea snap: %s\n", err);
        cli_session_close(&s);
        return 1;
    }
    const cdp_page_opts *vp = cdp_page_viewport(s.page);
    fprintf(stderr, "fovea snap: %s tab %s (%.200s, %dx%d @%g); one JSON request per line\n",
            cdp_page_adopted(s.page) ? "attached to" : "opened", cdp_page_target_id(s.page),
            s.url, vp->width, vp->height, vp->scale);
    long n_req = 0, n_err = 0;
    base_err e = cascade_snapserve_run(sv, stdin, stdout, &n_req, &n_err, err);
    if (e)
        fprintf(stderr, "fovea snap: %s\n", err);
    fprintf(stderr, "fovea snap: %ld requests, %ld errors\n", n_req, n_err);
    cascade_snapserve_destroy(sv);
    cli_session_close(&s);
    return e ? 1 : 0;
}
