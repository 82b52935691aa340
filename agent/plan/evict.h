/* agent/plan/evict.h: the memory hook run before every model call (seed 002 §5.3,
 * Algorithm 3): six idempotent passes over the live message list, failures
 * moved into the ledger's dead ends, then the ledger re-rendered into its
 * system block.
 *
 * The message list is an OpenAI-style cJSON array of objects {role,
 * content, tool_calls, tool_call_id, ...}; content is a string or an array
 * of parts ({"type":"text","text":...} or {"type":"image_url",...}). The
 * agent loop writes its messages in these conventions, which the passes
 * recognise (and nothing else):
 *   - msgs[0] is the byte-stable prefix (system prompt; the tool list goes
 *     in the request's "tools", beside it): never changed here;
 *   - the ledger block is a system message whose text starts "[LEDGER",
 *     kept at index 1 (inserted there when missing), holding the slots
 *     that change rarely; the per-step slots (subgoal, recent steps) go in
 *     a "[LEDGER_NOW ...] ... [/LEDGER_NOW]" text in the newest user or
 *     tool message, and leave the older ones (agent_ledger_render_split),
 *     so a step's request repeats the previous one's bytes up to the
 *     turns the passes just changed;
 *   - a screenshot is an image_url part;
 *   - a tool result (role "tool") whose content is a JSON object with
 *     "ok": false is a failure; its "reason", "message", "url" and "step"
 *     fields describe it; its "data" is what the tool read (phase 6 keeps
 *     it in the newest keep_tool_data results only: a Worker request does
 *     not carry every page text it ever extracted, issue 22);
 *   - "[SESSION_STATE url=U title=T] ... [/SESSION_STATE]" in a text is a
 *     page-state block;
 *   - "[ELEMENTS ...] ... [/ELEMENTS]" in a text is an element list ([Vn]
 *     rows);
 *   - reasoning is in an assistant's "reasoning_content", "reasoning",
 *     "thinking" or "thinking_blocks" key;
 *   - a turn starts at each user message (the observation) and at an
 *     assistant message that does not follow one.
 * Messages are never removed or reordered and tool_calls / tool_call_id are
 * never touched, so every tool call keeps its result (the API refuses a
 * list where they are unpaired). Keys starting with '_' are fovea's own
 * annotations ("_archived"); agent_evict_wire drops them before sending.
 *
 * Pure: no I/O; the ledger is changed in memory only (dead ends, one
 * episodic note per gut), its next agent_ledger_sync writes them. Not
 * thread-safe: the list and the ledger belong to the agent loop's thread.
 */
#ifndef FOVEA_AGENT_PLAN_EVICT_H
#define FOVEA_AGENT_PLAN_EVICT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/plan/ledger.h"
#include "base/err.h"

#define AGENT_EVICT_PASSES 6

/* Markers the passes leave (none of them matches what a pass looks for,
 * which is what makes every pass idempotent). */
#define AGENT_EVICT_SCREENSHOT_MARK "[screenshot from prior turn evicted]"
#define AGENT_EVICT_STATE_MARK "[state evicted]"
#define AGENT_EVICT_ELEMENTS_MARK \
    "[element list evicted; list the elements again or use the newest screenshot's marks]"
#define AGENT_EVICT_ARCHIVED_MARK "[archived]"
/* An older tool result's "data" (what the tool read) becomes this, then
 * " N characters]". */
#define AGENT_EVICT_DATA_MARK "[data evicted:"

typedef struct agent_evict_opts {
    int keep_screenshots;   /* phase 1: newest image parts kept (2) */
    int keep_failures;      /* phase 2: newest failed results kept verbatim (1) */
    int keep_state_turns;   /* phase 3: turns whose state blocks stay (2) */
    int keep_thinking;      /* phase 4: newest assistants keeping reasoning (3) */
    int gut_above;          /* phase 5: gut only when the list is longer (30) */
    int gut_keep_turns;     /* phase 5: newest turns left whole (5) */
    int keep_element_lists; /* phase 6: newest element lists kept (1) */
    int keep_tool_data;     /* phase 6: newest tool results keeping their "data" (1; <= 0:
                               all keep it) */
    agent_role role;        /* whose ledger view goes into the block */
    const char *url;        /* current page (NULL: from the newest state block) */
    int step;               /* current step, for dead ends and notes */
} agent_evict_opts;

typedef struct agent_evict_stats {
    int changed[AGENT_EVICT_PASSES + 1]; /* [p]: items pass p evicted (index 0 unused) */
    int dead_ends;                       /* failures moved into the ledger */
    int ledger_refreshed;                /* 1 when the block's text changed */
    size_t tokens_before;                /* model_tokens_messages before / after */
    size_t tokens_after;
} agent_evict_stats;

/* The paper's constants (2, 1, 2, 3, 30, 5, 1), keep_tool_data 1, the
 * Worker's view. Pure. */
void agent_evict_opts_default(agent_evict_opts *o);

/* Runs one pass (1..6) over msgs in place; pass 2 adds a dead end to l (may
 * be NULL: none recorded) per collapsed failure, pass 5 a note. st (may be
 * NULL) accumulates counts. Idempotent: running a pass twice leaves what
 * running it once left. msgs and l stay the caller's. On the owner's thread.
 * Errors: BASE_EINVAL (msgs not an array, pass out of range), BASE_ENOMEM
 * (the list may then hold some of the pass's replacements, every one
 * complete: never a half-edited message). */
base_err agent_evict_pass(cJSON *msgs, int pass, agent_ledger *l, const agent_evict_opts *o,
                          agent_evict_stats *st, char *err);

/* Puts the ledger's render for role (and url) into the ledger block at index
 * 1 (after the prefix; inserted when missing) and the newest user/tool
 * message ([LEDGER_NOW]); messages whose text is already right are left
 * untouched. Sets *changed (may be NULL) when any changed. msgs and l stay
 * the caller's. On the agent loop's thread. Errors: BASE_EINVAL (msgs empty
 * or not an array), BASE_ENOMEM. */
base_err agent_evict_refresh_ledger(cJSON *msgs, const agent_ledger *l, agent_role role,
                                    const char *url, int *changed, char *err);

/* Algorithm 3 — the six passes in order, then the ledger refresh. o may be
 * NULL (defaults). st (may be NULL) is filled (zeroed first). msgs and l
 * stay the caller's. On the agent loop's thread. Errors: as
 * agent_evict_pass. */
base_err agent_evict(cJSON *msgs, agent_ledger *l, const agent_evict_opts *o,
                     agent_evict_stats *st, char *err);

/* A copy of msgs for the wire: keys starting with '_' dropped. A new cJSON
 * the caller deletes (msgs is only read). On the agent loop's thread. Errors:
 * NULL on ENOMEM. */
cJSON *agent_evict_wire(const cJSON *msgs);

/* Checks the API's pairing rule: every tool call id of an assistant message
 * is answered by exactly one later tool message before the next assistant
 * message, and every tool message answers such a call. Returns 1 when it
 * holds; else 0 with why (cap bytes, may be NULL) naming the message index
 * and id. Pure. */
int agent_evict_pairs_ok(const cJSON *msgs, char *why, size_t cap);

/* The current page's (url, title) from the newest SESSION_STATE block, copied
 * into url/title (cap bytes each; "" when none). Returns 1 when a block was
 * found. Pure. */
int agent_evict_current_page(const cJSON *msgs, char *url, size_t url_cap, char *title,
                             size_t title_cap);

#endif
