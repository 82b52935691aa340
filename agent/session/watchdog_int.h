/* agent/session/watchdog_int.h: the runner's page watchdog (agent/session/watchdog.c).
 *
 * A frozen renderer (a script in an endless loop) answers no protocol call,
 * so every call on it waits out its own timeout, one after another. The
 * watchdog bounds that: the runner arms it with each attempt's deadline;
 * once the deadline has passed it probes the page with a trivial evaluate,
 * and a page that does not answer the probe within AGENT__PROBE_MS is
 * declared "page not responding" (cdp_page_fail), which fails every pending
 * and later call on it at once. A page that answers is probed again every
 * second until the runner disarms the watchdog. Internal to agent/.
 */
#ifndef FOVEA_AGENT_SESSION_WATCHDOG_INT_H
#define FOVEA_AGENT_SESSION_WATCHDOG_INT_H

#include "base/err.h"
#include "cdp/browser.h"

#define AGENT__PROBE_MS 1900
#define AGENT__PROBE_LEAD_MS 1500 /* the runner arms the first probe this early */

typedef struct agent__watchdog agent__watchdog;

/* Starts the watchdog thread (disarmed). *out is the caller's
 * (agent__watchdog_destroy). On the runner's thread. Errors: BASE_ENOMEM. */
base_err agent__watchdog_create(agent__watchdog **out, char *err);
/* Stops and joins the thread. NULL is a no-op. On the runner's thread. */
void agent__watchdog_destroy(agent__watchdog *w);
/* Watches page (borrowed until disarm) from now until disarm; probes once
 * deadline_ms (base_monotime_ms clock) has passed. Any thread. */
void agent__watchdog_arm(agent__watchdog *w, cdp_page *page, double deadline_ms);
/* Stops watching; after it returns no probe of the page is running or will
 * start. Any thread. */
void agent__watchdog_disarm(agent__watchdog *w);

#endif
