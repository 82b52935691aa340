/* base/interrupt.h: a graceful stop on SIGINT, SIGTERM, SIGHUP and SIGQUIT.
 *
 * A long-running command (fovea run) must not die in the middle of writing
 * its report when the user presses Ctrl-C or a supervisor sends SIGTERM. It
 * installs these handlers instead; the handler only records the first
 * signal's number in an atomic flag and writes one byte to a self-pipe (both
 * async-signal-safe). The program's loops ask base_interrupted() between
 * steps and sleep with base_interrupt_sleep_ms(), which returns as soon as a
 * signal arrives, then finish their output and exit with 128 + the signal.
 *
 * A second signal while the program is still finishing means "now": the
 * optional hard hook runs (it must be async-signal-safe, e.g. killing child
 * browsers and removing their profiles) and the process exits with
 * 128 + that signal at once.
 *
 * One process-wide state: signals are process-wide too. A thread may add a
 * stop flag of its own (base_interrupt_set_thread_flag): a server's
 * cancellation of one call.
 */
#ifndef FOVEA_BASE_INTERRUPT_H
#define FOVEA_BASE_INTERRUPT_H

#include <stdatomic.h>

/* Installs the graceful handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * (replacing earlier ones) and creates the self-pipe. hard_hook (may be NULL)
 * runs on a second signal before _exit. Idempotent; call from the main thread
 * before starting other threads. Returns 0, or -1 when the pipe could not be
 * made (the flag still works, sleeps poll instead). */
int base_interrupt_install(void (*hard_hook)(void));

/* The first stop signal received since install (SIGINT, ...), or 0 (also when
 * the handlers were never installed). Nothing changes owner. Any thread (an
 * atomic load; async-signal-safe). Errors: none. */
int base_interrupted(void);

/* Gives the calling thread a stop flag of its own besides the process-wide
 * signals: while *flag is non-zero, base_interrupted() on this thread reads
 * SIGINT and base_interrupt_sleep_ms returns early (within ~20 ms), so a
 * server can cancel one call in flight (an MCP notifications/cancelled)
 * without stopping its other sessions. NULL removes it. flag is borrowed and
 * must outlive its use on the thread (set NULL before freeing it). Thread-
 * local: other threads never see it. Errors: none. */
void base_interrupt_set_thread_flag(atomic_int *flag);

/* "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", or "signal N" (static buffer
 * for other numbers: not thread-safe for those). */
const char *base_signal_name(int sig);

/* Sleeps up to ms, returning early when a signal has arrived (it waits on the
 * self-pipe, or polls every 20 ms without one). Returns 1 when interrupted
 * (before or during the sleep), 0 after the full sleep; ms <= 0 returns at
 * once. Nothing changes owner. Any thread. Errors: none (a failed wait falls
 * back to polling). */
int base_interrupt_sleep_ms(double ms);

/* Test helper: forgets a received signal, so base_interrupted() is 0 again (the
 * handlers stay installed; a second signal is then a first one again). Nothing
 * changes owner. Any thread, but not while another thread relies on the flag.
 * Errors: none. */
void base_interrupt_reset(void);

#endif
