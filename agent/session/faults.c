/* agent/session/faults.c: what a call caused besides its own result — the
 * JavaScript dialogs the page showed, a tab it opened (followed), a tab
 * that closed itself, a page that crashed or stopped answering — named
 * after every call, whatever the tool (README "When the page or the
 * endpoint fails"). */
#include <string.h>

#include "agent/session/session_int.h"
#include "base/log.h"

/* After each attempt: report the dialogs the page showed (a dialog that did
 * not show the text a dialog step expected fails the step), follow a tab the
 * step opened, and name a dead page as the cause. Returns 1 when the
 * attempt must not be repeated: its click was delivered (it opened a dialog
 * or a tab) or the page is gone. */
int agent__call_faults(fovea_session *se, int followable, agent_step_record *r, int *ok)
{
    int delivered = 0;
    uint64_t nd = cdp_page_dialog_count(se->page);
    size_t k = strlen(r->dialog);
    for (uint64_t q = se->dialogs_seen; q < nd; q++) {
        cdp_dialog d;
        if (!cdp_page_dialog_get(se->page, q, &d))
            continue;
        delivered = 1;
        char answer[300];
        if (d.accepted && strcmp(d.type, "prompt") == 0)
            snprintf(answer, sizeof answer, "accepted with '%.200s'", d.prompt_text);
        else
            snprintf(answer, sizeof answer, "%s", d.accepted ? "accepted" : "dismissed");
        /* beforeunload dialogs carry no text of the page's (browsers show
         * their own "Leave site?"). */
        if (k < sizeof r->dialog)
            k += (size_t)snprintf(r->dialog + k, sizeof r->dialog - k, "%s%s%s%.200s%s %s",
                                  k ? "; " : "", d.type, d.message[0] ? " '" : "", d.message,
                                  d.message[0] ? "'" : "", answer);
        if (d.mismatch && *ok) {
            *ok = 0;
            agent__failf(r, "dialog", "the %s dialog said '%.100s', not '%.60s' as expected (%s)",
                  d.type, d.message, d.expected, answer);
        }
    }
    se->dialogs_seen = nd;
    /* The vision endpoint timed out or refused within this step's time: a
     * second attempt would only wait as long again. */
    if (!*ok && strcmp(r->reason, "vision") == 0)
        return 1;
    char why[200] = "";
    if (cdp_page_status(se->page, why, sizeof why) != BASE_OK && se->page != se->home &&
        strncmp(why, "tab closed", 10) == 0 && agent__back_to_opener(se, r)) {
        base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "step %d: %s", r->index, r->new_tab);
        if (*ok)
            return 0;
        if (!se->delivered) {
            /* Whatever the step saw, the cause is the closed tab; the
             * attempt may run again, on the opener. */
            agent__copy(r->reason, sizeof r->reason, "page_gone");
            snprintf(r->outcome, sizeof r->outcome, "the tab closed during the step (%.200s)",
                     r->new_tab);
            return 0;
        }
        /* The action reached its element and the tab closed: that is its
         * effect (a sign-in popup's "Allow" closes it), not a failure. */
        *ok = 1;
        r->ok = 1;
        agent__copy(r->reason, sizeof r->reason, "ok");
        snprintf(r->outcome, sizeof r->outcome, "clicked; the tab closed itself");
        return 0;
    }
    if (cdp_page_status(se->page, why, sizeof why) != BASE_OK) {
        if (!*ok) {
            /* Whatever the step tripped over, this is the cause. */
            agent__copy(r->reason, sizeof r->reason, "page_gone");
            snprintf(r->outcome, sizeof r->outcome, "%.200s", why);
        }
        return 1;
    }
    char tid[64] = "";
    uint64_t np = cdp_page_popup_count(se->page);
    if (np > se->popups_seen)
        cdp_page_popup_get(se->page, np - 1, tid);
    se->popups_seen = np;
    if (!tid[0] && se->fx_tab[0])
        agent__copy(tid, sizeof tid, se->fx_tab);
    if (tid[0] && followable) {
        delivered = 1;
        if (agent__follow_tab(se, tid, r) && !*ok) {
            /* The click opened a tab: that is its effect, not a dead click. */
            *ok = 1;
            r->ok = 1;
            agent__copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "clicked; it opened a new tab");
        }
        base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "step %d: %s", r->index, r->new_tab);
    }
    if (r->dialog[0] && *ok && !strstr(r->outcome, "dialog"))
        snprintf(r->outcome + strlen(r->outcome), sizeof r->outcome - strlen(r->outcome),
                 " (dialog: %.100s)", r->dialog);
    return delivered && !*ok ? 1 : 0;
}
