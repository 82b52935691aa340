/* tests/agent/plan/synth_convo.h: a synthetic agent conversation in the message
 * conventions of agent/plan/evict.h, for test_evict and bench/bench_memory.
 *
 * Each step appends what a vision-first agent loop sends and receives: a
 * user observation (a SESSION_STATE block, an ELEMENTS list of 40-60 [Vn]
 * rows and a 1280x800 screenshot as an image part: a real PNG header with a
 * short placeholder payload, so the token estimate reads its size), an
 * assistant message with reasoning and one or two tool calls, and their
 * tool results (JSON; every 5th step's first call fails with not_found,
 * every 7th step extracts a long text). The page changes every 3 steps.
 * Deterministic: the same step gives the same messages.
 */
#ifndef FOVEA_TESTS_SYNTH_CONVO_H
#define FOVEA_TESTS_SYNTH_CONVO_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"

#define SYNTH_PREFIX                                                                          \
    "You are the Worker of a web agent. You see the page as a screenshot with numbered "     \
    "marks [Vn] and a list of the marks. Call one or more tools per step; a page-changing "  \
    "action ends the batch. Never repeat a dead end. Report completion to the Planner."

/* A 1280x800 PNG header in base64, then a placeholder payload. */
#define SYNTH_PNG "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAABQAAAAMgCAYAAAA" \
                  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

static const char *const synth_words[] = {"Flights", "Hotels", "Sign in", "Search", "Cabin",
                                          "Non-stop only", "Price", "Sort by", "Add to cart",
                                          "Checkout", "Next", "Filter", "Departure", "Return",
                                          "Passengers", "Deals", "Help", "Lisbon", "Porto",
                                          "Oslo"};

static cJSON *synth_prefix(void)
{
    cJSON *msgs = cJSON_CreateArray();
    cJSON *sys = cJSON_CreateObject();
    cJSON_AddStringToObject(sys, "role", "system");
    cJSON_AddStringToObject(sys, "content", SYNTH_PREFIX);
    cJSON_AddItemToArray(msgs, sys);
    cJSON *task = cJSON_CreateObject();
    cJSON_AddStringToObject(task, "role", "user");
    cJSON_AddStringToObject(task, "content",
                            "Task: book the cheapest non-stop flight from Oslo to Lisbon on 14 June.");
    cJSON_AddItemToArray(msgs, task);
    return msgs;
}

static void synth_url(int step, char *url, size_t cap)
{
    snprintf(url, cap, "https://air.example/page/%d", (step - 1) / 3);
}

