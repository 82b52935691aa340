/* tools/cmd_run.c: `fovea run TASK.json` — run a scripted task end to end.
 *
 * With --site the folder is served on loopback and reachable on two origins
 * (http://127.0.0.1:PORT and http://localhost:PORT: different sites to
 * Chromium, so a frame from the second runs out of process); the second
 * origin is passed to the start page as ?xo=, which the demo site uses for
 * its cross-origin passenger form. The run writes OUT/trace.jsonl,
 * OUT/steps/NNN.png and OUT/report.html; the report is written for failed
 * runs too. Exit status: 0 all steps passed, 1 a step failed or the run
 * could not start, 2 usage or task-file error (or --out cannot be written),
 * 3 output lost (BASE_EXIT_OUTPUT_LOST: a file under --out could not be
 * written; one line names it), 128 + N when signal N
 * (SIGINT 130, SIGTERM 143, SIGHUP 129, SIGQUIT 131) stopped it: the run
 * then finishes gracefully (trace end record, report, browser and profile
 * removed); a second signal exits at once after killing the browser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/goal.h"
#include "agent/script/run.h"
#include "agent/session/tool.h"
#include "perception/vision.h"
#include "agent/script/task.h"
#include "agent/session/trace.h"
#include "cascade/cascade.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/interrupt.h"
#include "tools/cli.h"

void cli_run_usage(FILE *f)
{
    fprintf(f,
            "usage: fovea run TASK.json [options]                  a scripted task (steps)\n"
            "       fovea run \"TASK IN WORDS\" --url URL [options]  a task in words, done by a model\n"
            "       fovea run GOAL.json [options]                  a task file with \"goal\", no \"steps\"\n\n"
            "A scripted task (a URL, a viewport and steps: every tool of `fovea tools` is a\n"
            "step verb) runs through vision, the snapper and the click cascade. A task in\n"
            "words is carried out by a model (FOVEA_LLM_BASE_URL, FOVEA_LLM_API_KEY,\n"
            "FOVEA_LLM_MODEL; docs/models.md) through the same tools. Either form writes\n"
            "OUT/trace.jsonl and OUT/report.html (docs/run.md, docs/agent.md).\n\n");
    /* One call per group: a single literal would pass C's 4095-byte limit. */
    fputs("Browser:\n"
          "  --site DIR         serve DIR on loopback; the task's url is a path in it\n"
          "                     (default: none, the url must be absolute)\n"
          "  --url URL          task in words: the start page (with --site: a path in DIR)\n"
          "  --cdp URL          attach to a running browser or a pool (ws(s)://... with\n"
          "                     path and query, or http://host:port) instead of launching\n"
          "                     Chromium (default: launch)\n",
          f);
    fputs(cli_pool_opts_help, f);
    fputs("  --target T         scripted, with --cdp: run on that existing tab (target id\n"
          "                     or URL substring) as it is: the task's url is not opened,\n"
          "                     the tab keeps its viewport and stays open (default: none)\n"
          "  --headful          show the browser window (default: headless)\n\n"
          "Hand and eye:\n"
          "  --vision NAME      dom (default), openai (FOVEA_OPENAI_BASE_URL, ...), pixel\n"
          "                     (boxes from the screenshot alone, labels by Tesseract OCR)\n"
          "                     or pixel-dom (pixel's boxes named by their elements)\n"
          "  --no-humanize      straight, untimed pointer and key events (default: human)\n"
          "  --seed N           scripted: seed of the cursor paths and typing (default 1)\n"
          "  --allow-untrusted  scripted: let the click cascade fall back to a scripted\n"
          "                     el.click() (tier 3; never on domains the learnings mark\n"
          "                     bot-protected) (default: off)\n"
          "  --learnings FILE   scripted: per-domain learnings, which tier worked where;\n"
          "                     later clicks there start at the best tier (default: none)\n\n",
          f);
    fputs("Guards (docs/security.md):\n"
          "  --allow-scripts    let steps or the model run page JavaScript\n"
          "                     (evaluate_script, run_script, add_init_script) (default:\n"
          "                     off, such calls are refused as blocked)\n"
          "  --upload-dir DIR   task in words: upload_file takes files only from DIR (no\n"
          "                     '..', no link out of it); a task file keeps its own\n"
          "                     paths (default: none, the model's uploads are blocked)\n"
          "  --allow-host H     navigate/open_tab may also go to host H (and its\n"
          "                     subdomains; H:PORT for one port; '*' = anywhere but search\n"
          "                     engines); repeatable. Default: the start page's site and a\n"
          "                     small sign-in/CDN safe-list (docs/navigation.md)\n\n"
          "Scripted task:\n"
          "  --page-text MODE   what get_outline shows by default: outline (default:\n"
          "                     landmarks, headings, [n] = [Vn], unchanged regions\n"
          "                     collapsed) or flat\n\n",
          f);
    fprintf(f,
            "Task in words (the agent):\n"
            "  --token-budget N   hard token budget (default 100000, or FOVEA_TOKEN_BUDGET;\n"
            "                     100k, 1.5M accepted; 0 = none)\n"
            "  --max-steps N      tool calls in all (default %d)\n"
            "  --step-timeout MS  a Worker step (its model call and tool batch) may take\n"
            "                     this long; no tool call starts after it (default: none;\n"
            "                     --planner andor: a node's expansion and its action)\n"
            "  --llm-first-byte S a model call with no byte of answer after S seconds is\n"
            "                     retried, within the call's limit (default 90, or\n"
            "                     FOVEA_LLM_FIRST_BYTE_S; 0 = off)\n"
            "  --llm-stall S      a streamed answer that stops for S seconds is retried\n"
            "                     (default 30, or FOVEA_LLM_STALL_S; 0 = off)\n"
            "  --llm-call-limit S a model call without --step-timeout ends after S seconds,\n"
            "                     retries included (default 240, or FOVEA_LLM_CALL_LIMIT_S)\n"
            "  --answer-schema FILE\n"
            "                     the final answer is JSON that must validate against this\n"
            "                     JSON Schema (asked again with the error quoted, then the\n"
            "                     run fails); written to OUT/answer.json (default: text)\n"
            "  --screenshot       the model also sees the page's screenshot with its [Vn]\n"
            "                     marks (vision models; default: the outline only)\n"
            "  --resume DIR       continue the run in DIR from its ledger (after a crash or\n"
            "                     a kill): the same task and --url; the steps done are not\n"
            "                     run again, a step that may have reached the page is\n"
            "                     looked at first (default: a new run; not with andor)\n"
            "  --planner NAME     loop (default): the Worker/Planner loop; andor: the AND/OR\n"
            "                     tree planner (the program keeps the plan as a tree, the\n"
            "                     model expands, repairs and checks nodes; OUT/andor.json)\n\n",
            AGENT_GOAL_MAX_STEPS);
    fputs("AND/OR planner (--planner andor):\n"
          "  --candidates MODE  on, off or auto: keep the candidate x constraint table\n"
          "                     (default auto: when the task names two or more constraints)\n"
          "  --completion-check SCOPE\n"
          "                     root (default), all or none: which AND nodes the model\n"
          "                     checks before they count as done\n"
          "  --intervene FILE   JSON lines appended to FILE (or typed on stdin with -) edit\n"
          "                     the tree between steps: {\"op\": \"inject\", \"parent\": \"1\",\n"
          "                     \"description\": \"...\"}, {\"op\": \"replace\"|\"remove\",\n"
          "                     \"node\": \"1.2\", ...} (default: none)\n\n"
          "Output:\n"
          "  --out DIR          output folder (default out/run): trace.jsonl, report.html,\n"
          "                     steps/NNN.png; a task in words also ledger.json, steps.jsonl\n"
          "  --overlays WHICH   scripted: all (default), failures or none: which steps get\n"
          "                     OUT/steps/NNN.png (each costs ~100-200 ms of the step)\n\n"
          "Environment: FOVEA_SEARCH_URL (a search worker for lookups, {q} = the query),\n"
          "FOVEA_ROUTE_LEARNINGS (\"dom=search:0.9,...\": a worker per domain), FOVEA_PRICE_IN,\n"
          "FOVEA_PRICE_OUT, FOVEA_PRICE_CACHED (dollars per million tokens).\n"
          "Exit status: 0 done, 1 a step failed or the task did not end done, 2 usage or\n"
          "task-file error (or --out cannot be written), 3 output lost (a file under --out\n"
          "could not be written: a full disk), 128 + N on signal N (130 for Ctrl-C).\n",
          f);
}

