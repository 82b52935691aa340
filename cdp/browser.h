/* cdp/browser.h: a browser (launched or attached) and its pages.
 *
 * cdp_browser bundles a protocol connection with, when fovea launched the
 * browser, the process that must be cleaned up. cdp_page is one tab opened
 * by fovea with a fixed viewport and device scale factor; it tracks its
 * frame tree and the flattened sessions of its out-of-process iframes, so a
 * caller can address any frame's session.
 *
 * Threads: every function may be called from any thread except the cdp
 * service thread (event callbacks). A page must not be destroyed while
 * another thread is using it.
 */
#ifndef FOVEA_CDP_BROWSER_H
#define FOVEA_CDP_BROWSER_H

#include <cjson/cJSON.h>

#include "base/err.h"
#include "cdp/cdp.h"
#include "cdp/launch.h"

typedef struct cdp_browser cdp_browser;
typedef struct cdp_page cdp_page;

/* Launches Chromium with `lo` (NULL: defaults) and connects. On success *out
 * owns both; cdp_browser_destroy shuts the browser down and removes its
 * profile. Errors: those of cdp_launch and cdp_connect. */
base_err cdp_browser_launch(const cdp_launch_opts *lo, cdp_browser **out, char *err);

/* Connects to a running browser: endpoint is "ws://…", "http://host:port"
 * or "host:port" (discovered through /json/version). Destroy only
 * disconnects; the browser keeps running. */
base_err cdp_browser_attach(const char *endpoint, cdp_browser **out, char *err);

/* How to reach a browser pool (browserless, Selenium Grid, a hosted CDP
 * service): one fresh browser per connection, a queue, a token. */
typedef struct cdp_attach_opts {
    /* Extra request headers, "Name: value" each, NULL-terminated, may be
     * NULL ("Authorization: Bearer TOKEN"); sent with discovery and the
     * websocket handshake. Borrowed during the call. */
    const char *const *headers;
    /* How long to wait for a browser, in ms: the handshake may stay
     * unanswered that long (at least 10 s) while the pool queues it and
     * starts its browser, and a full pool (HTTP 429/503) is asked again with
     * backoff (0.25 s doubling to 4 s) until it is over. 0: 10 s for the
     * handshake and no retry. */
    int wait_ms;
} cdp_attach_opts;

/* cdp_browser_attach with pool options (o may be NULL). The endpoint may be
 * any ws(s):// URL with path and query ("ws://h:p?token=T",
 * "wss://pool/chromium?token=T") or an http endpoint discovered through
 * /json/version (its query kept). A websocket whose path is not
 * /devtools/... is a pool's: when it closes the session, the error says
 * "the pool closed the session after N s". *out is the caller's, as with
 * cdp_browser_attach; o and its headers are only read during the call. Any
 * thread but the cdp service thread; blocks up to the wait. Errors:
 * BASE_EBUSY when the pool stayed full for the whole wait (the message says
 * how many times it was asked), BASE_EREMOTE for HTTP 401/403 (the token was
 * refused) or another HTTP status, BASE_ETIMEDOUT when queued past the wait,
 * BASE_ECANCELED on a stop signal while waiting, and those of cdp_connect.
 * Messages never show a URL's query (it may hold a token). */
base_err cdp_browser_attach_with(const char *endpoint, const cdp_attach_opts *o,
                                 cdp_browser **out, char *err);

/* Closes pages fovea opened, disconnects and (if launched) stops the
 * browser. NULL is a no-op. */
void cdp_browser_destroy(cdp_browser *b);

/* Borrowed; valid until cdp_browser_destroy. */
cdp_conn *cdp_browser_conn(cdp_browser *b);
/* The launched process, or NULL in attach mode. Borrowed. */
cdp_process *cdp_browser_process(cdp_browser *b);
/* "Chrome/156.0…" product string from Browser.getVersion (borrowed). */
const char *cdp_browser_product(cdp_browser *b);

typedef struct cdp_page_opts {
    int width, height;  /* CSS pixels of the viewport; 0 = 1280x800 */
    double scale;       /* device scale factor; 0 = 1 */
    int mobile;
} cdp_page_opts;

