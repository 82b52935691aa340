/* cdp/launch.c: Chromium process management and DevTools endpoint discovery.
 *
 * Launch: a fresh profile from mkdtemp, Chromium started with fork+exec in
 * a new process group (so one kill(-pgid) reaches the zygote, GPU and
 * renderer children too), stdout/stderr going to a log file next to the
 * profile, and the DevTools port read from <profile>/DevToolsActivePort. The
 * browser is never reaped before its group has been killed: waitid(WNOWAIT)
 * observes its exit while the zombie keeps the pid (and so the group id)
 * from being reused under us.
 *
 * Cleanup on abnormal exit: every live browser has a slot in a fixed array
 * whose fields are written before `used` is set, so a signal handler can
 * read it without locks. The handler only uses async-signal-safe calls:
 * kill, waitpid, openat, getdents64, unlinkat, nanosleep, raise. Slots and
 * the atexit hook only act in the process that launched the browser, so a
 * forked child that exits or is interrupted does not kill its parent's
 * browsers. The browser is started with fork+exec rather than posix_spawn
 * because it needs PR_SET_PDEATHSIG: a launcher that crashes or is SIGKILLed
 * must not leak a browser. This file is Linux-specific (getdents64, prctl,
 * close_range, pipe2), hence _GNU_SOURCE.
 *
 * Discovery is a one-shot HTTP/1.1 GET /json/version over a plain socket
 * with a deadline, and cJSON for the answer.
 */
#define _GNU_SOURCE

#include "cdp/launch.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"

#define LAUNCH_SLOTS 32
#define LAUNCH_PATH_MAX 1024
#define LAUNCH_DEFAULT_TIMEOUT_MS 20000
#define LAUNCH_TERM_WAIT_MS 2000
#define DISCOVER_TIMEOUT_MS 5000
#define DISCOVER_MAX_RESPONSE (64 * 1024)

/* What the signal handler needs, precomputed. */
typedef struct reg_slot {
    atomic_int used;   /* 1 once the fields below are complete */
    atomic_int pgid;   /* 0 until the browser is spawned */
    pid_t owner;       /* getpid() of the launching process */
    int keep_log;
    char profile[LAUNCH_PATH_MAX];
    char log[LAUNCH_PATH_MAX];
} reg_slot;

struct cdp_process {
    struct cdp_process *next; /* g_list, under g_mu */
    int slot;
    pid_t pid;
    int exited;  /* observed exit (still a zombie until reaped) */
    int reaped;
    int cleaned; /* profile and log removed (destroy, or the atexit hook) */
    int keep_log;
    char *profile;
    char *log_path;
    char *ws_url;
};

static reg_slot g_slots[LAUNCH_SLOTS];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static cdp_process *g_list; /* under g_mu */
static pthread_once_t g_atexit_once = PTHREAD_ONCE_INIT;
static atomic_int g_signals_installed;

/* ---- async-signal-safe helpers ----------------------------------------- */