int cli_out_check(const char *cmd, const char *out_dir)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (base_dir_writable(out_dir, err) == BASE_OK)
        return 0;
    fprintf(stderr, "%s: --out %s: %s\n", cmd, out_dir, err);
    return 2;
}

int cli_out_status(const char *cmd, int status)
{
    char lost[1100];
    if (status >= 128 || !base_out_lost_get(lost, sizeof lost))
        return status;
    fprintf(stderr, "%s: output lost: %s\n", cmd, lost);
    return BASE_EXIT_OUTPUT_LOST;
}

/* Appends "xo=<origin>" (percent-encoded) to url's query. */
static void add_xo(char *url, size_t n, int port)
{
    char *hash = strchr(url, '#');
    char frag[256] = "";
    if (hash) {
        snprintf(frag, sizeof frag, "%s", hash);
        *hash = '\0';
    }
    size_t k = strlen(url);
    snprintf(url + k, n - k, "%sxo=http%%3A%%2F%%2Flocalhost%%3A%d%s", strchr(url, '?') ? "&" : "?",
             port, frag);
}

int cli_task_session_open(const char *cmd, const agent_task *task, const char *task_path,
                          const char *site, const char *cdp, int headful, serve_httpd **srv,
                          cli_session *s)
{
    return cli_task_session_open_target(cmd, task, task_path, site, cdp, NULL, headful, srv, s);
}

