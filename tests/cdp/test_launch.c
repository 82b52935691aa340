/* tests/cdp/test_launch.c: Chromium launch, teardown, signal cleanup and
 * /json/version discovery. The launch cases need Chromium and SKIP without
 * it (a failure in CI). Liveness checks treat zombies as dead, because
 * orphaned renderers are reaped by init at its own pace. */
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "serve/httpd.h"
#include "cdp/launch.h"
#include "check.h"

/* Process state letter from /proc/PID/stat and its group, or 0 when gone. */
static char proc_state(int pid, int *pgrp)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    char st = 0;
    int ppid = 0, pg = 0;
    if (!rp || sscanf(rp + 1, " %c %d %d", &st, &ppid, &pg) != 3)
        return 0;
    if (pgrp)
        *pgrp = pg;
    return st;
}

static int pid_dead(int pid)
{
    char st = proc_state(pid, NULL);
    return st == 0 || st == 'Z' || st == 'X';
}

/* True when no live (non-zombie) process is in group pgid. */
static int group_dead(int pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return kill(-pgid, 0) != 0;
    int alive = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = (int)strtol(e->d_name, NULL, 10);
        int pg = 0;
        if (pid <= 0)
            continue;
        char st = proc_state(pid, &pg);
        if (pg == pgid && st && st != 'Z' && st != 'X')
            alive++;
    }
    closedir(d);
    return alive == 0;
}

/* Polls cond(arg) for up to ms milliseconds. */
static int eventually(int (*cond)(int), int arg, int ms)
{
    int64_t end = base_monotime() + (int64_t)ms * 1000;
    while (!cond(arg)) {
        if (base_monotime() > end)
            return 0;
        base_sleep_ms(20);
    }
    return 1;
}

static int path_exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void launch_discover_destroy(void)
{
    cdp_process *p = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_launch(NULL, &p, err);
    if (e == BASE_ENOTFOUND)
        SKIP("chromium not installed");
    CHECK_MSG(e == BASE_OK, "launch: %s", err);
    const char *ws = cdp_process_ws_url(p);
    int port = 0;
    CHECK_MSG(sscanf(ws, "ws://127.0.0.1:%d/devtools/browser/", &port) == 1, "url %s", ws);
    CHECK(port > 0 && port < 65536);
    CHECK(strlen(strstr(ws, "/devtools/browser/")) == strlen("/devtools/browser/") + 36);
    CHECK(cdp_process_alive(p));
    int pid = cdp_process_pid(p);
    char profile[512], log[520];
    snprintf(profile, sizeof profile, "%s", cdp_process_profile_dir(p));
    snprintf(log, sizeof log, "%s.log", profile);
    CHECK(strstr(profile, "/fovea-profile-"));
    CHECK(path_exists(profile));
    CHECK(path_exists(log));

    /* The port answers /json/version with the same browser URL, in every
     * accepted spelling of the endpoint. */
    char ep[64];
    static const char *const prefixes[] = {"127.0.0.1:", "http://127.0.0.1:", "localhost:"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(ep, sizeof ep, "%s%d%s", prefixes[i % 3], port, i == 3 ? "/" : "");
        char *found = NULL;
        err[0] = '\0';
        e = cdp_discover(ep, &found, err);
        if (e != BASE_OK) {
            cdp_process_destroy(p);
            CHECK_MSG(0, "discover %s: %s", ep, err);
        }
        int same = strstr(found, "/devtools/browser/") &&
                   strcmp(strstr(found, "/devtools/browser/"), strstr(ws, "/devtools/browser/")) == 0;
        base_free(found);
        if (!same) {
            cdp_process_destroy(p);
            CHECK_MSG(0, "discover %s: different browser", ep);
        }
    }
    char *copy = NULL;
    CHECK_OK(cdp_discover(ws, &copy, NULL));
    CHECK_STR(copy, ws);
    base_free(copy);

    double t0 = base_monotime_ms();
    cdp_process_destroy(p);
    double dt = base_monotime_ms() - t0;
    CHECK_MSG(dt < 3000, "destroy took %.0f ms", dt);
    CHECK(pid_dead(pid));
    CHECK(eventually(group_dead, pid, 2000));
    CHECK(!path_exists(profile));
    CHECK(!path_exists(log));
    cdp_process_destroy(NULL);
}

