/* tools/cmd_agent.c: `fovea run "TASK" --url URL` — a task in words, carried
 * out by a model through the agent loop (agent/plan/goal.h). Also a task
 * file with a "goal" and no "steps". The endpoint comes from the
 * environment (FOVEA_LLM_BASE_URL, FOVEA_LLM_API_KEY, FOVEA_LLM_MODEL...,
 * model/llm.h), the budget from --token-budget / FOVEA_TOKEN_BUDGET.
 *
 * Exit status as for scripted runs: 0 the Planner declared the task done,
 * 1 it did not end done (gave up, loop, cost cap, max steps, endpoint
 * failure), 2 usage error, 128 + N on signal N.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/plan/answer.h"
#include "agent/plan/goal.h"
#include "agent/plan/andor_run.h"
#include "agent/script/run.h"
#include "agent/script/task.h"
#include "agent/session/trace.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/fs.h"
#include "tools/cli.h"

/* A task file is the agent's when it has a "goal" and no "steps". */
static int goal_file(const char *path, char **goal, char **url, int *w, int *h)
{
    size_t n = 0;
    uint8_t *text = NULL;
    char err[BASE_ERRBUF_SIZE];
    if (base_read_file(path, &text, &n, 1u << 20, err) != BASE_OK)
        return 0;
    cJSON *j = cJSON_ParseWithLength((const char *)text, n);
    base_free(text);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "goal");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(j, "url");
    const cJSON *vp = cJSON_GetObjectItemCaseSensitive(j, "viewport");
    int yes = cJSON_IsString(g) && g->valuestring[0] &&
              !cJSON_GetObjectItemCaseSensitive(j, "steps");
    if (yes && goal) {
        *goal = base_strdup(g->valuestring);
        *url = cJSON_IsString(u) ? base_strdup(u->valuestring) : NULL;
        const cJSON *vw = cJSON_GetObjectItemCaseSensitive(vp, "width");
        const cJSON *vh = cJSON_GetObjectItemCaseSensitive(vp, "height");
        if (cJSON_IsNumber(vw) && cJSON_IsNumber(vh)) {
            *w = vw->valueint;
            *h = vh->valueint;
        }
    }
    cJSON_Delete(j);
    return yes;
}

int cli_run_is_agent(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--url") == 0 || strcmp(argv[i], "--resume") == 0 ||
            strcmp(argv[i], "--token-budget") == 0 || strcmp(argv[i], "--max-steps") == 0 ||
            strcmp(argv[i], "--step-timeout") == 0 || strcmp(argv[i], "--planner") == 0 ||
            strcmp(argv[i], "--llm-first-byte") == 0 || strcmp(argv[i], "--llm-stall") == 0 ||
            strcmp(argv[i], "--llm-call-limit") == 0 || strcmp(argv[i], "--answer-schema") == 0)
            return 1;
    }
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (argv[i][0] == '-') {
            static const char *const flags[] = {"--no-humanize", "--headful", "--allow-untrusted",
                                                 "--allow-scripts", "--screenshot", "--help",
                                                 "-h"};
            int flag = 0;
            for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
                flag |= strcmp(argv[i], flags[k]) == 0;
            i += !flag; /* skip an option's value */
            continue;
        }
        if (n > 5 && strcmp(argv[i] + n - 5, ".json") == 0)
            return goal_file(argv[i], NULL, NULL, NULL, NULL);
        /* Words, not a file: the agent says what is missing (--url). */
        FILE *f = fopen(argv[i], "r");
        if (f)
            fclose(f);
        return !f && strchr(argv[i], ' ') != NULL;
    }
    return 0;
}

/* The calls the guards refused (a permit the run lacks, a file outside the
 * upload folder, an off-site hop): one line, so that the run's end says
 * what the model tried and was not let do. */
static void say_blocked(fovea_session *se)
{
    const char *last = NULL;
    int n = fovea_session_blocked(se, &last);
    if (n > 0)
        printf("fovea run: %d tool call%s blocked by the run's permissions (last: %s)\n", n,
               n == 1 ? "" : "s", last);
}

/* --planner andor: the run, its summary lines and report; returns the
 * exit status (0 done, 1 otherwise). The session is the caller's. */