int cli_task_session_open_target(const char *cmd, const agent_task *task,
                                 const char *task_path, const char *site, const char *cdp,
                                 const char *target, int headful, serve_httpd **srv,
                                 cli_session *s)
{
    return cli_task_session_open_start(cmd, task, task_path, site, cdp, NULL, target, headful,
                                       srv, s, NULL, NULL);
}

int cli_task_session_open_start(const char *cmd, const agent_task *task,
                                const char *task_path, const char *site, const char *cdp,
                                const cli_pool *pool, const char *target, int headful,
                                serve_httpd **srv,
                                cli_session *s, char *start_err, char *start_url)
{
    *srv = NULL;
    memset(s, 0, sizeof *s);
    if (target) {
        /* The user's tab as it is: no server, no navigation, its viewport. */
        cli_browser_opts bo;
        cli_browser_opts_init(&bo);
        bo.cdp = cdp;
        bo.pool = pool;
        bo.target = target;
        bo.headful = headful;
        return cli_session_open(s, &bo) != BASE_OK ? (cdp ? 1 : 2) : 0;
    }
    int absolute = strncmp(task->url, "http://", 7) == 0 ||
                   strncmp(task->url, "https://", 8) == 0 || strncmp(task->url, "file:", 5) == 0 ||
                   strncmp(task->url, "about:", 6) == 0;
    /* "javascript:alert(1)" or "ftp://x" is not a path in the site: say so
     * instead of serving it as one (and failing later as a 404). */
    size_t sl = strspn(task->url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
    if (!absolute && sl > 0 && task->url[sl] == ':' && strncmp(task->url, "data:", 5) != 0) {
        fprintf(stderr,
                "%s: %s: url '%.60s': unsupported URL scheme '%.*s' (use http, https, file or "
                "about, or a path in --site)\n",
                cmd, task_path, task->url, (int)(sl > 20 ? 20 : sl), task->url);
        return 2;
    }
    if (!absolute && !site) {
        fprintf(stderr, "%s: %s: url '%s' is relative; give --site DIR\n", cmd, task_path,
                task->url);
        return 2;
    }
    /* The server is started here rather than by cli_session_open so that its
     * port is known before the first navigation (for the second origin). */
    char url[1024], err[BASE_ERRBUF_SIZE] = "";
    if (!absolute) {
        serve_httpd_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.root = site;
        if (serve_httpd_start(&ho, srv, err) != BASE_OK) {
            fprintf(stderr, "%s: cannot serve %s: %s\n", cmd, site, err);
            return 1;
        }
        int port = serve_httpd_port(*srv);
        snprintf(url, sizeof url, "http://127.0.0.1:%d%s%s", port, task->url[0] == '/' ? "" : "/",
                 task->url);
        add_xo(url, sizeof url, port);
    } else {
        snprintf(url, sizeof url, "%s", task->url);
    }
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    bo.cdp = cdp;
    bo.pool = pool;
    bo.url = url;
    bo.width = task->width;
    bo.height = task->height;
    bo.scale = task->scale;
    bo.headful = headful;
    bo.init_script = task->init_script;
    if (start_err) {
        /* The start page is bounded like the step that waits for it. */
        int first = task->n_steps > 0 ? task->steps[0].timeout_ms : 0;
        bo.nav_timeout_ms = first > CLI_START_MIN_MS ? first : CLI_START_MIN_MS;
        bo.nav_err = start_err;
        start_err[0] = '\0';
        snprintf(start_url, 1024, "%s", url);
    }
    if (cli_session_open(s, &bo) != BASE_OK) {
        serve_httpd_destroy(*srv);
        *srv = NULL;
        return 1;
    }
    return 0;
}

/* The start URL failed after the browser started (a 404, a refused
 * connection, a frozen page, a stop signal): the run still leaves its
 * trace, with the failure as the end record, and its report, like a run
 * that failed at a step. Returns the exit status (1, or 128 + signal). */
static int start_failed(const agent_task *task, const agent_run_opts *ro, const char *url,
                        const char *why, double ms)
{
    int sig = base_interrupted();
    char reason[BASE_ERRBUF_SIZE + 32];
    if (sig)
        snprintf(reason, sizeof reason, "interrupted by %s before the first step (%s)",
                 base_signal_name(sig), why);
    else
        snprintf(reason, sizeof reason, "start URL: %s", why);
    agent_trace_info info = {task->name, ro->task_file, url, ro->session.vision, NULL, task->width,
                             task->height, task->scale, ro->session.humanize, ro->session.seed, task->n_steps};
    agent_trace *t = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_trace_open(ro->out_dir, &info, &t, err) == BASE_OK) {
        if (sig)
            agent_trace_close_interrupted(t, 1, ms, reason, base_signal_name(sig));
        else
            agent_trace_close(t, 0, 1, ms, reason);
        if (agent_report_write(ro->out_dir, err) == BASE_OK)
            printf("report: %s/report.html\n", ro->out_dir);
        else
            fprintf(stderr, "fovea run: report: %s\n", err);
    } else {
        fprintf(stderr, "fovea run: trace: %s\n", err);
    }
    if (sig)
        printf("fovea run: %s %s\n", task->name, reason);
    else
        printf("fovea run: %s FAILED before step 1: %s\n", task->name, reason);
    fflush(stdout);
    return sig ? 128 + sig : 1;
}