static void kill_then_destroy(void)
{
    cdp_process *p = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_launch_opts o;
    memset(&o, 0, sizeof o);
    o.window_w = 800;
    o.window_h = 600;
    base_err e = cdp_launch(&o, &p, err);
    if (e == BASE_ENOTFOUND)
        SKIP("chromium not installed");
    CHECK_MSG(e == BASE_OK, "launch: %s", err);
    int pid = cdp_process_pid(p);
    char profile[512];
    snprintf(profile, sizeof profile, "%s", cdp_process_profile_dir(p));
    cdp_process_kill(p);
    int64_t end = base_monotime() + 2000 * 1000;
    while (cdp_process_alive(p) && base_monotime() < end)
        base_sleep_ms(10);
    CHECK(!cdp_process_alive(p));
    /* A crashed browser no longer answers discovery. */
    char *ws = NULL;
    char ep[64];
    int port = 0;
    sscanf(cdp_process_ws_url(p), "ws://127.0.0.1:%d", &port);
    snprintf(ep, sizeof ep, "127.0.0.1:%d", port);
    CHECK(cdp_discover(ep, &ws, NULL) != BASE_OK);
    CHECK(ws == NULL);
    cdp_process_destroy(p);
    CHECK(pid_dead(pid));
    CHECK(eventually(group_dead, pid, 2000));
    CHECK(!path_exists(profile));
}

/* Runs with TMPDIR pointing at an empty private directory, to see that a
 * failed launch leaves nothing behind. */
static void launch_failures(void)
{
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/fovea-launchtest-XXXXXX");
    CHECK(mkdtemp(dir));
    const char *old = getenv("TMPDIR");
    char saved[256] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("TMPDIR", dir, 1);

    cdp_launch_opts o;
    memset(&o, 0, sizeof o);
    o.executable = "/nonexistent/chromium";
    cdp_process *p = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e1 = cdp_launch(&o, &p, err);
    int notfound_msg = strstr(err, "not found") != NULL;

    /* An "executable" that exits at once, printing something for the log. */
    o.executable = "/bin/sh";
    static const char *const extra[] = {NULL};
    o.extra_args = extra;
    err[0] = '\0';
    char script[300];
    snprintf(script, sizeof script, "%s/fake-chrome", dir);
    FILE *f = fopen(script, "w");
    if (f) {
        fputs("#!/bin/sh\necho 'fake chrome: cannot open display' >&2\nexit 3\n", f);
        fclose(f);
        chmod(script, 0700);
    }
    o.executable = script;
    base_err e2 = cdp_launch(&o, &p, err);
    char err2[BASE_ERRBUF_SIZE];
    snprintf(err2, sizeof err2, "%s", err);

    /* Executable bit but no valid format: exec itself fails. */
    snprintf(script, sizeof script, "%s/bad-format", dir);
    f = fopen(script, "w");
    if (f) {
        fputs("\x7f\x01not an executable\n", f);
        fclose(f);
        chmod(script, 0700);
    }
    o.executable = script;
    err[0] = '\0';
    base_err e4 = cdp_launch(&o, &p, err);
    char err4[BASE_ERRBUF_SIZE];
    snprintf(err4, sizeof err4, "%s", err);
    unlink(script);

    /* One that never writes DevToolsActivePort: a short timeout. */
    snprintf(script, sizeof script, "%s/slow-chrome", dir);
    f = fopen(script, "w");
    if (f) {
        fputs("#!/bin/sh\nexec sleep 30\n", f);
        fclose(f);
        chmod(script, 0700);
    }
    o.executable = script;
    o.timeout_ms = 300;
    err[0] = '\0';
    double t0 = base_monotime_ms();
    base_err e3 = cdp_launch(&o, &p, err);
    double dt = base_monotime_ms() - t0;

    unlink(script);
    snprintf(script, sizeof script, "%s/fake-chrome", dir);
    unlink(script);
    int empty = rmdir(dir) == 0;
    if (saved[0])
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");

    CHECK_EQ(e1, BASE_ENOTFOUND);
    CHECK(notfound_msg);
    CHECK_EQ(e2, BASE_ECLOSED);
    CHECK_MSG(strstr(err2, "cannot open display"), "error: %s", err2);
    CHECK_EQ(e3, BASE_ETIMEDOUT);
    CHECK_EQ(e4, BASE_EIO);
    CHECK_MSG(strstr(err4, "cannot start"), "error: %s", err4);
    CHECK_MSG(dt < 3000, "timeout path took %.0f ms", dt);
    CHECK(p == NULL);
    CHECK_MSG(empty, "a failed launch left files in %s", dir);
}