static void sleep_ms_raw(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Removes name (relative to dirfd) and everything under it, without
 * following symlinks. Uses getdents64 rather than opendir because opendir
 * allocates, which is unsafe in a signal handler. Entries removed while
 * listing can shift the directory stream, so each directory is re-listed
 * until a pass finds nothing left. */
static void rm_tree_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return;
    if (depth > 64)
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    for (int pass = 0; pass < 8; pass++) {
        int found = 0;
        _Alignas(8) char buf[4096];
        lseek(fd, 0, SEEK_SET);
        for (;;) {
            ssize_t n = getdents64(fd, buf, sizeof buf);
            if (n <= 0)
                break;
            for (ssize_t off = 0; off < n;) {
                struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
                off += d->d_reclen;
                if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                    continue;
                found = 1;
                rm_tree_at(fd, d->d_name, depth + 1);
            }
        }
        if (!found)
            break;
    }
    close(fd);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* rm -rf path; retried briefly because a dying browser may still add files. */
static void rm_tree(const char *path)
{
    for (int i = 0; i < 20; i++) {
        rm_tree_at(AT_FDCWD, path, 0);
        struct stat st;
        if (lstat(path, &st) != 0)
            return;
        sleep_ms_raw(10);
    }
}

/* Kills every registered browser group of this process and removes its
 * files. Async-signal-safe; also used by nothing else so that the normal
 * paths can stay graceful. */
static void cleanup_slots_now(void)
{
    pid_t self = getpid();
    for (int i = 0; i < LAUNCH_SLOTS; i++) {
        reg_slot *s = &g_slots[i];
        int pg = atomic_load(&s->pgid);
        if (atomic_load(&s->used) && s->owner == self && pg > 0)
            kill(-pg, SIGKILL);
    }
    for (int i = 0; i < LAUNCH_SLOTS; i++) {
        reg_slot *s = &g_slots[i];
        if (!atomic_load(&s->used) || s->owner != self)
            continue;
        int pg = atomic_load(&s->pgid);
        if (pg > 0)
            waitpid(pg, NULL, 0);
        rm_tree(s->profile);
        if (!s->keep_log)
            unlink(s->log);
    }
}

void cdp_launch_cleanup_now(void)
{
    cleanup_slots_now();
}

static void on_fatal_signal(int sig)
{
    int saved = errno;
    cleanup_slots_now();
    /* Die the way the signal would have killed us: default action, re-raised
     * (it is delivered when the handler returns and unblocks it). */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    errno = saved;
}

void cdp_launch_install_signal_cleanup(void)
{
    if (atomic_exchange(&g_signals_installed, 1))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    /* Every signal whose default action ends the process and that a user or
     * a supervisor sends: Ctrl-C, kill, a closed terminal, Ctrl-\. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* ---- registry ---------------------------------------------------------- */

static void slot_release(int i)
{
    if (i < 0)
        return;
    atomic_store(&g_slots[i].used, 0);
    atomic_store(&g_slots[i].pgid, 0);
}

/* Kills the group, reaps the browser, removes the profile and the log.
 * graceful: SIGTERM first and up to LAUNCH_TERM_WAIT_MS for the browser. */
static void teardown(cdp_process *p, int graceful)
{
    if (p->cleaned)
        return;
    if (p->pid > 0 && !p->reaped) {
        if (graceful && !p->exited) {
            kill(-p->pid, SIGTERM);
            int64_t deadline = base_monotime() + (int64_t)LAUNCH_TERM_WAIT_MS * 1000;
            while (base_monotime() < deadline) {
                siginfo_t si;
                memset(&si, 0, sizeof si);
                if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
                    si.si_pid != 0)
                    break;
                base_sleep_ms(10);
            }
        }
        /* The leader is at worst a zombie here, so the group id is still ours. */
        kill(-p->pid, SIGKILL);
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {
        }
        p->reaped = 1;
        /* Give the rest of the group a moment to die before removing files
         * they might still be writing. */
        for (int i = 0; i < 50 && kill(-p->pid, 0) == 0; i++)
            base_sleep_ms(2);
    }
    if (p->profile)
        rm_tree(p->profile);
    if (p->log_path && !p->keep_log)
        unlink(p->log_path);
    p->cleaned = 1;
}

static void atexit_cleanup(void)
{
    pthread_mutex_lock(&g_mu);
    for (cdp_process *p = g_list; p; p = p->next) {
        if (g_slots[p->slot].owner != getpid())
            continue;
        teardown(p, 0);
        slot_release(p->slot);
        p->slot = -1;
    }
    pthread_mutex_unlock(&g_mu);
}

static void register_atexit(void)
{
    atexit(atexit_cleanup);
}

/* ---- stale profiles ------------------------------------------------------ */

#define OWNER_FILE "fovea-owner"

/* Start time of pid in clock ticks since boot (field 22 of /proc/PID/stat),
 * or 0 when unknown. With the pid it names one process for good: a pid can
 * be reused, a (pid, start time) pair cannot. */
static unsigned long long proc_start(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: count
     * fields from the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    p++;
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p + 1, ' ');
    }
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The inode of this process's pid namespace (0 when unknown): a pid means
 * something only inside its namespace, and containers may share $TMPDIR. */
static unsigned long long pid_ns(void)
{
    char link[64];
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    const char *b = strchr(link, '[');
    return b ? strtoull(b + 1, NULL, 10) : 0;
}

/* Writes <profile>/fovea-owner: "PID STARTTIME PIDNS\n" of this process. */
static void write_owner(const char *profile)
{
    char path[LAUNCH_PATH_MAX + 16], line[96];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, profile);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    int n = snprintf(line, sizeof line, "%d %llu %llu\n", (int)getpid(), proc_start(getpid()),
                     pid_ns());
    ssize_t w = write(fd, line, (size_t)n);
    (void)w; /* no marker only means the profile is never swept */
    close(fd);
}

/* 1 when the owner recorded in fd's file is gone for sure. */
static int owner_dead(int dirfd)
{
    int fd = openat(dirfd, OWNER_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    char line[96];
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return 0;
    line[n] = '\0';
    int pid = 0;
    unsigned long long start = 0, ns = 0;
    int got = sscanf(line, "%d %llu %llu", &pid, &start, &ns);
    if (got < 2 || pid <= 0)
        return 0;
    /* Another pid namespace's owner cannot be judged from here. */
    if (got == 3 && ns != 0 && pid_ns() != 0 && ns != pid_ns())
        return 0;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 1;
    /* Alive pid: the same process only if it started when the owner did. */
    unsigned long long now = proc_start((pid_t)pid);
    return start != 0 && now != 0 && now != start;
}

int cdp_launch_sweep_stale(const char *dir)
{
    if (!dir || !dir[0]) {
        dir = getenv("TMPDIR");
        if (!dir || !dir[0])
            dir = "/tmp";
    }
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int dfd = dirfd(d), removed = 0;
    uid_t me = getuid();
    static const char prefix[] = "fovea-profile-";
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strncmp(name, prefix, sizeof prefix - 1) != 0 ||
            strlen(name) != sizeof prefix - 1 + 6)
            continue;
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != me)
            continue;
        int pfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (pfd < 0)
            continue;
        int dead = owner_dead(pfd);
        close(pfd);
        if (!dead)
            continue;
        char path[LAUNCH_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path - 4)
            continue;
        base_log(BASE_LOG_CDP, BASE_LOG_INFO, "removing stale profile %s (its fovea is gone)",
                 path);
        rm_tree(path);
        size_t k = strlen(path);
        snprintf(path + k, sizeof path - k, ".log");
        unlink(path);
        removed++;
    }
    closedir(d);
    return removed;
}

