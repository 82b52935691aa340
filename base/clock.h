/* base/clock.h: monotonic time and sleeping. */
#ifndef FOVEA_BASE_CLOCK_H
#define FOVEA_BASE_CLOCK_H

#include <stdint.h>

/* Microseconds on CLOCK_MONOTONIC. Any thread. */
int64_t base_monotime(void);

/* Milliseconds on CLOCK_MONOTONIC, as a double for timing reports. */
double base_monotime_ms(void);

/* Sleeps for ms milliseconds (resumes after signals). ms <= 0 returns at once. */
void base_sleep_ms(double ms);

/* Fills ts with the absolute CLOCK_REALTIME time `ms` from now, for
 * pthread_cond_timedwait on a default condition variable. */
struct timespec;
void base_deadline_ts(struct timespec *ts, int64_t ms);

#endif
