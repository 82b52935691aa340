/* cdp/browser_int.h: the registry of tabs fovea opened (cdp/opened.c),
 * shared by browser.c. Any thread; the registry has its own lock. */
#ifndef FOVEA_CDP_BROWSER_INT_H
#define FOVEA_CDP_BROWSER_INT_H

#include "cdp/cdp.h"

/* Records that fovea created target_id on conn (Target.createTarget). */
void cdp__opened_add(cdp_conn *c, const char *target_id);
/* Forgets target_id (its page is being closed by its owner). */
void cdp__opened_remove(const char *target_id);
/* Forgets every tab of conn (the connection is about to be destroyed);
 * waits for a running cdp_close_opened_tabs to finish first. */
void cdp__opened_forget_conn(cdp_conn *c);

#endif