/* ---- launch ------------------------------------------------------------ */

/* Finds an executable: a path with '/' is taken as is, a bare name is
 * searched on PATH. Returns a base_malloc'd path or NULL. */
static char *find_exe(const char *name)
{
    if (!name || !name[0])
        return NULL;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? base_strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char cand[LAUNCH_PATH_MAX];
    while (*path) {
        size_t n = strcspn(path, ":");
        int w = snprintf(cand, sizeof cand, "%.*s/%s", (int)n, path, name);
        if (n > 0 && w > 0 && (size_t)w < sizeof cand && access(cand, X_OK) == 0)
            return base_strdup(cand);
        path += n;
        if (*path == ':')
            path++;
    }
    return NULL;
}

/* Reads up to cap-1 bytes of a small file into buf; returns the length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap, off_t from_end)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (from_end > 0) {
        off_t size = lseek(fd, 0, SEEK_END);
        lseek(fd, size > from_end ? size - from_end : 0, SEEK_SET);
    }
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

/* The last few lines of the browser log, for error messages. */
static void log_tail(const char *log, char *out, size_t cap)
{
    char buf[512];
    out[0] = '\0';
    ssize_t n = read_small(log, buf, sizeof buf, 160);
    if (n <= 0)
        return;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    /* Start at a line boundary when the tail cut one in half. */
    char *start = buf;
    char *nl = strchr(buf, '\n');
    if (n >= 150 && nl && nl[1])
        start = nl + 1;
    size_t len = strlen(start);
    if (len >= cap)
        len = cap - 1;
    memcpy(out, start, len);
    out[len] = '\0';
}

/* Parses DevToolsActivePort: "PORT\n/devtools/browser/UUID". Returns 1 when
 * complete (Chromium may be mid-write when we look). */
static int parse_active_port(const char *text, int *port, char *path, size_t cap)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\n' || v <= 0 || v > 65535)
        return 0;
    const char *p = end + 1;
    size_t n = strcspn(p, "\r\n");
    static const char prefix[] = "/devtools/browser/";
    /* A browser id is a 36-character UUID; require all of it. */
    if (n < sizeof prefix - 1 + 36 || strncmp(p, prefix, sizeof prefix - 1) != 0 || n >= cap)
        return 0;
    memcpy(path, p, n);
    path[n] = '\0';
    *port = (int)v;
    return 1;
}

/* Child side of spawn_browser, between fork and exec: async-signal-safe
 * calls only. Reports an exec failure as errno through errfd. */
static _Noreturn void child_exec(const char *exe, char *const *argv, char *const *envp,
                                 const char *log, pid_t parent, int errfd)
{
    /* If the launching thread dies (a crash, ctest's SIGKILL on timeout), take
     * the browser with it; the rest of its group exits once it is gone. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    setpgid(0, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGCHLD, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int in = open("/dev/null", O_RDONLY);
    int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        goto fail;
    /* No inherited descriptors besides stdio (errfd is close-on-exec): a
     * leaked pipe end or socket would otherwise live as long as the browser. */
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int fd = 3; fd < 4096; fd++) {
            if (fd != errfd)
                close(fd);
        }
    }
    execve(exe, argv, envp);
fail:;
    int e = errno;
    ssize_t w = write(errfd, &e, sizeof e);
    (void)w;
    _exit(127);
}

static base_err spawn_browser(cdp_process *p, const char *exe, char *const *argv,
                              char *const *envp, char *err)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0)
        return base_errf(err, BASE_EIO, "launch: pipe: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(ep[0]);
        close(ep[1]);
        return base_errf(err, BASE_EIO, "launch: fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(ep[0]);
        child_exec(exe, argv, envp, p->log_path, parent, ep[1]);
    }
    close(ep[1]);
    /* Also set the group from this side, so that it exists before we could
     * signal it, whichever process runs first. */
    setpgid(pid, pid);
    p->pid = pid;
    /* EOF means exec succeeded (the pipe was close-on-exec). */
    int child_errno = 0;
    ssize_t r;
    do {
        r = read(ep[0], &child_errno, sizeof child_errno);
    } while (r < 0 && errno == EINTR);
    close(ep[0]);
    if (r == (ssize_t)sizeof child_errno)
        return base_errf(err, BASE_EIO, "launch: cannot start %s: %s", exe,
                         strerror(child_errno));
    return BASE_OK;
}

