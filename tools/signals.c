/* tools/signals.c: what a stop signal does to a fovea command.
 *
 * Every command gets the graceful handlers of base/interrupt.h (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT: a flag and a self-pipe). `fovea run` checks the
 * flag itself and finishes its trace and report before it exits. Every
 * other command is stopped by a watcher thread that sleeps on the
 * self-pipe: it closes the tabs fovea opened (in attach mode they would
 * stay in the user's browser), kills the browsers fovea launched, removes
 * their profiles and exits with 128 + the signal. Doing this on a thread
 * rather than in the handler is what allows the CDP calls that close tabs.
 * A second signal exits at once from the handler (browsers killed, profiles
 * removed: both async-signal-safe).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "cdp/browser.h"
#include "cdp/launch.h"
#include "tools/cli.h"

static void *watch(void *arg)
{
    (void)arg;
    while (!base_interrupt_sleep_ms(3600.0 * 1000.0)) {
    }
    int sig = base_interrupted();
    cdp_close_opened_tabs(2000);
    cdp_launch_cleanup_now();
    fflush(NULL);
    _exit(128 + sig);
    return NULL;
}

void cli_signals_install(int graceful)
{
    base_interrupt_install(cdp_launch_cleanup_now);
    if (graceful)
        return;
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, watch, NULL) != 0) {
        /* No watcher: fall back to the launcher's own handlers (browsers
         * and profiles removed, the signal's default action). */
        cdp_launch_install_signal_cleanup();
    }
    pthread_attr_destroy(&a);
}