/* /json/version answers for the discovery error cases, by path prefix. */
static int version_handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    (void)user;
    const char *mode = getenv("FOVEA_TEST_DISCOVER_MODE");
    if (strcmp(req->path, "/json/version") != 0 || !mode)
        return 0;
    if (strcmp(mode, "garbage") == 0) {
        base_buf_append_str(&resp->body, "<html>not json</html>");
    } else if (strcmp(mode, "nofield") == 0) {
        base_buf_append_str(&resp->body, "{\"Browser\":\"Chrome/1.0\"}");
    } else if (strcmp(mode, "raw") == 0) {
        resp->raw = 1;
        base_buf_append_str(&resp->body, "\x7f\x45LF garbage");
    } else if (strcmp(mode, "500") == 0) {
        resp->status = 500;
    } else {
        base_buf_append_str(&resp->body,
                            "{\"webSocketDebuggerUrl\":\"ws://127.0.0.1:1/devtools/browser/x\"}");
    }
    return 1;
}

static void discover_errors(void)
{
    char *ws = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    /* A port that was just closed: connection refused. */
    int closed_port = check_closed_port();
    CHECK(closed_port > 0);
    char ep[64];
    snprintf(ep, sizeof ep, "127.0.0.1:%d", closed_port);
    CHECK_EQ(cdp_discover(ep, &ws, err), BASE_ECLOSED);
    CHECK_MSG(strstr(err, "refused"), "%s", err);

    static const char *const bad[] = {"", "nonsense", "127.0.0.1", "127.0.0.1:", ":9222",
                                      "127.0.0.1:99999", "https://127.0.0.1:9222",
                                      "127.0.0.1:12ab"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK_MSG(cdp_discover(bad[i], &ws, err) == BASE_EINVAL, "'%s' accepted", bad[i]);
    }

    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.handler = version_handler;
    serve_httpd *h = NULL;
    CHECK_OK(serve_httpd_start(&o, &h, NULL));
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", serve_httpd_port(h));
    static const struct {
        const char *mode;
        base_err want;
        const char *msg;
    } cases[] = {
        {"garbage", BASE_EPROTO, "not a JSON object"},
        {"nofield", BASE_EPROTO, "webSocketDebuggerUrl"},
        {"raw", BASE_EPROTO, "HTTP"},
        {"500", BASE_EREMOTE, "HTTP 500"},
        {"ok", BASE_OK, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("FOVEA_TEST_DISCOVER_MODE", cases[i].mode, 1);
        err[0] = '\0';
        base_err e = cdp_discover(ep, &ws, err);
        if (e != cases[i].want || !strstr(err, cases[i].msg)) {
            serve_httpd_destroy(h);
            CHECK_MSG(0, "mode %s: got %d (%s)", cases[i].mode, (int)e, err);
        }
    }
    unsetenv("FOVEA_TEST_DISCOVER_MODE");
    serve_httpd_destroy(h);
    CHECK_STR(ws, "ws://127.0.0.1:1/devtools/browser/x");
    base_free(ws);
}

/* A child launches Chromium, reports "pid profile" on a pipe and then
 * raises sig. Returns the child's wait status; fills pid and profile. */
static int run_doomed_launcher(int sig, const char *tmpdir, int *pid, char *profile, size_t cap)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        close(fds[0]);
        if (tmpdir)
            setenv("TMPDIR", tmpdir, 1);
        /* SIGQUIT's default action dumps core: not into the test folder. */
        struct rlimit nocore = {0, 0};
        setrlimit(RLIMIT_CORE, &nocore);
        if (sig != SIGKILL)
            cdp_launch_install_signal_cleanup();
        cdp_process *p = NULL;
        char err[BASE_ERRBUF_SIZE] = "";
        char msg[600];
        if (cdp_launch(NULL, &p, err) != BASE_OK)
            snprintf(msg, sizeof msg, "0 %s\n", err);
        else
            snprintf(msg, sizeof msg, "%d %s\n", cdp_process_pid(p), cdp_process_profile_dir(p));
        if (write(fds[1], msg, strlen(msg)) < 0)
            _exit(2);
        close(fds[1]);
        raise(sig);
        _exit(3); /* not reached when the signal kills us */
    }
    close(fds[1]);
    char msg[600];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fds[0], msg + got, sizeof msg - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        if (memchr(msg, '\n', got))
            break;
    }
    msg[got] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    *pid = 0;
    profile[0] = '\0';
    if (sscanf(msg, "%d", pid) == 1 && *pid > 0) {
        const char *sp = strchr(msg, ' ');
        snprintf(profile, cap, "%.*s", (int)strcspn(sp + 1, "\n"), sp + 1);
    } else {
        fprintf(stderr, "child: %s\n", msg);
    }
    return status;
}

