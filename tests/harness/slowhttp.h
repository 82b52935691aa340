/* tests/harness/slowhttp.h: a loopback chat-completions server that
 * misbehaves in time, for the model client's byte timers and time limits
 * (issue 22). Not a model: it reads a request (held to wire_check.h's
 * rules, like the replay server), then answers in one of four ways:
 *
 *   SLOW_SILENT   says nothing at all (the first-byte timer's case);
 *   SLOW_STALL    sends the headers and one stream chunk, then nothing;
 *   SLOW_TRICKLE  sends a valid streamed answer one byte per interval;
 *   SLOW_ENDLESS  sends a stream chunk every interval, forever.
 *
 * One connection at a time, on its own thread; the test thread uses the
 * API. slow_destroy stops it promptly and aborts when a request broke a
 * wire rule.
 */
#ifndef FOVEA_TESTS_SLOWHTTP_H
#define FOVEA_TESTS_SLOWHTTP_H

#include "base/err.h"

typedef enum slow_mode { SLOW_SILENT, SLOW_STALL, SLOW_TRICKLE, SLOW_ENDLESS } slow_mode;

typedef struct slow_server slow_server;

/* Starts the server on a random loopback port. interval_ms paces TRICKLE and
 * ENDLESS. Errors: BASE_EIO (socket, thread), BASE_ENOMEM. */
base_err slow_start(slow_mode mode, int interval_ms, slow_server **out, char *err);
/* "http://127.0.0.1:PORT/v1". Valid until destroy. */
const char *slow_base_url(const slow_server *s);
/* Requests read so far. */
int slow_requests(slow_server *s);
/* Stops and frees. NULL: no-op. */
void slow_destroy(slow_server *s);

#endif
