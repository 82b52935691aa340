/* agent/session/tool_brief.c: the tool list a model is offered (issue 22, "a
 * third of the tokens").
 *
 * The registry's function list (tool_functions_json) is ~23 KB of JSON, 80 %
 * of a Worker request, sent again on every call. A model needs far less to
 * act on a page: a dozen verbs with one-line descriptions and the arguments
 * it actually uses. So the model gets the brief list below (short
 * descriptions, narrow schemas: a target is a string, no step keys), plus one
 * function, more_tools, that makes every other tool the run permits callable
 * with its full schema. The caller appends tool_functions_more_json's list
 * to the tools it sends once, after the brief ones: the request's prefix
 * changes that one time and is stable again after (prompt caches reuse it).
 *
 * Every brief schema is narrower than its registry schema (a property the
 * registry does not know, or a value it refuses, is a test failure:
 * tests/agent/session/test_tool_brief.c), and calls are still checked with
 * the registry's schema and checks (tool_check_call), so the brief list
 * changes what the model reads, never what a call may do. Permits decide as
 * they do for the full list. The humans' views (`fovea tools`, docs) keep the
 * full descriptions.
 */
#include "agent/session/tool.h"

#include <string.h>

/* A target: what click_at and friends take, in the one form models use. */
#define T_TARGET "\"target\": {\"type\": \"string\", \"description\": \"its label, or [Vn]\"}"

static const struct {
    const char *name;
    const char *description;
    const char *schema;
} brief[] = {
    {"click_at", "Click an element.",
     "{\"type\": \"object\", \"properties\": {" T_TARGET ", \"verb\": {\"type\": \"string\", "
     "\"description\": \"open, expand, select, check, uncheck or toggle\"}}, \"required\": "
     "[\"target\"]}"},
    {"type_at", "Type text into a field.",
     "{\"type\": \"object\", \"properties\": {" T_TARGET ", \"text\": {\"type\": \"string\"}, "
     "\"secret\": {\"type\": \"boolean\", \"description\": \"a password: never logged\"}}, "
     "\"required\": [\"target\", \"text\"]}"},
    {"select_option", "Choose a dropdown's option by its text.",
     "{\"type\": \"object\", \"properties\": {" T_TARGET ", \"value\": {\"type\": \"string\", "
     "\"description\": \"the option's text\"}}, \"required\": [\"target\", \"value\"]}"},
    {"send_keys", "Press keys on the focused element or target: Enter, Tab, Escape, Control+A.",
     "{\"type\": \"object\", \"properties\": {\"keys\": {\"type\": \"string\", \"description\": "
     "\"chords separated by spaces\"}, " T_TARGET "}, \"required\": [\"keys\"]}"},
    {"scroll", "Scroll the page: a direction, or until a text or target shows.",
     "{\"type\": \"object\", \"properties\": {\"direction\": {\"type\": \"string\", \"enum\": "
     "[\"up\", \"down\"]}, \"to_text\": {\"type\": \"string\"}, " T_TARGET "}}"},
    {"navigate", "Go to a URL of the task's site.",
     "{\"type\": \"object\", \"properties\": {\"url\": {\"type\": \"string\"}}, \"required\": "
     "[\"url\"]}"},
    {"go_back", "Go back one page.", "{\"type\": \"object\", \"properties\": {}}"},
    {"wait_for", "Wait until a text or an element shows.",
     "{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}, " T_TARGET "}}"},
    {"extract", "Read the page's lines that match a regular expression.",
     "{\"type\": \"object\", \"properties\": {\"pattern\": {\"type\": \"string\"}, " T_TARGET
     "}}"},
    {"focus_region", "Show one region of the outline in full: \"MAIN\", \"NAV:Primary\", \"#3\".",
     "{\"type\": \"object\", \"properties\": {\"region\": {\"type\": \"string\"}}, "
     "\"required\": [\"region\"]}"},
    {"done", "The task is finished (or, success false, cannot be); text is the answer.",
     "{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}, \"success\": "
     "{\"type\": \"boolean\"}}}"},
};

#define N_BRIEF (sizeof brief / sizeof brief[0])

static const char more_description[] =
    "Make the other tools callable (hover, drag, tabs, dialogs, assertions, reading as Markdown "
    "or by CSS, waits on conditions, ...); their list comes with the result.";

int tool_brief_count(void)
{
    return (int)N_BRIEF;
}

const char *tool_brief_name(int i)
{
    return i >= 0 && i < (int)N_BRIEF ? brief[i].name : NULL;
}

const char *tool_brief_schema(const char *name)
{
    for (size_t i = 0; name && i < N_BRIEF; i++)
        if (strcmp(brief[i].name, name) == 0)
            return brief[i].schema;
    return NULL;
}

/* Appends {"type": "function", "function": {name, description, parameters}}
 * to arr; params is taken over (deleted on failure). 0, or -1 when out of
 * memory. */
static int add_function(cJSON *arr, const char *name, const char *description, cJSON *params)
{
    cJSON *wrap = cJSON_CreateObject();
    cJSON *fn = wrap ? cJSON_AddObjectToObject(wrap, "function") : NULL;
    if (!params || !fn || !cJSON_AddStringToObject(wrap, "type", "function") ||
        !cJSON_AddStringToObject(fn, "name", name) ||
        !cJSON_AddStringToObject(fn, "description", description) ||
        !cJSON_AddItemToObject(fn, "parameters", params)) {
        /* params belongs to fn only once the last call succeeded. */
        if (!fn || !cJSON_GetObjectItemCaseSensitive(fn, "parameters"))
            cJSON_Delete(params);
        cJSON_Delete(wrap);
        return -1;
    }
    if (!cJSON_AddItemToArray(arr, wrap)) {
        cJSON_Delete(wrap);
        return -1;
    }
    return 0;
}

/* Whether the run's permits let t be offered. */
static int permitted(const tool_def *t, unsigned permits)
{
    unsigned need = tool_permit_needed(t);
    return !need || (permits & need);
}

cJSON *tool_functions_brief_json(unsigned permits)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < N_BRIEF; i++) {
        const tool_def *t = tool_find(brief[i].name);
        if (!t || !permitted(t, permits))
            continue;
        if (add_function(arr, brief[i].name, brief[i].description,
                         cJSON_Parse(brief[i].schema)) != 0) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    if (arr && add_function(arr, TOOL_MORE_TOOLS, more_description,
                            cJSON_Parse("{\"type\": \"object\", \"properties\": {}}")) != 0) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

cJSON *tool_functions_more_json(unsigned permits)
{
    cJSON *all = tool_functions_json(permits);
    if (!all)
        return NULL;
    /* The registry's list without the brief ones, in table order. */
    for (cJSON *f = all->child; f;) {
        cJSON *next = f->next;
        const cJSON *n =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "function"), "name");
        if (cJSON_IsString(n) && tool_brief_schema(n->valuestring))
            cJSON_Delete(cJSON_DetachItemViaPointer(all, f));
        f = next;
    }
    return all;
}