/* Appends step `step` (1-based) to msgs. */
static void synth_step(cJSON *msgs, int step)
{
    char url[128];
    synth_url(step, url, sizeof url);
    base_buf b;
    base_buf_init(&b, 1 << 20);
    base_buf_printf(&b,
                    "[SESSION_STATE url=%s title=Flights page %d]\nscroll 0 of 2400 px, 1 tab, "
                    "viewport 1280x800, last action %s\n[/SESSION_STATE]\n",
                    url, (step - 1) / 3, step > 1 ? "click_at" : "none");
    int rows = 40 + (step * 7) % 21;
    base_buf_printf(&b, "[ELEMENTS %d marks]\n", rows);
    for (int r = 1; r <= rows; r++)
        base_buf_printf(&b, "[V%d] %s \"%s %d\" at (%d,%d %dx%d)\n", r,
                        r % 3 ? "button" : "link", synth_words[(r + step) % 20], r,
                        (r * 37) % 1200, (r * 53) % 780, 40 + r % 90, 24 + r % 12);
    base_buf_append_str(&b, "[/ELEMENTS]");
    cJSON *user = cJSON_CreateObject();
    cJSON_AddStringToObject(user, "role", "user");
    cJSON *parts = cJSON_AddArrayToObject(user, "content");
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "text");
    cJSON_AddStringToObject(t, "text", (const char *)b.data);
    cJSON_AddItemToArray(parts, t);
    cJSON *img = cJSON_CreateObject();
    cJSON_AddStringToObject(img, "type", "image_url");
    cJSON *iu = cJSON_AddObjectToObject(img, "image_url");
    cJSON_AddStringToObject(iu, "url", SYNTH_PNG);
    cJSON_AddItemToArray(parts, img);
    cJSON_AddItemToArray(msgs, user);
    base_buf_fini(&b);

    int calls = step % 4 == 0 ? 2 : 1;
    cJSON *as = cJSON_CreateObject();
    cJSON_AddStringToObject(as, "role", "assistant");
    cJSON_AddNullToObject(as, "content");
    char reasoning[900];
    snprintf(reasoning, sizeof reasoning,
             "Step %d. The page shows the flight search results for Oslo to Lisbon. The goal "
             "asks for the cheapest non-stop flight on 14 June; the non-stop filter is at "
             "[V%d] and the sort control at [V%d]. The previous action succeeded, so the next "
             "move is to narrow the list, then compare prices across the visible rows before "
             "scrolling. Prices seen so far are in the ledger facts; avoid the dead ends.",
             step, 3 + step % 9, 11 + step % 7);
    cJSON_AddStringToObject(as, "reasoning_content", reasoning);
    cJSON *tc = cJSON_AddArrayToObject(as, "tool_calls");
    for (int c = 0; c < calls; c++) {
        char id[32];
        char args[128];
        snprintf(id, sizeof id, "call_%d_%d", step, c);
        int extract = step % 7 == 0 && c == 0;
        if (extract)
            snprintf(args, sizeof args, "{\"pattern\":\"\\\\d+ EUR\",\"scope\":\"results\"}");
        else
            snprintf(args, sizeof args, "{\"target\":\"[V%d] %s\"}", 2 + (step + c) % 40,
                     synth_words[(step + c) % 20]);
        cJSON *call = cJSON_CreateObject();
        cJSON_AddStringToObject(call, "id", id);
        cJSON_AddStringToObject(call, "type", "function");
        cJSON *fn = cJSON_AddObjectToObject(call, "function");
        cJSON_AddStringToObject(fn, "name", extract ? "extract" : "click_at");
        cJSON_AddStringToObject(fn, "arguments", args);
        cJSON_AddItemToArray(tc, call);
    }
    cJSON_AddItemToArray(msgs, as);
    for (int c = 0; c < calls; c++) {
        char id[32];
        snprintf(id, sizeof id, "call_%d_%d", step, c);
        base_buf r;
        base_buf_init(&r, 1 << 20);
        if (step % 5 == 0 && c == 0) {
            base_buf_printf(&r,
                            "{\"ok\":false,\"reason\":\"not_found\",\"message\":\"no element "
                            "labelled '%s' near [V%d]; try: '%s', '%s'\",\"url\":\"%s\","
                            "\"step\":%d,\"tried\":[\"cdp\"],\"alternatives\":[\"scroll down\","
                            "\"list the elements again\"]}",
                            synth_words[step % 20], 2 + step % 40, synth_words[(step + 1) % 20],
                            synth_words[(step + 2) % 20], url, step);
        } else if (step % 7 == 0 && c == 0) {
            base_buf_printf(&r, "{\"ok\":true,\"reason\":\"ok\",\"url\":\"%s\",\"step\":%d,"
                                "\"data\":{\"value\":\"", url, step);
            for (int k = 0; k < 60; k++)
                base_buf_printf(&r, "TP%03d Oslo 07:%02d - Lisbon 11:%02d non-stop %d EUR; ",
                                k, k % 60, (k * 7) % 60, 89 + (k * 13) % 300);
            base_buf_append_str(&r, "\"}}");
        } else {
            base_buf_printf(&r,
                            "{\"ok\":true,\"reason\":\"ok\",\"message\":\"clicked [V%d] at "
                            "(%d,%d); the page changed: 3 lines appeared\",\"url\":\"%s\","
                            "\"step\":%d,\"tier\":\"cdp\"}",
                            2 + (step + c) % 40, 100 + step * 7 % 900, 80 + step * 11 % 600, url,
                            step);
        }
        cJSON *tm = cJSON_CreateObject();
        cJSON_AddStringToObject(tm, "role", "tool");
        cJSON_AddStringToObject(tm, "tool_call_id", id);
        cJSON_AddStringToObject(tm, "content", (const char *)r.data);
        cJSON_AddItemToArray(msgs, tm);
        base_buf_fini(&r);
    }
}

#endif