/* Chromium makes a scratch directory (org.chromium.Chromium.XXXXXX) in
 * $TMPDIR at every start and does not always remove it: one per launch
 * piled up in /tmp. The browser gets TMPDIR=<profile>/t instead, which
 * goes with the profile. Builds that environment (this process's, with
 * TMPDIR replaced) in the parent: the child may only make
 * async-signal-safe calls. *tmpvar is the "TMPDIR=..." string; the caller
 * frees both. Chromium puts a Unix socket in that directory, whose path
 * may not exceed 107 bytes: with a profile path too long for it (a deep
 * $TMPDIR, a build in a long mktemp path) the browser gets TMPDIR=/tmp,
 * whose socket path always fits (it would fail to start in a TMPDIR as
 * deep as the profile's). NULL (the browser keeps this process's
 * environment) only when out of memory. */
static char **browser_env(const char *profile, char **tmpvar)
{
    extern char **environ;
    *tmpvar = NULL;
    /* <profile>/t + "/org.chromium.Chromium.XXXXXX/SingletonSocket" */
    if (strlen(profile) + 2 + 45 <= 107) {
        size_t tl = strlen(profile) + sizeof "TMPDIR=/t";
        *tmpvar = base_malloc(tl);
        if (!*tmpvar)
            return NULL;
        snprintf(*tmpvar, tl, "TMPDIR=%s/t", profile);
        if (mkdir(*tmpvar + 7, 0700) != 0) {
            base_free(*tmpvar);
            *tmpvar = NULL;
        }
    }
    if (!*tmpvar && !(*tmpvar = base_strdup("TMPDIR=/tmp")))
        return NULL;
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **envp = base_calloc(n + 2, sizeof *envp);
    if (!envp) {
        base_free(*tmpvar);
        *tmpvar = NULL;
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "TMPDIR=", 7) != 0)
            envp[k++] = environ[i];
    }
    envp[k++] = *tmpvar;
    envp[k] = NULL;
    return envp;
}

/* Waits for DevToolsActivePort and builds the websocket URL. */
static base_err wait_for_port(cdp_process *p, int timeout_ms, char *err)
{
    size_t fl = strlen(p->profile) + sizeof "/DevToolsActivePort";
    char *file = base_malloc(fl);
    if (!file)
        return base_errf(err, BASE_ENOMEM, "launch: out of memory");
    snprintf(file, fl, "%s/DevToolsActivePort", p->profile);
    int64_t deadline = base_monotime() + (int64_t)timeout_ms * 1000;
    base_err e = BASE_ETIMEDOUT;
    for (;;) {
        char text[256];
        char path[200];
        int port;
        if (read_small(file, text, sizeof text, 0) > 0 &&
            parse_active_port(text, &port, path, sizeof path)) {
            size_t ul = strlen(path) + 32;
            p->ws_url = base_malloc(ul);
            if (!p->ws_url) {
                e = base_errf(err, BASE_ENOMEM, "launch: out of memory");
                break;
            }
            snprintf(p->ws_url, ul, "ws://127.0.0.1:%d%s", port, path);
            e = BASE_OK;
            break;
        }
        if (!cdp_process_alive(p)) {
            char tail[200];
            log_tail(p->log_path, tail, sizeof tail);
            e = base_errf(err, BASE_ECLOSED, "launch: chromium exited during startup: %s",
                          tail[0] ? tail : "(empty log)");
            break;
        }
        if (base_monotime() >= deadline) {
            char tail[160];
            log_tail(p->log_path, tail, sizeof tail);
            e = base_errf(err, BASE_ETIMEDOUT,
                          "launch: no DevToolsActivePort after %d ms: %s", timeout_ms,
                          tail[0] ? tail : "(empty log)");
            break;
        }
        base_sleep_ms(10);
    }
    base_free(file);
    return e;
}

static void process_free(cdp_process *p)
{
    base_free(p->profile);
    base_free(p->log_path);
    base_free(p->ws_url);
    base_free(p);
}

