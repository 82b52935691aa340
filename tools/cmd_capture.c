/* tools/cmd_capture.c: `fovea capture` and `fovea serve`.
 *
 * capture opens a page (a URL, or a folder served on loopback), takes one
 * screenshot through the same path the engine uses, decodes it (proving the
 * bytes are a valid image of the expected size) and writes the file
 * atomically. serve keeps a folder on loopback until interrupted.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "perception/capture.h"
#include "image/image.h"
#include "tools/cli.h"

static void capture_usage(FILE *f)
{
    fprintf(f, "usage: fovea capture (--url URL | --site DIR [--url PATH]) [options]\n\n"
               "Opens the page in headless Chromium and writes a screenshot.\n\n"
               "  --out FILE       output file (default out/capture.png)\n"
               "  --format F       png (default) or jpeg\n"
               "  --quality N      JPEG quality 1..100 (default 80)\n");
    fputs(cli_browser_opts_help, f);
}

int cli_cmd_capture(int argc, char **argv)
{
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    perc_capture_opts co;
    perc_capture_opts_init(&co);
    const char *out = "out/capture.png";
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--help") == 0) {
            capture_usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fovea capture: unknown option or missing value: %s\n", argv[i]);
            capture_usage(stderr);
            return 2;
        }
        if (strcmp(argv[i], "--out") == 0) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--format") == 0) {
            const char *f = argv[++i];
            if (strcmp(f, "png") == 0) {
                co.format = IMG_FMT_PNG;
            } else if (strcmp(f, "jpeg") == 0 || strcmp(f, "jpg") == 0) {
                co.format = IMG_FMT_JPEG;
            } else {
                fprintf(stderr, "fovea capture: --format must be png or jpeg, got '%s'\n", f);
                return 2;
            }
        } else if (strcmp(argv[i], "--quality") == 0) {
            if (cli_parse_int("--quality", argv[++i], 1, 100, &co.quality) < 0)
                return 2;
        } else {
            fprintf(stderr, "fovea capture: unknown option %s\n", argv[i]);
            capture_usage(stderr);
            return 2;
        }
    }
    double t0 = base_monotime_ms();
    cli_session s;
    if (cli_session_open(&s, &bo))
        return 1;
    double t_open = base_monotime_ms();
    char err[BASE_ERRBUF_SIZE] = "";
    uint8_t *data = NULL;
    size_t n = 0;
    perc_capture_timing tm;
    base_err e = perc_capture_encoded(s.page, &co, &data, &n, NULL, &tm, err);
    img_image img = {0};
    if (!e)
        e = img_decode(data, n, &img, err);
    if (!e)
        e = cli_mkdirs_for(out, err);
    if (!e)
        e = base_write_file(out, data, n, err);
    int w = img.w, h = img.h;
    char url[sizeof s.url];
    snprintf(url, sizeof url, "%s", s.url);
    img_fini(&img);
    base_free(data);
    cli_session_close(&s);
    if (e) {
        fprintf(stderr, "fovea capture: %s\n", err);
        return 1;
    }
    fprintf(stderr, "fovea capture: %s -> %s (%dx%d device px, %zu bytes; browser+page %.0f ms, "
                    "capture %.1f ms)\n",
            url, out, w, h, n, t_open - t0, tm.call_ms + tm.b64_ms);
    printf("%s\n", out);
    return 0;
}

static volatile sig_atomic_t serve_stop;

static void on_serve_signal(int sig)
{
    (void)sig;
    serve_stop = 1;
}

int cli_cmd_serve(int argc, char **argv)
{
    const char *dir = NULL;
    int port = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            if (cli_parse_int("--port", argv[++i], 0, 65535, &port) < 0)
                return 2;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: fovea serve DIR [--port N]\n\nServes DIR on 127.0.0.1 until "
                   "interrupted; port 0 (default) picks a free one.\n");
            return 0;
        } else if (!dir && argv[i][0] != '-') {
            dir = argv[i];
        } else {
            fprintf(stderr, "fovea serve: unexpected argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: fovea serve DIR [--port N]\n");
        return 2;
    }
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.root = dir;
    o.port = port;
    serve_httpd *h = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (serve_httpd_start(&o, &h, err)) {
        fprintf(stderr, "fovea serve: %s\n", err);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_serve_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("http://127.0.0.1:%d/\n", serve_httpd_port(h));
    fflush(stdout);
    while (!serve_stop)
        pause();
    serve_httpd_destroy(h);
    return 0;
}