static int chromium_missing(void)
{
    cdp_process *probe = NULL;
    base_err e = cdp_launch(NULL, &probe, NULL);
    cdp_process_destroy(probe);
    return e == BASE_ENOTFOUND;
}

/* The installed handler leaves neither process nor profile behind, for
 * every signal a user or a supervisor sends: Ctrl-C, kill, a closed
 * terminal (SIGHUP) and Ctrl-\ (SIGQUIT). */
static void sigint_cleanup(void)
{
    if (chromium_missing())
        SKIP("chromium not installed");
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        int pid = 0;
        char profile[520];
        int status = run_doomed_launcher(sigs[i], NULL, &pid, profile, sizeof profile);
        CHECK(pid > 0);
        CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i], "signal %d: status %d",
                  sigs[i], status);
        CHECK(eventually(pid_dead, pid, 2000));
        CHECK(eventually(group_dead, pid, 2000));
        CHECK_MSG(!path_exists(profile), "signal %d: %s still exists", sigs[i], profile);
        char log[540];
        snprintf(log, sizeof log, "%s.log", profile);
        CHECK(!path_exists(log));
    }
}

/* Writes dir/name/fovea-owner with line (mkdir first). */
static int make_profile(const char *dir, const char *name, const char *line)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(path, 0700) != 0)
        return -1;
    if (!line)
        return 0;
    snprintf(path, sizeof path, "%s/%s/fovea-owner", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(line, f);
    return fclose(f);
}


/* A launcher killed outright (no handler can run) still takes its browser
 * down, through PR_SET_PDEATHSIG; only the files are left, removed here. */