base_err cdp_launch(const cdp_launch_opts *o, cdp_process **out, char *err)
{
    cdp_launch_opts def;
    memset(&def, 0, sizeof def);
    if (!o)
        o = &def;
    if (!out)
        return base_errf(err, BASE_EINVAL, "launch: out is NULL");

    /* Everything that can fail before the spawn is done first. */
    char *exe = NULL;
    if (o->executable) {
        exe = find_exe(o->executable);
    } else if (getenv("FOVEA_CHROMIUM") && getenv("FOVEA_CHROMIUM")[0]) {
        exe = find_exe(getenv("FOVEA_CHROMIUM"));
    } else {
        static const char *const names[] = {"chromium", "chromium-browser", "google-chrome",
                                            "google-chrome-stable"};
        for (size_t i = 0; !exe && i < sizeof names / sizeof names[0]; i++)
            exe = find_exe(names[i]);
    }
    if (!exe) {
        return base_errf(err, BASE_ENOTFOUND,
                         "launch: chromium not found (%s); set FOVEA_CHROMIUM",
                         o->executable ? o->executable : "searched PATH");
    }

    base_err e = BASE_ENOMEM;
    char **argv = NULL;
    char *udd = NULL;
    char **envp = NULL;
    char *tmpvar = NULL;
    char winsz[48];
    int registered = 0;
    cdp_process *p = base_calloc(1, sizeof *p);
    if (!p)
        goto fail;
    p->slot = -1;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0])
        tmp = "/tmp";
    size_t pl = strlen(tmp) + sizeof "/fovea-profile-XXXXXX";
    p->profile = base_malloc(pl);
    p->log_path = base_malloc(pl + 4);
    if (!p->profile || !p->log_path)
        goto fail;
    snprintf(p->profile, pl, "%s/fovea-profile-XXXXXX", tmp);
    if (pl > LAUNCH_PATH_MAX - 8) {
        e = base_errf(err, BASE_EINVAL, "launch: TMPDIR path too long");
        goto fail;
    }
    if (!mkdtemp(p->profile)) {
        e = base_errf(err, BASE_EIO, "launch: mkdtemp in %s: %s", tmp, strerror(errno));
        base_free(p->profile);
        p->profile = NULL;
        goto fail;
    }
    snprintf(p->log_path, pl + 4, "%s.log", p->profile);
    write_owner(p->profile);
    /* A launcher killed with SIGKILL could not remove its profile; the next
     * one does (never a live owner's, never a directory without the mark). */
    cdp_launch_sweep_stale(tmp);
    const char *keep = getenv("FOVEA_KEEP_CHROME_LOG");
    p->keep_log = keep && keep[0] && strcmp(keep, "0") != 0;

    /* argv: fixed flags (see DESIGN), geometry, caller extras, about:blank. */
    static const char *const fixed[] = {
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--enable-features=CDPScreenshotNewSurface",
        "--disable-quic",
        "--mute-audio",
        "--hide-scrollbars",
        "--remote-debugging-port=0",
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    size_t nextra = 0;
    while (o->extra_args && o->extra_args[nextra])
        nextra++;
    argv = base_calloc(nfixed + nextra + 8, sizeof *argv);
    size_t ul = strlen(p->profile) + sizeof "--user-data-dir=";
    udd = base_malloc(ul);
    if (!argv || !udd)
        goto fail;
    snprintf(udd, ul, "--user-data-dir=%s", p->profile);
    snprintf(winsz, sizeof winsz, "--window-size=%d,%d", o->window_w > 0 ? o->window_w : 1280,
             o->window_h > 0 ? o->window_h : 800);
    size_t ac = 0;
    /* execv takes char *const[]; the strings are not modified. */
    argv[ac++] = exe;
    if (!o->headful)
        argv[ac++] = (char *)(uintptr_t) "--headless";
    for (size_t i = 0; i < nfixed; i++)
        argv[ac++] = (char *)(uintptr_t)fixed[i];
    argv[ac++] = udd;
    argv[ac++] = winsz;
    for (size_t i = 0; i < nextra; i++)
        argv[ac++] = (char *)(uintptr_t)o->extra_args[i];
    argv[ac++] = (char *)(uintptr_t) "about:blank";
    argv[ac] = NULL;

    envp = browser_env(p->profile, &tmpvar);
    /* Take a slot before spawning so that a signal arriving right after the
     * spawn still finds the profile to remove. */
    pthread_once(&g_atexit_once, register_atexit);
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < LAUNCH_SLOTS; i++) {
        if (!atomic_load(&g_slots[i].used)) {
            p->slot = i;
            break;
        }
    }
    if (p->slot < 0) {
        pthread_mutex_unlock(&g_mu);
        e = base_errf(err, BASE_EBUSY, "launch: more than %d live browsers", LAUNCH_SLOTS);
        goto fail;
    }
    reg_slot *s = &g_slots[p->slot];
    s->owner = getpid();
    s->keep_log = p->keep_log;
    snprintf(s->profile, sizeof s->profile, "%s", p->profile);
    snprintf(s->log, sizeof s->log, "%s", p->log_path);
    atomic_store(&s->pgid, 0);
    atomic_store(&s->used, 1);
    p->next = g_list;
    g_list = p;
    registered = 1;
    {
        extern char **environ;
        e = spawn_browser(p, exe, argv, envp ? envp : environ, err);
    }
    if (e == BASE_OK)
        atomic_store(&s->pgid, (int)p->pid);
    pthread_mutex_unlock(&g_mu);
    if (e)
        goto fail;

    int64_t t0 = base_monotime();
    e = wait_for_port(p, o->timeout_ms > 0 ? o->timeout_ms : LAUNCH_DEFAULT_TIMEOUT_MS, err);
    if (e)
        goto fail;
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "chromium pid %d ready in %.0f ms: %s", (int)p->pid,
             (double)(base_monotime() - t0) / 1000.0, p->ws_url);
    base_free(argv);
    base_free(udd);
    base_free(envp);
    base_free(tmpvar);
    base_free(exe);
    *out = p;
    return BASE_OK;