int cli_cmd_run(int argc, char **argv)
{
    if (cli_run_is_agent(argc, argv)) /* a task in words: tools/cmd_agent.c */
        return cli_cmd_agent(argc, argv);
    const char *task_path = NULL, *site = NULL, *cdp = NULL, *target = NULL;
    agent_run_opts ro;
    agent_run_opts_init(&ro);
    int headful = 0, seed = 1;
    char allow_hosts[2048] = "";
    cli_pool pool;
    memset(&pool, 0, sizeof pool);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int pr = cli_parse_pool_opt(&pool, argc, argv, &i);
        if (pr < 0)
            return 2;
        if (pr > 0)
            continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_run_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--no-humanize") == 0) {
            ro.session.humanize = 0;
            continue;
        }
        if (strcmp(a, "--headful") == 0) {
            headful = 1;
            continue;
        }
        if (strcmp(a, "--allow-untrusted") == 0) {
            ro.session.allow_untrusted = 1;
            continue;
        }
        if (strcmp(a, "--allow-scripts") == 0) {
            ro.session.allow_scripts = 1;
            continue;
        }
        if (a[0] != '-') {
            if (task_path) {
                fprintf(stderr, "fovea run: one task file only (got '%s' and '%s')\n", task_path,
                        a);
                return 2;
            }
            task_path = a;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fovea run: unknown option or missing value: %s\n", a);
            cli_run_usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--site") == 0)
            site = v;
        else if (strcmp(a, "--cdp") == 0)
            cdp = v;
        else if (strcmp(a, "--target") == 0)
            target = v;
        else if (strcmp(a, "--vision") == 0)
            ro.session.vision = v;
        else if (strcmp(a, "--out") == 0)
            ro.out_dir = v;
        else if (strcmp(a, "--learnings") == 0)
            ro.session.learnings = v;
        else if (strcmp(a, "--allow-host") == 0) {
            if (cli_add_allow_host(allow_hosts, sizeof allow_hosts, v) < 0)
                return 2;
            ro.session.allow_hosts = allow_hosts;
        }
        else if (strcmp(a, "--page-text") == 0) {
            if (strcmp(v, "outline") == 0)
                ro.session.page_text = AGENT_PAGE_TEXT_OUTLINE;
            else if (strcmp(v, "flat") == 0)
                ro.session.page_text = AGENT_PAGE_TEXT_FLAT;
            else {
                fprintf(stderr, "fovea run: --page-text must be outline or flat, got '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "--overlays") == 0) {
            if (agent_overlays_parse(v, &ro.session.overlays) < 0) {
                fprintf(stderr, "fovea run: --overlays must be all, failures or none, got '%s'\n",
                        v);
                return 2;
            }
        } else if (strcmp(a, "--seed") == 0) {
            if (cli_parse_int("--seed", v, 0, 2147483647, &seed) < 0)
                return 2;
        } else {
            fprintf(stderr, "fovea run: unknown option %s\n", a);
            cli_run_usage(stderr);
            return 2;
        }
    }
    if (!task_path) {
        cli_run_usage(stderr);
        return 2;
    }
    if (!perc_vision_name_known(ro.session.vision)) {
        fprintf(stderr, "fovea run: --vision must be " PERC_VISION_NAMES ", got '%s'\n",
                ro.session.vision);
        return 2;
    }
    ro.session.seed = (uint64_t)seed;
    ro.task_file = task_path;
    /* A stop signal ends the run gracefully from here on: the runner checks
     * base_interrupted() (handlers installed by cli_signals_install). */
    char err[BASE_ERRBUF_SIZE] = "";
    agent_task *task = NULL;
    if (agent_task_load(task_path, &task, err) != BASE_OK) {
        fprintf(stderr, "fovea run: %s\n", err);
        return 2;
    }
    /* A step that runs page scripts without --allow-scripts would fail
     * after the steps before it acted: refused now, before a browser. */
    for (int i = 0; !ro.session.allow_scripts && i < task->n_steps; i++) {
        const tool_def *t = tool_find(task->steps[i].tool);
        if (t && (t->flags & TOOL_OPT_IN)) {
            fprintf(stderr, "fovea run: steps[%d]: %s runs page JavaScript: add --allow-scripts "
                            "to allow it\n",
                    i, t->name);
            agent_task_free(task);
            return 2;
        }
    }
    /* The learnings file is read now, before a browser starts: an
     * unreadable or foreign file is a usage error (exit 2), not a run that
     * fails at its first click. The cascade opens it again for real. */
    if (ro.session.learnings) {
        cascade_learnings *l = NULL;
        if (cascade_learnings_open(ro.session.learnings, &l, err) != BASE_OK) {
            fprintf(stderr, "fovea run: --learnings: %s\n", err);
            agent_task_free(task);
            return 2;
        }
        cascade_learnings_close(l);
    }
    /* An output folder fovea cannot write is said now, not after Chromium
     * started and the steps ran. */
    if (cli_out_check("fovea run", ro.out_dir)) {
        agent_task_free(task);
        return 2;
    }
    serve_httpd *srv = NULL;
    cli_session s;
    char start_err[BASE_ERRBUF_SIZE] = "", start_url[1024] = "", task_name[200];
    snprintf(task_name, sizeof task_name, "%s", task->name);
    int ran = 0;
    double start_t0 = base_monotime_ms();
    int status = cli_task_session_open_start("fovea run", task, task_path, site, cdp, &pool,
                                             target, headful, &srv, &s, start_err, start_url);
    if (status == 2) {
        agent_task_free(task);
        return 2;
    }
    /* A stop signal while the browser was still starting (its calls are
     * cancelled by the signal, cdp/ws.c) ends like one during the start
     * page: with the trace's end record and the report. */
    if (status == 1 && !start_err[0] && base_interrupted())
        snprintf(start_err, sizeof start_err, "the browser was starting");
    if (status == 1 && start_err[0]) {
        fprintf(stderr, "fovea run: %s\n", start_err);
        status = start_failed(task, &ro, start_url, start_err, base_monotime_ms() - start_t0);
        serve_httpd_destroy(srv);
        agent_task_free(task);
        return cli_out_status("fovea run", status);
    }
    if (status == 0) {
        ran = 1;
        status = 1;
        fprintf(stderr, "fovea run: %s (%d steps) on %s\n", task->name, task->n_steps, s.url);
        ro.browser = cdp_browser_product(s.browser);
        agent_run_result res;
        base_err e = agent_run(s.page, task, &ro, &res, err);
        cli_session_close(&s);
        if (e) {
            fprintf(stderr, "fovea run: %s\n", err);
        } else {
            char rerr[BASE_ERRBUF_SIZE] = "";
            int lost = 0;
            if (agent_report_write(ro.out_dir, rerr) != BASE_OK) {
                /* Lost output is said once, at the end (cli_out_status). */
                if (!base_out_lost_get(NULL, 0))
                    fprintf(stderr, "fovea run: report: %s\n", rerr);
            } else {
                printf("report: %s/report.html\n", ro.out_dir);
            }
            if ((lost = base_out_lost_get(NULL, 0)) != 0)
                res.ok = 0;
            if (lost && !res.interrupted)
                printf("fovea run: %s FAILED: output lost after %d/%d steps\n", task->name,
                       res.steps_done, task->n_steps);
            else if (res.ok)
                printf("fovea run: %s passed: %d/%d steps in %.2f s\n", task->name,
                       res.steps_done, task->n_steps, res.total_ms / 1000.0);
            else if (res.interrupted)
                printf("fovea run: %s %s\n", task->name, res.reason);
            else
                printf("fovea run: %s FAILED at %s\n", task->name, res.reason);
            status = res.ok ? 0 : 1;
        }
    }
    serve_httpd_destroy(srv);
    agent_task_free(task);
    if (base_interrupted()) {
        if (!ran) /* stopped while the browser started: say so, as a run would */
            printf("fovea run: %s interrupted by %s before the first step\n", task_name,
                   base_signal_name(base_interrupted()));
        fflush(stdout);
        return 128 + base_interrupted();
    }
    fflush(stdout);
    return cli_out_status("fovea run", status);
}