static void launcher_sigkill(void)
{
    if (chromium_missing())
        SKIP("chromium not installed");
    int pid = 0;
    char profile[520];
    int status = run_doomed_launcher(SIGKILL, NULL, &pid, profile, sizeof profile);
    CHECK(pid > 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    int dead = eventually(pid_dead, pid, 3000) && eventually(group_dead, pid, 3000);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.log'", profile, profile);
    if (strstr(profile, "/fovea-profile-") && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", profile);
    CHECK_MSG(dead, "browser %d outlived its launcher", pid);
}

/* A SIGKILLed launcher leaves its profile; the next launch removes it, and
 * only it: a live owner's profile (this process), a directory without the
 * owner mark and a non-fovea directory stay; a profile whose pid now names
 * another process (start time differs) counts as stale. */
static void stale_profile_sweep(void)
{
    if (chromium_missing())
        SKIP("chromium not installed");
    const char *dir = FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp";
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    CHECK(system(cmd) == 0);
    int pid = 0;
    char stale[520];
    int status = run_doomed_launcher(SIGKILL, dir, &pid, stale, sizeof stale);
    CHECK(pid > 0 && WIFSIGNALED(status));
    CHECK(eventually(group_dead, pid, 3000));
    CHECK_MSG(path_exists(stale), "%s: the killed launcher's profile is not there", stale);
    char owner[600], line[64];
    snprintf(owner, sizeof owner, "%s/fovea-owner", stale);
    CHECK_MSG(path_exists(owner), "no owner mark in %s", stale);
    /* The mark of a live owner: this process (pid and start time as the
     * launcher writes them), copied from a profile launched here. */
    setenv("TMPDIR", dir, 1);
    cdp_process *p = NULL;
    base_err e = cdp_launch(NULL, &p, NULL);
    unsetenv("TMPDIR");
    CHECK_OK(e);
    /* That launch swept the stale profile (and its log) already. */
    int swept = !path_exists(stale);
    char live_mark[600];
    snprintf(live_mark, sizeof live_mark, "%s/fovea-owner", cdp_process_profile_dir(p));
    FILE *f = fopen(live_mark, "r");
    line[0] = '\0';
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    char mine[520];
    snprintf(mine, sizeof mine, "%s", cdp_process_profile_dir(p));
    CHECK_MSG(swept, "%s survived the next launch", stale);
    char stale_log[540];
    snprintf(stale_log, sizeof stale_log, "%s.log", stale);
    CHECK(!path_exists(stale_log));
    unsigned long long start = 0;
    int me = 0;
    unsigned long long ns = 0;
    CHECK_MSG(sscanf(line, "%d %llu %llu", &me, &start, &ns) == 3 && me == getpid(), "mark '%s'",
              line);
    char reused[96];
    snprintf(reused, sizeof reused, "%d %llu %llu\n", me, start + 12345, ns);
    char dead_mark[96];
    snprintf(dead_mark, sizeof dead_mark, "%d 1 %llu\n", pid, ns); /* the killed launcher's */
    char other_ns[96];
    snprintf(other_ns, sizeof other_ns, "%d 1 %llu\n", pid, ns + 1); /* judged elsewhere */
    CHECK(make_profile(dir, "fovea-profile-live01", line) == 0);
    CHECK(make_profile(dir, "fovea-profile-nomark", NULL) == 0);
    CHECK(make_profile(dir, "not-fovea-dead", dead_mark) == 0);
    CHECK(make_profile(dir, "fovea-profile-dead01", dead_mark) == 0);
    CHECK(make_profile(dir, "fovea-profile-reuse1", reused) == 0);
    CHECK(make_profile(dir, "fovea-profile-othrns", other_ns) == 0);
    int n = cdp_launch_sweep_stale(dir);
    int live_ok = path_exists(mine);
    cdp_process_destroy(p);
    CHECK_EQ(n, 2);
    CHECK(live_ok);
    CHECK(path_exists(FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp/fovea-profile-live01"));
    CHECK(path_exists(FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp/fovea-profile-nomark"));
    CHECK(path_exists(FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp/not-fovea-dead"));
    CHECK(path_exists(FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp/fovea-profile-othrns"));
    CHECK(!path_exists(FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp/fovea-profile-dead01"));
    CHECK(!path_exists(FOVEA_BINARY_DIR "/tests/cdp/sweep_tmp/fovea-profile-reuse1"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* Entries of dir other than . and .., joined by spaces into out. */
static int list_dir(const char *dir, char *out, size_t n)
{
    out[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        count++;
        size_t k = strlen(out);
        snprintf(out + k, n - k, "%s ", e->d_name);
    }
    closedir(d);
    return count;
}

/* Chromium makes org.chromium.Chromium.XXXXXX in $TMPDIR at every start
 * and left it behind (1265 of them in a reviewer's /tmp): the browser now
 * gets TMPDIR inside its profile, so a launch and a close leave a private
 * TMPDIR as empty as it was. */
static void private_tmpdir(void)
{
    char dir[] = "/tmp/fovea-test-tmpdir-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *old = getenv("TMPDIR");
    char saved[512] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("TMPDIR", dir, 1);
    cdp_process *p = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_launch(NULL, &p, err);
    if (old)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    if (e == BASE_ENOTFOUND) {
        rmdir(dir);
        SKIP("chromium not installed");
    }
    CHECK_MSG(e == BASE_OK, "launch: %s", err);
    /* While it runs, only the profile and its log are in TMPDIR; the
     * browser's scratch directories are inside the profile. */
    char during[2048];
    int n_during = list_dir(dir, during, sizeof during);
    char inner[600];
    snprintf(inner, sizeof inner, "%s/t", cdp_process_profile_dir(p));
    int has_inner = path_exists(inner);
    cdp_process_destroy(p);
    char after[2048];
    int n_after = list_dir(dir, after, sizeof after);
    rmdir(dir);
    CHECK_MSG(n_during == 2, "TMPDIR while running: %s", during);
    CHECK(has_inner);
    CHECK_MSG(n_after == 0, "left in TMPDIR: %s", after);
}

/* A deep TMPDIR (a build in a long mktemp path): the profile's own scratch
 * directory would put Chromium's socket past 107 bytes, and so would the
 * TMPDIR itself; the browser still starts (it gets /tmp) and the profile
 * is removed at close. */
static void deep_tmpdir(void)
{
    char dir[64] = "/tmp/fovea-test-deep-XXXXXX"; /* small: the paths below fit in 300 */
    CHECK(mkdtemp(dir) != NULL);
    char deep[300];
    snprintf(deep, sizeof deep, "%s/%s", dir,
             "a-rather-long-build-folder-name/tests/agent/out_interrupt_SIGTERM.tmp");
    char sub[300];
    snprintf(sub, sizeof sub, "%s/a-rather-long-build-folder-name", dir);
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(sub, sizeof sub, "%s/a-rather-long-build-folder-name/tests", dir);
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(sub, sizeof sub, "%s/a-rather-long-build-folder-name/tests/agent", dir);
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(mkdir(deep, 0700) == 0);
    CHECK(strlen(deep) + sizeof "/fovea-profile-XXXXXX/t" + 45 > 108);
    const char *old = getenv("TMPDIR");
    char saved[512] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("TMPDIR", deep, 1);
    cdp_process *p = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_launch(NULL, &p, err);
    if (old)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    if (e == BASE_ENOTFOUND)
        SKIP("chromium not installed");
    CHECK_MSG(e == BASE_OK, "launch in a deep TMPDIR: %s", err);
    cdp_process_destroy(p);
    char left[2048];
    int n_left = list_dir(deep, left, sizeof left);
    CHECK_MSG(n_left == 0, "left in TMPDIR: %s", left);
    rmdir(deep);
    snprintf(sub, sizeof sub, "%s/a-rather-long-build-folder-name/tests/agent", dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/a-rather-long-build-folder-name/tests", dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/a-rather-long-build-folder-name", dir);
    rmdir(sub);
    rmdir(dir);
}

static const check_case cases[] = {
    {"launch_discover_destroy", launch_discover_destroy},
    {"deep_tmpdir", deep_tmpdir},
    {"private_tmpdir", private_tmpdir},
    {"kill_then_destroy", kill_then_destroy},
    {"launch_failures", launch_failures},
    {"discover_errors", discover_errors},
    {"sigint_cleanup", sigint_cleanup},
    {"launcher_sigkill", launcher_sigkill},
    {"stale_profile_sweep", stale_profile_sweep},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