fail:
    if (e == BASE_ENOMEM)
        base_errf(err, BASE_ENOMEM, "launch: out of memory");
    if (p) {
        if (registered) {
            cdp_process_destroy(p);
        } else {
            if (p->profile)
                rm_tree(p->profile);
            process_free(p);
        }
    }
    base_free(argv);
    base_free(udd);
    base_free(envp);
    base_free(tmpvar);
    base_free(exe);
    return e;
}

const char *cdp_process_ws_url(const cdp_process *p)
{
    return p ? p->ws_url : NULL;
}

int cdp_process_pid(const cdp_process *p)
{
    return p ? (int)p->pid : -1;
}

const char *cdp_process_profile_dir(const cdp_process *p)
{
    return p ? p->profile : NULL;
}

int cdp_process_alive(cdp_process *p)
{
    if (!p || p->pid <= 0 || p->exited || p->reaped)
        return 0;
    /* WNOWAIT: observe the exit but leave the zombie, which keeps the pid
     * and group id reserved until destroy has killed the rest of the group. */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid != 0)
        p->exited = 1;
    return !p->exited;
}

void cdp_process_kill(cdp_process *p)
{
    if (p && p->pid > 0 && !p->reaped)
        kill(-p->pid, SIGKILL);
}

void cdp_process_destroy(cdp_process *p)
{
    if (!p)
        return;
    /* Tear down while still registered, so a signal arriving meanwhile
     * still finds the profile; unregister afterwards. */
    teardown(p, 1);
    pthread_mutex_lock(&g_mu);
    for (cdp_process **pp = &g_list; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    }
    slot_release(p->slot);
    pthread_mutex_unlock(&g_mu);
    process_free(p);
}

/* ---- discovery --------------------------------------------------------- */

static int64_t ms_left(int64_t deadline_us)
{
    int64_t left = (deadline_us - base_monotime()) / 1000;
    return left > 0 ? left : 0;
}

/* Connects to host:port before the deadline. Returns the fd or -1 with err set. */
static int dial(const char *host, const char *port, int64_t deadline, base_err *e, char *err)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        *e = base_errf(err, BASE_EINVAL, "discover: cannot resolve %s: %s", host,
                       gai_strerror(gai));
        return -1;
    }
    int fd = -1;
    int last = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            int pr = poll(&pfd, 1, (int)ms_left(deadline));
            int soerr = ETIMEDOUT;
            socklen_t sl = sizeof soerr;
            if (pr > 0)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            rc = soerr ? -1 : 0;
            errno = soerr;
        }
        if (rc != 0) {
            last = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        base_err code = last == ETIMEDOUT     ? BASE_ETIMEDOUT
                        : last == ECONNREFUSED ? BASE_ECLOSED
                                               : BASE_EIO;
        *e = base_errf(err, code, "discover: connect %s:%s: %s", host, port, strerror(last));
    }
    return fd;
}

/* Case-insensitive search for header `name` ("content-length:") in the
 * head [text, hend); returns a pointer to its value or NULL. */
static const char *find_header(const char *text, const char *hend, const char *name)
{
    size_t nl = strlen(name);
    for (const char *l = strstr(text, "\r\n"); l && l < hend; l = strstr(l + 2, "\r\n")) {
        if (strncasecmp(l + 2, name, nl) == 0)
            return l + 2 + nl;
    }
    return NULL;
}

/* Decodes a chunked body [b, b + n) into out (capped like the response).
 * BASE_OK once the last (zero-size) chunk is reached; BASE_EPROTO for a
 * body that is cut short or malformed, BASE_ETOOBIG past out's cap. */
static base_err dechunk(const char *b, size_t n, base_buf *out)
{
    size_t i = 0;
    for (;;) {
        char *end;
        if (i >= n)
            return BASE_EPROTO;
        unsigned long sz = strtoul(b + i, &end, 16);
        if (end == b + i)
            return BASE_EPROTO;
        const char *crlf = memchr(end, '\n', n - (size_t)(end - b));
        if (!crlf)
            return BASE_EPROTO;
        i = (size_t)(crlf + 1 - b); /* past the size line (and any extension) */
        if (sz == 0)
            return BASE_OK;
        if (sz > n - i)
            return BASE_EPROTO;
        if (base_buf_append(out, b + i, sz) != BASE_OK)
            return BASE_ETOOBIG;
        i += sz;
        if (i + 2 > n || b[i] != '\r' || b[i + 1] != '\n')
            return BASE_EPROTO;
        i += 2;
    }
}