static int run_andor(fovea_session *se, agent_andor_run_opts *ao, const char *goal,
                     model_llm *llm, model_budget *budget, const agent_run_opts *ro,
                     int max_steps, int step_timeout, const char *intervene,
                     const agent_trace_info *info)
{
    char err[BASE_ERRBUF_SIZE] = "";
    ao->goal = goal;
    ao->llm = llm;
    ao->budget = budget;
    ao->out_dir = ro->out_dir;
    ao->max_steps = max_steps;
    ao->step_timeout_ms = step_timeout;
    ao->intervene = intervene;
    ao->trace = info;
    agent_andor_run_result res;
    base_err e = agent_andor_run(se, ao, &res, err);
    int ok = !e && res.end == AGENT_GOAL_DONE;
    fprintf(stderr,
            "agent: planner andor: %d iterations, %d nodes, %d steps, %d model calls "
            "(expand %d, repair %d, update %d, complete %d, summarize %d), tokens in=%ld "
            "out=%ld, %.0f ms: model %.0f, tools %.0f\n",
            res.iterations, res.nodes, res.steps, res.model_calls,
            res.calls[AGENT_ANDOR_OPK_EXPAND], res.calls[AGENT_ANDOR_OPK_REPAIR],
            res.calls[AGENT_ANDOR_OPK_UPDATE], res.calls[AGENT_ANDOR_OPK_COMPLETE],
            res.calls[AGENT_ANDOR_OPK_SUMMARIZE], res.usage.prompt, res.usage.completion,
            res.total_ms, res.model_ms, res.tool_ms);
    char rerr[BASE_ERRBUF_SIZE] = "", spent[256];
    if (ro->out_dir && agent_report_write(ro->out_dir, rerr) == BASE_OK)
        printf("report: %s/report.html\n", ro->out_dir);
    model_budget_describe(budget, spent, sizeof spent);
    if (base_out_lost_get(NULL, 0))
        printf("fovea run: agent FAILED: output lost after %d steps\n", res.steps);
    else if (e)
        printf("fovea run: agent FAILED: %s\n", err);
    else if (ok)
        printf("fovea run: agent done in %d steps (%s): %s\n", res.steps, spent, res.answer);
    else if (strncmp(res.reason, agent_goal_end_name(res.end),
                     strlen(agent_goal_end_name(res.end))) == 0)
        printf("fovea run: agent %s (%s)\n", res.reason, spent);
    else
        printf("fovea run: agent %s: %s (%s)\n", agent_goal_end_name(res.end), res.reason, spent);
    return ok ? 0 : 1;
}

