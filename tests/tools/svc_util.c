/* tests/tools/svc_util.c: see svc_util.h. The browser is started here with
 * fork/exec rather than cdp_launch on purpose: the point of the tests using
 * it is a browser fovea did not launch and does not own.
 */
#include "svc_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"

void svc_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int waitpid_ms(pid_t pid, int *status, int ms)
{
    for (int waited = 0; waited <= ms; waited += 20) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        svc_sleep_ms(20);
    }
    return -1;
}

int svc_chrome_start(svc_chrome *c, char *why)
{
    memset(c, 0, sizeof *c);
    const char *exe = getenv("FOVEA_CHROMIUM");
    if (!exe || !exe[0])
        exe = "chromium";
    const char *tmp = getenv("TMPDIR");
    snprintf(c->profile, sizeof c->profile, "%s/fovea-svc-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(c->profile)) {
        snprintf(why, 256, "mkdtemp: %s", strerror(errno));
        return -1;
    }
    char udd[300];
    snprintf(udd, sizeof udd, "--user-data-dir=%s", c->profile);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, 256, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        execlp(exe, exe, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-first-run", udd, "--remote-debugging-port=0", "about:blank", (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    c->pid = pid;
    char path[300];
    snprintf(path, sizeof path, "%s/DevToolsActivePort", c->profile);
    for (int waited = 0; waited < 20000; waited += 50) {
        FILE *f = fopen(path, "r");
        int port = 0;
        if (f) {
            if (fscanf(f, "%d", &port) != 1)
                port = 0;
            fclose(f);
        }
        if (port > 0) {
            snprintf(c->endpoint, sizeof c->endpoint, "127.0.0.1:%d", port);
            return 0;
        }
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            c->pid = 0;
            snprintf(why, 256, "%s exited before writing DevToolsActivePort", exe);
            svc_chrome_stop(c);
            return -1;
        }
        svc_sleep_ms(50);
    }
    snprintf(why, 256, "%s wrote no DevToolsActivePort within 20 s", exe);
    svc_chrome_stop(c);
    return -1;
}

void svc_chrome_stop(svc_chrome *c)
{
    if (c->pid > 0) {
        int st;
        kill(-c->pid, SIGTERM);
        if (waitpid_ms(c->pid, &st, 3000) < 0) {
            kill(-c->pid, SIGKILL);
            waitpid(c->pid, &st, 0);
        }
        c->pid = 0;
    }
    if (c->profile[0]) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->profile);
        if (system(cmd) != 0)
            fprintf(stderr, "svc: could not remove %s\n", c->profile);
        c->profile[0] = '\0';
    }
}

int svc_proc_start(svc_proc *p, const char *const argv[], const char *err_path)
{
    memset(p, 0, sizeof *p);
    /* execv wants char *const[]; copy the pointers (not the strings) before
     * fork so the child only calls async-signal-safe functions. */
    char *args[32];
    int na = 0;
    while (argv[na] && na < 31) {
        memcpy(&args[na], &argv[na], sizeof args[na]);
        na++;
    }
    args[na] = NULL;
    int in[2], out[2];
    if (pipe(in) < 0)
        return -1;
    if (pipe(out) < 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    /* Close-on-exec everywhere (dup2 clears it on 0 and 1): a stray copy of
     * the write end in the child would keep its stdin from ever seeing EOF. */
    for (int i = 0; i < 2; i++) {
        fcntl(in[i], F_SETFD, FD_CLOEXEC);
        fcntl(out[i], F_SETFD, FD_CLOEXEC);
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (err_path) {
            int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0)
                dup2(fd, 2);
        }
        execv(args[0], args);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->pid = pid;
    p->in = fdopen(in[1], "w");
    p->out = out[0];
    return p->in ? 0 : -1;
}

int svc_proc_send(svc_proc *p, const char *line)
{
    if (fputs(line, p->in) < 0 || fputc('\n', p->in) == EOF || fflush(p->in) != 0)
        return -1;
    return 0;
}

int svc_proc_read_line(svc_proc *p, char *out, size_t cap, int timeout_ms)
{
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->have);
        if (nl) {
            size_t n = (size_t)(nl - p->buf);
            if (n + 1 > cap)
                return -1;
            memcpy(out, p->buf, n);
            out[n] = '\0';
            memmove(p->buf, nl + 1, p->have - n - 1);
            p->have -= n + 1;
            return 0;
        }
        if (p->have == sizeof p->buf)
            return -1;
        struct pollfd pf = {p->out, POLLIN, 0};
        int r = poll(&pf, 1, timeout_ms);
        if (r <= 0)
            return -1;
        ssize_t k = read(p->out, p->buf + p->have, sizeof p->buf - p->have);
        if (k <= 0)
            return -1;
        p->have += (size_t)k;
    }
}

int svc_proc_finish(svc_proc *p, int timeout_ms)
{
    if (p->in)
        fclose(p->in);
    p->in = NULL;
    int st = 0, rc = -1;
    if (p->pid > 0) {
        if (waitpid_ms(p->pid, &st, timeout_ms) == 0) {
            rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        } else {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &st, 0);
        }
        p->pid = 0;
    }
    if (p->out > 0)
        close(p->out);
    p->out = -1;
    return rc;
}

char *svc_slurp(const char *path)
{
    uint8_t *d = NULL;
    size_t n = 0;
    return base_read_file(path, &d, &n, 64u << 20, NULL) == BASE_OK ? (char *)d : base_strdup("");
}
