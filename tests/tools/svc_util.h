/* tests/tools/svc_util.h: a Chromium fovea did not launch, `fovea snap` as
 * a child process on pipes, and reading what a run wrote. Shared by the
 * tests of tools/ and the bench_snap benchmark. Test thread only.
 */
#ifndef FOVEA_TESTS_SVC_UTIL_H
#define FOVEA_TESTS_SVC_UTIL_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <sys/types.h>

/* A browser started the way a user or another tool starts one: its own
 * process group, a fresh --user-data-dir, --remote-debugging-port=0. */
typedef struct svc_chrome {
    pid_t pid;
    char profile[256];
    char endpoint[64]; /* "127.0.0.1:PORT" from DevToolsActivePort */
} svc_chrome;

/* Starts Chromium (FOVEA_CHROMIUM, else chromium on PATH) headless with the
 * brief's flags and waits for DevToolsActivePort. 0 on success; -1 with a
 * message in why (256 bytes), nothing left running. */
int svc_chrome_start(svc_chrome *c, char *why);
/* SIGTERM, then SIGKILL to the group after 3 s; reaps; removes the profile. */
void svc_chrome_stop(svc_chrome *c);

/* `fovea snap ARGS...` with stdin and stdout on pipes (stderr to a file). */
typedef struct svc_proc {
    pid_t pid;
    FILE *in;  /* the child's stdin */
    int out;   /* the child's stdout (read end) */
    char buf[1 << 16];
    size_t have;
} svc_proc;

/* argv[0] is the fovea binary; argv is NULL-terminated. stderr goes to
 * err_path (NULL: inherited). 0 on success. */
int svc_proc_start(svc_proc *p, const char *const argv[], const char *err_path);
/* Sleeps ms milliseconds. */
void svc_sleep_ms(int ms);
/* Writes line + "\n" and flushes. 0 on success. */
int svc_proc_send(svc_proc *p, const char *line);
/* Reads one line (without "\n") into out (cap bytes) within timeout_ms.
 * 0 on success, -1 on EOF/timeout/too long. */
int svc_proc_read_line(svc_proc *p, char *out, size_t cap, int timeout_ms);
/* Closes stdin (EOF) and waits up to timeout_ms for the exit; returns the
 * exit status, or -1 (the child is then killed). */
int svc_proc_finish(svc_proc *p, int timeout_ms);

/* The whole file at path (at most 64 MiB), NUL-terminated, for the caller to
 * base_free; "" (also to free) when it cannot be read. */
char *svc_slurp(const char *path);

#endif