int cli_cmd_agent(int argc, char **argv)
{
    const char *words = NULL, *url = NULL, *site = NULL, *cdp = NULL, *budget_s = NULL;
    agent_run_opts ro;
    agent_run_opts_init(&ro);
    int headful = 0, max_steps = AGENT_GOAL_MAX_STEPS, screenshot = 0, resume = 0;
    int step_timeout = 0;
    /* The model call's byte timers and limit, in seconds (-1 = env/default). */
    int llm_first_byte = -1, llm_stall = -1, llm_call_limit = -1;
    char allow_hosts[2048] = "";
    /* --planner andor and its flags (NULL = not given). */
    const char *planner = "loop", *cand_s = NULL, *check_s = NULL, *intervene = NULL;
    const char *answer_schema_path = NULL; /* --answer-schema FILE */
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
        if (strcmp(a, "--allow-scripts") == 0) {
            ro.session.allow_scripts = 1;
            continue;
        }
        if (strcmp(a, "--screenshot") == 0) {
            screenshot = 1;
            continue;
        }
        if (a[0] != '-') {
            if (words) {
                fprintf(stderr, "fovea run: one task only (got '%.60s' and '%.60s')\n", words, a);
                return 2;
            }
            words = a;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fovea run: unknown option or missing value: %s\n", a);
            cli_run_usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--url") == 0)
            url = v;
        else if (strcmp(a, "--site") == 0)
            site = v;
        else if (strcmp(a, "--cdp") == 0)
            cdp = v;
        else if (strcmp(a, "--out") == 0)
            ro.out_dir = v;
        else if (strcmp(a, "--vision") == 0)
            ro.session.vision = v;
        else if (strcmp(a, "--resume") == 0) {
            ro.out_dir = v; /* the run folder to continue */
            resume = 1;
        } else if (strcmp(a, "--token-budget") == 0)
            budget_s = v;
        else if (strcmp(a, "--max-steps") == 0) {
            if (cli_parse_int("--max-steps", v, 1, 10000, &max_steps) < 0)
                return 2;
        } else if (strcmp(a, "--step-timeout") == 0) {
            if (cli_parse_int("--step-timeout", v, 100, 3600000, &step_timeout) < 0)
                return 2;
        } else if (strcmp(a, "--llm-first-byte") == 0) {
            if (cli_parse_int("--llm-first-byte", v, 0, 86400, &llm_first_byte) < 0)
                return 2;
        } else if (strcmp(a, "--llm-stall") == 0) {
            if (cli_parse_int("--llm-stall", v, 0, 86400, &llm_stall) < 0)
                return 2;
        } else if (strcmp(a, "--llm-call-limit") == 0) {
            if (cli_parse_int("--llm-call-limit", v, 1, 86400, &llm_call_limit) < 0)
                return 2;
        } else if (strcmp(a, "--planner") == 0) {
            planner = v;
        } else if (strcmp(a, "--candidates") == 0) {
            cand_s = v;
        } else if (strcmp(a, "--completion-check") == 0) {
            check_s = v;
        } else if (strcmp(a, "--intervene") == 0) {
            intervene = v;
        } else if (strcmp(a, "--answer-schema") == 0) {
            answer_schema_path = v;
        } else if (strcmp(a, "--allow-host") == 0) {
            if (cli_add_allow_host(allow_hosts, sizeof allow_hosts, v) < 0)
                return 2;
            ro.session.allow_hosts = allow_hosts;
        } else if (strcmp(a, "--upload-dir") == 0) {
            /* The one folder the model's upload_file may take files from. */
            struct stat ust;
            if (stat(v, &ust) != 0 || !S_ISDIR(ust.st_mode)) {
                fprintf(stderr, "fovea run: --upload-dir %s: not a folder\n", v);
                return 2;
            }
            ro.session.upload_dir = v;
        } else {
            fprintf(stderr, "fovea run: unknown option %s\n", a);
            cli_run_usage(stderr);
            return 2;
        }
    }
    /* The planner's flags are checked before anything starts. */
    int andor = strcmp(planner, "andor") == 0;
    agent_andor_run_opts ao;
    agent_andor_run_opts_init(&ao);
    char perr[BASE_ERRBUF_SIZE];
    if (!andor && strcmp(planner, "loop") != 0) {
        fprintf(stderr, "fovea run: --planner: '%.60s' is not a planner (loop or andor)\n",
                planner);
        return 2;
    }
    if (!andor && (cand_s || check_s || intervene)) {
        fprintf(stderr, "fovea run: %s needs --planner andor\n",
                cand_s ? "--candidates" : check_s ? "--completion-check" : "--intervene");
        return 2;
    }
    /* The parsers' own messages name the values already; one line each. */
    if (cand_s && agent_cand_mode_parse(cand_s, &ao.candidates, perr) != BASE_OK) {
        fprintf(stderr, "fovea run: --candidates must be on, off or auto (not '%.60s')\n",
                cand_s);
        return 2;
    }
    if (check_s && agent_andor_scope_parse(check_s, &ao.tree.scope, perr) != BASE_OK) {
        fprintf(stderr, "fovea run: --completion-check must be root, all or none (not '%.60s')\n",
                check_s);
        return 2;
    }
    if (andor && resume) {
        fprintf(stderr, "fovea run: --resume is not supported with --planner andor (the tree "
                        "is not saved for resuming): run the task again\n");
        return 2;
    }
    if (intervene && !intervene[0]) {
        fprintf(stderr, "fovea run: --intervene: a file path, or - for standard input\n");
        return 2;
    }
    if (intervene && strcmp(intervene, "-") != 0) {
        /* Checked (and created empty when missing, for `>>`) before the
         * browser starts: a path that cannot be watched is a usage error.
         * O_NONBLOCK: opening a FIFO would otherwise wait for a writer. */
        int fd = open(intervene, O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
        struct stat st;
        if (fd < 0) {
            fprintf(stderr, "fovea run: --intervene %s: %s\n", intervene, strerror(errno));
            return 2;
        }
        int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        close(fd);
        if (!regular) {
            fprintf(stderr, "fovea run: --intervene %s: not a regular file (a file edits are "
                            "appended to, or - to pipe them into standard input)\n",
                    intervene);
            return 2;
        }
    }
    /* The answer's schema is read and checked before anything starts: a
     * file that is not JSON, or not a schema fovea can enforce in full, is a
     * usage error, not a run that fails at its end. */
    cJSON *answer_schema = NULL;
    if (answer_schema_path &&
        agent_answer_schema_load(answer_schema_path, &answer_schema, perr) != BASE_OK) {
        fprintf(stderr, "fovea run: --answer-schema: %s\n", perr);
        return 2;
    }
    ao.answer_schema = answer_schema;
    ao.screenshot = screenshot;
    char *goal = NULL, *file_url = NULL;
    int w = 1280, h = 800;
    size_t wl = words ? strlen(words) : 0;
    if (words && wl > 5 && strcmp(words + wl - 5, ".json") == 0 &&
        goal_file(words, &goal, &file_url, &w, &h)) {
        if (!url)
            url = file_url;
    } else if (words) {
        goal = base_strdup(words);
    }
    int status = 2;
    char err[BASE_ERRBUF_SIZE] = "";
    model_llm_config lc;
    model_llm_config_init(&lc);
    model_budget budget;
    model_budget_init(&budget, MODEL_BUDGET_DEFAULT);
    long limit = 0;
    if (!goal || !goal[0]) {
        fprintf(stderr, "fovea run: the task in words is missing\n");
        cli_run_usage(stderr);
        goto out;
    }
    if (!url) {
        fprintf(stderr, "fovea run: --url is required for a task in words\n");
        goto out;
    }
    if (model_llm_config_from_env(&lc, err) != BASE_OK ||
        model_budget_from_env(&budget, err) != BASE_OK) {
        fprintf(stderr, "fovea run: %s\n", err);
        goto out;
    }
    /* The flags win over FOVEA_LLM_FIRST_BYTE_S, _STALL_S, _CALL_LIMIT_S. */
    if (llm_first_byte >= 0)
        lc.first_byte_ms = llm_first_byte * 1000;
    if (llm_stall >= 0)
        lc.stall_ms = llm_stall * 1000;
    if (llm_call_limit > 0)
        lc.call_limit_ms = llm_call_limit * 1000;
    if (budget_s) {
        if (model_budget_parse(budget_s, &limit, err) != BASE_OK) {
            fprintf(stderr, "fovea run: --token-budget: %s\n", err);
            goto out;
        }
        budget.limit = limit;
    }
    model_llm *llm = NULL;
    if (model_llm_create(&lc, &llm, err) != BASE_OK) {
        fprintf(stderr, "fovea run: model endpoint: %s\n", err);
        goto out;
    }
    /* An output folder fovea cannot write is said before a browser starts
     * (the --resume folder is the output folder). */
    if (ro.out_dir && cli_out_check("fovea run", ro.out_dir)) {
        model_llm_destroy(llm);
        goto out;
    }
    /* The session is opened as for a scripted task with no steps. */
    agent_task task;
    memset(&task, 0, sizeof task);
    char name_buf[] = "agent", url_buf[1024];
    snprintf(url_buf, sizeof url_buf, "%s", url);
    task.name = name_buf;
    task.url = url_buf;
    task.width = w;
    task.height = h;
    task.scale = 1;
    serve_httpd *srv = NULL;
    cli_session cs;
    status = cli_task_session_open_start("fovea run", &task, "(task in words)", site, cdp, &pool,
                                         NULL, headful, &srv, &cs, NULL, NULL);
    if (status != 0) {
        model_llm_destroy(llm);
        goto out;
    }
    status = 1;
    ro.browser = cdp_browser_product(cs.browser);
    ro.task_file = "(task in words)";
    ro.session.overlays = AGENT_OVERLAYS_NONE;
    fovea_session_opts so;
    fovea_session_opts_init(&so);
    so = ro.session;
    so.first_subgoal = goal;
    fovea_session *se = NULL;
    if (fovea_session_create(cs.page, &so, &se, err) != BASE_OK) {
        fprintf(stderr, "fovea run: %s\n", err);
    } else {
        agent_trace_info info = {"agent", ro.task_file, cs.url, ro.session.vision, ro.browser,
                                 w, h, 1.0, ro.session.humanize, ro.session.seed, 0};
        fprintf(stderr, "fovea run: agent on %s (model %s, budget %ld tokens, planner %s)\n",
                cs.url, model_llm_model(llm, MODEL_LLM_WORKER), budget.limit, planner);
        /* The timers each model call runs under (flags over environment), so
         * a run's log says which bounds held it. */
        fprintf(stderr,
                "fovea run: model calls: first byte %g s, stall %g s, call limit %g s%s%s\n",
                lc.first_byte_ms / 1000.0, lc.stall_ms / 1000.0, lc.call_limit_ms / 1000.0,
                answer_schema ? ", answer schema " : "",
                answer_schema ? answer_schema_path : "");
        if (andor) {
            status = run_andor(se, &ao, goal, llm, &budget, &ro, max_steps, step_timeout,
                               intervene, &info);
            say_blocked(se);
            fovea_session_destroy(se);
            goto close;
        }
        agent_goal_opts go;
        agent_goal_opts_init(&go);
        go.goal = goal;
        go.llm = llm;
        go.budget = &budget;
        go.out_dir = ro.out_dir;
        go.max_steps = max_steps;
        go.step_timeout_ms = step_timeout;
        go.screenshot = screenshot;
        go.resume = resume;
        go.trace = &info;
        go.answer_schema = answer_schema;
        agent_goal_result res;
        base_err e = agent_goal_run(se, &go, &res, err);
        int ok = !e && res.end == AGENT_GOAL_DONE;
        /* Where the time went: the agent layer is what is left after the
         * model's calls and the tools' own work (observations, eviction,
         * ledger writes, JSON). */
        double layer = res.total_ms - res.model_ms - res.tool_ms - res.obs_ms;
        fprintf(stderr,
                "agent: %d steps, %d model calls, %.0f ms: model %.0f, tools %.0f, observations "
                "%.0f, agent layer %.1f (%.2f ms per step; ledger writes %.1f, eviction %.1f)\n",
                res.steps, res.calls[MODEL_LLM_WORKER] + res.calls[MODEL_LLM_PLANNER], res.total_ms,
                res.model_ms, res.tool_ms, res.obs_ms, layer,
                res.steps > 0 ? layer / res.steps : 0.0, res.ledger_ms, res.evict_ms);
        say_blocked(se);
        fovea_session_destroy(se);
        char rerr[BASE_ERRBUF_SIZE] = "", spent[256];
        if (agent_report_write(ro.out_dir, rerr) == BASE_OK)
            printf("report: %s/report.html\n", ro.out_dir);
        model_budget_describe(&budget, spent, sizeof spent);
        if (base_out_lost_get(NULL, 0))
            printf("fovea run: agent FAILED: output lost after %d steps\n", res.last_step);
        else if (e)
            printf("fovea run: agent FAILED: %s\n", err);
        else if (ok)
            printf("fovea run: agent done in %d steps (%s): %s\n", res.last_step, spent,
                   res.answer);
        else if (strncmp(res.reason, agent_goal_end_name(res.end),
                         strlen(agent_goal_end_name(res.end))) == 0)
            printf("fovea run: agent %s (%s)\n", res.reason, spent);
        else
            printf("fovea run: agent %s: %s (%s)\n", agent_goal_end_name(res.end), res.reason,
                   spent);
        status = ok ? 0 : 1;
    }
close:
    cli_session_close(&cs);
    serve_httpd_destroy(srv);
    model_llm_destroy(llm);
out:
    cJSON_Delete(answer_schema);
    base_free(goal);
    base_free(file_url);
    fflush(stdout);
    if (base_interrupted())
        return 128 + base_interrupted();
    return cli_out_status("fovea run", status);
}
