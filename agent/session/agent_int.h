/* agent/session/agent_int.h: helpers shared by the runner's files (agent/ only). */
#ifndef FOVEA_AGENT_SESSION_AGENT_INT_H
#define FOVEA_AGENT_SESSION_AGENT_INT_H

#include <stddef.h>

#include "agent/session/secrets.h"
#include "agent/session/step.h"
#include "agent/session/trace.h"
#include "base/geom.h"
#include "cdp/browser.h"
#include "perception/prefetch.h"

/* Up to 4 "try:" lines into r->alternatives, never none when e has boxes:
 * the boxes whose labels are nearest t's label, and the neighbour of the box
 * t's index names. agent/session/names.c; runner thread. */
void agent__suggest(const perc_epoch *e, const agent_target *t, agent_step_record *r);

/* "[V3] Cancel order" for box b into out (n bytes): label case kept,
 * whitespace collapsed, clipped to 40 bytes on a UTF-8 boundary. */
void agent__mark_name(const perc_box *b, char *out, size_t n);

/* Adds the password of url's userinfo ("scheme://user:password@host"),
 * percent-decoded as well as written, to sec; no-op for NULL or a URL
 * without one. Errors: those of agent_secrets_add (err says which).
 * agent/session/secrets_page.c; any thread. */
base_err agent__add_url_password(agent_secrets *sec, const char *url, char *err);

/* Viewport rects (CSS px, max of them) where page shows a secret of sec as
 * text or as a field's value; 0 when none or the set is empty, -1 when the
 * search could not run (isolated world or page did not answer). agent/session/secrets_page.c; runner thread. */
int agent__secret_rects(cdp_page *page, const agent_secrets *sec, base_rect *out, int max);

/* Scrolls the scroll box that clips the one interactive element whose name
 * is label (assets/js/agent_reveal.js) so it shows; 1 when it scrolled, 0
 * when there is no such element, it is not clipped, or the page did not
 * answer. agent/session/reveal.c; runner thread (blocking CDP). */
int agent__reveal(cdp_page *page, const char *label);

#endif