/* Opens a new tab (about:blank), attaches a flattened session, enables the
 * Page/Runtime domains, applies the viewport and auto-attaches to
 * out-of-process iframes. */
base_err cdp_page_open(cdp_browser *b, const cdp_page_opts *o, cdp_page **out, char *err);

/* Attaches to a tab the page opened (a popup, see cdp_page_popup_get) and sets
 * it up as cdp_page_open does; the viewport is applied to it. *out is the
 * caller's; cdp_page_close closes that tab. Any thread but the service thread.
 * Errors: BASE_EINVAL, those of cdp_call (a tab that closed meanwhile:
 * BASE_EREMOTE). */
base_err cdp_page_open_popup(cdp_browser *b, const char *target_id, const cdp_page_opts *o,
                             cdp_page **out, char *err);
/* Closes every tab cdp_page_open created that is still open, in every browser
 * of this process (and only those: never a tab fovea did not create), waiting
 * up to timeout_ms (0: 2000) in all. For a stop signal's exit path in attach
 * mode, where the browser is the user's and outlives fovea. Returns how many
 * were closed. Any thread except the cdp service thread; the pages stay
 * allocated (the process is expected to exit). */
int cdp_close_opened_tabs(int timeout_ms);

/* Closes the tab and frees the page; an adopted page is only detached from
 * (the tab stays open). NULL is a no-op. */
void cdp_page_close(cdp_page *p);

/* Navigates and waits for the load event of the main frame. Errors:
 * BASE_EINVAL for a URL scheme other than http, https, file, data, about and
 * blob (javascript: is refused); BASE_EREMOTE with the net error text and a
 * readable cause ("navigation to URL failed: net::ERR_NAME_NOT_RESOLVED (DNS
 * lookup failed)"), or "HTTP 404 at URL" when an http(s)
 * document loaded with a status >= 400; BASE_ETIMEDOUT; BASE_ECLOSED (the
 * browser or the page died meanwhile); BASE_ECANCELED when a stop signal
 * (base/interrupt.h, installed by the program) arrived while waiting for
 * the load event. */
base_err cdp_page_navigate(cdp_page *p, const char *url, int timeout_ms, char *err);

/* Runtime.evaluate(expr, returnByValue, awaitPromise) in the main frame.
 * *value (optional) receives the value (caller frees). A thrown exception
 * is BASE_EREMOTE with its text in err. */
base_err cdp_page_evaluate(cdp_page *p, const char *expr, cJSON **value, int timeout_ms,
                           char *err);

/* The name of fovea's own isolated world. Every page opened or adopted gets it
 * in every frame at document start (Page.addScriptToEvaluateOnNewDocument
 * with this worldName), so fovea's page scripts run where the page's scripts
 * cannot see them or change the built-ins they use. */
#define CDP_WORLD_NAME "fovea"

/* context_id for cdp_page_evaluate_in: fovea's isolated world in the root
 * frame of the session (cdp_page_world). */
#define CDP_CTX_FOVEA (-1)

/* The execution context of fovea's isolated world (CDP_WORLD_NAME) in frame
 * frame_id of session (NULL or "" session = the page's own; NULL or ""
 * frame_id = the session's root frame). Contexts are learnt from
 * Runtime.executionContextCreated as documents start, so this is usually no
 * round trip; a document that predates fovea gets Page.createIsolatedWorld
 * once. Any thread but the cdp service thread. Errors: BASE_EINVAL,
 * BASE_ENOTFOUND (the session has no known root frame), BASE_ENOMEM,
 * BASE_EPROTO, those of cdp_call. *context_id untouched on failure. */
base_err cdp_page_world(cdp_page *p, const char *session, const char *frame_id, int timeout_ms,
                        int *context_id, char *err);

/* The same on another session of the page (an out-of-process iframe's; NULL or
 * "" = the page's own) and in execution context context_id when > 0 (an
 * isolated world), CDP_CTX_FOVEA (fovea's world in the session's root frame,
 * asked again in a fresh context once when the remembered one belonged to a
 * document that is gone), else (0) the session's main world. Any thread but
 * the cdp service thread. Errors: as cdp_page_evaluate and cdp_page_world. */
