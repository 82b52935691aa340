/* cdp/opened.c: which tabs fovea opened, so that they can be closed when
 * the process is stopped.
 *
 * In attach mode (--cdp) the browser is the user's: it outlives fovea, and
 * a tab fovea created and did not close stays open in it. The normal path
 * closes each page with cdp_page_close; a process stopped by a signal does
 * not reach that path, so the CLI's signal watcher thread calls
 * cdp_close_opened_tabs, which closes exactly the tabs recorded here (never
 * one fovea did not create). The lock is held while closing, so a
 * connection cannot be destroyed under the closer (cdp__opened_forget_conn
 * waits for it).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "cdp/browser.h"
#include "cdp/browser_int.h"

#define OPENED_MAX 64

typedef struct opened {
    cdp_conn *conn; /* NULL: free slot */
    char target_id[64];
} opened;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static opened g_tabs[OPENED_MAX];

void cdp__opened_add(cdp_conn *c, const char *target_id)
{
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < OPENED_MAX; i++) {
        if (!g_tabs[i].conn) {
            g_tabs[i].conn = c;
            snprintf(g_tabs[i].target_id, sizeof g_tabs[i].target_id, "%s", target_id);
            break;
        }
    }
    pthread_mutex_unlock(&g_mu);
}

void cdp__opened_remove(const char *target_id)
{
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < OPENED_MAX; i++)
        if (g_tabs[i].conn && strcmp(g_tabs[i].target_id, target_id) == 0)
            g_tabs[i].conn = NULL;
    pthread_mutex_unlock(&g_mu);
}

void cdp__opened_forget_conn(cdp_conn *c)
{
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < OPENED_MAX; i++)
        if (g_tabs[i].conn == c)
            g_tabs[i].conn = NULL;
    pthread_mutex_unlock(&g_mu);
}

int cdp_close_opened_tabs(int timeout_ms)
{
    int closed = 0;
    int64_t deadline = base_monotime() + (int64_t)(timeout_ms > 0 ? timeout_ms : 2000) * 1000;
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < OPENED_MAX; i++) {
        opened *t = &g_tabs[i];
        if (!t->conn)
            continue;
        int64_t left_ms = (deadline - base_monotime()) / 1000;
        if (left_ms > 0 && cdp_conn_alive(t->conn)) {
            cJSON *pa = cJSON_CreateObject();
            if (!pa || !cJSON_AddStringToObject(pa, "targetId", t->target_id)) {
                cJSON_Delete(pa);
                continue;
            }
            if (cdp_call(t->conn, NULL, "Target.closeTarget", pa, NULL, (int)left_ms, NULL) ==
                BASE_OK)
                closed++;
        }
        t->conn = NULL;
    }
    pthread_mutex_unlock(&g_mu);
    return closed;
}
