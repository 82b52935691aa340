/* tools/cli.h: subcommands of the fovea CLI and their shared helpers.
 *
 * tools/fovea.c dispatches `fovea CMD ARGS...` to cli_cmd_CMD with argv
 * starting at CMD. A command returns the process exit status: 0 success, 1
 * the operation failed, 2 usage error (fovea run adds 128 + N when signal N
 * stopped it). Failures are reported on stderr as one line naming the
 * command; nothing here sets a global error.
 *
 * Main thread only, unless a function says otherwise.
 */
#ifndef FOVEA_TOOLS_CLI_H
#define FOVEA_TOOLS_CLI_H

#include <stdio.h>

#include "base/err.h"
#include "serve/httpd.h"
#include "cdp/browser.h"

/* The subcommands: each parses its own options (argv[0] is the command's
 * name), prints its output on stdout and its errors on stderr, and returns
 * the exit status above. argv is borrowed. */
int cli_cmd_capture(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
/* Prints `fovea run`'s help, both forms (a scripted task file and a task in
 * words), every option grouped with its default, to f (borrowed). Main thread
 * only; a write error on f is not reported. */
void cli_run_usage(FILE *f);
/* fovea batch: many task files at once, each a `fovea run` child process
 * (tools/cmd_batch.c); 128 + N too when signal N stopped it. */
int cli_cmd_batch(int argc, char **argv);
/* `fovea run "TASK" --url URL` (tools/cmd_agent.c); cli_run_is_agent says
 * whether run's arguments name a task in words (--url, --resume, a task
 * file with a goal and no steps). */
int cli_cmd_agent(int argc, char **argv);
int cli_run_is_agent(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_overlay(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
int cli_cmd_record(int argc, char **argv);
int cli_cmd_snaptest(int argc, char **argv);
int cli_cmd_snap(int argc, char **argv);
int cli_cmd_tools(int argc, char **argv);
int cli_cmd_outline(int argc, char **argv);
/* fovea mcp: the MCP server over stdio or Streamable HTTP (tools/cmd_mcp.c). */
int cli_cmd_mcp(int argc, char **argv);
/* Replays the recorded snapper case in dir offline and prints one table row
 * to out: 0 right, 1 wrong or no answer, -1 error (printed). */
int cli_snaptest_case(const char *dir, FILE *out);

/* How to reach a browser pool besides its URL (--cdp-header, --cdp-wait):
 * headers sent with discovery and the websocket handshake, and how long to
 * wait for a browser (queued, or retried while the pool is full). */
#define CLI_POOL_MAX_HEADERS 8
typedef struct cli_pool {
    const char *headers[CLI_POOL_MAX_HEADERS + 1]; /* NULL-terminated; borrowed from argv */
    int nheaders;
    int wait_ms; /* 0: 10 s handshake, no retry */
} cli_pool;

/* Consumes --cdp-header 'Name: value' (repeatable) or --cdp-wait S at
 * argv[*i] into p, advancing *i past its value; p keeps pointers into argv.
 * Returns 1 if it was one of them, 0 if not, -1 on a bad value after saying
 * why on stderr (never with the header's value, which may hold a token). */
int cli_parse_pool_opt(cli_pool *p, int argc, char **argv, int *i);

/* Help lines for the two options above. */
extern const char cli_pool_opts_help[];

/* Options every browser-driving command shares. */
typedef struct cli_browser_opts {
    const char *cdp;   /* attach endpoint, or NULL to launch */
    const char *site;  /* folder to serve on loopback, or NULL */
    const char *url;   /* page URL (relative to the site when site is set) */
    int width, height; /* viewport, CSS px */
    double scale;      /* device scale factor */
    int headful;
    const char *target; /* with cdp: the tab to adopt, an id or a URL substring */
    int viewport_set;   /* --width/--height/--scale given (an adopted tab ignores them) */
    int nav_timeout_ms; /* the first navigation's limit; 0: 30 s */
    char *nav_err;      /* optional (BASE_ERRBUF_SIZE): receives the error when the browser
                           started but the navigation to url failed */
    const char *init_script; /* JS run before the page's scripts on every load (the task's
                                "init_script"), added before the first navigation; NULL = none */
    const cli_pool *pool;    /* with cdp: headers and wait; NULL = none */
} cli_browser_opts;

/* Sets o (the caller's) to the defaults: launch, 1280x800, scale 1. Cannot
 * fail. */
void cli_browser_opts_init(cli_browser_opts *o);

/* Consumes one shared option at argv[*i] (advancing *i past its value); o
 * keeps pointers into argv. Returns 1 if it was one, 0 if not, -1 on a bad
 * value (message printed). */
int cli_parse_browser_opt(cli_browser_opts *o, int argc, char **argv, int *i);

/* Parses v as a decimal integer in lo..hi into *out. Returns 1 on success,
 * -1 (after printing "fovea: NAME must be …") when v is not one. */
int cli_parse_int(const char *name, const char *v, int lo, int hi, int *out);

/* Appends one --allow-host value to the comma-separated list (cap bytes) that
 * fovea_session_opts.allow_hosts points at. Returns 0, or -1 after saying on
 * stderr why (empty, a comma in it, the list full). On the CLI's thread. */
int cli_add_allow_host(char *list, size_t cap, const char *host);

/* Help text for the shared options (static, read-only). */
extern const char cli_browser_opts_help[];

/* A live session: optional loopback server, browser, one page on the URL. */
typedef struct cli_session {
    serve_httpd *srv;
    cdp_browser *browser;
    cdp_page *page;
    char url[1024];
} cli_session;

/* Starts the server (if site), launches or attaches, opens a page and
 * navigates to the URL. With cdp and a target, or with cdp and no URL, it
 * adopts an existing tab instead (cli_find_target; default the first page
 * tab), keeps its viewport, and navigates it only when a URL or site was
 * given; closing the session then leaves that tab open. *s is the caller's
 * (cli_session_close), zeroed first; o is borrowed for the call. Prints a
 * one-line error and returns a base_err on failure (BASE_EINVAL for --target
 * without --cdp; the server's, the browser's or the navigation's error
 * otherwise), leaving nothing running. */
base_err cli_session_open(cli_session *s, const cli_browser_opts *o);
/* Closes the page, the browser (or the attachment) and the server, and
 * zeroes s; a zeroed session is a no-op. Cannot fail. */
void cli_session_close(cli_session *s);

/* Resolves a --target spec in browser b to a tab's target id: an exact target
 * id, else the one tab (cdp_target_is_tab) whose URL contains spec; NULL or
 * "" names the first tab in the browser's order. Writes the id into id (64
 * bytes). Returns 0 on success; 1 when nothing or several tabs match, with a
 * message listing the candidate tabs (id, url, title, one per line) in why;
 * -1 on a browser error (message in why). why is always NUL-terminated (why_n
 * > 0). Any thread but the cdp service thread. */
int cli_find_target(cdp_browser *b, const char *spec, char *id, char *why, size_t why_n);

/* Opens the session a task runs in (fovea run, fovea bench steps): serves
 * site on loopback when the task's URL is relative (the second origin,
 * http://localhost:PORT, passed to the start page as ?xo=), launches or
 * attaches (cdp), and opens the start URL at the task's viewport. cmd
 * prefixes messages. Returns 0 (*srv, *s are the caller's: cli_session_close
 * then serve_httpd_destroy), 1 when serving or the browser failed, 2 for a
 * relative URL without site (message printed). */
struct agent_task;
int cli_task_session_open(const char *cmd, const struct agent_task *task, const char *task_path,
                          const char *site, const char *cdp, int headful, serve_httpd **srv,
                          cli_session *s);
/* The same with --target: when target is set (cdp required), the task runs
 * on that existing tab as it is (no navigation, the tab's own viewport; the
 * task's url is not opened), so a flow the user started is not reloaded. */
int cli_task_session_open_target(const char *cmd, const struct agent_task *task,
                                 const char *task_path, const char *site, const char *cdp,
                                 const char *target, int headful, serve_httpd **srv,
                                 cli_session *s);
/* The same, for fovea run: the start URL gets the first step's timeout_ms
 * (at least CLI_START_MIN_MS) to load instead of 30 s, and when the browser
 * started but the start URL failed (a 404, a refused connection, a frozen
 * page, a stop signal) start_err (BASE_ERRBUF_SIZE) receives why and url
 * (1024 bytes) the URL, so the caller can still write a report. pool
 * (may be NULL) carries --cdp-header and --cdp-wait for cdp. */
#define CLI_START_MIN_MS 5000
int cli_task_session_open_start(const char *cmd, const struct agent_task *task,
                                const char *task_path, const char *site, const char *cdp,
                                const cli_pool *pool, const char *target, int headful,
                                serve_httpd **srv,
                                cli_session *s, char *start_err, char *start_url);

/* Installs what SIGINT/SIGTERM/SIGHUP/SIGQUIT do (tools/signals.c). graceful:
 * the command checks base_interrupted() and finishes its output itself
 * (fovea run); else a watcher thread closes the tabs fovea opened, kills
 * launched browsers, removes their profiles and exits 128 + the signal.
 * Main thread, before any browser is started. */
void cli_signals_install(int graceful);

/* Creates the parent directories of path (mkdir -p of its dirname). Any
 * thread. Errors: those of base_mkdirs (BASE_EINVAL for a path over 1023
 * bytes, BASE_EIO naming the directory and the reason); err is optional. */
base_err cli_mkdirs_for(const char *path, char *err);

/* Output checks shared by the commands that write an output folder. */

/* Checks, before a browser starts, that files can be created in out_dir
 * (base_dir_writable). Prints one line "CMD: --out DIR: why" and returns 2
 * when not; 0 when it can. Main thread. */
int cli_out_check(const char *cmd, const char *out_dir);

/* The exit status of a command that wrote output: status, or
 * BASE_EXIT_OUTPUT_LOST after printing one line "CMD: output lost: PATH:
 * ERROR" when a file could not be written (base_out_lost_get). A stop
 * signal's status (128 + N) is kept. Main thread. */
int cli_out_status(const char *cmd, int status);

#endif