base_err cdp_page_evaluate_in(cdp_page *p, const char *session, int context_id, const char *expr,
                              cJSON **value, int timeout_ms, char *err);

/* cdp_call on the page's own session. */
base_err cdp_page_call(cdp_page *p, const char *method, cJSON *params, cJSON **result,
                       int timeout_ms, char *err);

/* The browser that opened or adopted p (to open a popup's tab in it, say).
 * Borrowed; valid while the browser lives, which is longer than p. Any thread.
 * Errors: none; p must be a valid page (not checked). The accessors below are
 * likewise borrowed handles, valid as long as p. */
cdp_browser *cdp_page_browser(cdp_page *p);
cdp_conn *cdp_page_conn(cdp_page *p);
const char *cdp_page_session(cdp_page *p);
const char *cdp_page_target_id(cdp_page *p);
const cdp_page_opts *cdp_page_viewport(cdp_page *p);

/* One frame of the page's tree. */
typedef struct cdp_frame {
    char id[64];
    char parent_id[64]; /* "" for the main frame */
    char session[64];   /* session that owns this frame's document */
    char url[512];
    int oopif;          /* 1 when the frame runs in its own process/target */
} cdp_frame;

/* Copies up to max frames (main frame first) and returns how many exist. */
int cdp_page_frames(cdp_page *p, cdp_frame *out, int max);

/* Session that owns frame_id's document (copied into buf, 64 bytes); falls
 * back to the page session for in-process frames. BASE_ENOTFOUND if the
 * frame is unknown. */
base_err cdp_page_frame_session(cdp_page *p, const char *frame_id, char *buf);

/* True until the page's renderer crashed or its target went away. */
int cdp_page_alive(cdp_page *p);

/* BASE_OK while the page is usable; else the error every call on it now fails
 * with, and why (n bytes) receives the cause: "page crashed (its renderer
 * process died)", "tab closed (...)", "page not responding (...)"
 * (cdp_page_fail) or "browser connection closed". Any thread. */
base_err cdp_page_status(cdp_page *p, char *why, size_t n);

/* Declares the page dead with cause e/why (the runner's watchdog uses
 * BASE_ETIMEDOUT, "page not responding ..."): every pending and later call on
 * its sessions fails at once (cdp_session_fail). The first cause wins. Any
 * thread. */
void cdp_page_fail(cdp_page *p, base_err e, const char *why);

/* 1 when events of session sid belong to p (its own session or one of its
 * out-of-process iframes'), for watchers that subscribe to all events of the
 * connection (cdp/netwatch.h). Any thread, event callbacks included. Errors:
 * none; NULL sid is 0. */
int cdp_page_owns_session(cdp_page *p, const char *sid);

/* ---- JavaScript dialogs ----
 * Every page answers Page.javascriptDialogOpening on its sessions at once,
 * so a dialog never blocks the page or fovea: by default alert and
 * beforeunload are accepted, confirm and prompt dismissed (prompt accepted
 * only by a plan, with its text). Each dialog seen is recorded. */
typedef struct cdp_dialog {
    char type[16];            /* "alert", "confirm", "prompt", "beforeunload" */
    char message[512];        /* its text (truncated) */
    char default_prompt[256];
    char url[512];            /* the document that opened it */
    int accepted;             /* 1 accepted (OK), 0 dismissed (Cancel) */
    char prompt_text[256];    /* what a prompt was answered with */
    int planned;              /* answered by a cdp_page_dialog_next plan */
    int mismatch;             /* the plan expected other text: default policy used */
    char expected[256];       /* the plan's expected text */
} cdp_dialog;

/* Sets how to answer the NEXT dialog: accept (OK) or dismiss, the text for a
 * prompt, and optionally text it must contain (expect; else it is answered by
 * the default policy and marked mismatch). One-shot; a new plan replaces an
 * unused one. Strings are copied. Any thread. Errors: BASE_EINVAL, BASE_ETOOBIG
 * (a string of 256 bytes or more). */
base_err cdp_page_dialog_next(cdp_page *p, int accept, const char *prompt_text,
                              const char *expect);
