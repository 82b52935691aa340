/* cdp/launch.h: starting Chromium and finding its DevTools websocket.
 *
 * cdp_launch starts a headless Chromium on a fresh profile directory
 * ($TMPDIR/fovea-profile-XXXXXX), in a process group of its own, with
 * --remote-debugging-port=0, and waits for <profile>/DevToolsActivePort to
 * learn the websocket URL. cdp_process_destroy stops the whole group and
 * removes the profile and the log ($TMPDIR/fovea-profile-XXXXXX.log, kept
 * when FOVEA_KEEP_CHROME_LOG is set). Live processes are registered so that
 * an atexit hook and, opt-in, a SIGINT/SIGTERM/SIGHUP/SIGQUIT handler clean
 * up too. Each profile holds a file "fovea-owner" naming the launching
 * process (pid and start time); a process killed with SIGKILL cannot clean
 * up, so every launch first removes the fovea profiles (and logs) in $TMPDIR
 * whose owner is gone (cdp_launch_sweep_stale).
 *
 * cdp_discover turns an endpoint a user typed ("ws://...", "http://host:port",
 * "host:port") into a browser websocket URL via GET /json/version.
 */
#ifndef FOVEA_CDP_LAUNCH_H
#define FOVEA_CDP_LAUNCH_H

#include "base/err.h"

/* Zero-initialise, then set what you need. */
typedef struct cdp_launch_opts {
    const char *executable;        /* NULL: $FOVEA_CHROMIUM, then chromium,
                                    * chromium-browser, google-chrome on PATH */
    int headful;                   /* 0 = --headless */
    const char *const *extra_args; /* NULL-terminated, appended last; optional */
    int window_w, window_h;        /* 0 = 1280 x 800 */
    int timeout_ms;                /* wait for DevToolsActivePort; 0 = 20000 */
} cdp_launch_opts;

typedef struct cdp_process cdp_process;

/* Starts Chromium and waits until its DevTools port is known. On success
 * *out owns the process (free with cdp_process_destroy); on failure *out is
 * untouched, nothing is left running or on disk, and err (optional,
 * BASE_ERRBUF_SIZE) says why: BASE_ENOTFOUND (no executable),
 * BASE_ETIMEDOUT (no DevToolsActivePort in time), BASE_ECLOSED (Chromium
 * exited first; the message ends with the tail of its log), BASE_EIO
 * (mkdtemp/fork/exec failed), BASE_EBUSY (too many live browsers),
 * BASE_ENOMEM. Blocks up to timeout_ms. The browser is bound to the calling
 * thread (PR_SET_PDEATHSIG): if that thread exits, or the process dies
 * without cleanup, the kernel kills the browser. So launch from a thread
 * that lives as long as the browser (normally the main thread). */
base_err cdp_launch(const cdp_launch_opts *o, cdp_process **out, char *err);

/* "ws://127.0.0.1:PORT/devtools/browser/ID"; borrowed, valid until destroy. */
const char *cdp_process_ws_url(const cdp_process *p);

/* Pid of the browser process (also its process group id). */
int cdp_process_pid(const cdp_process *p);

/* Profile directory path; borrowed, valid until destroy. */
const char *cdp_process_profile_dir(const cdp_process *p);

/* 1 while the browser process runs; reaps it once it has exited. Call from
 * one thread at a time per process (same as destroy). */
int cdp_process_alive(cdp_process *p);

/* Sends SIGKILL to the whole process group now (tests use it to simulate a
 * crash). The handle stays valid; destroy it as usual. */
void cdp_process_kill(cdp_process *p);

/* SIGTERM to the group, waits up to 2 s for the browser, then SIGKILL; reaps
 * it, removes the profile directory and the log, and frees p. NULL is a
 * no-op. */
void cdp_process_destroy(cdp_process *p);

/* Opt-in, idempotent: installs SIGINT, SIGTERM, SIGHUP and SIGQUIT handlers
 * that SIGKILL every live browser group, remove their profile directories
 * and logs, and then
 * re-raise the signal with the default action (the process dies as it would
 * have). Do not use it if the program handles these signals itself; call
 * cdp_process_destroy from your own shutdown path instead. */
void cdp_launch_install_signal_cleanup(void);

/* Removes the fovea profile directories in dir (NULL: $TMPDIR or /tmp) left
 * behind by launchers that died without cleaning up (SIGKILL, a power cut):
 * directories named fovea-profile-XXXXXX, owned by this user, whose
 * "fovea-owner" file names a process that no longer runs (or whose pid now
 * belongs to a process started at another time), together with their .log; a
 * mark written in another pid namespace is left alone. Directories without that
 * file (another program's, a pre-marker profile, one being created right now)
 * and those of live owners are never touched. cdp_launch calls it before each
 * launch. Returns how many profiles were removed. Any thread; blocks on
 * file-system calls only. */
int cdp_launch_sweep_stale(const char *dir);

/* Kills every browser this process launched and removes their profiles and
 * logs, right now (SIGKILL, no graceful wait). Async-signal-safe: meant for
 * a signal handler's "exit now" path (base_interrupt_install's hard hook).
 * The handles stay allocated; the process is expected to exit. */
void cdp_launch_cleanup_now(void);

/* Resolves an endpoint to a browser websocket URL. "ws://..." and "wss://..."
 * are copied as they are; "http://host:port[/]" and "host:port" are asked
 * GET /json/version (5 s timeout) and the "webSocketDebuggerUrl" field is
 * returned. On success *ws_url is a base_malloc'd string the caller frees.
 * Errors: BASE_EINVAL (unparsable endpoint), BASE_ECLOSED (connection
 * refused or dropped), BASE_ETIMEDOUT, BASE_EIO, BASE_EREMOTE (HTTP status
 * other than 200), BASE_EPROTO (not JSON, or the field is missing). Any
 * thread; blocks. */
base_err cdp_discover(const char *url, char **ws_url, char *err);

/* cdp_discover with extra request headers ("Name: value" each,
 * NULL-terminated, may be NULL: a pool's "Authorization: Bearer T"). A query
 * on an http endpoint ("http://host:port?token=T") is sent with
 * /json/version and appended to the found websocket URL when that has none;
 * a chunked reply is read. *ws_url is the caller's, as with cdp_discover.
 * Any thread; blocks up to 5 s. Errors: those of cdp_discover, BASE_EBUSY
 * for HTTP 429 or 503 (a full pool), BASE_EREMOTE naming a refused token
 * (401/403). Messages never show the query. */
base_err cdp_discover_with(const char *url, const char *const *headers, char **ws_url,
                           char *err);

#endif