/* 1 when resp holds a complete HTTP response: its head and then either
 * Content-Length bytes or, chunked, the last chunk. */
static int response_complete(const base_buf *resp)
{
    if (!resp->data)
        return 0;
    const char *text = (const char *)resp->data;
    const char *hend = strstr(text, "\r\n\r\n");
    if (!hend)
        return 0;
    const char *body = hend + 4;
    size_t have = resp->len - (size_t)(body - text);
    const char *te = find_header(text, hend, "transfer-encoding:");
    if (te && strstr(te, "chunked") && strstr(te, "chunked") < hend) {
        base_buf tmp;
        base_buf_init(&tmp, DISCOVER_MAX_RESPONSE);
        base_err e = dechunk(body, have, &tmp);
        base_buf_fini(&tmp);
        return e == BASE_OK;
    }
    const char *cl = find_header(text, hend, "content-length:");
    return cl && have >= strtoul(cl, NULL, 10);
}

/* GET /json/version[?query] with the extra headers; on success resp holds
 * the whole response (read until complete or EOF). */
static base_err http_get_version(int fd, const char *hostport, const char *query,
                                 const char *const *headers, int64_t deadline, base_buf *resp,
                                 char *err)
{
    char req[4096];
    int n = snprintf(req, sizeof req,
                     "GET /json/version%s HTTP/1.1\r\nHost: %s\r\nAccept: application/json\r\n"
                     "Connection: close\r\n",
                     query, hostport);
    for (int i = 0; headers && headers[i] && n > 0 && (size_t)n < sizeof req; i++) {
        /* CR or LF in a header would split the request. */
        if (strpbrk(headers[i], "\r\n") || !strchr(headers[i], ':'))
            return base_errf(err, BASE_EINVAL, "discover: bad header (want 'Name: value')");
        n += snprintf(req + n, sizeof req - (size_t)n, "%s\r\n", headers[i]);
    }
    if (n > 0 && (size_t)n < sizeof req)
        n += snprintf(req + n, sizeof req - (size_t)n, "\r\n");
    if (n < 0 || (size_t)n >= sizeof req)
        return base_errf(err, BASE_EINVAL, "discover: endpoint or headers too long");
    size_t sent = 0;
    while (sent < (size_t)n) {
        ssize_t w = send(fd, req + sent, (size_t)n - sent, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            if (poll(&pfd, 1, (int)ms_left(deadline)) <= 0)
                return base_errf(err, BASE_ETIMEDOUT, "discover: send timed out");
            continue;
        }
        if (w <= 0)
            return base_errf(err, BASE_ECLOSED, "discover: send: %s", strerror(errno));
        sent += (size_t)w;
    }
    for (;;) {
        if (response_complete(resp))
            return BASE_OK;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)ms_left(deadline));
        if (pr == 0)
            return base_errf(err, BASE_ETIMEDOUT, "discover: no answer from %s in time",
                             hostport);
        if (pr < 0 && errno == EINTR)
            continue;
        char chunk[4096];
        ssize_t r = recv(fd, chunk, sizeof chunk, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (r < 0)
            return base_errf(err, BASE_ECLOSED, "discover: recv: %s", strerror(errno));
        if (r == 0)
            return resp->len ? BASE_OK
                             : base_errf(err, BASE_ECLOSED, "discover: %s closed the connection",
                                         hostport);
        /* base_buf keeps its text NUL-terminated for the header scans. */
        if (base_buf_append(resp, chunk, (size_t)r) != BASE_OK)
            return base_errf(err, BASE_ETOOBIG, "discover: response larger than %d bytes",
                             DISCOVER_MAX_RESPONSE);
    }
}

base_err cdp_discover(const char *url, char **ws_url, char *err)
{
    return cdp_discover_with(url, NULL, ws_url, err);
}