/* 1 while a plan set by cdp_page_dialog_next has not been used. */
int cdp_page_dialog_pending_plan(cdp_page *p);
/* Dialogs seen so far (a counter; numbers are 0-based sequence numbers). */
uint64_t cdp_page_dialog_count(cdp_page *p);
/* Copies dialog number seq; 0 when it is unknown or no longer kept (the
 * last 16 are). Any thread. */
int cdp_page_dialog_get(cdp_page *p, uint64_t seq, cdp_dialog *out);

/* ---- tabs the page opened (window.open, target=_blank) ----
 * Counted from Target.targetCreated events whose openerId is this page. */
uint64_t cdp_page_popup_count(cdp_page *p);
/* Copies the target id (64 bytes) of popup number seq; 0 when unknown. */
int cdp_page_popup_get(cdp_page *p, uint64_t seq, char *target_id);

/* ---- Tabs fovea did not open ------------------------------------------------
 * A user's own browser already has tabs (logged in, in the middle of a flow).
 * fovea can list them and adopt one: it attaches a session of its own to the
 * existing tab and leaves the tab's viewport, device metrics and emulation
 * exactly as they are. An adopted page is used like an opened one; closing it
 * only detaches fovea's session, and the tab stays open. */

/* One target as Target.getTargets reports it (strings truncated to fit). */
typedef struct cdp_target_info {
    char id[64];
    char type[32];   /* "page", "iframe", "service_worker", "background_page", ... */
    char url[512];
    char title[160];
    int attached;    /* some client (maybe fovea itself) is attached to it */
} cdp_target_info;

/* Lists the browser's targets in the browser's order (Target.getTargets).
 * Copies up to max into out (may be NULL when max is 0) and stores the number
 * that exist in *n. out is the caller's. Any thread but the cdp service thread.
 * Errors: those of cdp_call, BASE_EPROTO (a reply without targetInfos); out and
 * *n are untouched on failure. */
base_err cdp_browser_targets(cdp_browser *b, cdp_target_info *out, int max, int *n, char *err);

/* 1 when t is a tab a user sees: type "page" and not a DevTools, extension or
 * browser-internal UI page (devtools://, chrome-extension://,
 * chrome-untrusted://). Any thread. */
int cdp_target_is_tab(const cdp_target_info *t);

/* Takes over the existing tab target_id: attaches a flattened session, enables
 * Page and Runtime, auto-attaches to its out-of-process iframes and loads its
 * frame tree, WITHOUT any Emulation call, so the tab keeps its viewport, device
 * scale factor and emulation. cdp_page_viewport then reports the tab's own
 * layout viewport and devicePixelRatio as measured at adoption
 * (cdp_page_refresh_viewport measures again). Several clients may be attached
 * to one tab; fovea's session does not disturb the others. *out is the
 * caller's; cdp_page_close detaches fovea's session and frees the page, leaving
 * the tab open (a page from cdp_page_open is closed). b must outlive the page.
 * Any thread but the cdp service thread. Errors: BASE_EINVAL (NULL or empty
 * id), BASE_ENOTFOUND (no such target, or it is not a page), cdp errors;
 * nothing stays attached on failure. */
base_err cdp_page_adopt(cdp_browser *b, const char *target_id, cdp_page **out, char *err);

/* Makes p the visible tab of its window (Page.bringToFront), as a person
 * switches to a tab before acting in it. A background tab of a real window
 * paints no frames, so screenshots wait and animation-frame based effect
 * checks stall there; hit tests and script work either way. Changes no
 * viewport or emulation. Any thread but the cdp service thread. Errors:
 * BASE_EINVAL (NULL page), those of cdp_call. */
base_err cdp_page_activate(cdp_page *p, char *err);

/* 1 when p came from cdp_page_adopt (closing it leaves the tab open). */
int cdp_page_adopted(cdp_page *p);

/* Measures an adopted page's viewport again (innerWidth, innerHeight,
 * devicePixelRatio), e.g. after the user resized the window; a page fovea
 * opened keeps the viewport it set. On the thread that uses the page
 * (cdp_page_viewport's readers), not the cdp service thread. Errors: BASE_EINVAL
 * (NULL page), those of cdp_page_evaluate, BASE_EPROTO; the viewport is
 * unchanged on failure. */
base_err cdp_page_refresh_viewport(cdp_page *p, char *err);

#endif