base_err cdp_discover_with(const char *url, const char *const *headers, char **ws_url,
                           char *err)
{
    if (!url || !ws_url)
        return base_errf(err, BASE_EINVAL, "discover: NULL argument");
    if (strncmp(url, "ws://", 5) == 0 || strncmp(url, "wss://", 6) == 0) {
        char *copy = base_strdup(url);
        if (!copy)
            return base_errf(err, BASE_ENOMEM, "discover: out of memory");
        *ws_url = copy;
        return BASE_OK;
    }
    /* Messages show the endpoint up to its query, which may hold a token. */
    int shown = (int)strcspn(url, "?");
    const char *hp = url;
    if (strncmp(hp, "http://", 7) == 0)
        hp += 7;
    else if (strstr(hp, "://"))
        return base_errf(err, BASE_EINVAL, "discover: unsupported scheme in %.*s", shown, url);
    size_t hpl = strcspn(hp, "/?#");
    char host[256], port[8], hostport[300], query[1024] = "";
    if (hpl == 0 || hpl >= sizeof hostport)
        return base_errf(err, BASE_EINVAL, "discover: no host:port in %.*s", shown, url);
    memcpy(hostport, hp, hpl);
    hostport[hpl] = '\0';
    /* A pool's token rides in the query: it is asked with /json/version and
     * kept on the websocket URL found there. */
    const char *q = strchr(hp + hpl, '?');
    if (q) {
        size_t ql = strcspn(q, "#");
        if (ql >= sizeof query)
            return base_errf(err, BASE_EINVAL, "discover: query too long in %.*s", shown, url);
        memcpy(query, q, ql);
        query[ql] = '\0';
    }
    /* "[v6]:port" or "host:port"; the port is mandatory. */
    const char *colon;
    const char *hs = hostport;
    size_t hl;
    if (hostport[0] == '[') {
        const char *rb = strchr(hostport, ']');
        colon = rb && rb[1] == ':' ? rb + 1 : NULL;
        hs = hostport + 1;
        hl = rb ? (size_t)(rb - hs) : 0;
    } else {
        colon = strrchr(hostport, ':');
        hl = colon ? (size_t)(colon - hostport) : 0;
    }
    size_t portl = colon ? strlen(colon + 1) : 0;
    long pv = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (!colon || hl == 0 || hl >= sizeof host || portl == 0 || portl >= sizeof port ||
        strspn(colon + 1, "0123456789") != portl || pv <= 0 || pv > 65535)
        return base_errf(err, BASE_EINVAL, "discover: expected host:port in %.*s", shown, url);
    memcpy(host, hs, hl);
    host[hl] = '\0';
    memcpy(port, colon + 1, portl + 1);

    int64_t deadline = base_monotime() + (int64_t)DISCOVER_TIMEOUT_MS * 1000;
    base_err e = BASE_OK;
    int fd = dial(host, port, deadline, &e, err);
    if (fd < 0)
        return e;
    base_buf resp, dech;
    base_buf_init(&resp, DISCOVER_MAX_RESPONSE);
    base_buf_init(&dech, DISCOVER_MAX_RESPONSE);
    cJSON *json = NULL;
    e = http_get_version(fd, hostport, query, headers, deadline, &resp, err);
    close(fd);
    if (e)
        goto done;
    const char *text = (const char *)resp.data;
    int status = 0;
    if (sscanf(text, "HTTP/1.%*d %d", &status) != 1) {
        e = base_errf(err, BASE_EPROTO, "discover: %s did not answer HTTP", hostport);
        goto done;
    }
    if (status == 401 || status == 403) {
        e = base_errf(err, BASE_EREMOTE,
                      "discover: GET /json/version on %s: HTTP %d: the token was refused "
                      "(check the token in the URL or the Authorization header)",
                      hostport, status);
        goto done;
    }
    if (status == 429 || status == 503) {
        e = base_errf(err, BASE_EBUSY,
                      "discover: GET /json/version on %s: HTTP %d: the pool is full", hostport,
                      status);
        goto done;
    }
    if (status != 200) {
        e = base_errf(err, BASE_EREMOTE, "discover: GET /json/version on %s: HTTP %d",
                      hostport, status);
        goto done;
    }
    const char *hend = strstr(text, "\r\n\r\n");
    const char *body = hend ? hend + 4 : text + resp.len;
    size_t blen = resp.len - (size_t)(body - text);
    const char *te = hend ? find_header(text, hend, "transfer-encoding:") : NULL;
    if (te && strstr(te, "chunked") && strstr(te, "chunked") < hend) {
        if (dechunk(body, blen, &dech) != BASE_OK) {
            e = base_errf(err, BASE_EPROTO, "discover: /json/version on %s: bad chunked body",
                          hostport);
            goto done;
        }
        body = dech.data ? (const char *)dech.data : "";
        blen = dech.len;
    }
    json = cJSON_ParseWithLength(body, blen);
    if (!cJSON_IsObject(json)) {
        e = base_errf(err, BASE_EPROTO, "discover: /json/version on %s is not a JSON object",
                      hostport);
        goto done;
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(json, "webSocketDebuggerUrl");
    if (!cJSON_IsString(f) || strncmp(f->valuestring, "ws", 2) != 0) {
        e = base_errf(err, BASE_EPROTO, "discover: no webSocketDebuggerUrl in /json/version of %s",
                      hostport);
        goto done;
    }
    /* The query goes onto the found URL unless it has one of its own. */
    int add_query = query[0] && !strchr(f->valuestring, '?');
    size_t need = strlen(f->valuestring) + (add_query ? strlen(query) : 0) + 1;
    char *copy = base_malloc(need);
    if (!copy) {
        e = base_errf(err, BASE_ENOMEM, "discover: out of memory");
        goto done;
    }
    snprintf(copy, need, "%s%s", f->valuestring, add_query ? query : "");
    *ws_url = copy;
done:
    cJSON_Delete(json);
    base_buf_fini(&resp);
    base_buf_fini(&dech);
    return e;
}
